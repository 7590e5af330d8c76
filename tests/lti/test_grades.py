"""Grades reach the LMS's gradebook (AGS) through the queue, survive a failing LMS, and are
never posted twice; the teacher sees each student's sync state and re-syncs."""

from datetime import timedelta

import pytest
import requests
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from lti import grades, tasks
from lti.models import ClassLink, ScoreSync
from tests.factories import make_prediction
from tutor.actions.progress import refresh_lesson_progress

pytestmark = pytest.mark.django_db(transaction=True)


def solve(sub: str, lesson, count: int) -> User:
    """The learner predicts `count` of the lesson's snippets (what their clicks store), and
    their progress is recounted as the prediction view does."""
    user = User.objects.get(lti_users__sub=sub)
    for snippet in lesson.snippets_for_test[:count]:
        if not snippet.predictions.filter(user=user).exists():
            make_prediction(user, snippet)
    refresh_lesson_progress(user=user, lesson=lesson)
    return user


def gradebook(lms, sub: str):
    (item_id,) = lms.line_items
    score = lms.scores[item_id].get(sub)
    return score and (score["scoreGiven"], score["scoreMaximum"])


@pytest.fixture
def launched(lms, course_with_link, person):
    for sub in ("s1", "s2"):
        person(sub).launch(course_with_link)
    return course_with_link


def test_a_changed_score_is_queued_then_posted_by_the_worker(lms, launched, lesson):
    solve("s1", lesson, 2)
    sync = ScoreSync.objects.get(user__lti_users__sub="s1")
    assert (
        sync.status == ScoreSync.Status.PENDING and gradebook(lms, "s1") is None
    )  # not in the request
    tasks.send_score(sync.pk)
    assert gradebook(lms, "s1") == (2, 3)
    sync.refresh_from_db()
    assert sync.status == ScoreSync.Status.SENT and sync.sent_score == 2
    # Sent again by a second delivery of the same task: nothing more is posted.
    tasks.send_score(sync.pk)
    assert len(lms.score_posts) == 1


def test_the_lms_refusing_twice_then_accepting_gets_the_score_after_back_off(lms, launched, lesson):
    lms.score_failures = [500, 500]
    solve("s1", lesson, 3)
    sync = ScoreSync.objects.get()
    now = timezone.now()
    assert grades.send_score(sync_id=sync.pk, now=now) == ScoreSync.Status.FAILED
    sync.refresh_from_db()
    assert "HTTP 500" in sync.last_response and sync.attempts == 1
    assert grades.send_due_scores(now + timedelta(seconds=10)) == 0  # waits its back-off
    assert grades.send_due_scores(now + timedelta(seconds=31)) == 1  # refused again
    sync.refresh_from_db()
    assert sync.status == ScoreSync.Status.FAILED and sync.attempts == 2
    assert grades.send_due_scores(now + timedelta(seconds=60)) == 0  # the delay doubled
    assert grades.send_due_scores(now + timedelta(seconds=92)) == 1
    sync.refresh_from_db()
    assert sync.status == ScoreSync.Status.SENT and sync.attempts == 0
    assert gradebook(lms, "s1") == (3, 3)
    assert len(lms.score_posts) == 1


def test_an_lms_that_does_not_answer_in_time_is_retried(lms, launched, lesson, settings):
    settings.LTI_HTTP_TIMEOUT_SECONDS = 0.5
    lms.score_hangs = True  # until the test releases it: Parsnip's wait always runs out first
    solve("s2", lesson, 1)
    sync = ScoreSync.objects.get()
    now = timezone.now()
    assert grades.send_score(sync_id=sync.pk, now=now) == ScoreSync.Status.FAILED
    sync.refresh_from_db()
    assert "No answer within" in sync.last_response
    lms.score_hangs = False
    lms.release.set()
    grades.send_due_scores(now + timedelta(minutes=5))
    assert gradebook(lms, "s2") == (1, 3)


def test_a_failing_token_endpoint_is_retried(lms, launched, lesson):
    lms.token_failures = 1
    solve("s1", lesson, 1)
    sync = ScoreSync.objects.get()
    now = timezone.now()
    assert grades.send_score(sync_id=sync.pk, now=now) == ScoreSync.Status.FAILED
    sync.refresh_from_db()
    assert "HTTP 503" in sync.last_response
    grades.send_due_scores(now + timedelta(minutes=5))
    assert gradebook(lms, "s1") == (1, 3)
    assert len(lms.score_posts) == 1


def send_all() -> None:
    for sync in ScoreSync.objects.order_by("pk"):
        tasks.send_score(sync.pk)


def test_one_access_token_serves_every_grade_while_it_lasts(lms, launched, lesson):
    """pylti1p3 asked the LMS for a new token for every grade; the token is kept for the
    lifetime the LMS gives it."""
    solve("s1", lesson, 2)
    solve("s2", lesson, 3)
    send_all()
    assert (gradebook(lms, "s1"), gradebook(lms, "s2")) == ((2, 3), (3, 3))
    assert lms.token_reads == 1


def test_a_token_the_lms_revoked_is_replaced_and_the_grade_still_arrives(lms, launched, lesson):
    solve("s1", lesson, 1)
    send_all()
    lms.revoke_tokens()
    solve("s2", lesson, 2)
    sync = ScoreSync.objects.get(user__lti_users__sub="s2")
    assert grades.send_score(sync_id=sync.pk, now=timezone.now()) == ScoreSync.Status.SENT
    assert gradebook(lms, "s2") == (2, 3)
    assert lms.token_reads == 2 and len(lms.score_posts) == 2


def test_a_token_whose_lifetime_the_lms_does_not_say_is_not_kept(lms, launched, lesson):
    lms.token_expiry_given = False
    solve("s1", lesson, 2)
    solve("s2", lesson, 3)
    send_all()
    assert (gradebook(lms, "s1"), gradebook(lms, "s2")) == ((2, 3), (3, 3))
    assert lms.token_reads == 2


def test_a_worker_killed_mid_post_is_resumed_by_the_sweep(lms, launched, lesson, monkeypatch):
    solve("s1", lesson, 2)
    sync = ScoreSync.objects.get()

    def killed(*args, **kwargs):
        raise SystemExit("worker killed")

    with monkeypatch.context() as patch:
        patch.setattr(requests.Session, "request", killed)
        with pytest.raises(SystemExit):
            grades.send_score(sync_id=sync.pk)
    sync.refresh_from_db()
    assert sync.status == ScoreSync.Status.SENDING
    now = timezone.now()
    assert grades.send_due_scores(now) == 0  # another worker may still be on it
    assert grades.send_due_scores(now + ScoreSync.CLAIM_TIMEOUT + timedelta(seconds=1)) == 1
    assert gradebook(lms, "s1") == (2, 3)


def test_a_score_that_changes_while_sending_is_sent_again(lms, launched, lesson, monkeypatch):
    solve("s1", lesson, 1)
    sync = ScoreSync.objects.get()
    real_post = grades.post_score

    def post_while_learner_works(row):
        answer = real_post(row)
        solve("s1", lesson, 2)
        return answer

    monkeypatch.setattr(grades, "post_score", post_while_learner_works)
    assert grades.send_score(sync_id=sync.pk) == ScoreSync.Status.PENDING
    monkeypatch.setattr(grades, "post_score", real_post)
    grades.send_due_scores()
    assert gradebook(lms, "s1") == (2, 3)


def test_relaunching_a_link_or_a_copy_of_it_never_makes_a_second_column(
    lms, launched, lesson, person
):
    lms.links["copy"] = {**lms.links[launched], "lineitem": None}  # a link copied in the LMS
    person("s1").launch("copy")
    person("s1").launch(launched)
    solve("s1", lesson, 1)
    grades.send_due_scores()
    assert len(lms.line_items) == 1
    assert gradebook(lms, "s1") == (1, 3)


def test_one_class_linked_from_two_lms_courses_posts_to_both(lms, launched, lesson, person):
    lms.contexts["c2"] = "Physics 101, section B"
    lms.people["t1"]["roles"]["c2"] = lms.people["t1"]["roles"]["c1"]
    lms.people["s1"]["roles"]["c2"] = lms.people["s1"]["roles"]["c1"]
    person("t1").deep_link("c2", lesson)
    second = ClassLink.objects.get(context__id_on_platform="c2")
    ClassLink.objects.filter(pk=second.pk).update(
        cohort=ClassLink.objects.get(context__id_on_platform="c1").cohort
    )
    link_in_c2 = [k for k, v in lms.links.items() if v["context"] == "c2"][0]
    person("s1").launch(link_in_c2)
    solve("s1", lesson, 3)
    grades.send_due_scores()
    assert {item: scores["s1"]["scoreGiven"] for item, scores in lms.scores.items()} == {
        "1": 3,
        "2": 3,
    }


def test_the_teacher_sees_each_students_state_and_resyncs(lms, launched, lesson, client):
    lms.score_failures = [500]
    solve("s1", lesson, 2)
    solve("s2", lesson, 1)
    grades.send_due_scores()
    cohort = ClassLink.objects.get().cohort
    client.force_login(cohort.teacher)
    page = client.get(reverse("lti:class_grades", args=[cohort.pk]))
    text = page.content.decode()
    assert page.status_code == 200
    assert "1 sent · 0 waiting · 1 failed" in text
    assert "HTTP 500" in text
    failed = ScoreSync.objects.get(status=ScoreSync.Status.FAILED)
    response = client.post(reverse("lti:resync_one", args=[cohort.pk, failed.pk]))
    assert response.status_code == 302
    failed.refresh_from_db()
    assert failed.status == ScoreSync.Status.PENDING
    grades.send_due_scores()
    assert (
        "2 sent · 0 waiting · 0 failed"
        in client.get(reverse("lti:class_grades", args=[cohort.pk])).content.decode()
    )
    response = client.post(reverse("lti:resync_class", args=[cohort.pk]))
    assert ScoreSync.objects.filter(status=ScoreSync.Status.PENDING).count() == 2


def test_an_assignment_deep_linked_is_graded_on_its_own_exercises(lms, launched, lesson, person):
    """The teacher sets two of the lesson's three snippets for the class and links that
    assignment: its column is out of 2, and counts only those two."""
    from tutor.assignments.models import Assignment

    cohort = ClassLink.objects.get().cohort
    now = timezone.now()
    assignment = Assignment.objects.create(
        cohort=cohort,
        lesson=lesson,
        whole_lesson=False,
        opens_at=now - timedelta(days=1),
        due_at=now + timedelta(days=2),
    )
    assignment.blocks.set([s.block for s in lesson.snippets_for_test[1:]])
    person("t1").deep_link("c1", assignment=assignment)
    link_id = [k for k, v in lms.links.items() if v["custom"].get("parsnip_assignment")][0]
    column = lms.line_items[lms.links[link_id]["lineitem"]]
    assert column["scoreMaximum"] == 2
    assert lms.links[link_id]["due"] == assignment.due_at.isoformat()  # the LMS shows the due date
    person("s1").launch(link_id)
    solve("s1", lesson, 2)  # the first snippet (not assigned) and the second (assigned)
    grades.send_due_scores()
    scores = {item: s["s1"]["scoreGiven"] for item, s in lms.scores.items() if "s1" in s}
    assert scores == {lms.links[launched]["lineitem"]: 2, lms.links[link_id]["lineitem"]: 1}


def test_a_quiz_deep_linked_sends_the_best_attempts_score(lms, launched, lesson, person):
    """A quiz assignment linked in the LMS: its column gets the student's best submitted
    attempt's score (out of 100, the LMS scales it), through tutor's announcement."""
    from django.http import QueryDict

    from tests.tutor.question_world import make_question
    from tutor.assignments.models import Assignment
    from tutor.practice.questions.answers import option_token
    from tutor.quizzes import actions

    cohort = ClassLink.objects.get().cohort
    choice = make_question("choice", lesson, key="quiz-choice")
    make_question("number", lesson, key="quiz-number")
    now = timezone.now()
    quiz = Assignment.objects.create(
        cohort=cohort, lesson=lesson, whole_lesson=True, quiz=True, attempts_allowed=2,
        opens_at=now - timedelta(days=1), due_at=now + timedelta(days=2),
    )
    person("t1").deep_link("c1", assignment=quiz)
    link_id = [k for k, v in lms.links.items() if v["custom"].get("parsnip_assignment")][0]
    person("s1").launch(link_id)
    from django.contrib.auth.models import User

    student = User.objects.get(lti_users__sub="s1")
    attempt = actions.start_attempt(assignment=quiz, student=student)
    data = QueryDict(mutable=True)
    data["option"] = option_token(student.pk, choice.pk, "llama")
    actions.save_answer(attempt=attempt, block=choice, data=data)
    actions.submit_attempt(attempt=attempt)  # 1 of 2 questions right
    second = actions.start_attempt(assignment=quiz, student=student)
    actions.submit_attempt(attempt=second)  # nothing right: the best stays
    grades.send_due_scores()
    score = lms.scores[lms.links[link_id]["lineitem"]]["s1"]
    assert (score["scoreGiven"], score["scoreMaximum"]) == (50, 100)


def test_a_quiz_with_feedback_after_the_due_date_holds_its_score_until_then(lms, launched, lesson, person):
    """Its score would show in the LMS's gradebook: it waits for the class's last due date."""
    from django.contrib.auth.models import User

    from tests.tutor.question_world import make_question
    from tutor.assignments.models import Assignment
    from tutor.quizzes import actions

    cohort = ClassLink.objects.get().cohort
    make_question("number", lesson, key="quiz-number")
    now = timezone.now()
    quiz = Assignment.objects.create(
        cohort=cohort, lesson=lesson, whole_lesson=True, quiz=True, feedback="after-due",
        opens_at=now - timedelta(days=1), due_at=now + timedelta(hours=2),
    )
    person("t1").deep_link("c1", assignment=quiz)
    link_id = [k for k, v in lms.links.items() if v["custom"].get("parsnip_assignment")][0]
    person("s1").launch(link_id)
    student = User.objects.get(lti_users__sub="s1")
    actions.submit_attempt(attempt=actions.start_attempt(assignment=quiz, student=student))
    grades.send_due_scores()
    item = lms.links[link_id]["lineitem"]
    assert "s1" not in lms.scores.get(item, {})
    grades.send_due_scores(now=now + timedelta(hours=2, minutes=1))
    assert lms.scores[item]["s1"]["scoreGiven"] == 0


def test_an_assignment_whose_hints_cost_sends_the_score_after_them(lms, launched, lesson, person):
    """The teacher's page scores each item done 100% less the hint cost per step taken: the
    LMS column gets that score, out of 100, and again when a hint is taken after the work."""
    from tests.factories import make_exercise
    from tutor.assignments.models import Assignment
    from tutor.practice.hints.actions import take_rung
    from tutor.practice.ordering.actions import check_order

    cohort = ClassLink.objects.get().cohort
    exercise = make_exercise(lesson, lines=["x = 1", "print(x)"], key="two-lines")
    Block = type(exercise.block)
    Block.objects.filter(pk=exercise.block_id).update(values={"hints": ["Define it first."]})
    now = timezone.now()
    assignment = Assignment.objects.create(
        cohort=cohort, lesson=lesson, whole_lesson=False, hint_cost=25,
        opens_at=now - timedelta(days=1), due_at=now + timedelta(days=2),
    )
    assignment.blocks.set([exercise.block])
    person("t1").deep_link("c1", assignment=assignment)
    link_id = [k for k, v in lms.links.items() if v["custom"].get("parsnip_assignment")][0]
    person("s1").launch(link_id)
    student = User.objects.get(lti_users__sub="s1")
    column = lms.links[link_id]["lineitem"]

    check_order(user=student, exercise=exercise, order=["l1", "l2"], unused=[])
    grades.send_due_scores()
    assert (lms.scores[column]["s1"]["scoreGiven"], lms.scores[column]["s1"]["scoreMaximum"]) == (100, 100)

    block = Block.objects.select_related("lesson__course", "ordering_exercise").get(pk=exercise.block_id)
    take_rung(user=student, block=block, rung=1)  # the hint, after the work
    grades.send_due_scores()
    assert lms.scores[column]["s1"]["scoreGiven"] == 75


def test_a_quiz_drawn_by_topic_sends_the_score_over_the_questions_drawn(lms, launched, lesson, person):
    """A drawn quiz whose pool spans two lessons: the LMS gets the score over the N drawn."""
    from django.contrib.auth.models import User
    from django.http import QueryDict

    from course.models import Block
    from tests.factories import make_lesson
    from tests.tutor.question_world import make_question
    from tutor.assignments.actions import create_assignment
    from tutor.practice.questions.answers import option_token
    from tutor.quizzes import actions

    cohort = ClassLink.objects.get().cohort
    other = make_lesson(lesson.course, title="Another lesson of the course")
    for n in range(4):  # all of another lesson: the quiz is listed on `lesson`, its column's
        make_question("choice", other, key=f"drawn-{n}", topics=["memory"])
    now = timezone.now()
    quiz = create_assignment(
        cohort=cohort, lesson=lesson, blocks=[], opens_at=now - timedelta(days=1), due_at=now + timedelta(days=2),
        quiz=True, draw_count=2, draw_topics=["memory"],
    )
    person("t1").deep_link("c1", assignment=quiz)
    link_id = [k for k, v in lms.links.items() if v["custom"].get("parsnip_assignment")][0]
    person("s1").launch(link_id)
    student = User.objects.get(lti_users__sub="s1")
    attempt = actions.start_attempt(assignment=quiz, student=student)
    first = Block.objects.get(pk=attempt.order[0])
    data = QueryDict(mutable=True)
    data["option"] = option_token(student.pk, first.pk, "llama")
    actions.save_answer(attempt=attempt, block=first, data=data)
    actions.submit_attempt(attempt=attempt)  # 1 of the 2 drawn right
    grades.send_due_scores()
    score = lms.scores[lms.links[link_id]["lineitem"]]["s1"]
    assert (score["scoreGiven"], score["scoreMaximum"]) == (50, 100)
