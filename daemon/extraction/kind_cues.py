"""The kind a candidate gets when its own words say it: the `[[kind_cue]]` rules of rules.toml.

Kind rules and the learned kind head guess a kind from what made a sentence a candidate; the
generic ones ("X is Y", "X runs on Y", "X: Y") win on phrasings no procedure or decision rule
was written for, so "releases go: tag, push, publish" came out a `fact`. A cue reads the final
statement (after clauses merged, whoever proposed it) and retypes it when it says how a task is
done here or which choice was made. Cues never make or drop a candidate, and retype only the
kinds they list in `over`: a must/never rule stays a constraint.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from memvet.daemon.extraction.rules import Rule
from memvet.store.records import KINDS


def cue_for(statement: str, kind: str, cues: Sequence[Rule]) -> Rule | None:
    """The first cue (file order) that matches `statement` and may retype `kind`."""
    for cue in cues:
        if cue.kind == kind or (cue.over and kind not in cue.over):
            continue
        if cue.search(statement, statement.lower()) is not None:
            return cue
    return None


def with_kind_cues(items: Sequence[Any], cues: Sequence[Rule]) -> list[Any]:
    """`items` (each an `Extracted`), retyped where a cue says so; the cue's name joins the reasons."""
    typed = []
    for item in items:
        cue = cue_for(item.statement, item.kind, cues) if item.kind in KINDS else None
        if cue is None:
            typed.append(item)
        else:
            typed.append(replace(item, kind=cue.kind, reasons=(*item.reasons, cue.name)))
    return typed
