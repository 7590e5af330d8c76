"""Small hand-written factories: each makes one valid row, with overridable fields."""

import itertools

from django.contrib.auth.models import Group, User

from course.kinds.ordering import OrderingExercise, OrderingLine
from course.kinds.snippet import Snippet
from course.models import (
    Block,
    Course,
    GlossaryTerm,
    Lesson,
)
from tutor.roles import TEACHERS_GROUP

_seq = itertools.count(1)


def make_user(username: str | None = None, **fields) -> User:
    username = username or f"user{next(_seq)}"
    user = User.objects.create_user(username=username, password="pw-" + username, **fields)
    return user


def make_teacher(username: str | None = None) -> User:
    user = make_user(username)
    user.groups.add(Group.objects.get_or_create(name=TEACHERS_GROUP)[0])
    return user


def make_admin(username: str | None = None) -> User:
    return make_user(username, is_staff=True, is_superuser=True)


def make_course(**fields) -> Course:
    n = next(_seq)
    fields.setdefault("slug", f"course-{n}")
    fields.setdefault("title", f"Course {n}")
    return Course.objects.create(**fields)


def make_lesson(course: Course | None = None, **fields) -> Lesson:
    n = next(_seq)
    fields.setdefault("slug", f"lesson-{n}")
    fields.setdefault("title", f"Lesson {n}")
    fields.setdefault("position", n)
    return Lesson.objects.create(course=course or make_course(), **fields)


def make_block(lesson: Lesson, kind: str = "prose", **fields) -> Block:
    n = next(_seq)
    fields.setdefault("key", f"{kind.replace('_', '-')}-{n}")
    fields.setdefault("position", n)
    return Block.objects.create(lesson=lesson, kind=kind, **fields)


def make_snippet(lesson: Lesson | None = None, *, key: str | None = None, **fields) -> Snippet:
    lesson = lesson or make_lesson()
    block = make_block(lesson, "snippet", **({"key": key} if key else {}))
    fields.setdefault("code", 'print("hello")\n')
    fields.setdefault("expected_output", "hello\n")
    return Snippet.objects.create(block=block, **fields)


def make_exercise(
    lesson: Lesson | None = None,
    *,
    lines: list[str] = ("first", "second", "third", "fourth"),
    distractors: list[str] = (),
    key: str | None = None,
    **fields,
) -> OrderingExercise:
    lesson = lesson or make_lesson()
    block = make_block(lesson, "ordering", **({"key": key} if key else {}))
    exercise = OrderingExercise.objects.create(block=block, **fields)
    for position, text in enumerate(lines, start=1):
        OrderingLine.objects.create(
            exercise=exercise, key=f"l{position}", text=text, position=position
        )
    for n, text in enumerate(distractors, start=1):
        OrderingLine.objects.create(exercise=exercise, key=f"d{n}", text=text, position=None)
    return exercise


def make_term(term: str | None = None, **fields) -> GlossaryTerm:
    n = next(_seq)
    term = term or f"Term {n}"
    fields.setdefault("slug", term.lower().replace(" ", "-").replace(".", "-"))
    fields.setdefault("definition", f"What {term} means.")
    return GlossaryTerm.objects.create(term=term, **fields)


# Classes and the learner work teachers review. (Imported here so this block only appends.)


def make_cohort(teacher: User | None = None, *, students=(), **fields):
    from tutor.actions.classes import new_join_code
    from tutor.models import Cohort, Membership

    n = next(_seq)
    fields.setdefault("name", f"Class {n}")
    fields.setdefault("join_code", new_join_code())
    cohort = Cohort.objects.create(teacher=teacher or make_teacher(), **fields)
    for student in students:
        Membership.objects.create(cohort=cohort, student=student)
    return cohort


def make_prediction(user: User, snippet: Snippet, **fields):
    from tutor.practice.snippet.models import Prediction

    fields.setdefault("snippet_version", snippet.version)
    fields.setdefault("text", snippet.expected_output)
    fields.setdefault("verdict", Prediction.Verdict.RIGHT)
    fields.setdefault("is_first", True)
    return Prediction.objects.create(user=user, snippet=snippet, **fields)


def make_ordering_attempt(user: User, exercise: OrderingExercise, **fields):
    from tutor.practice.ordering.models import OrderingAttempt

    if "order" not in fields:
        fields["order"] = list(
            exercise.lines.filter(position__isnull=False)
            .order_by("position")
            .values_list("key", flat=True)
        )
    fields.setdefault("verdict", OrderingAttempt.Verdict.SOLVED)
    return OrderingAttempt.objects.create(user=user, exercise=exercise, **fields)


def make_learner_run(user: User, snippet: Snippet | None = None, **fields):
    from tutor.models import Run

    fields.setdefault("code", snippet.code if snippet else 'print("hi")\n')
    fields.setdefault("status", Run.Status.OK)
    fields.setdefault("stdout", "hi\n")
    return Run.objects.create(user=user, snippet=snippet, **fields)


def make_lesson_progress(user: User, lesson: Lesson, **fields):
    from tutor.models import LessonProgress

    fields.setdefault("snippets_total", 2)
    fields.setdefault("exercises_total", 1)
    fields.setdefault("snippets_predicted", 0)
    fields.setdefault("exercises_solved", 0)
    # What a recount would keep: the totals and each kind's numbers.
    fields.setdefault("items_total", fields["snippets_total"] + fields["exercises_total"])
    fields.setdefault("items_done", fields["snippets_predicted"] + fields["exercises_solved"])
    fields.setdefault(
        "counts",
        {
            "snippet": {
                "total": fields["snippets_total"],
                "done": fields["snippets_predicted"],
                "right": fields.get("predictions_right", 0),
                "runs": fields.get("runs", 0),
            },
            "ordering": {"total": fields["exercises_total"], "done": fields["exercises_solved"]},
        },
    )
    return LessonProgress.objects.create(user=user, lesson=lesson, **fields)


def make_run(snippet: Snippet | None = None, **fields):
    """A Run row (finished unless told otherwise); code defaults to the snippet's."""
    from tutor.models import Run

    fields.setdefault("code", snippet.code if snippet else 'print("hello")\n')
    fields.setdefault("status", Run.Status.OK)
    return Run.objects.create(snippet=snippet, **fields)


def line_tokens(user: User, exercise: OrderingExercise) -> dict[str, str]:
    """What `user`'s page calls each line of `exercise` (by line key): pages and POSTs
    name lines by these tokens, never by their keys."""
    from tutor.practice.ordering.board import LineTokens
    from tutor.practice.ordering.lines import ExerciseLines

    return LineTokens.of(user, ExerciseLines.of(exercise)).by_key


def line_keys_by_token() -> dict[str, str]:
    """Every line token of every learner and exercise, back to its line's key (for tests
    that read a page and want to say which lines it shows)."""
    return {
        token: key
        for user in User.objects.all()
        for exercise in OrderingExercise.objects.all()
        for key, token in line_tokens(user, exercise).items()
    }


def make_score_sync(cohort, student: User, lesson: Lesson, **fields):
    """A grade on its way to an LMS: the class linked from an LMS course, with a column for
    the lesson (the LMS side's rows, as a launch would have made them)."""
    from lti_tool.models import LtiContext, LtiDeployment, LtiRegistration, LtiUser

    from lti.models import ClassLink, LineItem, ScoreSync

    n = next(_seq)
    registration = LtiRegistration.objects.create(
        name=f"LMS {n}",
        issuer=f"https://lms{n}.example",
        client_id=f"client-{n}",
        auth_url=f"https://lms{n}.example/auth",
        token_url=f"https://lms{n}.example/token",
        keyset_url=f"https://lms{n}.example/jwks",
    )
    deployment = LtiDeployment.objects.create(
        registration=registration, deployment_id="1", is_active=True
    )
    context = LtiContext.objects.create(
        deployment=deployment, id_on_platform=f"course-{n}", title=f"LMS course {n}"
    )
    ClassLink.objects.create(context=context, cohort=cohort)
    line_item = LineItem.objects.create(
        context=context, lesson=lesson, score_maximum=3, url=f"https://lms{n}.example/lineitems/1"
    )
    lti_user = LtiUser.objects.create(registration=registration, sub=f"sub-{n}", auth_user=student)
    fields.setdefault("score_given", 1)
    fields.setdefault("score_maximum", 3)
    return ScoreSync.objects.create(line_item=line_item, lti_user=lti_user, user=student, **fields)
