"""The redaction detectors compile on first use, not at import (issue 15: `memvet extract` paid
for every detector before reading its first line), and every one of them still compiles."""

from __future__ import annotations

import re
import subprocess
import sys

from memvet.store.lazy_pattern import LazyPattern
from memvet.store.redaction import assignments, context, patterns, redact, rule_engine, values

# Counts the regexes compiled while importing the redaction package, then after one redaction.
PROBE = """
import re, sys
compiled = []
original = re._compile
def counting(pattern, flags):
    if not isinstance(pattern, re.Pattern):
        frame = sys._getframe(1)  # re.compile, re.search, ...: then whoever called them
        caller = frame.f_back if frame.f_code.co_filename == re.__file__ else frame
        if "/store/redaction/" in caller.f_code.co_filename.replace("\\\\", "/"):
            compiled.append(pattern)
    return original(pattern, flags)
re._compile = counting
from memvet.store.redaction import redact
at_import = len(set(compiled))
text = redact("export GITHUB_TOKEN=ghp_" + "aB3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0eF3hJ6").text
print(at_import, len(set(compiled)), text)
"""


def test_importing_redaction_compiles_no_regex_and_first_use_does():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    at_import, after_use, text = out.stdout.split(maxsplit=2)
    assert int(at_import) == 0
    assert int(after_use) > 0  # the probe does see compiles: a redaction needs some
    assert "ghp_" not in text and "[REDACTED:" in text


def _module_patterns() -> list[LazyPattern]:
    found = []
    for module in (assignments, context, patterns, redact, rule_engine, values):
        found += [v for v in vars(module).values() if isinstance(v, LazyPattern)]
    for detector in (*patterns.SHAPE_DETECTORS, *context.CONTEXT_DETECTORS):
        found += [detector.pattern, detector.gate]
    return found


def test_every_deferred_pattern_compiles():
    lazy = _module_patterns()
    assert len(lazy) > 100  # the detectors and helpers are all deferred
    for pattern in lazy:
        assert isinstance(pattern.compiled(), re.Pattern), pattern


def test_a_deferred_pattern_behaves_as_the_compiled_one():
    lazy, eager = (
        LazyPattern(r"(?P<word>[a-z]+)(\d*)", re.I),
        re.compile(r"(?P<word>[a-z]+)(\d*)", re.I),
    )
    text = "Abc12 de f3"
    assert [m.groups() for m in lazy.finditer(text)] == [m.groups() for m in eager.finditer(text)]
    assert lazy.sub("_", text) == eager.sub("_", text)
    assert (lazy.pattern, lazy.flags, lazy.groupindex) == (
        eager.pattern,
        eager.flags,
        eager.groupindex,
    )
    assert lazy.match(text, 6).span() == eager.match(text, 6).span()
    try:
        LazyPattern("(").search("x")
    except re.error:
        pass
    else:
        raise AssertionError("a broken pattern must fail when first used")
