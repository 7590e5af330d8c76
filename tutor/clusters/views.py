"""Teachers' pages on groups of wrong answers: a comment on a group (written, changed,
deleted) and the projector view of one item.

Every view checks, itself, that the user teaches the class (403 for anyone who is not a
teacher, 404 for another teacher's class; an admin may see any class). Nothing here names a
student: groups carry counts, and the projector shows answers only.
"""

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from course.htmx import login_required_htmx, refusal, vary_on_htmx, wants_partial
from course.models import Block, Lesson
from tutor.clusters.comments import (
    GroupRow,
    TeacherNote,
    item_groups,
    lesson_groups,
    teacher_name,
)
from tutor.clusters.forms import CommentForm
from tutor.clusters.groups import Group
from tutor.clusters.models import ClusterComment, ClusterCommentRead
from tutor.models import Cohort
from tutor.practice import item_title, practice_blocks, practice_blocks_of
from tutor.roles import taught_class

GROUPS = "tutor/clusters/groups.html"
PROJECTOR = "tutor/clusters/projector.html"
POLL_SECONDS = 5


def taught_block(block_pk: int) -> Block:
    """A practice block of a published lesson (what the teacher's lesson page shows)."""
    blocks = practice_blocks_of(Block.objects.filter(lesson__in=Lesson.objects.published()))
    return get_object_or_404(blocks.select_related("lesson__course"), pk=block_pk)


def group_row(cohort: Cohort, block: Block, key: str) -> GroupRow:
    """The group `key` on `block` with its comment: 404 when nobody is in it and it has no
    comment (a key from an old link, or made up)."""
    item = item_groups(cohort, [block])[0]
    row = next((row for row in item.rows if row.group.key == key), None)
    if row is None:
        idle = next((comment for comment in item.idle if comment.key == key), None)
        if idle is None:
            raise Http404("No such group.")
        row = GroupRow(block, Group(key, idle.summary, ""), idle)
    return row


def back_url(request: HttpRequest, cohort: Cohort, block: Block, row: GroupRow) -> str:
    """Where a plain (no-JS) form goes back to: the projector it came from, or the group on
    the teacher's lesson page."""
    if request.GET.get("from") == "projector":
        return reverse("tutor:cluster_projector", args=[cohort.pk, block.pk])
    return reverse("tutor:class_lesson", args=[cohort.pk, block.lesson_id]) + f"#{row.dom_id}"


def comment_page(request, context, *, status=200) -> TemplateResponse:
    inline = wants_partial(request)
    template = f"{GROUPS}#group-comment-form" if inline else "tutor/clusters/comment_form.html"
    return vary_on_htmx(
        TemplateResponse(request, template, {**context, "inline": inline}, status=status)
    )


def group_changed(request, cohort: Cohort, block: Block, row: GroupRow | None) -> TemplateResponse:
    """The group after its comment changed, and the item's and the lesson's reach, which
    changed too: all three from the same groups, so they agree."""
    groups = lesson_groups(cohort, block.lesson)
    item = groups.item(block.pk)
    if row is not None and item is not None:
        row = next((fresh for fresh in item.rows if fresh.group.key == row.group.key), row)
    context = {
        "cohort": cohort,
        "row": row,
        "groups": groups,
        "item": item,
        "right_answer": item.distribution.right_answer if item is not None else "",
    }
    return TemplateResponse(request, "tutor/clusters/group_changed.html", context)


@require_http_methods(["GET", "POST"])
@login_required_htmx
def group_comment(request: HttpRequest, pk: int, block_pk: int, key: str) -> HttpResponse:
    """GET: the form for the class's comment on a group (inline with htmx, else a page).
    POST: save it, new or changed."""
    cohort = taught_class(request, pk)
    block = taught_block(block_pk)
    row = group_row(cohort, block, key)
    context = {
        "cohort": cohort,
        "item_block": block,
        "title": item_title(block),
        "row": row,
        "back": back_url(request, cohort, block, row),
    }
    if request.method == "GET":
        initial = {"text": row.comment.text} if row.comment else {}
        return comment_page(request, {**context, "form": CommentForm(initial=initial)})
    form = CommentForm(request.POST)
    if not form.is_valid():
        if request.htmx:
            return refusal(request, form.first_error(), into=f"{row.dom_id}-message", status=400)
        return comment_page(request, {**context, "form": form}, status=400)
    now = timezone.now()
    row.comment, _ = ClusterComment.objects.update_or_create(
        cohort=cohort,
        block=block,
        key=key,
        defaults={
            "text": form.cleaned_data["text"],
            "summary": row.group.description[:300],
            "updated_at": now,
        },
        create_defaults={
            "text": form.cleaned_data["text"],
            "summary": row.group.description[:300],
            "author": request.user,
            "created_at": now,
            "updated_at": now,
        },
    )
    if request.htmx:
        return group_changed(request, cohort, block, row)
    messages.success(
        request,
        ngettext(
            "Saved: %(n)s student in this group sees your comment.",
            "Saved: %(n)s students in this group see your comment.",
            row.group.count,
        )
        % {"n": row.group.count},
    )
    return redirect(context["back"])


@require_POST
@login_required_htmx
def comment_delete(request: HttpRequest, pk: int, comment_pk: int) -> HttpResponse:
    cohort = taught_class(request, pk)
    comment = get_object_or_404(
        ClusterComment.objects.select_related("block"), pk=comment_pk, cohort=cohort
    )
    block = comment.block
    row = group_row(cohort, block, comment.key)
    comment.delete()
    row.comment = None
    if request.htmx:
        # A comment on a group nobody is in goes with its row.
        return group_changed(request, cohort, block, row if row.group.count else None)
    messages.success(request, _("Comment deleted: nobody sees it any more."))
    return redirect(back_url(request, cohort, block, row))


@require_GET
@login_required_htmx  # the board polls
def projector(request: HttpRequest, pk: int, block_pk: int) -> TemplateResponse:
    """One item for the class's screen: how the class answered, grouped, without names."""
    cohort = taught_class(request, pk)
    block = taught_block(block_pk)
    item = item_groups(cohort, [block])[0]
    blocks = practice_blocks(block.lesson)
    index = next(i for i, b in enumerate(blocks) if b.pk == block.pk)
    answered = item.distribution.answered
    context = {
        "cohort": cohort,
        "item_block": block,
        "item": item,
        "bars": [
            (row, round(100 * row.group.count / answered) if answered else 0) for row in item.rows
        ],
        "previous": blocks[index - 1] if index > 0 else None,
        "next": blocks[index + 1] if index + 1 < len(blocks) else None,
        "poll_seconds": POLL_SECONDS,
        "now": timezone.localtime(),
    }
    template = f"{PROJECTOR}#projector-board" if wants_partial(request) else PROJECTOR
    return vary_on_htmx(TemplateResponse(request, template, context))


@require_POST
@login_required_htmx
def comment_read(request: HttpRequest, comment_pk: int) -> HttpResponse:
    """The student saw their teacher's comment: beside their answer on the lesson page (htmx,
    when it scrolls into view), or by following it from the home page or My progress (a
    plain POST, which then goes to it). Only a comment on a class they are in."""
    comment = get_object_or_404(
        ClusterComment.objects.seen_by(request.user).select_related("block__lesson__course").distinct(),
        pk=comment_pk,
    )
    ClusterCommentRead.objects.update_or_create(
        comment=comment, student=request.user, defaults={"read_at": timezone.now()}
    )
    if request.htmx:
        return HttpResponse(status=204)
    note = TeacherNote(comment, teacher_name(comment.author), unread=False)
    return redirect(note.url)
