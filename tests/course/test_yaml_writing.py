"""Property: whatever text a document holds, the YAML written for it reads back as it."""

from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from course.content_files.yaml_writing import Flow, Literal, Quoted, Spaced, dump
from tests.course.test_content_round_trip import any_text

styled_text = st.one_of(any_text.map(Literal), any_text.map(Quoted), any_text)
item = st.fixed_dictionaries(
    {"kind": st.just("prose"), "body": styled_text},
    optional={"lines": st.lists(st.fixed_dictionaries({"text": styled_text}), max_size=3)},
)
document = st.fixed_dictionaries(
    {
        "title": styled_text,
        "terms": st.lists(st.from_regex(r"[a-z][a-z-]{0,8}", fullmatch=True), max_size=3).map(Flow),
        "blocks": st.lists(item, max_size=4).map(Spaced),
    }
)


@settings(max_examples=300, deadline=None)
@given(document)
def test_written_yaml_reads_back_exactly(document):
    text = dump(document)
    assert YAML(typ="safe", pure=True).load(text) == document
