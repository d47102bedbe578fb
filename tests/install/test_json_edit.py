"""Span-preserving JSON edits: what is not edited stays byte for byte; add then remove is a
no-op on the text, for any layout."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from memvet.install.json_edit import JsonText

scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10**6), 10**6), st.text(max_size=8))
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=12,
)
layouts = st.sampled_from(
    [
        {"indent": 2},
        {"indent": 4},
        {"indent": "\t"},
        {"indent": None},
        {"indent": None, "separators": (",", ":")},
        {"indent": 2, "ensure_ascii": False},
    ]
)


@settings(max_examples=60, deadline=None)
@given(
    doc=st.dictionaries(st.text(max_size=6).filter(lambda k: k != "memvet"), values, max_size=5),
    layout=layouts,
    trailing=st.sampled_from(["", "\n", "\r\n"]),
)
def test_add_then_remove_gives_the_original_text(doc, layout, trailing):
    original = json.dumps(doc, **layout) + trailing
    edited = JsonText(original)
    edited.set_member((), "memvet", {"hooks": [{"type": "command", "command": "memvet hook"}]})
    text = edited.result()
    assert json.loads(text) == {
        **doc,
        "memvet": {"hooks": [{"type": "command", "command": "memvet hook"}]},
    }
    back = JsonText(text)
    back.remove(("memvet",))
    assert back.result() == original


@settings(max_examples=40, deadline=None)
@given(items=st.lists(values, min_size=0, max_size=4), layout=layouts)
def test_append_to_a_list_and_remove_it_again(items, layout):
    original = json.dumps({"a": {"list": items}, "z": 1}, **layout) + "\n"
    edited = JsonText(original)
    edited.append_item(("a", "list"), {"matcher": "x", "hooks": []})
    text = edited.result()
    assert json.loads(text)["a"]["list"] == [*items, {"matcher": "x", "hooks": []}]
    back = JsonText(text)
    back.remove(("a", "list", len(items)))
    assert back.result() == original


def test_untouched_regions_are_byte_identical():
    original = '{\n   "odd":   [1,2,   3],\n   "obj": {"k": "v"}  ,\n   "n": 1e3\n}\n'
    edited = JsonText(original)
    edited.set_member(("obj",), "new", True)
    text = edited.result()
    assert text.startswith('{\n   "odd":   [1,2,   3],\n   "obj": {"k": "v", "new": true}  ,')
    assert text.endswith('\n   "n": 1e3\n}\n')


def test_replace_keeps_the_rest_and_detects_indent():
    original = '{\n\t"a": {\n\t\t"cmd": "old"\n\t},\n\t"b": []\n}'
    edited = JsonText(original)
    edited.replace(("a", "cmd"), "new path")
    edited.append_item(("b",), {"x": 1})
    assert (
        edited.result()
        == '{\n\t"a": {\n\t\t"cmd": "new path"\n\t},\n\t"b": [\n\t\t{\n\t\t\t"x": 1\n\t\t}\n\t]\n}'
    )


def test_remove_a_middle_member():
    original = '{\n  "a": 1,\n  "b": 2,\n  "c": 3\n}\n'
    edited = JsonText(original)
    edited.remove(("b",))
    assert edited.result() == '{\n  "a": 1,\n  "c": 3\n}\n'


def test_crlf_files_stay_crlf():
    original = '{\r\n  "a": 1\r\n}\r\n'
    edited = JsonText(original)
    edited.set_member((), "b", [1])
    assert edited.result() == '{\r\n  "a": 1,\r\n  "b": [\r\n    1\r\n  ]\r\n}\r\n'


def test_large_file_is_edited_quickly():
    import time

    big = {
        "projects": {
            f"/home/u/src/p{i}": {"history": [{"display": "x" * 200}] * 20} for i in range(2000)
        },
        "mcpServers": {},
    }
    text = json.dumps(big, indent=2)
    assert len(text) > 5_000_000
    start = time.perf_counter()
    edited = JsonText(text)
    edited.set_member(("mcpServers",), "memvet", {"command": "/x/memvet", "args": ["mcp"]})
    result = edited.result()
    assert time.perf_counter() - start < 30  # a guard against quadratic work, not a budget
    assert result.startswith(text[: text.index('"mcpServers"')])
