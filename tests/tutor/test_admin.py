import re
from datetime import timedelta
from pathlib import Path

import pytest
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from course.kinds.code_exercise import CodeExercise
from course.kinds.snippet import Snippet
from course.models import Block, GlossaryTerm, Lesson
from tests.factories import make_admin, make_learner_run, make_user
from tutor import sandbox
from tutor.actions.runs import execute_run
from tutor.models import Run
from tutor.practice.questions.variants import computes, variants_of
from tutor.practice.snippet.models import Prediction

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client):
    client.force_login(make_admin())
    return client


@pytest.mark.parametrize(
    "model",
    ["course", "lesson", "snippet", "orderingexercise", "glossaryterm"],
)
def test_content_admin_pages_open_for_admins(admin_client, sample_content, model):
    changelist = admin_client.get(reverse(f"admin:course_{model}_changelist"))
    assert changelist.status_code == 200
    obj = {
        "course": lambda: Lesson.objects.first().course,
        "lesson": lambda: Lesson.objects.get(slug="optimising-speed-and-memory"),
        "snippet": lambda: Snippet.objects.first(),
        "orderingexercise": lambda: (
            Lesson.objects.first().blocks.filter(kind="ordering").first().ordering_exercise
        ),
        "glossaryterm": lambda: GlossaryTerm.objects.first(),
    }[model]()
    change = admin_client.get(reverse(f"admin:course_{model}_change", args=[obj.pk]))
    assert change.status_code == 200


def test_content_admin_is_closed_to_students(client, sample_content):
    client.force_login(make_user())
    response = client.get(reverse("admin:course_lesson_changelist"))
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]


def test_lesson_admin_searches_and_filters(admin_client, sample_content):
    response = admin_client.get(reverse("admin:course_lesson_changelist"), {"q": "speed"})
    assert b"Optimising speed and memory" in response.content
    assert b"Deploying a private model safely" not in response.content


def check_outputs(client, lessons):
    return client.post(
        reverse("admin:course_lesson_changelist"),
        {"action": "check_outputs", "_selected_action": [lesson.pk for lesson in lessons]},
        follow=True,
    )


def results_url(response) -> str:
    match = re.search(r'href="(/admin/course/lesson/check-outputs/\?runs=[0-9,]+)"', response.text)
    assert match, response.text[:3000]
    return match.group(1)


def sample_variant_count(kinds=("number",)) -> int:
    """How many variants the questions that compute their answer have, read from the database."""
    blocks = [(block, block.kind_spec.values_of(block)) for block in Block.objects.filter(kind__in=kinds)]
    return sum(len(variants_of(block, values)) for block, values in blocks if computes(values))


def test_check_outputs_queues_runs_for_the_worker_and_never_runs_code_itself(
    admin_client, sample_content, monkeypatch
):
    def no_sandbox_here(*args, **kwargs):
        raise AssertionError("the web process ran code")

    monkeypatch.setattr(sandbox, "run", no_sandbox_here)
    response = check_outputs(admin_client, Lesson.objects.all())

    n = Snippet.objects.count()  # every snippet of the sample course
    assert n >= 8
    assert f"Checking {n} snippets in the worker." in response.text
    variants = sample_variant_count()  # every variant of the sample course's questions
    assert variants >= 15
    assert f"Computing {variants} variants of the questions that compute their answer." in response.text
    every = sample_variant_count(("number", "blanks", "choice", "checkboxes"))  # each kind says its own
    assert every > variants
    assert Run.objects.filter(purpose=Run.Purpose.CONTENT, snippet=None).count() == every
    runs = Run.objects.filter(purpose=Run.Purpose.CONTENT, snippet__isnull=False)
    assert runs.count() == n
    assert set(runs.values_list("status", flat=True)) == {Run.Status.QUEUED}
    assert set(Run.objects.values_list("user", flat=True)) == {None}  # no learner's allowance
    assert set(runs.values_list("snippet__code", flat=True)) == set(
        Snippet.objects.values_list("code", flat=True)
    )
    page = admin_client.get(results_url(response))
    assert page.status_code == 200
    assert f"{n} of {n} still to go" in page.text
    assert '<meta http-equiv="refresh"' in page.text


def test_check_outputs_reports_all_good_once_the_worker_ran_them(admin_client, sample_content):
    response = check_outputs(admin_client, Lesson.objects.all())
    for run in Run.objects.filter(status=Run.Status.QUEUED):  # as the worker does
        execute_run(run_id=run.pk)

    page = admin_client.get(results_url(response))
    assert f"All {Snippet.objects.count()} snippets print what they declare." in page.text
    assert page.text.count("the solution passes every test, the starter code does not") == (
        CodeExercise.objects.count()
    )
    assert "every variant printed its answer (15)" in page.text
    assert '<meta http-equiv="refresh"' not in page.text
    assert '<ol class="breadcrumbs">' in page.text  # the admin's own, styled
    assert '<li aria-current="page">Check outputs</li>' in page.text


def test_check_outputs_reports_a_mismatch(admin_client, sample_content):
    snippet = Snippet.objects.get(block__key="backend-latency")
    snippet.expected_output = "nothing like it\n"
    snippet.save()
    response = check_outputs(admin_client, [snippet.block.lesson])
    for run in Run.objects.filter(purpose=Run.Purpose.CONTENT):
        execute_run(run_id=run.pk)

    html = admin_client.get(results_url(response)).text
    assert "optimising-speed-and-memory · backend-latency" in html
    assert "MISMATCH: declares" in html
    assert "nothing like it" in html
    checked = Snippet.objects.filter(block__lesson=snippet.block.lesson).count()
    assert f"1 of {checked} snippets prints something else than declared." in html


def test_a_snippet_edited_after_its_check_is_not_reported_as_checked(admin_client, sample_content):
    snippet = Snippet.objects.get(block__key="backend-latency")
    response = check_outputs(admin_client, [snippet.block.lesson])
    for run in Run.objects.filter(purpose=Run.Purpose.CONTENT):
        execute_run(run_id=run.pk)
    snippet.code += "print('more')\n"
    snippet.save()

    html = admin_client.get(results_url(response)).text
    assert "the snippet changed since: check it again" in html


@pytest.fixture
def view_only_staff(client):
    user = make_user(is_staff=True)
    user.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_lesson", "view_snippet"])
    )
    client.force_login(user)
    return user


def test_view_only_staff_cannot_check_outputs(client, view_only_staff, sample_content, monkeypatch):
    monkeypatch.setattr(sandbox, "run", lambda *a, **k: pytest.fail("the web process ran code"))
    changelist = client.get(reverse("admin:course_lesson_changelist"))
    assert changelist.status_code == 200
    assert "check_outputs" not in changelist.text

    response = check_outputs(client, Lesson.objects.all())

    assert not Run.objects.exists()
    assert "Checking" not in response.text
    assert client.get("/admin/course/lesson/check-outputs/?runs=1").status_code == 403


def test_the_results_page_shows_only_content_checks_it_is_given(admin_client, sample_content):
    learner_run = make_learner_run(make_user(), Snippet.objects.first())
    for query in (
        f"?runs={learner_run.pk}",
        "?runs=",
        "?runs=1,x",
        "?runs=" + ",".join(["1"] * 1001),
        "",
    ):
        page = admin_client.get("/admin/course/lesson/check-outputs/" + query)
        assert page.status_code == 200
        assert "No checks to show." in page.text
    assert admin_client.post("/admin/course/lesson/check-outputs/").status_code == 405


def test_check_outputs_action_reports_a_snippet_that_does_not_end_as_declared(
    admin_client, sample_content
):
    snippet = Snippet.objects.get(block__key="refused-request")
    snippet.raises = "ZeroDivisionError"
    snippet.save()
    response = check_outputs(admin_client, [snippet.block.lesson])
    for run in Run.objects.filter(purpose=Run.Purpose.CONTENT):
        execute_run(run_id=run.pk)
    html = admin_client.get(results_url(response)).content.decode()
    assert "deploying-a-private-model-safely · refused-request" in html
    assert (
        "MISMATCH: should stop with ZeroDivisionError "
        "but stops with PermissionError: 401 Unauthorized: wrong or missing API key"
    ) in html


def test_editing_a_snippet_keeps_predictions_on_the_version_they_saw(admin_client, sample_content):
    snippet = Snippet.objects.get(block__key="backend-latency")
    learner = make_user()
    Prediction.objects.create(
        user=learner,
        snippet=snippet,
        snippet_version=snippet.version,
        text="x",
        verdict=Prediction.Verdict.WRONG,
        is_first=True,
    )
    old_version = snippet.version
    response = admin_client.post(
        reverse("admin:course_snippet_change", args=[snippet.pk]),
        {
            "block": snippet.block_id,
            "caption": snippet.caption,
            "language": "python",
            "code": snippet.code.replace("3.0", "4.0"),
            "expected_output": snippet.expected_output.replace("3.00s", "4.00s"),
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    snippet.refresh_from_db()
    assert snippet.version == old_version + 1
    prediction = Prediction.objects.get(user=learner)
    assert prediction.snippet_version == old_version
    # The new version has no first predictions yet: stats for it start empty.
    assert not Prediction.objects.filter(snippet=snippet, snippet_version=snippet.version).exists()


def test_admin_edits_export_to_files_that_reimport_the_same(admin_client, sample_content, tmp_path):
    term = GlossaryTerm.objects.get(slug="vram")
    response = admin_client.post(
        reverse("admin:course_glossaryterm_change", args=[term.pk]),
        {
            "term": "VRAM",
            "slug": "vram",
            "definition": "Video memory on the GPU. Edited in the admin.",
            "see_also": list(term.see_also.values_list("pk", flat=True)),
        },
    )
    assert response.status_code == 302
    call_command("export_content", str(tmp_path), verbosity=0)
    GlossaryTerm.objects.filter(slug="vram").update(definition="changed behind the files' back")
    call_command("import_content", str(tmp_path), verbosity=0)
    assert GlossaryTerm.objects.get(slug="vram").definition.startswith(
        "Video memory on the GPU. Edited in the admin."
    )
    assert "Edited in the admin." in Path(tmp_path, "glossary.yaml").read_text()


def test_every_admin_action_names_the_permission_it_needs():
    """Django offers an action only to staff holding its permissions, and refuses it to others."""
    from django.contrib import admin

    for model, model_admin in admin.site._registry.items():
        for name in model_admin.actions or ():
            action = getattr(model_admin, name) if isinstance(name, str) else name
            assert getattr(action, "allowed_permissions", ()), f"{model.__name__}: {name}"


def test_view_only_staff_cannot_resubmit_worker_tasks(client):
    from django_q.models import Failure

    failure = Failure.objects.create(
        id="a" * 32,
        name="run-1",
        func="tutor.tasks.execute_run",
        args=(1,),
        started=timezone.now(),
        stopped=timezone.now(),
        success=False,
    )
    user = make_user(is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_failure"))
    client.force_login(user)
    client.post(
        reverse("admin:django_q_failure_changelist"),
        {"action": "resubmit_task", "_selected_action": [failure.pk]},
    )
    assert Failure.objects.filter(pk=failure.pk).exists()  # resubmitting deletes it


def test_view_only_staff_cannot_clean_up_login_attempts(client):
    from axes.models import AccessAttempt

    attempt = AccessAttempt.objects.create(
        username="cleo",
        ip_address="10.0.0.1",
        failures_since_start=5,
        attempt_time=timezone.now() - timedelta(days=1),  # expired: what the action removes
    )
    user = make_user(is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_accessattempt"))
    client.force_login(user)
    client.post(
        reverse("admin:axes_accessattempt_changelist"),
        {"action": "cleanup_expired_attempts", "_selected_action": [attempt.pk]},
    )
    assert AccessAttempt.objects.filter(pk=attempt.pk).exists()


def test_the_admin_calls_classes_and_progress_what_the_site_calls_them(admin_client):
    index = admin_client.get(reverse("admin:index")).content.decode()
    assert "Parsnip administration" in index and "Django administration" not in index
    assert ">Classes<" in index
    assert ">Lesson progress<" in index
    assert "Cohort" not in index
    assert "progresss" not in index.lower()
    changelist = admin_client.get(reverse("admin:tutor_cohort_changelist")).content.decode()
    assert "Select class to change" in changelist


def test_check_outputs_grades_each_code_exercise_in_the_worker(
    admin_client, sample_content, monkeypatch
):
    from course.kinds.code_exercise import CodeExercise

    exercise = CodeExercise.objects.get(block__key="write-kv-cache-vram")
    exercise.starter = exercise.solution  # nothing left to do: Check outputs must say so
    exercise.save()
    response = check_outputs(admin_client, [exercise.block.lesson])
    assert "Grading the solution and starter code of 1 code exercise." in response.text
    graded = Run.objects.filter(purpose=Run.Purpose.GRADE)
    assert graded.count() == 2 and set(graded.values_list("user", flat=True)) == {None}
    page = admin_client.get(results_url(response))
    assert "1 of 1 still to go" in page.text and '<meta http-equiv="refresh"' in page.text

    for run in Run.objects.filter(purpose__in=[Run.Purpose.CONTENT, Run.Purpose.GRADE]):
        execute_run(run_id=run.pk)
    page = admin_client.get(results_url(response))
    assert '<meta http-equiv="refresh"' not in page.text
    assert "MISMATCH: the starter code already passes every test" in page.text


@pytest.mark.parametrize(
    "model",
    ["run", "prediction", "orderingattempt", "orderinghelp", "lessonprogress", "versionprediction"],
)
def test_learners_records_are_read_only_in_the_admin(admin_client, model):
    """No "+ Add", no editing: what learners did is theirs; the list and a row still open."""
    from django.apps import apps

    from tests.factories import make_prediction, make_snippet, make_user

    listing = admin_client.get(reverse(f"admin:tutor_{model}_changelist"))
    assert listing.status_code == 200
    assert reverse(f"admin:tutor_{model}_add") not in listing.text
    assert admin_client.get(reverse(f"admin:tutor_{model}_add")).status_code == 403
    index = admin_client.get(reverse("admin:index")).text
    assert f'href="{reverse(f"admin:tutor_{model}_add")}"' not in index
    if model == "prediction":
        row = make_prediction(make_user(), make_snippet())
        url = reverse("admin:tutor_prediction_change", args=[row.pk])
        page = admin_client.get(url)
        assert page.status_code == 200 and 'name="_save"' not in page.text
        assert admin_client.post(url, {"text": "changed"}).status_code == 403
        assert apps.get_model("tutor", "Prediction").objects.get(pk=row.pk).text == row.text


def test_the_admin_adds_and_removes_a_class_s_co_teachers(admin_client):
    from tests.factories import make_cohort, make_teacher

    teacher, co_teacher = make_teacher("tess"), make_teacher("cole")
    make_user("stu")  # a student: not offered as a co-teacher
    cohort = make_cohort(teacher, name="Tuesday")
    url = reverse("admin:tutor_cohort_change", args=[cohort.pk])
    page = admin_client.get(url).content.decode()
    offered = re.search(r'<select name="co_teachers"[^>]*>(.*?)</select>', page, re.S).group(1)
    assert "cole" in offered and "tess" in offered and "stu" not in offered
    form = {
        "name": "Tuesday",
        "teacher": teacher.pk,
        "join_code": cohort.join_code,
        "time_zone": "UTC",
        "created_at_0": "2026-01-05",
        "created_at_1": "09:00:00",
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
    }
    response = admin_client.post(url, {**form, "co_teachers": [co_teacher.pk]})
    assert response.status_code == 302, response.content.decode()
    assert list(cohort.co_teachers.all()) == [co_teacher]
    listing = admin_client.get(reverse("admin:tutor_cohort_changelist")).content.decode()
    assert "tess and cole" in listing
    # The class's teacher is not its co-teacher as well.
    refused = admin_client.post(url, {**form, "co_teachers": [co_teacher.pk, teacher.pk]})
    assert (
        refused.status_code == 200
        and "tess is the class&#x27;s teacher already." in refused.content.decode()
    )
    assert list(cohort.co_teachers.all()) == [co_teacher]
    assert admin_client.post(url, form).status_code == 302  # none ticked: removed
    assert not cohort.co_teachers.exists()
