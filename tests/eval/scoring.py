"""Scores for the gold evaluation (definitions in docs/benchmarks.md, "Gold evaluation").

A memory is *served* when recall lists it and the state is not UNKNOWN (tests/eval/README.md).

* exact (a case): served set == expected ids, abstained == should_abstain, no forbidden id
  served. **Current-state accuracy** is the exact rate over every category except `temporal`
  (seed-systems.md D.4's definition); the temporal rate and the rate over all cases are reported
  beside it.
* pass (the cases' README): state == expected_state, every expected id served, no forbidden id.
* abstention precision / recall: "abstained" = state UNKNOWN, positives = should_abstain.
* critical stale use: cases where a superseded, retired, disputed, rejected or not-yet-valid
  memory was served as current: a forbidden id of a stale_or_retired_trap case, or (any case) a
  served memory whose status is not active in a non-historical answer. Must be 0.
* extraction (end-to-end only), on the drafts the pipeline produced, each located at a turn:
  true positive = a draft on a gold memory's turn (up to that turn's number of gold memories;
  rejected ones count: the reviewer needs them to reject); false positive = a draft on a
  hard-negative turn; anything else is unlabelled (reported, and counted in strict precision).
  Recall = gold memories (not rejected) with a draft on their turn.
* false-write-rate proxy: of the drafts `mode = "selective"` would commit without a person, the
  share that sit on hard-negative turns.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

GATES = {  # name -> (operator, threshold); tests/eval/test_gold_eval.py asserts these
    "abstention_precision": (">=", 0.90),
    "abstention_recall": (">=", 0.90),
    "current_state_accuracy": (">=", 0.92),
    "critical_stale_use": ("==", 0),
}
USER_REF = "u"


def ratio(num: float, den: float) -> float | None:
    return round(num / den, 4) if den else None


def score_case(run: Any) -> dict[str, Any]:
    case, result = run.case, run.result
    state = result.get("state", "UNKNOWN")
    served = run.served_gold()
    expected, forbidden = set(case["expected_ids"]), set(case["forbidden_ids"])
    abstained = state == "UNKNOWN"
    bad = sorted(set(served) & forbidden)
    stale = bool(bad) and case["stale_or_retired_trap"]
    if not result.get("historical"):
        stale = stale or any(
            m.get("status", "active") != "active"
            for m in result.get("memories", [])
            if not abstained
        )
    exact = set(served) == expected and abstained == case["should_abstain"] and not bad
    passed = state == case["expected_state"] and expected <= set(served) and not bad
    causes = list(run.notes)
    if state != case["expected_state"]:
        causes.append(
            f"state {state}/{result.get('reason_code')} != expected "
            f"{case['expected_state']}/{case.get('expected_reason')}"
        )
    for gid in sorted(expected - set(served)):
        why = "not served" if gid in run.memory_of else "never became a memory"
        causes.append(f"expected {gid} {why}")
    causes += [f"forbidden {gid} served" for gid in bad]
    extra = sorted(set(served) - expected - forbidden)
    if extra and not exact:
        causes.append(f"also served {', '.join(extra)}")
    ranks = {gid: i + 1 for i, gid in enumerate(served)}
    return {
        "id": case["id"],
        "category": case["category"],
        "mode": run.mode,
        "state": state,
        "reason": result.get("reason_code"),
        "expected_state": case["expected_state"],
        "expected_reason": case.get("expected_reason"),
        "served": served,
        "should_abstain": case["should_abstain"],
        "abstained": abstained,
        "exact": exact,
        "passed": passed,
        "stale_use": stale,
        "leaks": run.leaks,
        "asked_at": run.asked_at,
        "expected_found": sum(g in ranks for g in expected),
        "expected_total": len(expected),
        "expected_in_top5": sum(ranks.get(g, 99) <= 5 for g in expected),
        "first_rank": min((ranks[g] for g in expected if g in ranks), default=None),
        "causes": [] if exact and passed else causes,
        "seconds": round(run.seconds, 3),
        "ingest_issues": len(run.notes),
        "extraction": extraction_of(run) if run.mode == "e2e" else None,
    }


def extraction_of(run: Any) -> dict[str, Any]:
    """Label each draft of one case (see the module docstring)."""
    case = run.case
    gold_turns: dict[str, list[dict]] = defaultdict(list)
    for m in case["memories"]:
        gold_turns[m["from_turn"]].append(m)
    negatives = {h["from_turn"] for h in case["hard_negatives"]}
    per_turn = Counter(d.ref for d in run.drafts)
    drafts = []
    used: Counter[str] = Counter()
    for d in run.drafts:
        if d.ref in gold_turns:
            used[d.ref] += 1
            label = "tp" if used[d.ref] <= len(gold_turns[d.ref]) else "extra"
        elif d.ref in negatives:
            label = "fp"
        else:
            label = (
                "unlabelled_user" if d.ref.split(":")[1].startswith(USER_REF) else "unlabelled_host"
            )
        drafts.append(
            {
                "ref": d.ref,
                "kind": d.kind,
                "label": label,
                "auto": d.auto_commit,
                "source_type": d.source_type,
            }
        )
    found = []
    for turn, golds in gold_turns.items():
        for i, m in enumerate(golds):
            if m["status_after"] != "rejected":
                found.append({"id": m["id"], "kind": m["kind"], "found": i < per_turn[turn]})
    return {
        "drafts": drafts,
        "gold": found,
        "kind_ok": [ok for _, ok in run.kind_checks],
        "polarity_ok": [ok for _, ok in run.polarity_checks],
        "link_ok": [ok for _, ok in run.link_checks],
    }


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Every figure of one mode's run, overall and per category."""
    out = _block(rows)
    out["per_category"] = {
        cat: _block([r for r in rows if r["category"] == cat])
        for cat in dict.fromkeys(r["category"] for r in rows)
    }
    extraction = [r["extraction"] for r in rows if r["extraction"] is not None]
    if extraction:
        out["extraction"] = _extraction(extraction)
    out["gates"] = gates(out)
    out["failing_cases"] = {r["id"]: r["causes"] for r in rows if not r["exact"]}
    return out


def _block(rows: list[dict[str, Any]]) -> dict[str, Any]:
    tp = sum(r["abstained"] and r["should_abstain"] for r in rows)
    said = sum(r["abstained"] for r in rows)
    should = sum(r["should_abstain"] for r in rows)
    current = [r for r in rows if r["category"] != "temporal"]
    temporal = [r for r in rows if r["category"] == "temporal"]
    abstainers = [r for r in rows if r["should_abstain"]]
    expected = sum(r["expected_total"] for r in rows)
    with_expected = [r for r in rows if r["expected_total"]]
    return {
        "cases": len(rows),
        "current_state_accuracy": ratio(sum(r["exact"] for r in current), len(current)),
        "temporal_accuracy": ratio(sum(r["exact"] for r in temporal), len(temporal)),
        "exact_accuracy_all": ratio(sum(r["exact"] for r in rows), len(rows)),
        "case_pass_rate": ratio(sum(r["passed"] for r in rows), len(rows)),
        "abstention_precision": ratio(tp, said) if said else (1.0 if not should else None),
        "abstention_recall": ratio(tp, should) if should else None,
        "reason_accuracy": ratio(
            sum(r["reason"] == r["expected_reason"] for r in abstainers), len(abstainers)
        ),
        "critical_stale_use": sum(r["stale_use"] for r in rows),
        "secret_leaks": sum(r["leaks"] for r in rows),
        "expected_recall_at_5": ratio(sum(r["expected_in_top5"] for r in rows), expected),
        "mrr": ratio(
            sum(1 / r["first_rank"] for r in with_expected if r["first_rank"]), len(with_expected)
        ),
    }


def _extraction(cases: list[dict[str, Any]]) -> dict[str, Any]:
    drafts = [d for c in cases for d in c["drafts"]]
    gold = [g for c in cases for g in c["gold"]]
    labels = Counter(d["label"] for d in drafts)
    tp, fp = labels["tp"], labels["fp"]
    per_kind = {}
    for kind in sorted({g["kind"] for g in gold} | {d["kind"] for d in drafts}):
        k_gold = [g for g in gold if g["kind"] == kind]
        k_tp = sum(d["kind"] == kind and d["label"] == "tp" for d in drafts)
        k_fp = sum(d["kind"] == kind and d["label"] == "fp" for d in drafts)
        per_kind[kind] = {
            "gold": len(k_gold),
            "recall": ratio(sum(g["found"] for g in k_gold), len(k_gold)),
            "drafts": sum(d["kind"] == kind for d in drafts),
            "precision": ratio(k_tp, k_tp + k_fp),
        }
    auto = [d for d in drafts if d["auto"]]
    flat = {
        name: [ok for c in cases for ok in c[name]]
        for name in ("kind_ok", "polarity_ok", "link_ok")
    }
    return {
        "drafts": len(drafts),
        "labels": dict(labels),
        "gold_memories": len(gold),
        "recall": ratio(sum(g["found"] for g in gold), len(gold)),
        "precision": ratio(tp, tp + fp),
        "strict_precision": ratio(tp, len(drafts)),
        "per_kind": per_kind,
        "false_write_rate_proxy": ratio(sum(d["label"] == "fp" for d in auto), len(auto)),
        "auto_commit_not_gold": ratio(sum(d["label"] != "tp" for d in auto), len(auto)),
        "auto_commit_drafts": len(auto),
        "kind_accuracy": ratio(sum(flat["kind_ok"]), len(flat["kind_ok"])),
        "polarity_accuracy": ratio(sum(flat["polarity_ok"]), len(flat["polarity_ok"])),
        "supersede_link_accuracy": ratio(sum(flat["link_ok"]), len(flat["link_ok"])),
    }


def gates(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    for name, (op, threshold) in GATES.items():
        value = summary.get(name)
        ok = value is not None and (value >= threshold if op == ">=" else value == threshold)
        out[name] = {"value": value, "op": op, "threshold": threshold, "pass": ok}
    return out


def attribute(e2e: list[dict[str, Any]], oracle: list[dict[str, Any]]) -> dict[str, str]:
    """Which part of memvet a failing end-to-end case points at. `ingest`: it passes with the
    gold statements typed in (oracle), so extraction, its kind or polarity, or admission lost it;
    `recall`: it fails in oracle mode too, and ingest played cleanly; `ingest+recall`: both."""
    oracle_exact = {r["id"]: r["exact"] for r in oracle}
    out = {}
    for r in e2e:
        if r["exact"]:
            continue
        if oracle_exact.get(r["id"], True):
            out[r["id"]] = "ingest"
        else:
            out[r["id"]] = "ingest+recall" if r.get("ingest_issues") else "recall"
    return out


def always_unknown_baseline(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """The in-run baseline: a recall that answers UNKNOWN to everything."""
    rows = [
        {
            "id": c["id"],
            "category": c["category"],
            "abstained": True,
            "should_abstain": c["should_abstain"],
            "served": [],
            "exact": c["should_abstain"] and not c["expected_ids"],
            "passed": c["expected_state"] == "UNKNOWN",
            "stale_use": False,
            "leaks": 0,
            "reason": None,
            "expected_reason": c.get("expected_reason"),
            "expected_total": len(c["expected_ids"]),
            "expected_in_top5": 0,
            "first_rank": None,
        }
        for c in cases
    ]
    return _block(rows)
