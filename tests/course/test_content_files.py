import pytest

from course.models import Block, GlossaryTerm, Lesson, OrderingExercise, Snippet

pytestmark = pytest.mark.django_db


def test_shipped_content_imports(sample_content):
    lessons = list(Lesson.objects.in_order())
    assert [lesson.slug for lesson in lessons] == [
        "choosing-hardware-for-local-models",
        "optimising-speed-and-memory",
        "deploying-a-private-model-safely",
    ]
    seed = lessons[1]
    assert seed.level == "Master"
    snippets = Snippet.objects.filter(block__lesson=seed).order_by("block__position")
    assert [s.key for s in snippets] == ["backend-latency", "kv-cache-vram"]
    assert all(
        s.expected_output.startswith("\nOptimising") or s.expected_output.startswith("\nKV")
        for s in snippets
    )
    exercise = OrderingExercise.objects.get(block__lesson=seed)
    assert [line.key for line in exercise.lines.all() if not line.is_distractor][:2] == [
        "def",
        "return",
    ]
    assert {line.key for line in exercise.lines.all() if line.is_distractor} == {
        "wrong-return",
        "wrong-verdict",
    }
    assert seed.terms.count() == 9
    assert list(seed.blocks.filter(kind=Block.Kind.DATA_FLOW).get().items) == [
        "Pick a backend",
        "Tune KV cache",
        "Batch requests",
        "Measure throughput",
    ]
    kv_cache = GlossaryTerm.objects.get(slug="kv-cache")
    assert {"vram", "pagedattention", "continuous-batching"} <= {
        t.slug for t in kv_cache.see_also.all()
    }
