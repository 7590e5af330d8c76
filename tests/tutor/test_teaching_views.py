import csv
import io
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from playwright.sync_api import expect

from course.models import Lesson
from tests.factories import (
    make_admin,
    make_cohort,
    make_course,
    make_exercise,
    make_learner_run,
    make_lesson,
    make_lesson_progress,
    make_ordering_attempt,
    make_prediction,
    make_snippet,
    make_teacher,
    make_user,
)
from tutor.actions.runs import execute_run
from tutor.models import Cohort, LessonProgress, Membership, Run
from tutor.practice.ordering.actions import check_order
from tutor.practice.ordering.models import OrderingArrangement, OrderingHelp
from tutor.practice.snippet.models import Prediction, VersionPrediction

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def people():
    teacher = make_teacher("teacher")
    student = make_user("student")
    return {
        "teacher": teacher,
        "another_teacher": make_teacher("another_teacher"),
        "student": student,
        "another_student": make_user("another_student"),
        "admin": make_admin("admin"),
        "cohort": make_cohort(teacher, students=[student], name="Tuesday group"),
    }


@pytest.fixture
def lesson():
    lesson = make_lesson(title="Loops")
    make_snippet(lesson, key="count", code="print(1)\nprint(2)\n", expected_output="1\n2\n")
    make_exercise(lesson, key="order-it")
    return lesson


def stream(response) -> str:
    content = b"".join(response.streaming_content)
    # UTF-8 with a byte order mark, so that spreadsheets read it as UTF-8.
    assert content.startswith("\ufeff".encode())
    return content.decode("utf-8-sig")


# Who may see what ----------------------------------------------------------------------

TEACHER_PAGES = ["class_detail", "class_lesson", "class_student", "class_csv", "class_attempts_csv"]


def teacher_page_url(name: str, people, lesson) -> str:
    cohort = people["cohort"]
    args = {
        "class_lesson": [cohort.pk, lesson.pk],
        "class_student": [cohort.pk, people["student"].pk],
    }.get(name, [cohort.pk])
    return reverse(f"tutor:{name}", args=args)


@pytest.mark.parametrize("name", TEACHER_PAGES)
@pytest.mark.parametrize(
    "who, status",
    [
        ("student", 403),
        ("another_student", 403),
        ("teacher", 200),
        ("another_teacher", 404),
        ("admin", 200),
    ],
)
def test_teacher_pages_are_for_the_classes_teacher_and_admins(
    client, people, lesson, name, who, status
):
    client.force_login(people[who])
    assert client.get(teacher_page_url(name, people, lesson)).status_code == status


@pytest.mark.parametrize("name", TEACHER_PAGES)
def test_teacher_pages_send_anonymous_visitors_to_log_in(client, people, lesson, name):
    url = teacher_page_url(name, people, lesson)
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_a_student_of_another_class_is_not_found_in_this_one(client, people, lesson):
    client.force_login(people["teacher"])
    url = reverse("tutor:class_student", args=[people["cohort"].pk, people["another_student"].pk])
    assert client.get(url).status_code == 404


@pytest.mark.parametrize(
    "who, status", [("student", 403), ("another_teacher", 404), ("teacher", 302), ("admin", 302)]
)
def test_only_the_classes_teacher_or_an_admin_removes_a_student(client, people, who, status):
    client.force_login(people[who])
    cohort, student = people["cohort"], people["student"]
    response = client.post(reverse("tutor:class_remove_student", args=[cohort.pk, student.pk]))
    assert response.status_code == status
    assert cohort.students.filter(pk=student.pk).exists() == (status != 302)


def test_teacher_pages_refuse_other_methods(client, people):
    client.force_login(people["teacher"])
    assert client.post(reverse("tutor:class_detail", args=[people["cohort"].pk])).status_code == 405
    assert client.get(reverse("tutor:class_create")).status_code == 405


# The list of classes and creating one ----------------------------------------------------


def test_class_list_shows_a_teacher_their_classes_only(client, people):
    make_cohort(people["another_teacher"], name="Someone else's class")
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_list"))
    assert response.status_code == 200
    assert "Tuesday group" in response.text
    assert "Someone else" not in response.text
    assert people["cohort"].join_code in response.text


def test_class_list_shows_an_admin_every_class_with_its_teacher(client, people):
    client.force_login(people["admin"])
    response = client.get(reverse("tutor:class_list"))
    assert "Tuesday group" in response.text
    assert "taught by teacher" in response.text


def test_class_list_shows_a_student_their_classes_and_the_join_form(client, people):
    client.force_login(people["student"])
    response = client.get(reverse("tutor:class_list"))
    assert response.status_code == 200
    assert "Tuesday group" in response.text
    assert "Classes you teach" not in response.text
    assert 'name="code"' in response.text
    assert people["cohort"].join_code not in response.text  # only the teacher hands it out


def test_class_list_needs_an_account(client):
    assert client.get(reverse("tutor:class_list")).status_code == 302


def test_a_teacher_creates_a_class_and_lands_on_it_with_its_code(client, people):
    client.force_login(people["teacher"])
    response = client.post(reverse("tutor:class_create"), {"name": "Thursday"}, follow=True)
    cohort = Cohort.objects.get(name="Thursday")
    assert cohort.teacher == people["teacher"]
    assert response.redirect_chain[-1][0] == reverse("tutor:class_detail", args=[cohort.pk])
    assert cohort.join_code in response.text
    assert reverse("tutor:class_join", args=[cohort.join_code]) in response.text


def test_creating_a_class_without_a_name_says_so_and_creates_nothing(client, people):
    client.force_login(people["teacher"])
    response = client.post(reverse("tutor:class_create"), {"name": "  "})
    assert response.status_code == 400
    assert "This field is required" in response.text
    assert Cohort.objects.count() == 1


def test_a_student_cannot_create_a_class(client, people):
    client.force_login(people["student"])
    assert client.post(reverse("tutor:class_create"), {"name": "Mine"}).status_code == 403
    assert not Cohort.objects.filter(name="Mine").exists()


# Joining and leaving ------------------------------------------------------------------------


def test_the_join_link_asks_before_joining(client, people):
    cohort, newcomer = people["cohort"], people["another_student"]
    client.force_login(newcomer)
    response = client.get(reverse("tutor:class_join", args=[cohort.join_code.lower()]))
    assert response.status_code == 200
    assert "Join “Tuesday group”?" in response.text
    assert "Taught by <strong>teacher</strong>" in response.text
    assert not cohort.students.filter(pk=newcomer.pk).exists()

    response = client.post(reverse("tutor:class_join"), {"code": cohort.join_code}, follow=True)
    assert cohort.students.filter(pk=newcomer.pk).exists()
    assert "You joined “Tuesday group”" in response.text


def test_the_join_link_tells_its_teacher_it_is_theirs(client, people):
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_join", args=[people["cohort"].join_code]))
    assert "This is your class’s link" in response.text
    assert 'name="code"' not in response.text


def test_the_join_link_sends_a_visitor_to_sign_up_first_with_log_in_a_click_away(client, people):
    """A visitor on a join link is most often a new student: Sign up, not Log in (issue 39)."""
    url = reverse("tutor:class_join", args=[people["cohort"].join_code])
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"] == f"{reverse('tutor:signup')}?next={url}"
    page = client.get(response["Location"]).text
    assert f'href="{reverse("login")}?next={url}">Log in</a>' in page


def test_a_visitor_who_signs_up_from_a_join_link_comes_back_to_join(client, people):
    cohort = people["cohort"]
    login_page = client.get(reverse("tutor:class_join", args=[cohort.join_code]), follow=True)
    # The header's "Sign up" on the log-in page keeps where the visitor was going.
    signup = re.search(r'<a href="([^"]+)">Sign up</a>', login_page.text).group(1)
    signup_page = client.get(signup.replace("&amp;", "&"))
    response = client.post(
        signup.replace("&amp;", "&"),
        {
            "username": "newcomer",
            "password1": "a-long-passphrase-42",
            "password2": "a-long-passphrase-42",
            "next": signup_page.context["next"],
        },
        follow=True,
    )
    assert "Join “Tuesday group”?" in response.text
    client.post(reverse("tutor:class_join"), {"code": cohort.join_code})
    assert cohort.students.filter(username="newcomer").exists()


def test_the_name_given_at_sign_up_is_what_teachers_see(client, people, lesson):
    assert "Your name" in client.get(reverse("tutor:signup")).text
    client.post(
        reverse("tutor:signup"),
        {
            "username": "ada",
            "first_name": "Ada Lovelace",
            "password1": "a-long-passphrase-42",
            "password2": "a-long-passphrase-42",
        },
    )
    client.post(reverse("tutor:class_join"), {"code": people["cohort"].join_code})
    ada = User.objects.get(username="ada")
    client.force_login(people["teacher"])
    cohort = people["cohort"]
    assert "Ada Lovelace (ada)" in client.get(reverse("tutor:class_detail", args=[cohort.pk])).text
    assert (
        "Ada Lovelace (ada)"
        in client.get(reverse("tutor:class_student", args=[cohort.pk, ada.pk])).text
    )
    rows = list(
        csv.DictReader(
            io.StringIO(stream(client.get(reverse("tutor:class_csv", args=[cohort.pk]))))
        )
    )
    assert {row["username"]: row["name"] for row in rows}["ada"] == "Ada Lovelace"


def test_joining_with_a_typed_code(client, people):
    client.force_login(people["another_student"])
    code = people["cohort"].join_code
    response = client.post(
        reverse("tutor:class_join"), {"code": f" {code[:4]}-{code[4:].lower()} "}
    )
    assert response.status_code == 302
    assert people["cohort"].students.filter(pk=people["another_student"].pk).exists()


def test_a_wrong_code_says_so_and_joins_nothing(client, people):
    client.force_login(people["another_student"])
    response = client.post(reverse("tutor:class_join"), {"code": "NOPE1234"})
    assert response.status_code == 400
    assert "No class has that code" in response.text
    assert Membership.objects.count() == 1


def test_an_unknown_join_link_is_not_found_and_offers_the_code_form(client, people):
    client.force_login(people["another_student"])
    response = client.get(reverse("tutor:class_join", args=["XXXXXXXX"]))
    assert response.status_code == 404
    assert "No class has that code" in response.text
    assert 'name="code"' in response.text


def test_joining_twice_is_refused_with_a_message(client, people):
    client.force_login(people["student"])
    response = client.post(reverse("tutor:class_join"), {"code": people["cohort"].join_code})
    assert response.status_code == 400
    assert "already in" in response.text
    assert Membership.objects.count() == 1
    link = client.get(reverse("tutor:class_join", args=[people["cohort"].join_code]))
    assert "You’re in “Tuesday group”" in link.text


def test_a_student_leaves_a_class(client, people):
    client.force_login(people["student"])
    response = client.post(reverse("tutor:class_leave", args=[people["cohort"].pk]), follow=True)
    assert "You left “Tuesday group”" in response.text
    assert not Membership.objects.exists()


def test_leaving_a_class_you_are_not_in_changes_nothing(client, people):
    client.force_login(people["another_student"])
    response = client.post(reverse("tutor:class_leave", args=[people["cohort"].pk]), follow=True)
    assert "You are not in that class" in response.text
    assert Membership.objects.count() == 1


# Removing a student -------------------------------------------------------------------


def test_removing_a_student_plain_post_redirects_with_a_message(client, people):
    client.force_login(people["teacher"])
    cohort = people["cohort"]
    url = reverse("tutor:class_remove_student", args=[cohort.pk, people["student"].pk])
    response = client.post(url, follow=True)
    assert response.redirect_chain[-1][0] == reverse("tutor:class_detail", args=[cohort.pk])
    assert "student is no longer in “Tuesday group”" in response.text
    assert not cohort.students.exists()


def test_removing_a_non_member_says_so_and_changes_nothing(client, people):
    client.force_login(people["teacher"])
    cohort = people["cohort"]
    for pk in [people["another_student"].pk, 999_999]:
        url = reverse("tutor:class_remove_student", args=[cohort.pk, pk])
        response = client.post(url, follow=True)
        assert "is not in" in response.text
        assert "another_student" not in response.text  # nobody outside the class is named
    assert list(cohort.students.all()) == [people["student"]]


def test_the_grid_says_it_varies_with_htmx(client, people):
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_detail", args=[people["cohort"].pk]))
    assert "HX-Request" in response["Vary"]


def test_the_student_page_offers_to_remove_them(client, people):
    client.force_login(people["teacher"])
    cohort, student = people["cohort"], people["student"]
    response = client.get(reverse("tutor:class_student", args=[cohort.pk, student.pk]))
    assert reverse("tutor:class_remove_student", args=[cohort.pk, student.pk]) in response.text


# The class overview ---------------------------------------------------------------------


@pytest.fixture
def graded_class(people):
    """Three students over two lessons: one complete, one part way, one not started."""
    course = make_course()
    first = make_lesson(course, title="First steps", position=1)
    second = make_lesson(course, title="Second steps", position=2)
    for lesson in (first, second):
        make_snippet(lesson)
        make_snippet(lesson)
        make_exercise(lesson)
    cohort = people["cohort"]
    amy, bea, cal = make_user("amy"), make_user("bea"), make_user("cal")
    for user in (amy, bea, cal):
        Membership.objects.create(cohort=cohort, student=user)
    now = timezone.now()
    make_lesson_progress(amy, first, snippets_predicted=2, exercises_solved=1, completed_at=now)
    make_lesson_progress(amy, second, snippets_predicted=2, exercises_solved=1, completed_at=now)
    make_lesson_progress(bea, first, snippets_predicted=2)
    return {"cohort": cohort, "lessons": (first, second), "students": (amy, bea, cal)}


def test_class_overview_shows_each_cell_as_text_and_the_class_average(client, people, graded_class):
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_detail", args=[graded_class["cohort"].pk]))
    assert response.status_code == 200
    grid = response.context["grid"]
    rows = {row.name: [cell.text for cell in row.cells] + [row.overall] for row in grid.rows}
    assert rows == {
        "amy": ["100%", "100%", 100],
        "bea": ["67%", "—", 34],  # one format for every started cell
        "cal": ["—", "—", 0],
        "student": ["—", "—", 0],
    }
    assert [column.average for column in grid.columns] == [42, 25]  # (100+67+0+0)/4, 100/4
    assert grid.average == 34  # (100 + 34 + 0 + 0) / 4, rounded half to even
    html = response.text
    assert '<td class="cell cell-done">100%</td>' in html
    assert '<td class="cell cell-high">67%</td>' in html
    assert '<td class="cell cell-none">—</td>' in html
    assert "Class average" in html
    assert " style=" not in html  # the CSP refuses inline styles


def test_class_overview_sorts_by_lesson_and_by_student(client, people, graded_class):
    client.force_login(people["teacher"])
    first, second = graded_class["lessons"]
    url = reverse("tutor:class_detail", args=[graded_class["cohort"].pk])

    def names(query):
        return [row.name for row in client.get(url, {"sort": query}).context["grid"].rows]

    assert names("student") == ["amy", "bea", "cal", "student"]
    assert names("-student") == ["student", "cal", "bea", "amy"]
    assert names(f"-lesson-{first.pk}") == ["amy", "bea", "cal", "student"]
    assert names(f"lesson-{first.pk}") == ["cal", "student", "bea", "amy"]
    assert names("-overall")[:2] == ["amy", "bea"]
    assert names("nonsense") == ["amy", "bea", "cal", "student"]
    page = client.get(url, {"sort": f"-lesson-{first.pk}"}).text
    assert 'aria-sort="descending"' in page
    assert f'href="?sort=lesson-{first.pk}"' in page  # clicking again turns the order round


def test_class_overview_grid_as_an_htmx_partial(client, people, graded_class):
    client.force_login(people["teacher"])
    url = reverse("tutor:class_detail", args=[graded_class["cohort"].pk])
    response = client.get(url, {"sort": "-overall"}, **HTMX)
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<div id="class-grid"')
    assert "<html" not in response.text and "distribution-bar" not in response.text
    assert response.text.index(">amy<") < response.text.index(">cal<")


def test_class_overview_chart_is_svg_with_a_text_alternative(client, people, graded_class):
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_detail", args=[graded_class["cohort"].pk]))
    html = response.text
    assert '<svg class="distribution-bar"' in html
    assert 'aria-label="First steps: 1 complete, 1 half or more, 0 started, 2 not started"' in html
    # One lesson complete for 1 of 4 students: a quarter of the bar.
    assert 'class="seg seg-done" x="0" y="0" width="25"' in html
    assert "The chart as a table" in html


def test_the_class_charts_numbers_are_svgs_in_any_language(client, people, graded_class):
    """SVG reads 12.5, never German's or Arabic's 12,5 (the browser would drop the bar)."""
    client.force_login(people["teacher"])
    url = reverse("tutor:class_detail", args=[graded_class["cohort"].pk])
    for language in ("en", "de"):
        html = client.get(url, HTTP_ACCEPT_LANGUAGE=language).text
        assert f'<html lang="{language}"' in html
        assert 'x="0" y="0" width="25"' in html and 'x="25" y="0" width="25"' in html, language


def test_an_empty_class_tells_the_teacher_how_students_join(client, people):
    cohort = make_cohort(people["teacher"], name="Empty")
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_detail", args=[cohort.pk]))
    assert "No students yet" in response.text
    assert cohort.join_code in response.text


def test_class_overview_queries_do_not_grow_with_the_class(
    client, people, django_assert_num_queries
):
    """500 students × 20 lessons in the same number of queries as a class of one."""
    course = make_course()
    lessons = Lesson.objects.bulk_create(
        [Lesson(course=course, slug=f"l{n}", title=f"Lesson {n}", position=n) for n in range(20)]
    )
    for lesson in lessons:
        make_snippet(lesson)
    cohort = people["cohort"]
    client.force_login(people["teacher"])
    url = reverse("tutor:class_detail", args=[cohort.pk])
    # One of them is the class's assignments, for the grid's filter; one its co-teachers.
    with django_assert_num_queries(9) as small:
        client.get(url)

    students = User.objects.bulk_create([User(username=f"s{n:03}") for n in range(500)])
    Membership.objects.bulk_create(Membership(cohort=cohort, student=s) for s in students)
    now = timezone.now()
    LessonProgress.objects.bulk_create(
        LessonProgress(
            user=student,
            lesson=lesson,
            snippets_total=3,
            exercises_total=1,
            snippets_predicted=(i + j) % 4,
            completed_at=now if (i + j) % 5 == 0 else None,
            items_total=4,
            items_done=(i + j) % 4,
        )
        for i, student in enumerate(students)
        for j, lesson in enumerate(lessons)
    )
    with django_assert_num_queries(len(small.captured_queries)):
        response = client.get(url)
    assert len(response.context["grid"].rows) == 501
    assert len(response.context["grid"].columns) == 20
    assert response.text.count('<td class="cell ') == 501 * 20


# Item analysis ------------------------------------------------------------------------------


def test_item_analysis_counts_first_predictions_on_the_current_version_only(client, people):
    lesson = make_lesson(title="Loops")
    snippet = make_snippet(lesson, code="print(1)\n", expected_output="1\n")
    cohort = people["cohort"]
    right, wrong_a, wrong_b, old = (make_user(n) for n in ("ria", "wes", "wil", "olga"))
    for user in (right, wrong_a, wrong_b, old):
        Membership.objects.create(cohort=cohort, student=user)
    make_prediction(old, snippet, text="1", verdict=Prediction.Verdict.RIGHT)  # version 1
    snippet.code = "print(2)\n"
    snippet.expected_output = "2\n"
    snippet.save()
    assert snippet.version == 2
    make_prediction(right, snippet, text="2")
    make_prediction(wrong_a, snippet, text="1\n  \n", verdict=Prediction.Verdict.WRONG)
    make_prediction(wrong_b, snippet, text="1   \r\n", verdict=Prediction.Verdict.WRONG)
    make_prediction(wrong_b, snippet, text="2", is_first=False)  # a second try does not count
    outsider = make_user("outsider")
    make_prediction(outsider, snippet, text="1", verdict=Prediction.Verdict.WRONG)

    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_lesson", args=[cohort.pk, lesson.pk]))
    assert response.status_code == 200
    [analysis] = dict((kind.name, items) for kind, items in response.context["analyses"])["snippet"]
    assert (analysis.first, analysis.right, analysis.percent) == (3, 1, 33)
    [answer] = analysis.wrong_answers
    assert (answer.text, answer.count, answer.students) == ("1", 2, ["wes", "wil"])
    assert [(v.version, v.first, v.right) for v in analysis.older] == [(1, 1, 1)]
    html = response.text
    assert "33%" in html and "right first time" in html
    assert "now version 2" in html
    assert "wes, wil" in html
    assert "outsider" not in html


def test_item_analysis_of_an_ordering_exercise(client, people):
    lesson = make_lesson()
    exercise = make_exercise(lesson, lines=["a = 1", "b = a", "print(b)"], key="assign")
    cohort = people["cohort"]
    students = [make_user(n) for n in ("ann", "ben", "cat")]
    for user in students:
        Membership.objects.create(cohort=cohort, student=user)
    ann, ben, cat = students
    wrong = ["l2", "l1", "l3"]
    make_ordering_attempt(ann, exercise)  # solved at the first check
    make_ordering_attempt(ben, exercise, order=wrong, verdict="wrong")
    make_ordering_attempt(ben, exercise, order=wrong, verdict="wrong")
    make_ordering_attempt(ben, exercise, help_used=1)  # third check
    make_ordering_attempt(ben, exercise, order=["l3"], verdict="wrong")  # after solving: ignored
    make_ordering_attempt(cat, exercise, order=wrong, verdict="wrong")
    make_ordering_attempt(cat, exercise, order=["l1"], verdict="pending")  # not graded yet
    for key in ("l1", "l2"):
        OrderingHelp.objects.create(user=ben, exercise=exercise, given="fixed", line_key=key)
    OrderingArrangement.objects.create(user=ann, exercise=exercise)

    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_lesson", args=[cohort.pk, lesson.pk]))
    [analysis] = dict((kind.name, items) for kind, items in response.context["analyses"])[
        "ordering"
    ]
    assert (analysis.tried, analysis.solved, analysis.median_checks) == (3, 2, 2)
    assert (analysis.help_students, analysis.help_total) == (1, 2)
    [common] = analysis.wrong_orders
    assert common.text == "b = a\na = 1\nprint(b)"
    assert (common.count, common.students) == (3, ["ben", "cat"])
    assert "2 of 3" in response.text


def test_starting_again_does_not_hide_help_from_the_teacher(client, people):
    """Help used, then "Start again": the board is fresh, the teacher's record is not."""
    lesson = make_lesson()
    exercise = make_exercise(lesson, lines=["a = 1", "b = a", "print(b)"], distractors=["c = 0"])
    student = make_user("stu")
    Membership.objects.create(cohort=people["cohort"], student=student)
    client.force_login(student)
    wrong = ["l3", "l2", "l1", "d1"]
    OrderingArrangement.objects.create(user=student, exercise=exercise, order=wrong)
    for _ in range(3):
        check_order(user=student, exercise=exercise)
    for _ in range(2):
        response = client.post(reverse("tutor:ordering_help", args=[exercise.pk]))
        assert response.status_code == 302
    response = client.post(reverse("tutor:ordering_reset", args=[exercise.pk]))
    assert response.status_code == 302
    assert OrderingArrangement.objects.get(user=student, exercise=exercise).help_used == 0

    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_lesson", args=[people["cohort"].pk, lesson.pk]))
    [analysis] = dict((kind.name, items) for kind, items in response.context["analyses"])[
        "ordering"
    ]
    assert (analysis.help_students, analysis.help_total) == (1, 2)
    assert (analysis.tried, analysis.solved) == (1, 0)
    assert "1 student, 2 times in all" in " ".join(response.text.split())


def test_item_analysis_charts_completion_over_time(client, people, lesson):
    cohort = people["cohort"]
    other = make_user("other")
    Membership.objects.create(cohort=cohort, student=other)
    day = timezone.now().replace(hour=10) - timedelta(days=4)
    make_lesson_progress(people["student"], lesson, completed_at=day)
    make_lesson_progress(other, lesson, completed_at=day + timedelta(days=2))
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_lesson", args=[cohort.pk, lesson.pk]))
    over_time = response.context["over_time"]
    assert [total for _, total in over_time.steps] == [1, 2]
    assert over_time.points == "0.0,40.0 0.0,20.0 100.0,20.0 100.0,0.0 100,0.0"
    assert (over_time.start, over_time.end) == (
        date_format(day, "j M Y"),
        date_format(day + timedelta(days=2), "j M Y"),
    )
    assert "2 of 2 students completed the lesson between" in response.text


def test_completion_within_one_day_is_charted_by_the_hour_not_as_two_equal_dates(
    client, people, lesson
):
    cohort = people["cohort"]
    others = [make_user(name) for name in ("other", "third")]
    for user in others:
        Membership.objects.create(cohort=cohort, student=user)
    morning = (timezone.now() - timedelta(days=1)).replace(hour=9, minute=15)
    make_lesson_progress(people["student"], lesson, completed_at=morning)
    make_lesson_progress(others[0], lesson, completed_at=morning + timedelta(minutes=45))
    make_lesson_progress(others[1], lesson, completed_at=morning + timedelta(hours=3))
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_lesson", args=[cohort.pk, lesson.pk]))
    over_time = response.context["over_time"]
    assert (over_time.start, over_time.end) == ("09:15", "12:15")
    assert over_time.steps == [("09:15", 1), ("10:00", 2), ("12:15", 3)]
    assert (
        over_time.points
        == "0.0,40.0 0.0,26.667 25.0,26.667 25.0,13.333 100.0,13.333 100.0,0.0 100,0.0"
    )
    day = date_format(morning, "j M Y")
    assert (
        f"3 of 3 students completed the lesson on {day}, between 09:15 and 12:15." in response.text
    )
    assert '<th scope="col">Time</th>' in response.text


def test_completion_at_a_single_moment_is_said_not_drawn(client, people, lesson):
    moment = (timezone.now() - timedelta(days=1)).replace(hour=14, minute=5)
    make_lesson_progress(people["student"], lesson, completed_at=moment)
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_lesson", args=[people["cohort"].pk, lesson.pk]))
    assert "over-time-chart" not in response.text
    assert (
        f"1 of 1 student completed the lesson on {date_format(moment, 'j M Y')} at 14:05."
        in response.text
    )


def test_item_analysis_and_timeline_name_items_by_their_titles(client, people, lesson):
    student = people["student"]
    snippet = lesson.blocks.get(key="count").snippet
    snippet.caption = "Count to two."
    snippet.save()
    block = lesson.blocks.get(key="order-it")
    block.title = "The loop, in order"
    block.save()
    make_prediction(student, snippet)
    make_ordering_attempt(student, block.ordering_exercise)
    client.force_login(people["teacher"])
    analysis = client.get(reverse("tutor:class_lesson", args=[people["cohort"].pk, lesson.pk])).text
    timeline = client.get(
        reverse("tutor:class_student", args=[people["cohort"].pk, student.pk])
    ).text
    for html in (analysis, timeline):
        assert ">Count to two.</" in html
        assert ">The loop, in order</" in html
        assert ">order-it<" not in html and ">count<" not in html


def test_item_analysis_of_a_lesson_nobody_tried(client, people, lesson):
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_lesson", args=[people["cohort"].pk, lesson.pk]))
    assert "No first predictions on this version yet" in response.text
    assert "Nobody has checked an answer yet" in response.text
    assert "Nobody in the class has completed this lesson yet" in response.text


# A student's timeline ----------------------------------------------------------------------


def test_student_timeline_shows_predictions_checks_and_runs_newest_first(client, people, lesson):
    student, cohort = people["student"], people["cohort"]
    snippet = lesson.blocks.get(key="count").snippet
    exercise = lesson.blocks.get(key="order-it").ordering_exercise
    now = timezone.now()
    make_prediction(
        student, snippet, text="1\n3", verdict="wrong", created_at=now - timedelta(hours=3)
    )
    make_ordering_attempt(
        student, exercise, order=["l2", "l1"], verdict="wrong", created_at=now - timedelta(hours=2)
    )
    make_learner_run(
        student,
        snippet,
        code="print('mine')\n",
        stdout="mine\n",
        created_at=now - timedelta(hours=1),
    )
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_student", args=[cohort.pk, student.pk]))
    assert [event.kind for event in response.context["events"]] == ["run", "ordering", "prediction"]
    html = response.text
    assert "Not quite" in html and "Not yet" in html
    assert "0 lines in order" in html and "in place" not in html  # l2, l1: not a place
    assert "<details><summary>Code and output</summary>" in html
    assert "print(&#x27;mine&#x27;)" in html and "mine\n</pre>" in html
    assert "second\nfirst" in html  # their order, as lines
    assert "ran on the server" in html


def test_student_timeline_says_a_run_was_in_the_browser(client, people, lesson):
    student, cohort = people["student"], people["cohort"]
    make_learner_run(student, lesson.blocks.get(key="count").snippet, in_browser=True)
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_student", args=[cohort.pk, student.pk]))
    assert "ran in the browser" in response.text


def test_a_timeline_never_says_solved_for_an_answer_that_keeps_a_line_that_does_not_belong(
    client, people, lesson
):
    """The class's case: the distractor after a `return` changed no output, and the timeline
    said "Solved · 6 lines in place"."""
    student = people["student"]
    exercise = make_exercise(
        lesson, lines=["def f():", "    return 5", "print(f())"], distractors=["    print(0)"],
        grading="output", expected_output="5\n", key="unreachable",
    )  # fmt: skip
    check_order(user=student, exercise=exercise, order=["l1", "l2", "d1", "l3"], unused=[])
    for run in Run.objects.all():  # as the worker would: the program prints 5
        execute_run(run_id=run.pk)
    client.force_login(people["teacher"])
    html = client.get(
        reverse("tutor:class_student", args=[people["cohort"].pk, student.pk])
    ).text
    assert "Not yet</span> <span class=\"muted\">· 3 lines in order" in html
    assert "Solved" not in html


def test_student_timeline_when_nothing_happened(client, people):
    client.force_login(people["teacher"])
    url = reverse("tutor:class_student", args=[people["cohort"].pk, people["student"].pk])
    assert "Nothing yet" in client.get(url).text


# CSV -----------------------------------------------------------------------------------------


def test_progress_csv_streams_one_row_per_student_with_correct_quoting(
    client, people, graded_class
):
    cohort = graded_class["cohort"]
    odd = make_user("odd", first_name='Zoë "Z"', last_name="Smith, Jr.")
    Membership.objects.create(cohort=cohort, student=odd)
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_csv", args=[cohort.pk]))
    assert response.status_code == 200
    assert response.streaming
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].startswith(
        'attachment; filename="tuesday-group-progress-'
    )
    rows = list(csv.reader(io.StringIO(stream(response))))
    assert rows[0][:3] == ["username", "name", "joined"]
    assert rows[0][3:] == ["First steps (%)", "Second steps (%)", "overall (%)"]
    by_user = {row[0]: row for row in rows[1:]}
    assert by_user["amy"][3:] == ["100", "100", "100"]
    assert by_user["bea"][3:] == ["67", "", "34"]
    assert by_user["cal"][3:] == ["", "", "0"]
    assert by_user["odd"][1] == 'Zoë "Z" Smith, Jr.'
    assert len(rows) == 1 + 5


def test_attempts_csv_has_every_kind_in_time_order_and_keeps_formulas_out(client, people, lesson):
    student, cohort = people["student"], people["cohort"]
    student.first_name = "Stu Dent"
    student.save()
    snippet = lesson.blocks.get(key="count").snippet
    snippet.caption = "Count to two."
    snippet.save()
    exercise = lesson.blocks.get(key="order-it").ordering_exercise
    exercise.intro = "Put the **four** lines back in order. Then check."
    exercise.save()
    start = timezone.now() - timedelta(hours=1)
    at = [start + timedelta(minutes=n) for n in range(6)]
    make_prediction(student, snippet, text='=HYPERLINK("x")\n-1', verdict="wrong", created_at=at[0])
    make_ordering_attempt(student, exercise, help_used=1, created_at=at[1])
    make_prediction(student, snippet, text="-1", verdict="wrong", is_first=False, created_at=at[2])
    make_learner_run(student, snippet, code='print("a,b")\n', stdout="a,b\n", created_at=at[3])
    own = make_learner_run(student, snippet, code="print(3)\n", stdout="3\n", created_at=at[4])
    VersionPrediction.objects.create(
        user=student, snippet=snippet, run=own, text="3", created_at=at[4]
    )
    make_prediction(people["another_student"], snippet)  # not in the class
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_attempts_csv", args=[cohort.pk]))
    assert response.streaming
    assert "attempts" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(stream(response))))
    assert [row["kind"] for row in rows] == [
        "prediction",
        "ordering",
        "prediction",
        "run",
        "prediction of their version",
        "run",
    ]
    assert [row["time"] for row in rows] == sorted(row["time"] for row in rows)
    assert {(row["username"], row["name"]) for row in rows} == {("student", "Stu Dent")}
    first = rows[0]
    assert (first["lesson"], first["item"], first["verdict"], first["first prediction"]) == (
        "Loops",
        "Count to two.",
        "wrong",
        "yes",
    )
    assert first["answer"] == '\'=HYPERLINK("x")\n-1'
    ordering = rows[1]
    assert ordering["item"] == "Put the four lines back in order."  # a title made from the intro
    assert ordering["answer"] == "first\nsecond\nthird\nfourth"  # code lines, not keys
    assert ordering["help used"] == "1"
    assert rows[2]["answer"] == "-1"  # a number stays a number
    assert rows[3]["answer"] == 'print("a,b")\n' and rows[3]["output"] == "a,b\n"
    assert (rows[4]["answer"], rows[4]["output"], rows[4]["verdict"]) == ("3", "3\n", "right")


# In a browser -------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_sorting_the_grid_swaps_it_in_place_and_keeps_the_address(
    page, login_in_browser, live_server
):
    teacher = make_teacher()
    lesson = make_lesson(title="Only lesson")
    make_snippet(lesson)
    cohort = make_cohort(teacher, name="Browser class")
    for name, done in [("ada", 1), ("bob", 2), ("cy", 0)]:
        student = make_user(name)
        Membership.objects.create(cohort=cohort, student=student)
        make_lesson_progress(
            student,
            lesson,
            snippets_total=2,
            exercises_total=0,
            snippets_predicted=done,
            completed_at=timezone.now() if done == 2 else None,
        )
    login_in_browser(teacher)
    page.goto(reverse("tutor:class_detail", args=[cohort.pk]))
    page.evaluate("window.notReloaded = true")
    rows = page.locator("#class-grid tbody th")
    assert rows.all_inner_texts() == ["ada", "bob", "cy"]
    page.locator("#class-grid thead").get_by_role("link", name="Only lesson").click()
    page.wait_for_url(f"**?sort=-lesson-{lesson.pk}")
    assert rows.all_inner_texts() == ["bob", "ada", "cy"]
    assert page.evaluate("window.notReloaded") is True  # htmx swapped the grid, no page load
    assert page.locator(".copy-button").is_visible()
    # Back asks the server again (htmx keeps no copy of learners' data in the browser), so
    # the grid shows the progress made since.
    LessonProgress.objects.filter(user__username="cy").update(snippets_predicted=1, items_done=1)
    page.go_back()
    page.wait_for_url(f"**/classes/{cohort.pk}/")
    expect(page.locator("#class-grid tbody tr").nth(2)).to_contain_text("cy")
    expect(page.locator("#class-grid tbody tr").nth(2).locator("td").first).to_have_text("50%")
    assert page.evaluate("localStorage.getItem('htmx-history-cache')") is None


def test_attempts_csv_grades_a_prediction_of_a_version_that_fails_as_the_page_does(
    client, people, lesson
):
    student, cohort = people["student"], people["cohort"]
    snippet = lesson.blocks.get(key="count").snippet
    stderr = 'Traceback (most recent call last):\n  File "main.py", line 2, in <module>\nValueError: no\n'
    own = make_learner_run(
        student, snippet, status="error", exit_code=1, stdout="1\n", stderr=stderr
    )
    VersionPrediction.objects.create(user=student, snippet=snippet, run=own, text="1\nValueError")
    client.force_login(people["teacher"])
    response = client.get(reverse("tutor:class_attempts_csv", args=[cohort.pk]))
    rows = list(csv.DictReader(io.StringIO(stream(response))))
    graded = next(row for row in rows if row["kind"] == "prediction of their version")
    assert graded["verdict"] == "right"


def test_item_analysis_follows_the_lessons_order(client, people):
    from tests.tutor.assignment_world import practice_lesson

    lesson, items = practice_lesson()  # a snippet, then an ordering exercise, then a code exercise
    client.force_login(people["teacher"])
    html = client.get(reverse("tutor:class_lesson", args=[people["cohort"].pk, lesson.pk])).text
    headings = [
        html.index(f'id="{name}-heading"') for name in ("snippets", "ordering", "code-exercises")
    ]
    assert headings == sorted(headings)


def test_a_student_whose_first_check_was_wrong_shows_as_started_with_nothing_done(
    client, people, lesson
):
    """Not "—" nor "No lesson started yet": they tried, and their timeline says so too."""
    student, cohort = people["student"], people["cohort"]
    exercise = lesson.blocks.get(key="order-it").ordering_exercise
    check_order(user=student, exercise=exercise, order=["l4", "l3", "l2", "l1"], unused=[])
    client.force_login(people["teacher"])

    grid = client.get(reverse("tutor:class_detail", args=[cohort.pk]))
    row = next(row for row in grid.context["grid"].rows if row.name == "student")
    assert [cell.text for cell in row.cells] == ["0%"]
    assert '<td class="cell cell-low">0%</td>' in grid.text
    timeline = client.get(reverse("tutor:class_student", args=[cohort.pk, student.pk])).text
    assert "No lesson started yet" not in timeline
    lessons = timeline.split('id="lessons-heading"')[1].split("</table>")[0]
    assert "Loops" in lessons and '<span class="cell cell-low">0%</span>' in lessons


# Co-teachers ---------------------------------------------------------------------------------


def test_a_co_teacher_has_the_class_in_their_list_and_its_page_says_who_teaches_it(client, people):
    cohort = people["cohort"]
    cohort.co_teachers.add(people["another_teacher"])
    client.force_login(people["another_teacher"])
    listed = client.get(reverse("tutor:class_list")).text
    assert "Tuesday group" in listed and "taught by teacher and another_teacher" in listed
    page = client.get(reverse("tutor:class_detail", args=[cohort.pk]))
    assert page.status_code == 200 and "taught by teacher and another_teacher" in page.text
    # The teacher's own page names the co-teacher too; the class is listed once for each.
    client.force_login(people["teacher"])
    listed = client.get(reverse("tutor:class_list")).text
    assert listed.count("Tuesday group") == 1 and "taught by teacher and another_teacher" in listed
    assert list(Cohort.objects.visible_to(people["another_teacher"])) == [cohort]


def test_a_student_is_told_every_teacher_who_sees_their_work(client, people):
    cohort = people["cohort"]
    cohort.co_teachers.add(people["another_teacher"])
    client.force_login(people["another_student"])
    response = client.get(reverse("tutor:class_join", args=[cohort.join_code]))
    assert "Taught by <strong>teacher and another_teacher</strong>" in response.text
    response = client.post(reverse("tutor:class_join"), {"code": cohort.join_code}, follow=True)
    assert "teacher and another_teacher can now see your progress" in response.text


def test_a_co_teacher_does_not_join_their_own_class_as_a_student(client, people):
    cohort = people["cohort"]
    cohort.co_teachers.add(people["another_teacher"])
    client.force_login(people["another_teacher"])
    page = client.get(reverse("tutor:class_join", args=[cohort.join_code]))
    assert "This is your class’s link" in page.text
    response = client.post(reverse("tutor:class_join"), {"code": cohort.join_code})
    assert response.status_code == 400 and "students join it, not its teacher" in response.text
    assert not cohort.memberships.filter(student=people["another_teacher"]).exists()
