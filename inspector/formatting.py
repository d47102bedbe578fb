"""Turning store records into short, safe screen text. No Textual here: plain functions.

Everything shown passes through `clean` (no control sequences from transcripts reach the
terminal); evidence excerpts also through `clip_excerpt` (never longer than EXCERPT_LIMIT)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from memvet.store import EXCERPT_LIMIT, Scope
from memvet.store.hosts import REGISTRY

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SPACES = re.compile(r"\s+")
KIND_SHORT = {
    "preference": "pref",
    "constraint": "rule",
    "decision": "dcsn",
    "fact": "fact",
    "procedure": "proc",
}
_RELATIVE = re.compile(r"^\s*(\d+)\s*([smhdw])\s*(?:ago)?\s*$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def clean(text: str | None) -> str:
    """Control characters (escape sequences, bells, carriage returns) shown as U+FFFD."""
    return _CONTROL.sub("\ufffd", text or "")


def one_line(text: str | None, width: int | None = None) -> str:
    flat = _SPACES.sub(" ", clean(text)).strip()
    if width is not None and len(flat) > width:
        return flat[: max(width - 1, 0)] + "…"
    return flat


def clip_excerpt(text: str | None) -> str:
    """At most EXCERPT_LIMIT characters, whatever the store handed back."""
    body = clean(text)
    if len(body) <= EXCERPT_LIMIT:
        return body
    return body[: EXCERPT_LIMIT - 1] + "…"


def tail(text: str, width: int) -> str:
    """The end of a path, which is the part that tells workspaces apart."""
    text = clean(text)
    if len(text) <= width:
        return text
    return "…" + text[-(width - 1) :] if width > 1 else "…"


def workspace_label(scope: Scope | None, width: int | None = None) -> str:
    if scope is None or scope.workspace is None:
        return "(global)"
    name = scope.workspace if width is None else tail(scope.workspace.rstrip("/"), width)
    return clean(name)


def workspace_name(scope: Scope) -> str:
    """The last folder of the workspace: what fits in a narrow column."""
    if scope.workspace is None:
        return "(global)"
    return clean(scope.workspace.rstrip("/").rsplit("/", 1)[-1]) or "/"


def kind_label(kind: str, short: bool) -> str:
    return KIND_SHORT.get(kind, kind[:4]) if short else kind


def host_label(host: str | None, short: bool = True) -> str:
    if not host:
        return "-"
    if not short:
        return clean(host)
    entry = REGISTRY.get(host)  # "memvet" (the CLI's own proposals) fits as it is
    return entry.short if entry else clean(host)[:6]


def aware(value: datetime) -> datetime:
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def age(now: datetime, then: datetime | None) -> str:
    """Compact age: 45s, 12m, 3h, 5d, 7w, 2y."""
    if then is None:
        return "-"
    seconds = max((aware(now) - aware(then)).total_seconds(), 0)
    for unit, size in (("y", 365 * 86400), ("w", 7 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


def when(value: datetime | None) -> str:
    if value is None:
        return "-"
    return aware(value).astimezone(UTC).strftime("%Y-%m-%d %H:%MZ")


def parse_when(text: str, now: datetime) -> datetime:
    """An ISO 8601 time (date alone means its midnight UTC) or an age such as `3d` or `2h ago`."""
    match = _RELATIVE.match(text.lower())
    if match:
        return aware(now) - timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})
    try:
        parsed = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"not a time: {text!r} (try 2026-03-01, 2026-03-01T12:00Z or 3d)"
        ) from None
    return aware(parsed)
