"""Everything a reviewer needs to decide on one candidate: the full statement, kind, suggested
scope, where it came from, confidence and reasons, each evidence excerpt with where and when it was said, the active
memories it conflicts with or would supersede, and any tombstone on the same content."""

from __future__ import annotations

from datetime import datetime

from memvet.inspector.formatting import age, clean, clip_excerpt, one_line, when, workspace_label
from memvet.inspector.widgets.screen_tabs import SCREENS
from memvet.store import Candidate, CandidateDetail, Memory
from memvet.store.cli_lists import origin
from memvet.store.records import ADOPTED
from memvet.store.vocabulary import CandidateStatus, Polarity
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

LABEL = "$text-muted"
RECOVERY_KEY = 1 + [name for name, _ in SCREENS].index("recovery")  # the app binds 1-5 in order


def _field(label: str, *parts: str | tuple[str, str]) -> Content:
    return Content.assemble((f"{label:<8}", LABEL), *parts)


def _memory_line(memory: Memory) -> str:
    return (
        f"{memory.id} ({memory.status}, {workspace_label(memory.scope)}): "
        f"{one_line(memory.statement, 200)}"
    )


def state_note(candidate: Candidate, flag: str | None, error: str | None) -> Content | None:
    """A line above the detail for a row that is not simply pending."""
    if flag in ("approving", "rejecting"):
        return Content.styled(f"⋯ {flag}… (the store has not answered yet)", "$primary bold")
    if flag == "error":
        return Content.styled(f"✗ {clean(error)}", "$error bold")
    if candidate.status == CandidateStatus.RESERVED and candidate.lease is not None:
        return Content.styled(
            f"⚑ held by {clean(candidate.lease.owner)} since {when(candidate.lease.reserved_at)}",
            "$warning bold",
        )
    if candidate.status == CandidateStatus.STALE:
        holder = candidate.lease.owner if candidate.lease else "an approver that stopped"
        return Content.styled(
            f"◷ stale reservation by {clean(holder)}: settle it in Recovery (press {RECOVERY_KEY})",
            "$warning bold",
        )
    if candidate.last_error:
        return Content.styled(
            f"last attempt failed: {one_line(candidate.last_error, 200)}", "$warning"
        )
    return None


# How a candidate without a named origin got into the queue, by its source type.
CAME_BY_TYPE = {
    "explicit_user": "typed by the user",
    "operator": "typed by the operator",
    "model_inference": "inferred by a model",
    "import": "imported",
}


def came_from(candidate: Candidate) -> str:
    """Where the candidate came from, as `queue list` says it (a writer's `source: …` reason,
    e.g. the native-memory gates), else adopted from the assistant, else by its source type."""
    named = origin(list(candidate.reasons))
    if named:
        return f"from {clean(named)}"
    if ADOPTED in candidate.reasons:
        return "adopted (the user agreed to the assistant's proposal)"
    return CAME_BY_TYPE.get(candidate.source_type, candidate.source_type)


def render_detail(detail: CandidateDetail, now: datetime, note: Content | None) -> Content:
    c = detail.candidate
    lines: list[Content] = []
    if note is not None:
        lines.append(note)
    lines.append(
        Content.styled(
            f"{c.kind} · {c.status} · confidence {c.confidence:.2f} · {c.evidence_count} evidence · "
            f"{age(now, c.created_at)} old · {c.id}",
            LABEL,
        )
    )
    lines.append(Content.styled(clean(c.statement).strip(), "bold"))
    scope = "this workspace" if c.scope.workspace else "user-global"
    lines.append(_field("scope", workspace_label(c.scope), (f"  (suggested: {scope})", LABEL)))
    lines.append(
        _field(
            "source",
            f"{c.source_type} via {clean(c.host or 'unknown host')}",
            (f" · {came_from(c)}", "$accent"),
            "" if c.polarity == Polarity.ASSERT else " · a denial",
        )
    )
    if c.reasons:
        lines.append(_field("why", "; ".join(one_line(r, 120) for r in c.reasons)))
    for memory in detail.conflicts:
        lines.append(Content.styled(f"⚠ conflicts with {_memory_line(memory)}", "$warning"))
    if detail.conflicts:
        lines.append(
            Content.styled(
                f"  s: supersede, keep both or dispute (slot: {one_line(c.subject, 40)})", LABEL
            )
        )
    if detail.supersedes is not None:
        lines.append(
            Content.styled(f"↻ would supersede {_memory_line(detail.supersedes)}", "$accent")
        )
    if detail.tombstone is not None:
        t = detail.tombstone
        state = f"lifted {when(t.lifted_at)}" if t.lifted_at else "active"
        lines.append(
            Content.styled(
                f"✝ matches a tombstone ({t.reason}, {when(t.created_at)}, {state}, "
                f"seen again {t.seen_again}×)",
                "$error",
            )
        )
    lines.append(Content.styled(f"evidence ({len(detail.evidence)})", "bold"))
    for n, ev in enumerate(detail.evidence, 1):
        lines.append(
            Content.assemble(
                (f"{n:>2} ", LABEL),
                clean(ev.path),
                (f":{ev.line}", LABEL),
                (f" · {when(ev.timestamp)}", LABEL),
            )
        )
        lines.append(Content.assemble("   “", clip_excerpt(ev.excerpt), "”"))
    return Content("\n").join(lines)


class CandidateView(VerticalScroll, can_focus=True):
    """The detail pane. Scrolls on its own when focused (tab)."""

    def compose(self) -> ComposeResult:
        yield Static("", id="candidate-body")

    def show(self, detail: CandidateDetail, now: datetime, note: Content | None) -> None:
        self.query_one("#candidate-body", Static).update(render_detail(detail, now, note))

    def message(self, text: str, style: str = LABEL) -> None:
        self.query_one("#candidate-body", Static).update(Content.styled(text, style))
        self.scroll_home(animate=False)
