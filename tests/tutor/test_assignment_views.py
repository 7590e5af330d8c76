"""The teacher's assignment pages and the class grid and CSV filtered to an assignment:
each page and partial, each POST with good and bad input, and another teacher's class."""

import csv
import io
import re
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from tests.factories import make_admin, make_exercise, make_lesson, make_teacher, make_user
from tests.tutor.assignment_world import NOW, assign, class_of, do_everything, practice_lesson
from tutor.assignments.models import Assignment, Extension

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}
HOUR = timedelta(hours=1)


def minute(moment) -> str:
    return timezone.localtime(moment).strftime("%Y-%m-%dT%H:%M")


@pytest.fixture
def world():
    teacher = make_teacher("teacher")
    ann, bob = make_user("ann", first_name="Ann"), make_user("bob")
    cohort = class_of(ann, bob, teacher=teacher)
    lesson, items = practice_lesson(title="Loops")
    return {
        "teacher": teacher,
        "ann": ann,
        "bob": bob,
        "cohort": cohort,
        "lesson": lesson,
        "items": items,
    }


def url(name, world, *args):
    return reverse(f"tutor:{name}", args=[world["cohort"].pk, *args])


def new_assignment_data(world, **changes):
    data = {
        "lesson": world["lesson"].pk,
        "opens_at": minute(NOW),
        "due_at": minute(NOW + 24 * HOUR),
    }
    return data | changes


# Setting an assignment ----------------------------------------------------------------------


def test_the_class_page_leads_to_the_assignments(client, world):
    client.force_login(world["teacher"])
    page = client.get(url("class_detail", world)).content.decode()
    assert url("assignment_list", world) in page


def test_the_new_assignment_form_offers_the_lessons_exercises(client, world):
    client.force_login(world["teacher"])
    response = client.get(url("assignment_create", world) + f"?lesson={world['lesson'].pk}")
    page = response.content.decode()
    assert response.status_code == 200
    for item in world["items"].values():
        assert f'value="{item.block.pk}"' in page
    assert 'type="datetime-local"' in page


def test_the_date_fields_name_the_time_zone_once_when_its_abbreviation_is_its_name(client, world):
    assignment = assign(world["cohort"], world["lesson"])
    client.force_login(world["teacher"])
    for name, args in (("assignment_create", []), ("assignment_detail", [assignment.pk])):
        page = client.get(url(name, world, *args)).content.decode()
        assert "(UTC)" in page and "UTC, UTC" not in page, name
    client.cookies["tz"] = "Europe/Berlin"
    page = client.get(url("assignment_create", world)).content.decode()
    assert "(Europe/Berlin, CE" in page  # CET or CEST, as the date falls


def test_choosing_another_lesson_with_htmx_swaps_only_its_exercises(client, world):
    other = make_lesson(title="Functions")
    exercise = make_exercise(other)
    client.force_login(world["teacher"])
    response = client.get(url("assignment_create", world) + f"?lesson={other.pk}", **HTMX)
    page = response.content.decode()
    assert 'id="assignment-items"' in page and "<html" not in page
    assert f'value="{exercise.block.pk}"' in page
    assert f'value="{world["items"]["snippet"].block.pk}"' not in page


def test_a_teacher_sets_the_whole_lesson(client, world):
    client.force_login(world["teacher"])
    response = client.post(url("assignment_create", world), new_assignment_data(world))
    assignment = Assignment.objects.get()
    assert response.status_code == 302
    assert response["Location"] == url("assignment_detail", world, assignment.pk)
    assert (assignment.cohort, assignment.lesson, assignment.whole_lesson) == (
        world["cohort"],
        world["lesson"],
        True,
    )
    assert assignment.due_at == NOW.replace(second=0) + 24 * HOUR


def test_a_teacher_sets_some_exercises(client, world):
    client.force_login(world["teacher"])
    block = world["items"]["ordering"].block
    client.post(url("assignment_create", world), new_assignment_data(world, blocks=[block.pk]))
    assignment = Assignment.objects.get()
    assert (assignment.whole_lesson, list(assignment.blocks.all())) == (False, [block])


def test_the_assignment_page_lists_its_items_one_per_line(client, world):
    client.force_login(world["teacher"])
    assignment = assign(world["cohort"], world["lesson"])
    page = client.get(url("assignment_detail", world, assignment.pk)).content.decode()
    listed = page[page.index('<ul class="assignment-items">') :]
    listed = listed[: listed.index("</ul>")]
    assert listed.count("<li>") == len(world["items"]) > 1
    assert "; " not in listed


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"due_at": "soon"}, "Write the due date as a date and a time"),
        ({"due_at": ""}, "Give the due date"),
        ({"lesson": "999999"}, "Choose one of the lessons"),
        ({"lesson": "x"}, "Choose one of the lessons"),
    ],
)
def test_bad_input_gives_the_form_again_with_the_reason(client, world, changes, message):
    client.force_login(world["teacher"])
    response = client.post(url("assignment_create", world), new_assignment_data(world, **changes))
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Assignment.objects.exists()


def test_a_due_date_before_the_opening_is_refused(client, world):
    client.force_login(world["teacher"])
    data = new_assignment_data(world, due_at=minute(NOW - HOUR))
    response = client.post(url("assignment_create", world), data)
    assert response.status_code == 400
    assert "The due date must be after the opening date." in response.content.decode()


def test_an_exercise_of_another_lesson_is_refused(client, world):
    elsewhere = make_exercise(make_lesson())
    client.force_login(world["teacher"])
    data = new_assignment_data(world, blocks=[elsewhere.block.pk])
    response = client.post(url("assignment_create", world), data)
    assert response.status_code == 400
    assert "Choose exercises of the assigned lesson only." in response.content.decode()
    assert not Assignment.objects.exists()


def test_a_draft_lesson_cannot_be_assigned(client, world):
    draft = make_lesson(status="draft")
    make_exercise(draft)
    client.force_login(world["teacher"])
    response = client.post(
        url("assignment_create", world), new_assignment_data(world, lesson=draft.pk)
    )
    assert response.status_code == 400


def test_another_teacher_cannot_set_work_for_the_class(client, world):
    client.force_login(make_teacher())
    assert (
        client.post(url("assignment_create", world), new_assignment_data(world)).status_code == 404
    )
    client.force_login(world["ann"])
    assert (
        client.post(url("assignment_create", world), new_assignment_data(world)).status_code == 403
    )
    assert not Assignment.objects.exists()


# The list and an assignment's page ----------------------------------------------------


def test_the_list_shows_each_assignment_with_its_tally(client, world):
    assignment = assign(world["cohort"], world["lesson"], due=NOW + HOUR)
    do_everything(world["ann"], world["items"], NOW)
    client.force_login(world["teacher"])
    page = client.get(url("assignment_list", world)).content.decode()
    assert url("assignment_detail", world, assignment.pk) in page
    assert "On time: 1" in page and "Not yet done: 1" in page


def test_the_assignment_page_says_where_each_student_stands(client, world):
    assignment = assign(world["cohort"], world["lesson"], due=NOW - HOUR)
    do_everything(world["ann"], world["items"], NOW - 2 * HOUR)
    client.force_login(world["teacher"])
    page = client.get(url("assignment_detail", world, assignment.pk)).content.decode()
    assert "Ann (ann)" in page and "On time" in page
    assert "Missing" in page  # bob
    assert "0 of 3 done" in page


def test_the_assignment_page_as_an_htmx_partial(client, world):
    assignment = assign(world["cohort"], world["lesson"])
    client.force_login(world["teacher"])
    response = client.get(url("assignment_detail", world, assignment.pk), **HTMX)
    page = response.content.decode()
    assert 'id="assignment-students"' in page and "<html" not in page


def test_another_classs_assignment_is_not_found_under_this_class(client, world):
    teacher = world["teacher"]
    elsewhere = assign(class_of(teacher=teacher), world["lesson"])
    client.force_login(teacher)
    assert client.get(url("assignment_detail", world, elsewhere.pk)).status_code == 404
    assert (
        client.post(url("assignment_close", world, elsewhere.pk), {"closed": "yes"}).status_code
        == 404
    )


def test_an_admin_may_review_any_classs_assignments(client, world):
    assignment = assign(world["cohort"], world["lesson"])
    client.force_login(make_admin())
    assert client.get(url("assignment_detail", world, assignment.pk)).status_code == 200


# Changing, closing, deleting ----------------------------------------------------------


def test_the_edit_form_is_filled_with_the_assignment(client, world):
    block = world["items"]["snippet"].block
    assignment = assign(world["cohort"], world["lesson"], blocks=[block], due=NOW + 5 * HOUR)
    client.force_login(world["teacher"])
    page = client.get(url("assignment_edit", world, assignment.pk)).content.decode()
    assert f'value="{block.pk}" checked' in page
    assert minute(NOW + 5 * HOUR) in page


def test_a_teacher_moves_the_due_date(client, world):
    assignment = assign(world["cohort"], world["lesson"])
    client.force_login(world["teacher"])
    data = new_assignment_data(world, due_at=minute(NOW + 48 * HOUR))
    response = client.post(url("assignment_edit", world, assignment.pk), data)
    assert response.status_code == 302
    assignment.refresh_from_db()
    assert assignment.due_at == NOW.replace(second=0) + 48 * HOUR


def test_a_teacher_chooses_to_show_hidden_tests_once_due_and_can_change_their_mind(
    client, world
):
    client.force_login(world["teacher"])
    page = client.get(url("assignment_create", world)).content.decode()
    assert 'name="hidden_tests_after_due"' in page and "Show hidden tests once due" in page

    client.post(url("assignment_create", world), new_assignment_data(world, hidden_tests_after_due="on"))
    assignment = Assignment.objects.get()
    assert assignment.hidden_tests_after_due
    detail = client.get(url("assignment_detail", world, assignment.pk)).content.decode()
    assert "Hidden tests show in full to each student once their due date has passed." in detail
    edit = client.get(url("assignment_edit", world, assignment.pk)).content.decode()
    assert re.search(r'name="hidden_tests_after_due"[^>]* checked', edit)

    # Unticked (a checkbox sends nothing), it is off again.
    client.post(url("assignment_edit", world, assignment.pk), new_assignment_data(world))
    assignment.refresh_from_db()
    assert not assignment.hidden_tests_after_due
    detail = client.get(url("assignment_detail", world, assignment.pk)).content.decode()
    assert "Hidden tests show in full" not in detail


def test_a_bad_change_is_refused_and_changes_nothing(client, world):
    assignment = assign(world["cohort"], world["lesson"], due=NOW + HOUR)
    client.force_login(world["teacher"])
    data = new_assignment_data(world, due_at=minute(NOW - 2 * HOUR))
    response = client.post(url("assignment_edit", world, assignment.pk), data)
    assert response.status_code == 400
    assignment.refresh_from_db()
    assert assignment.due_at == NOW + HOUR


def test_closing_and_reopening_without_javascript(client, world):
    assignment = assign(world["cohort"], world["lesson"])
    client.force_login(world["teacher"])
    response = client.post(
        url("assignment_close", world, assignment.pk), {"closed": "yes"}, follow=True
    )
    assert "Closed: its students can no longer send work on it." in response.content.decode()
    assignment.refresh_from_db()
    assert assignment.is_closed
    client.post(url("assignment_close", world, assignment.pk), {"closed": "no"})
    assignment.refresh_from_db()
    assert not assignment.is_closed


def test_closing_with_htmx_swaps_the_open_or_closed_region(client, world):
    assignment = assign(world["cohort"], world["lesson"])
    client.force_login(world["teacher"])
    response = client.post(url("assignment_close", world, assignment.pk), {"closed": "yes"}, **HTMX)
    page = response.content.decode()
    assert 'id="assignment-state"' in page and "Reopen it" in page and "<html" not in page


def test_a_close_that_says_neither_is_refused_in_the_sites_shape(client, world):
    assignment = assign(world["cohort"], world["lesson"])
    client.force_login(world["teacher"])
    response = client.post(
        url("assignment_close", world, assignment.pk), {"closed": "maybe"}, **HTMX
    )
    assert response.status_code == 400
    assert response["HX-Retarget"] == "#assignment-state-message"
    assert 'class="refusal"' in response.content.decode()
    response = client.post(url("assignment_close", world, assignment.pk), {})
    assert response.status_code == 302
    assignment.refresh_from_db()
    assert not assignment.is_closed


def test_deleting_an_assignment(client, world):
    assignment = assign(world["cohort"], world["lesson"])
    client.force_login(world["teacher"])
    response = client.post(url("assignment_delete", world, assignment.pk))
    assert response.status_code == 302 and response["Location"] == url("assignment_list", world)
    assert not Assignment.objects.exists()


def test_deleting_with_htmx_takes_the_page_to_the_list(client, world):
    assignment = assign(world["cohort"], world["lesson"])
    client.force_login(world["teacher"])
    response = client.post(url("assignment_delete", world, assignment.pk), **HTMX)
    assert response["HX-Redirect"] == url("assignment_list", world)


def test_another_teacher_cannot_change_close_or_delete(client, world):
    assignment = assign(world["cohort"], world["lesson"])
    client.force_login(make_teacher())
    assert (
        client.post(
            url("assignment_edit", world, assignment.pk), new_assignment_data(world)
        ).status_code
        == 404
    )
    assert (
        client.post(url("assignment_close", world, assignment.pk), {"closed": "yes"}).status_code
        == 404
    )
    assert client.post(url("assignment_delete", world, assignment.pk)).status_code == 404
    assignment.refresh_from_db()
    assert not assignment.is_closed


# Extensions ---------------------------------------------------------------------------


def test_granting_an_extension_without_javascript(client, world):
    assignment = assign(world["cohort"], world["lesson"], due=NOW)
    client.force_login(world["teacher"])
    data = {"student": world["bob"].pk, "due_at": minute(NOW + 3 * HOUR)}
    response = client.post(url("extension_grant", world, assignment.pk), data, follow=True)
    assert "bob now has until" in response.content.decode()
    assert Extension.objects.get().student == world["bob"]
    assert "extended" in response.content.decode()


def test_granting_an_extension_with_htmx_swaps_the_students_table(client, world):
    assignment = assign(world["cohort"], world["lesson"], due=NOW)
    client.force_login(world["teacher"])
    data = {"student": world["bob"].pk, "due_at": minute(NOW + 3 * HOUR)}
    response = client.post(url("extension_grant", world, assignment.pk), data, **HTMX)
    page = response.content.decode()
    assert (
        'id="assignment-students"' in page and "<html" not in page and "bob now has until" in page
    )


@pytest.mark.parametrize(
    "student,due,message",
    [
        ("outsider", 3, "Choose a student of this class."),
        ("bob", -1, "An extension must be after the assignment"),
        ("bob", None, "Give the new due date."),
    ],
)
def test_a_bad_extension_is_refused(client, world, student, due, message):
    assignment = assign(world["cohort"], world["lesson"], due=NOW)
    who = make_user("outsider") if student == "outsider" else world[student]
    data = {"student": who.pk, "due_at": minute(NOW + due * HOUR) if due is not None else ""}
    client.force_login(world["teacher"])
    response = client.post(url("extension_grant", world, assignment.pk), data, **HTMX)
    assert response.status_code == 400 and response["HX-Retarget"] == "#extension-message"
    assert message in response.content.decode()
    response = client.post(url("extension_grant", world, assignment.pk), data)
    assert response.status_code == 400 and message in response.content.decode()
    assert not Extension.objects.exists()


def test_withdrawing_an_extension(client, world):
    assignment = assign(world["cohort"], world["lesson"], due=NOW)
    Extension.objects.create(assignment=assignment, student=world["bob"], due_at=NOW + HOUR)
    client.force_login(world["teacher"])
    response = client.post(url("extension_withdraw", world, assignment.pk, world["bob"].pk), **HTMX)
    assert response.status_code == 200 and "due at the assignment" in response.content.decode()
    assert not Extension.objects.exists()
    response = client.post(url("extension_withdraw", world, assignment.pk, world["bob"].pk), **HTMX)
    assert response.status_code == 400 and "has no extension" in response.content.decode()


def test_withdrawing_names_only_students_of_the_class(client, world):
    assignment = assign(world["cohort"], world["lesson"], due=NOW)
    outsider = make_user()
    client.force_login(world["teacher"])
    assert (
        client.post(url("extension_withdraw", world, assignment.pk, outsider.pk)).status_code == 404
    )


def test_another_teacher_cannot_grant_an_extension(client, world):
    assignment = assign(world["cohort"], world["lesson"], due=NOW)
    client.force_login(make_teacher())
    data = {"student": world["bob"].pk, "due_at": minute(NOW + 3 * HOUR)}
    assert client.post(url("extension_grant", world, assignment.pk), data).status_code == 404
    assert not Extension.objects.exists()


# The class grid and the CSV filtered to an assignment ---------------------------------------


def test_the_class_grid_filtered_to_an_assignment_says_on_time_late_missing(client, world):
    carl = make_user("carl")
    world["cohort"].memberships.create(student=carl)
    assignment = assign(world["cohort"], world["lesson"], due=NOW - HOUR)
    do_everything(world["ann"], world["items"], NOW - 2 * HOUR)
    do_everything(world["bob"], world["items"], NOW)
    client.force_login(world["teacher"])
    page = client.get(url("class_detail", world) + f"?assignment={assignment.pk}").content.decode()
    assert "On time: 1" in page and "Late: 1" in page and "Missing: 1" in page
    row = page[page.index("carl") :]
    assert row.index("Missing") < row.index("</tr>")  # said in words, not by colour alone


def test_the_filtered_grid_as_an_htmx_partial(client, world):
    assignment = assign(world["cohort"], world["lesson"])
    client.force_login(world["teacher"])
    response = client.get(url("class_detail", world) + f"?assignment={assignment.pk}", **HTMX)
    page = response.content.decode()
    assert 'id="class-grid"' in page and "Not yet done" in page and "<html" not in page


@pytest.mark.parametrize("value", ["x", "999999", "other"])
def test_filtering_to_an_assignment_not_of_this_class_is_not_found(client, world, value):
    if value == "other":
        value = str(assign(class_of(teacher=world["teacher"]), world["lesson"]).pk)
    client.force_login(world["teacher"])
    assert client.get(url("class_detail", world) + f"?assignment={value}").status_code == 404
    assert client.get(url("class_csv", world) + f"?assignment={value}").status_code == 404


def test_the_progress_csv_filtered_to_an_assignment_has_due_dates_and_submission_times(
    client, world
):
    assignment = assign(world["cohort"], world["lesson"], due=NOW - HOUR)
    Extension.objects.create(assignment=assignment, student=world["bob"], due_at=NOW + HOUR)
    done_at = NOW - 2 * HOUR
    do_everything(world["ann"], world["items"], done_at)
    client.force_login(world["teacher"])
    response = client.get(url("class_csv", world) + f"?assignment={assignment.pk}")
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode("utf-8-sig"))))
    assert rows[0] == [
        "username",
        "name",
        "lesson",
        "items",
        "opens",
        "due",
        "extended",
        "submitted",
        "items done",
        "status",
    ]
    by_user = {row[0]: row for row in rows[1:]}
    local = lambda moment: timezone.localtime(moment).strftime("%Y-%m-%d %H:%M")  # noqa: E731
    assert by_user["ann"][5:] == [local(NOW - HOUR), "", local(done_at), "3 of 3", "On time"]
    assert by_user["bob"][5:] == [local(NOW + HOUR), "yes", "", "0 of 3", "Not yet done"]
    assert response["Content-Disposition"].endswith(
        f'-assignment-{assignment.pk}-{timezone.localdate().isoformat()}.csv"'
    )


def test_the_unfiltered_progress_csv_is_unchanged(client, world):
    assign(world["cohort"], world["lesson"])
    client.force_login(world["teacher"])
    response = client.get(url("class_csv", world))
    header = b"".join(response.streaming_content).decode("utf-8-sig").splitlines()[0]
    assert header.startswith("username,name,joined,")


@pytest.mark.parametrize(
    "page",
    [
        lambda w, a: url("assignment_detail", w, a.pk),
        lambda w, a: url("class_detail", w) + f"?assignment={a.pk}",
        lambda w, a: url("assignment_list", w),
    ],
    ids=["assignment", "filtered grid", "list"],
)
def test_assignment_pages_cost_the_same_queries_for_a_class_of_two_or_forty(
    client, world, page, django_assert_num_queries
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    assignment = assign(world["cohort"], world["lesson"])
    client.force_login(world["teacher"])
    client.get(page(world, assignment))  # warm: session, user
    with CaptureQueriesContext(connection) as small:
        assert client.get(page(world, assignment)).status_code == 200
    for n in range(38):
        student = make_user(f"s{n:02}")
        world["cohort"].memberships.create(student=student)
        do_everything(student, world["items"], NOW)
    with django_assert_num_queries(len(small.captured_queries)):
        assert client.get(page(world, assignment)).status_code == 200


def test_a_student_with_a_full_name_is_named_alike_in_tables_and_messages(client, world):
    """ "Ann (ann)" in the table, but "ann now has until…" after an extension and "ann" in the
    closed-book seats (issue 39): the same name everywhere on the teacher's pages."""
    assignment = assign(world["cohort"], world["lesson"], due=NOW + HOUR, closed_book=True)
    student = Client()
    student.force_login(world["ann"])  # takes a closed-book seat
    client.force_login(world["teacher"])
    data = {"student": world["ann"].pk, "due_at": minute(NOW + 3 * HOUR)}
    page = client.post(url("extension_grant", world, assignment.pk), data, follow=True).text
    assert "Ann (ann) now has until" in page
    seats = page.split("Closed-book: who is in it")[1]
    assert '<th scope="row">Ann (ann)</th>' in seats
    assert '<th scope="row">ann</th>' not in page
    withdrawn = client.post(
        reverse("tutor:extension_withdraw", args=[world["cohort"].pk, assignment.pk, world["ann"].pk]),
        follow=True,
    ).text
    assert "Ann (ann) is due at the assignment&#x27;s date again." in withdrawn or (
        "Ann (ann) is due at the assignment's date again." in withdrawn
    )
