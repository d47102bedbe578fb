"""`memvet memories import FILE.jsonl` (store/cli_import.py, store/bulk.py): the gate every write
passes, tombstones, all-or-nothing with bad lines named, one audit event for the act; and
`memvet queue approve -` reading ids from stdin."""

from __future__ import annotations

import contextlib
import io
import json
import sqlite3

import pytest
from memvet.install.launcher import main

TOKEN = "ghp_8f3Kd9Qm2Lx7Vb4Np6Rt1Zc5Yw0Hs3Jk9Ua2"


def run(*args: str, stdin: str | None = None) -> tuple[int, dict | str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.ExitStack() as stack:
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        if stdin is not None:
            stack.enter_context(pytest.MonkeyPatch.context()).setattr(
                "sys.stdin", io.StringIO(stdin)
            )
        code = main(list(args))
    text = out.getvalue()
    return code, (json.loads(text) if "--json" in args else text + err.getvalue())


def jsonl(tmp_path, *lines: object) -> str:
    path = tmp_path / "seed.jsonl"
    path.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    return str(path)


def counts(home) -> tuple[int, int, int]:  # noqa: ANN001
    with sqlite3.connect(home / "memvet.db") as db:
        return tuple(
            db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("memories", "candidates", "audit_events")
        )


@pytest.fixture
def home(tmp_path, monkeypatch):
    import os
    from pathlib import Path

    assert run("propose", "we deploy on fridays", "--global")[0] == 0  # creates the store
    return Path(os.environ["MEMVET_HOME"])


def test_an_import_is_redacted_checked_and_audited_as_one_act(home, tmp_path):
    _, queue = run("queue", "list", "--json")
    rejected = queue["candidates"][0]["id"]
    assert run("queue", "reject", rejected)[0] == 0  # its statement is now tombstoned
    path = jsonl(
        tmp_path,
        {"statement": "Deploys go through staging first", "kind": "procedure"},
        "",
        {"statement": f"the ci token is {TOKEN} here", "kind": "fact", "importance": 2},
        {"statement": "we deploy on fridays", "kind": "fact"},
        {"statement": "Deploys go through staging first", "kind": "procedure"},
    )
    code, doc = run("memories", "import", path, "--global", "--json")
    assert code == 0 and doc["imported"] == 2
    assert [(s["line"], s["outcome"]) for s in doc["skipped"]] == [
        (4, "tombstoned"),
        (5, "duplicate"),
    ]
    _, listed = run("memories", "list", "--global", "--json")
    statements = {m["statement"] for m in listed["memories"]}
    assert "the ci token is [REDACTED:github-token] here" in statements
    assert not any(TOKEN in s for s in statements)
    assert {m["source_type"] for m in listed["memories"]} == {"import"}
    with sqlite3.connect(home / "memvet.db") as db:
        batch = db.execute(
            "SELECT count(*) FROM audit_events WHERE action = 'memories.imported'"
        ).fetchone()[0]
        raw = b"".join(bytes(r[0]) for r in db.execute("SELECT statement_ct FROM memories"))
    assert batch == 1 and TOKEN.encode() not in raw and b"staging" not in raw
    code, verify = run("audit", "verify", "--json")
    assert verify["ok"], verify["problem"]


def test_bad_lines_are_named_and_nothing_is_imported(home, tmp_path):
    before = counts(home)
    path = jsonl(
        tmp_path,
        {"statement": "fine one", "kind": "fact"},
        "not json",
        {"statement": "x", "kind": "opinion"},
        {"statement": "y"},
        {"statement": "z", "kind": "fact", "author": "me"},
        [1, 2],
        {"statement": 3, "kind": "fact"},
        {"statement": "   ", "kind": "fact"},
    )
    code, doc = run("memories", "import", path, "--global", "--json")
    assert code == 2 and doc["error"]["code"] == "invalid_import"
    message = doc["error"]["message"]
    for number in (2, 4, 5, 6, 7):
        assert f"line {number}:" in message
    assert "line 1:" not in message and counts(home) == before
    # the gate's refusals (an unknown kind, an empty statement) are named by line too
    path = jsonl(
        tmp_path,
        {"statement": "fine one", "kind": "fact"},
        {"statement": "x", "kind": "opinion"},
        {"statement": "  ", "kind": "fact"},
    )
    code, doc = run("memories", "import", path, "--global", "--json")
    assert (
        code == 2
        and "line 2:" in doc["error"]["message"]
        and "line 3:" in doc["error"]["message"]
        and counts(home) == before
    )


def test_skip_bad_imports_the_good_lines_and_reports_the_rest(home, tmp_path):
    path = jsonl(
        tmp_path,
        {"statement": "fine one", "kind": "fact"},
        "{oops",
        {"statement": "x", "kind": "opinion"},
        {"statement": "fine two", "kind": "fact"},
    )
    code, doc = run("memories", "import", path, "--global", "--skip-bad", "--json")
    assert code == 0 and doc["imported"] == 2
    assert [b["line"] for b in doc["bad_lines"]] == [2, 3]
    assert (
        run("memories", "import", str(tmp_path / "missing.jsonl"), "--json")[1]["error"]["code"]
        == "unreadable_file"
    )


def test_approve_reads_ids_from_stdin(home):
    assert run("propose", "use uv for packaging", "--global")[0] == 0
    _, queue = run("queue", "list", "--json")
    ids = [c["id"] for c in queue["candidates"]]
    lines = f"{ids[0]}  # the first\n\n{ids[1]} c_nope\n"
    code, doc = run("queue", "approve", "-", "--json", stdin=lines)
    assert code == 1  # one refused
    results = {r["id"]: r for r in doc["results"]}
    assert [results[i]["status"] for i in ids] == ["committed", "committed"]
    assert results["c_nope"]["code"] == "not_found" and results["c_nope"]["memory_id"] is None
    code, doc = run("queue", "approve", "--json", stdin="")  # none given: a usage error
    assert code == 2 and doc["error"]["code"] == "usage"
    code, doc = run("queue", "approve", ids[0], "-", "--json", stdin="")
    assert code == 2


def test_imported_memories_share_a_time_and_still_page_in_the_stores_order(home, tmp_path):
    path = jsonl(
        tmp_path,
        *(
            {"statement": f"service s{i} listens on port {9000 + i}", "kind": "fact"}
            for i in range(7)
        ),
    )
    assert run("memories", "import", path, "--global", "--json")[0] == 0
    _, whole = run("memories", "list", "--global", "--all", "--json")
    assert len({m["recorded_at"] for m in whole["memories"]}) == 1  # one transaction, one time
    seen, after = [], []
    while True:
        _, page = run("memories", "list", "--global", "--limit", "3", *after, "--json")
        seen += [m["id"] for m in page["memories"]]
        if not page["next_after"]:
            break
        after = ["--after", page["next_after"]]
    assert seen == [m["id"] for m in whole["memories"]] and len(seen) == 7
    with pytest.MonkeyPatch.context() as patch:  # the Store's path lists them in that order
        patch.setattr("memvet.store.read_layer.open_reader", lambda: None)
        assert run("memories", "list", "--global", "--all", "--json")[1] == whole


def test_an_import_in_slices_is_still_one_transaction(home, tmp_path, monkeypatch):
    from memvet.store import bulk

    monkeypatch.setattr(bulk, "CHUNK", 2)
    real, calls = bulk.BulkImport._import_chunk, []

    def failing_third(self, conn, drafts, actor, now):  # noqa: ANN001
        calls.append(len(drafts))
        if len(calls) == 3:
            raise RuntimeError("disk full")
        return real(self, conn, drafts, actor, now)

    before = counts(home)
    path = jsonl(
        tmp_path,
        *({"statement": f"queue q{i} is served by worker w{i}", "kind": "fact"} for i in range(5)),
    )
    monkeypatch.setattr(bulk.BulkImport, "_import_chunk", failing_third)
    with pytest.raises(RuntimeError):
        run("memories", "import", path, "--global")
    assert calls == [2, 2, 1] and counts(home) == before  # two slices written, then rolled back
    monkeypatch.setattr(bulk.BulkImport, "_import_chunk", real)
    code, doc = run("memories", "import", path, "--global", "--json")
    assert code == 0 and doc["imported"] == 5


def test_a_sliced_import_indexes_every_slice_and_gives_the_page_cache_back(store, monkeypatch):
    from memvet.store import bulk

    from .conftest import draft

    def cache_size() -> int:
        with store.ctx.read() as conn:
            return conn.exec_driver_sql("PRAGMA cache_size").scalar_one()

    before = cache_size()
    monkeypatch.setattr(bulk, "CHUNK", 2)
    ids = store.import_memories(
        [draft(f"service s{i} logs to journald unit u{i}") for i in range(5)], actor="op"
    )
    with store.ctx.read() as conn:
        indexed = {
            r[0] for r in conn.exec_driver_sql("SELECT DISTINCT memory_id FROM term_postings")
        }
        stale = conn.exec_driver_sql("SELECT count(*) FROM term_stale").scalar_one()
    assert len(ids) == 5 and indexed == set(ids) and stale == 0
    assert cache_size() == before != -bulk.IMPORT_CACHE_KIB
    with pytest.raises(bulk.BadDrafts):  # refused before the transaction: nothing changes
        store.import_memories([draft("\x00")], actor="op")
    monkeypatch.setattr(bulk.BulkImport, "_import_chunk", lambda *a: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        store.import_memories([draft("a rule that fails mid-import")], actor="op")
    assert cache_size() == before
