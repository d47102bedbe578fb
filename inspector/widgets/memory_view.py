"""One memory with its history: every transition (from, to, when, who, why) the store kept."""

from __future__ import annotations

from datetime import datetime

from memvet.inspector.formatting import age, clean, when, workspace_label
from memvet.store import Memory, Transition
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

LABEL = "$text-muted"
STATUS_STYLE = {
    "active": "$success",
    "disputed": "$warning",
    "retired": "$error",
    "superseded": "$text-muted",
}


def render_memory(memory: Memory, history: list[Transition], now: datetime) -> Content:
    m = memory
    valid = f"valid {when(m.valid_from)} → {when(m.valid_to) if m.valid_to else 'open'}"
    lines = [
        Content.assemble(
            (m.status, f"{STATUS_STYLE.get(m.status, '')} bold"),
            (f" · {m.kind} · {valid} · {m.id}", LABEL),
        ),
        Content.styled(clean(m.statement).strip(), "bold"),
        Content.assemble(
            ("scope   ", LABEL),
            workspace_label(m.scope),
            ("   approved by ", LABEL),
            clean(m.approved_by),
            (f" {age(now, m.recorded_at)} ago", LABEL),
        ),
    ]
    if m.auto_admitted:  # selective mode: no person read it before it became memory
        lines.append(
            Content.styled(
                "auto-admitted by the admission policy: not reviewed by a person", "$warning"
            )
        )
    if m.retired_reason:
        lines.append(Content.assemble(("retired ", LABEL), m.retired_reason))
    links = [f"supersedes {m.supersedes_id}"] if m.supersedes_id else []
    if m.superseded_by_id:
        links.append(f"superseded by {m.superseded_by_id}")
    if links:
        lines.append(Content.styled(" · ".join(links), "$accent"))
    lines.append(Content.styled(f"history ({len(history)})", "bold"))
    for t in history:
        lines.append(
            Content.assemble(
                (f"  {when(t.at)} ", LABEL),
                f"{t.from_status or 'new'} → {t.to_status}",
                (f"  {t.reason or ''} by {clean(t.actor)}", LABEL),
            )
        )
    return Content("\n").join(lines)


class MemoryView(VerticalScroll, can_focus=True):
    def compose(self) -> ComposeResult:
        yield Static("", id="memory-body")

    def show(self, memory: Memory, history: list[Transition], now: datetime) -> None:
        self.query_one("#memory-body", Static).update(render_memory(memory, history, now))

    def message(self, text: str, style: str = LABEL) -> None:
        self.query_one("#memory-body", Static).update(Content.styled(text, style))
