"""The Review page: today's cards, and each card one at a time (its form, then its graded
answer with the right one). Every view checks, itself, that the learner is logged in, that
review is open to them and that the card is theirs (someone else's is a 404). A plain POST
redirects to the card showing its answer (`?answer=<pk>`); an htmx POST gets the
`review-item` region of templates/tutor/review/item.html."""

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from course import htmx
from course.models import Lesson
from tutor import practice
from tutor.practice.questions.answers import Malformed
from tutor.review import actions, today
from tutor.review.items import NotReady, Pending, reviewer
from tutor.review.models import CodeReview, ReviewAnswer, ReviewCard

ITEM_PARTIAL = "tutor/review/item.html#review-item"


def closed(request: HttpRequest) -> TemplateResponse:
    return TemplateResponse(request, "tutor/review/closed.html", {}, status=403)


def item_title(card: ReviewCard) -> str:
    """What the learner reads for the item: its title, or what it asks (not its key)."""
    title = practice.item_title(card.block)
    return str(reviewer(card.block).label) if title == card.block.key else title


def learners_card(request: HttpRequest, card_pk: int) -> ReviewCard:
    """The learner's own card on an item of a published lesson; anything else is a 404."""
    return get_object_or_404(
        ReviewCard.objects.of(request.user).select_related("block__lesson__course", "user"),
        pk=card_pk, block__lesson__in=Lesson.objects.published(),
    )


@require_GET
@never_cache
def review(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return htmx.log_in_first(request, then=reverse("tutor:review"))
    if not today.open_to(request.user):
        return closed(request)
    found = today.today(request.user)
    rows = [(card, item_title(card), reviewer(card.block)) for card in found.cards]
    return TemplateResponse(request, "tutor/review/review.html", {"today": found, "rows": rows})


def item_context(
    request: HttpRequest, card: ReviewCard, answer: ReviewAnswer | None, testing: CodeReview | None = None
) -> dict:
    kind = reviewer(card.block)
    context = {"card": card, "kind": kind, "title": item_title(card), "answer": answer}
    if answer is None and testing is not None:
        if testing.answer_id is not None:
            answer = context["answer"] = testing.answer
        elif not testing.run.as_seen().is_final:
            return context | {"testing": testing}
        else:  # tested, and not counted: the exercise's tests could not run, or reviewed meanwhile
            context["untested"] = True
    if answer is not None:
        try:
            context |= kind.result(card, answer)
        except NotReady:  # the output was known when graded: shown again once it is back
            context["not_ready"] = True
        following = today.today(request.user).cards
        context["next_card"] = following[0] if following else None
    elif today.is_due(card):
        context |= kind.shown(card)
        context["due"] = True
    return context


@require_GET
@never_cache
def review_item(request: HttpRequest, card_pk: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return htmx.log_in_first(request, then=reverse("tutor:review_item", args=[card_pk]))
    if not today.open_to(request.user):
        return closed(request)
    card = learners_card(request, card_pk)
    if held := today.held_by_quiz(card):
        return TemplateResponse(request, "tutor/review/closed.html", {"why": held}, status=403)
    answer = testing = None
    if (answer_pk := practice.shown_id(request, "answer")) is not None:
        answer = ReviewAnswer.objects.filter(card=card, pk=answer_pk).first()
        if answer is None:
            raise Http404("No such answer to this card.")
    elif (testing_pk := practice.shown_id(request, "testing")) is not None:
        testing = CodeReview.objects.filter(card=card, pk=testing_pk).select_related("run", "answer").first()
        if testing is None:
            raise Http404("No such code sent for this card.")
    template = ITEM_PARTIAL if htmx.wants_partial(request) else "tutor/review/item.html"
    context = item_context(request, card, answer, testing)
    return htmx.vary_on_htmx(TemplateResponse(request, template, context))


def refused(request: HttpRequest, card: ReviewCard, message: str, *, status: int) -> HttpResponse:
    if htmx.wants_partial(request):
        return htmx.refusal(request, message, into="review-message", status=status)
    messages.error(request, message)
    return redirect("tutor:review_item", card.pk)


@require_POST
def review_answer(request: HttpRequest, card_pk: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return htmx.log_in_first(request, then=reverse("tutor:review_item", args=[card_pk]))
    if not today.open_to(request.user):
        return closed(request)
    card = learners_card(request, card_pk)
    if held := today.held_by_quiz(card):
        return refused(request, card, held, status=403)
    if not today.is_due(card):
        return refused(request, card, _("You have reviewed this one already: it comes back later."), status=409)
    try:
        graded = reviewer(card.block).grade(card, request.POST)
        answer = actions.review_card(card=card, graded=graded)
    except Malformed as refusal:
        return refused(request, card, str(refusal), status=400)
    except NotReady as refusal:  # not counted: answered again in a moment
        return refused(request, card, str(refusal), status=503)
    except actions.ReviewRefused as refusal:
        return refused(request, card, str(refusal), status=409)
    except Pending as pending:  # a code exercise: the worker tests it, and records the answer
        testing = CodeReview.objects.select_related("run", "answer").get(pk=pending.review.pk)
        if not htmx.wants_partial(request):
            return redirect(f"{reverse('tutor:review_item', args=[card.pk])}?testing={testing.pk}")
        context = item_context(request, card, None, testing) | {"answered": True}
        return TemplateResponse(request, ITEM_PARTIAL, context)
    if not htmx.wants_partial(request):
        return redirect(f"{reverse('tutor:review_item', args=[card.pk])}?answer={answer.pk}")
    return TemplateResponse(request, ITEM_PARTIAL, item_context(request, card, answer) | {"answered": True})
