"""The harness is tests/bench/wheel_venv.py (a non-editable wheel install in a temporary venv,
`paired` interleaved medians, `settle`: the daemons are timed once idle). The scale benchmark (issue 15): whole processes from a non-editable install, each against that
venv's own `python -c pass`, interleaved round by round (paired medians; ratios travel between
machines, milliseconds do not). `--quick`: 1k and 10k memories; `--large`: also 100k memories
and 500k pending candidates (recall, both prompt hooks and the session-start hook at 100k; one
seeded home, copied for the no-daemon rows; `queue list` and `status` at 500k pending), written
to scale_large.json; full (neither flag): the same sizes, 21 rounds, into scale.json. `--homes
DIR` keeps the seeded homes (and the project folder they are scoped to) in DIR, and later runs
reuse them, brought to the current schema and redaction rules first. Seeding goes through the
store's write path in bulk: memories through `memvet memories import`, one command (and one
transaction) per 5,000 lines; pending candidates through `Store.admit_many`, one transaction
per 5,000.

Rows: `memvet recall` per size; the prompt hook with the daemon up and down per size >= 10k, and
the first prompt hook after an approval (daemon up); the session-start hook at the largest size,
daemon and direct; `memvet status`; `memvet queue list` (1k pending); `memvet queue approve ID`;
`memvet memories list` (first page) at the largest size; `memvet extract` on one transcript; and
`python -X importtime` of the read commands (what they import). Budgets (issue 15): recall at
10k ≤ 6× and 100k ≤ 10× (and 10× the memories ≤ 2× the time); the no-daemon prompt hook ≤ 5×
at 10k and ≤ 8× at 100k, never at its 2 s cap; the session-start hook at 100k ≤ 2× with the
daemon and ≤ 4× direct; status, queue list, queue approve and the memories list first page
≤ 10× each.

`queue approve ID` is timed at the largest size twice per round on the same pending ids: through
the running daemon (`queue_approve_id_daemon`, the budget row) and directly on a copy of that
store, no daemon (`queue_approve_id_direct`: the ORM's import and the work in the command's own
process); `imports` profiles both routes. At the big queue, last: the inspector's approve → next
row (scale_inspector.py; `--only inspector --homes DIR` measures that row alone, on the kept home).

    python tests/bench/bench_scale.py [--quick] [--large] [--homes DIR] [--rounds N] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_hook import KINDS, TOPICS  # noqa: E402
from benchlib import ROOT, write_result  # noqa: E402
from scale_imports import import_profile  # noqa: E402
from wheel_venv import SWEEPS_STARTED_S, Command, WheelVenv, paired, run, settle  # noqa: E402

QUERY = "which tool do we use for module m42"
PROMPT = "set up celery with redis for module m42"
PENDING_FOR_LIST = 1000
BIG_QUEUE = 500_000


def statement(i: int) -> str:
    """Memory i: its own subject ("module m<i>"), so slots and contradiction checks see a
    realistic spread (a shared subject would make one slot of every memory)."""
    topic, other = TOPICS[i % len(TOPICS)], TOPICS[(i * 7) % len(TOPICS)]
    tail = " and keep the changelog in step" * (i % 4)
    return f"For module m{i} use {topic}, never {other} there{tail}"


TRANSCRIPT = next((ROOT / "assets" / "demo" / "claude-code").rglob("*.jsonl"))
BUDGETS = {
    "recall_10000": 6,
    "recall_100000": 10,
    "prompt_hook_no_daemon_10000": 5,
    "prompt_hook_no_daemon_100000": 8,
    "prompt_hook_daemon_10000": 2,
    "prompt_hook_daemon_100000": 3,
    "session_start_daemon_100000": 2,
    "session_start_direct_100000": 4,
    "status": 10,
    "queue_list_1k_pending": 10,
    "queue_approve_id_daemon": 10,
    "memories_list_first_page": 10,
}


def base_env(home: Path, tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMVET_", "VIRTUAL_ENV"))}
    return {
        **env,
        "MEMVET_HOME": str(home),
        "MEMVET_KEY_PROVIDER": "file",
        "PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring",
        "CLAUDE_CONFIG_DIR": str(tmp / "claude"),
        "CODEX_HOME": str(tmp / "codex"),
        "LOGNAME": "bench",
        "USER": "bench",
    }


SEED_SLICE = 5000  # lines per `memvet memories import`: one transaction each, bounded memory


def seed_memories(
    venv: WheelVenv, env: dict[str, str], workspace: Path, n: int, tmp: Path
) -> float:
    """n active memories visible in `workspace` (70 % in it, 30 % user-global), through
    `memvet memories import` (the store's write path: AES-GCM, blind index, postings), one
    command per slice of SEED_SLICE lines. Returns the seconds the imports took."""
    took = 0.0
    for first in range(0, n, SEED_SLICE):
        files = {"ws": tmp / "seed-ws.jsonl", "global": tmp / "seed-global.jsonl"}
        with open(files["ws"], "w") as ws, open(files["global"], "w") as glob:
            for i in range(first, min(n, first + SEED_SLICE)):
                line = {"statement": statement(i), "kind": KINDS[i % 5], "importance": i % 3}
                (ws if i % 10 < 7 else glob).write(json.dumps(line) + "\n")
        for flag, path in (
            (["--cwd", str(workspace)], files["ws"]),
            (["--global"], files["global"]),
        ):
            start = time.perf_counter()
            done = run(venv.command("memories", "import", str(path), *flag, "--json", env=env))[1]
            took += time.perf_counter() - start
            assert not json.loads(done.stdout)["bad_lines"]
        print(f"\rseeded {min(n, first + SEED_SLICE):,}/{n:,} memories", end="", file=sys.stderr)
    print(file=sys.stderr)
    return took


SEED_PENDING = """
import sys
from memvet.store import CandidateDraft, Scope, open_store
n, workspace, tag = int(sys.argv[1]), sys.argv[2], sys.argv[3]
store = open_store()
scope = Scope(user=store.user, workspace=workspace)
for first in range(0, n, 5000):  # one transaction per 5,000 (Store.admit_many)
    store.admit_many([CandidateDraft(statement=f"job{tag}x{i} runs with tool{i % 97} on weekdays",
                                     kind="preference", source_type="explicit_user", scope=scope,
                                     host="claude-code", confidence=0.7)
                      for i in range(first, min(n, first + 5000))], actor="bench")
    if n > 5000:
        print(f"\\rseeded {min(n, first + 5000):,}/{n:,} pending", end="", file=sys.stderr)
store.close()
"""

# A reused home was seeded by an older build: bring it to this build's schema, redaction rules
# and term vocabulary before anything is timed (else the daemon's re-redaction or re-index
# sweep runs over the whole store while the rows are measured, and holds the write lock).
CURRENT = """
from memvet.store import open_store
from memvet.store.redaction_sweep import reredact_stored
from memvet.store.term_reindex import reindex_for_vocabulary
store = open_store()
print(any([reredact_stored(store, store.now()) is not None,
           reindex_for_vocabulary(store, size=5000) is not None]))
store.close()
"""


def seed_pending(
    venv: WheelVenv, env: dict[str, str], workspace: Path, n: int, tag: str = "p"
) -> None:
    subprocess.run(
        [str(venv.python), "-c", SEED_PENDING, str(n), str(workspace), tag], env=env, check=True
    )
    if n > 5000:
        print(file=sys.stderr)


def seeded_home(
    home: Path, kept: Path | None, venv: WheelVenv, env: dict[str, str], seed: Callable[[], object]
) -> bool:
    """`home` seeded by `seed()`, or copied from `kept` (seeded by an earlier run) and brought
    up to date; a fresh seed is kept there for later runs. True when it was seeded now."""
    if kept is not None and (kept / "memvet.db").exists():
        copy_home(kept, home)
        run(venv.command("migrate", "--json", env=env))  # a newer schema since then
        swept = subprocess.run(
            [str(venv.python), "-c", CURRENT], env=env, check=True, capture_output=True, text=True
        )
        if swept.stdout.strip() == "True":  # re-redacted: keep the current rows for next time
            shutil.rmtree(kept)
            copy_home(home, kept)
        return False
    seed()
    if kept is not None:
        copy_home(home, kept)
    return True


def pending_ids(venv: WheelVenv, env: dict[str, str]) -> list[str]:
    done = run(venv.command("queue", "list", "--all", "--json", env=env))[1]
    return [c["id"] for c in json.loads(done.stdout)["candidates"]]


class Daemon:
    """`memvet daemon run` of the wheel venv on one home, stopped by its pid."""

    def __init__(self, venv: WheelVenv, env: dict[str, str], home: Path) -> None:
        self.started = time.perf_counter()  # its start-up sweeps are due from here
        self.proc = subprocess.Popen(
            [str(venv.memvet), "daemon", "run"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        sock = home / "run" / "daemon.sock"
        deadline = time.monotonic() + 120
        while not sock.exists():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise RuntimeError("the daemon did not start")
            time.sleep(0.2)

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def hook(venv: WheelVenv, env: dict[str, str], event: str, workspace: Path) -> Command:
    name = {"session-start": "SessionStart", "user-prompt-submit": "UserPromptSubmit"}[event]
    payload = {
        "session_id": "bench",
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(workspace),
        "hook_event_name": name,
        "source": "startup",
        "prompt": PROMPT,
    }
    return venv.command(
        "hook",
        "claude-code",
        event,
        env=env,
        stdin=json.dumps(payload).encode(),
        cwd=str(workspace),
    )


def copy_home(src: Path, dst: Path) -> None:
    import sqlite3

    dst.mkdir(mode=0o700)
    shutil.copytree(src / "keys", dst / "keys")
    with sqlite3.connect(src / "memvet.db") as a, sqlite3.connect(dst / "memvet.db") as b:
        a.backup(b)


def prompt_after_approval(
    venv: WheelVenv, env: dict[str, str], workspace: Path, ids: list[str], rounds: int
) -> tuple[float, float]:
    """Median seconds of the first prompt hook after each approval (daemon up), and of the
    baseline in the same rounds."""
    import statistics

    base, first = [], []
    for cid in ids[:rounds]:
        run(venv.command("queue", "approve", cid, env=env))
        first.append(run(hook(venv, env, "user-prompt-submit", workspace))[0])
        base.append(run(venv.baseline(env))[0])
    return statistics.median(first), statistics.median(base)


def approvals(
    venv: WheelVenv, daemon_env: dict[str, str], direct_env: dict[str, str], rounds: int
) -> tuple[dict[str, float], dict[str, object]]:
    """`queue approve ID` per round through the running daemon and directly on a copy of the
    same store (the same ids are pending in both), against the baseline of the same rounds;
    then what each route imports (the daemon must still be up). Ratios and import profiles."""
    import statistics

    ids = pending_ids(venv, daemon_env)[: rounds + 2]
    times: dict[str, list[float]] = {"daemon": [], "direct": [], "base": []}
    for cid in ids[:rounds]:
        for route, env in (("daemon", daemon_env), ("direct", direct_env)):
            times[route].append(run(venv.command("queue", "approve", cid, "--json", env=env))[0])
        times["base"].append(run(venv.baseline(daemon_env))[0])
    base = statistics.median(times["base"])
    ratios = {
        f"queue_approve_id_{route}": round(statistics.median(times[route]) / base, 2)
        for route in ("daemon", "direct")
    }
    imports = {
        "queue_approve_daemon": import_profile(venv, daemon_env, "queue", "approve", ids[-2]),
        "queue_approve_direct": import_profile(venv, direct_env, "queue", "approve", ids[-1]),
    }
    return ratios, imports


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="1k and 10k memories only")
    parser.add_argument("--large", action="store_true", help="--quick and 100k memories")
    parser.add_argument("--homes", type=Path, help="keep seeded homes here, reuse them later")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder")
    parser.add_argument(
        "--big-queue", type=int, default=BIG_QUEUE, help="pending candidates of the big queue"
    )
    parser.add_argument("--only", choices=["inspector"], help="the inspector row, on --homes")
    parser.add_argument("--approvals", type=int, default=30, help="of the inspector row")
    args = parser.parse_args()
    if args.only:  # scale_inspector.py: the Textual app in this process, on the kept big queue
        from scale_inspector import measure_alone

        homes = args.homes or parser.error("--only inspector needs --homes DIR")
        return measure_alone(homes, args.big_queue, args.approvals)
    quick = args.quick or args.large  # --large: the quick run's rows, and the 100k ones
    big_queue = args.large or not args.quick  # the 500k-pending rows
    sizes = [1_000, 10_000, 100_000] if args.large or not args.quick else [1_000, 10_000]
    rounds = args.rounds or (11 if quick else 21)
    tmp = Path(tempfile.mkdtemp(prefix="memvet-bench-scale-"))
    for sub in ("claude/projects", "codex/sessions"):
        (tmp / sub).mkdir(parents=True)
    workspace = (args.homes or tmp) / "project"
    (workspace / ".git").mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    venv = WheelVenv.build(tmp / "wheel")
    figures: dict[str, object] = {
        "sizes": sizes,
        "rounds": rounds,
        "wheel_venv_build_s": round(time.perf_counter() - started, 1),
    }
    homes, envs, seed_s = {}, {}, {}
    for n in sizes:
        homes[n] = tmp / f"home-{n}"
        envs[n] = {**base_env(homes[n], tmp), "PWD": str(workspace)}
        kept = args.homes / f"home-{n}" if args.homes else None

        def seed(n: int = n) -> None:
            seed_s[n] = seed_memories(venv, envs[n], workspace, n, tmp)

        seeded_home(homes[n], kept, venv, envs[n], seed)
        seed_pending(venv, envs[n], workspace, 3 * rounds + 6, tag=f"a{n}")  # for approvals
    figures["import_memories_per_s"] = {str(n): round(n / t) for n, t in seed_s.items()}
    queue_home = tmp / "home-queue"
    queue_env = {**base_env(queue_home, tmp), "PWD": str(workspace)}
    seed_pending(venv, queue_env, workspace, PENDING_FOR_LIST)
    largest = sizes[-1]
    if big_queue:  # 500k pending: the queue's first page and status at that size
        big = f"{args.big_queue // 1000}k"
        figures["big_queue_pending"] = args.big_queue
        big_home = tmp / f"home-{big}-pending"
        big_env = {**base_env(big_home, tmp), "PWD": str(workspace)}
        started = time.perf_counter()
        if seeded_home(
            big_home,
            args.homes / f"home-{big}-pending" if args.homes else None,
            venv,
            big_env,
            lambda: seed_pending(venv, big_env, workspace, args.big_queue),
        ):
            figures["seed_pending_per_s"] = round(args.big_queue / (time.perf_counter() - started))

    base = venv.baseline(envs[largest])
    commands: dict[str, Command] = {"python_c_pass": base}
    for n in sizes:
        commands[f"recall_{n}"] = venv.command(
            "recall", QUERY, "--cwd", str(workspace), "--json", env=envs[n]
        )
    commands["status"] = venv.command("status", "--json", env=envs[largest], ok_codes=(0, 1))
    commands["queue_list_1k_pending"] = venv.command("queue", "list", "--json", env=queue_env)
    commands["memories_list_first_page"] = venv.command(
        "memories", "list", "--cwd", str(workspace), "--json", env=envs[largest]
    )
    commands["extract_one_file"] = venv.command(
        "extract", "--host", "claude-code", str(TRANSCRIPT), "--json", env=envs[largest]
    )
    if big_queue:
        commands[f"queue_list_{big}_pending"] = venv.command("queue", "list", "--json", env=big_env)
        commands[f"status_{big}_pending"] = venv.command(
            "status", "--json", env=big_env, ok_codes=(0, 1)
        )
    direct = {}
    for n in [s for s in sizes if s >= 10_000]:
        direct[n] = tmp / f"home-{n}-direct"
        copy_home(homes[n], direct[n])
        denv = {**envs[n], "MEMVET_HOME": str(direct[n])}
        commands[f"prompt_hook_no_daemon_{n}"] = hook(venv, denv, "user-prompt-submit", workspace)
        if n == largest:
            commands[f"session_start_direct_{n}"] = hook(venv, denv, "session-start", workspace)
    daemons = {n: Daemon(venv, envs[n], homes[n]) for n in direct}
    try:
        for n in direct:
            commands[f"prompt_hook_daemon_{n}"] = hook(
                venv, envs[n], "user-prompt-submit", workspace
            )
        commands[f"session_start_daemon_{largest}"] = hook(
            venv, envs[largest], "session-start", workspace
        )
        figures["daemon_settle_s"] = {  # timed once idle (sweeps, packs), as a user's mostly is
            str(n): round(
                settle(
                    d.proc.pid,
                    [commands[f"recall_{n}"], commands[f"prompt_hook_daemon_{n}"]],
                    not_before=d.started + SWEEPS_STARTED_S,
                ),
                1,
            )
            for n, d in daemons.items()
        }
        medians = paired(commands, rounds)
        # What the command imports when the daemon answers (the budget rows' route); the
        # "recall" profile below, taken after the daemons stop, is the command's own path.
        recall_daemon_imports = import_profile(
            venv, envs[largest], "recall", QUERY, "--cwd", str(workspace), "--json"
        )
        approve_ratio, approve_imports = approvals(
            venv, envs[largest], {**envs[largest], "MEMVET_HOME": str(direct[largest])}, rounds
        )
        after = {}
        for n in direct:
            first, first_base = prompt_after_approval(
                venv, envs[n], workspace, pending_ids(venv, envs[n]), rounds
            )
            after[str(n)] = round(first / first_base, 2)
    finally:
        for daemon in daemons.values():
            daemon.stop()
    if big_queue:  # with nothing else running: approve → next row in the inspector (issue 15)
        from scale_inspector import budget, inspector_row, row_key

        figures[row_key(args.big_queue)] = inspector_row(big_home, args.big_queue, args.approvals)
    outcomes: dict[str, dict[str, int]] = {}  # hook.log: path and outcome of every served hook
    for n in direct:
        for line in (homes[n] / "logs" / "hook.log").read_text().splitlines():
            words = dict(w.split("=", 1) for w in line.split() if "=" in w)
            key = f"{words.get('path')}:{words.get('outcome')}"
            outcomes.setdefault(str(n), {})[key] = outcomes.get(str(n), {}).get(key, 0) + 1
    figures["daemon_home_hook_outcomes"] = outcomes
    # The no-daemon homes' hooks: how often the 2 s cap answered (it must never).
    figures["direct_home_hook_outcomes"] = {
        str(n): dict(
            Counter(
                f"{w.get('path')}:{w.get('outcome')}"
                for w in (
                    dict(x.split("=", 1) for x in line.split() if "=" in x)
                    for line in (home / "logs" / "hook.log").read_text().splitlines()
                )
            )
        )
        for n, home in direct.items()
    }
    base_s = medians["python_c_pass"]
    figures["python_c_pass_ms"] = round(base_s * 1000, 1)
    figures["median_ms"] = {k: round(v * 1000, 1) for k, v in medians.items()}
    figures["ratio"] = {k: round(v / base_s, 2) for k, v in medians.items() if k != "python_c_pass"}
    figures["ratio"].update(approve_ratio)
    figures["ratio_prompt_hook_first_after_approval_daemon"] = after
    if "recall_100000" in medians:  # sub-linear: 10x the memories, at most 2x the time
        figures["recall_time_100000_over_10000"] = round(
            medians["recall_100000"] / medians["recall_10000"], 2
        )
    figures["imports"] = {
        "recall": import_profile(
            venv, envs[largest], "recall", QUERY, "--cwd", str(workspace), "--json"
        ),
        "recall_daemon": recall_daemon_imports,
        "status": import_profile(venv, envs[largest], "status", "--json"),
        "queue_list": import_profile(venv, queue_env, "queue", "list", "--json"),
        "memories_list": import_profile(venv, envs[largest], "memories", "list", "--json"),
        **approve_imports,
    }
    figures["within_budget"] = {
        k: figures["ratio"][k] <= v for k, v in BUDGETS.items() if k in figures["ratio"]
    }
    load = os.getloadavg()
    write_result(
        "scale_large" if args.large else "scale",
        figures,
        budgets={k: f"<= {v}x python -c pass" for k, v in BUDGETS.items()}
        | (budget(args.big_queue) if big_queue else {}),
        notes=f"whole processes from a non-editable wheel install; load average "
        f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cpus "
        f"while measuring; {'large' if args.large else 'quick' if quick else 'full'} run",
    )
    if args.keep:
        print(f"kept {tmp}")
    else:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
