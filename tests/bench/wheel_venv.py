"""Whole-process timing from a normal (non-editable) install, shared by the benchmarks that time
commands and hooks (bench_scale.py, bench_hook.py).

An editable install's import finder adds milliseconds to every interpreter start, so a ratio
measured there is not what a user sees. `WheelVenv.build()` builds memvet's wheel from a copy of
the sources, installs it without dependencies into a fresh venv (once per run), and points that
venv at the development venv's site-packages for the dependencies only: a path line in a `.pth`
file adds the folder without running the `.pth` files in it, so the editable finder stays out.

`paired(commands, rounds)` runs the commands round by round (interleaved, so machine noise hits
all of them alike) and returns each one's median seconds; compare them with the venv's own
`python -c pass` (`WheelVenv.baseline()`), run in the same rounds.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Command:
    argv: list[str]
    env: dict[str, str]
    stdin: bytes = b""
    cwd: str | None = None
    ok_codes: tuple[int, ...] = (0,)


@dataclass
class WheelVenv:
    root: Path
    python: Path = field(init=False)
    memvet: Path = field(init=False)

    def __post_init__(self) -> None:
        self.python = self.root / "bin" / "python"
        self.memvet = self.root / "bin" / "memvet"

    @classmethod
    def build(cls, workdir: Path | None = None) -> WheelVenv:
        """A fresh venv holding memvet's wheel (not editable); about 10-20 s."""
        work = Path(workdir or tempfile.mkdtemp(prefix="memvet-wheel-venv-"))
        src, out, venv = work / "src", work / "wheel", work / "venv"
        config = tomllib.loads((ROOT / "pyproject.toml").read_text())
        src.mkdir(parents=True)
        shutil.copy(ROOT / "pyproject.toml", src)
        shutil.copy(ROOT / config["project"]["readme"], src)
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        for folder in config["tool"]["setuptools"]["package-dir"].values():
            top = Path(folder).parts[0]
            if not (src / top).exists():
                shutil.copytree(ROOT / top, src / top, ignore=ignore)
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--quiet"]
        subprocess.run(
            [*pip, "wheel", "--no-deps", "--no-build-isolation", "-w", str(out), str(src)],
            check=True,
            capture_output=True,
        )
        (wheel,) = out.glob("memvet-*.whl")
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        made = cls(venv)
        subprocess.run(
            [*pip, "--python", str(made.python), "install", "--no-deps", "--no-index", str(wheel)],
            check=True,
            capture_output=True,
        )
        site = subprocess.run(
            [str(made.python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        Path(site, "memvet_bench_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        made.check()
        return made

    def check(self) -> None:
        """memvet resolves to the wheel's copy, not the checkout."""
        where = subprocess.run(
            [
                str(self.python),
                "-c",
                "import memvet.store, sys; "
                "print(memvet.store.__file__); print(any('__editable__' in "
                "repr(f) for f in sys.meta_path))",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        assert str(self.root) in where[0] and where[1] == "False", where

    def baseline(self, env: dict[str, str] | None = None) -> Command:
        return Command([str(self.python), "-c", "pass"], env or dict(os.environ))

    def command(
        self,
        *args: str,
        env: dict[str, str],
        stdin: bytes = b"",
        cwd: str | None = None,
        ok_codes: tuple[int, ...] = (0,),
    ) -> Command:
        return Command([str(self.memvet), *args], env, stdin, cwd, ok_codes)


def run(cmd: Command) -> tuple[float, subprocess.CompletedProcess[bytes]]:
    start = time.perf_counter()
    done = subprocess.run(
        cmd.argv, input=cmd.stdin, capture_output=True, env=cmd.env, cwd=cmd.cwd, check=False
    )
    took = time.perf_counter() - start
    if done.returncode not in cmd.ok_codes:
        # `--json` puts the error on stdout, so say both
        raise RuntimeError(
            f"{cmd.argv[1:4]} exited {done.returncode}: "
            f"stderr {done.stderr.decode(errors='replace')[-800:]!r}, "
            f"stdout {done.stdout.decode(errors='replace')[-800:]!r}"
        )
    return took, done


def paired(commands: dict[str, Command], rounds: int, *, warm: int = 1) -> dict[str, float]:
    """Median seconds per command over `rounds` interleaved rounds, after `warm` rounds."""
    for _ in range(warm):
        for cmd in commands.values():
            run(cmd)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(rounds):
        for name, cmd in commands.items():
            times[name].append(run(cmd)[0])
    return {name: statistics.median(ts) for name, ts in times.items()}


# daemon/scheduler.py: a sweep due at start first runs FIRST_RUN_DELAY (5 s) + 2 s per job after
# it (11 jobs); the daily ones (the audit chain, the review flags) walk every memory.
SWEEPS_STARTED_S = 30.0


def settle(
    pid: int,
    triggers: list[Command],
    *,
    window_s: float = 2.0,
    cap_s: float = 180.0,
    not_before: float = 0.0,
) -> float:
    """Seconds until a daemon is idle: each trigger run once (a hook or a question makes it
    build that scope's pack), then until its CPU time grows by under 2 % of `window_s` in one
    window (start-up sweeps and pack builds done; at 100k they take tens of seconds, and a row
    timed meanwhile measures the daemon's start-up, not its answers). No window counts before
    `not_before` (a perf_counter time: the daemon's start + SWEEPS_STARTED_S, else an idle
    window before the start-up sweeps begin ends it). Capped at `cap_s`."""
    start = time.perf_counter()
    for cmd in triggers:
        run(cmd)

    def cpu() -> float:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    used = cpu()
    while time.perf_counter() - start < cap_s:
        time.sleep(window_s)
        now = cpu()
        if now - used < 0.02 * window_s and time.perf_counter() >= not_before:
            break
        used = now
    return time.perf_counter() - start
