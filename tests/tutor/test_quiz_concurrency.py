"""A student's two tabs or double clicks on a quiz, sent at once from several threads: one
attempt is started, never more than the attempts allowed, an attempt is submitted (and its
answers recorded) once, and one answer is kept per question; on a file SQLite database and,
in `make test`'s second pass, on PostgreSQL."""

import pytest
from django.http import QueryDict

from tests.factories import make_cohort, make_teacher, make_user
from tests.tutor.quiz_world import make_quiz, quiz_lesson
from tests.tutor.test_concurrent_clicks import at_once
from tutor.practice.questions.answers import option_token
from tutor.practice.questions.models import QuestionAnswer
from tutor.quizzes import actions
from tutor.quizzes.models import QuizAnswer, QuizAttempt

pytestmark = pytest.mark.django_db(transaction=True)


def world(**settings):
    student = make_user()
    lesson, questions = quiz_lesson()
    quiz = make_quiz(make_cohort(make_teacher(), students=[student]), lesson, **settings)
    return student, quiz, questions


def test_starts_at_once_make_one_attempt():
    student, quiz, _questions = world(attempts_allowed=3)
    results = at_once(6, lambda: actions.start_attempt(assignment=quiz, student=student))
    assert QuizAttempt.objects.count() == 1
    assert all(isinstance(r, QuizAttempt) for r in results), results
    assert {r.pk for r in results} == {QuizAttempt.objects.get().pk}


def test_starts_at_once_after_the_last_but_one_attempt_never_exceed_the_attempts_allowed():
    student, quiz, _questions = world(attempts_allowed=2)
    first = actions.start_attempt(assignment=quiz, student=student)
    actions.submit_attempt(attempt=first)
    results = at_once(6, lambda: actions.start_attempt(assignment=quiz, student=student))
    assert QuizAttempt.objects.count() == 2
    assert all(isinstance(r, QuizAttempt) and r.number == 2 for r in results), results


def test_submits_at_once_submit_once_and_record_each_answer_once():
    student, quiz, questions = world()
    attempt = actions.start_attempt(assignment=quiz, student=student)
    choice = questions["choice"]
    data = QueryDict(mutable=True)
    data["option"] = option_token(student.pk, choice.pk, "llama")
    actions.save_answer(attempt=attempt, block=choice, data=data)
    results = at_once(6, lambda: actions.submit_attempt(attempt=QuizAttempt.objects.get(pk=attempt.pk)))
    assert all(isinstance(r, QuizAttempt) for r in results), results
    assert len({r.submitted_at for r in results}) == 1
    assert QuestionAnswer.objects.filter(attempt=attempt).count() == 1


def test_answers_saved_at_once_to_one_question_keep_one():
    student, quiz, questions = world()
    attempt = actions.start_attempt(assignment=quiz, student=student)
    number = questions["number"]
    values = iter(str(n) for n in range(6))

    def save():
        data = QueryDict(mutable=True)
        data["number"] = next(values)
        return actions.save_answer(attempt=QuizAttempt.objects.get(pk=attempt.pk), block=number, data=data)

    results = at_once(6, save)
    assert all(isinstance(r, QuizAnswer) for r in results), results
    (kept,) = QuizAnswer.objects.filter(attempt=attempt, block=number)
    assert kept.answer["text"] in {str(n) for n in range(6)}


def test_starts_at_once_of_a_drawn_quiz_make_one_attempt_with_one_draw():
    from tests.tutor.question_world import make_question

    student = make_user()
    lesson, _questions = quiz_lesson()
    pool = [make_question("choice", lesson, key=f"memory-{n}", topics=["memory"]) for n in range(4)]
    quiz = make_quiz(make_cohort(make_teacher(), students=[student]), lesson, blocks=pool, draw_count=2,
                     draw_topics=["memory"])
    results = at_once(6, lambda: actions.start_attempt(assignment=quiz, student=student))
    attempt = QuizAttempt.objects.get()
    assert all(isinstance(r, QuizAttempt) and r.order == attempt.order for r in results), results
    assert len(attempt.order) == 2 and set(attempt.order) <= set(quiz.blocks.values_list("pk", flat=True))


def test_a_program_back_graded_at_once_by_workers_and_the_sweep_is_recorded_once():
    from tests.tutor.question_world import make_question
    from tutor.models import Run

    student, quiz, _questions = world()
    code = make_question("code_blanks", quiz.lesson, key="q-code")
    attempt = actions.start_attempt(assignment=quiz, student=student)
    data = QueryDict(mutable=True)
    data.update({"blank-bits": "4 * 2", "blank-model": "'13b'"})
    actions.save_answer(attempt=attempt, block=code, data=data)  # its program queued
    actions.submit_attempt(attempt=attempt)
    run = Run.objects.get(purpose=Run.Purpose.CHECK)
    Run.objects.filter(pk=run.pk).update(status=Run.Status.OK, stdout="13.0 GB\n")  # back, not yet graded
    results = at_once(6, lambda: actions.settle_runs(run=run)) + at_once(2, actions.settle_runs)
    assert all(isinstance(r, int) for r in results), results
    assert sum(results) == 1  # graded once
    assert QuestionAnswer.objects.filter(attempt=attempt, block=code).count() == 1
    attempt.refresh_from_db()
    assert attempt.score == pytest.approx(1 / 5)  # one of five questions, right
