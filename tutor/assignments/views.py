"""The teacher's pages for a class's assignments: the list, setting one, its page (where
each student stands, extensions), changing, closing and deleting it, and its CSV.

Every view checks, in the view, that the user teaches the class (tutor.views.teaching's
`taught_class`: 403 for non-teachers, 404 for another teacher's class) and that the
assignment is that class's (404 otherwise). A plain POST redirects with a message; an
htmx POST gets the region it swaps, and a refusal in the site's shape (course.htmx).
"""

from django.contrib import messages
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.formats import date_format
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect

from course.htmx import login_required_htmx, refusal, vary_on_htmx, wants_partial
from tutor.assignments import actions, grid
from tutor.assignments.forms import AssignmentForm, ExtensionForm, item_label
from tutor.assignments.grid import members
from tutor.assignments.models import Assignment
from tutor.assignments.status import done_times, items_of, standings
from tutor.models import Cohort
from tutor.practice import lessons_with_practice
from tutor.practice.hints import teaching as hint_teaching
from tutor.quizzes.analysis import FORMULA, quiz_analysis
from tutor.roles import class_students, taught_class
from tutor.teaching import name_of

TEMPLATES = "tutor/assignments/"


def class_assignment(
    request: HttpRequest, pk: int, assignment_pk: int
) -> tuple[Cohort, Assignment]:
    """The class (taught by the user) and its assignment `assignment_pk`, else 403/404."""
    cohort = taught_class(request, pk)
    assignment = get_object_or_404(
        Assignment.objects.select_related("lesson__course"), pk=assignment_pk, cohort=cohort
    )
    return cohort, assignment


def assignment_url(assignment: Assignment) -> str:
    return reverse("tutor:assignment_detail", args=[assignment.cohort_id, assignment.pk])


def form_response(
    request: HttpRequest,
    cohort: Cohort,
    form: AssignmentForm,
    *,
    assignment=None,
    status: int = 200,
) -> TemplateResponse:
    lesson = form.chosen_lesson()
    context = {
        "cohort": cohort,
        "form": form,
        "assignment": assignment,
        "lesson": lesson,
        "items": [(block, item_label(block)) for block in form.item_choices(lesson)],
        "chosen": {str(value) for value in (form["blocks"].value() or [])},
    }
    template = TEMPLATES + "assignment_form.html"
    if wants_partial(request) and request.method == "GET":
        template += "#assignment-items"
    return vary_on_htmx(TemplateResponse(request, template, context, status=status))


def saved_form(request: HttpRequest, lessons) -> AssignmentForm:
    form = AssignmentForm(request.POST, lessons=lessons)
    form.is_valid()
    return form


@require_GET
@login_required_htmx
def assignment_list(request: HttpRequest, pk: int) -> TemplateResponse:
    """The class's assignments, soonest due first, with how many are in."""
    cohort = taught_class(request, pk)
    assignments = list(Assignment.objects.of_class(cohort).select_related("lesson__course"))
    students = list(class_students(cohort).values_list("pk", flat=True))
    found = standings(assignments, students, among=members(cohort))
    rows = [(a, grid.tally(found, a, students)) for a in assignments]
    context = {"cohort": cohort, "rows": rows, "students": len(students), "now": timezone.now()}
    return TemplateResponse(request, TEMPLATES + "assignment_list.html", context)


@require_http_methods(["GET", "POST"])
@login_required_htmx  # choosing a lesson swaps its exercises in with htmx
def assignment_create(request: HttpRequest, pk: int) -> HttpResponse:
    cohort = taught_class(request, pk)
    lessons = lessons_with_practice()
    if request.method == "GET":
        return form_response(
            request, cohort, AssignmentForm.starting(lessons=lessons, data=request.GET)
        )
    form = saved_form(request, lessons)
    if form.is_valid():
        try:
            assignment = actions.create_assignment(cohort=cohort, **form.cleaned_data)
        except actions.AssignmentRefused as refused:
            form.add_error(None, str(refused))
        else:
            messages.success(
                request,
                _("“%(lesson)s” is set for %(class)s.")
                % {"lesson": assignment.lesson.title, "class": cohort.name},
            )
            return redirect(assignment_url(assignment))
    return form_response(request, cohort, form, status=400)


@require_http_methods(["GET", "POST"])
@login_required_htmx
def assignment_edit(request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
    cohort, assignment = class_assignment(request, pk, assignment_pk)
    lessons = lessons_with_practice()
    if request.method == "GET":
        if "lesson" in request.GET:  # another lesson chosen, before saving
            form = AssignmentForm.starting(lessons=lessons, data=request.GET)
        else:
            form = AssignmentForm(
                lessons=lessons,
                initial={
                    "lesson": assignment.lesson_id,
                    # A drawn quiz's blocks are its pool, not exercises the teacher ticked.
                    "blocks": [] if assignment.is_drawn else list(assignment.blocks.values_list("pk", flat=True)),
                    "opens_at": timezone.localtime(assignment.opens_at),
                    "due_at": timezone.localtime(assignment.due_at),
                    "closed_book": assignment.closed_book,
                    "allowed_addresses": assignment.allowed_addresses,
                    "hidden_tests_after_due": assignment.hidden_tests_after_due,
                    "quiz": assignment.quiz,
                    "attempts_allowed": assignment.attempts_allowed,
                    "time_limit": assignment.time_limit,
                    "shuffle_questions": assignment.shuffle_questions,
                    "feedback": assignment.feedback,
                    "draw_count": assignment.draw_count,
                    "draw_topics": assignment.draw_topics,
                    "hint_cost": assignment.hint_cost,
                },
            )
        return form_response(request, cohort, form, assignment=assignment)
    form = saved_form(request, lessons)
    if form.is_valid():
        try:
            actions.update_assignment(assignment=assignment, **form.cleaned_data)
        except actions.AssignmentRefused as refused:
            form.add_error(None, str(refused))
        else:
            messages.success(request, _("The assignment is saved."))
            return redirect(assignment_url(assignment))
    return form_response(request, cohort, form, assignment=assignment, status=400)


def hints_used(assignment: Assignment, items, students: list[int], among) -> dict[int, tuple[int, int]]:
    """Each student's hint-ladder rungs on the assignment's items and, when it states a
    hint cost, their score after it (each item done 100%, less the cost for each rung):
    Parsnip keeps no other per-item score (two queries and one per kind)."""
    blocks = [pk for pk, _ in items]
    taken = hint_teaching.rungs_taken(blocks=blocks, users=among)
    done = done_times(items, among) if assignment.hint_cost else {}
    scores = hint_teaching.scores_after_hints(
        blocks=blocks, students=students, done=done, taken=taken, cost=assignment.hint_cost
    )
    return {student: (sum(taken.get((student, block), 0) for block in blocks), scores[student]) for student in students}


def detail_context(cohort: Cohort, assignment: Assignment, **extra) -> dict:
    students = list(class_students(cohort).values_list("pk", "username", "first_name", "last_name"))
    found = standings([assignment], [pk for pk, *_ in students], among=members(cohort))
    items = items_of([assignment])[assignment.pk]
    rows = grid.with_time_taken(grid.student_rows(found, assignment, students), assignment)
    hints = hints_used(assignment, items, [pk for pk, *_ in students], members(cohort))
    form = extra.pop("extension_form", None) or ExtensionForm(
        students=class_students(cohort), assignment=assignment
    )
    return {
        "cohort": cohort,
        "assignment": assignment,
        "items": grid.item_names(assignment, items),
        "rows": rows,
        # Each row with the student's hint-ladder rungs on its items and their score after them.
        "student_rows": [(row, *hints[row.pk]) for row in rows],
        "tally": grid.tally(found, assignment, [pk for pk, *_ in students]),
        "extension_form": form,
        # The form's student list, from the rows already read (not a query per option).
        "student_choices": [(str(row.pk), row.name) for row in rows],
        "chosen_student": str(form["student"].value() or ""),
        # Closed-book: who is in it (their session's address) and what was refused to them.
        # A quiz: each question's difficulty, discrimination and options' shares.
        "quiz_analysis": quiz_analysis(assignment, [pk for pk, *_ in students]) if assignment.quiz else [],
        "quiz_formula": FORMULA,
        "seats": list(assignment.seats.select_related("student").order_by("student__username"))
        if assignment.closed_book
        else [],
        **extra,
    }


@require_GET
@login_required_htmx
def assignment_detail(request: HttpRequest, pk: int, assignment_pk: int) -> TemplateResponse:
    """Where each student stands: due date (extension), submitted when, on time, late, missing."""
    cohort, assignment = class_assignment(request, pk, assignment_pk)
    template = TEMPLATES + "assignment_detail.html"
    if wants_partial(request):
        template += "#assignment-students"
    return vary_on_htmx(TemplateResponse(request, template, detail_context(cohort, assignment)))


@require_POST
@login_required_htmx
def assignment_close(request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
    """Close (no more work accepted on its items) or reopen: `closed` is "yes" or "no"."""
    cohort, assignment = class_assignment(request, pk, assignment_pk)
    choice = request.POST.get("closed")
    if choice not in ("yes", "no"):
        message = _("Say whether to close the assignment (closed=yes) or reopen it (closed=no).")
        if wants_partial(request):
            return refusal(request, message, into="assignment-state-message", status=400)
        messages.error(request, message)
        return redirect(assignment_url(assignment))
    actions.set_closed(assignment=assignment, closed=choice == "yes")
    said = (
        _("Closed: its students can no longer send work on it.")
        if assignment.is_closed
        else _("Reopened: students can send work again (after the due date, it is marked late).")
    )
    if not wants_partial(request):
        messages.success(request, said)
        return redirect(assignment_url(assignment))
    context = {"cohort": cohort, "assignment": assignment, "said": said}
    return TemplateResponse(request, TEMPLATES + "assignment_detail.html#assignment-state", context)


@require_POST
@login_required_htmx
def assignment_delete(request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
    cohort, assignment = class_assignment(request, pk, assignment_pk)
    title = assignment.lesson.title
    actions.delete_assignment(assignment=assignment)
    messages.success(
        request,
        _("The assignment of “%(lesson)s” is deleted. Your students’ work is kept.")
        % {"lesson": title},
    )
    url = reverse("tutor:assignment_list", args=[cohort.pk])
    if wants_partial(request):
        return HttpResponseClientRedirect(url)
    return redirect(url)


def students_response(
    request: HttpRequest, cohort: Cohort, assignment: Assignment, *, status: int = 200, **extra
) -> HttpResponse:
    context = detail_context(cohort, assignment, **extra)
    return TemplateResponse(
        request, TEMPLATES + "assignment_detail.html#assignment-students", context, status=status
    )


@require_POST
@login_required_htmx
def extension_grant(request: HttpRequest, pk: int, assignment_pk: int) -> HttpResponse:
    """A later due date for one student of the class."""
    cohort, assignment = class_assignment(request, pk, assignment_pk)
    form = ExtensionForm(request.POST, students=class_students(cohort), assignment=assignment)
    error = None
    if form.is_valid():
        student = form.cleaned_data["student"]
        try:
            actions.grant_extension(
                assignment=assignment, student=student, due_at=form.cleaned_data["due_at"]
            )
        except actions.AssignmentRefused as refused:
            error = str(refused)
    else:
        error = next(iter(form.errors.values()))[0]
    if error is not None:
        if wants_partial(request):
            return refusal(request, error, into="extension-message", status=400)
        response = TemplateResponse(
            request,
            TEMPLATES + "assignment_detail.html",
            detail_context(cohort, assignment, extension_form=form),
            status=400,
        )
        return response
    due = date_format(timezone.localtime(form.cleaned_data["due_at"]), "j M Y, H:i T")
    said = _("%(student)s now has until %(due)s.") % {"student": name_of(student), "due": due}
    if not wants_partial(request):
        messages.success(request, said)
        return redirect(assignment_url(assignment))
    return students_response(request, cohort, assignment, said=said)


@require_POST
@login_required_htmx
def extension_withdraw(
    request: HttpRequest, pk: int, assignment_pk: int, student_pk: int
) -> HttpResponse:
    cohort, assignment = class_assignment(request, pk, assignment_pk)
    # Only a member of this class: the refusal must not name anyone else on the site.
    student = User.objects.filter(pk=student_pk, memberships__cohort=cohort).first()
    if student is None:
        raise Http404("No such student in this class.")
    try:
        actions.withdraw_extension(assignment=assignment, student=student)
    except actions.AssignmentRefused as refused:
        if wants_partial(request):
            return refusal(request, str(refused), into="extension-message", status=400)
        messages.error(request, str(refused))
        return redirect(assignment_url(assignment))
    said = _("%(student)s is due at the assignment's date again.") % {"student": name_of(student)}
    if not wants_partial(request):
        messages.success(request, said)
        return redirect(assignment_url(assignment))
    return students_response(request, cohort, assignment, said=said)
