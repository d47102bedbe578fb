"""What a command imports, for bench_scale.py (issue 15: read commands must not load the ORM)."""

from __future__ import annotations

import subprocess

from wheel_venv import WheelVenv


def import_profile(venv: WheelVenv, env: dict[str, str], *args: str) -> dict[str, object]:
    """`python -X importtime` of one command: its import total and whether the ORM is in it."""
    done = subprocess.run(
        [str(venv.python), "-X", "importtime", "-m", "memvet", *args],
        env=env,
        capture_output=True,
        text=True,
        cwd=env.get("PWD"),
    )
    rows = [
        line.split("|")
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and "|" in line and "self [us]" not in line
    ]
    tops = [(int(r[1]), r[2].strip()) for r in rows if not r[2].startswith("   ")]
    names = {r[2].strip() for r in rows}
    return {
        "import_ms": round(sum(t for t, _ in tops) / 1000, 1),
        "imports_orm": bool(names & {"sqlalchemy", "sqlmodel", "pydantic"}),
    }
