"""Secret redaction, run by the store on every text it admits (see `memvet.store.text_safety`).

Public surface: `redact(text) -> RedactionResult`, `RedactionResult`, `MARKER`/`MARKER_PREFIX`
(the one `[REDACTED:<kind>]` marker) and `Detector` (the shape every detector has). The detector
modules behind it (`patterns`, `context`, `assignments`, `values`) are internal: issue 14 replaces
them with maintained rule sets without changing this surface.
"""

from __future__ import annotations

from memvet.store.redaction.patterns import Detector
from memvet.store.redaction.redact import RedactionResult, redact
from memvet.store.redaction.values import MARKER, MARKER_PREFIX

__all__ = ["MARKER", "MARKER_PREFIX", "Detector", "RedactionResult", "redact"]
