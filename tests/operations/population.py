"""A school's worth of learner work in every kind of row a backup must keep: classes,
predictions, runs, ordering attempts, submissions, editing trails, assignments with
extensions, progress and grades on their way to an LMS."""

from datetime import timedelta

from tests.factories import make_learner_run, make_lesson_progress, make_score_sync, make_user
from tests.tutor.assignment_world import NOW, assign, class_of, do_everything, practice_lesson
from tutor.assignments.models import Extension
from tutor.trail.actions import record_edits


def populate(students: int = 6, lessons: int = 1) -> dict:
    worked = [practice_lesson(title=f"Memory arithmetic {n + 1}") for n in range(lessons)]
    learners = [make_user(f"learner{n}", first_name=f"Ada{n}", email=f"l{n}@school.example")
                for n in range(students)]
    cohort = class_of(*learners)
    for index, (lesson, items) in enumerate(worked):
        assignment = assign(cohort, lesson, closed_book=index == 0)
        Extension.objects.create(assignment=assignment, student=learners[0],
                                 due_at=NOW + timedelta(days=3))
        for n, learner in enumerate(learners):
            do_everything(learner, items, NOW - timedelta(minutes=n))
            make_learner_run(learner, items["snippet"], stdout=f"run {n} ✓\n")
            make_lesson_progress(learner, lesson, snippets_predicted=1, exercises_solved=1)
            record_edits(
                user=learner,
                block=items["code_exercise"].block,
                edits=[(900, "i", 0, 0, "print("), (400, "i", 6, 0, f"{n} + 😀)\n")],
                code=f"print({n} + 😀)\n",
                base="",
            )
    lesson = worked[0][0]
    make_score_sync(cohort, learners[0], lesson)
    return {"lesson": lesson, "learners": learners, "cohort": cohort}
