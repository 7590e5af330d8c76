"""Questions for tests: a block of each question kind, its values on the Block row as the
content files would keep them."""

import re

from course import kinds
from course.models import Block
from tests.factories import make_block, make_lesson

CHOICE = {
    "body": "Which backend is fastest on a CPU?",
    "options": [
        {"key": "llama", "text": "llama.cpp", "right": True, "feedback": "Built for CPUs."},
        {"key": "wrong-vllm", "text": "vLLM", "feedback": "vLLM is fast on NVIDIA, not on a CPU."},
        {"key": "tgi", "text": "TGI", "feedback": "It wants a GPU too."},
        {"key": "none", "text": "None of them"},
    ],
    "tries": 2,
}
CHECKBOXES = {
    "body": "Which of these run on a CPU?",
    "options": [
        {"key": "llama", "text": "llama.cpp", "right": True},
        {"key": "ollama", "text": "Ollama", "right": True},
        {"key": "vllm", "text": "vLLM", "feedback": "It needs a GPU."},
        {"key": "tgi", "text": "TGI"},
    ],
    "tries": 2,
}
NUMBER = {
    "body": "How many GB does an 8-bit KV cache of 3,000 units need?",
    "answer": 12.5,
    "relative_tolerance": 0.02,
    "units": "GB",
    "mistakes": [{"answer": 25, "feedback": "That is at 16 bits."}],
    "tries": 3,
}
BLANKS = {
    "body": "Fill in the missing words.",
    "text": "Quantising to {{bits}} bits halves the memory of {{format}} weights.",
    "blanks": [
        {"key": "bits", "answers": ["8", "eight"]},
        {"key": "format", "answers": ["16-bit", "fp16"], "pattern": "(16-bit|fp16|float16)"},
    ],
    "tries": 3,
}
CODE_BLANKS = {
    "body": "Fill in the program so that it prints the memory of a 13B model at 8 bits.",
    "code": "sizes = {'7b': 7, '13b': 13}\nbits = {{bits}}\nprint(sizes[{{model}}] * bits / 8, 'GB')\n",
    "expected_output": "13.0 GB\n",
    "blanks": [
        {"key": "bits", "solution": "8", "answers": []},
        {"key": "model", "solution": "'13b'", "answers": ['"13b"']},
    ],
    "tries": 2,
}
VALUES = {"choice": CHOICE, "checkboxes": CHECKBOXES, "number": NUMBER, "blanks": BLANKS, "code_blanks": CODE_BLANKS}


def make_question(kind: str, lesson=None, *, key: str | None = None, **values) -> Block:
    """A question block, read through its kind (defaults filled in as the files fill them)."""
    spec = kinds.get(kind)
    given = {**VALUES[kind], **values}
    full = {field.name: given.get(field.name, field.default) for field in spec.fields}
    columns = spec.block_columns(full)
    block = make_block(lesson or make_lesson(), kind, **({"key": key} if key else {}), **columns)
    return Block.objects.select_related("lesson__course").get(pk=block.pk)


def option_tokens(html: str) -> list[str]:
    return re.findall(r'name="option" value="([^"]+)"', html)
