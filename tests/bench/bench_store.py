"""Encrypted versus plaintext store round trips (budget ≤ 1.3×), and listing 100k memories.

Both stores are the real Store on real SQLite files in the same run; the plaintext one is given
`PlainCipher` (a benchmark-only cipher that stores UTF-8 bytes) so the only difference is the
AES-GCM work. A round trip = admit one candidate, read it back, approve it, read the memory.

    python tests/bench/bench_store.py [--memories 100000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import write_result  # noqa: E402
from memvet.store import CandidateDraft, Evidence, Scope, open_store  # noqa: E402
from memvet.store.crypto import PlainCipher, new_key  # noqa: E402


def _draft(i: int, workspace: str) -> CandidateDraft:
    text = f"convention {i}: run the linters with ruff before committing module {i % 97}"
    return CandidateDraft(
        statement=text,
        kind="procedure",
        source_type="explicit_user",
        scope=Scope("bench", workspace, "claude-code", f"s{i % 13}"),
        host="claude-code",
        confidence=0.8,
        reasons=("bench",),
        evidence=Evidence(f"/home/bench/.claude/projects/p/s{i}.jsonl", i, f"m{i}", None, text),
    )


def round_trips(store, n: int, offset: int) -> list[float]:
    reader = store.reader_for("/w/bench")
    times = []
    for i in range(offset, offset + n):
        start = time.perf_counter()
        cid = store.admit(_draft(i, "/w/bench")).candidate_id
        store.get_candidate(cid, reader)
        memory = store.approve(cid, actor="bench")
        store.get_memory(memory.id, reader)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--round-trips", type=int, default=300)
    parser.add_argument("--memories", type=int, default=100_000)
    args = parser.parse_args()
    os.environ.setdefault("MEMVET_KEY_PROVIDER", "file")
    tmp = Path(tempfile.mkdtemp(prefix="memvet-bench-"))
    encrypted = open_store(tmp / "enc", user="bench")
    plain = open_store(tmp / "plain", user="bench", cipher=PlainCipher(new_key(), "plain000"))
    # warm up both, then interleave rounds so machine noise hits both alike
    round_trips(encrypted, 20, 0)
    round_trips(plain, 20, 0)
    enc_times, plain_times = [], []
    for r in range(6):
        offset = 1000 + r * args.round_trips
        enc_times += round_trips(encrypted, args.round_trips // 6, offset)
        plain_times += round_trips(plain, args.round_trips // 6, offset)
    enc_med, plain_med = statistics.median(enc_times), statistics.median(plain_times)

    listing = {}
    for name, store in (("encrypted", encrypted), ("plaintext", plain)):
        start = time.perf_counter()
        batch = 5000
        for first in range(0, args.memories, batch):
            store.import_memories(
                [_draft(i, "/w/list") for i in range(first, first + batch)], actor="bench"
            )
        seeded = time.perf_counter() - start
        reader = store.reader_for("/w/list")
        start = time.perf_counter()
        memories = store.list_memories(reader)
        listing[name] = {
            "seconds": round(time.perf_counter() - start, 3),
            "count": len(memories),
            "seed_seconds": round(seeded, 1),
        }
    figures = {
        "round_trip_encrypted_ms_median": round(enc_med * 1000, 3),
        "round_trip_plaintext_ms_median": round(plain_med * 1000, 3),
        "round_trip_ratio_encrypted_vs_plaintext": round(enc_med / plain_med, 3),
        "round_trips_measured": len(enc_times),
        "list_memories": args.memories,
        "list_encrypted_seconds": listing["encrypted"]["seconds"],
        "list_plaintext_seconds": listing["plaintext"]["seconds"],
        "list_ratio_encrypted_vs_plaintext": round(
            listing["encrypted"]["seconds"] / listing["plaintext"]["seconds"], 3
        ),
        "list_memories_per_second_encrypted": round(
            listing["encrypted"]["count"] / listing["encrypted"]["seconds"]
        ),
    }
    assert listing["encrypted"]["count"] == args.memories
    write_result(
        "store",
        figures,
        budgets={"round_trip_ratio_encrypted_vs_plaintext": "<= 1.3"},
        notes="A round trip = admit, read back, approve (reserve+commit), read the memory. "
        "Baseline: the same Store with a plaintext benchmark-only cipher, same run.",
    )


if __name__ == "__main__":
    main()
