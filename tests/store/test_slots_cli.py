"""`memvet queue approve`'s conflict flags (issue 13) in process: --supersede naming several
memories, --subject, the note of a correction that replaced nothing, usage errors."""

from __future__ import annotations

import contextlib
import io
import json

from memvet.install.launcher import main


def run(*args: str, code: int = 0) -> dict:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        got = main([*args, "--json"])
    assert got == code, err.getvalue() + out.getvalue()
    return json.loads(out.getvalue())


def propose(text: str, ws, kind: str = "fact") -> str:
    return run("propose", text, "--kind", kind, "--cwd", str(ws))["id"]


def test_supersede_several_named_memories_and_name_the_subject(tmp_path):
    ws = tmp_path / "repo"
    (ws / ".git").mkdir(parents=True)
    uses = run("queue", "approve", propose("This repo uses poetry", ws))["results"][0]
    run_ = run("queue", "approve", propose("Run `poetry install` after pulling", ws, "procedure"))[
        "results"
    ][0]
    fix = propose("We moved from poetry to uv, use `uv sync` now", ws, "decision")
    refused = run("queue", "approve", fix, code=1)["results"][0]
    assert refused["code"] == "conflict" and refused["status"] == "pending"
    assert {m["id"] for m in refused["conflicts"]} == {uses["memory_id"], run_["memory_id"]}
    done = run(
        "queue",
        "approve",
        fix,
        "--subject",
        "Package manager",
        "--supersede",
        uses["memory_id"],
        run_["memory_id"],
    )["results"][0]
    assert done["status"] == "committed" and done["subject"] == "Package manager"
    listed = run("memories", "list", "--cwd", str(ws), "--status", "superseded")["memories"]
    assert {m["id"] for m in listed} == {uses["memory_id"], run_["memory_id"]}


def test_a_correction_with_nothing_to_replace_says_so(tmp_path):
    ws = tmp_path / "repo"
    (ws / ".git").mkdir(parents=True)
    done = run("queue", "approve", propose("We switched from yarn to pnpm", ws))["results"][0]
    assert done["status"] == "committed" and "nothing was superseded" in done["note"]


def test_supersede_of_an_unknown_memory_is_refused_and_loses_nothing(tmp_path):
    ws = tmp_path / "repo"
    (ws / ".git").mkdir(parents=True)
    run("queue", "approve", propose("Packages are managed with uv", ws))
    cid = propose("Packages are managed with poetry", ws)
    out = run("queue", "approve", cid, "--supersede", "m_nope", code=1)["results"][0]
    assert "m_nope" in out["error"]
    assert run("queue", "show", cid)["status"] == "pending"
