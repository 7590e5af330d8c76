"""What is taught and shared by every kind: courses, lessons, their blocks, the glossary.

A kind's own content rows live with its kind (`course/kinds/<kind>.py`: Snippet,
OrderingExercise and OrderingLine, CodeExercise and CodeTest), still in this app. Learner
data (in `tutor`) points at those rows; they are found again on every re-import by their
lesson and stable `key`, so editing content updates them in place instead of orphaning
what learners did.
"""

import html
import re
import unicodedata

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from django.urls import reverse
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

from course import registry

WORDS_PER_MINUTE = 238  # average silent reading speed of adults (Brysbaert, 2019)

# What an author may set for a course's or one snippet's runs, in the content files' words;
# the site's maxima (settings.SANDBOX_MAX_LIMITS) still apply.
RUN_LIMITS = {
    "cpu_seconds": _("CPU time, in seconds"),
    "wall_seconds": _("wall-clock time, in seconds"),
    "memory_mb": _("memory, in MiB"),
    "processes": _("processes and threads"),
    "output_kb": _("output (stdout and stderr together), in KiB"),
}
RUN_LIMITS_HELP = format_lazy(
    _("Sandbox limits for these runs, e.g. {example}: {limits}. Capped by the site's maxima."),
    example='{"wall_seconds": 20}',
    limits=format_lazy(", ".join(f"{name} ({{}})" for name in RUN_LIMITS), *RUN_LIMITS.values()),
)


def linked_in_order(manager) -> list:
    """The rows of a many-to-many relation in the order they were linked (the order the
    content files give: the through rows' order)."""
    through = manager.through
    source, target = manager.source_field_name, manager.target_field_name
    ids = list(
        through.objects.filter(**{source: manager.instance})
        .order_by("pk")
        .values_list(f"{target}_id", flat=True)
    )
    by_id = manager.model.objects.in_bulk(ids)
    return [by_id[pk] for pk in ids]


def validate_run_limits(value) -> None:
    if not isinstance(value, dict):
        raise ValidationError('Run limits are names with numbers, e.g. {"wall_seconds": 20}.')
    for name, number in value.items():
        if name not in RUN_LIMITS:
            raise ValidationError(f"Unknown run limit '{name}': use {', '.join(RUN_LIMITS)}.")
        if isinstance(number, bool) or not isinstance(number, int | float) or number <= 0:
            raise ValidationError(f"Run limit '{name}' must be a positive number.")


class Status(models.TextChoices):
    """A course or lesson is seen by learners only once it is published."""

    DRAFT = "draft", _("Draft: only staff see it")
    PUBLISHED = "published", _("Published")


STATUS_HELP = _("Drafts are shown to staff only (with a “draft” banner), never to learners.")


def can_see_drafts(user) -> bool:
    return bool(getattr(user, "is_staff", False))


class CourseQuerySet(models.QuerySet):
    def published(self) -> "CourseQuerySet":
        return self.filter(status=Status.PUBLISHED)

    def visible_to(self, user) -> "CourseQuerySet":
        """Staff see drafts too; everyone else, published courses only."""
        return self.all() if can_see_drafts(user) else self.published()


class Course(models.Model):
    slug = models.SlugField(unique=True, verbose_name=_("slug"))
    title = models.CharField(max_length=200, verbose_name=_("title"))
    status = models.CharField(
        max_length=10,
        choices=Status.choices,
        default=Status.PUBLISHED,
        help_text=STATUS_HELP,
        verbose_name=_("status"),
    )
    summary = models.TextField(blank=True, help_text=_("Markdown."), verbose_name=_("summary"))
    position = models.PositiveIntegerField(
        default=0, help_text=_("Place in the catalogue."), verbose_name=_("position")
    )
    run_limits = models.JSONField(
        default=dict,
        blank=True,
        validators=[validate_run_limits],
        help_text=RUN_LIMITS_HELP,
        verbose_name=_("run limits"),
    )
    # Language code -> the course's title and summary in it, as course.<language>.yaml holds
    # them (course/translations.py, docs/content-format.md "Translating a lesson").
    translations = models.JSONField(default=dict, blank=True, editable=False)  # edited as text: course/forms.py

    objects = CourseQuerySet.as_manager()

    class Meta:
        verbose_name = _("course")
        verbose_name_plural = _("courses")
        ordering = ["position", "title"]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("tutor:course_detail", args=[self.slug])

    @property
    def is_draft(self) -> bool:
        return self.status == Status.DRAFT


class LessonQuerySet(models.QuerySet):
    def published(self) -> "LessonQuerySet":
        """Lessons learners may see: published, in a published course."""
        return self.filter(status=Status.PUBLISHED, course__status=Status.PUBLISHED)

    def visible_to(self, user) -> "LessonQuerySet":
        """Staff see drafts too; everyone else, published lessons only."""
        return self.all() if can_see_drafts(user) else self.published()

    def in_order(self) -> "LessonQuerySet":
        return self.order_by("course__position", "course__title", "position", "pk")

    def for_page(self, user) -> "LessonQuerySet":
        """Lessons as their page needs them: those this user may see, with the course and
        the content version the page's cached renderings are kept under (one query)."""
        return (
            self.visible_to(user)
            .select_related("course")
            .annotate(content_version=ContentVersion.current())
        )

    def search(self, query: str) -> "LessonQuerySet":
        lookups = ["title", "summary", "blocks__title", "blocks__body"]
        lookups += [f"blocks__{lookup}" for kind in registry.every() for lookup in kind.search_lookups]
        matches = models.Q()
        for lookup in dict.fromkeys(lookups):
            matches |= models.Q(**{f"{lookup}__icontains": query})
        return self.filter(matches).distinct()


class Lesson(models.Model):
    course = models.ForeignKey(
        Course, on_delete=models.CASCADE, related_name="lessons", verbose_name=_("course")
    )
    slug = models.SlugField(verbose_name=_("slug"))
    title = models.CharField(max_length=200, verbose_name=_("title"))
    status = models.CharField(
        max_length=10,
        choices=Status.choices,
        default=Status.PUBLISHED,
        help_text=STATUS_HELP,
        verbose_name=_("status"),
    )
    level = models.CharField(
        max_length=40,
        blank=True,
        help_text=_("Badge, e.g. Beginner or Master."),
        verbose_name=_("level"),
    )
    summary = models.TextField(blank=True, help_text=_("Markdown."), verbose_name=_("summary"))
    what_you_will_see = models.TextField(
        blank=True, help_text=_("Shown literally, as output."), verbose_name=_("what you will see")
    )
    position = models.PositiveIntegerField(default=0, verbose_name=_("position"))
    terms = models.ManyToManyField(
        "GlossaryTerm",
        blank=True,
        related_name="lessons",
        help_text=_("Words this lesson uses."),
        verbose_name=_("terms"),
    )
    # Language code -> the lesson's prose in it, as its translation file holds it
    # (course/translations.py, docs/content-format.md "Translating a lesson").
    translations = models.JSONField(default=dict, blank=True, editable=False)  # edited as text: course/forms.py

    objects = LessonQuerySet.as_manager()

    class Meta:
        verbose_name = _("lesson")
        verbose_name_plural = _("lessons")
        ordering = ["course__position", "position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["course", "slug"], name="lesson_slug_unique_in_course")
        ]

    def __str__(self) -> str:
        return self.title

    def get_absolute_url(self) -> str:
        return reverse("tutor:lesson_detail", args=[self.course.slug, self.slug])

    @property
    def is_draft(self) -> bool:
        """A draft itself, or in a draft course: either way learners do not see it."""
        return self.status == Status.DRAFT or self.course.is_draft

    def reading_minutes(self) -> int:
        """Minutes to read the lesson's prose at an adult's average 238 words a minute.

        Code and literal output are not counted: they are practised (predicted, run,
        ordered), not read. Rounded to the nearest minute, at least one. Uses
        `self.blocks.all()`, so a view that prefetches blocks pays no query.
        """
        texts = [self.summary]
        for block in self.blocks.all():
            texts += block.kind_spec.reading_texts(block)
        words = sum(len(re.findall(r"\w+", text)) for text in texts)
        return max(1, round(words / WORDS_PER_MINUTE))

    def block_shown_in_preview(self) -> "Block | None":
        """The block whose answer "What you will see" shows (the preview is that snippet's
        output, give or take blank lines at the ends and trailing spaces), or None.

        The page then folds the preview away until the learner has predicted it. Uses
        `self.blocks.all()`, so a view that prefetches blocks pays no query.
        """
        preview = comparable_output(self.what_you_will_see)
        if not preview:
            return None
        for block in self.blocks.all():
            output = block.kind_spec.output_to_predict(block)
            if output is not None and comparable_output(output) == preview:
                return block
        return None

    def preview_mismatch(self) -> str:
        """What is wrong with "What you will see" when it was copied from a snippet's
        output that has changed since (or was copied with a slip): it then shares lines
        with that output but is not it, so the page shows it unfolded, before the learner
        has predicted it, and shows what the snippet does not print. "" when it is a
        snippet's output, or text of its own."""
        preview = comparable_output(self.what_you_will_see)
        if not preview or self.block_shown_in_preview() is not None:
            return ""
        for block in self.blocks.all():
            output = block.kind_spec.output_to_predict(block)
            if output is None:
                continue
            lines = comparable_output(output)
            shared = sum(line in lines for line in preview)
            if preview[0] not in lines and 2 * shared < len(preview):
                continue
            n, shown, printed = next(
                (n, a, b)
                for n, (a, b) in enumerate(zip([*preview, ""], [*lines, ""], strict=False), 1)
                if a != b
            )
            return (
                f"'What you will see' is almost the output of {block.kind_spec.noun} "
                f"'{block.key}', but its line {n} is {shown!r} where the snippet prints "
                f"{printed!r}: copy the output exactly, so the page keeps it folded until "
                "the learner has predicted it"
            )
        return ""


def comparable_output(text: str) -> list[str]:
    """Output lines as a reader compares them: trailing spaces and blank lines at either
    end do not count."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return lines


class Block(models.Model):
    """One piece of a lesson page, in page order. Its `kind` names one of the kinds
    declared in course.kinds, which knows its fields and its template."""

    lesson = models.ForeignKey(
        Lesson, on_delete=models.CASCADE, related_name="blocks", verbose_name=_("lesson")
    )
    key = models.SlugField(
        help_text=_("Stable inside the lesson: learner data points at it."), verbose_name=_("key")
    )
    position = models.PositiveIntegerField(default=0, verbose_name=_("position"))
    kind = models.CharField(
        max_length=20, help_text=_("One of the block kinds (course.kinds)."), verbose_name=_("kind")
    )
    title = models.CharField(max_length=200, blank=True, verbose_name=_("title"))
    body = models.TextField(blank=True, help_text=_("Markdown."), verbose_name=_("body"))
    items = models.JSONField(
        default=list,
        blank=True,
        help_text=_(
            "Data flow: a list of step names. Why this works / Examples: a list of "
            'objects with "title", "body" (Markdown) and, for examples, "lines".'
        ),
        verbose_name=_("items"),
    )
    values = models.JSONField(
        default=dict,
        blank=True,
        help_text=_(
            "The kind's other fields by name, as in the content files "
            '(e.g. {"shuffle": true}); empty for kinds that keep nothing else.'
        ),
        verbose_name=_("values"),
    )

    class Meta:
        verbose_name = _("block")
        verbose_name_plural = _("blocks")
        ordering = ["position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["lesson", "key"], name="block_key_unique_in_lesson")
        ]

    def __str__(self) -> str:
        return f"{self.lesson} · {self.kind_spec.label} · {self.key}"

    @property
    def kind_spec(self):
        """The declaration of this block's kind (course.kinds.BlockKind)."""
        return registry.get(self.kind)


EXCEPTION_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def validate_exception_name(value: str) -> None:
    if value and not EXCEPTION_NAME.fullmatch(value):
        raise ValidationError(
            f"'{value}' is not an exception's name: write it as Python prints it, "
            "e.g. ZeroDivisionError or json.JSONDecodeError."
        )


TITLE_CHARACTERS = 60


def title_from_intro(intro: str) -> str:
    """A short title for an exercise without one: the intro's first sentence, as plain text,
    cut at a word when long."""
    from course import markup

    text = html.unescape(markup.render_plain_text(intro))
    sentence = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0].strip()
    if len(sentence) <= TITLE_CHARACTERS:
        return sentence
    return sentence[: TITLE_CHARACTERS - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


class GlossaryTermQuerySet(models.QuerySet):
    def search(self, query: str) -> "GlossaryTermQuerySet":
        return self.filter(models.Q(term__icontains=query) | models.Q(definition__icontains=query))


class GlossaryTerm(models.Model):
    slug = models.SlugField(unique=True, verbose_name=_("slug"))
    term = models.CharField(max_length=100, verbose_name=_("term"))
    definition = models.TextField(
        help_text=_("Markdown; write [[slug]] to link another term."), verbose_name=_("definition")
    )
    see_also = models.ManyToManyField(
        "self",
        symmetrical=False,
        blank=True,
        related_name="pointed_at_by",
        help_text=_("The terms this one points at."),
        verbose_name=_("see also"),
    )
    # Language code -> the term and its definition in it (glossary.<language>.yaml).
    translations = models.JSONField(default=dict, blank=True, editable=False)

    objects = GlossaryTermQuerySet.as_manager()

    class Meta:
        verbose_name = _("glossary term")
        verbose_name_plural = _("glossary terms")
        ordering = [Lower("term")]

    def __str__(self) -> str:
        return self.term

    def get_absolute_url(self) -> str:
        return reverse("course:term_detail", args=[self.slug])

    @property
    def initial(self) -> str:
        # Without its accent ("Ü" is found under "U"): the glossary's index is A to Z.
        first = unicodedata.normalize("NFD", self.term[:1].upper())[:1]
        return first if "A" <= first <= "Z" else "#"


class ContentVersion(models.Model):
    """One row whose number changes whenever any content changes (admin, import, shell),
    in the same transaction as the change. Pages rendered from content are cached under
    it, so a reader never gets a rendering older than the content."""

    number = models.PositiveBigIntegerField(default=0, verbose_name=_("number"))

    class Meta:
        verbose_name = _("content version")
        verbose_name_plural = _("content versions")

    def __str__(self) -> str:
        return f"Content version {self.number}"

    @classmethod
    def current(cls) -> models.Subquery:
        """The number, as a subquery to annotate a query with (no query of its own)."""
        return models.Subquery(cls.objects.filter(pk=1).values("number")[:1])

    @classmethod
    def read(cls) -> int:
        return cls.objects.filter(pk=1).values_list("number", flat=True).first() or 0

    @classmethod
    def bump(cls) -> None:
        if not cls.objects.filter(pk=1).update(number=models.F("number") + 1):
            cls.objects.get_or_create(pk=1, defaults={"number": 1})
