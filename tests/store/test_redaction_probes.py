"""Issue 14: the policy probe set (tests/support/secret_probes.py) — every not-secret class left unchanged,
every secret class masked. Each family is one test case, so a failure names the class."""

from __future__ import annotations

import pytest
from memvet.store.redaction import redact
from secret_probes import NOT_SECRET, SECRET, Probe, probes

_ALL = probes()


def _cases(label: str) -> list[Probe]:
    return [probe for probe in _ALL if probe.label == label]


def test_the_probe_set_covers_both_labels_and_many_classes() -> None:
    assert len({p.family for p in _cases(NOT_SECRET)}) >= 25
    assert len({p.family for p in _cases(SECRET)}) >= 6


@pytest.mark.parametrize("probe", _cases(NOT_SECRET), ids=lambda p: p.family)
def test_not_secret_probe_is_left_unchanged(probe: Probe) -> None:
    result = redact(probe.text)
    assert result.text == probe.text, result.text


@pytest.mark.parametrize("probe", _cases(SECRET), ids=lambda p: p.family)
def test_secret_probe_is_masked(probe: Probe) -> None:
    assert probe.secret is not None
    result = redact(probe.text)
    assert result.changed and probe.secret not in result.text, result.text
