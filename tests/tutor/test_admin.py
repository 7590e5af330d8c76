from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse

from course.models import GlossaryTerm, Lesson, Snippet
from tests.factories import make_admin, make_user
from tutor.models import Prediction

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
        "orderingexercise": lambda: Lesson.objects.first().blocks.filter(kind="ordering").first().exercise,
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


def test_check_outputs_action_reports_all_good(admin_client, sample_content):
    lessons = Lesson.objects.values_list("pk", flat=True)
    response = admin_client.post(
        reverse("admin:course_lesson_changelist"),
        {"action": "check_outputs", "_selected_action": list(lessons)},
        follow=True,
    )
    assert b"All 7 snippets print what they declare." in response.content


def test_check_outputs_action_reports_a_mismatch(admin_client, sample_content):
    snippet = Snippet.objects.get(block__key="backend-latency")
    snippet.expected_output = "nothing like it\n"
    snippet.save()
    lesson = snippet.block.lesson
    response = admin_client.post(
        reverse("admin:course_lesson_changelist"),
        {"action": "check_outputs", "_selected_action": [lesson.pk]},
        follow=True,
    )
    html = response.content.decode()
    assert "optimising-speed-and-memory · backend-latency: declares" in html
    assert "nothing like it" in html


def test_check_outputs_action_reports_a_snippet_that_does_not_end_as_declared(
    admin_client, sample_content
):
    snippet = Snippet.objects.get(block__key="refused-request")
    snippet.raises = "ZeroDivisionError"
    snippet.save()
    response = admin_client.post(
        reverse("admin:course_lesson_changelist"),
        {"action": "check_outputs", "_selected_action": [snippet.block.lesson.pk]},
        follow=True,
    )
    assert (
        "deploying-a-private-model-safely · refused-request: should stop with ZeroDivisionError "
        "but stops with PermissionError: 401 Unauthorized: wrong or missing API key."
    ) in response.content.decode()


def test_editing_a_snippet_keeps_predictions_on_the_version_they_saw(admin_client, sample_content):
    snippet = Snippet.objects.get(block__key="backend-latency")
    learner = make_user()
    Prediction.objects.create(
        user=learner, snippet=snippet, snippet_version=snippet.version, text="x",
        verdict=Prediction.Verdict.WRONG, is_first=True,
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
