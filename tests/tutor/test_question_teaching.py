"""What teachers see of questions: each option's share in the item analysis, wrong answers
grouped (a wrong option, a wrong number), the live view's record, a student's timeline and
the attempts CSV; and answers sent at once counted one by one."""

import threading

import pytest
from django.urls import reverse

from tests import threads
from tests.factories import make_cohort, make_lesson, make_teacher, make_user
from tests.tutor.question_world import make_question
from tutor import practice
from tutor.live.models import LessonActivity
from tutor.practice.questions.actions import QuestionRefused, answer_question
from tutor.practice.questions.models import QuestionAnswer, QuestionTries

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    teacher = make_teacher()
    students = [make_user(f"s{n}") for n in range(4)]
    cohort = make_cohort(teacher, students=students)
    lesson = make_lesson()
    choice = make_question("choice", lesson, key="backend", title="Fastest on a CPU")
    number = make_question("number", lesson, key="kv", title="KV cache")
    # Three first answers: vLLM, vLLM, llama.cpp; s0 then gets it right.
    answer_question(user=students[0], block=choice, answer=["wrong-vllm"])
    answer_question(user=students[1], block=choice, answer=["wrong-vllm"])
    answer_question(user=students[2], block=choice, answer=["llama"])
    answer_question(user=students[0], block=choice, answer=["llama"])
    answer_question(user=students[1], block=number, answer={"text": "25", "value": 25.0})
    answer_question(user=students[2], block=number, answer={"text": "25 GB", "value": 25.0})
    answer_question(user=students[3], block=number, answer={"text": "12.5", "value": 12.5})
    return {"teacher": teacher, "students": students, "cohort": cohort, "lesson": lesson,
            "choice": choice, "number": number}


def test_the_item_analysis_shows_each_options_share_of_first_answers(client, world):
    client.force_login(world["teacher"])
    url = reverse("tutor:class_lesson", args=[world["cohort"].pk, world["lesson"].pk])
    html = client.get(url).content.decode()
    assert "Fastest on a CPU" in html
    assert "2 of 3 who answered got it right (67%)" in html
    assert "vLLM — 67%" in html and "llama.cpp (right) — 33%" in html and "TGI — 0%" in html
    assert "1 of 3 who answered got it right (33%)" in html  # the number
    assert "25 GB" in html or "25" in html


def test_a_wrong_option_and_a_wrong_number_are_groups(world):
    from django.db.models import Q

    in_class = Q(user__memberships__cohort=world["cohort"])
    choice = practice.get("choice").clusters(in_class=in_class, blocks=[world["choice"]])[world["choice"].pk]
    assert choice.right == 2  # s0 (right on the second try) and s2
    [group] = choice.groups
    assert group.description == "Chose `vLLM`" and group.count == 1
    number = practice.get("number").clusters(in_class=in_class, blocks=[world["number"]])[world["number"].pk]
    [group] = number.groups
    assert group.count == 2 and "25" in group.description  # "25" and "25 GB" alike
    assert number.right_answer == "12.5 GB"


def test_a_learners_panel_is_in_the_group_their_teacher_sees(world):
    from tutor.practice.questions.state import states

    student = world["students"][1]
    state = states([world["choice"]], user=student)[world["choice"].pk]
    block_id, group = practice.get("choice").cluster_of(state)
    from django.db.models import Q

    groups = practice.get("choice").clusters(
        in_class=Q(user__memberships__cohort=world["cohort"]), blocks=[world["choice"]]
    )[block_id].groups
    assert group.key in [g.key for g in groups]


def test_the_live_view_records_each_answer(world):
    activity = LessonActivity.objects.get(user=world["students"][1], lesson=world["lesson"])
    assert activity.what == "answered number — wrong" and activity.failures == 1
    activity = LessonActivity.objects.get(user=world["students"][3], lesson=world["lesson"])
    assert activity.what == "answered number — right" and activity.done


def test_the_timeline_and_the_attempts_csv_show_the_answers(client, world):
    client.force_login(world["teacher"])
    student = world["students"][0]
    html = client.get(reverse("tutor:class_student", args=[world["cohort"].pk, student.pk])).content.decode()
    assert "Answered “Fastest on a CPU” (try 2)" in html
    csv = b"".join(client.get(reverse("tutor:class_attempts_csv", args=[world["cohort"].pk])).streaming_content).decode()
    assert "choice,s0" in csv and "vLLM" in csv and "number,s2" in csv and "25 GB" in csv


@pytest.mark.django_db(transaction=True)
def test_answers_sent_at_once_are_counted_one_by_one():
    """Six answers to a question of two tries, all at once: at most two are graded."""
    block = make_question("choice", tries=2)
    user = make_user()
    barrier = threading.Barrier(6)
    outcomes = []

    def answer(key):
        barrier.wait()
        try:
            answer_question(user=user, block=block, answer=[key])
            outcomes.append("graded")
        except QuestionRefused:
            outcomes.append("refused")

    started = [threads.start(answer, key) for key in ["none", "tgi", "wrong-vllm", "none", "tgi", "llama"]]
    for thread in started:
        thread.join(60)
    answers = list(QuestionAnswer.objects.filter(user=user, block=block))
    tries = QuestionTries.objects.get(user=user, block=block)
    # Two tries were used, or one that was right: never a third answer graded.
    assert len(answers) == 2 or (len(answers) == 1 and answers[0].right)
    assert outcomes.count("graded") == tries.tries == len(answers)
    assert outcomes.count("refused") == 6 - len(answers)
    assert tries.finished_at is not None
