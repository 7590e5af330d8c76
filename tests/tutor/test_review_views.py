"""The Review page: today's items across the learner's courses, each answered once and
graded by the lesson's checks, and every refusal: not logged in, someone else's card or a
draft lesson's, a class with review off, malformed answers, a card reviewed already."""

import pytest
from django.urls import reverse

from tests.factories import make_cohort, make_lesson, make_run, make_snippet, make_user
from tests.tutor.question_world import make_question, option_tokens
from tutor.models import Run
from tutor.practice.questions import variants
from tutor.practice.questions.actions import answer_question
from tutor.practice.questions.code_runs import ProgramRunning
from tutor.practice.snippet.actions import submit_prediction
from tutor.review.models import ReviewAnswer, ReviewCard

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
CODE = 'word = "abra"\nprint(word + "cad" + word)\n'
OUTPUT = "abracadabra"


def wrong_prediction(user, lesson=None):
    snippet = make_snippet(lesson, code=CODE, expected_output=OUTPUT + "\n")
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT + "\n")
    submit_prediction(user=user, snippet=snippet, text="2", said_out_loud=False)
    return ReviewCard.objects.get(user=user, block=snippet.block)


def wrong_choice(user, lesson=None):
    block = make_question("choice", lesson, tries=1)
    answer_question(user=user, block=block, answer=["tgi"])
    return ReviewCard.objects.get(user=user, block=block)


def answer_url(card):
    return reverse("tutor:review_answer", args=[card.pk])


def item_url(card):
    return reverse("tutor:review_item", args=[card.pk])


@pytest.fixture
def due(clock):
    """Two days later: the lesson's wrong answers are due."""

    def later():
        clock.move(days=2)

    return later


def test_the_review_page_lists_what_is_due_today(client, due):
    user = make_user()
    client.force_login(user)
    card = wrong_prediction(user)
    response = client.get(reverse("tutor:review"))
    assert "Nothing to review today." in response.text
    # How items are chosen, in a learner's words: the scheduler's name is not the explanation.
    assert "a longer while each time you get it right" in response.text
    due()
    response = client.get(reverse("tutor:review"))
    assert "1 to review today" in response.text
    assert item_url(card) in response.text
    assert "1 to review today" in client.get(reverse("tutor:catalogue")).text


def test_a_prediction_is_asked_without_its_output_then_graded_and_rescheduled(client, due):
    user = make_user()
    client.force_login(user)
    card = wrong_prediction(user)
    due()
    page = client.get(item_url(card)).text
    assert "cad" in page and OUTPUT not in page
    response = client.post(answer_url(card), {"text": OUTPUT + "\n"})
    answer = ReviewAnswer.objects.get(card=card)
    assert response.status_code == 302 and response["Location"] == f"{item_url(card)}?answer={answer.pk}"
    assert answer.right and answer.rating == 3
    shown = client.get(response["Location"]).text
    assert "It prints" in shown and OUTPUT in shown and "Done for today" in shown
    card.refresh_from_db()
    assert card.reviews == 1 and card.due > answer.created_at


def test_an_htmx_answer_gets_the_graded_item(client, due):
    user = make_user()
    client.force_login(user)
    card, other = wrong_prediction(user), wrong_choice(user)
    due()
    response = client.post(answer_url(card), {"text": "2"}, **HTMX)
    assert response.status_code == 200
    assert 'id="review-item"' in response.text and "<html" not in response.text
    assert "Not quite" in response.text and "It comes back on" in response.text
    assert item_url(other) in response.text  # Next: the other item due today
    assert ReviewAnswer.objects.get(card=card).rating == 1


def test_a_question_hides_its_answer_until_answered(client, due):
    user = make_user()
    client.force_login(user)
    card = wrong_choice(user)
    due()
    page = client.get(item_url(card)).text
    assert "Built for CPUs." not in page and "Right answer" not in page
    tokens = option_tokens(page)
    assert len(tokens) == 4
    assert client.post(answer_url(card), {"option": tokens[0]}, **HTMX).status_code == 200
    answer = ReviewAnswer.objects.get(card=card)
    assert answer.right is (answer.answer == ["llama"])
    shown = client.get(f"{item_url(card)}?answer={answer.pk}").text
    assert "Right answer" in shown and "Built for CPUs." in shown


def test_a_question_right_at_review_is_rated_good(client, due):
    user = make_user()
    client.force_login(user)
    block = make_question("number", tries=1)
    answer_question(user=user, block=block, answer={"text": "3", "value": 3.0})
    card = ReviewCard.objects.get(user=user)
    due()
    client.post(answer_url(card), {"number": "12.5 GB"})
    assert ReviewAnswer.objects.get(card=card).rating == 3


def test_a_question_with_variants_comes_back_with_another(client, due):
    user = make_user()
    client.force_login(user)
    block = make_question(
        "number", key="sized", tries=1, answer=None, mistakes=[], units="GB",
        body="How many GB do the weights of a {{params}}B model take at {{bits}} bits?",
        program="print(params * bits / 8)\n",
        parameters=[{"name": "bits", "values": [4, 8, 16]}, {"name": "params", "from": 1, "to": 1}],
    )
    variants.check_question(block)  # every variant's answer computed and kept
    values = block.kind_spec.values_of(block)
    first = variants.learner_variant(block, values, user_id=user.pk)
    answer_question(user=user, block=block, answer={"text": "0", "value": 0.0})
    card = ReviewCard.objects.get(user=user)
    assert card.last_variant == first
    due()
    page = client.get(item_url(card)).text
    shown = [chosen for chosen in variants.variants_of(block, values) if f"at {chosen['bits']} bits" in page]
    assert len(shown) == 1 and shown[0] != first
    client.post(answer_url(card), {"number": str(shown[0]["bits"] / 8)})
    answer = ReviewAnswer.objects.get(card=card)
    assert answer.right and answer.variant == shown[0]


def test_not_logged_in_is_sent_to_log_in(client, due):
    card = wrong_prediction(make_user())
    due()
    for response in (client.get(reverse("tutor:review")), client.get(item_url(card)),
                     client.post(answer_url(card), {"text": OUTPUT})):
        assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    assert client.post(answer_url(card), {"text": OUTPUT}, **HTMX)["HX-Redirect"].startswith("/accounts/login/")
    assert not ReviewAnswer.objects.exists()


def test_someone_elses_card_is_not_found(client, due):
    card = wrong_prediction(make_user())
    client.force_login(make_user())
    due()
    assert client.get(item_url(card)).status_code == 404
    assert client.post(answer_url(card), {"text": OUTPUT}).status_code == 404
    assert not ReviewAnswer.objects.exists()


def test_an_item_of_a_draft_lesson_is_not_found(client, due):
    user = make_user()
    client.force_login(user)
    card = wrong_prediction(user, make_lesson(status="draft"))
    due()
    assert client.get(item_url(card)).status_code == 404
    assert client.post(answer_url(card), {"text": OUTPUT}).status_code == 404
    assert "Nothing to review today." in client.get(reverse("tutor:review")).text


def test_an_answer_shown_must_be_the_cards_own(client, due):
    user = make_user()
    client.force_login(user)
    card, other = wrong_prediction(user), wrong_choice(user)
    due()
    client.post(answer_url(card), {"text": OUTPUT})
    answer = ReviewAnswer.objects.get()
    assert client.get(f"{item_url(other)}?answer={answer.pk}").status_code == 404


def test_a_class_with_review_off_is_refused(client, due):
    user = make_user()
    cohort = make_cohort(students=[user])
    client.force_login(user)
    card = wrong_prediction(user)
    due()
    for response in (client.get(reverse("tutor:review")), client.get(item_url(card)),
                     client.post(answer_url(card), {"text": OUTPUT})):
        assert response.status_code == 403
        assert "Review is off for your class" in response.text
    assert not ReviewAnswer.objects.exists()
    assert "to review today" not in client.get(reverse("tutor:catalogue")).text
    cohort.review = True
    cohort.save()
    assert client.get(item_url(card)).status_code == 200


@pytest.mark.parametrize(
    ("make", "data", "message"),
    [
        (wrong_prediction, {"text": "   "}, "Type what you think it prints first"),
        (wrong_prediction, {"text": "x" * 6000}, "That prediction is too long"),
        (wrong_choice, {}, "Choose an answer first."),
        (wrong_choice, {"option": "option-0000000000000000"}, "not one of this question"),
    ],
)
def test_a_malformed_answer_is_refused_and_not_counted(client, due, make, data, message):
    user = make_user()
    client.force_login(user)
    card = make(user)
    due()
    before = ReviewCard.objects.get(pk=card.pk).due
    response = client.post(answer_url(card), data, **HTMX)
    assert response.status_code == 400 and message in response.text
    assert response["HX-Retarget"] == "#review-message"
    plain = client.post(answer_url(card), data, follow=True)
    assert message in plain.text
    assert not ReviewAnswer.objects.exists() and ReviewCard.objects.get(pk=card.pk).due == before


def test_a_number_that_is_not_one_is_refused(client, due):
    user = make_user()
    client.force_login(user)
    block = make_question("number", tries=1)
    answer_question(user=user, block=block, answer={"text": "3", "value": 3.0})
    card = ReviewCard.objects.get(user=user)
    due()
    response = client.post(answer_url(card), {"number": "twelve"}, **HTMX)
    assert response.status_code == 400 and "Type a number" in response.text
    assert not ReviewAnswer.objects.exists()


def test_a_card_reviewed_already_is_refused(client, due):
    user = make_user()
    client.force_login(user)
    card = wrong_prediction(user)
    due()
    client.post(answer_url(card), {"text": OUTPUT})
    response = client.post(answer_url(card), {"text": OUTPUT}, **HTMX)
    assert response.status_code == 409 and "reviewed this one already" in response.text
    assert ReviewAnswer.objects.count() == 1
    assert "Not due yet" in client.get(item_url(card)).text


def test_get_only_and_post_only():
    from django.test import Client

    client = Client()
    assert client.post(reverse("tutor:review")).status_code == 405
    assert client.get(reverse("tutor:review_answer", args=[1])).status_code == 405


# Ordering exercises ---------------------------------------------------------------------


def solved_ordering(user, *, wrong_first=False, **fields):
    from tests.factories import make_exercise
    from tutor.practice.ordering.actions import check_order

    exercise = make_exercise(**fields)
    lines = [line.key for line in exercise.lines.filter(position__isnull=False).order_by("position")]
    unused = list(exercise.lines.filter(position__isnull=True).values_list("key", flat=True))
    if wrong_first:
        check_order(user=user, exercise=exercise, order=list(reversed(lines)), unused=unused)
    check_order(user=user, exercise=exercise, order=lines, unused=unused)
    return exercise, ReviewCard.objects.get(user=user, block=exercise.block)


def places(user, exercise, order: list[str]) -> dict[str, str]:
    from tests.factories import line_tokens

    tokens = line_tokens(user, exercise)
    return {f"place-{tokens[key]}": str(n) for n, key in enumerate(order, start=1)}


def test_an_ordering_exercise_comes_back_once_solved_rated_by_its_checks(client, clock):
    import fsrs

    from tutor.review.actions import SCHEDULER

    user = make_user()
    _exercise, first_time = solved_ordering(user)
    _exercise, after_a_wrong = solved_ordering(user, wrong_first=True)
    good, _log = SCHEDULER.review_card(fsrs.Card(due=clock.at), fsrs.Rating.Good, clock.at)
    hard, _log = SCHEDULER.review_card(fsrs.Card(due=clock.at), fsrs.Rating.Hard, clock.at)
    assert (first_time.due, after_a_wrong.due) == (good.due, hard.due)


def test_an_ordering_exercise_at_review_is_graded_by_its_rule(client, due):
    user = make_user()
    client.force_login(user)
    exercise, card = solved_ordering(user, distractors=["fifth"])
    due()
    page = client.get(item_url(card)).text
    main = page.split("<main", 1)[1].split("</main>", 1)[0]  # (the footer's language switch is a select too)
    assert main.count("<select") == 5 and "l1" not in page  # lines named by tokens only
    response = client.post(answer_url(card), places(user, exercise, ["l1", "l2", "l3", "d1", "l4"]), **HTMX)
    assert response.status_code == 200 and "A right order" in response.text
    assert ReviewAnswer.objects.get().rating == 1


def test_an_ordering_exercise_right_at_review(client, due):
    user = make_user()
    client.force_login(user)
    exercise, card = solved_ordering(user, distractors=["fifth"])
    due()
    client.post(answer_url(card), places(user, exercise, ["l1", "l2", "l3", "l4"]))
    answer = ReviewAnswer.objects.get()
    assert answer.right and answer.answer == ["l1", "l2", "l3", "l4"]


def test_an_ordering_graded_by_output_runs_the_program_as_the_lesson_does(client):
    from django.utils import timezone

    from tutor.actions.runs import execute_run

    user = make_user()
    client.force_login(user)
    exercise, card = solved_ordering(
        user, lines=["a = 20", "b = 22", "print(a + b)"], grading="output", expected_output="42\n"
    )
    ReviewCard.objects.filter(pk=card.pk).update(due=timezone.now())  # due now, the runs' clock
    swapped = places(user, exercise, ["l2", "l1", "l3"])  # prints the same: right
    response = client.post(answer_url(card), swapped, **HTMX)
    assert response.status_code == 503 and "being run" in response.text
    assert not ReviewAnswer.objects.exists()
    for run in Run.objects.filter(purpose=Run.Purpose.CHECK, status=Run.Status.QUEUED):
        execute_run(run_id=run.pk)
    assert client.post(answer_url(card), swapped, **HTMX).status_code == 200
    assert ReviewAnswer.objects.get().right


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (lambda p: {}, "Give the lines their places first."),
        (lambda p: {name: "1" for name in p}, "give each line a place of its own"),
        (lambda p: {name: "9" for name in p}, "Give each line a place from 1 to 4"),
        (lambda p: {name: "x" for name in p}, "Give each line a place from 1 to 4"),
    ],
)
def test_a_malformed_order_is_refused(client, due, given, message):
    user = make_user()
    client.force_login(user)
    exercise, card = solved_ordering(user)
    due()
    response = client.post(answer_url(card), given(places(user, exercise, ["l1", "l2", "l3", "l4"])), **HTMX)
    assert response.status_code == 400 and message in response.text
    assert not ReviewAnswer.objects.exists()


# Code exercises --------------------------------------------------------------------------


def passed_exercise(user, *, failed_first=False):
    from course.kinds.code_exercise import CodeExercise, CodeTest
    from tests.factories import make_block
    from tutor.actions.runs import execute_run
    from tutor.practice.code_exercise.actions import submit_code

    block = make_block(make_lesson(), "code_exercise", key="double", body="Print twice the number read.")
    exercise = CodeExercise.objects.create(block=block, starter="n = int(input())\n", solution=DOUBLE)
    CodeTest.objects.create(exercise=exercise, key="two", name="doubles 2", stdin="2\n", stdout="4\n")
    CodeTest.objects.create(exercise=exercise, key="big", name="doubles 50", stdin="50\n", stdout="100\n",
                            shown=CodeTest.Shown.HIDDEN, position=1)
    for code in (["print(4)\n"] if failed_first else []) + [DOUBLE]:
        run_id = submit_code(user=user, exercise=exercise, code=code).run_id
        execute_run(run_id=run_id)
        # A browser test's inline worker may hold the run instead: its verdict, then.
        Run.objects.get(pk=run_id).wait_until_final(30)
    return exercise, ReviewCard.objects.get(user=user, block=block)


DOUBLE = "n = int(input())\nprint(2 * n)\n"


def test_a_code_exercise_comes_back_once_passed_rated_by_its_submissions(clock):
    import fsrs

    from tutor.review.actions import SCHEDULER

    good, _log = SCHEDULER.review_card(fsrs.Card(due=clock.at), fsrs.Rating.Good, clock.at)
    hard, _log = SCHEDULER.review_card(fsrs.Card(due=clock.at), fsrs.Rating.Hard, clock.at)
    assert passed_exercise(make_user())[1].due == good.due
    assert passed_exercise(make_user(), failed_first=True)[1].due == hard.due


def test_a_code_exercise_at_review_is_tested_by_the_worker_and_then_shown(client):
    from django.utils import timezone

    from tutor.actions.runs import execute_run
    from tutor.practice.code_exercise.models import Submission
    from tutor.review.models import CodeReview

    user = make_user()
    client.force_login(user)
    _exercise, card = passed_exercise(user)
    ReviewCard.objects.filter(pk=card.pk).update(due=timezone.now())  # due now, the runs' clock
    page = client.get(item_url(card)).text
    assert "Print twice the number read." in page and "n = int(input())" in page
    assert "print(2 * n)" not in page  # the solution is never on the page
    response = client.post(answer_url(card), {"code": "n = int(input())\nprint(n + 2)\n"})
    review = CodeReview.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(f"?testing={review.pk}")
    waiting = client.get(response["Location"], **HTMX)
    assert "being tested" in waiting.text and 'hx-trigger="load delay:2s"' in waiting.text
    refused = client.post(answer_url(card), {"code": DOUBLE}, **HTMX)
    assert refused.status_code == 503 and "being tested" in refused.text  # one at a time
    execute_run(run_id=review.run_id)
    shown = client.get(response["Location"], **HTMX).text
    answer = ReviewAnswer.objects.get()
    assert not answer.right and answer.score == 0.5 and answer.rating == 2  # half the tests: Hard
    assert "doubles 2" in shown and "passes" in shown and "doubles 50" in shown and "hidden test" in shown
    assert Submission.objects.filter(user=user).count() == 1  # the lesson's submissions: unchanged


def test_empty_code_is_refused(client, due):
    user = make_user()
    client.force_login(user)
    _exercise, card = passed_exercise(user)
    due()
    response = client.post(answer_url(card), {"code": "  \n"}, **HTMX)
    assert response.status_code == 400 and "There is no code to submit" in response.text


def test_a_question_a_running_quiz_asks_waits_until_the_quiz_is_over(client, due):
    from tests.tutor.quiz_world import make_quiz

    user = make_user()
    cohort = make_cohort(students=[user], review=True)
    client.force_login(user)
    card = wrong_choice(user)
    due()
    quiz = make_quiz(cohort, card.block.lesson)
    listed = client.get(reverse("tutor:review")).text
    assert item_url(card) not in listed
    assert client.get(item_url(card)).status_code == 403
    assert client.post(answer_url(card), {"option": "x"}, **HTMX).status_code == 403
    plain = client.post(answer_url(card), {"option": "x"}, follow=True)  # back to the item, refused
    assert plain.status_code == 403 and "part of your quiz" in plain.text
    assert not ReviewAnswer.objects.exists()
    quiz.closed_at = quiz.opens_at
    quiz.save()
    assert item_url(card) in client.get(reverse("tutor:review")).text
    assert client.get(item_url(card)).status_code == 200


def test_a_fill_in_the_code_question_comes_back_and_its_program_is_run_by_the_worker(client):
    from django.utils import timezone

    from tests.tutor.test_code_blanks import work_through_queue

    user = make_user()
    client.force_login(user)
    block = make_question("code_blanks", tries=1)
    wrong = {"bits": "16", "model": "'13b'"}
    with pytest.raises(ProgramRunning):
        answer_question(user=user, block=block, answer=wrong)
    work_through_queue()
    answer_question(user=user, block=block, answer=wrong)  # wrong: the card is made
    card = ReviewCard.objects.get(user=user, block=block)
    ReviewCard.objects.filter(pk=card.pk).update(due=timezone.now())  # due now, the runs' clock
    page = client.get(item_url(card)).text
    assert 'name="blank-bits"' in page and "The filled program must print:" in page and "13.0 GB" in page
    assert "(a right fill" not in page and 'value="16"' not in page

    fills = {"blank-bits": "4 * 2", "blank-model": "'13b'"}
    response = client.post(answer_url(card), fills, **HTMX)
    assert response.status_code == 503 and "being run" in response.text
    assert not ReviewAnswer.objects.exists()  # not counted while it runs
    work_through_queue()
    response = client.post(answer_url(card), fills, **HTMX)
    assert response.status_code == 200 and "Right" in response.text
    answer = ReviewAnswer.objects.get(card=card)
    assert answer.right and answer.rating == 3 and answer.answer["output"] == "13.0 GB\n"


def test_a_fill_in_the_code_answer_that_prints_something_else_is_wrong_at_review(client):
    from django.utils import timezone

    from tests.tutor.test_code_blanks import work_through_queue

    user = make_user()
    client.force_login(user)
    block = make_question("code_blanks", tries=1)
    with pytest.raises(ProgramRunning):
        answer_question(user=user, block=block, answer={"bits": "1", "model": "'7b'"})
    work_through_queue()
    answer_question(user=user, block=block, answer={"bits": "1", "model": "'7b'"})
    card = ReviewCard.objects.get(user=user, block=block)
    ReviewCard.objects.filter(pk=card.pk).update(due=timezone.now())
    fills = {"blank-bits": "16", "blank-model": "'13b'"}
    client.post(answer_url(card), fills, **HTMX)
    work_through_queue()
    response = client.post(answer_url(card), fills, **HTMX)
    assert response.status_code == 200 and "Your filled program printed:" in response.text
    assert "26.0 GB" in response.text and "(a right fill: 8)" in response.text
    assert ReviewAnswer.objects.get(card=card).rating == 1
