"""Classes: teachers create them and review their students' work; students join and leave.

Every teacher page checks, in the view, that the user is a teacher (403 otherwise) and that
the class is theirs (404 otherwise; an admin may review any class).
"""

import heapq

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.db.models import Count, Min, Q, prefetch_related_objects
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from course.htmx import login_required_htmx, vary_on_htmx, wants_partial
from course.models import Block, Lesson
from tutor import practice, teaching
from tutor.actions.classes import (
    ClassRefused,
    create_class,
    join_class,
    leave_class,
    normalise_join_code,
    remove_student,
)
from tutor.assignments import grid as assignment_grid
from tutor.clusters.comments import lesson_groups
from tutor.forms import ClassForm, ClassLanguageForm, ClassTimeZoneForm, JoinForm
from tutor.models import (
    Cohort,
    LessonProgress,
    Membership,
)
from tutor.practice.hints import teaching as hint_teaching
from tutor.roles import class_students, is_teacher, require_teacher, taught_class
from tutor.time_zones import browser_zone
from tutor.trail.teaching import class_trails, trails_of

CSV_CHUNK = 2000
TIMELINE_LIMIT = 200  # of each kind, newest first


def join_url(request: HttpRequest, cohort: Cohort) -> str:
    return request.build_absolute_uri(reverse("tutor:class_join", args=[cohort.join_code]))


# Students and teachers: the list of classes, joining, leaving -------------------------


def class_list_response(
    request: HttpRequest, *, create_form: ClassForm | None = None, status: int = 200
) -> TemplateResponse:
    teaching_now = is_teacher(request.user)
    taught = (
        Cohort.objects.visible_to(request.user)
        .select_related("teacher")
        .prefetch_related("co_teachers")
        .annotate(student_count=Count("memberships"))
        if teaching_now
        else []
    )
    joined = (
        Cohort.objects.joined_by(request.user).select_related("teacher").prefetch_related("co_teachers")
    )
    context = {
        "is_teacher": teaching_now,
        "taught": taught,
        "joined": joined,
        "create_form": create_form or ClassForm(),
        "join_form": JoinForm(),
    }
    return TemplateResponse(request, "tutor/teaching/class_list.html", context, status=status)


@require_GET
@login_required
def class_list(request: HttpRequest) -> TemplateResponse:
    return class_list_response(request)


@require_POST
@login_required
def class_create(request: HttpRequest) -> HttpResponse:
    require_teacher(request)
    form = ClassForm(request.POST)
    if form.is_valid():
        try:
            # In the zone the teacher's browser is in, when it said so; the class page changes it.
            cohort = create_class(
                teacher=request.user, name=form.cleaned_data["name"], time_zone=browser_zone() or "UTC"
            )
        except ClassRefused as refused:
            form.add_error("name", str(refused))
        else:
            messages.success(
                request,
                _("“%(class)s” is ready. Give your students its code: %(code)s.")
                % {"class": cohort.name, "code": cohort.join_code},
            )
            return redirect("tutor:class_detail", cohort.pk)
    return class_list_response(request, create_form=form, status=400)


@require_http_methods(["GET", "POST"])
def class_join(request: HttpRequest, code: str = "") -> HttpResponse:
    """With a code in the link, GET asks to confirm; without one, it shows the code form.
    POST joins. A visitor not signed in who follows a class's link is most often a new
    student: it leads to Sign up (which links to Log in), and back here; the bare form, to
    Log in."""
    if not request.user.is_authenticated:
        first = "tutor:signup" if code and request.method == "GET" else settings.LOGIN_URL
        return redirect_to_login(request.get_full_path(), login_url=reverse(first))
    if request.method == "POST":
        form = JoinForm(request.POST)
        if form.is_valid():
            try:
                cohort = join_class(student=request.user, code=form.cleaned_data["code"])
            except ClassRefused as refused:
                form.add_error("code", str(refused))
            else:
                messages.success(
                    request,
                    _("You joined “%(class)s”. %(teachers)s can now see your progress.")
                    % {"class": cohort.name, "teachers": cohort.taught_by()},
                )
                return redirect("tutor:class_list")
        return TemplateResponse(
            request, "tutor/teaching/class_join.html", {"form": form, "cohort": None}, status=400
        )
    code = normalise_join_code(code or request.GET.get("code", ""))
    cohort = None
    form = JoinForm(initial={"code": code})
    if code:
        cohort = Cohort.objects.select_related("teacher").filter(join_code=code).first()
        if cohort is None:
            form = JoinForm({"code": code})
            form.is_valid()
            form.add_error("code", _("No class has that code. Check it with your teacher."))
    already = cohort is not None and cohort.memberships.filter(student=request.user.pk).exists()
    own = cohort is not None and cohort.is_taught_by(request.user)
    context = {"form": form, "cohort": cohort, "already": already, "own": own}
    status = 404 if code and cohort is None else 200
    return TemplateResponse(request, "tutor/teaching/class_join.html", context, status=status)


@require_POST
@login_required
def class_leave(request: HttpRequest, pk: int) -> HttpResponse:
    cohort = get_object_or_404(Cohort, pk=pk)
    try:
        leave_class(cohort=cohort, student=request.user)
    except ClassRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, _("You left “%(class)s”.") % {"class": cohort.name})
    return redirect("tutor:class_list")


# Teachers: a class ---------------------------------------------------------------------


@require_GET
@login_required_htmx  # the grid's sort links swap it with htmx
def class_detail(request: HttpRequest, pk: int) -> TemplateResponse:
    """The grid of students × lessons. A fixed number of queries whatever the class size:
    the class, the lessons, the students, and their progress rows (and the class's co-teachers)."""
    cohort = taught_class(request, pk)
    filtered = assignment_grid.class_grid_context(cohort, request.GET.get("assignment", ""))
    lessons = list(practice.lessons_with_practice().values_list("pk", "title", "course__title"))
    students = list(
        class_students(cohort).values_list("pk", "username", "first_name", "last_name")
    )
    progress = LessonProgress.objects.grid_cells(cohort)
    grid = teaching.build_grid(students, lessons, progress)
    headers = teaching.sort_rows(grid, request.GET.get("sort", ""))
    context = {
        "cohort": cohort,
        "grid": grid,
        "headers": headers,
        "chart": [
            (column, teaching.distribution(column, len(grid.rows)), teaching.distribution_text(column))
            for column in grid.columns
        ],
        "buckets": teaching.BUCKETS,
        "join_url": join_url(request, cohort),
        "zone_form": ClassTimeZoneForm(initial={"time_zone": cohort.time_zone}),
        "language_form": ClassLanguageForm(initial={"language": cohort.language}),
    } | filtered
    template = "tutor/teaching/class_detail.html"
    if wants_partial(request):
        template += "#class-grid"
    else:
        prefetch_related_objects([cohort], "co_teachers")  # the header's "taught by A and B"
    return vary_on_htmx(TemplateResponse(request, template, context))


@require_POST
@login_required
def class_time_zone(request: HttpRequest, pk: int) -> HttpResponse:
    """The class's time zone: its due dates in it for whoever's browser does not say its own."""
    cohort = taught_class(request, pk)
    form = ClassTimeZoneForm(request.POST)
    if form.is_valid():
        cohort.time_zone = form.cleaned_data["time_zone"]
        cohort.save(update_fields=["time_zone"])
        messages.success(
            request,
            _("“%(class)s” is now in %(zone)s time.") % {"class": cohort.name, "zone": cohort.time_zone},
        )
    else:
        messages.error(request, form.errors["time_zone"][0])
    return redirect("tutor:class_detail", cohort.pk)


@require_POST
@login_required
def class_language(request: HttpRequest, pk: int) -> HttpResponse:
    """The class's default language: its students' pages speak it (from their next sign-in)
    unless they chose their own."""
    cohort = taught_class(request, pk)
    form = ClassLanguageForm(request.POST)
    if form.is_valid():
        cohort.language = form.cleaned_data["language"]
        cohort.save(update_fields=["language"])
        messages.success(request, _("Saved: “%(class)s”'s language.") % {"class": cohort.name})
    else:
        messages.error(request, form.errors["language"][0])
    return redirect("tutor:class_detail", cohort.pk)


@require_POST
@login_required
def class_remove_student(request: HttpRequest, pk: int, student_pk: int) -> HttpResponse:
    cohort = taught_class(request, pk)
    # Only a member of this class: the message must not name anyone else on the site.
    student = User.objects.filter(pk=student_pk, memberships__cohort=cohort).first()
    try:
        if student is None:
            raise ClassRefused(_("That student is not in this class."))
        remove_student(cohort=cohort, student=student)
    except ClassRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(
            request,
            _("%(student)s is no longer in “%(class)s”.")
            % {"student": teaching.name_of(student), "class": cohort.name},
        )
    return redirect("tutor:class_detail", cohort.pk)


@require_GET
@login_required
def class_lesson(request: HttpRequest, pk: int, lesson_pk: int) -> TemplateResponse:
    """Item analysis: how the class did on each snippet and ordering exercise of a lesson."""
    cohort = taught_class(request, pk)
    lesson = get_object_or_404(Lesson.objects.published().select_related("course"), pk=lesson_pk)
    in_class = Q(user__memberships__cohort=cohort)
    # Each kind's items in one section, the sections in the order the lesson first uses them.
    first_at = dict(
        Block.objects.filter(lesson=lesson).values("kind").annotate(first=Min("position")).values_list("kind", "first")
    )
    kinds = sorted(practice.every(), key=lambda kind: (first_at.get(kind.name) is None, first_at.get(kind.name) or 0))
    analyses = [(kind, kind.analyses(in_class=in_class, lesson=lesson)) for kind in kinds]
    students = Membership.objects.filter(cohort=cohort).count()
    completed = list(
        LessonProgress.objects.filter(in_class, lesson=lesson, completed_at__isnull=False)
        .order_by("completed_at")
        .values_list("completed_at", flat=True)
    )
    context = {
        "cohort": cohort,
        "lesson": lesson,
        "students": students,
        "analyses": analyses,
        "hint_items": hint_teaching.analysis(in_class=in_class, lesson=lesson, students=students),
        "over_time": teaching.completion_over_time(completed, students),
        "groups": lesson_groups(cohort, lesson),  # wrong answers grouped, and comments on them
        "class_trails": class_trails(cohort, lesson),  # how each student's code was made
    }
    return TemplateResponse(request, "tutor/teaching/class_lesson.html", context)


@require_GET
@login_required
def class_student(request: HttpRequest, pk: int, student_pk: int) -> TemplateResponse:
    """One student's activity, newest first: predictions, ordering checks, runs."""
    cohort = taught_class(request, pk)
    student = get_object_or_404(User, pk=student_pk, memberships__cohort=cohort)
    events = teaching.timeline(
        *(kind.events(student=student, limit=TIMELINE_LIMIT) for kind in practice.every_with_panels()),
        hint_teaching.events(student=student, limit=TIMELINE_LIMIT),
    )
    progress = (
        LessonProgress.objects.filter(user=student, lesson__in=Lesson.objects.published())
        .select_related("lesson__course")
        .order_by("lesson__course__position", "lesson__position", "lesson__pk")
    )
    context = {
        "cohort": cohort,
        "student": student,
        "name": teaching.student_name(student.username, student.first_name, student.last_name),
        "events": events,
        "limit": TIMELINE_LIMIT,
        "progress": [(p, teaching.progress_cell(p.items_done, p.items_total, p.is_complete)) for p in progress],
        "trails": trails_of(student),
    }
    return TemplateResponse(request, "tutor/teaching/class_student.html", context)


# Teachers: CSV ------------------------------------------------------------------------


def csv_response(rows, *, header: list[str], cohort: Cohort, what: str) -> StreamingHttpResponse:
    filename = f"{slugify(cohort.name) or 'class'}-{what}-{timezone.localdate().isoformat()}.csv"
    response = StreamingHttpResponse(
        teaching.csv_lines(header, rows), content_type="text/csv; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


@require_GET
@login_required
def class_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    """The grid, one row per student: percent complete per lesson (empty: not started)."""
    cohort = taught_class(request, pk)
    if assignment := assignment_grid.chosen_assignment(cohort, request.GET.get("assignment", "")):
        # Filtered to an assignment: its due dates and submission times, one row per student.
        return assignment_csv(request, cohort, assignment)
    lessons = list(practice.lessons_with_practice().values_list("pk", "title"))
    memberships = (
        Membership.objects.filter(cohort=cohort)
        .order_by("student_id")
        .values_list("student_id", "student__username", "student__first_name", "student__last_name", "joined_at")
        .iterator(chunk_size=CSV_CHUNK)
    )
    progress = (
        LessonProgress.objects.grid_cells(cohort)
        .order_by("user_id", "lesson_id")
        .iterator(chunk_size=CSV_CHUNK)
    )
    header = ["username", "name", "joined", *[f"{title} (%)" for _, title in lessons], "overall (%)"]
    rows = teaching.grid_csv_rows(memberships, progress, [pk for pk, _ in lessons])
    return csv_response(rows, header=header, cohort=cohort, what="progress")


def assignment_csv(request: HttpRequest, cohort: Cohort, assignment) -> StreamingHttpResponse:
    students = list(class_students(cohort).values_list("pk", "username", "first_name", "last_name"))
    found = assignment_grid.standings(
        [assignment], [pk for pk, *_ in students], among=assignment_grid.members(cohort)
    )
    rows = assignment_grid.csv_rows(found, assignment, students)
    return csv_response(rows, header=assignment_grid.csv_header(assignment), cohort=cohort, what=f"assignment-{assignment.pk}")


ATTEMPT_HEADER = [
    "kind", "username", "name", "time", "course", "lesson", "item", "snippet version", "verdict",
    "first prediction", "answer", "output", "help used", "run status",
]


def attempt_rows(cohort: Cohort):
    """Every attempt of the class's students (predictions, checks, runs, ...), oldest first
    across kinds. Each practice kind reads its attempts in time order and the streams are
    merged as they go, so a class of any size goes out in constant memory."""
    in_class = Q(user__memberships__cohort=cohort)
    streams = [
        stream
        for kind in practice.every()
        for stream in kind.attempt_rows(in_class=in_class, chunk=CSV_CHUNK)
    ]
    for _when, row in heapq.merge(*streams, key=lambda row: row[0]):
        yield row


@require_GET
@login_required
def class_attempts_csv(request: HttpRequest, pk: int) -> StreamingHttpResponse:
    """Every prediction, ordering check and run of the class's students, oldest first."""
    cohort = taught_class(request, pk)
    return csv_response(attempt_rows(cohort), header=ATTEMPT_HEADER, cohort=cohort, what="attempts")
