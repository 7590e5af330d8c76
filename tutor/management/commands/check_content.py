from django.core.management.base import BaseCommand, CommandError

from tutor import sandbox
from tutor.content_check import check_snippets, snippets_in_order
from tutor.practice.code_exercise.checks import check_exercise, exercises_in_order


class Command(BaseCommand):
    help = (
        "Run every snippet of every lesson in the sandbox, fed its declared input, and report "
        "each whose declared output differs from what it really prints, or that does not end "
        "as declared (without an error, or with the exception it declares); and grade every "
        "code exercise's solution (it must pass every test) and starter (it must fail one). "
        "Exits non-zero when any differs."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--lesson", help="only this lesson slug")

    def handle(self, *args, **options) -> None:
        snippets = snippets_in_order()
        if options["lesson"]:
            snippets = snippets.filter(block__lesson__slug=options["lesson"])
        try:
            checks = check_snippets(snippets)
        except sandbox.SandboxUnavailable as exc:
            raise CommandError(str(exc)) from exc
        mismatches = 0
        for check in checks:
            if check.matches:
                note = "" if check.exact else " (differs only in trailing blank space)"
                self.stdout.write(f"ok        {check.where}{note}")
                continue
            mismatches += 1
            self.stdout.write(self.style.ERROR(f"MISMATCH  {check.where} (status: {check.status})"))
            if not check.ends_as_declared:
                ends = check.problems[0]
                self.stdout.write(f"  it {ends}")
            self.stdout.write("  declared:\n" + _indent(check.snippet.expected_output))
            self.stdout.write("  printed:\n" + _indent(check.printed))
            if check.stderr:
                self.stdout.write("  stderr:\n" + _indent(check.stderr))
        exercises = exercises_in_order()
        if options["lesson"]:
            exercises = exercises.filter(block__lesson__slug=options["lesson"])
        wrong_exercises = 0
        try:
            exercise_checks = [check_exercise(exercise) for exercise in exercises]
        except sandbox.SandboxUnavailable as exc:
            raise CommandError(str(exc)) from exc
        for check in exercise_checks:
            if check.ok:
                self.stdout.write(f"ok        {check.where} (solution passes, starter does not)")
                continue
            wrong_exercises += 1
            self.stdout.write(self.style.ERROR(f"MISMATCH  {check.where}"))
            for problem in check.problems:
                self.stdout.write(f"  {problem}")
        if mismatches or wrong_exercises:
            problems = []
            if mismatches:
                problems.append(f"{mismatches} of {len(checks)} snippets print something else than declared.")
            if wrong_exercises:
                problems.append(
                    f"{wrong_exercises} of {len(exercise_checks)} code exercises fail their own "
                    "check (see above)."
                )
            raise CommandError(" ".join(problems))
        self.stdout.write(
            self.style.SUCCESS(f"All {len(checks)} snippets print what they declare, and end as declared.")
        )
        self.stdout.write(
            self.style.SUCCESS(
                f"All {len(exercise_checks)} code exercises: the solution passes every test, "
                "the starter code does not."
            )
        )


def _indent(text: str) -> str:
    return "\n".join(f"    |{line}" for line in text.split("\n"))
