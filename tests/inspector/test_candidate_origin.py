"""The queue's detail pane says where a candidate came from, as `queue list --json` does in
`origin`: a native-memory gate's source, an adopted proposal, or what its source type means."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest
from memvet.inspector.widgets.candidate_view import render_detail
from memvet.store.cli_lists import candidate_record

from .conftest import app_for, draft, settle

CASES = [  # (source_type, reasons, what the pane says)
    (
        "model_inference",
        ("source: Claude Code auto memory", "agent: main"),
        "from Claude Code auto memory",
    ),
    ("model_inference", ("source: Codex memories",), "from Codex memories"),
    ("explicit_user", ("adopted", "adoption.standing_reply"), "adopted"),
    ("explicit_user", ("the user said so",), "typed by the user"),
    ("operator", ("typed with memvet propose",), "typed by the operator"),
    ("model_inference", ("proposed by an agent over MCP",), "inferred by a model"),
]


def shown(store, candidate_id: str) -> str:
    detail = store.candidate_detail(candidate_id)
    return render_detail(detail, datetime(2026, 3, 2, tzinfo=UTC), None).plain


@pytest.mark.parametrize(("source_type", "reasons", "said"), CASES)
def test_the_detail_says_where_a_candidate_came_from(store, source_type, reasons, said):
    statement = f"Origin case: {said} ({source_type})."
    made = replace(draft(statement, reasons=reasons), source_type=source_type)
    candidate_id = store.admit(made).candidate_id
    source_line = next(
        line for line in shown(store, candidate_id).splitlines() if line.startswith("source")
    )
    assert source_line.split(" · ", 1)[1].startswith(said), source_line
    record = candidate_record(store.get_candidate(candidate_id).to_json())
    if said.startswith("from "):  # the same words as queue list's origin
        assert record["origin"] == said[len("from ") :]
    else:
        assert record["origin"] is None


async def test_the_queue_pane_shows_the_gate_origin(store, clock):
    gated = replace(
        draft("The API listens on port 8443 in staging.", reasons=("source: Codex memories",)),
        source_type="model_inference",
    )
    store.admit(gated)
    app = app_for(store, clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        body = str(app.screen.query_one("#candidate-body").render())
        assert "from Codex memories" in body
