"""Where a produced candidate came from, in the gold case's terms.

render.py's manifest maps every turn reference (`s0:u1`, `s1:injected`, `s0:compact`, `s2:a1`)
to its transcript file and 1-based line. A candidate's evidence (path, line) is turned back into
a turn reference here: a reference owns every line from its own first line up to the next
reference's first line, so host lines that belong to a turn (Codex's `event_msg` echo of a
prompt, Claude's tool-result lines after an assistant block) are attributed to it. Lines before
the first turn are `s<N>:header` (session metadata, permissions text); lines in a Claude
sub-agent file are the assistant turn that started the sub-agent.

Matching a candidate to a gold memory is by these references only, never by wording. When one
user turn holds several gold memories and several candidates, the pairing inside that turn goes
kind first, then the share of shared words: what a reviewer reading the candidates would do.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from pathlib import Path

WORD = re.compile(r"[a-z0-9][a-z0-9_.-]*")


class TurnIndex:
    """(path, line) -> turn reference, for one rendered case."""

    def __init__(self, manifest: dict, sessions: list[dict]) -> None:
        self._starts: dict[str, list[tuple[int, str]]] = {}
        self._subagent_dirs: list[tuple[str, str]] = []
        for si, entry in enumerate(manifest["sessions"]):
            path = str(Path(entry["path"]).resolve())
            starts = sorted(
                (info["line"], f"s{si}:{ref}")
                for ref, info in entry["turns"].items()
                if str(Path(info["path"]).resolve()) == path
            )
            self._starts[path] = starts
            if entry["host"] == "claude-code":
                agent_turns = [
                    t["id"]
                    for t in sessions[si]["turns"]
                    if (t.get("tool") or {}).get("kind") == "agent"
                ]
                owner = f"s{si}:{agent_turns[0]}" if agent_turns else f"s{si}:subagent"
                self._subagent_dirs.append((str(Path(path).with_suffix("")) + "/", owner))
        self.session_of_path = {p: i for i, p in enumerate(self._starts)}

    def ref(self, path: str, line: int) -> str:
        real = str(Path(path).resolve())
        starts = self._starts.get(real)
        if starts is None:
            for prefix, owner in self._subagent_dirs:
                if real.startswith(prefix):
                    return owner
            return "unknown"
        at = bisect.bisect_right([s for s, _ in starts], line) - 1
        if at < 0:
            si = list(self._starts).index(real)
            return f"s{si}:header"
        return starts[at][1]


def words(text: str) -> set[str]:
    return set(WORD.findall(text.casefold()))


def similarity(a: str, b: str) -> float:
    wa, wb = words(a), words(b)
    return len(wa & wb) / max(1, min(len(wa), len(wb)))


def pair_in_turn(golds: list[dict], candidates: list[tuple[str, str, str]]) -> dict[str, str]:
    """Pair gold memories of one turn with candidates (id, kind, statement) of that turn.

    Greedy on (same kind, word overlap); a turn with one gold memory and one candidate pairs
    without looking at either text.
    """
    if len(golds) == 1 and len(candidates) == 1:
        return {golds[0]["id"]: candidates[0][0]}
    scored = sorted(
        (
            (g["kind"] == kind, similarity(g["statement"], text), g["id"], cid)
            for g in golds
            for cid, kind, text in candidates
        ),
        reverse=True,
    )
    pairs: dict[str, str] = {}
    used: set[str] = set()
    for _, _, gid, cid in scored:
        if gid not in pairs and cid not in used:
            pairs[gid] = cid
            used.add(cid)
    return pairs


def refs_of(index: TurnIndex, evidence: Iterable[tuple[str, int]]) -> set[str]:
    return {index.ref(path, line) for path, line in evidence}
