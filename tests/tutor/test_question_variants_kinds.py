"""Fill in the blanks, choice and checkboxes questions with variants: the same machinery as a
number's (tests/tutor/test_question_variants.py). The text, body and options show the
learner's variant; the program prints the blanks' answers (a JSON object) or the right
options' keys, computed once per variant and kept; the lesson page, a quiz and review grade
against it; the teacher sees the variant; `check_content` runs every variant and refuses
one whose program prints what cannot be read."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from tests.factories import make_cohort, make_lesson, make_teacher, make_user
from tests.tutor.question_world import make_question
from tests.tutor.quiz_world import make_quiz
from tutor.actions.runs import execute_run
from tutor.models import Run
from tutor.practice.questions import variants
from tutor.practice.questions.actions import answer_question
from tutor.practice.questions.answers import option_token
from tutor.practice.questions.models import QuestionAnswer, QuestionVariant
from tutor.quizzes.models import QuizAttempt
from tutor.review.models import ReviewAnswer, ReviewCard

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
BLANKS = {
    "body": "Work it out for {{bits}} bits.",
    "text": "A {{params}}B model at {{bits}} bits takes {{size}} GB.",
    "blanks": [{"key": "size", "answers": []}],
    "parameters": [{"name": "bits", "values": [4, 8, 16]}, {"name": "params", "values": [2]}],
    "program": "import json\nprint(json.dumps({'size': [f'{params * bits / 8:g}']}))\n",
    "tries": 2,
}
CHOICE = {
    "body": "Which model fits in {{memory}} GB at 8 bits?",
    "options": [
        {"key": "small", "text": "a 3B model", "feedback": "3 GB of {{memory}} GB."},
        {"key": "large", "text": "a 13B model"},
        {"key": "neither", "text": "neither"},
    ],
    "parameters": [{"name": "memory", "values": [2, 4, 16]}],
    "program": "fits = [key for key, gb in (('small', 3), ('large', 13)) if gb <= memory]\nprint(fits[-1] if fits else 'neither')\n",
    "tries": 1,
}
CHECKBOXES = {
    "body": "Which models fit in {{memory}} GB at 8 bits?",
    "options": [
        {"key": "small", "text": "a 3B model"},
        {"key": "mid", "text": "a 7B model"},
        {"key": "large", "text": "a 13B model"},
    ],
    "parameters": [{"name": "memory", "values": [8, 16]}],
    "program": "print(' '.join(key for key, gb in (('small', 3), ('mid', 7), ('large', 13)) if gb <= memory))\n",
}


def values_of(block) -> dict:
    return block.kind_spec.values_of(block)


def mine(block, user) -> dict:
    return variants.learner_variant(block, values_of(block), user_id=user.pk)


def work_through_queue() -> None:
    for run_id in Run.objects.filter(status=Run.Status.QUEUED).values_list("pk", flat=True):
        execute_run(run_id=run_id)


def answer_url(block):
    return reverse("tutor:question_answer", args=[block.pk])


def right_choice(memory: int) -> str:
    return "large" if memory >= 13 else "small" if memory >= 3 else "neither"


# Fill in the blanks ----------------------------------------------------------------------


def test_the_blanks_text_shows_the_learners_variant_and_an_answer_is_graded_against_it(client, learner):
    block = make_question("blanks", key="sized", **BLANKS)
    chosen = mine(block, learner)
    html = client.get(block.lesson.get_absolute_url()).text
    assert f"Work it out for {chosen['bits']} bits." in html
    assert f"A 2B model at {chosen['bits']} bits takes" in html and "{{" not in html
    assert 'name="blank-size"' in html and 'name="blank-bits"' not in html

    response = client.post(answer_url(block), {"blank-size": str(chosen["bits"] // 4)}, **HTMX)
    assert response.status_code == 503 and "still being prepared" in response.text
    work_through_queue()
    assert QuestionVariant.objects.get(block=block, parameters=chosen).computed == {"size": [f"{chosen['bits'] / 4:g}"]}
    html = client.post(answer_url(block), {"blank-size": f"{chosen['bits'] / 4:g}"}, **HTMX).text
    assert "Right, on the first try." in html
    row = QuestionAnswer.objects.get(user=learner, block=block)
    assert row.right and row.variant == chosen and row.expected is None


def test_a_wrong_blank_then_the_right_answer_shown_is_the_variants(client, learner):
    block = make_question("blanks", key="sized", **{**BLANKS, "tries": 1})
    variants.check_question(block)
    chosen = mine(block, learner)
    html = client.post(answer_url(block), {"blank-size": "999"}, **HTMX).text
    assert f"{chosen['bits'] / 4:g}" in html and "999" in html
    assert not QuestionAnswer.objects.get(user=learner, block=block).right


def test_the_teacher_sees_the_blanks_variant_beside_the_answer(client):
    teacher, student = make_teacher(), make_user("sam")
    cohort = make_cohort(teacher, students=[student])
    block = make_question("blanks", make_lesson(), key="sized", title="Sized", **BLANKS)
    variants.check_question(block)
    answer_question(user=student, block=block, answer={"size": "5"})
    client.force_login(teacher)
    html = client.get(reverse("tutor:class_student", args=[cohort.pk, student.pk])).text
    chosen = mine(block, student)
    assert f"variant bits={chosen['bits']}, params=2" in html


# Choice and checkboxes -------------------------------------------------------------------


def test_the_choice_shows_the_variant_and_the_programs_key_is_the_right_option(client, learner):
    block = make_question("choice", key="fits", **CHOICE)
    variants.check_question(block)
    memory = mine(block, learner)["memory"]
    html = client.get(block.lesson.get_absolute_url()).text
    assert f"Which model fits in {memory} GB at 8 bits?" in html and "{{" not in html
    right = right_choice(memory)
    wrong = "neither" if right != "neither" else "small"
    html = client.post(answer_url(block), {"option": option_token(learner.pk, block.pk, wrong)}, **HTMX).text
    row = QuestionAnswer.objects.get(user=learner, block=block)
    assert not row.right and row.variant == {"memory": memory}
    assert "is-right" in html  # finished: the right option is marked


def test_each_variant_of_a_choice_grades_by_its_own_right_option():
    block = make_question("choice", key="fits", **CHOICE)
    variants.check_question(block)
    for user in [make_user() for _ in range(8)]:
        right = right_choice(mine(block, user)["memory"])
        assert answer_question(user=user, block=block, answer=[right]).right


def test_checkboxes_take_every_key_the_program_prints(client, learner):
    block = make_question("checkboxes", key="fits", **CHECKBOXES)
    variants.check_question(block)
    memory = mine(block, learner)["memory"]
    right = ["small", "mid"] + (["large"] if memory >= 13 else [])
    tokens = [option_token(learner.pk, block.pk, key) for key in right]
    html = client.post(answer_url(block), {"option": tokens}, **HTMX).text
    assert "Right, on the first try." in html
    assert QuestionAnswer.objects.get(user=learner, block=block).score == 1.0


# check_content ---------------------------------------------------------------------------


def test_check_content_runs_every_variant_of_the_new_kinds():
    lesson = make_lesson()
    make_question("blanks", lesson, key="sized", **BLANKS)
    make_question("choice", lesson, key="fits", **CHOICE)
    out = io.StringIO()
    call_command("check_content", "--lesson", lesson.slug, stdout=out)
    assert "(3 variants, each computed)" in out.getvalue()
    assert QuestionVariant.objects.filter(computed__isnull=False).count() == 6


@pytest.mark.parametrize(
    ("kind", "values", "words"),
    [
        ("blanks", {"program": "print('4')\n"}, "bits=4, params=2: the program's last line is not a JSON object of blanks"),
        ("blanks", {"program": "print('{\"sizes\": 1}')\n"}, "the program gives blank 'size' no answer"),
        ("choice", {"program": "print('huge')\n"}, "memory=2: the program printed 'huge', which is not an option's key"),
        ("choice", {"program": "print('small large')\n"}, "the program printed 2 keys: a choice has one right option"),
    ],
)
def test_check_content_refuses_a_variant_whose_output_cannot_be_read(kind, values, words):
    block = make_question(kind, key="q", **{**(BLANKS if kind == "blanks" else CHOICE), **values})
    out = io.StringIO()
    with pytest.raises(CommandError, match="fail for some variant"):
        call_command("check_content", "--lesson", block.lesson.slug, stdout=out)
    assert words in out.getvalue()


# A quiz and review -----------------------------------------------------------------------


def test_a_quiz_grades_the_choice_and_blanks_by_the_students_variant(client):
    student = make_user()
    cohort = make_cohort(make_teacher(), students=[student])
    lesson = make_lesson()
    choice = make_question("choice", lesson, key="fits", **CHOICE)
    blanks = make_question("blanks", lesson, key="sized", **BLANKS)
    variants.check_question(choice)
    variants.check_question(blanks)
    quiz = make_quiz(cohort, lesson)
    client.force_login(student)
    client.post(reverse("tutor:quiz_begin", args=[quiz.pk]))
    attempt = QuizAttempt.objects.get()
    page = client.get(reverse("tutor:quiz_attempt", args=[attempt.pk])).text
    memory, bits = mine(choice, student)["memory"], mine(blanks, student)["bits"]
    assert f"Which model fits in {memory} GB" in page and f"at {bits} bits takes" in page and "{{" not in page
    data = {
        f"q{choice.pk}-option": option_token(student.pk, choice.pk, right_choice(memory)),
        f"q{blanks.pk}-blank-size": f"{bits / 4:g}",
        "finish": "1",
    }
    client.post(reverse("tutor:quiz_save", args=[attempt.pk]), data)
    client.post(reverse("tutor:quiz_submit", args=[attempt.pk]))
    attempt.refresh_from_db()
    assert attempt.is_submitted and attempt.score == 1.0
    assert {answer.variant["memory"] for answer in attempt.answers.filter(block=choice)} == {memory}


def test_a_blanks_question_with_variants_comes_back_at_review_with_another(client, clock):
    user = make_user()
    client.force_login(user)
    block = make_question("blanks", key="sized", **{**BLANKS, "tries": 1})
    variants.check_question(block)
    first = mine(block, user)
    answer_question(user=user, block=block, answer={"size": "0"})
    card = ReviewCard.objects.get(user=user)
    assert card.last_variant == first
    clock.move(days=2)
    page = client.get(reverse("tutor:review_item", args=[card.pk])).text
    shown = [chosen for chosen in variants.variants_of(block, values_of(block)) if f"at {chosen['bits']} bits takes" in page]
    assert len(shown) == 1 and shown[0] != first
    client.post(reverse("tutor:review_answer", args=[card.pk]), {"blank-size": f"{shown[0]['bits'] / 4:g}"})
    answer = ReviewAnswer.objects.get(card=card)
    assert answer.right and answer.variant == shown[0]


def test_a_choice_with_variants_comes_back_at_review_graded_by_the_new_variant(client, clock):
    user = make_user()
    client.force_login(user)
    block = make_question("choice", key="fits", **CHOICE)
    variants.check_question(block)
    first = mine(block, user)
    wrong = "neither" if right_choice(first["memory"]) != "neither" else "small"
    answer_question(user=user, block=block, answer=[wrong])
    card = ReviewCard.objects.get(user=user)
    clock.move(days=2)
    page = client.get(reverse("tutor:review_item", args=[card.pk])).text
    shown = [chosen for chosen in variants.variants_of(block, values_of(block)) if f"fits in {chosen['memory']} GB" in page]
    assert len(shown) == 1 and shown[0] != first
    right = right_choice(shown[0]["memory"])
    client.post(reverse("tutor:review_answer", args=[card.pk]), {"option": option_token(user.pk, block.pk, right)})
    answer = ReviewAnswer.objects.get(card=card)
    assert answer.right and answer.variant == shown[0]



def test_the_admins_check_outputs_reports_a_choice_variant_naming_no_option(admin_client):
    import re

    block = make_question("choice", key="fits", **{**CHOICE, "program": "print('huge' if memory == 4 else 'small')\n"})
    response = admin_client.post(
        reverse("admin:course_lesson_changelist"),
        {"action": "check_outputs", "_selected_action": [block.lesson.pk]}, follow=True,
    )
    assert "Computing 3 variants" in response.text
    url = re.search(r'href="(/admin/course/lesson/check-outputs/\?runs=[0-9,]+)"', response.text).group(1)
    work_through_queue()
    html = admin_client.get(url).text
    assert "MISMATCH: memory=4: the program printed &#x27;huge&#x27;, which is not an option&#x27;s key" in html
    assert QuestionVariant.objects.filter(block=block, computed__isnull=False).count() == 2


def test_check_content_names_the_file_the_block_and_the_fix():
    block = make_question("blanks", key="sized", **{**BLANKS, "program": "print(1)\n"})
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("check_content", "--lesson", block.lesson.slug, stdout=out)
    lesson = block.lesson
    assert (f"fix: in {lesson.course.slug}/{lesson.slug}.yaml, the block with key 'sized': make its program "
            "print on its last line a JSON object of each blank's answers") in out.getvalue()


@pytest.mark.parametrize("kind", ["choice", "blanks"])
def test_the_hint_ladders_answer_rung_gives_the_learners_variants_answer(client, learner, kind):
    values = {**(CHOICE if kind == "choice" else BLANKS), "hints": ["Compare the sizes."]}
    block = make_question(kind, key="q", **values)
    variants.check_question(block)
    chosen = mine(block, learner)
    hint_url = reverse("tutor:hint_next", args=[block.pk])
    client.post(hint_url, {"rung": "1"}, **HTMX)
    html = client.post(hint_url, {"rung": "2"}, **HTMX).text
    if kind == "choice":
        texts = {"small": "a 3B model", "large": "a 13B model", "neither": "neither"}
        assert f"<li>{texts[right_choice(chosen['memory'])]}</li>" in html
    else:
        assert f"at {chosen['bits']} bits takes <strong>{chosen['bits'] / 4:g}</strong> GB" in html
