"""The read commands without the ORM (store/read_layer.py, store/cli_lists.py): the same records
as the Store's path, keyset pages that chain, one JSON document, and no SQLAlchemy, SQLModel or
pydantic in a `queue list`, `memories list` or `status` process."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3
import subprocess
import sys
from datetime import timedelta

import pytest
from memvet.install.launcher import main
from memvet.store import cli_handlers
from memvet.store.read_layer import iso_text, open_reader
from memvet.store.records import iso

from .conftest import draft

APP, OTHER = "/home/dana/src/app", "/home/dana/src/other"
ORM = ("sqlalchemy", "sqlmodel", "pydantic")
# The read commands' import budget: besides the ORM, none of these loads in a read command
# (importlib.metadata: the command frame reads entry points itself; tomlkit: only setup edits).
HEAVY = (*ORM, "tomlkit", "msgspec", "importlib.metadata")
# List records are dicts built from rows; argparse's help width without shutil (console.py); the
# scope rule without the hook's pack rules (read_layer.py).
NOT_IN_LISTS = ("memvet.store.records", "dataclasses", "shutil", "memvet.store.context_pack")


@pytest.fixture
def dana(monkeypatch):
    """The CLI's user is the login name; the fixtures' store is dana's."""
    for name in ("LOGNAME", "USER"):
        monkeypatch.setenv(name, "dana")


@pytest.fixture
def filled(store, clock, dana):
    """Candidates in every shown status and memories in three scopes and three statuses."""
    ids = {}
    for i, ws in enumerate((APP, None, OTHER, APP, APP, None)):
        clock.advance(minutes=1)
        ids[i] = store.admit(draft(f"rule {i}: use tool{i} for task{i}", workspace=ws)).candidate_id
    store.reserve(ids[0], owner="ana", ttl=timedelta(days=36500))  # held: reserved
    store.reserve(ids[1], owner="ana", ttl=timedelta(seconds=1))  # ran out: stale
    store.reject(ids[2], actor="dana")
    memories = []
    for i, ws in enumerate((APP, None, OTHER, APP, None)):
        clock.advance(minutes=1)
        cid = store.admit(
            draft(f"fact {i}: service{i} listens on port {8000 + i}", workspace=ws, kind="fact")
        ).candidate_id
        memories.append(store.approve(cid, actor="dana").id)
    store.retire(memories[3], actor="dana")
    store.dispute(memories[4], actor="dana")
    return ids, memories


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()


def orm_records(*args: str) -> dict:
    """The same command with the read layer switched off: the Store's path."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("memvet.store.read_layer.open_reader", lambda: None)
        code, out, _ = run(*args, "--json")
    assert code == 0
    return json.loads(out)


STATUS_SETS = (
    [],
    ["reserved"],
    ["stale"],
    ["reserved", "stale"],
    ["committed", "rejected"],
    ["pending", "reserved", "stale", "committed", "rejected", "expired"],
)


def test_both_paths_give_the_same_records(filled, monkeypatch):
    """Every status set of the queue, every scope and status set of memories: the read layer's
    JSON is the Store's, byte for byte once parsed (one set-up for all: it is the costly part)."""
    assert open_reader() is not None  # the fast path serves this store
    monkeypatch.setattr(cli_handlers, "resolve_workspace", lambda path: path)
    monkeypatch.setattr("memvet.store.workspace.resolve_workspace", lambda path: path)
    for statuses in STATUS_SETS:
        flags = [f for s in statuses for f in ("--status", s)]
        code, out, _ = run("queue", "list", *flags, "--json")
        fast = json.loads(out)
        assert code == 0 and fast == orm_records("queue", "list", *flags), statuses
        shown = {c["status"] for c in fast["candidates"]}
        assert fast["candidates"] and shown <= set(statuses or ("pending", "stale"))
    for where in (["--cwd", APP], ["--global"], ["--all-scopes"]):
        for statuses in ([], ["retired", "disputed"], ["active", "retired"]):
            flags = [*where, *[f for s in statuses for f in ("--status", s)]]
            code, out, _ = run("memories", "list", *flags, "--json")
            fast = json.loads(out)
            assert code == 0 and fast == orm_records("memories", "list", *flags), flags
            workspaces = {m["scope"]["workspace"] for m in fast["memories"]}
            assert where == ["--all-scopes"] or OTHER not in workspaces
            assert fast["memories"] or (where, statuses) == (["--global"], ["retired", "disputed"])


def test_json_batches_make_the_same_document(filled, dana, monkeypatch):
    """write_list encodes BATCH records per json.dumps: batches of one or two records give the
    bytes of one batch, on both paths, for a full page (`next_after`) and for the last one."""
    from memvet.store import cli_lists

    queue = (
        "queue",
        "list",
        *[f for s in ("pending", "reserved", "stale") for f in ("--status", s)],
    )
    commands = [
        (*queue, "--json"),
        (*queue, "--limit", "2", "--json"),
        ("memories", "list", "--all-scopes", "--status", "active", "--status", "retired", "--json"),
    ]
    whole = [run(*argv) for argv in commands]
    for code, out, _ in whole:
        assert code == 0 and out.count('"id"') >= 2
    assert json.loads(whole[1][1])["next_after"]
    for size in (1, 2):
        monkeypatch.setattr(cli_lists, "BATCH", size)
        assert [run(*argv) for argv in commands] == whole, size
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr("memvet.store.read_layer.open_reader", lambda: None)
            assert [run(*argv) for argv in commands] == whole, size


def test_pages_chain_without_gaps_or_repeats(filled, dana):
    code, out, _ = run(
        "memories",
        "list",
        "--all-scopes",
        "--status",
        "active",
        "--status",
        "retired",
        "--status",
        "disputed",
        "--json",
        "--all",
    )
    everything = [m["id"] for m in json.loads(out)["memories"]]
    assert len(everything) == 5 and json.loads(out)["next_after"] is None
    seen, after = [], []
    while True:
        code, out, _ = run(
            "memories",
            "list",
            "--all-scopes",
            "--status",
            "active",
            "--status",
            "retired",
            "--status",
            "disputed",
            "--limit",
            "2",
            *after,
            "--json",
        )
        assert code == 0
        page = json.loads(out)
        seen += [m["id"] for m in page["memories"]]
        if page["next_after"] is None:
            break
        assert page["next_after"] == page["memories"][-1]["id"] and len(page["memories"]) == 2
        after = ["--after", page["next_after"]]
    assert seen == everything
    recorded = [
        m["recorded_at"]
        for m in json.loads(run("memories", "list", "--all-scopes", "--json")[1])["memories"]
    ]
    assert recorded == sorted(recorded, reverse=True)


def test_queue_pages_oldest_first(filled, dana):
    _, out, _ = run(
        "queue",
        "list",
        "--status",
        "pending",
        "--status",
        "stale",
        "--status",
        "reserved",
        "--limit",
        "2",
        "--json",
    )
    first = json.loads(out)
    _, out, _ = run(
        "queue",
        "list",
        "--status",
        "pending",
        "--status",
        "stale",
        "--status",
        "reserved",
        "--after",
        first["next_after"],
        "--json",
    )
    rest = json.loads(out)
    stamps = [c["created_at"] for c in first["candidates"] + rest["candidates"]]
    assert len(stamps) == 5 and stamps == sorted(stamps)
    assert rest["next_after"] is None


def test_a_bad_cursor_or_limit_is_a_clear_error_and_one_document(filled, dana):
    code, out, err = run("memories", "list", "--after", "m_nothere", "--json")
    assert code == 1 and json.loads(out)["error"]["code"] == "not_found"
    assert "m_nothere" in json.loads(out)["error"]["message"]
    code, out, _ = run("queue", "list", "--limit", "0", "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == "usage"
    code, _, err = run("queue", "list", "--limit", "3", "--all")
    assert code == 2 and "not allowed with" in err


def test_a_row_altered_without_the_key_is_left_out_and_named(filled, store, dana):
    _, memories = filled
    with sqlite3.connect(store.path) as db:
        db.execute("UPDATE memories SET workspace_bidx = NULL WHERE id = ?", (memories[0],))
    code, out, err = run("memories", "list", "--all-scopes", "--json")
    doc = json.loads(out)
    assert code == 0 and memories[0] not in [m["id"] for m in doc["memories"]]
    assert doc["unreadable"] == {"count": 1, "ids": [memories[0]]}
    assert memories[0] in err and len(doc["memories"]) == 2  # the others still listed


def test_times_are_written_as_records_iso_writes_them(store, clock):
    from datetime import UTC, datetime

    for moment in (
        datetime(2026, 3, 1, 9, 0, tzinfo=UTC),
        datetime(2026, 3, 1, 9, 0, 0, 123456, tzinfo=UTC),
    ):
        assert iso_text(moment.strftime("%Y-%m-%d %H:%M:%S.%f")) == iso(moment)
    assert iso_text("2026-03-01 09:00:00") == "2026-03-01T09:00:00.000000Z"


def test_status_reports_the_same_store_facts(filled, dana):
    from memvet.install import status

    fast = status._store()
    slow = status._store("quick")
    slow.pop("integrity")
    assert fast == slow and fast["queue"]["stale"] == 1 and fast["memories"]["retired"] == 1


def test_status_counts_only_this_users_queue(filled, store, dana):
    """The queue counts come from the status index alone while every candidate is this user's;
    with another user's rows in the file they are filtered, and both equal the Store's."""
    from memvet.install import status

    def both() -> dict:
        fast, slow = status._store(), status._store("quick")
        slow.pop("integrity")
        assert fast == slow
        return fast["queue"]

    mine = both()
    assert mine == {"pending": 3, "reserved": 1, "stale": 1, "rejected": 1, "committed": 5}
    for n in range(3):
        assert store.admit(draft(f"erin's rule {n}: use tabs", user="erin")).outcome == "queued"
    assert both() == mine


def test_read_commands_do_not_import_the_orm(dana, monkeypatch, tmp_path):
    """One process runs the read commands and recall, checking sys.modules after each; then a view
    only the Store serves (--as-of), which must import it (the check can see an import)."""
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")  # a subprocess sees no test keyring
    assert run("propose", "use ruff for linting", "--global")[0] == 0
    code, out, _ = run("queue", "list", "--json")
    assert run("queue", "approve", json.loads(out)["candidates"][0]["id"])[0] == 0
    assert run("propose", "never push to main", "--global")[0] == 0
    script = f"""
import contextlib, io, json, sys
from memvet.install.launcher import main
seen = []
for argv in (["queue", "list", "--json"], ["memories", "list", "--global", "--json"],
             ["status", "--json"], ["recall", "which linter do we use?", "--json"],
             ["memories", "list", "--as-of", "2026-03-01T10:00:00Z"]):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main(argv)
    seen.append([out.getvalue()[:40], sorted(m for m in sys.modules
                                             if m in {HEAVY + NOT_IN_LISTS!r}
                                             or m.split(".")[0] in {ORM!r})])
print(json.dumps(seen))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    (queue, q_mods), (memories, m_mods), (status, s_mods), (recall, r_mods), (_, as_of) = (
        json.loads(done.stdout)
    )
    assert (
        queue.startswith('{"candidates": [{"id": "c_')
        and memories.startswith('{"memories": [{"id": "m_')
        and status.startswith("{")
        and recall.startswith('{"state": "VERIFIED"')
    )
    assert q_mods == [] and m_mods == []
    assert not set(r_mods) & set(HEAVY)  # recall_read.py: records, but never the ORM
    assert not set(s_mods) & set(HEAVY)  # status reads host settings: dataclasses there
    assert "sqlalchemy" in as_of and "sqlmodel" in as_of


# Each command's parser comes from its own component alone (cli_entry_points.COMMANDS).
COMPONENT_CLIS = ("memvet.store.cli", "memvet.daemon.cli", "memvet.inspector.cli")


def test_recall_imports_no_orm_and_no_other_components_cli(dana, monkeypatch, tmp_path):
    """A `recall` process of its own (the install component's command): none of the budget's
    modules and none of the other components' CLI modules (the check sees install's)."""
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")  # a subprocess sees no test keyring
    assert run("propose", "use ruff for linting", "--global")[0] == 0
    code, out, _ = run("queue", "list", "--json")
    assert run("queue", "approve", json.loads(out)["candidates"][0]["id"])[0] == 0
    watched = (*HEAVY, *COMPONENT_CLIS, "memvet.install.cli")
    script = f"""
import contextlib, io, json, sys
from memvet.install.launcher import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    main(["recall", "which linter do we use?", "--json"])
print(json.dumps([out.getvalue()[:24], sorted(m for m in sys.modules if m in {watched!r}
                                              or m.split(".")[0] in {ORM!r})]))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    answered, loaded = json.loads(done.stdout)
    assert answered.startswith('{"state": "VERIFIED"') and loaded == ["memvet.install.cli"]
