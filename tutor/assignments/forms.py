"""The teacher's forms: setting or changing an assignment, and granting an extension.
Times are typed in the site's time zone (a `datetime-local` field) and kept in UTC."""

import ipaddress
from datetime import timedelta

from django import forms
from django.contrib.auth.models import User
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from course.models import Block, Lesson
from tutor import practice
from tutor.assignments.models import Assignment
from tutor.practice.questions import QUESTION_KINDS
from tutor.practice.questions.topics import course_topics, questions_on

MINUTE = "%Y-%m-%dT%H:%M"


def minute_field(label, help_text, *, required, invalid) -> forms.DateTimeField:
    return forms.DateTimeField(
        label=label,
        help_text=help_text,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format=MINUTE),
        error_messages={"required": required, "invalid": invalid},
    )


def practice_blocks():
    return Block.objects.filter(kind__in=[kind.name for kind in practice.every()])


def item_label(block: Block) -> str:
    """An exercise as a teacher picks it: its kind and its title (a snippet's caption, an
    exercise's title; else the block's key)."""
    spec = block.kind_spec
    title = getattr(spec.content_of(block), "title", "") or block.title or block.key
    return f"{spec.label}: {title}"


class ItemsField(forms.ModelMultipleChoiceField):
    widget = forms.CheckboxSelectMultiple

    def label_from_instance(self, block: Block) -> str:
        return item_label(block)


class AssignmentForm(forms.Form):
    lesson = forms.ModelChoiceField(
        queryset=Lesson.objects.none(),
        empty_label=None,
        error_messages={"invalid_choice": _("Choose one of the lessons in the list.")},
    )
    blocks = ItemsField(
        queryset=Block.objects.none(),
        required=False,
        label=_("Exercises"),
        help_text=_("Leave them all unticked to set the whole lesson."),
        error_messages={"invalid_choice": _("Choose exercises of the assigned lesson only.")},
    )
    opens_at = minute_field(
        _("Opening date"),
        _("Students see the assignment from then on."),
        required=_("Give the opening date."),
        invalid=_("Write the opening date as a date and a time, e.g. 2026-12-05 17:00."),
    )
    due_at = minute_field(
        _("Due date"),
        _("Work done after it is accepted and marked late."),
        required=_("Give the due date."),
        invalid=_("Write the due date as a date and a time, e.g. 2026-12-05 17:00."),
    )
    closed_book = forms.BooleanField(
        required=False,
        label=_("Closed-book"),
        help_text=_("From opening to due, its students reach only this assignment's items, in one "
        "session each (signing in elsewhere ends the other)."),
    )
    hidden_tests_after_due = forms.BooleanField(
        required=False,
        label=_("Show hidden tests once due"),
        help_text=_("After a student's due date (their extension's, if any), the hidden tests of "
        "its code exercises show them what each checks and what it expected, as solving the "
        "exercise does. Work sent after that is still accepted and marked late."),
    )
    hint_cost = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=100,
        label=_("Hint cost (%)"),
        help_text=_("Each hint (or piece of the solution) a student uses on an item costs this "
        "percentage of the item's score; 0 or empty: hints are free. Students read it beside "
        "the hints."),
        error_messages={
            "invalid": _("Write the hint cost as a whole number of percent, 0 to 100."),
            "min_value": _("The hint cost is at least 0%%."),
            "max_value": _("The hint cost is at most 100%%."),
        },
    )
    allowed_addresses = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        label=_("Allowed addresses (closed-book)"),
        help_text=_("Optional: the room's addresses or networks, one a line (192.0.2.0/24); empty: anywhere."),
    )

    quiz = forms.BooleanField(
        required=False,
        label=_("Give its questions as a quiz"),
        help_text=_("Students answer the questions in attempts of their own, with a score; the "
        "items must be questions (none ticked: every question of the lesson)."),
    )
    attempts_allowed = forms.IntegerField(
        min_value=1,
        max_value=20,
        initial=1,
        required=False,
        label=_("Attempts allowed"),
        help_text=_("Quiz only: a student's score is their best submitted attempt's."),
        error_messages={"min_value": _("Allow at least one attempt."), "invalid": _("Give a whole number of attempts.")},
    )
    time_limit = forms.IntegerField(
        min_value=1,
        max_value=24 * 60,
        required=False,
        label=_("Time limit (minutes)"),
        help_text=_("Quiz only: from when a student starts an attempt, on the server's clock. Empty: none."),
        error_messages={"min_value": _("A time limit is at least one minute."), "invalid": _("Give the minutes as a whole number.")},
    )
    shuffle_questions = forms.BooleanField(
        required=False,
        initial=True,
        label=_("Shuffle the questions"),
        help_text=_("Quiz only: each attempt has an order of its own."),
    )
    feedback = forms.ChoiceField(
        choices=Assignment.Feedback.choices,
        initial=Assignment.Feedback.AFTER_SUBMITTING,
        required=False,
        label=_("Feedback"),
        help_text=_("Quiz only: when students see what was right. Right answers are shown after "
        "submitting only once no attempts are left or the quiz is due."),
        error_messages={"invalid_choice": _("Choose when students see the feedback, from the list.")},
    )

    # A quiz drawn from the course's questions on some topics, instead of the lesson's.
    draw_count = forms.IntegerField(
        min_value=1,
        max_value=200,
        required=False,
        label=_("Questions to draw"),
        help_text=_("Quiz only: each attempt draws this many questions at random from the course's "
                    "questions on the topics ticked. Empty: the lesson's questions."),
        error_messages={"min_value": _("Draw at least one question."),
                        "max_value": _("Draw at most 200 questions."),
                        "invalid": _("Give how many questions to draw as a whole number.")},
    )
    draw_topics = forms.MultipleChoiceField(
        choices=[],
        required=False,
        label=_("Topics"),
        error_messages={"invalid_choice": _("Choose topics of the lesson's course, from the list.")},
    )

    def clean_hint_cost(self) -> int:
        return self.cleaned_data["hint_cost"] or 0

    def clean_allowed_addresses(self) -> str:
        lines = [
            line.strip()
            for line in self.cleaned_data["allowed_addresses"].splitlines()
            if line.strip()
        ]
        for line in lines:
            try:
                ipaddress.ip_network(line, strict=False)
            except ValueError:
                raise forms.ValidationError(
                    gettext("“%(line)s” is not an address or a network (like 192.0.2.0/24).")
                    % {"line": line}
                ) from None
        return "\n".join(lines)

    def __init__(self, *args, lessons, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["lesson"].queryset = lessons
        self.fields["blocks"].queryset = practice_blocks().select_related("lesson")
        lesson = self.chosen_lesson()
        # The course's topics, each with how many quiz questions carry it.
        self.topic_choices = course_topics(lesson.course) if lesson is not None else []
        self.fields["draw_topics"].choices = [(name, name) for name, _count in self.topic_choices]

    @classmethod
    def starting(cls, *, lessons, data=None) -> "AssignmentForm":
        """A new assignment's form: opening now, due in a week (what GET prefills)."""
        now = timezone.localtime().replace(second=0, microsecond=0)
        initial = {"opens_at": now, "due_at": now + timedelta(days=7), "shuffle_questions": True}
        if data is not None:  # a GET that chose a lesson keeps what was typed
            initial |= {key: data[key] for key in ("lesson", "opens_at", "due_at") if data.get(key)}
        return cls(lessons=lessons, initial=initial)

    def chosen_lesson(self) -> Lesson | None:
        """The lesson whose exercises the form offers: the one posted or prefilled, else
        the first of the list."""
        queryset = self.fields["lesson"].queryset
        value = self.data.get("lesson") if self.is_bound else self.initial.get("lesson")
        value = getattr(value, "pk", value)
        if value is not None and str(value).isdecimal():
            found = queryset.filter(pk=int(value)).first()
            if found is not None:
                return found
        return queryset.first()

    def item_choices(self, lesson: Lesson | None) -> list[Block]:
        if lesson is None:
            return []
        return list(practice_blocks().filter(lesson=lesson).order_by("position", "pk"))

    def clean(self):
        data = super().clean()
        lesson, blocks = data.get("lesson"), data.get("blocks") or []
        if lesson is not None and any(block.lesson_id != lesson.pk for block in blocks):
            self.add_error("blocks", "Choose exercises of the assigned lesson only.")
        if data.get("quiz") and lesson is not None:
            not_questions = [b for b in blocks if b.kind not in QUESTION_KINDS]
            if not_questions:
                self.add_error(
                    "blocks",
                    gettext("A quiz holds questions only: untick %(items)s.")
                    % {"items": ", ".join(f"“{item_label(b)}”" for b in not_questions)},
                )
            elif not blocks and data.get("draw_count") is None and not lesson.blocks.filter(kind__in=QUESTION_KINDS).exists():
                self.add_error(
                    "quiz",
                    gettext("“%(lesson)s” has no questions to give as a quiz: choose another lesson.")
                    % {"lesson": lesson.title},
                )
        self.clean_draw(data)
        data["attempts_allowed"] = data.get("attempts_allowed") or 1
        data["shuffle_questions"] = bool(data.get("shuffle_questions"))
        data["feedback"] = data.get("feedback") or Assignment.Feedback.AFTER_SUBMITTING
        opens_at, due_at = data.get("opens_at"), data.get("due_at")
        if opens_at and due_at and due_at <= opens_at:
            self.add_error("due_at", gettext("The due date must be after the opening date."))
        return data

    def clean_draw(self, data: dict) -> None:
        """A drawn quiz: a quiz, no exercises ticked, a topic at least, and no more questions
        to draw than the topics offer."""
        count, topics, lesson = data.get("draw_count"), data.get("draw_topics") or [], data.get("lesson")
        if count is None:
            if topics:
                self.add_error("draw_count", _("Say how many questions to draw from the topics ticked."))
            data["draw_topics"] = []
            return
        if not data.get("quiz"):
            self.add_error("draw_count", _("Drawing questions is for a quiz: tick “Give its questions as a quiz”."))
        elif data.get("blocks"):
            self.add_error("blocks", _("A drawn quiz draws from its topics: untick the exercises."))
        elif not topics:
            self.add_error("draw_topics", _("Tick at least one topic to draw the questions from."))
        elif lesson is not None:
            offered = len(questions_on(lesson.course, topics))
            if count > offered:
                self.add_error("draw_count", ngettext(
                    "The topics ticked offer %(n)d question: draw at most that many, or tick more topics.",
                    "The topics ticked offer %(n)d questions: draw at most that many, or tick more topics.",
                    offered,
                ) % {"n": offered})

    def topics_shown(self) -> list[tuple[str, int, bool]]:
        """(topic, questions on it, ticked) for the form's list."""
        ticked = set(self["draw_topics"].value() or [])
        return [(name, count, name in ticked) for name, count in self.topic_choices]


class ExtensionForm(forms.Form):
    student = forms.ModelChoiceField(
        queryset=User.objects.none(),
        empty_label=None,
        error_messages={"invalid_choice": _("Choose a student of this class.")},
    )
    due_at = minute_field(
        _("New due date"),
        _("Only for this student; the others keep the assignment’s."),
        required=_("Give the new due date."),
        invalid=_("Write the new due date as a date and a time, e.g. 2026-12-05 17:00."),
    )

    def __init__(self, *args, students, assignment, **kwargs):
        super().__init__(*args, **kwargs)
        self.assignment = assignment
        self.fields["student"].queryset = students

    def clean_due_at(self):
        due_at = self.cleaned_data["due_at"]
        if due_at <= self.assignment.due_at:
            raise forms.ValidationError(gettext("An extension must be after the assignment’s due date."))
        return due_at
