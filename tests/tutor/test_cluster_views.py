"""One comment for a whole cluster, through HTTP: the teacher's groups on the lesson page,
commenting (inline and as a page), editing, deleting, the projector, and what students see."""

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import (
    make_cohort,
    make_exercise,
    make_lesson,
    make_ordering_attempt,
    make_prediction,
    make_run,
    make_snippet,
    make_teacher,
    make_user,
)
from tutor.clusters.models import ClusterComment
from tutor.models import Run
from tutor.practice.ordering.models import OrderingArrangement, OrderingAttempt
from tutor.practice.snippet.clusters import clusters as snippet_clusters
from tutor.practice.snippet.models import Prediction

pytestmark = pytest.mark.django_db
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def world():
    teacher = make_teacher("tina")
    lesson = make_lesson(status="published")
    lesson.course.status = "published"
    lesson.course.save()
    snippet = make_snippet(lesson, code="print(4)\nprint(16)\n", expected_output="4\n16\n")
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout="4\n16\n", stdin=snippet.stdin)
    students = [make_user(name) for name in ("annika", "borbala", "casimir", "dagmar")]
    cohort = make_cohort(teacher, students=students)
    wrong = Prediction.Verdict.WRONG
    make_prediction(students[0], snippet, text="4\n8\n", verdict=wrong)
    make_prediction(students[1], snippet, text="4  \n8\n\n", verdict=wrong)  # the same, padded
    make_prediction(students[2], snippet, text="16\n", verdict=wrong)
    make_prediction(students[3], snippet)  # right
    return {
        "teacher": teacher,
        "lesson": lesson,
        "snippet": snippet,
        "students": students,
        "cohort": cohort,
    }


def common_group(world):
    distribution = snippet_clusters(in_class=_in(world["cohort"]), blocks=[world["snippet"].block])
    return distribution[world["snippet"].block_id].groups[0]


def _in(cohort):
    from django.db.models import Q

    return Q(user__memberships__cohort=cohort)


def comment_url(world, key):
    return reverse(
        "tutor:cluster_comment", args=[world["cohort"].pk, world["snippet"].block_id, key]
    )


def lesson_url(world):
    return reverse("tutor:class_lesson", args=[world["cohort"].pk, world["lesson"].pk])


def test_the_teachers_lesson_page_shows_each_group_with_its_count(client, world):
    client.force_login(world["teacher"])
    page = client.get(lesson_url(world)).content.decode()
    assert "Same mistake, one comment" in page
    assert "2 students" in page and "1 student<" in page
    assert "<code>8</code> instead of <code>16</code> on line 2" in page
    assert "Leaves out line 1, <code>4</code>" in page


def test_the_comment_form_comes_inline_or_as_a_page(client, world):
    client.force_login(world["teacher"])
    url = comment_url(world, common_group(world).key)
    inline = client.get(url, **HTMX)
    assert inline.status_code == 200
    assert (
        b"<form" in inline.content
        and b"<html" not in inline.content
        and b"hx-post" in inline.content
    )
    page = client.get(url)
    assert page.status_code == 200 and b"<html" in page.content and b"hx-post" not in page.content


def test_saving_a_comment_returns_the_group_with_its_reach(client, world):
    client.force_login(world["teacher"])
    group = common_group(world)
    response = client.post(
        comment_url(world, group.key), {"text": "Look at the loop again."}, **HTMX
    )
    assert response.status_code == 200
    body = response.content.decode()
    assert "Look at the loop again." in body and "Shown to the 2 students in this group; nobody has opened it yet." in body
    comment = ClusterComment.objects.get()
    assert (comment.author, comment.cohort, comment.key) == (
        world["teacher"],
        world["cohort"],
        group.key,
    )


def test_a_plain_post_goes_back_to_the_group_and_editing_changes_the_one_comment(client, world):
    client.force_login(world["teacher"])
    url = comment_url(world, common_group(world).key)
    response = client.post(url, {"text": "First."})
    assert response.status_code == 302 and response["Location"].endswith(
        f"#group-{world['snippet'].block_id}-{common_group(world).key}"
    )
    client.post(url, {"text": "Second thoughts."})
    assert list(ClusterComment.objects.values_list("text", flat=True)) == ["Second thoughts."]
    assert client.post(url + "?from=projector", {"text": "Third."})["Location"] == reverse(
        "tutor:cluster_projector", args=[world["cohort"].pk, world["snippet"].block_id]
    )


@pytest.mark.parametrize(
    "text,says", [("", "empty"), ("   ", "empty"), ("x" * 2001, "at most 2,000")]
)
def test_an_empty_or_too_long_comment_is_refused(client, world, text, says):
    client.force_login(world["teacher"])
    group = common_group(world)
    url = comment_url(world, group.key)
    refused = client.post(url, {"text": text}, **HTMX)
    assert refused.status_code == 400
    assert refused["HX-Retarget"] == f"#group-{world['snippet'].block_id}-{group.key}-message"
    assert says in refused.content.decode() and 'class="refusal"' in refused.content.decode()
    page = client.post(url, {"text": text})
    assert page.status_code == 400 and says in page.content.decode() and b"<html" in page.content
    assert not ClusterComment.objects.exists()


def test_a_made_up_group_is_not_found(client, world):
    client.force_login(world["teacher"])
    assert client.get(comment_url(world, "0" * 32)).status_code == 404
    assert client.post(comment_url(world, "0" * 32), {"text": "hi"}).status_code == 404


def test_other_teachers_and_students_may_not_comment(client, world):
    url = comment_url(world, common_group(world).key)
    client.force_login(make_teacher("other"))
    assert client.get(url).status_code == 404
    assert client.post(url, {"text": "hi"}).status_code == 404
    client.force_login(world["students"][0])
    assert client.post(url, {"text": "hi"}).status_code == 403
    assert not ClusterComment.objects.exists()


def save_comment(world, text="Look at line 2: what does the loop double?"):
    return ClusterComment.objects.create(
        cohort=world["cohort"],
        author=world["teacher"],
        block=world["snippet"].block,
        key=common_group(world).key,
        summary="s",
        text=text,
    )


def test_deleting_a_comment(client, world):
    comment = save_comment(world)
    url = reverse("tutor:cluster_comment_delete", args=[world["cohort"].pk, comment.pk])
    client.force_login(make_teacher("other"))
    assert client.post(url).status_code == 404
    client.force_login(world["teacher"])
    response = client.post(url, **HTMX)
    assert response.status_code == 200 and b">Comment</a>" in response.content
    assert not ClusterComment.objects.exists()
    comment = save_comment(world)
    url = reverse("tutor:cluster_comment_delete", args=[world["cohort"].pk, comment.pk])
    assert client.post(url).status_code == 302 and not ClusterComment.objects.exists()


def lesson_page(client, student, world):
    client.force_login(student)
    return client.get(world["lesson"].get_absolute_url()).content.decode()


def test_students_in_the_group_see_the_comment_marked_as_their_teachers(client, world):
    save_comment(world)
    ann, bob, cat, dan = world["students"]
    for student in (ann, bob):
        page = lesson_page(client, student, world)
        assert "From your teacher" in page and "what does the loop double?" in page
    for student in (cat, dan):  # another mistake; right
        assert "what does the loop double?" not in lesson_page(client, student, world)


def test_a_student_who_makes_the_mistake_later_sees_it_and_outsiders_never_do(client, world):
    save_comment(world)
    late = make_user("eve")
    make_prediction(late, world["snippet"], text="4\n8", verdict=Prediction.Verdict.WRONG)
    assert "what does the loop double?" not in lesson_page(client, late, world)  # not in the class
    world["cohort"].memberships.create(student=late)
    assert "what does the loop double?" in lesson_page(client, late, world)


def test_the_panel_alone_shows_the_comment_too(client, world):
    save_comment(world)
    ann = world["students"][0]
    prediction = Prediction.objects.get(user=ann)
    client.force_login(ann)
    response = client.get(reverse("tutor:prediction_detail", args=[prediction.pk]), **HTMX)
    assert "what does the loop double?" in response.content.decode()


def test_the_lesson_page_reads_comments_in_a_fixed_number_of_queries(client, world):
    save_comment(world)
    ann = world["students"][0]
    client.force_login(ann)
    client.get(world["lesson"].get_absolute_url())  # warm the content cache
    with CaptureQueriesContext(connection) as one:
        assert (
            "what does the loop double?"
            in client.get(world["lesson"].get_absolute_url()).content.decode()
        )
    for _ in range(3):  # more snippets answered the same way, each with a comment
        snippet = make_snippet(
            world["lesson"], code="print(4)\nprint(16)\n", expected_output="4\n16\n"
        )
        make_prediction(ann, snippet, text="4\n8\n", verdict=Prediction.Verdict.WRONG)
        ClusterComment.objects.create(
            cohort=world["cohort"],
            author=world["teacher"],
            block=snippet.block,
            key=common_group(world).key,
            summary="s",
            text="Another comment.",
        )
    client.get(world["lesson"].get_absolute_url())
    with CaptureQueriesContext(connection) as four:
        page = client.get(world["lesson"].get_absolute_url()).content.decode()
    assert page.count("Another comment.") == 3
    assert len(four.captured_queries) == len(one.captured_queries)


def test_the_projector_shows_answers_and_counts_never_names(client, world):
    save_comment(world)
    client.force_login(world["teacher"])
    url = reverse("tutor:cluster_projector", args=[world["cohort"].pk, world["snippet"].block_id])
    page = client.get(url)
    body = page.content.decode()
    text = " ".join(re.sub("<[^>]+>", " ", body).split())
    assert page.status_code == 200 and "<html" in body
    assert '<link rel="icon" href="data:image/svg+xml,' in body  # no /favicon.ico 404
    assert "4 answers · 25 % right" in text.replace("25%", "25 %")  # one of four right
    # Each group: a short label, the answer with the line that differs marked; no controls.
    assert "Line 2 differs" in text and "Leaves out line 1" in text
    assert (
        '<span class="answer-line">4</span><span class="answer-line is-marked"><span class="visually-hidden">Differs: </span>8</span>'
        in body
    )
    assert "Commented" in body and "Comment</a>" not in body and "Edit comment" not in body
    # The right answer on demand, outside the board that polls.
    assert (
        '<details class="projector-right-answer"><summary>Show the right answer</summary><pre class="projector-answer">'
        '<span class="answer-line">4</span><span class="answer-line">16</span></pre>'
    ) in body
    for name in ("annika", "borbala", "casimir", "dagmar", "tina"):
        assert name not in body
    board = client.get(url, **HTMX)
    assert (
        board.status_code == 200
        and b"<html" not in board.content
        and b'hx-trigger="every 5s, parsnip:shown" data-poll-every' in board.content
    )
    client.force_login(make_teacher("other"))
    assert client.get(url).status_code == 404


def test_ordering_groups_reach_the_students_who_made_them(client, world):
    exercise = make_exercise(world["lesson"], lines=["a = 1", "b = 2", "print(a + b)"])
    ann, bob = world["students"][:2]
    for student in (ann, bob):
        OrderingArrangement.objects.create(
            user=student, exercise=exercise, order=["l3", "l1", "l2"], checks=1, wrong_checks=1
        )
        make_ordering_attempt(
            student, exercise, order=["l3", "l1", "l2"], verdict=OrderingAttempt.Verdict.WRONG
        )
    client.force_login(world["teacher"])
    page = client.get(lesson_url(world)).content.decode()
    assert "Line <code>print(a + b)</code> placed before <code>a = 1</code>" in page
    from tutor.practice.ordering.clusters import clusters

    group = clusters(in_class=_in(world["cohort"]), blocks=[exercise.block])[
        exercise.block_id
    ].groups[0]
    url = reverse("tutor:cluster_comment", args=[world["cohort"].pk, exercise.block_id, group.key])
    assert client.post(url, {"text": "Which line needs a and b first?"}).status_code == 302
    assert "Which line needs a and b first?" in lesson_page(client, ann, world)


def failing_submission(student, exercise, *, kind="wrong_value", name="works for other bit widths"):
    from tutor.practice.code_exercise.models import Submission
    from tutor.sandbox.grading import Grading, TestResult

    grading = Grading(
        status="failed",
        kind=kind,
        message="",
        results=[
            TestResult(name="16 bits for 1000 units is 16 GB", visible=True, passed=True),
            TestResult(name=name, visible=False, passed=False, kind=kind, message="Not equal."),
        ],
    )
    return Submission.objects.create(
        user=student,
        exercise=exercise,
        code="x = 1\n",
        verdict=Submission.Verdict.FAILED,
        tests_total=2,
        tests_passed=1,
        results=grading.to_dict(),
    )


def test_code_exercise_groups_by_failing_tests_reach_students_and_the_projector(
    client, sample_content
):
    from course.kinds.code_exercise import CodeExercise

    exercise = CodeExercise.objects.select_related("block__lesson").get(
        block__key="write-kv-cache-vram"
    )
    teacher = make_teacher("tutu")
    students = [make_user(name) for name in ("pia", "quin", "rolf")]
    cohort = make_cohort(teacher, students=students)
    failing_submission(students[0], exercise)
    failing_submission(students[1], exercise)
    failing_submission(students[2], exercise, kind="exception")
    client.force_login(teacher)
    page = client.get(
        reverse("tutor:class_lesson", args=[cohort.pk, exercise.block.lesson_id])
    ).content.decode()
    assert "Fails “works for other bit widths” (wrong value: a check&#x27;s assert failed)" in page
    assert "failed))" not in page  # no brackets inside brackets
    from tutor.practice.code_exercise.clusters import clusters

    dist = clusters(in_class=_in(cohort), blocks=[exercise.block])[exercise.block_id]
    assert [group.count for group in dist.groups] == [2, 1]
    url = reverse("tutor:cluster_comment", args=[cohort.pk, exercise.block_id, dist.groups[0].key])
    assert client.post(url, {"text": "Try bits = 32 by hand."}).status_code == 302
    projector = client.get(reverse("tutor:cluster_projector", args=[cohort.pk, exercise.block_id]))
    assert "3 answers" in " ".join(re.sub("<[^>]+>", " ", projector.content.decode()).split())
    for student, sees in zip(students, (True, True, False), strict=True):
        client.force_login(student)
        html = client.get(exercise.block.lesson.get_absolute_url()).content.decode()
        assert ("Try bits = 32 by hand." in html) is sees


def test_a_students_answer_is_shown_as_text_never_as_markup(client, world):
    ann = world["students"][0]
    Prediction.objects.filter(user=ann).update(text="4\n<b>8</b> `x`\n")
    client.force_login(world["teacher"])
    page = client.get(lesson_url(world)).content.decode()
    assert "<b>8</b>" not in page and "&lt;b&gt;8&lt;/b&gt; ʼxʼ" in page


def test_the_teachers_lesson_page_costs_the_same_queries_for_a_bigger_class(client, world):
    save_comment(world)
    client.force_login(world["teacher"])
    url = lesson_url(world)
    with CaptureQueriesContext(connection) as small:
        assert (
            "Your comments reach 2 of the 3 students with a wrong answer"
            in client.get(url).content.decode()
        )
    for n in range(8):
        student = make_user(f"extra{n}")
        world["cohort"].memberships.create(student=student)
        make_prediction(student, world["snippet"], text=f"{n}\n", verdict=Prediction.Verdict.WRONG)
    with CaptureQueriesContext(connection) as big:
        client.get(url)
    assert len(big.captured_queries) == len(small.captured_queries)


def reach_numbers(html: str) -> dict[str, tuple[int, ...]]:
    """Every count of a comment's reach the teacher reads, as numbers."""
    found = {}
    if m := re.search(r"\((\d+) of (\d+)\): (?:it|they) reach (\d+) of the (\d+) students?", html):
        found["lesson"] = tuple(int(n) for n in m.groups())
    found["items"] = tuple(
        (int(a), int(b))
        for a, b in re.findall(r"Your comments reach (\d+) of the (\d+) students? with", html)
    )
    found["groups"] = tuple(int(n) for n in re.findall(r"Shown to the (\d+) students? in this group", html))
    return found


@pytest.fixture
def two_items(world):
    """Annika and Borbala share a mistake on the snippet (Casimir has another, Dagmar is
    right); on a second snippet Annika is wrong again and Casimir too, in two ways."""
    second = make_snippet(world["lesson"], code="print(1)\n", expected_output="1\n")
    make_run(second, purpose=Run.Purpose.REVEAL, stdout="1\n", stdin=second.stdin)
    annika, _, casimir, _ = world["students"]
    make_prediction(annika, second, text="2\n", verdict=Prediction.Verdict.WRONG)
    make_prediction(casimir, second, text="3\n", verdict=Prediction.Verdict.WRONG)
    world["second"] = second
    return world


def test_every_reach_count_agrees_after_saving_with_several_students_and_mistakes(
    client, two_items
):
    world = two_items
    client.force_login(world["teacher"])
    before = reach_numbers(client.get(lesson_url(world)).content.decode())
    assert before == {"lesson": (0, 5, 0, 3), "items": ((0, 3), (0, 2)), "groups": ()}

    response = client.post(
        comment_url(world, common_group(world).key), {"text": "Doubled?"}, **HTMX
    )
    after_save = reach_numbers(response.content.decode())
    page = reach_numbers(client.get(lesson_url(world)).content.decode())

    # The group, its item and the lesson, swapped in together, say the same as the page.
    assert after_save == {"lesson": (2, 5, 2, 3), "items": ((2, 3),), "groups": (2,)}
    assert page == {"lesson": (2, 5, 2, 3), "items": ((2, 3), (0, 2)), "groups": (2,)}
    assert "40%" in response.content.decode()

    # Annika's mistake on the second item too: two more answers, but no student is counted twice.
    second = snippet_clusters(in_class=_in(world["cohort"]), blocks=[world["second"].block])
    for group in second[world["second"].block_id].groups:
        url = reverse(
            "tutor:cluster_comment", args=[world["cohort"].pk, world["second"].block_id, group.key]
        )
        client.post(url, {"text": "Look again."}, **HTMX)
    page = reach_numbers(client.get(lesson_url(world)).content.decode())
    assert page == {"lesson": (4, 5, 3, 3), "items": ((2, 3), (2, 2)), "groups": (2, 1, 1)}


def test_one_student_wrong_on_two_items_is_one_student(client, world):
    """The class's report: "2 students" in a one-student class."""
    solo = make_user("solo")
    cohort = make_cohort(world["teacher"], students=[solo])
    other = make_snippet(world["lesson"], code="print(1)\n", expected_output="1\n")
    make_run(other, purpose=Run.Purpose.REVEAL, stdout="1\n", stdin=other.stdin)
    make_prediction(solo, world["snippet"], text="4\n8\n", verdict=Prediction.Verdict.WRONG)
    make_prediction(solo, other, text="2\n", verdict=Prediction.Verdict.WRONG)
    client.force_login(world["teacher"])
    for snippet in (world["snippet"], other):
        group = snippet_clusters(in_class=_in(cohort), blocks=[snippet.block])[
            snippet.block_id
        ].groups[0]
        url = reverse("tutor:cluster_comment", args=[cohort.pk, snippet.block_id, group.key])
        response = client.post(url, {"text": "Look again."}, **HTMX)
    assert reach_numbers(response.content.decode())["lesson"] == (2, 2, 1, 1)
    page = client.get(
        reverse("tutor:class_lesson", args=[cohort.pk, world["lesson"].pk])
    ).content.decode()
    assert reach_numbers(page) == {
        "lesson": (2, 2, 1, 1),
        "items": ((1, 1), (1, 1)),
        "groups": (1, 1),
    }
    assert "they reach 1 of the 1 student whose" in page


@pytest.mark.parametrize("headers", [{}, HTMX])
def test_a_group_reads_as_a_label_and_its_answer_beside_the_right_one(client, world, headers):
    client.force_login(world["teacher"])
    if headers:  # after a save, the group swapped in says the same
        body = client.post(
            comment_url(world, common_group(world).key), {"text": "Doubled?"}, **headers
        )
    else:
        body = client.get(lesson_url(world))
    body = body.content.decode()
    group = body[body.index('class="group"') :]
    group = group[: group.index("</li>")]
    assert '<span class="group-label">Line 2 differs</span>' in group
    assert '<p class="group-compare-title">Their answer</p>' in group
    assert 'is-marked"><span class="visually-hidden">Differs: </span>8</span>' in group
    assert (
        '<p class="group-compare-title">The right answer</p><pre class="answer-text"><span class="answer-line">4</span>'
        '<span class="answer-line is-marked"><span class="visually-hidden">Differs: </span>16</span></pre>'
    ) in group
    assert "instead of" in group  # the full description, folded "In words"


def test_an_ordering_groups_label_and_marks():
    from tutor.practice.ordering.clusters import arrangement_group

    texts = {"a": "a = 1", "b": "b = 2", "c": "print(a + b)", "x": "print(b)"}
    group = arrangement_group(["c", "a", "b"], ["a", "b", "c"], texts)
    assert group.label == "1 line out of place"
    assert (group.marked, group.right_marked) == ({0}, {2})  # print(a + b), first here, last there
    assert (
        arrangement_group(["a", "x", "b", "c"], ["a", "b", "c"], texts).label
        == "1 line that does not belong"
    )
    assert arrangement_group(["a", "b"], ["a", "b", "c"], texts).label == "Leaves out 1 line"


# "From your teacher" on the home page and My progress -----------------------------------


@pytest.mark.parametrize("page", ["tutor:catalogue", "tutor:my_progress"])
def test_a_student_with_a_comment_finds_it_on_the_home_page_and_my_progress(client, world, page):
    comment = save_comment(world, text="Look at line 2 again.")
    annika, _, casimir, _ = world["students"]
    client.force_login(annika)
    html = client.get(reverse(page)).content.decode()
    notes = html[html.index('<section class="teacher-notes"') :]
    notes = notes[: notes.index("</section>")]
    assert "From your teacher" in notes and "Look at line 2 again." in notes
    assert '<span class="teacher-note-new">New</span> <strong>tina</strong>' in notes
    assert reverse("tutor:comment_read", args=[comment.pk]) in notes
    # Casimir's mistake is another one: nothing for him.
    client.force_login(casimir)
    assert "teacher-notes" not in client.get(reverse(page)).content.decode()


def test_following_a_comment_marks_it_read_and_goes_to_the_answer(client, world):
    comment = save_comment(world)
    annika = world["students"][0]
    client.force_login(annika)
    response = client.post(reverse("tutor:comment_read", args=[comment.pk]))
    assert response.status_code == 302
    assert (
        response["Location"]
        == world["lesson"].get_absolute_url() + f"#snippet-{world['snippet'].block.key}"
    )
    html = client.get(reverse("tutor:catalogue")).content.decode()
    assert "From your teacher" in html and "teacher-note-new" not in html
    assert "See it beside your answer" in html
    # The teacher changes it: new again.
    comment.text, comment.updated_at = "Changed.", comment.updated_at + timedelta(minutes=5)
    comment.save()
    assert "teacher-note-new" in client.get(reverse("tutor:catalogue")).content.decode()


def test_the_lesson_page_marks_a_comment_read_when_it_is_seen(client, world):
    comment = save_comment(world)
    client.force_login(world["students"][0])
    page = client.get(world["lesson"].get_absolute_url()).content.decode()
    url = reverse("tutor:comment_read", args=[comment.pk])
    assert f'hx-post="{url}" hx-trigger="intersect once"' in page
    assert client.post(url, **HTMX).status_code == 204
    assert "teacher-note-new" not in client.get(reverse("tutor:my_progress")).content.decode()


def test_the_teacher_sees_how_many_of_the_group_opened_the_comment_not_seen_before_it_is(
    client, world
):
    """ "Seen now by 2" before anyone opened it (issue 39): the group's count is who it is
    shown to; who opened it (since its last edit) is counted apart."""
    comment = save_comment(world)
    url = lesson_url(world)
    client.force_login(world["teacher"])
    assert "Shown to the 2 students in this group; nobody has opened it yet." in client.get(url).text
    student = Client()
    student.force_login(world["students"][0])
    student.post(reverse("tutor:comment_read", args=[comment.pk]), **HTMX)
    assert "Shown to the 2 students in this group; opened by 1 of them." in client.get(url).text
    comment.text, comment.updated_at = "Changed.", comment.updated_at + timedelta(minutes=5)
    comment.save()  # changed since: not opened as it is now
    assert "nobody has opened it yet" in client.get(url).text


def test_only_a_student_of_the_class_may_mark_a_comment_read(client, world):
    comment = save_comment(world)
    url = reverse("tutor:comment_read", args=[comment.pk])
    assert client.post(url).status_code == 302 and "login" in client.post(url)["Location"]
    client.force_login(make_user("outsider"))
    assert client.post(url).status_code == 404
    client.force_login(world["students"][0])
    assert client.get(url).status_code == 405


def test_the_home_page_costs_no_more_queries_for_more_comments(client, world):
    save_comment(world)
    client.force_login(world["students"][0])
    with CaptureQueriesContext(connection) as one:
        client.get(reverse("tutor:catalogue"))
    other = make_snippet(world["lesson"], code="print(1)\n", expected_output="1\n")
    make_run(other, purpose=Run.Purpose.REVEAL, stdout="1\n", stdin=other.stdin)
    make_prediction(world["students"][0], other, text="2\n", verdict=Prediction.Verdict.WRONG)
    group = snippet_clusters(in_class=_in(world["cohort"]), blocks=[other.block])[
        other.block_id
    ].groups[0]
    ClusterComment.objects.create(
        cohort=world["cohort"],
        author=world["teacher"],
        block=other.block,
        key=group.key,
        summary="s",
        text="More.",
    )
    with CaptureQueriesContext(connection) as two:
        html = client.get(reverse("tutor:catalogue")).content.decode()
    assert html.count('<li class="teacher-note') == 2
    assert len(two.captured_queries) == len(one.captured_queries)
