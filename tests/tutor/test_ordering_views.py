"""Put it in order: each endpoint as a full page (no JS) and as the htmx partial."""

import json
import re

import pytest
from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from course.kinds.ordering import OrderingLine
from tests.factories import line_keys_by_token, line_tokens, make_exercise, make_lesson, make_user
from tutor.actions.runs import execute_run
from tutor.practice.ordering import actions as actions
from tutor.practice.ordering.board import boards
from tutor.practice.ordering.lines import ExerciseLines, starting_order
from tutor.practice.ordering.models import OrderingArrangement, OrderingAttempt

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def exercise():
    return make_exercise(
        make_lesson(), lines=["alpha", "bravo", "charlie", "delta"], distractors=["echo"], key="abc"
    )


def url(name, exercise):
    return reverse(f"tutor:ordering_{name}", args=[exercise.pk])


def lesson_page(exercise) -> str:
    return exercise.block.lesson.get_absolute_url()


def saved(user, exercise) -> OrderingArrangement:
    return OrderingArrangement.objects.get(user=user, exercise=exercise)


tokens = line_tokens


def keys_by_token() -> dict[str, str]:
    return line_keys_by_token()


def shown_keys(html: str, area: str = "order") -> list[str]:
    """The keys of the lines shown in an area, decoded from the page's tokens."""
    start = html.index(f'data-area="{area}"')
    block = html[start:]
    block = block[: block.index("</ol>" if area == "order" else "</ul>")]
    shown = re.findall(r'<li class="ordering-line[^"]*" data-line="([^"]+)"', block)
    return [keys_by_token()[token] for token in shown]


def marked(html: str, mark: str) -> list[str]:
    shown = re.findall(rf'<li class="ordering-line is-{mark}" data-line="([^"]+)"', html)
    return [keys_by_token()[token] for token in shown]


def arrangement_post(user, exercise, order, unused=()):
    named = tokens(user, exercise)
    return {
        "arrangement": json.dumps(
            {
                "order": [named.get(key, key) for key in order],
                "unused": [named.get(key, key) for key in unused],
            }
        )
    }


def move_post(user, exercise, move: str) -> dict:
    direction, key = move.split(":")
    return {"move": f"{direction}:{tokens(user, exercise).get(key, key)}"}


def assert_refused(client, response, exercise, message: str, *, htmx: bool = False) -> None:
    """The script gets a 400 with the reason; a plain form goes back to the exercise, and
    the lesson page says why."""
    if htmx:
        assert response.status_code == 400
        assert message in response.content.decode()
        return
    assert response.status_code == 302
    assert response["Location"] == f"{lesson_page(exercise)}#exercise-{exercise.block.key}"
    html = client.get(response["Location"]).content.decode()
    assert 'class="message message-error"' in html and message in html


# The lesson page ----------------------------------------------------------------------


def test_a_reader_sees_the_lines_and_an_invitation_to_log_in_that_comes_back(client, exercise):
    html = client.get(lesson_page(exercise)).content.decode()

    assert "Log in to put these lines in order" in html
    login = f"{reverse('login')}?next={lesson_page(exercise)}%23exercise-abc"
    assert f'href="{login}"' in html
    assert "ordering_move" not in html and "data-interactive" not in html
    for text in ["alpha", "bravo", "charlie", "delta", "echo"]:
        assert text in html


def test_logging_in_brings_the_reader_back_to_the_exercise(client, exercise):
    make_user("ada")
    response = client.post(
        f"{reverse('login')}?next={lesson_page(exercise)}%23exercise-abc",
        {"username": "ada", "password": "pw-ada", "next": f"{lesson_page(exercise)}#exercise-abc"},
    )
    assert response.status_code == 302
    assert response["Location"] == f"{lesson_page(exercise)}#exercise-abc"


def test_a_learner_gets_their_own_shuffle_again_on_reload(client, learner, exercise):
    first = shown_keys(client.get(lesson_page(exercise)).content.decode())
    again = shown_keys(client.get(lesson_page(exercise)).content.decode())

    lines = ExerciseLines.of(exercise)
    assert first == again == starting_order(user_id=learner.pk, lines=lines)
    assert [k for k in first if k != "d1"] != ["l1", "l2", "l3", "l4"]


def test_the_page_does_not_give_the_solution_away(client, learner, exercise):
    html = client.get(lesson_page(exercise)).content.decode()
    start = html.index('id="exercise-abc-practice"')
    region = html[start:]
    # Line keys appear in the learner's shuffle only: no positions, no solution order.
    shown = re.findall(r'data-line="([^"]+)"', region)
    assert [keys_by_token()[token] for token in shown] == starting_order(
        user_id=learner.pk, lines=ExerciseLines.of(exercise)
    )
    assert "position" not in region


def test_the_page_costs_the_same_queries_for_one_exercise_or_many(
    client, learner, django_assert_max_num_queries
):
    small, big = make_lesson(), make_lesson()
    make_exercise(small)
    for _ in range(5):
        make_exercise(big, grading="dependencies")
    for lesson in (small, big):
        for block in lesson.blocks.filter(kind="ordering"):
            actions.check_order(user=learner, exercise=block.ordering_exercise)

    with django_assert_max_num_queries(100) as small_queries:
        client.get(small.get_absolute_url())
    with django_assert_max_num_queries(len(small_queries)):
        client.get(big.get_absolute_url())


# Moving lines -------------------------------------------------------------------------


def test_a_move_without_javascript_redirects_back_to_the_exercise(client, learner, exercise):
    start = shown_keys(client.get(lesson_page(exercise)).content.decode())

    response = client.post(url("move", exercise), move_post(learner, exercise, f"up:{start[1]}"))

    assert response.status_code == 302
    assert response["Location"] == f"{lesson_page(exercise)}#exercise-abc"
    assert saved(learner, exercise).order[:2] == [start[1], start[0]]
    assert shown_keys(client.get(lesson_page(exercise)).content.decode())[:2] == [
        start[1],
        start[0],
    ]


def test_an_htmx_move_answers_with_the_region(client, learner, exercise):
    response = client.post(
        url("move", exercise),
        arrangement_post(learner, exercise, ["l1", "l2", "l3", "l4"], ["d1"]),
        **HTMX,
    )

    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="exercise-abc-practice"')
    assert shown_keys(html) == ["l1", "l2", "l3", "l4"]
    assert shown_keys(html, "unused") == ["d1"]
    assert saved(learner, exercise).unused == ["d1"]


@pytest.mark.parametrize(
    "data, message",
    [
        (lambda *_: {"arrangement": "not json"}, "not valid JSON"),
        (lambda *_: {"arrangement": '["l1"]'}, "“order” and “unused”"),
        (
            lambda *who: arrangement_post(*who, ["l1", "l2", "l3", "l4", "zz"], ["d1"]),
            "names a line that is not one of yours",
        ),
        (
            lambda *who: arrangement_post(*who, ["l1", "l2", "l3", "l4", "l1"], ["d1"]),
            "names a line more than once",
        ),
        (lambda *who: arrangement_post(*who, ["l1", "l2", "l3"], ["d1"]), "some are missing"),
        # The content's own keys are no names for lines: only the learner's tokens are.
        (
            lambda *_: {
                "arrangement": json.dumps({"order": ["l1", "l2", "l3", "l4"], "unused": ["d1"]})
            },
            "not one of yours",
        ),
        (lambda *_: {"move": "up:l1"}, "is not a move"),
        (lambda *who: move_post(*who, "sideways:l1"), "is not a move"),
        (lambda *_: {"move": "up:nope"}, "is not a move"),
        (lambda *_: {}, "is not a move"),
    ],
)
def test_a_malformed_move_is_refused_and_changes_nothing(client, learner, exercise, data, message):
    client.post(url("move", exercise), move_post(learner, exercise, "down:l1"))
    before = saved(learner, exercise).order

    for extra in ({}, HTMX):
        response = client.post(url("move", exercise), data(learner, exercise), **extra)
        assert_refused(client, response, exercise, message, htmx=bool(extra))

    assert saved(learner, exercise).order == before


def test_lines_from_another_exercise_are_refused(client, learner, exercise):
    other = make_exercise(lines=["one", "two", "three", "four", "five"])
    theirs = tokens(learner, other)
    response = client.post(
        url("move", exercise),
        {"arrangement": json.dumps({"order": list(theirs.values()), "unused": []})},
        **HTMX,
    )
    assert response.status_code == 400
    assert "names a line that is not one of yours" in response.content.decode()
    assert not OrderingArrangement.objects.filter(exercise=other).exists()


def test_not_used_exists_only_where_there_are_distractors(client, learner):
    plain = make_exercise(lines=["a", "b", "c"])
    response = client.post(url("move", plain), move_post(learner, plain, "leave-out:l1"))
    assert_refused(client, response, plain, "no “Not used” area")
    assert 'data-area="unused"' not in client.get(lesson_page(plain)).content.decode()


def test_learners_move_only_their_own_lines(client, exercise):
    ada, bob = make_user(), make_user()
    client.force_login(ada)
    client.post(
        url("move", exercise), arrangement_post(ada, exercise, ["l4", "l3", "l2", "l1"], ["d1"])
    )
    client.force_login(bob)
    client.post(
        url("move", exercise), arrangement_post(bob, exercise, ["l1", "l2", "l3", "l4", "d1"])
    )
    # Each learner's tokens are their own: Ada's page names nothing on Bob's.
    assert not set(tokens(ada, exercise).values()) & set(tokens(bob, exercise).values())
    response = client.post(
        url("move", exercise),
        arrangement_post(ada, exercise, ["l2", "l1", "l3", "l4", "d1"]),
        **HTMX,
    )
    assert response.status_code == 400

    assert saved(ada, exercise).order == ["l4", "l3", "l2", "l1"]
    assert saved(bob, exercise).order == ["l1", "l2", "l3", "l4", "d1"]
    client.force_login(ada)
    assert shown_keys(client.get(lesson_page(exercise)).content.decode()) == [
        "l4",
        "l3",
        "l2",
        "l1",
    ]


@pytest.mark.parametrize("name", ["move", "check", "help", "reset"])
def test_a_reader_who_is_not_logged_in_is_sent_to_log_in(client, exercise, name):
    login = f"{reverse('login')}?next={lesson_page(exercise)}%23exercise-abc"

    response = client.post(url(name, exercise), {"move": "up:l2"})
    assert response.status_code == 302 and response["Location"] == login

    response = client.post(url(name, exercise), {"move": "up:l2"}, **HTMX)
    assert response["HX-Redirect"] == login
    assert not OrderingArrangement.objects.exists()


def test_the_endpoints_answer_post_only_and_unknown_exercises_404(client, learner, exercise):
    assert client.get(url("move", exercise)).status_code == 405
    assert client.post(reverse("tutor:ordering_check", args=[999999])).status_code == 404


# Checking -----------------------------------------------------------------------------


def test_a_wrong_check_marks_lines_in_order_and_the_first_that_is_not(client, learner, exercise):
    response = client.post(
        url("check", exercise),
        arrangement_post(learner, exercise, ["l1", "l3", "l2", "l4"], ["d1"]),
        **HTMX,
    )
    html = response.content.decode()

    assert "Check 1: not yet." in html
    assert "3 of 4 lines in order" in html
    assert marked(html, "in-order") == ["l1", "l2", "l4"]
    assert marked(html, "first-wrong") == ["l3"]
    assert "Move “charlie” next" in html
    assert "Move this line" in html and "In order" in html
    attempt = OrderingAttempt.objects.get(user=learner)
    assert (attempt.verdict, attempt.lines_in_place) == ("wrong", 3)


def test_lines_in_order_but_not_at_their_place_are_never_called_in_place(client, learner, exercise):
    """The class's case: `def` at line 4 of 8 was marked "✓ In place". Lines in order with
    each other say so; "in place" is for a line at its exact place only."""
    response = client.post(
        url("check", exercise),
        arrangement_post(learner, exercise, ["l4", "l1", "l2", "l3"], ["d1"]),
        **HTMX,
    )
    html = response.content.decode()

    assert marked(html, "in-order") == ["l1", "l2", "l3"]  # none at its own place
    assert "3 of 4 lines in order." in html
    assert "In order</span>" in html
    assert "in place" not in html.lower()


def test_moving_a_line_that_does_not_belong_out_never_lowers_the_count(client, learner, exercise):
    """The class's case: the last line is misplaced at the top and a distractor is in the
    answer; putting the distractor in "Not used" is a right move, and the feedback then
    points at the misplaced line, not at a line that was fine."""
    client.post(
        url("check", exercise),
        arrangement_post(learner, exercise, ["l4", "l1", "d1", "l2", "l3"]),
        **HTMX,
    )
    before = OrderingAttempt.objects.get(user=learner).lines_in_place

    response = client.post(
        url("check", exercise),
        arrangement_post(learner, exercise, ["l4", "l1", "l2", "l3"], ["d1"]),
        **HTMX,
    )
    html = response.content.decode()

    assert before == 3
    assert "3 of 4 lines in order" in html
    assert marked(html, "first-wrong") == ["l4"]
    assert "Move “delta” next" in html


def test_a_check_without_javascript_shows_its_feedback_after_the_redirect(
    client, learner, exercise
):
    client.post(
        url("move", exercise), arrangement_post(learner, exercise, ["l1", "l3", "l2", "l4"], ["d1"])
    )

    response = client.post(url("check", exercise))
    assert response.status_code == 302

    html = client.get(response["Location"]).content.decode()
    assert "Check 1: not yet." in html
    # Moving a line afterwards clears the marks: they described the checked order.
    client.post(url("move", exercise), move_post(learner, exercise, "up:l2"))
    html = client.get(lesson_page(exercise)).content.decode()
    assert "Check 1" not in html and "is-first-wrong" not in html


def test_solved_is_celebrated_and_stays_solved_on_reload(client, learner, exercise):
    response = client.post(
        url("check", exercise),
        arrangement_post(learner, exercise, ["l1", "l2", "l3", "l4"], ["d1"]),
        **HTMX,
    )
    assert "Solved on check 1" in response.content.decode()

    html = client.get(lesson_page(exercise)).content.decode()
    assert "Solved on check 1" in html
    assert "data-interactive" not in html
    assert "Practise again" in html
    response = client.post(url("move", exercise), move_post(learner, exercise, "up:l2"))
    assert_refused(client, response, exercise, "You have solved this one already")


def test_an_output_check_polls_until_the_program_has_run(client, learner):
    exercise = make_exercise(
        lines=['print("a")', 'print("b")'], grading="output", expected_output="a\nb\n", key="out"
    )
    response = client.post(
        url("check", exercise), arrangement_post(learner, exercise, ["l2", "l1"]), **HTMX
    )
    html = response.content.decode()
    assert "checking…" in html
    assert f'hx-get="{url("practice", exercise)}"' in html

    attempt = OrderingAttempt.objects.get(user=learner)
    execute_run(run_id=attempt.run_id)

    html = client.get(url("practice", exercise), **HTMX).content.decode()
    assert "Check 1: not yet." in html
    assert "hx-get" not in html  # polling stops with the result
    assert "What your program printed" in html and "b\na" in html
    assert client.get(url("practice", exercise)).status_code == 302


def test_check_refuses_a_malformed_arrangement(client, learner, exercise):
    response = client.post(url("check", exercise), {"arrangement": "{"}, **HTMX)
    assert response.status_code == 400
    assert not OrderingAttempt.objects.exists()


# Help and start again -----------------------------------------------------------------


def test_help_appears_after_three_wrong_checks_and_takes_a_distractor_away(
    client, learner, exercise
):
    wrong = arrangement_post(learner, exercise, ["l2", "l1", "l3", "l4", "d1"])
    for n in range(3):
        html = client.post(url("check", exercise), wrong, **HTMX).content.decode()
        assert ("Help me" in html) == (n == 2)

    response = client.post(url("help", exercise), **HTMX)
    html = response.content.decode()
    # Said once, in the list of what Help took away, which is announced and focused.
    assert html.count("Help took away") == 1
    assert re.search(
        r'<p class="ordering-removed" role="status" tabindex="-1" data-feedback>'
        r"Help took away 1 line that does not belong: <code>echo</code>",
        html,
    )
    assert "d1" not in shown_keys(html)
    assert 'data-area="unused"' not in html  # no line left that could go there
    assert saved(learner, exercise).help_used == 1

    # Without JavaScript, help redirects and says what it did on the page.
    response = client.post(url("help", exercise))
    assert response.status_code == 302
    html = client.get(response["Location"]).content.decode()
    assert "Help put “alpha” in its place" in html
    assert "Fixed by Help" in html
    assert shown_keys(html)[0] == "l1"


def test_help_before_three_wrong_checks_is_refused(client, learner, exercise):
    response = client.post(url("help", exercise), **HTMX)
    assert_refused(client, response, exercise, "three checks", htmx=True)

    response = client.post(url("help", exercise))
    assert_refused(client, response, exercise, "three checks")


def test_start_again_shuffles_back_to_the_start(client, learner, exercise):
    client.post(
        url("check", exercise),
        arrangement_post(learner, exercise, ["l1", "l2", "l3", "l4"], ["d1"]),
    )

    html = client.post(url("reset", exercise), **HTMX).content.decode()
    assert "back where they started" in html
    assert "data-interactive" in html
    assert shown_keys(html) == starting_order(user_id=learner.pk, lines=ExerciseLines.of(exercise))
    assert client.post(url("reset", exercise)).status_code == 302


def test_a_deeply_nested_or_huge_arrangement_is_refused_clearly(client, learner, exercise):
    for raw, message in [
        ("[" * 5_000, "not valid JSON"),
        ("[" * 200_000, "too long"),
        (json.dumps({"order": ["l1"] * 3_000, "unused": []}), "too long"),
    ]:
        for extra in ({}, HTMX):
            response = client.post(url("move", exercise), {"arrangement": raw}, **extra)
            assert_refused(client, response, exercise, message, htmx=bool(extra))
            response = client.post(url("check", exercise), {"arrangement": raw}, **extra)
            assert_refused(client, response, exercise, message, htmx=bool(extra))
    assert not OrderingAttempt.objects.exists()


def test_a_check_refused_for_too_many_runs_keeps_the_move_and_says_why(client, learner, settings):
    settings.RUNS_PER_MINUTE = 0
    exercise = make_exercise(
        lines=['print("a")', 'print("b")', 'print("c")'], grading="output", key="out"
    )
    start = starting_order(user_id=learner.pk, lines=ExerciseLines.of(exercise))
    moved = next(order for order in (["l2", "l1", "l3"], ["l3", "l2", "l1"]) if order != start)
    response = client.post(url("check", exercise), arrangement_post(learner, exercise, moved))

    assert response["Location"] == f"{lesson_page(exercise)}#exercise-out"
    html = client.get(response["Location"]).content.decode()
    assert "runs in the last minute" in html
    assert shown_keys(html) == moved


# The exercise's lines edited while a learner is on it ---------------------------------


def checked_midway(client, learner, exercise) -> None:
    """A learner who moved lines and pressed Check, then left."""
    client.post(
        url("check", exercise),
        arrangement_post(learner, exercise, ["l2", "l1", "l3", "l4"], ["d1"]),
    )
    assert OrderingAttempt.objects.filter(exercise=exercise).count() == 1


def test_a_line_removed_from_the_exercise_does_not_break_the_page(client, learner, exercise):
    checked_midway(client, learner, exercise)
    exercise.lines.filter(key="l2").delete()  # the line the check marked "first not in place"

    response = client.get(lesson_page(exercise))
    assert response.status_code == 200
    html = response.content.decode()
    assert shown_keys(html) == ["l1", "l3", "l4"]
    assert "is-first-wrong" not in html  # marks for the old lines would point at nothing

    assert (
        client.post(url("move", exercise), move_post(learner, exercise, "up:l4")).status_code == 302
    )
    assert saved(learner, exercise).order == ["l1", "l4", "l3"]
    response = client.post(
        url("check", exercise),
        arrangement_post(learner, exercise, ["l1", "l3", "l4"], ["d1"]),
        **HTMX,
    )
    assert response.status_code == 200
    assert "Solved on check 2" in response.content.decode()
    assert client.get(lesson_page(exercise)).status_code == 200


def test_a_line_added_to_the_exercise_joins_the_learners_answer(client, learner, exercise):
    checked_midway(client, learner, exercise)
    exercise.lines.create(key="l5", text="foxtrot", position=5)

    response = client.get(lesson_page(exercise))
    assert response.status_code == 200
    assert shown_keys(response.content.decode()) == ["l2", "l1", "l3", "l4", "l5"]

    response = client.post(url("move", exercise), move_post(learner, exercise, "up:l5"))
    assert response.status_code == 302
    assert saved(learner, exercise).order == ["l2", "l1", "l3", "l5", "l4"]
    html = client.post(url("check", exercise), **HTMX).content.decode()
    assert "Check 2: not yet." in html
    response = client.post(
        url("check", exercise),
        arrangement_post(learner, exercise, ["l1", "l2", "l3", "l4", "l5"], ["d1"]),
        **HTMX,
    )
    assert "Solved on check 3" in response.content.decode()


def test_help_that_took_a_line_away_says_it_once_without_javascript(client, learner, exercise):
    wrong = arrangement_post(learner, exercise, ["l2", "l1", "l3", "l4", "d1"])
    for _ in range(3):
        client.post(url("check", exercise), wrong)
    response = client.post(url("help", exercise))
    html = client.get(response["Location"]).content.decode()
    assert html.count("Help took away") == 1
    assert "Help took away 1 line that does not belong: <code>echo</code>" in html


def test_signing_up_from_an_exercise_comes_back_to_it(client, exercise):
    html = client.get(lesson_page(exercise)).content.decode()
    href = re.search(r'<a href="([^"]+)">Sign up</a> — it takes a minute', html).group(1)
    response = client.post(
        href.replace("&amp;", "&"),
        {
            "username": "newbie",
            "password1": "a-long-passphrase-42",
            "password2": "a-long-passphrase-42",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == f"{lesson_page(exercise)}#exercise-abc"


def test_solving_brings_the_lessons_new_progress_badge_out_of_band(client, learner, exercise):
    solution = arrangement_post(learner, exercise, ["l1", "l2", "l3", "l4"], ["d1"])
    html = client.post(url("check", exercise), solution, **HTMX).content.decode()
    assert "Solved" in html
    badge = html.split('<div id="lesson-progress" class="lesson-progress" hx-swap-oob="true">')[1]
    assert "Complete" in badge


def test_the_exercise_region_is_never_stored_by_the_browser(client, learner, exercise):
    assert "no-store" in client.get(url("practice", exercise), **HTMX)["Cache-Control"]


def test_a_reader_not_logged_in_never_sees_a_dependencies_exercise_already_solved(client):
    # the reader's scramble once ignored the dependencies, so every order counted as
    # solved and the last shuffle was shown, the authored order among them (1 in 6 here):
    # thirty exercises, each with its own shuffle, leave that bug nowhere to hide
    lesson = make_lesson()
    exercises = []
    for _ in range(30):
        exercise = make_exercise(lesson, lines=["x = 2", "y = 3", "print(x + y)"],
                                 distractors=["print(x - y)"], grading="dependencies")  # fmt: skip
        needs = OrderingLine.objects.filter(exercise=exercise, key__in=["l1", "l2"])
        exercise.lines.get(key="l3").depends_on.set(needs)
        exercises.append(exercise)
    shown = boards(AnonymousUser(), exercises, lesson_url=lesson.get_absolute_url())
    for exercise in exercises:
        order = [line.key for line in shown[exercise.pk].order if not line.key.startswith("d")]
        assert not ExerciseLines.of(exercise).is_solved_without_running(order), order


UNREACHABLE = {
    "lines": ["def total(a, b):", "    return a + b", "print(total(2, 3))"],
    "distractors": ["    print('never runs')"],  # after the return: changes no output
    "grading": "output",
    "expected_output": "5\n",
}


def test_a_line_that_does_not_belong_is_wrong_even_where_the_output_is_right(client, learner):
    """The class's case: the distractor left in after a `return` prints nothing, so the
    program's output is right; the check is still "not yet", names the line, runs nothing."""
    exercise = make_exercise(**UNREACHABLE, key="unreachable")

    response = client.post(
        url("check", exercise), arrangement_post(learner, exercise, ["l1", "l2", "d1", "l3"]), **HTMX
    )
    html = response.content.decode()

    assert "Check 1: not yet." in html and "Solved" not in html
    assert "“print(&#x27;never runs&#x27;)” doesn&#x27;t belong in this program" in html
    assert "move it to “Not used”" in html
    attempt = OrderingAttempt.objects.get(user=learner)
    assert (attempt.verdict, attempt.run) == ("wrong", None)
    assert saved(learner, exercise).solved_at is None
    html = client.get(lesson_page(exercise)).content.decode()
    assert "Check 1: not yet." in html and "Solved on check" not in html


def test_an_output_check_queued_with_a_line_that_does_not_belong_settles_wrong(learner):
    """A check waiting for its run when this rule came in: the run prints the right output,
    the verdict is still wrong."""
    exercise = make_exercise(**UNREACHABLE, key="unreachable")
    order = ["l1", "l2", "d1", "l3"]
    lines = ExerciseLines.of(exercise)
    run = actions.queue_run(code=lines.program(order), user=learner, purpose="check")
    OrderingArrangement.objects.create(user=learner, exercise=exercise, order=order, checks=1)
    attempt = OrderingAttempt.objects.create(
        user=learner, exercise=exercise, order=order, verdict="pending", run=run
    )
    execute_run(run_id=run.pk)
    run.refresh_from_db()
    assert run.stdout == "5\n"

    assert actions.settle_check(attempt=attempt).verdict == "wrong"
    assert saved(learner, exercise).solved_at is None
