"""Predict, reveal, run and draft endpoints: full page (plain POST) and htmx partial."""

import re
from datetime import timedelta
from urllib.parse import quote

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from course.pages import forget_loaded_content
from tests.factories import make_lesson, make_prediction, make_run, make_snippet, make_user
from tutor import queueing, tasks
from tutor.actions.runs import execute_run
from tutor.live.models import LessonActivity
from tutor.models import LessonProgress, Run
from tutor.practice.snippet.models import CodeDraft, Prediction, VersionPrediction

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}
CODE = 'print("first")\nprint("second")\n'
OUTPUT = "first\nsecond\n"


@pytest.fixture
def snippet():
    return make_snippet(code=CODE, expected_output=OUTPUT, key="two-lines")


def lesson_url(snippet):
    return snippet.block.lesson.get_absolute_url()


def predict(client, snippet, text="first\nsecond", mode="typed", **headers):
    return client.post(
        reverse("tutor:prediction_create", args=[snippet.pk]),
        {"text": text, "mode": mode},
        **headers,
    )


def revealed(user, snippet, **fields):
    return make_prediction(user, snippet, text=OUTPUT, verdict=Prediction.Verdict.RIGHT, **fields)


# The lesson page ----------------------------------------------------------------------


def test_anonymous_readers_are_invited_to_log_in_and_come_back_to_the_snippet(client, snippet):
    html = client.get(lesson_url(snippet)).content.decode()
    next_url = lesson_url(snippet) + "%23snippet-two-lines"
    assert f'href="/accounts/login/?next={next_url}"' in html
    assert "prediction-form" not in html
    assert 'name="code"' not in html


def test_the_login_link_brings_the_reader_back_to_the_snippet(client, snippet):
    user = make_user()
    response = client.post(
        "/accounts/login/?next=" + quote(lesson_url(snippet) + "#snippet-two-lines", safe=""),
        {
            "username": user.username,
            "password": "pw-" + user.username,
            "next": lesson_url(snippet) + "#snippet-two-lines",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == lesson_url(snippet) + "#snippet-two-lines"


def test_before_reveal_the_page_offers_a_prediction_and_never_the_answer(client, learner, snippet):
    # Another learner already revealed it: the cached real output exists.
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout="first\nsecond (really)\n")
    snippet.expected_output = "declared first\ndeclared second\n"
    snippet.save()
    html = client.get(lesson_url(snippet)).content.decode()
    assert "What will it print?" in html
    assert "I said it out loud" in html
    assert "second (really)" not in html
    assert "declared second" not in html
    assert "What it prints" not in html
    assert 'name="code"' not in html  # the editor comes after the reveal


def test_after_reveal_the_page_shows_the_answer_and_the_learners_own_code(client, learner, snippet):
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    make_prediction(learner, snippet, text="first\nthird", verdict=Prediction.Verdict.PENDING)
    CodeDraft.objects.create(user=learner, snippet=snippet, code='print("mine")\n')
    html = client.get(lesson_url(snippet)).content.decode()
    assert "What it prints" in html
    assert "Not quite: 1 of 2 lines right, 1 different." in html
    assert "print(&quot;mine&quot;)" in html
    assert "Your changes are saved." in html
    # A page view never writes: a verdict still waiting (its worker stopped before giving
    # it) is given by the repair sweep, not by the page.
    assert Prediction.objects.get().verdict == Prediction.Verdict.PENDING
    tasks.fail_stale_runs()
    assert Prediction.objects.get().verdict == Prediction.Verdict.WRONG


def test_the_lesson_page_costs_the_same_queries_for_one_snippet_or_many(
    client, learner, django_assert_num_queries
):
    small, big = make_lesson(), make_lesson()
    make_snippet(small)
    for n in range(5):
        snippet = make_snippet(big, code=f"print({n})\n")
        revealed(learner, snippet)
        make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=f"{n}\n")
        CodeDraft.objects.create(user=learner, snippet=snippet, code=f"print({n + 1})\n")
    client.get(big.get_absolute_url())  # warm: session, user
    cache.clear()  # both rendered from scratch: the content's queries count too
    forget_loaded_content()
    # One of them is the learner's hand (the "Raise hand" button, tutor.live), which also
    # tells that the learner is in no class: no query for assignments.
    with django_assert_num_queries(10) as small_queries:
        assert client.get(small.get_absolute_url()).status_code == 200
    cache.clear()
    forget_loaded_content()
    with django_assert_num_queries(len(small_queries.captured_queries) + 1):
        # one more: the shared reveal runs, needed once anything is revealed
        assert client.get(big.get_absolute_url()).status_code == 200


def test_the_preview_of_a_snippets_answer_opens_once_the_learner_revealed_it(
    client, learner, snippet
):
    lesson = snippet.block.lesson
    lesson.what_you_will_see = OUTPUT
    lesson.save()
    assert '<details class="what-you-will-see is-answer">' in client.get(lesson_url(snippet)).text
    revealed(learner, snippet)
    html = client.get(lesson_url(snippet)).text
    assert '<details class="what-you-will-see' not in html
    assert '<section class="what-you-will-see"' in html


def test_the_preview_stays_folded_for_learners_who_have_not_revealed_it(client, learner, snippet):
    """The page's content is cached; whether the preview is folded is each learner's own."""
    lesson = snippet.block.lesson
    lesson.what_you_will_see = OUTPUT
    lesson.save()
    revealed(learner, snippet)
    assert '<section class="what-you-will-see"' in client.get(lesson_url(snippet)).text
    other = Client()
    other.force_login(make_user())
    assert '<details class="what-you-will-see is-answer">' in other.get(lesson_url(snippet)).text
    assert '<details class="what-you-will-see is-answer">' in Client().get(lesson_url(snippet)).text


def assigned_to_learner(learner, snippet, **fields):
    from tests.tutor.assignment_world import assign, class_of

    cohort = class_of(learner)
    return assign(cohort, snippet.block.lesson, **fields)


@pytest.mark.parametrize("how", ["whole lesson", "that snippet", "closed book"])
def test_the_preview_of_an_assigned_prediction_is_not_on_the_page_until_it_is_made(
    client, learner, snippet, how
):
    """Folded is not enough for graded work: the answer is not sent until the prediction is."""
    lesson = snippet.block.lesson
    lesson.what_you_will_see = OUTPUT
    lesson.save()
    fields = {"blocks": [snippet.block]} if how == "that snippet" else {}
    assigned_to_learner(learner, snippet, closed_book=how == "closed book", **fields)
    html = client.get(lesson_url(snippet)).text
    assert "What you will see" in html
    assert "Shown once you have made your prediction for" in html
    assert "part of your assignment" in html
    preview = html.split('id="what-you-will-see"')[1].split("</section>")[0]
    assert "<pre" not in preview and "<details" not in html.split('id="what-you-will-see"')[0][-300:]
    predict(client, snippet)
    html = client.get(lesson_url(snippet)).text
    assert '<section class="what-you-will-see"' in html
    assert "Shown once you have made your prediction" not in html


def test_the_preview_stays_folded_for_reading_and_for_an_assignment_of_other_items(
    client, learner, snippet
):
    lesson = snippet.block.lesson
    lesson.what_you_will_see = OUTPUT
    lesson.save()
    html = client.get(lesson_url(snippet)).text
    assert '<details class="what-you-will-see is-answer">' in html  # ungraded reading: folded
    other = make_snippet(lesson, key="other")
    assigned_to_learner(learner, snippet, blocks=[other.block])
    assert '<details class="what-you-will-see is-answer">' in client.get(lesson_url(snippet)).text


def test_the_preview_of_a_closed_assignments_prediction_is_folded_again(client, learner, snippet):
    lesson = snippet.block.lesson
    lesson.what_you_will_see = OUTPUT
    lesson.save()
    assigned_to_learner(learner, snippet, closed_at=timezone.now())
    assert '<details class="what-you-will-see is-answer">' in client.get(lesson_url(snippet)).text


@pytest.mark.parametrize("run_id", ["²", "abc", "-1", "9" * 30, "9" * 5000])
def test_a_run_number_the_page_cannot_read_is_ignored(client, learner, snippet, run_id):
    revealed(learner, snippet)
    response = client.get(lesson_url(snippet), {"run": run_id})
    assert response.status_code == 200
    assert "run-stdout" not in response.content.decode()


# Predict and reveal -------------------------------------------------------------------


def test_anonymous_cannot_predict(client, snippet):
    response = predict(client, snippet)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert not Prediction.objects.exists()


def test_plain_post_stores_the_prediction_and_returns_to_the_snippet(client, learner, snippet):
    response = predict(client, snippet)
    assert response.status_code == 302
    assert response["Location"] == lesson_url(snippet) + "#snippet-two-lines"
    prediction = Prediction.objects.get()
    assert (prediction.text, prediction.is_first, prediction.snippet_version) == (
        "first\nsecond",
        True,
        1,
    )
    assert prediction.verdict == Prediction.Verdict.PENDING
    assert Run.objects.get().purpose == Run.Purpose.REVEAL


def test_htmx_reveal_with_a_known_output_shows_output_and_comparison(client, learner, snippet):
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout="\n" + OUTPUT)
    response = predict(client, snippet, text="first\nsecond", **HX)
    html = response.content.decode()
    assert response.status_code == 200
    assert html.lstrip().startswith('<div id="snippet-two-lines-practice"')
    assert "What it prints" in html
    assert "↵ (empty line)" in html
    assert "the first <code>print()</code> prints one" in html
    assert 'name="code"' in html  # now the code is theirs to change
    assert "hx-trigger" not in html.split('id="snippet-two-lines-answer"')[1].split(">")[0]
    assert Prediction.objects.get().verdict == Prediction.Verdict.WRONG
    assert Run.objects.count() == 1  # the cached output was reused


def test_a_reveal_whose_output_is_known_stores_its_verdict_at_once_in_a_short_transaction(
    client, learner, snippet, django_assert_num_queries
):
    """The output made ahead, the prediction is compared before its transaction: it is
    inserted with its verdict (never pending, never settled after), the live view is told
    once, and the panel is drawn from the prediction and run in hand."""
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    with django_assert_num_queries(20) as queries:
        response = predict(client, snippet, text="first\nsecond", **HX)
    assert response.status_code == 200 and "comparison-right" in response.content.decode()
    statements = [query["sql"] for query in queries.captured_queries]
    assert not [sql for sql in statements if sql.startswith('UPDATE "tutor_prediction"')]
    assert len([sql for sql in statements if "tutor_lessonactivity" in sql]) == 1
    assert Prediction.objects.get().verdict == Prediction.Verdict.RIGHT
    activity = LessonActivity.objects.get(user=learner)
    assert (activity.what, activity.done) == ("predicted — right", True)
    assert LessonProgress.objects.get(user=learner).predictions_right == 1


@pytest.mark.parametrize("headers", [HX, {}])
def test_two_swapped_lines_are_named_right_lines_wrong_order(client, learner, snippet, headers):
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    response = predict(client, snippet, text="second\nfirst", **headers)
    if not headers:
        response = client.get(response.url)
    html = response.content.decode()
    assert "Not quite: right lines, wrong order — 1 line is in a different place." in html
    assert '<tr class="line line-moved">' in html and "in another place" in html
    assert "line-extra" not in html and "line-missing" not in html


def test_a_reveal_brings_the_lessons_new_progress_badge_out_of_band(client, learner, snippet):
    make_snippet(snippet.block.lesson)  # a second snippet: one of two is half done
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    html = predict(client, snippet, **HX).content.decode()
    badge = html.split('<div id="lesson-progress" class="lesson-progress" hx-swap-oob="true">')[1]
    assert "50% done" in badge
    # Without htmx the page is reloaded, badge and all: no out-of-band piece.
    assert "hx-swap-oob" not in client.get(lesson_url(snippet)).content.decode()


def test_a_second_prediction_from_an_out_of_date_page_says_it_does_not_count(
    client, learner, snippet
):
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    predict(client, snippet, text="first\nsecond", **HX)  # tab A
    html = predict(client, snippet, text="something else", **HX).content.decode()  # tab B
    assert "You had already predicted this snippet" in html
    assert "does not count" in html
    assert "Spot on" in html  # the first prediction's result, now said to be that
    assert list(Prediction.objects.values_list("text", "is_first")) == [
        ("first\nsecond", True),
        ("something else", False),
    ]
    # Without JavaScript: the same words, on the lesson page.
    response = predict(client, snippet, text="a third", follow=True)
    assert "You had already predicted this snippet" in response.content.decode()


def test_the_first_prediction_gets_no_such_notice(client, learner, snippet):
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    assert "already predicted" not in predict(client, snippet, **HX).content.decode()


@pytest.mark.parametrize("name", ["lesson", "prediction", "run"])
def test_practice_pages_and_partials_are_never_stored_by_the_browser(
    client, learner, snippet, name
):
    prediction = revealed(learner, snippet)
    run = make_run(snippet, user=learner)
    url = {
        "lesson": lesson_url(snippet),
        "prediction": reverse("tutor:prediction_detail", args=[prediction.pk]),
        "run": reverse("tutor:run_detail", args=[run.pk]),
    }[name]
    response = client.get(url, **HX)
    assert "no-store" in response["Cache-Control"]


def test_htmx_reveal_still_running_answers_with_a_poller_and_no_answer(client, learner, snippet):
    response = predict(client, snippet, **HX)
    html = response.content.decode()
    prediction = Prediction.objects.get()
    poll_url = reverse("tutor:prediction_detail", args=[prediction.pk])
    assert f'hx-get="{poll_url}"' in html
    assert (
        'hx-trigger="load delay:50ms, parsnip:retry"' in html
    )  # the server waits for the run (long poll)
    assert "Running the snippet" in html
    assert "real-output" not in html
    assert "Spot on" not in html


def test_said_out_loud_reveals_then_asks_for_an_honest_self_check(client, learner, snippet):
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    html = predict(client, snippet, text="", mode="aloud", **HX).content.decode()
    assert "You said it out loud." in html
    assert "I got it" in html and "I didn't" in html
    assert Prediction.objects.get().verdict == Prediction.Verdict.SELF_UNCHECKED


def test_a_prediction_as_long_as_the_textarea_allows_is_accepted(client, learner, snippet):
    # The browser counts a line break as one character and sends it as two (CRLF).
    text = "\r\n".join(["x" * 99] * 50)  # 4,999 characters in the textarea
    assert predict(client, snippet, text=text, **HX).status_code == 200
    assert Prediction.objects.get().text == text.replace("\r\n", "\n")


def test_the_prediction_box_shows_its_limit(client, learner, snippet):
    html = client.get(lesson_url(snippet)).content.decode()
    assert 'maxlength="5000"' in html
    assert "Up to 5,000 characters." in html


def test_the_verdict_comes_before_the_outputs(client, learner, snippet):
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    html = predict(client, snippet, text="first\nthird", **HX).content.decode()
    assert html.index("Not quite: 1 of 2 lines right") < html.index(">Your prediction<")
    assert "comparison-more" not in html  # short: nothing folded


def test_a_long_comparison_folds_after_forty_lines(client, learner, snippet):
    output = "".join(f"line {n}\n" for n in range(1, 101))
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=output)
    html = predict(client, snippet, text="line 1\n", **HX).content.decode()
    shown, folded = html.split('<details class="comparison-more">')
    assert html.index("Not quite: 1 of 100 lines right, 99 missing.") < html.index(
        ">Your prediction<"
    )
    assert shown.count('<tr class="line ') == 40
    assert "<summary>Show the other 60 lines</summary>" in folded
    assert folded.count('<tr class="line ') == 60


@pytest.mark.parametrize(
    ("text", "message"),
    [("   \n", "Type what you think it prints first"), ("x" * 5001, "too long")],
)
def test_an_empty_or_oversized_prediction_is_refused_clearly(
    client, learner, snippet, text, message
):
    response = predict(client, snippet, text=text, **HX)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert response["HX-Retarget"] == "#snippet-two-lines-message"
    plain = predict(client, snippet, text=text)
    assert plain.status_code == 400
    assert message in plain.content.decode()
    assert "Back to the lesson" in plain.content.decode()
    assert not Prediction.objects.exists()


@pytest.mark.parametrize(("language", "limit"), [("en", "5,000"), ("de", "5.000")])
def test_the_prediction_limit_is_written_as_the_pages_language_writes_numbers(
    client, learner, snippet, language, limit
):
    client.post(reverse("tutor:set_language"), {"language": language, "next": "/"})
    page = client.get(lesson_url(snippet)).content.decode()
    assert f"{limit} " in page.split('class="char-count"')[1].split("</span>")[0]
    refused = predict(client, snippet, text="x" * 5001, **HX).content.decode()
    assert f" {limit} " in refused
    revealed(learner, snippet)
    code = run(client, snippet, code="x" * 20_001, **HX).content.decode()
    assert f" {limit.replace('5', '20')} " in code


def test_predicting_on_an_unknown_snippet_is_404(client, learner):
    assert (
        client.post(reverse("tutor:prediction_create", args=[999_999]), {"text": "x"}).status_code
        == 404
    )


def test_a_second_prediction_is_kept_but_the_first_one_counts(client, learner, snippet):
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    predict(client, snippet, text="wrong")
    predict(client, snippet, text="first\nsecond")
    first, second = Prediction.objects.order_by("pk")
    assert first.is_first and not second.is_first
    html = client.get(lesson_url(snippet)).content.decode()
    assert "Not quite" in html  # the page shows the one that counts


# Polling the answer -------------------------------------------------------------------


def test_polling_the_answer_stops_once_the_output_is_known(client, learner, snippet):
    predict(client, snippet)
    prediction = Prediction.objects.get()
    url = reverse("tutor:prediction_detail", args=[prediction.pk])
    assert "hx-trigger" in client.get(url, **HX).content.decode()

    execute_run(run_id=Run.objects.get().pk)
    html = client.get(url, **HX).content.decode()
    assert html.lstrip().startswith('<section id="snippet-two-lines-answer"')
    assert "hx-trigger" not in html
    assert "Spot on" in html
    prediction.refresh_from_db()
    assert prediction.verdict == Prediction.Verdict.RIGHT


def test_without_javascript_a_waiting_reveal_links_to_its_result(client, learner, snippet):
    response = predict(client, snippet)  # plain POST; the reveal run is still queued
    assert response.status_code == 302
    waiting = client.get(response["Location"]).content.decode()
    assert "Running the snippet" in waiting
    see_result = reverse("tutor:prediction_detail", args=[Prediction.objects.get().pk])
    assert f'href="{see_result}">See the result</a>' in waiting
    # ... which leads back to the snippet on the page, loaded again (not just scrolled to).
    assert client.get(see_result)["Location"] == f"{lesson_url(snippet)}#snippet-two-lines"

    execute_run(run_id=Run.objects.get().pk)
    html = client.get(lesson_url(snippet)).content.decode()
    assert 'class="output real-output"' in html
    assert "Spot on" in html
    assert "See the result" not in html


def test_without_javascript_a_lost_reveal_offers_to_try_again(client, learner, snippet):
    make_prediction(learner, snippet, text="my guess", verdict=Prediction.Verdict.PENDING)
    run = make_run(snippet, purpose=Run.Purpose.REVEAL, status=Run.Status.QUEUED)
    Run.objects.filter(pk=run.pk).update(created_at=timezone.now() - timedelta(hours=1))
    html = client.get(lesson_url(snippet)).content.decode()
    assert "couldn't run this snippet" in html
    assert "Try again" in html


def test_the_answer_as_a_full_page_is_the_snippet_on_the_lesson(client, learner, snippet):
    prediction = revealed(learner, snippet)
    response = client.get(reverse("tutor:prediction_detail", args=[prediction.pk]))
    assert response.status_code == 302
    assert response["Location"] == lesson_url(snippet) + "#snippet-two-lines"


def test_another_learners_prediction_is_404(client, learner, snippet):
    prediction = revealed(make_user(), snippet)
    assert (
        client.get(reverse("tutor:prediction_detail", args=[prediction.pk]), **HX).status_code
        == 404
    )
    assert (
        client.post(
            reverse("tutor:self_check", args=[prediction.pk]), {"got_it": "yes"}
        ).status_code
        == 404
    )
    assert client.post(reverse("tutor:reveal_retry", args=[prediction.pk])).status_code == 404


def test_a_reveal_whose_worker_died_says_so_and_keeps_the_prediction(client, learner, snippet):
    prediction = make_prediction(
        learner, snippet, text="my guess", verdict=Prediction.Verdict.PENDING
    )
    run = make_run(snippet, purpose=Run.Purpose.REVEAL, status=Run.Status.RUNNING)
    Run.objects.filter(pk=run.pk).update(started_at=timezone.now() - timedelta(minutes=5))
    html = client.get(
        reverse("tutor:prediction_detail", args=[prediction.pk]), **HX
    ).content.decode()
    assert "couldn't run this snippet" in html
    assert "worker stopped" in html
    assert "my guess" in html
    assert "hx-trigger" not in html

    retry = client.post(reverse("tutor:reveal_retry", args=[prediction.pk]), **HX).content.decode()
    assert "Running the snippet" in retry
    assert Run.objects.filter(status=Run.Status.QUEUED).count() == 1
    prediction.refresh_from_db()
    assert prediction.text == "my guess"


# Self-check ---------------------------------------------------------------------------


def aloud(learner, snippet, **fields):
    return make_prediction(
        learner,
        snippet,
        text="",
        said_out_loud=True,
        verdict=Prediction.Verdict.SELF_UNCHECKED,
        **fields,
    )


def test_self_check_records_the_learners_word(client, learner, snippet):
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    prediction = aloud(learner, snippet)
    url = reverse("tutor:self_check", args=[prediction.pk])
    html = client.post(url, {"got_it": "yes"}, **HX).content.decode()
    assert "You got it." in html
    assert "I didn't" not in html
    prediction.refresh_from_db()
    assert prediction.verdict == Prediction.Verdict.SELF_RIGHT


def test_plain_self_check_returns_to_the_snippet_with_the_verdict(client, learner, snippet):
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    prediction = aloud(learner, snippet)
    response = client.post(reverse("tutor:self_check", args=[prediction.pk]), {"got_it": "no"})
    assert response["Location"] == lesson_url(snippet) + "#snippet-two-lines"
    assert "You didn't this time" in client.get(response["Location"]).content.decode()
    prediction.refresh_from_db()
    assert prediction.verdict == Prediction.Verdict.SELF_WRONG


def test_the_self_check_cannot_be_changed_afterwards(client, learner, snippet):
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    prediction = aloud(learner, snippet)
    url = reverse("tutor:self_check", args=[prediction.pk])
    client.post(url, {"got_it": "no"}, **HX)
    response = client.post(url, {"got_it": "yes"}, **HX)
    assert response.status_code == 400
    assert "already said whether you got it" in response.content.decode()
    assert response["HX-Retarget"] == "#snippet-two-lines-message"
    plain = client.post(url, {"got_it": "yes"}, follow=True)
    assert plain.redirect_chain[-1][0] == lesson_url(snippet) + "#snippet-two-lines"
    assert "already said whether you got it" in plain.content.decode()
    prediction.refresh_from_db()
    assert prediction.verdict == Prediction.Verdict.SELF_WRONG
    assert LessonProgress.objects.get(user=learner).predictions_right == 0


def test_no_self_check_while_the_output_is_not_known(client, learner, snippet):
    predict(client, snippet, text="", mode="aloud")  # the reveal run stays queued
    prediction = Prediction.objects.get()
    url = reverse("tutor:self_check", args=[prediction.pk])
    response = client.post(url, {"got_it": "yes"}, **HX)
    assert response.status_code == 400
    assert "Wait for the real output" in response.content.decode()
    plain = client.post(url, {"got_it": "yes"}, follow=True)
    assert "Wait for the real output" in plain.content.decode()
    prediction.refresh_from_db()
    assert prediction.verdict == Prediction.Verdict.SELF_UNCHECKED
    assert LessonProgress.objects.get(user=learner).predictions_right == 0

    execute_run(run_id=Run.objects.get().pk)
    assert client.post(url, {"got_it": "yes"}, **HX).status_code == 200
    assert LessonProgress.objects.get(user=learner).predictions_right == 1


def test_self_check_refuses_a_typed_prediction_or_a_missing_answer(client, learner, snippet):
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    typed = revealed(learner, snippet)
    response = client.post(reverse("tutor:self_check", args=[typed.pk]), {"got_it": "yes"}, **HX)
    assert response.status_code == 400
    assert "checked for you" in response.content.decode()

    prediction = aloud(learner, snippet, is_first=False)
    url = reverse("tutor:self_check", args=[prediction.pk])
    for data in ({"got_it": "maybe"}, {}):
        response = client.post(url, data, **HX)
        assert response.status_code == 400
        assert "Say whether you got it" in response.content.decode()
    prediction.refresh_from_db()
    assert prediction.verdict == Prediction.Verdict.SELF_UNCHECKED


# Run it yourself ----------------------------------------------------------------------


def run(client, snippet, code='print("mine")\n', **headers):
    return client.post(reverse("tutor:run_create", args=[snippet.pk]), {"code": code}, **headers)


def test_running_before_the_reveal_is_refused(client, learner, snippet):
    response = run(client, snippet, **HX)
    assert response.status_code == 403
    assert "reveal the answer first" in response.content.decode()
    assert not Run.objects.exists()


def test_anonymous_cannot_run(client, snippet):
    assert run(client, snippet)["Location"].startswith("/accounts/login/")
    assert not Run.objects.exists()


def test_htmx_run_queues_it_and_polls_until_it_is_final(client, learner, snippet):
    revealed(learner, snippet)
    html = run(client, snippet, code='print("mine")\r\n', **HX).content.decode()
    queued = Run.objects.get()
    assert (queued.purpose, queued.user, queued.code) == (
        Run.Purpose.RUN,
        learner,
        'print("mine")\n',
    )
    assert html.lstrip().startswith('<section id="snippet-two-lines-output"')
    detail = reverse("tutor:run_detail", args=[queued.pk])
    assert f'hx-get="{detail}"' in html
    assert "Waiting for a worker" in html
    assert CodeDraft.objects.get().code == 'print("mine")\n'  # running keeps the edit

    execute_run(run_id=queued.pk)
    final = client.get(detail, **HX).content.decode()
    assert "hx-get" not in final
    assert "Finished" in final
    assert "mine" in final
    assert " ms" in final


def test_predicting_your_own_version_is_compared_with_its_run_and_counts_for_nothing_else(
    client, learner, snippet
):
    first = make_prediction(learner, snippet, text="first\nthird", verdict=Prediction.Verdict.WRONG)
    progress_before = LessonProgress.objects.filter(user=learner).values().first()
    response = client.post(
        reverse("tutor:run_create", args=[snippet.pk]),
        {"code": 'print("mine")\nprint(2.0)\n', "prediction": "mine\r\n2"},
        **HX,
    )
    assert response.status_code == 200
    queued = Run.objects.get(purpose=Run.Purpose.RUN)
    own = VersionPrediction.objects.get()
    assert (own.user, own.snippet, own.run, own.text) == (learner, snippet, queued, "mine\n2")
    # Not a prediction of the snippet: the first one and its verdict stay as they were.
    assert list(Prediction.objects.values_list("pk", "verdict", "is_first")) == [
        (first.pk, Prediction.Verdict.WRONG, True)
    ]
    progress = LessonProgress.objects.filter(user=learner).values().first()
    assert progress["predictions_right"] == (progress_before or {}).get("predictions_right", 0)

    execute_run(run_id=queued.pk)
    html = client.get(reverse("tutor:run_detail", args=[queued.pk]), **HX).content.decode()
    assert (
        "Your prediction of your version:</span> Not quite: 1 of 2 lines right, 1 different."
        in html
    )
    assert "it prints <code>2.0</code> where you wrote <code>2</code>" in html


def test_a_run_without_a_prediction_of_your_version_records_none(client, learner, snippet):
    revealed(learner, snippet)
    client.post(
        reverse("tutor:run_create", args=[snippet.pk]),
        {"code": "print(1)\n", "prediction": "  \n"},
        **HX,
    )
    assert Run.objects.filter(purpose=Run.Purpose.RUN).exists()
    assert not VersionPrediction.objects.exists()


def test_an_oversized_prediction_of_your_version_is_refused_before_running(
    client, learner, snippet
):
    revealed(learner, snippet)
    response = client.post(
        reverse("tutor:run_create", args=[snippet.pk]),
        {"code": "print(1)\n", "prediction": "x" * 5001},
        **HX,
    )
    assert response.status_code == 400
    assert "That prediction is too long" in response.content.decode()
    assert not Run.objects.filter(purpose=Run.Purpose.RUN).exists()


def test_predicting_your_version_runs_it_with_your_input_and_counts_the_error_it_ends_with(
    client, learner, snippet
):
    revealed(learner, snippet)
    client.post(
        reverse("tutor:run_create", args=[snippet.pk]),
        {
            "code": 'name = input()\nprint("Hi", name)\nraise ValueError("no")\n',
            "stdin": "Ada\n",
            "prediction": "Hi Ada\nValueError",
        },
        **HX,
    )
    queued = Run.objects.get(purpose=Run.Purpose.RUN)
    assert queued.stdin == "Ada\n"
    assert VersionPrediction.objects.get().run == queued
    execute_run(run_id=queued.pk)
    html = client.get(reverse("tutor:run_detail", args=[queued.pk]), **HX).content.decode()
    assert "Your prediction of your version:</span> Spot on" in html


def test_a_refused_run_keeps_no_prediction_of_your_version(client, learner, snippet, settings):
    settings.RUNS_PENDING_MAX = 1
    revealed(learner, snippet)
    make_run(snippet, user=learner, status=Run.Status.QUEUED)  # still waiting for a worker
    response = client.post(
        reverse("tutor:run_create", args=[snippet.pk]),
        {"code": "print(1)\n", "prediction": "1"},
        **HX,
    )
    assert response.status_code == 429
    assert "runs waiting for a worker" in response.content.decode()
    assert not VersionPrediction.objects.exists()
    assert Run.objects.filter(purpose=Run.Purpose.RUN).count() == 1


def test_run_output_shows_tracebacks_and_the_status_in_words(client, learner, snippet):
    revealed(learner, snippet)
    error = make_run(
        snippet,
        user=learner,
        status=Run.Status.ERROR,
        exit_code=1,
        stderr="Traceback (most recent call last):\nNameError: name 'x' is not defined\n",
        duration_ms=31,
    )
    slow = make_run(snippet, user=learner, status=Run.Status.TIMEOUT, duration_ms=5000)
    long = make_run(
        snippet, user=learner, status=Run.Status.OUTPUT_LIMIT, stdout="y\n" * 5, truncated=True
    )
    html = client.get(reverse("tutor:run_detail", args=[error.pk]), **HX).content.decode()
    assert "Stopped with an error" in html and "NameError" in html and "in 31 ms" in html
    assert (
        "Timed out"
        in client.get(reverse("tutor:run_detail", args=[slow.pk]), **HX).content.decode()
    )
    html = client.get(reverse("tutor:run_detail", args=[long.pk]), **HX).content.decode()
    assert "Output too long" in html and "cut short" in html


def test_a_run_whose_worker_died_is_reported_not_polled_forever(client, learner, snippet):
    revealed(learner, snippet)
    lost = make_run(snippet, user=learner, status=Run.Status.QUEUED)
    Run.objects.filter(pk=lost.pk).update(created_at=timezone.now() - timedelta(hours=1))
    html = client.get(reverse("tutor:run_detail", args=[lost.pk]), **HX).content.decode()
    assert "Could not run" in html
    assert "worker stopped" in html
    assert "hx-get" not in html


@pytest.mark.django_db(transaction=True)
def test_a_fast_run_comes_back_in_the_same_response(client, monkeypatch, settings):
    """The worker is replaced by running the task inline on commit (see test_worker.py for the real one)."""
    settings.RUN_WAIT_SECONDS = 1.5
    monkeypatch.setattr(queueing, "enqueue_run", tasks.execute_run)
    user = make_user()
    client.force_login(user)
    snippet = make_snippet(code=CODE, key="two-lines")
    revealed(user, snippet)
    html = run(client, snippet, code="print(6 * 7)\n", **HX).content.decode()
    assert "<strong>Finished</strong>" in html
    assert "42" in html
    assert "hx-get" not in html


def test_plain_run_redirects_to_the_snippet_and_the_page_shows_the_output(client, learner, snippet):
    revealed(learner, snippet)
    response = run(client, snippet)
    queued = Run.objects.get()
    assert response["Location"] == f"{lesson_url(snippet)}?run={queued.pk}#snippet-two-lines"
    waiting = (
        client.get(response["Location"]).content.decode().split('id="snippet-two-lines-output"')[1]
    )
    assert "Waiting for a worker" in waiting
    # Not the page's own address, which would only scroll: one that redirects back to it.
    assert f'href="{reverse("tutor:run_detail", args=[queued.pk])}">See the result</a>' in waiting
    execute_run(run_id=queued.pk)
    html = client.get(response["Location"]).content.decode()
    assert "See the result" not in html.split('id="snippet-two-lines-output"')[1]
    assert 'class="output run-stdout"' in html
    assert "mine" in html
    full = client.get(reverse("tutor:run_detail", args=[queued.pk]))
    assert full["Location"] == response["Location"]


@pytest.mark.parametrize(
    ("code", "message"), [("  \n ", "There is no code to run"), ("x" * 20_001, "too long to run")]
)
def test_empty_or_oversized_code_is_refused_clearly(client, learner, snippet, code, message):
    revealed(learner, snippet)
    response = run(client, snippet, code=code, **HX)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Run.objects.exists()


def test_running_an_unknown_snippet_is_404(client, learner):
    assert (
        client.post(reverse("tutor:run_create", args=[424242]), {"code": "print(1)"}).status_code
        == 404
    )


def test_too_many_runs_get_a_friendly_message(client, learner, snippet, settings):
    settings.RUNS_PENDING_MAX = 1
    revealed(learner, snippet)
    run(client, snippet)
    response = run(client, snippet, **HX)
    assert response.status_code == 429
    assert "runs waiting for a worker" in response.content.decode()
    plain = run(client, snippet, follow=True)
    assert "runs waiting for a worker" in plain.content.decode()
    assert Run.objects.count() == 1


def test_another_learners_run_or_a_shared_reveal_run_is_404(client, learner, snippet):
    theirs = make_run(snippet, user=make_user())
    reveal = make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    assert client.get(reverse("tutor:run_detail", args=[theirs.pk]), **HX).status_code == 404
    assert client.get(reverse("tutor:run_detail", args=[reveal.pk]), **HX).status_code == 404
    html = client.get(lesson_url(snippet) + f"?run={theirs.pk}").content.decode()
    assert "run-stdout" not in html


# Drafts -------------------------------------------------------------------------------


def draft(client, snippet, data, **headers):
    return client.post(reverse("tutor:draft_save", args=[snippet.pk]), data, **headers)


def test_autosave_keeps_the_edit_and_says_so(client, learner, snippet):
    revealed(learner, snippet)
    response = draft(client, snippet, {"code": "print(3)\n"}, **HX)
    html = response.content.decode()
    assert html.strip() == '<span id="snippet-two-lines-saved" class="save-state">Saved.</span>'
    assert CodeDraft.objects.get(user=learner).code == "print(3)\n"
    assert "print(3)" in client.get(lesson_url(snippet)).content.decode()


def test_reset_deletes_the_draft_and_the_original_comes_back(client, learner, snippet):
    revealed(learner, snippet)
    draft(client, snippet, {"code": "print(3)\n"})
    html = draft(client, snippet, {"code": "print(3)\n", "reset": "1"}, **HX).content.decode()
    assert "Back to the original code." in html
    assert not CodeDraft.objects.exists()
    page = client.get(lesson_url(snippet)).content.decode()
    assert "print(3)" not in page


def test_plain_save_redirects_with_a_message(client, learner, snippet):
    revealed(learner, snippet)
    response = draft(client, snippet, {"code": "print(3)\n"}, follow=True)
    assert response.redirect_chain[-1][0] == lesson_url(snippet) + "#snippet-two-lines"
    assert "Saved." in response.content.decode()


def test_the_save_sent_as_the_page_is_left_keeps_the_edit_and_leaves_no_message(
    client, learner, snippet
):
    revealed(learner, snippet)
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(learner)
    page = csrf_client.get(lesson_url(snippet)).text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    # Without the token in the body it is refused like any other POST.
    url = reverse("tutor:draft_save", args=[snippet.pk])
    assert csrf_client.post(url, {"code": "print(4)\n", "leaving": "1"}).status_code == 403
    response = csrf_client.post(
        url, {"code": "print(4)\n", "leaving": "1", "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 204
    assert CodeDraft.objects.get(user=learner).code == "print(4)\n"
    # Nobody was there to read "Saved.": it must not turn up on the next page instead.
    assert "Saved." not in csrf_client.get(lesson_url(snippet)).text


def test_drafts_are_refused_before_reveal_when_oversized_or_anonymous(client, snippet):
    user = make_user()
    assert draft(client, snippet, {"code": "x"})["Location"].startswith("/accounts/login/")
    client.force_login(user)
    assert draft(client, snippet, {"code": "x"}, **HX).status_code == 403
    revealed(user, snippet)
    response = draft(client, snippet, {"code": "x" * 20_001}, **HX)
    assert response.status_code == 400
    assert "too long to save" in response.content.decode()
    assert draft(client, make_snippet(), {"code": "x"}).status_code == 403
    assert client.post(reverse("tutor:draft_save", args=[31337]), {"code": "x"}).status_code == 404
    assert not CodeDraft.objects.exists()


def test_get_is_not_allowed_on_actions(client, learner, snippet):
    assert client.get(reverse("tutor:prediction_create", args=[snippet.pk])).status_code == 405
    assert client.get(reverse("tutor:run_create", args=[snippet.pk])).status_code == 405
    assert client.get(reverse("tutor:draft_save", args=[snippet.pk])).status_code == 405


def test_the_seed_lessons_first_snippet_keeps_its_answer_until_the_learners_own_reveal(
    client, learner, sample_content
):
    from course.kinds.snippet import Snippet

    snippet = Snippet.objects.get(block__key="backend-latency")
    make_run(
        snippet, purpose=Run.Purpose.REVEAL, stdout=snippet.expected_output
    )  # someone else's reveal
    # Every printed line but the title, which is also the lesson's heading.
    secret_lines = [line for line in snippet.expected_output.splitlines() if " on " in line]
    assert len(secret_lines) == 4
    html = client.get(lesson_url(snippet)).content.decode()
    assert not any(line in html for line in secret_lines)

    revealed_html = predict(client, snippet, text="no idea", **HX).content.decode()
    assert all(line in revealed_html for line in secret_lines)


def test_named_slips_show_code_as_code_not_backticks():
    from tutor.templatetags.feedback import backticks

    html = backticks("the first `print()` prints one <b>")
    assert html == "the first <code>print()</code> prints one &lt;b&gt;"


@pytest.mark.django_db(transaction=True)
def test_the_page_poll_waits_for_the_worker_and_answers_the_moment_it_finishes(
    client, settings, first_look
):
    """A long poll: the GET sleeps until the worker announces the run, then answers final."""
    import time

    settings.RUN_LONG_POLL_SECONDS = 60
    user = make_user()
    client.force_login(user)
    snippet = make_snippet(code=CODE, key="two-lines")
    revealed(user, snippet)
    queued = make_run(snippet, user=user, status=Run.Status.QUEUED, code="print(6 * 7)\n")
    # The worker finishes the run only once the poll has seen it queued and sleeps.
    worker = first_look.then(lambda: tasks.execute_run(queued.pk))
    started = time.monotonic()
    html = client.get(reverse("tutor:run_detail", args=[queued.pk]), **HX).content.decode()
    waited = time.monotonic() - started
    worker.join()
    assert first_look.event.is_set()  # it looked, found the run queued, and waited
    assert "<strong>Finished</strong>" in html
    assert "42" in html
    assert "hx-get" not in html  # nothing left to poll
    assert waited < 30  # woken by the notice, not by the 60 s time-out


@pytest.mark.django_db(transaction=True)
def test_a_plain_get_never_waits(client, settings):
    import time

    settings.RUN_LONG_POLL_SECONDS = 60
    user = make_user()
    client.force_login(user)
    snippet = make_snippet(code=CODE, key="two-lines")
    revealed(user, snippet)
    queued = make_run(snippet, user=user, status=Run.Status.QUEUED)
    started = time.monotonic()
    response = client.get(reverse("tutor:run_detail", args=[queued.pk]))
    assert time.monotonic() - started < 30  # not the 60 s a page poll may wait
    assert response.status_code == 302
    html = client.get(response["Location"]).content.decode()
    assert "See the result" in html


# The output is known before the worker gives the verdicts: the badge counts it anyway -----


def badge_of(html: str) -> str:
    return html.split('<div id="lesson-progress" class="lesson-progress" hx-swap-oob="true">')[1]


def test_a_reveal_finished_during_the_click_counts_before_the_worker_gives_verdicts(
    client, learner, snippet, monkeypatch
):
    """The worker saves the output, wakes the waiting clicks, and only then gives every
    waiting prediction its verdict. A click woken in between gives its own, so the badge
    it brings counts it (it said "Not started" beside the answer, under load)."""
    make_snippet(snippet.block.lesson)  # a second snippet: one of two is half done
    from tutor import run_notices

    def the_worker_saves_the_output_meanwhile(run_id, is_final, timeout):
        Run.objects.filter(pk=run_id).update(
            status=Run.Status.OK, exit_code=0, stdout=OUTPUT, finished_at=timezone.now()
        )
        return is_final()  # and announces; the verdicts are not given yet

    monkeypatch.setattr(run_notices, "wait", the_worker_saves_the_output_meanwhile)
    html = predict(client, snippet, **HX).content.decode()
    assert "Spot on" in html
    assert "50% done" in badge_of(html)
    assert Prediction.objects.get().verdict == Prediction.Verdict.RIGHT


def test_a_poll_woken_by_the_output_waits_for_the_verdict_and_brings_the_badge(
    client, learner, snippet, settings, monkeypatch
):
    settings.RUN_LONG_POLL_SECONDS = 5
    make_snippet(snippet.block.lesson)
    run = make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    prediction = make_prediction(learner, snippet, text=OUTPUT, verdict=Prediction.Verdict.PENDING)
    from tutor import run_notices
    from tutor.practice.snippet.actions import settle_predictions_for_run

    waited_for = []

    def the_worker_gives_the_verdicts_meanwhile(run_id, is_final, timeout):
        waited_for.append(run_id)
        settle_predictions_for_run(run=Run.objects.get(pk=run_id))  # then announces again
        return is_final()

    monkeypatch.setattr(run_notices, "wait", the_worker_gives_the_verdicts_meanwhile)
    html = client.get(
        reverse("tutor:prediction_detail", args=[prediction.pk]), **HX
    ).content.decode()
    assert waited_for == [run.pk]
    assert "Spot on" in html
    assert "50% done" in badge_of(html)


def test_a_poll_without_the_workers_verdict_writes_nothing_and_the_sweep_gives_it(
    client, learner, snippet, settings, monkeypatch
):
    """The output is saved but no verdict comes (the worker stopped in between): the poll
    shows the output and writes nothing; the repair sweep gives the verdict, and the next
    poll shows it with the badge counting it."""
    settings.RUN_LONG_POLL_SECONDS = 5
    make_snippet(snippet.block.lesson)
    make_run(snippet, purpose=Run.Purpose.REVEAL, stdout=OUTPUT)
    prediction = make_prediction(learner, snippet, text=OUTPUT, verdict=Prediction.Verdict.PENDING)
    from tutor import run_notices

    monkeypatch.setattr(run_notices, "wait", lambda run_id, is_final, timeout: is_final())
    url = reverse("tutor:prediction_detail", args=[prediction.pk])
    html = client.get(url, **HX).content.decode()
    assert "first" in html
    prediction.refresh_from_db()
    assert prediction.verdict == Prediction.Verdict.PENDING
    tasks.fail_stale_runs()
    html = client.get(url, **HX).content.decode()
    assert "Spot on" in html
    assert "50% done" in badge_of(html)


def test_a_reveal_the_worker_finished_before_the_prediction_was_saved_gives_it_its_verdict(
    learner, snippet, monkeypatch
):
    """The worker finishes the shared reveal run, and settles the predictions waiting then,
    between the click finding the run and saving its prediction: the click settles its own
    (it stayed "Started, 0% done" beside a given answer, under load)."""
    from tutor.practice.snippet import actions

    found = actions.reveal_run

    def the_worker_finishes_it_meanwhile(*, snippet):
        run = found(snippet=snippet)
        execute_run(run_id=run.pk)  # the output, and no prediction waiting yet
        return run  # as the click read it: still queued

    monkeypatch.setattr(actions, "reveal_run", the_worker_finishes_it_meanwhile)
    prediction, run = actions_submit(learner, snippet)
    assert prediction.verdict == Prediction.Verdict.RIGHT
    assert Prediction.objects.get().verdict == Prediction.Verdict.RIGHT
    assert LessonProgress.objects.get(user=learner).predictions_right == 1


def test_the_worker_announces_again_once_the_verdicts_are_given(learner, snippet, monkeypatch):
    prediction, run = actions_submit(learner, snippet)
    from tutor import run_notices

    pending_when_announced = []
    monkeypatch.setattr(
        run_notices,
        "announce",
        lambda run_id: pending_when_announced.append(
            Prediction.objects.pending().filter(pk=prediction.pk).exists()
        ),
    )
    execute_run(run_id=run.pk)
    assert pending_when_announced == [True, False]  # the output, then the verdicts


def actions_submit(user, snippet):
    from tutor.practice.snippet.actions import submit_prediction

    return submit_prediction(user=user, snippet=snippet, text=OUTPUT, said_out_loud=False)


def test_a_class_revealing_a_published_snippet_queues_no_run(
    monkeypatch, django_capture_on_commit_callbacks
):
    """The output is computed when the snippet is saved (imported, or edited in the admin),
    by the worker, and kept with its version: a reveal is then a write and a read."""
    monkeypatch.setattr(queueing, "enqueue_run", tasks.execute_run)  # the worker, inline
    with django_capture_on_commit_callbacks(execute=True):
        snippet = make_snippet(code=CODE, expected_output=OUTPUT, key="two-lines")
    [kept] = Run.objects.filter(purpose=Run.Purpose.REVEAL)
    assert (kept.status, kept.stdout) == (Run.Status.OK, OUTPUT)
    queued = []
    monkeypatch.setattr(queueing, "enqueue_run", queued.append)

    for n in range(6):
        client = Client()
        learner = make_user()
        client.force_login(learner)
        with django_capture_on_commit_callbacks(execute=True):
            html = predict(client, snippet, text="first\nsecond" if n % 2 else "first", **HX)
        assert "hx-get" not in html.content.decode()  # nothing to wait for
        prediction = Prediction.objects.get(user=learner)
        assert prediction.verdict == (
            Prediction.Verdict.RIGHT if n % 2 else Prediction.Verdict.WRONG
        )

    assert queued == []
    assert list(Run.objects.all()) == [kept]


def test_a_snippet_saved_with_new_code_has_its_new_output_computed(
    monkeypatch, django_capture_on_commit_callbacks
):
    monkeypatch.setattr(queueing, "enqueue_run", tasks.execute_run)
    with django_capture_on_commit_callbacks(execute=True):
        snippet = make_snippet(code=CODE, expected_output=OUTPUT, key="two-lines")
    with django_capture_on_commit_callbacks(execute=True):
        snippet.code = 'print("third")\n'
        snippet.save()

    reveals = Run.objects.filter(purpose=Run.Purpose.REVEAL).order_by("pk")
    assert [(run.code, run.stdout) for run in reveals] == [
        (CODE, OUTPUT),
        ('print("third")\n', "third\n"),
    ]
