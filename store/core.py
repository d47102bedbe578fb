"""The table aliases the Store's parts query (`CAND`, `MEM`), and the clock and id helpers
they share (defined in context.py, re-exported for the modules that import them from here)."""

from __future__ import annotations

from memvet.store.context import Clock, random_id, utcnow
from memvet.store.models import CandidateRow, MemoryRow

__all__ = ["CAND", "MEM", "Clock", "random_id", "utcnow"]

CAND = CandidateRow.__table__
MEM = MemoryRow.__table__
