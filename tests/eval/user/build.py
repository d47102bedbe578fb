"""The user-side story and questions as data the harness plays: one gold "case" in the format
of tests/eval/README.md (sessions in eight repositories, gold memories, operator actions), the
questions with stable ids, and the frozen dev/test split.

The split was drawn once (`draw_split`, a keyed hash of each question id) and frozen in
split.json with a hash of everything a test question depends on: the questions of the test
split and the whole story. tests/eval/user/test_user_eval.py fails when either changes.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "cases"))
import render  # noqa: E402
from dev_questions import DEV_QUESTIONS  # noqa: E402
from questions import QUESTIONS, Q  # noqa: E402
from world import ASK_AT, HOME, LATER_ACTIONS, REPOS, SESSIONS, U  # noqa: E402

SPLIT_FILE = HERE / "split.json"
SPLIT_KEY = "memvet-user-eval-split-v1"  # never change: it drew the frozen split
TURN_GAP = timedelta(seconds=40)
REVIEW_DELAY = timedelta(minutes=25)  # the reviewer approves a session's memories this late


def when(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def stamp(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def repo_path(repo: str) -> str:
    return f"{HOME}/{repo}"


def build_case() -> dict:
    """The whole story as one gold case (render.py and harness.CaseRunner read this shape)."""
    sessions, memories, actions = [], [], []
    for si, s in enumerate(SESSIONS):
        start = when(s.start)
        at = start + timedelta(seconds=8)
        turns, counts = [], {"user": 0, "assistant": 0}
        for turn in s.turns:
            role = "user" if isinstance(turn, U) else "assistant"
            counts[role] += 1
            tid = f"{role[0]}{counts[role]}"
            item = {"role": role, "id": tid, "at": stamp(at), "text": turn.text}
            if role == "assistant" and turn.tool:
                item["tool"] = turn.tool
            turns.append(item)
            for m in getattr(turn, "memories", ()):
                memories.append(
                    {
                        "id": m.id,
                        "from_turn": f"s{si}:{tid}",
                        "kind": m.kind,
                        "statement": m.statement,
                        "polarity": m.polarity,
                        "global": m.glob,
                        "workspace": None if m.glob else repo_path(s.repo),
                        "supersedes": m.supersedes[0] if m.supersedes else None,
                        "supersedes_all": list(m.supersedes),
                        "valid_from": stamp(at),
                        "review": m.review,
                        "session": si,
                    }
                )
            at += TURN_GAP
        host = s.host
        sid = (
            render._uuid("user-eval", si, s.start)
            if host == "claude-code"
            else render._uuid7(start, "user-eval", si)
        )
        sessions.append(
            {
                "host": host,
                "session_id": sid,
                "cwd": repo_path(s.repo) + s.sub,
                "workspace": repo_path(s.repo),
                "start": s.start,
                "turns": turns,
                **s.options,
            }
        )
        review_at = stamp(when(turns[-1]["at"]) + REVIEW_DELAY)
        for m in memories:
            if m["session"] == si and m["review"] in ("approve", "reject"):
                actions.append({"at": review_at, "action": m["review"], "memory": m["id"]})
    actions += [{"at": at, "action": verb, "memory": gid} for at, verb, gid in LATER_ACTIONS]
    actions.sort(key=lambda a: a["at"])
    first = QUESTIONS[0]
    return {
        "id": "user_world",
        "category": "user",
        "description": "user-side story",
        "workspace": repo_path(first.repo),
        "repos": [repo_path(r) for r in REPOS],
        "sessions": sessions,
        "memories": memories,
        "hard_negatives": [],
        "operator_actions": actions,
        "query": {
            "text": first.text,
            "cwd": repo_path(first.repo),
            "host": "claude-code",
            "at": ASK_AT,
        },
        "as_of": {"valid_time": ASK_AT, "recorded_time": ASK_AT},
        "expected_ids": [],
        "forbidden_ids": [],
        "hard_negative_ids": [],
        "should_abstain": False,
        "expected_state": "VERIFIED",
        "expected_reason": None,
        "stale_or_retired_trap": False,
    }


def question_ids() -> list[tuple[str, Q]]:
    """Stable ids: the repository and the question's place among that repository's; questions
    added to the dev split after the freeze (dev_questions.py) are numbered apart ("repo:d01")."""
    seen: dict[str, int] = {}
    out = []
    for prefix, questions in (("", QUESTIONS), ("d", DEV_QUESTIONS)):
        for question in questions:
            key = prefix + question.repo
            seen[key] = seen.get(key, 0) + 1
            out.append((f"{question.repo}:{prefix}{seen[key]:02d}", question))
    return out


def added_to_dev(qid: str) -> bool:
    """A question written after the split was frozen: always dev, never drawn."""
    return qid.split(":", 1)[1].startswith("d")


def host_of(qid: str) -> str:
    """Questions alternate between the hosts by id, so both ask about every repository."""
    return ("claude-code", "codex")[int(hashlib.sha256(qid.encode()).hexdigest(), 16) % 2]


def draw_split() -> dict[str, str]:
    """qid -> "dev" | "test" (about half each), drawn by a keyed hash of the id alone; the
    questions added after the freeze are dev."""
    return {
        qid: "test"
        if not added_to_dev(qid) and hashlib.sha256(f"{SPLIT_KEY}:{qid}".encode()).digest()[0] % 2
        else "dev"
        for qid, _ in question_ids()
    }


def fingerprint(test_ids: list[str]) -> str:
    """sha256 over the test questions and the whole story they are asked about."""
    by_id = dict(question_ids())
    doc = {
        "questions": [[qid, asdict(by_id[qid])] for qid in sorted(test_ids)],
        "story": build_case(),
    }
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def frozen_split() -> dict:
    return json.loads(SPLIT_FILE.read_text())


def freeze() -> None:  # run once, by hand: python tests/eval/user/build.py --freeze
    split = draw_split()
    test = sorted(q for q, part in split.items() if part == "test")
    SPLIT_FILE.write_text(
        json.dumps({"key": SPLIT_KEY, "test": test, "sha256": fingerprint(test)}, indent=1) + "\n"
    )


if __name__ == "__main__":
    if "--freeze" in sys.argv:
        freeze()
    split = draw_split()
    print(len(split), "questions;", sum(p == "test" for p in split.values()), "in test")
