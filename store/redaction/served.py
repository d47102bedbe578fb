"""Re-redaction on the way out: what the MCP server, the daemon's hook answers and `memvet recall`
serve is redacted again with today's rules, so a memory approved before a rule existed does not
leak once the rule exists. The first two run in long-lived processes that have the redactor
loaded; `memvet recall` in its own process and the no-daemon hook load it only while the store
is not swept with today's rules (their start-up budget), see docs/threat-model.md."""

from __future__ import annotations

from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from memvet.store.recall_decision import RecallDecision

# The free-text fields of served documents (records.py to_json, recall, context packs).
TEXT_FIELDS = frozenset(
    {"statement", "usage_boundary", "boundary", "excerpt", "supersedes_hint", "preview", "subject"}
)


def recheck(text: str | None) -> str | None:
    if not text:
        return text
    from memvet.store.redaction.redact import redact

    return redact(text).text


def rechecked(document: Any) -> Any:
    """`document` (dicts and lists of JSON values) with every free-text field re-redacted."""
    if isinstance(document, dict):
        return {
            key: recheck(value)
            if key in TEXT_FIELDS and isinstance(value, str)
            else rechecked(value)
            for key, value in document.items()
        }
    if isinstance(document, list):
        return [rechecked(value) for value in document]
    return document


def recall_document(decision: RecallDecision) -> dict[str, Any]:
    """The recall document as every route serves it (the MCP tool, `memvet recall` in its own
    process, and the daemon answering for it, store/recall_route.py)."""
    return rechecked(decision.to_json())
