"""Closed-book assignments: while one runs, its students reach only its items, in one session."""

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import get_resolver, reverse
from django.utils import timezone

from tests.factories import (
    make_cohort,
    make_exercise,
    make_lesson,
    make_snippet,
    make_teacher,
    make_user,
)
from tutor.assignments.closed_book import ALWAYS_OPEN
from tutor.assignments.models import Assignment, ClosedBookSeat

pytestmark = pytest.mark.django_db


@pytest.fixture
def exam():
    teacher, student, outsider = make_teacher("tea"), make_user("stu"), make_user("out")
    cohort = make_cohort(teacher, students=[student])
    lesson = make_lesson(title="The exam")
    snippet = make_snippet(lesson, code="print(1)\n")
    other_lesson = make_lesson(title="Another lesson")
    other_snippet = make_snippet(other_lesson)
    now = timezone.now()
    assignment = Assignment.objects.create(
        cohort=cohort,
        lesson=lesson,
        opens_at=now - timedelta(minutes=5),
        due_at=now + timedelta(hours=1),
        closed_book=True,
    )
    return {
        "teacher": teacher,
        "student": student,
        "outsider": outsider,
        "cohort": cohort,
        "lesson": lesson,
        "snippet": snippet,
        "other_lesson": other_lesson,
        "other_snippet": other_snippet,
        "assignment": assignment,
    }


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_assignments_lesson_and_its_items_stay_open(exam):
    client = signed_in(exam["student"])
    assert client.get(exam["lesson"].get_absolute_url()).status_code == 200
    response = client.post(
        reverse("tutor:trail_record", args=[exam["snippet"].block_id]),
        {"edits": "[]", "code": "print(2)\n"},
    )
    assert response.status_code == 204


def test_the_exams_lesson_loads_its_translations_and_switches_language(exam):
    client = signed_in(exam["student"])
    assert client.get(reverse("javascript_catalog", args=["en"])).status_code == 200
    here = exam["lesson"].get_absolute_url()
    response = client.post(reverse("tutor:set_language"), {"language": "de", "next": here})
    assert response.status_code == 302 and response.url == here
    assert client.get(here).headers["Content-Language"] == "de"


def test_another_lesson_the_glossary_and_search_are_refused_and_the_teacher_sees_it(exam):
    client = signed_in(exam["student"])
    for url in (
        exam["other_lesson"].get_absolute_url(),
        reverse("course:glossary"),
        reverse("course:search") + "?q=x",
        reverse("tutor:my_progress"),
        reverse("tutor:draft_save", args=[exam["other_snippet"].pk]),
    ):
        response = client.get(url) if "draft" not in url else client.post(url, {"code": "x"})
        assert response.status_code == 403, url
        assert "only “The exam” is open" in response.content.decode()
    seat = ClosedBookSeat.objects.get(student=exam["student"])
    assert seat.refusals == 5
    teacher = signed_in(exam["teacher"])
    page = teacher.get(
        reverse("tutor:assignment_detail", args=[exam["cohort"].pk, exam["assignment"].pk])
    )
    assert "Closed-book: who is in it" in page.content.decode()
    assert "5 times" in page.content.decode()


def test_others_are_not_held_and_the_window_ends_at_the_due_date(exam):
    for user in (exam["outsider"], exam["teacher"]):
        assert signed_in(user).get(reverse("course:glossary")).status_code == 200
    Assignment.objects.filter(pk=exam["assignment"].pk).update(
        due_at=timezone.now() - timedelta(seconds=1)
    )
    assert signed_in(exam["student"]).get(reverse("course:glossary")).status_code == 200


def test_a_new_sign_in_ends_the_old_session(exam):
    first = signed_in(exam["student"])
    assert first.get(exam["lesson"].get_absolute_url()).status_code == 200
    second = signed_in(exam["student"])
    assert second.get(exam["lesson"].get_absolute_url()).status_code == 200
    response = first.get(reverse("tutor:my_progress"))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_the_session_a_new_sign_in_ended_is_told_why_on_the_log_in_page(exam):
    """The laptop's next click (a page, or a prediction sent with htmx) lands on the log-in
    page, which says why; signing in again there moves the seat back and forgets the why."""
    laptop = signed_in(exam["student"])
    assert laptop.get(exam["lesson"].get_absolute_url()).status_code == 200
    phone = signed_in(exam["student"])
    assert phone.get(exam["lesson"].get_absolute_url()).status_code == 200
    predicted = laptop.post(
        reverse("tutor:prediction_create", args=[exam["snippet"].pk]),
        {"text": "1", "mode": "typed"},
        HTTP_HX_REQUEST="true",
        HTTP_HX_CURRENT_URL="http://testserver" + exam["lesson"].get_absolute_url(),
    )
    assert "/login/" in predicted["HX-Redirect"]
    page = laptop.get(predicted["HX-Redirect"])
    assert page.status_code == 200
    html = page.content.decode()
    assert "You were signed out here because you signed in on another device" in html
    assert "closed-book assignment “The exam”" in html
    # Once: signing in again here moves the seat back, and the phone is told in turn.
    assert "another device" not in laptop.get(reverse("login")).content.decode()
    laptop.force_login(exam["student"])
    assert laptop.get(exam["lesson"].get_absolute_url()).status_code == 200
    response = phone.get(exam["lesson"].get_absolute_url(), follow=True)
    assert "signed in on another device" in response.content.decode()
    # Someone who simply signed out is not told so.
    assert "another device" not in Client().get(reverse("login")).content.decode()


def test_a_session_from_before_the_window_finds_the_seat_taken(exam, monkeypatch):
    from tutor.assignments import closed_book

    monkeypatch.setattr(closed_book, "RECHECK_SECONDS", 0)  # the windows are read again at once
    Assignment.objects.filter(pk=exam["assignment"].pk).update(
        opens_at=timezone.now() + timedelta(minutes=1)
    )
    early, other = signed_in(exam["student"]), signed_in(exam["student"])
    Assignment.objects.filter(pk=exam["assignment"].pk).update(
        opens_at=timezone.now() - timedelta(minutes=1)
    )
    assert early.get(exam["lesson"].get_absolute_url()).status_code == 200
    refused = other.get(exam["lesson"].get_absolute_url())
    assert refused.status_code == 403
    assert "open in another session" in refused.content.decode()


def test_only_the_allowed_addresses_reach_it(exam):
    Assignment.objects.filter(pk=exam["assignment"].pk).update(allowed_addresses="192.0.2.0/24")
    client = signed_in(exam["student"])
    assert client.get(exam["lesson"].get_absolute_url(), REMOTE_ADDR="192.0.2.7").status_code == 200
    assert (
        client.get(exam["lesson"].get_absolute_url(), REMOTE_ADDR="198.51.100.1").status_code == 403
    )


def url_names():
    resolver = get_resolver()
    names = []
    for namespace in ("tutor", "course"):
        _, sub = resolver.namespace_dict[namespace]
        names += [
            f"{namespace}:{name}"
            for name in sub.reverse_dict
            if isinstance(name, str) and name not in ALWAYS_OPEN
        ]
    return sorted(set(names))


# Every URL name of the site's own pages, with arguments naming something outside the exam.
def arguments(name: str, w) -> list:
    other_block = w["other_snippet"].block
    exercise = make_exercise(w["other_lesson"])
    by_kwarg = {
        "course_slug": w["other_lesson"].course.slug,
        "lesson_slug": w["other_lesson"].slug,
        "slug": "anything",
        "pk": w["cohort"].pk,
        "lesson_pk": w["other_lesson"].pk,
        "student_pk": w["student"].pk,
        "block_pk": other_block.pk,
        "snippet_id": w["other_snippet"].pk,
        "exercise_id": exercise.pk,
        "code": "abc",
        "key": "k",
        "assignment_pk": w["assignment"].pk,
        "comment_pk": 1,
        "card_pk": 1,
        "prediction_id": 1,
        "run_id": 1,
        "submission_id": 1,
        "stepping_id": 1,
        "number": 1,
    }
    if name.startswith("tutor:quiz_"):  # a quiz of another lesson, and an attempt at it
        from tests.tutor.quiz_world import make_quiz
        from tutor.quizzes.models import QuizAttempt

        quiz = make_quiz(w["cohort"], w["other_lesson"])
        by_kwarg["quiz_pk"] = quiz.pk
        by_kwarg["attempt_pk"] = QuizAttempt.objects.create(
            assignment=quiz, student=w["student"], number=1, order=[other_block.pk]
        ).pk
    _, sub = get_resolver().namespace_dict[name.split(":")[0]]
    possibilities = sub.reverse_dict.getlist(name.split(":")[1])
    params = possibilities[-1][0][0][1]
    return [by_kwarg[p] for p in params]


@pytest.mark.parametrize("name", url_names())
def test_every_page_but_the_exams_answers_a_plain_refusal(exam, name):
    """Every URL name of the site, asked by a student in a running closed-book assignment
    about something outside it (another lesson, their classes, the glossary...): refused."""
    client = signed_in(exam["student"])
    url = reverse(name, args=arguments(name, exam))
    for response in (client.get(url), client.post(url, {})):
        assert response.status_code == 403, (name, response.status_code)
        assert "Closed-book assignment" in response.content.decode()


def test_every_asset_of_the_exam_lesson_is_same_origin(exam, client):
    """No outside asset (fonts, CDNs, images) is needed: the room can be cut off the internet."""
    import re

    from course.models import Block

    client.force_login(exam["student"])
    assert Block.objects.filter(lesson=exam["lesson"]).exists()
    page = client.get(exam["lesson"].get_absolute_url())
    html = page.content.decode()
    sources = re.findall(
        r'<(?:script|link|img|iframe|source)\b[^>]*?\b(?:src|href)="([^"]*)"', html
    )
    assert sources
    # Served by the site itself, or inline data (the favicon).
    assert all(
        (source.startswith("/") and not source.startswith("//")) or source.startswith("data:")
        for source in sources
    ), sources
    policy = page["Content-Security-Policy"]
    assert "default-src 'self'" in policy


def assignment_form(exam, **more) -> dict:
    now = timezone.localtime()
    return {
        "lesson": exam["lesson"].pk,
        "opens_at": now.strftime("%Y-%m-%dT%H:%M"),
        "due_at": (now + timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"),
        **more,
    }


def test_the_teacher_sets_a_closed_book_assignment_with_the_rooms_addresses(exam):
    teacher = signed_in(exam["teacher"])
    url = reverse("tutor:assignment_create", args=[exam["cohort"].pk])
    assert "Closed-book" in teacher.get(url).content.decode()
    response = teacher.post(
        url,
        assignment_form(exam, closed_book="on", allowed_addresses="192.0.2.0/24\n 2001:db8::1 \n"),
    )
    assert response.status_code == 302
    made = Assignment.objects.exclude(pk=exam["assignment"].pk).get()
    assert made.closed_book and made.allowed_addresses == "192.0.2.0/24\n2001:db8::1"
    edit = teacher.get(
        reverse("tutor:assignment_edit", args=[exam["cohort"].pk, made.pk])
    ).content.decode()
    assert "checked" in edit and "192.0.2.0/24" in edit


def test_an_address_that_is_not_one_is_refused_in_words(exam):
    teacher = signed_in(exam["teacher"])
    url = reverse("tutor:assignment_create", args=[exam["cohort"].pk])
    response = teacher.post(
        url, assignment_form(exam, closed_book="on", allowed_addresses="the lab")
    )
    assert response.status_code == 400
    assert "“the lab” is not an address or a network" in response.content.decode()
    assert Assignment.objects.count() == 1


def test_the_exams_own_practice_endpoints_are_not_refused(exam):
    from tests.factories import make_prediction

    client = signed_in(exam["student"])
    prediction = make_prediction(exam["student"], exam["snippet"])
    for url in (
        reverse("tutor:prediction_detail", args=[prediction.pk]),
        reverse("tutor:my_trail", args=[exam["snippet"].block_id]),
        reverse("tutor:hand", args=[exam["lesson"].pk]),
    ):
        response = client.get(url)
        assert "Closed-book assignment" not in response.content.decode(), url


def test_a_students_extension_keeps_the_assignment_closed_book_for_them_until_it(exam):
    from tutor.assignments.models import Extension

    Assignment.objects.filter(pk=exam["assignment"].pk).update(
        due_at=timezone.now() - timedelta(seconds=1)
    )
    Extension.objects.create(
        assignment=exam["assignment"],
        student=exam["student"],
        due_at=timezone.now() + timedelta(hours=1),
    )
    assert signed_in(exam["student"]).get(reverse("course:glossary")).status_code == 403


# Where the student is taken, and what the site offers them -------------------------------


def sign_in(client: Client, user, next_url: str | None = None):
    data = {"username": user.username, "password": "pw-" + user.username}
    if next_url is not None:
        data["next"] = next_url
    return client.post(reverse("login"), data)


def test_signing_in_takes_the_student_to_the_assignments_lesson(exam):
    client = Client()
    response = sign_in(client, exam["student"])
    assert response.status_code == 302
    assert response["Location"] == exam["lesson"].get_absolute_url()
    assert client.get(response["Location"]).status_code == 200


def test_signing_in_keeps_a_next_the_assignment_allows_and_replaces_one_it_refuses(exam):
    trail = reverse("tutor:my_trail", args=[exam["snippet"].block_id])
    assert sign_in(Client(), exam["student"], trail)["Location"] == trail
    for refused in (
        exam["other_lesson"].get_absolute_url(),
        reverse("course:glossary"),
        "/nowhere/",
    ):
        response = sign_in(Client(), exam["student"], refused)
        assert response["Location"] == exam["lesson"].get_absolute_url(), refused


def test_signing_in_outside_a_window_goes_where_it_always_did(exam):
    assert sign_in(Client(), exam["outsider"])["Location"] == reverse("tutor:catalogue")
    other = exam["other_lesson"].get_absolute_url()
    assert sign_in(Client(), exam["teacher"], other)["Location"] == other


def header_links(html: str) -> list[str]:
    import re

    header = html.split('<header class="site-header">')[1].split("</header>")[0]
    return re.findall(r'<(?:a|form)\b[^>]*?\b(?:href|action)="([^"]*)"', header)


def test_the_header_offers_only_the_assignment_and_signing_out(exam):
    client = signed_in(exam["student"])
    page = client.get(exam["lesson"].get_absolute_url()).content.decode()
    url = exam["lesson"].get_absolute_url()
    assert header_links(page) == [url, url, reverse("logout")]
    assert "Closed-book: The exam" in page
    assert 'role="search"' not in page
    assert 'aria-label="Breadcrumb"' not in page  # its links (Lessons, the course) are closed too
    # Every link the header offers opens.
    assert client.get(url).status_code == 200
    # After the window, the whole header is back.
    Assignment.objects.filter(pk=exam["assignment"].pk).update(
        due_at=timezone.now() - timedelta(seconds=1)
    )
    page = signed_in(exam["student"]).get(url).content.decode()
    assert reverse("course:glossary") in header_links(page)
    assert 'role="search"' in page


def test_the_teacher_and_other_learners_keep_the_whole_header(exam):
    for user in (exam["teacher"], exam["outsider"]):
        page = signed_in(user).get(exam["lesson"].get_absolute_url()).content.decode()
        assert reverse("tutor:my_progress") in header_links(page)
        assert 'role="search"' in page


def test_a_refused_page_says_why_and_links_to_the_assignment(exam):
    client = signed_in(exam["student"])
    response = client.get(reverse("tutor:catalogue"))
    assert response.status_code == 403
    html = response.content.decode()
    assert "only “The exam” is open" in html
    assert "set “The exam” as a closed-book assignment" in html
    assert f'href="{exam["lesson"].get_absolute_url()}">Go to the assignment: The exam</a>' in html
    assert header_links(html) == [exam["lesson"].get_absolute_url()] * 2 + [reverse("logout")]


def test_the_exam_pages_words_are_not_links_to_the_closed_glossary(exam):
    """A term the exam lesson mentions is shown as its words while the window runs (its page
    and its preview would refuse), and as a link again for others and afterwards."""
    from tests.factories import make_block, make_term

    term = make_term("Sprocket", slug="sprocket")
    exam["lesson"].terms.add(term)
    make_block(exam["lesson"], body="A sprocket turns. See also [[sprocket]].")
    url = exam["lesson"].get_absolute_url()
    term_url = reverse("course:term_detail", args=["sprocket"])
    student = signed_in(exam["student"])
    page = student.get(url).content.decode()
    assert "A sprocket turns." in page
    assert term_url not in page
    assert 'class="term-link"' not in page
    assert term_url in signed_in(exam["outsider"]).get(url).content.decode()
    Assignment.objects.filter(pk=exam["assignment"].pk).update(
        due_at=timezone.now() - timedelta(seconds=1)
    )
    assert term_url in signed_in(exam["student"]).get(url).content.decode()


def test_every_link_on_the_exam_page_opens_for_its_student(exam):
    import re

    from tests.factories import make_block, make_term

    exam["lesson"].terms.add(make_term("Sprocket", slug="sprocket"))
    make_block(exam["lesson"], body="A sprocket turns: [[sprocket]].")
    client = signed_in(exam["student"])
    page = client.get(exam["lesson"].get_absolute_url()).content.decode()
    found = set(re.findall(r'\b(?:href|hx-get)="(/[^"#]*)', page)) - {reverse("logout")}
    links = {link for link in found if not link.startswith("/static/")}
    assert links
    refused = [link for link in sorted(links) if client.get(link).status_code == 403]
    assert refused == []


def test_an_assignment_that_names_its_items_takes_work_only_on_those(exam):
    """Issue 36: with one exercise named, the lesson's other items (an ordering exercise, a
    second snippet) take no check, prediction or trail record while the session runs."""
    from tests.factories import make_prediction

    lesson = exam["lesson"]
    ordering = make_exercise(lesson)
    second = make_snippet(lesson, code="print(2)\n")
    assignment = exam["assignment"]
    assignment.whole_lesson = False
    assignment.save()
    assignment.blocks.set([exam["snippet"].block])
    client = signed_in(exam["student"])
    assert client.get(lesson.get_absolute_url()).status_code == 200
    named = client.post(
        reverse("tutor:trail_record", args=[exam["snippet"].block_id]),
        {"edits": "[]", "code": "print(3)\n"},
    )
    assert named.status_code == 204
    prediction = make_prediction(exam["student"], second)
    for url, data in (
        (reverse("tutor:ordering_check", args=[ordering.pk]), {}),
        (reverse("tutor:prediction_create", args=[second.pk]), {"text": "2\n"}),
        (reverse("tutor:trail_record", args=[second.block_id]), {"edits": "[]", "code": "x"}),
        (reverse("tutor:run_create", args=[second.pk]), {"code": "print(9)\n"}),
        (reverse("tutor:reveal_retry", args=[prediction.pk]), {}),
    ):
        response = client.post(url, data)
        assert response.status_code == 403, url
        assert "not part of the closed-book assignment" in response.content.decode()
    from tutor.trail.models import Trail

    assert not Trail.objects.filter(block=second.block).exists()


def test_an_item_the_assignment_does_not_name_says_why_in_its_own_panel(exam):
    ordering = make_exercise(exam["lesson"])
    assignment = exam["assignment"]
    assignment.whole_lesson = False
    assignment.save()
    assignment.blocks.set([exam["snippet"].block])
    client = signed_in(exam["student"])
    response = client.post(
        reverse("tutor:ordering_check", args=[ordering.pk]), headers={"HX-Request": "true"}
    )
    assert response.status_code == 403
    assert response["HX-Retarget"] == "closest .practice-slot"
    assert response["HX-Reswap"] == "innerHTML"
    assert "not part of the closed-book assignment" in response.content.decode()
    assert ClosedBookSeat.objects.get(student=exam["student"]).refusals == 1
