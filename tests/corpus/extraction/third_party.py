"""MemoryCode (Apache-2.0) dialogues as corpus-style messages, for training and dev calibration.

Read by reference from ../shared/benchdata (never copied into the repo). Only the dialogues that
`labelled_corpus.third_party_split` deals to train or dev are ever read here; the test dialogues
stay the benchmark's held-out set. Each mentor turn is one user message (the mentee's turn before
it is the previous assistant turn); its labels are the session's instruction topics, with no kind
or scope (MemoryCode does not say), so they teach the keep head only.
"""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

from labelled_corpus import third_party_split

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
MEMORYCODE = SHARED / "benchdata" / "memorycode" / "memorycode_dialogues.jsonl.gz"
POSITIVE_TYPES = (
    "instruction-add",
    "instruction-update",
    "filler-instruction-add",
    "filler-instruction-update",
)
SESSIONS_PER_DIALOGUE = (
    2  # the dialogues repeat their office small talk: a few sessions each carry it
)


def memorycode_messages(split: str) -> list[dict]:
    """Messages of the dialogues in `split` ("train" or "dev"); [] when ../shared is absent."""
    if split == "test":
        raise ValueError("MemoryCode's test dialogues are for evaluation only")
    if not MEMORYCODE.exists():
        return []
    with gzip.open(MEMORYCODE, "rt", encoding="utf-8") as fh:
        dialogues = [json.loads(line) for line in fh]
    messages = []
    for d_index, dialogue in enumerate(dialogues):
        if third_party_split("memorycode", dialogue["source_file"]) != split:
            continue
        mentor = dialogue["context"]["mentor"]
        sessions = dialogue["sessions"]
        # a fixed, spread choice of sessions: the first (introductions) and one further on
        chosen = sorted(
            {
                0,
                *(
                    1 + (d_index * 7 + k * 11) % max(1, len(sessions) - 1)
                    for k in range(SESSIONS_PER_DIALOGUE - 1)
                ),
            }
            & set(range(len(sessions)))
        )
        for s_index in chosen:
            session = sessions[s_index]
            labels = [
                {
                    "evidence": topic,
                    "statement": topic,
                    "kind": None,
                    "scope": None,
                    "adopted": False,
                }
                for topic, kind in zip(session["topic"], session["type"], strict=False)
                if kind in POSITIVE_TYPES
            ]
            previous = ""
            for n, block in enumerate(re.split(r"\n\s*\n", session["text"])):
                speaker, _, said = block.partition(":")
                said = said.strip()
                if not said:
                    continue
                if speaker.strip() != mentor:
                    previous = said
                    continue
                messages.append(
                    {
                        "id": f"mc-{split}-{d_index}-{s_index}-{n}",
                        "text": said,
                        "host": "claude-code" if (d_index + s_index) % 2 == 0 else "codex",
                        "previous_assistant": previous,
                        "labels": labels,
                        "voice": "memorycode",
                        "split": split,
                        "group": f"memorycode:{dialogue['source_file']}",
                    }
                )
    return messages
