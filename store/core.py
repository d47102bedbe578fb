"""The table aliases the Store's parts query (`CAND`, `MEM`, `EVID`, `TOMB`, `TRANS`, `VERS`):
one name per table, typed `Table` (models.py), for every table more than one module reads; and
the clock and id helpers they share (defined in context.py, re-exported for the modules that
import them from here)."""

from __future__ import annotations

from memvet.store.context import Clock, random_id, utcnow
from memvet.store.models import (
    CandidateRow,
    EvidenceRow,
    MemoryRow,
    MemoryTransitionRow,
    MemoryVersionRow,
    TombstoneRow,
)

__all__ = ["CAND", "EVID", "MEM", "TOMB", "TRANS", "VERS", "Clock", "random_id", "utcnow"]

CAND = CandidateRow.__table__
MEM = MemoryRow.__table__
EVID = EvidenceRow.__table__
TOMB = TombstoneRow.__table__
TRANS = MemoryTransitionRow.__table__
VERS = MemoryVersionRow.__table__
