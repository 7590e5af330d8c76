"""Questions (multiple choice, checkboxes, number, fill in the blanks): the page, answering
(full page without JavaScript, and the htmx partial), tries counted on the server, nothing
on the page that tells the answer before the question is finished, and progress."""

import re

import pytest
from django.urls import reverse

from tests.factories import make_lesson, make_user
from tests.tutor.question_world import make_question, option_tokens
from tutor.models import LessonProgress
from tutor.practice.questions.actions import QuestionRefused, answer_question
from tutor.practice.questions.answers import option_order, option_token
from tutor.practice.questions.models import QuestionAnswer, QuestionTries

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def answer_url(block) -> str:
    return reverse("tutor:question_answer", args=[block.pk])


def page(client, block) -> str:
    return client.get(block.lesson.get_absolute_url()).content.decode()


def region(html: str, block) -> str:
    start = html.index(f'id="question-{block.key}-practice"')
    return html[start:]


def token(user, block, key: str) -> str:
    return option_token(user.pk, block.pk, key)


# The page -----------------------------------------------------------------------------


def test_a_reader_sees_the_question_and_is_asked_to_log_in(client):
    block = make_question("choice", key="backend")
    html = page(client, block)
    assert "Which backend is fastest on a CPU?" in html
    assert "Log in to answer" in html
    assert "next=" in html and "%23question-backend" in html


def test_a_learner_sees_the_options_in_an_order_of_their_own_the_same_on_every_visit(
    client, learner
):
    block = make_question("choice")
    first, again = option_tokens(page(client, block)), option_tokens(page(client, block))
    order = option_order(block.kind_spec.values_of(block), user_id=learner.pk, block_id=block.pk)
    assert first == again == [token(learner, block, key) for key in order]
    other = make_user()
    others = option_order(block.kind_spec.values_of(block), user_id=other.pk, block_id=block.pk)
    assert sorted(order) == sorted(others)


def test_an_unshuffled_question_keeps_the_files_order(client, learner):
    block = make_question("choice", shuffle=False)
    keys = [option["key"] for option in block.items]
    assert option_tokens(page(client, block)) == [token(learner, block, key) for key in keys]


@pytest.mark.parametrize("kind", ["choice", "checkboxes", "number", "blanks"])
def test_the_page_does_not_tell_the_answer_before_the_question_is_finished(client, learner, kind):
    block = make_question(kind)
    html = page(client, block)
    for secret in [
        "wrong-vllm",
        "Built for CPUs",
        "It needs a GPU",
        "12.5",
        "fp16",
        "16-bit",
        "That is at 16 bits",
        "is-right",
        "Right answer",
    ]:
        assert secret not in html, secret
    assert "<fieldset" in html and "<legend>" in html


# Answering ----------------------------------------------------------------------------


def test_a_right_choice_without_javascript_redirects_to_the_question_and_shows_it_right(
    client, learner
):
    block = make_question("choice", key="backend")
    response = client.post(answer_url(block), {"option": token(learner, block, "llama")})
    assert response.status_code == 302
    assert response["Location"] == f"{block.lesson.get_absolute_url()}#question-backend"
    html = region(page(client, block), block)
    assert "Right, on the first try." in html
    assert "Built for CPUs." in html  # every option's feedback, now that it is finished
    assert "vLLM is fast on NVIDIA, not on a CPU." in html
    assert "disabled" in html  # no more answers
    tries = QuestionTries.objects.get(user=learner, block=block)
    assert tries.tries == 1 and tries.right_at and tries.finished_at and tries.score == 1


def test_a_wrong_choice_with_htmx_gets_the_region_with_its_feedback_and_tries_left(client, learner):
    block = make_question("choice")
    response = client.post(
        answer_url(block), {"option": token(learner, block, "wrong-vllm")}, **HTMX
    )
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith(f'<div id="question-{block.key}-practice"')
    assert "Not right." in html and "1 try left" in html
    assert "vLLM is fast on NVIDIA, not on a CPU." in html  # the chosen option's feedback
    assert "Built for CPUs." not in html and "Right answer" not in html  # not the right one's
    assert 'id="lesson-progress"' in html  # the progress badge, out of band


def test_the_right_option_cannot_be_found_by_posting_each_in_turn(client, learner):
    block = make_question("choice")  # two tries
    for key in ["none", "tgi"]:
        client.post(answer_url(block), {"option": token(learner, block, key)})
    response = client.post(answer_url(block), {"option": token(learner, block, "llama")}, **HTMX)
    assert response.status_code == 409
    assert "You have answered this question" in response.content.decode()
    assert QuestionAnswer.objects.filter(user=learner, block=block).count() == 2
    tries = QuestionTries.objects.get(user=learner, block=block)
    assert tries.right_at is None and tries.finished_at is not None
    html = region(page(client, block), block)
    assert "Right answer" in html and "Built for CPUs." in html  # shown once the tries are used


def test_the_action_refuses_an_answer_once_the_tries_are_used():
    block = make_question("choice", tries=1)
    user = make_user()
    answer_question(user=user, block=block, answer=["tgi"])
    with pytest.raises(QuestionRefused):
        answer_question(user=user, block=block, answer=["llama"])


@pytest.mark.parametrize(
    ("post", "message"),
    [
        ({}, "Choose an answer first."),
        ({"option": "option-0000000000000000"}, "not one of this question"),
    ],
)
def test_a_malformed_choice_is_refused_and_is_not_a_try(client, learner, post, message):
    block = make_question("choice")
    response = client.post(answer_url(block), post, **HTMX)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert response["HX-Retarget"] == f"#question-{block.key}-message"
    assert not QuestionTries.objects.filter(user=learner, block=block, tries__gt=0).exists()


def test_another_learners_option_token_is_not_one_of_yours(client, learner):
    block = make_question("choice")
    other = make_user()
    response = client.post(answer_url(block), {"option": token(other, block, "llama")}, **HTMX)
    assert response.status_code == 400


def test_checkboxes_score_partial_credit_by_their_rule(client, learner):
    block = make_question("checkboxes")
    client.post(
        answer_url(block),
        {"option": [token(learner, block, "llama"), token(learner, block, "vllm")]},
    )
    tries = QuestionTries.objects.get(user=learner, block=block)
    # right-minus-wrong: 1 of 2 right ones (0.5) less 1 of 2 wrong ones (0.5)
    assert tries.score == 0 and tries.finished_at is None
    client.post(answer_url(block), {"option": [token(learner, block, "llama")]})
    tries.refresh_from_db()
    assert tries.score == 0.5 and tries.finished_at is not None and tries.right_at is None
    html = region(page(client, block), block)
    assert "Partly right." in html and "50% of the marks" in html


@pytest.mark.parametrize(
    ("typed", "right"),
    [
        ("12.5", True),
        ("12.6 GB", True),
        (" 12,5 ", None),
        ("1,250", False),
        ("12.9", False),
        ("12.5gb", True),
    ],
)
def test_a_number_is_right_within_its_tolerance_in_its_units(client, learner, typed, right):
    block = make_question("number")
    response = client.post(answer_url(block), {"number": typed}, **HTMX)
    if right is None:
        assert response.status_code == 400
        assert "Write decimals with a point" in response.content.decode()
        return
    assert response.status_code == 200
    assert QuestionAnswer.objects.get(user=learner, block=block).right is right


@pytest.mark.parametrize(
    ("language", "typed", "right"),
    [
        ("de", "12,5", True),
        ("es", "12,6 GB", True),
        ("de", "1,250", False),
        ("de", "12.5", True),
        ("es", "1.250", None),
    ],
)
def test_a_number_is_read_as_the_pages_language_writes_decimals(
    client, learner, language, typed, right
):
    block = make_question("number")
    response = client.post(
        answer_url(block), {"number": typed}, HTTP_ACCEPT_LANGUAGE=language, **HTMX
    )
    if right is None:  # 1.250: twelve hundred and fifty to a Spanish reader, 1.25 to Python
        assert response.status_code == 400
        assert "se puede leer de dos maneras" in response.content.decode()
        assert not QuestionAnswer.objects.filter(user=learner, block=block).exists()
        return
    assert response.status_code == 200
    assert QuestionAnswer.objects.get(user=learner, block=block).right is right


def test_a_common_wrong_number_gets_its_feedback_and_the_answer_after_the_last_try(client, learner):
    block = make_question("number", tries=2)
    html = client.post(answer_url(block), {"number": "25"}, **HTMX).content.decode()
    assert "That is at 16 bits." in html and "12.5" not in html
    html = client.post(answer_url(block), {"number": "3"}, **HTMX).content.decode()
    assert "The right answer: 12.5 GB" in html


def test_blanks_are_marked_one_by_one_and_accept_their_pattern(client, learner):
    block = make_question("blanks")
    html = client.post(
        answer_url(block), {"blank-bits": " Eight ", "blank-format": "bf16"}, **HTMX
    ).content.decode()
    assert "Partly right." in html
    assert re.search(r'class="blank is-right"><input[^>]*name="blank-bits"', html)
    assert re.search(r'class="blank is-wrong"><input[^>]*name="blank-format"', html)
    assert "16-bit" not in html  # a right answer is not shown before the question is finished
    html = client.post(
        answer_url(block), {"blank-bits": "8", "blank-format": "float16"}, **HTMX
    ).content.decode()
    assert "Right, on try 2." in html


def test_an_empty_fill_in_is_refused(client, learner):
    block = make_question("blanks")
    response = client.post(answer_url(block), {"blank-bits": "  "}, **HTMX)
    assert response.status_code == 400 and "Fill in a blank first." in response.content.decode()


def test_answering_needs_an_account(client):
    block = make_question("choice")
    response = client.post(answer_url(block), {"option": "x"})
    assert response.status_code == 302 and "login" in response["Location"]


def test_a_draft_lessons_question_is_not_found_for_a_learner(client, learner):
    block = make_question("choice", make_lesson(status="draft"))
    assert (
        client.post(answer_url(block), {"option": token(learner, block, "llama")}).status_code
        == 404
    )


def test_a_block_that_is_not_a_question_is_not_found(client, learner):
    from tests.factories import make_block

    block = make_block(make_lesson())
    assert client.post(answer_url(block), {}).status_code == 404


def test_get_is_not_allowed(client, learner):
    block = make_question("choice")
    assert client.get(answer_url(block)).status_code == 405


# Progress -----------------------------------------------------------------------------


def test_a_finished_question_counts_in_the_lessons_progress_and_right_ones_are_told_apart(
    client, learner
):
    lesson = make_lesson()
    choice = make_question("choice", lesson)
    number = make_question("number", lesson, tries=1)
    client.post(answer_url(choice), {"option": token(learner, choice, "llama")})
    progress = LessonProgress.objects.get(user=learner, lesson=lesson)
    assert (progress.items_done, progress.items_total) == (1, 2)
    client.post(answer_url(number), {"number": "1"})
    progress.refresh_from_db()
    assert progress.items_done == 2 and progress.completed_at is not None
    assert progress.counts["choice"] == {"total": 1, "done": 1, "right": 1}
    assert progress.counts["number"] == {"total": 1, "done": 1, "right": 0}


def test_my_progress_names_each_kind_of_question_of_a_lesson(client, learner):
    """A lesson with a choice and two number questions: two lines a learner can tell apart
    (they read "0 of 1 question answered" and "0 of 2 questions answered" before)."""
    lesson = make_lesson()
    choice = make_question("choice", lesson)
    make_question("number", lesson, key="first-number")
    make_question("number", lesson, key="second-number")
    client.post(answer_url(choice), {"option": token(learner, choice, "llama")})
    html = client.get(reverse("tutor:my_progress")).content.decode()
    assert "1 of 1 multiple choice question answered (1 right)" in html
    assert "0 of 2 number questions answered (0 right)" in html


def test_a_first_wrong_try_starts_the_lesson(client, learner):
    block = make_question("number")
    client.post(answer_url(block), {"number": "1"})
    progress = LessonProgress.objects.get(user=learner, lesson=block.lesson)
    assert progress.items_done == 0


def test_the_page_costs_the_same_queries_for_one_question_or_many(
    client, learner, django_assert_max_num_queries
):
    """One batch of queries per kind of question, whatever the number of questions."""
    small, big = make_lesson(), make_lesson()
    for kind in ["choice", "checkboxes", "number", "blanks"]:
        make_question(kind, small)
    for kind in ["choice", "checkboxes", "number", "blanks"] * 3:
        make_question(kind, big)
    for block in [*small.blocks.all(), *big.blocks.all()]:
        answer_question(
            user=learner,
            block=block,
            answer={
                "choice": ["tgi"],
                "checkboxes": ["tgi"],
                "number": {"text": "1", "value": 1.0},
                "blanks": {"bits": "1", "format": "x"},
            }[block.kind],
        )
    with django_assert_max_num_queries(100) as small_queries:
        client.get(small.get_absolute_url())
    with django_assert_max_num_queries(len(small_queries)):
        client.get(big.get_absolute_url())


# Assignments --------------------------------------------------------------------------


def assigned(lesson, student, **fields):
    from datetime import timedelta

    from django.utils import timezone

    from tests.factories import make_cohort
    from tutor.assignments.models import Assignment

    now = timezone.now()
    return Assignment.objects.create(
        cohort=make_cohort(students=[student]),
        lesson=lesson,
        opens_at=now - timedelta(minutes=5),
        due_at=now + timedelta(hours=1),
        **fields,
    )


def test_a_closed_book_assignments_questions_stay_open_and_others_are_refused(client):
    learner = make_user()
    block = make_question("choice")
    elsewhere = make_question("choice")
    assigned(block.lesson, learner, closed_book=True)
    client.force_login(learner)  # signed in once the window runs
    client.get(block.lesson.get_absolute_url())  # takes the seat
    response = client.post(answer_url(block), {"option": token(learner, block, "llama")}, **HTMX)
    assert response.status_code == 200 and "Right, on the first try." in response.content.decode()
    refused = client.post(
        answer_url(elsewhere), {"option": token(learner, elsewhere, "llama")}, **HTMX
    )
    assert refused.status_code != 200
    assert not QuestionAnswer.objects.filter(block=elsewhere).exists()


def test_a_closed_assignment_refuses_answers_to_its_questions(client, learner):
    from django.utils import timezone

    block = make_question("choice")
    assigned(block.lesson, learner, closed_at=timezone.now())
    response = client.post(answer_url(block), {"option": token(learner, block, "llama")}, **HTMX)
    assert response.status_code == 403 and "Closed by your teacher" in response.content.decode()
    assert not QuestionAnswer.objects.filter(block=block).exists()
