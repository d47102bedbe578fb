"""store/hook_json.py gives the hook json.loads and json.dumps without the json package (issue
15): on random documents, texts and bytes it returns what json returns and refuses what json
refuses (a ValueError), and writes the very bytes json writes."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import hypothesis.strategies as st
import pytest
from hypothesis import given, settings
from memvet.store import hook_json

scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


def _same(a: object, b: object) -> bool:
    """Equal, NaN equal to NaN (json reads NaN back as a float NaN)."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a):
        return math.isnan(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _outcome(loads, raw):
    try:
        return "value", loads(raw)
    except ValueError:
        return "refused", None


@settings(max_examples=300, deadline=None)
@given(doc=documents, ascii_only=st.booleans())
def test_dumps_writes_what_json_writes(doc, ascii_only):
    assert hook_json.dumps(doc, ensure_ascii=ascii_only) == json.dumps(doc, ensure_ascii=ascii_only)


@settings(max_examples=300, deadline=None)
@given(
    doc=documents,
    pad=st.sampled_from(["", " ", "\n\t ", "\r\n"]),
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-32-be", "str"]),
)
def test_loads_reads_what_json_reads(doc, pad, encoding):
    text = pad + json.dumps(doc) + pad
    raw = text if encoding == "str" else text.encode(encoding)
    kind, value = _outcome(hook_json.loads, raw)
    assert kind == "value" and _same(value, json.loads(raw))


@settings(max_examples=300, deadline=None)
@given(raw=st.binary(max_size=24) | st.text(max_size=24))
def test_loads_refuses_what_json_refuses(raw):
    ours, theirs = _outcome(hook_json.loads, raw), _outcome(json.loads, raw)
    assert ours[0] == theirs[0] and _same(ours[1], theirs[1])


@pytest.mark.parametrize(
    "raw", [b"", b"  ", b"{} {}", b"[1,]", b'{"a": 1', "\ufeff{}", b"\xff\xfe{", b'"\xed\xa0\x80"']
)
def test_the_edge_cases_fail_or_pass_as_json_does(raw):
    ours, theirs = _outcome(hook_json.loads, raw), _outcome(json.loads, raw)
    assert ours[0] == theirs[0] and _same(ours[1], theirs[1])


def test_circular_and_unserialisable_values_are_refused_as_json_refuses():
    loop: list = []
    loop.append(loop)
    for value, error in ((loop, ValueError), ({"x": object()}, TypeError)):
        with pytest.raises(error):
            json.dumps(value)
        with pytest.raises(error):
            hook_json.dumps(value)


def test_loading_it_loads_neither_json_nor_re(tmp_path):
    """Run without site (-S), which imports `re` itself: memvet.store from a folder of links."""
    (tmp_path / "memvet").mkdir()
    (tmp_path / "memvet" / "store").symlink_to(Path(hook_json.__file__).parent)
    code = (
        "import sys; from memvet.store import hook_json;"
        "hook_json.dumps(hook_json.loads(b'{\"a\": [1, 2.5, null]}'));"
        "print('json' in sys.modules, 're' in sys.modules, 'enum' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-S", "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    assert out.stdout.split() == ["False", "False", "False"]
