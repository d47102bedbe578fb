"""Run memvet against one gold case (tests/eval/README.md, "Running memvet against the cases").

Per case: render its sessions with `cases/render.py` into a fresh folder (real Claude Code and
Codex layouts, repos with `.git`), open a fresh store whose clock the harness moves, then replay
the case's story in time order:

* a session ends -> the daemon's real ingest path reads its files (`Ingestor.process` with the
  daemon's own `pipeline_factory` and the bundled admission policy: parse, filter, redact,
  extract, admit, checkpoint), exactly what `memvet daemon run --once` does per file;
* an operator action -> what a careful reviewer does through the store API the inspector and
  the CLI use: `approve` the candidate whose evidence points at the gold memory's turn (found by
  provenance, see provenance.py) with the gold statement, kind and scope as edits and the gold
  supersession link (or none); `reject` it; `false_write`, `forget`, `dispute`, `restore` the
  memory;
* the question -> `memvet.store.recall.recall` in the query's workspace at `as_of.valid_time`.

Mode "oracle" replaces extraction with the gold statements typed into memvet (`memvet
propose`): it isolates the recall decision from extraction and is reported, never gated.

Record-time cut-offs: when `as_of.recorded_time` is before the question time, the question is
asked at that point of the replayed timeline (what memvet would have answered then), unless
recall accepts a `recorded_as_of` argument, in which case it is asked at the end with it.
"""

from __future__ import annotations

import dataclasses
import inspect
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from case_run import CaseRun, DraftSeen, Recording, SimClock, when
from provenance import TurnIndex, pair_in_turn, refs_of

sys.path.insert(0, str(Path(__file__).resolve().parent / "cases"))
import render  # noqa: E402

USER = "eval"
ACTOR = "operator:eval"
INGEST_DELAY = timedelta(seconds=2)  # the daemon reads a session's lines just after they land


class CaseRunner:
    def __init__(self, case: dict, workdir: Path, mode: str = "e2e") -> None:
        from memvet.store import open_store

        self.workdir = workdir
        root = str(workdir / "fs")
        self.manifest = render.render_case(case, workdir / "hosts", root=root, materialize=True)
        self.case = render.remap_case(case, root)
        self.run = CaseRun(self.case, mode)
        self.index = TurnIndex(self.manifest, self.case["sessions"])
        self.gold = {m["id"]: m for m in self.case["memories"]}
        self.clock = SimClock(when(self.case["sessions"][0]["start"]))
        self.store = open_store(workdir / "memvet-home", user=USER, clock=self.clock)
        self._seen: list[tuple[str, Any]] = []
        self._ingestor: Any = None

    # --- the story -----------------------------------------------------------------------------
    def play(self) -> CaseRun:
        start = time.perf_counter()
        try:
            for _, kind, item in sorted(self._timeline(), key=lambda e: (e[0], e[1] != "ingest")):
                if kind == "ingest":
                    self._ingest(item)
                elif kind == "act":
                    self._act(item)
                else:
                    self._ask(item)
                    break
            self._check_leaks()
        finally:
            self.store.close()
        self.run.seconds = time.perf_counter() - start
        return self.run

    def _timeline(self) -> list[tuple[datetime, str, Any]]:
        events: list[tuple[datetime, str, Any]] = []
        for si, s in enumerate(self.case["sessions"]):
            events.append((when(s["turns"][-1]["at"]) + INGEST_DELAY, "ingest", si))
        events += [(when(a["at"]), "act", a) for a in self.case["operator_actions"]]
        ask = when(self.case["query"]["at"])
        recorded = when(self.case["as_of"]["recorded_time"])
        if recorded < ask and not _recall_takes_record_time():
            ask = recorded  # replay: what memvet would have answered at the cut-off
        events.append((ask, "ask", ask))
        return events

    def _ingest(self, si: int) -> None:
        session = self.case["sessions"][si]
        self.clock.move(when(session["turns"][-1]["at"]) + INGEST_DELAY)
        if self.run.mode == "oracle":
            self._propose_gold(si, session)
            return
        from memvet.daemon.roots import Root

        path = Path(self.manifest["sessions"][si]["path"])
        if session["host"] == "claude-code":
            root = Root(
                self.manifest["claude_config_dir"] + "/projects", "claude-code", "claude-projects"
            )
            files = [path, *sorted(path.with_suffix("").glob("subagents/*.jsonl"))]
        else:
            root = Root(self.manifest["codex_home"] + "/sessions", "codex", "codex-sessions")
            files = [path]
        for f in files:
            self._daemon_ingestor().process(str(f), root)
        self._record_drafts()

    def _daemon_ingestor(self) -> Any:
        if self._ingestor is None:
            from memvet.daemon.admission_policy import load_policy
            from memvet.daemon.commands import pipeline_factory
            from memvet.daemon.ingestor import Ingestor
            from memvet.daemon.settings import DaemonSettings

            make = pipeline_factory(self.store.user)
            self.policy = load_policy(None)
            self.selective = dataclasses.replace(self.policy, mode="selective")
            self._ingestor = Ingestor(
                self.store,
                self.policy,
                DaemonSettings(),
                pipeline_factory=lambda host, path, state: Recording(
                    make(host, path, state), self._seen, path
                ),
            )
        return self._ingestor

    def _record_drafts(self) -> None:
        for path, d in self._seen:
            ev = d.evidence
            ref = self.index.ref(ev.path if ev else path, ev.line if ev else 0)
            texts = (d.statement, ev.excerpt if ev else "", d.supersedes_hint or "", *d.reasons)
            self.run.drafts.append(
                DraftSeen(
                    ref,
                    d.kind,
                    d.polarity,
                    d.source_type,
                    d.confidence,
                    self.selective.decide(d) == "auto_commit",
                    texts,
                )
            )
        self._seen.clear()

    def _propose_gold(self, si: int, session: dict) -> None:
        from memvet.store import CandidateDraft, Scope

        for m in self.case["memories"]:
            if m["from_turn"].split(":")[0] != f"s{si}":
                continue
            scope = Scope(
                USER,
                None if m["global"] else m["workspace"],
                session["host"],
                session["session_id"],
            )
            result = self.store.admit(
                CandidateDraft(
                    m["statement"],
                    m["kind"],
                    "operator",
                    scope,
                    host=session["host"],
                    confidence=1.0,
                    polarity=m["polarity"],
                ),
                actor=ACTOR,
            )
            if result.candidate_id:
                self.run.candidate_of[m["id"]] = result.candidate_id
            else:
                self.run.notes.append(f"{m['id']}: gold statement not admitted ({result.outcome})")

    # --- the reviewer --------------------------------------------------------------------------
    def _act(self, action: dict) -> None:
        from memvet.store import MemvetError

        self.clock.move(when(action["at"]))
        gid, verb = action["memory"], action["action"]
        try:
            if verb == "approve":
                self._approve(gid)
            elif verb == "reject":
                cid = self._candidate_for(gid)
                if cid is None:
                    self.run.notes.append(f"{gid}: nothing to reject (no candidate from its turn)")
                else:
                    self.store.reject(cid, actor=ACTOR, reason="eval: gold says reject")
            else:
                mid = self.run.memory_of.get(gid)
                if mid is None:
                    self.run.notes.append(f"{gid}: cannot {verb}, it never became a memory")
                    return
                getattr(self.store, verb)(mid, actor=ACTOR)
        except MemvetError as exc:
            self.run.notes.append(f"{gid}: {verb} refused: {exc.code}: {exc.message}")

    def _approve(self, gid: str) -> None:
        from memvet.store import Edits

        g = self.gold[gid]
        cid = self._candidate_for(gid)
        if cid is None:
            self.run.notes.append(
                f"{gid} ({g['from_turn']}): no candidate from its turn to approve"
            )
            return
        cand = self.store.get_candidate_record(cid)
        want = self.run.memory_of.get(g["supersedes"]) if g["supersedes"] else None
        if self.run.mode == "e2e":
            self.run.link_checks.append((gid, cand.supersedes_id == want))
            self.run.kind_checks.append((gid, cand.kind == g["kind"]))
            self.run.polarity_checks.append((gid, cand.polarity == g["polarity"]))
            if cand.polarity != g["polarity"]:
                self.run.notes.append(
                    f"{gid}: candidate polarity {cand.polarity}, gold "
                    f"{g['polarity']} (not editable at approval)"
                )
        edits = Edits(
            statement=g["statement"],
            kind=g["kind"],
            make_global=g["global"],
            workspace=None if g["global"] else g["workspace"],
            supersede=None if want else False,
            supersede_id=want,
        )
        self.run.memory_of[gid] = self.store.approve(cid, actor=ACTOR, edits=edits).id

    def _candidate_for(self, gid: str) -> str | None:
        """The pending candidate a reviewer would act on for this gold memory (by provenance)."""
        from memvet.store.candidates import QueueFilter

        if gid in self.run.candidate_of:
            return self.run.candidate_of[gid]
        turn = self.gold[gid]["from_turn"]
        reader = self.store.reader_for(None, all_scopes=True)
        taken = set(self.run.candidate_of.values())
        here = []
        for c in self.store.list_candidates(reader, QueueFilter(statuses=("pending",)), limit=None):
            if c.id in taken:
                continue
            evidence = self.store.candidate_detail(c.id).evidence
            if turn in refs_of(self.index, ((e.path, e.line) for e in evidence)):
                here.append((c.id, c.kind, c.statement))
        golds = [
            g
            for g in self.case["memories"]
            if g["from_turn"] == turn and g["id"] not in self.run.candidate_of
        ]
        self.run.candidate_of.update(pair_in_turn(golds, here))
        return self.run.candidate_of.get(gid)

    # --- the question --------------------------------------------------------------------------
    def _ask(self, at: datetime) -> None:
        from memvet.store.recall import recall
        from memvet.store.workspace import resolve_workspace

        q, as_of = self.case["query"], self.case["as_of"]
        self.clock.move(at)
        kwargs: dict[str, Any] = {}
        if _recall_takes_record_time():
            kwargs["recorded_as_of"] = when(as_of["recorded_time"])
        self.run.asked_at = self.clock.now.isoformat()
        self.run.result = recall(
            self.store,
            q["text"],
            workspace=resolve_workspace(q["cwd"]),
            as_of=when(as_of["valid_time"]),
            **kwargs,
        ).to_json()  # scoring reads the JSON document (interfaces.md)

    def _check_leaks(self) -> None:
        secrets = self.case.get("secret_strings") or []
        if not secrets:
            return
        import json

        reader = self.store.reader_for(None, all_scopes=True)
        from memvet.store.candidates import QueueFilter

        texts = [json.dumps(self.run.result)]
        for c in self.store.list_candidates(reader, QueueFilter(statuses=()), limit=None):
            texts.append(json.dumps(self.store.candidate_detail(c.id).to_json()))
        texts += [
            m.statement
            for m in self.store.list_memories(
                reader, statuses=("active", "superseded", "retired", "disputed")
            )
        ]
        texts += [t for d in self.run.drafts for t in d.texts]
        self.run.leaks = sum(s in t for s in secrets for t in texts)


def _recall_takes_record_time() -> bool:
    from memvet.store.recall import recall

    return "recorded_as_of" in inspect.signature(recall).parameters


def run_case(case: dict, workdir: Path, mode: str = "e2e") -> CaseRun:
    return CaseRunner(case, workdir, mode).play()


def load_cases() -> list[dict]:
    return render.load_cases()


def evaluate(cases: list[dict], workdir: Path, mode: str = "e2e") -> list[dict[str, Any]]:
    """Run and score every case, each in its own folder and store."""
    from scoring import score_case

    return [score_case(run_case(c, workdir / mode / c["id"], mode)) for c in cases]
