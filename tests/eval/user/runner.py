"""Play the user-side story once and ask every question: through recall and through the hook.

The story is played by tests/eval/harness.py's CaseRunner (the daemon's real ingest path, a
reviewer acting by provenance with the gold statements as edits), except that a correction may
supersede several memories at once (the reviewer picks every memory it replaces). Then, at
ASK_AT, each question is asked in its repository:

* recall: `memvet.store.recall.recall(question, workspace, as_of=...)`;
* hook: what the agent is told when the question is its prompt: the session-start context of
  the repository plus the user-prompt-submit context for the question (a fresh session each),
  read the way the hook reads the store without a daemon (fast_read + hook_reply). The hook has
  no "as of": as-of questions are scored on recall only.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import build  # noqa: E402
from case_run import when  # noqa: E402
from harness import ACTOR, CaseRunner  # noqa: E402

LINE_PREFIX = "- ["  # context_pack.render: "- [kind] statement"


class WorldRunner(CaseRunner):
    def __init__(self, workdir: Path, mode: str = "e2e") -> None:
        super().__init__(build.build_case(), workdir, mode)
        self.root = str(workdir / "fs")

    def play_story(self) -> None:
        for _, kind, item in sorted(self._timeline(), key=lambda e: (e[0], e[1] != "ingest")):
            if kind == "ingest":
                self._ingest(item)
            elif kind == "act":
                self._act(item)
            else:
                break

    def _approve(self, gid: str) -> None:
        """As the harness, plus every memory the correction replaces when there are several."""
        from memvet.store import Edits

        g = self.gold[gid]
        others = [self.run.memory_of[o] for o in g["supersedes_all"][1:] if o in self.run.memory_of]
        fields = {f.name for f in dataclasses.fields(Edits)}
        if others and "supersede_ids" not in fields:
            super()._approve(gid)
            for mid in others:  # no multi-supersede yet: a person retires the rest by hand
                self.store.retire(mid, actor=ACTOR, reason="operator")
            self.run.notes.append(f"{gid}: extra superseded memories retired by hand")
            return
        super()._approve(gid)

    # --- questions ------------------------------------------------------------------------------
    def ask_all(self) -> list[dict[str, Any]]:
        from memvet.store.recall import recall

        self.clock.move(when(build.ASK_AT))
        gold_of = {v: k for k, v in self.run.memory_of.items()}
        statements = self._statements()
        starts: dict[str, str] = {}
        answers = []
        for qid, question in build.question_ids():
            workspace = self.root + build.repo_path(question.repo)
            as_of = when(question.as_of) if question.as_of else None
            result = recall(self.store, question.text, workspace=workspace, as_of=as_of).to_json()
            host = build.host_of(qid)
            if question.repo not in starts:
                starts[question.repo] = self._hook(host, "session-start", workspace, qid, None)
            prompt = self._hook(host, "user-prompt-submit", workspace, qid, question.text)
            answers.append(
                {
                    "id": qid,
                    "state": result["state"],
                    "reason_code": result["reason_code"],
                    "served": []
                    if result["state"] == "UNKNOWN"
                    else [gold_of.get(m["id"], m["id"]) for m in result["memories"]],
                    "contradictions": [
                        gold_of.get(c["id"], c["id"]) for c in result.get("contradictions", [])
                    ],
                    "hook_start": self._lines(starts[question.repo], statements),
                    "hook_prompt": self._lines(prompt, statements),
                }
            )
        return answers

    def _statements(self) -> dict[str, str]:
        """Statement text -> gold id, for reading the hook's lines back."""
        reader = self.store.reader_for(None, all_scopes=True)
        from memvet.store.records import MEMORY_STATUSES

        gold_of = {v: k for k, v in self.run.memory_of.items()}
        return {
            m.statement: gold_of.get(m.id, m.id)
            for m in self.store.list_memories(reader, statuses=MEMORY_STATUSES)
        }

    def _hook(self, host: str, event: str, workspace: str, qid: str, prompt: str | None) -> str:
        from memvet.store import fast_keys, fast_read, hook_reply

        payload = {
            "session_id": f"eval-{qid}-{event}",
            "cwd": workspace,
            "hook_event_name": event,
            "source": "startup",
        }
        if prompt is not None:
            payload["prompt"] = prompt
        home = str(self.workdir / "memvet-home")
        conns = []

        def open_source(ws: str | None):  # noqa: ANN202
            conn, cipher = fast_keys.open_direct(home)
            conns.append(conn)
            return fast_read.DirectSource(conn, cipher, self.store.user, ws)

        try:
            out = hook_reply.answer(
                host,
                event,
                json.dumps(payload).encode(),
                home,
                open_source,
                fast_read.cp.stamp(self.clock.now),
                process_cwd=workspace,
            )
        finally:
            for conn in conns:
                conn.close()
        if not out:
            return ""
        return json.loads(out)["hookSpecificOutput"]["additionalContext"]

    @staticmethod
    def _lines(text: str, statements: dict[str, str]) -> list[dict[str, Any]]:
        """Each memory line of a context text: its gold id, and whether it is marked disputed."""
        from memvet.store.context_pack import DISPUTED

        out = []
        for line in text.splitlines():
            if not line.startswith(LINE_PREFIX):
                continue
            body = line.split("] ", 1)[1]
            disputed = body.startswith(DISPUTED)
            body = body.removeprefix(DISPUTED).split(" (boundary: ")[0]
            out.append({"id": statements.get(body, "?"), "disputed": disputed})
        return out

    def statuses(self) -> dict[str, str]:
        """gold id -> the memory's status at the end of the story."""
        gold_of = {v: k for k, v in self.run.memory_of.items()}
        from memvet.store.records import MEMORY_STATUSES

        reader = self.store.reader_for(None, all_scopes=True)
        return {
            gold_of.get(m.id, m.id): m.status
            for m in self.store.list_memories(reader, statuses=MEMORY_STATUSES)
        }


def run(workdir: Path, mode: str = "e2e") -> dict[str, Any]:
    runner = WorldRunner(workdir, mode)
    try:
        runner.play_story()
        answers = runner.ask_all()
        statuses = runner.statuses()
    finally:
        runner.store.close()
    return {
        "mode": mode,
        "answers": answers,
        "statuses": statuses,
        "notes": runner.run.notes,
        "memory_of": runner.run.memory_of,
        "drafts": len(runner.run.drafts),
    }
