"""The versions an edit of an approved memory replaced (memory_edit.py), as kept in
`memory_versions`: the whole prior version encrypted as one field bound to its row, so nothing in
it can be altered or moved to another memory; what a memory said as recorded at a past time is
read from here (memories.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from memvet.store.records import Memory
from memvet.store.slots import normalise_subject


@dataclass(frozen=True)
class Version:
    """The parts of a memory an edit changes."""

    statement: str
    subject: str
    kind: str
    polarity: str
    valid_from: datetime
    valid_to: datetime | None

    @classmethod
    def of(cls, m: Memory) -> Version:
        return cls(m.statement, m.subject, m.kind, m.polarity, m.valid_from, m.valid_to)

    def says(self) -> tuple[str, str, str, str]:
        """What the slot decision depends on."""
        return (self.statement, normalise_subject(self.subject), self.kind, self.polarity)

    def to_json(self, **extra: object) -> str:
        return json.dumps(
            {
                **extra,
                "statement": self.statement,
                "subject": self.subject,
                "kind": self.kind,
                "polarity": self.polarity,
                "valid_from": self.valid_from.isoformat(),
                "valid_to": self.valid_to.isoformat() if self.valid_to else None,
            }
        )

    @classmethod
    def from_json(cls, text: str) -> Version:
        d = json.loads(text)
        until = d["valid_to"]
        return cls(
            d["statement"],
            d["subject"],
            d["kind"],
            d["polarity"],
            datetime.fromisoformat(d["valid_from"]),
            datetime.fromisoformat(until) if until else None,
        )
