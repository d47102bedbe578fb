"""The gold evaluation: memvet end to end on the 176 hand-written cases of tests/eval/cases.

Each case is played through the daemon's real ingest path, a reviewer acting by provenance, and
the real recall decision (harness.py); the hard gates are asserted on the end-to-end run. The
same cases are also run with the gold statements typed in (oracle mode), only to say whether a
failing case points at recall or at ingest. Definitions: scoring.py and docs/benchmarks.md.

This set is a development set: its cases were used to tune the rules and recall, and the
user-side evaluation (tests/eval/user/, frozen test split) showed its accuracy figures do not
carry over. So only the invariants are asserted here — no superseded memory served as current,
no secret served; the accuracy gates of scoring.GATES are reported by tests/bench/bench_eval.py
(docs/benchmarks/eval.json), not asserted.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import harness  # noqa: E402
import scoring  # noqa: E402
from provenance import TurnIndex, pair_in_turn  # noqa: E402

CASES = {c["id"]: c for c in harness.load_cases()}


def _fake_run(
    case: dict,
    state: str,
    served: list[str],
    *,
    historical: bool = False,
    statuses: dict[str, str] | None = None,
) -> SimpleNamespace:
    statuses = statuses or {}
    result = {
        "state": state,
        "reason_code": None if state != "UNKNOWN" else "insufficient_evidence",
        "historical": historical,
        "memories": [{"id": f"m_{g}", "status": statuses.get(g, "active")} for g in served],
    }
    run = SimpleNamespace(
        case=case,
        result=result,
        mode="oracle",
        notes=[],
        leaks=0,
        seconds=0.0,
        asked_at="",
        memory_of={g: f"m_{g}" for g in served},
    )
    run.served_gold = lambda: harness.CaseRun.served_gold(run)
    return run


def test_scoring_counts_a_stale_answer_and_the_gate_fails():
    case = CASES["update_001"]  # m2 (pnpm) replaced m1 (yarn); serving m1 is a stale use
    good = scoring.score_case(_fake_run(case, "VERIFIED", ["m2"]))
    stale = scoring.score_case(_fake_run(case, "VERIFIED", ["m1", "m2"]))
    assert good["exact"] and good["passed"] and not good["stale_use"]
    assert stale["stale_use"] and not stale["exact"] and "forbidden m1 served" in stale["causes"]
    summary = scoring.summarise([good, stale])
    assert summary["critical_stale_use"] == 1
    assert summary["gates"]["critical_stale_use"]["pass"] is False
    assert summary["current_state_accuracy"] == 0.5


def test_scoring_served_means_not_unknown_and_abstention_is_counted():
    case = CASES["update_001"]
    unknown = scoring.score_case(_fake_run(case, "UNKNOWN", ["m2"]))
    assert unknown["served"] == [] and unknown["abstained"] and not unknown["exact"]
    summary = scoring.summarise([unknown])
    assert summary["abstention_precision"] == 0.0 and summary["abstention_recall"] is None
    assert summary["gates"]["abstention_precision"]["pass"] is False


def test_scoring_a_superseded_memory_served_as_current_is_stale_even_unlisted():
    case = CASES["extraction_002"]
    row = scoring.score_case(
        _fake_run(
            case, "VERIFIED", case["expected_ids"], statuses={case["expected_ids"][0]: "superseded"}
        )
    )
    assert row["stale_use"]


@pytest.mark.parametrize("case_id", ["cross_agent_005", "cross_agent_010", "cross_agent_016"])
def test_every_turn_line_maps_back_to_its_turn(case_id, tmp_path):
    case = CASES[case_id]
    manifest = harness.render.render_case(case, tmp_path, root=str(tmp_path / "fs"))
    index = TurnIndex(manifest, case["sessions"])
    for si, entry in enumerate(manifest["sessions"]):
        for ref, info in entry["turns"].items():
            assert index.ref(info["path"], info["line"]) == f"s{si}:{ref}"
            if entry["host"] == "codex" and ref.startswith("u"):  # the event_msg echo
                assert index.ref(info["path"], info["line"] + 1) == f"s{si}:{ref}"
        assert index.ref(entry["path"], 1).endswith(":header")
    if case_id == "cross_agent_016":
        sub = next(tmp_path.rglob("subagents/agent-*.jsonl"))
        assert index.ref(str(sub), 3) == "s1:a1"


def test_pairing_inside_one_turn_goes_by_kind_then_shared_words():
    golds = [
        {"id": "m1", "kind": "fact", "statement": "This repo uses pnpm."},
        {"id": "m2", "kind": "constraint", "statement": "Do not run npm install here."},
    ]
    cands = [("c1", "constraint", "dont run npm install"), ("c2", "fact", "we're on pnpm")]
    assert pair_in_turn(golds, cands) == {"m1": "c2", "m2": "c1"}
    assert pair_in_turn(golds[:1], [("c9", "procedure", "anything")]) == {"m1": "c9"}


INVARIANT_GATES = ("critical_stale_use",)


@pytest.mark.timeout(
    900
)  # 176 cases played twice (e2e and oracle): minutes on a shared 2-core runner
def test_gold_evaluation_holds_the_invariants(tmp_path):
    cases = list(CASES.values())
    e2e = harness.evaluate(cases, tmp_path, "e2e")
    oracle = harness.evaluate(cases, tmp_path, "oracle")
    summary = scoring.summarise(e2e)
    blame = scoring.attribute(e2e, oracle)
    (tmp_path / "gold-eval.json").write_text(json.dumps({"e2e": summary, "blame": blame}, indent=1))
    assert summary["cases"] == len(cases) == 176
    assert summary["secret_leaks"] == 0, "a pasted secret reached the store or recall"
    failed = {k: v for k, v in summary["gates"].items() if k in INVARIANT_GATES and not v["pass"]}
    if failed:
        lines = [f"{k}: {v['value']} (needs {v['op']} {v['threshold']})" for k, v in failed.items()]
        counts = {k: sum(b == k for b in blame.values()) for k in dict.fromkeys(blame.values())}
        lines.append(
            f"failing cases {len(summary['failing_cases'])}/{len(cases)}, by the part "
            f"they point at (oracle mode tells recall from ingest): {counts}"
        )
        lines += [
            f"  {cid} [{blame[cid]}]: {'; '.join(causes[:4])}"
            for cid, causes in summary["failing_cases"].items()
        ]
        pytest.fail("gold evaluation invariants broken:\n" + "\n".join(lines), pytrace=False)
