"""The hook's read side without SQLAlchemy (fast_read.py) against the store's own reads, and the
context pack's budget and relevance rules."""

from __future__ import annotations

import os
import sqlite3

import pytest
from memvet.store import CandidateDraft, Edits, Scope
from memvet.store import context_pack as cp
from memvet.store import fast_keys as fk
from memvet.store import fast_read as fr
from memvet.store import hook_reply as reply
from memvet.store import prompt_match as pm
from memvet.store import text_terms as tt
from memvet.store.crypto import FieldCipher, new_key
from memvet.store.migrations import SCHEMA_VERSION
from store_internals import cipher_of

A, B = "/home/dana/src/a", "/home/dana/src/b"


def test_the_sql_was_written_for_this_schema():
    assert fk.SCHEMA_VERSION == SCHEMA_VERSION  # a migration must re-check fast_read's SQL


def test_fast_cipher_derives_and_decrypts_like_the_store():  # more in test_codec.py
    dek = new_key()
    full, fast = FieldCipher(dek, "abcd1234"), fk.FastCipher(dek)
    for value in ("dana", "/home/dana/src/app", "é ✓", None):
        assert fast.blind_index("workspace", value) == full.blind_index("workspace", value)
    blob = full.encrypt("memories", "statement", "m_1", "Use uv ✓")
    assert fast.decrypt("memories", "statement", "m_1", blob) == "Use uv ✓"
    with pytest.raises(fk.FastReadError):
        fast.decrypt("memories", "statement", "m_2", blob)  # moved to another row


@pytest.fixture
def mixed(store):
    """Memories of two users, two workspaces and global, in every status."""
    made = {}
    for user in ("dana", "eve"):
        for ws in (A, B, None):
            for n, status in enumerate(("active", "disputed", "retired", "superseded")):
                draft = CandidateDraft(
                    statement=f"{user} {ws} fact {n}",
                    kind="fact",
                    source_type=("operator", "explicit_user", "model_inference")[n % 3],
                    scope=Scope(user=user, workspace=ws),
                    importance=n % 2,
                )
                m = store.approve(
                    store.admit(draft).candidate_id,
                    actor="t",
                    edits=Edits(usage_boundary="only here" if n == 0 else None),
                )
                if status == "disputed":
                    store.dispute(m.id, actor="t")
                elif status != "active":
                    store.retire(m.id, actor="t")
                made[m.id] = status
    return made


@pytest.mark.parametrize("user,workspace", [("dana", A), ("dana", B), ("dana", None), ("eve", A)])
def test_direct_source_is_the_scope_rule_and_the_rank_order(
    store, mixed, user, workspace, monkeypatch
):
    monkeypatch.setattr(fr, "FIRST_PAGE", 2)  # the second, unlimited page is read too
    conn = sqlite3.connect(str(store.path))
    try:
        source = fr.DirectSource(conn, cipher_of(store), user, workspace)
        got = source.all_items()
        ranked_ids = [item.id for item in source.ranked()]
    finally:
        conn.close()
    reader = store.reader_for(workspace)
    reader = type(reader)(user=user, workspace=workspace)
    expected = cp.ranked(store.list_memories(reader, statuses=("active", "disputed")))
    assert [i.id for i in got] == [m.id for m in expected] == ranked_ids
    for item, memory in zip(got, expected, strict=True):
        assert (item.statement, item.boundary, item.status) == (
            memory.statement,
            memory.usage_boundary,
            memory.status,
        )
        assert item.statement_len == len(memory.statement.encode())
        assert item.boundary_len == len((memory.usage_boundary or "").encode())


def test_the_sql_in_force_count_matches_the_python_one(store, clock):
    from datetime import timedelta

    now = clock.now
    for n, edits in enumerate(
        (
            Edits(),
            Edits(valid_from=now + timedelta(days=1)),
            Edits(valid_to=now - timedelta(seconds=1)),
            Edits(valid_to=now + timedelta(days=1)),
        )
    ):
        draft = CandidateDraft(
            statement=f"fact {n}",
            kind="fact",
            source_type="operator",
            scope=Scope(user="dana", workspace=A),
        )
        store.approve(store.admit(draft).candidate_id, actor="t", edits=edits)
    conn = sqlite3.connect(str(store.path))
    try:
        source = fr.DirectSource(conn, cipher_of(store), "dana", A)
        for at in (now, now + timedelta(days=2), now - timedelta(days=1)):
            stamp = cp.stamp(at)
            assert source.count_active(stamp) == cp.count_active(source.all_items(), stamp)
        assert source.count_active(cp.stamp(now)) == 2
    finally:
        conn.close()


def test_open_direct_uses_the_recorded_provider_and_refuses_other_schemas(store, tmp_path):
    home = str(store.home)
    with pytest.raises(fk.FastReadError) as missing:
        fk.open_direct(str(tmp_path / "nowhere"))
    assert missing.value.code == "no_store"
    conn, _ = fk.open_direct(home)  # keyring-held key (the in-memory keyring)
    conn.close()
    raw = sqlite3.connect(str(store.path))
    raw.execute("UPDATE store_meta SET value = '99' WHERE key = 'schema_version'")
    raw.commit()
    raw.close()
    with pytest.raises(fk.FastReadError) as newer:
        fk.open_direct(home)
    assert newer.value.code == "schema_mismatch"


# --- the pack -----------------------------------------------------------------------------------
def item(i: int, statement: str = "x" * 40, status: str = "active", **kw) -> cp.PackItem:
    it = cp.PackItem(
        f"m{i:03}",
        kw.get("kind", "fact"),
        status,
        "explicit_user",
        1,
        f"2026-01-01 00:00:{i:02}.000000",
        "2026-01-01 00:00:00.000000",
        kw.get("valid_to"),
        None,
        len(statement.encode()),
        0,
    )
    it.statement = statement
    return it


NOW = "2026-06-01 00:00:00.000000"


def test_choose_fills_the_budget_skips_long_lines_and_counts_the_rest():
    items = [item(0), item(1, "y" * 900), item(2), item(3, valid_to="2026-02-01 00:00:00.000000")]
    items += [item(i) for i in range(4, 40)]
    chosen = cp.choose(items, 128, "session-start", NOW)
    left_out = cp.left_out(cp.count_active(items, NOW), chosen)
    assert "m001" not in [c.id for c in chosen] and "m003" not in [c.id for c in chosen]
    text = cp.render("session-start", chosen, left_out)
    assert len(text.encode()) <= 128 * cp.TOKEN_BYTES
    assert left_out == 38 - len(chosen) + 1  # every in-force active one not shown
    assert text.endswith(cp.FOOTER.format(n=left_out))


def test_choose_with_no_room_chooses_nothing_and_reads_nothing():
    rest = iter([item(0)])
    assert cp.choose(rest, 0, "session-start", NOW) == []
    assert next(rest).id == "m000"


def test_disputed_lines_are_named_and_not_counted_as_more():
    items = [item(0, "We deploy on Fridays", "disputed")]
    chosen = cp.choose(items, 512, "session-start", NOW)
    assert cp.left_out(cp.count_active(items, NOW), chosen) == 0
    assert "disputed, not settled" in cp.render("session-start", chosen, 0)


def test_relevance_needs_rare_shared_terms():
    items = [item(i, f"Service {i} runs tests nightly") for i in range(30)]
    items.append(item(99, "This project does not use Docker"))
    index = pm.TermIndex(items)
    got = [i.id for i in pm.relevant(index, "Set up Docker for the tests", set(), NOW)]
    assert got == ["m099"]
    assert list(pm.relevant(index, "Set up Docker", {"m099"}, NOW)) == []


@pytest.mark.parametrize(
    "word,stem",
    [
        ("tests", "test"),
        ("testing", "test"),
        ("policies", "policy"),
        ("status", "status"),
        ("deployed", "deploy"),
    ],
)
def test_stem(word, stem):
    assert tt.stem(word) == stem


def test_hook_budgets_read_config(tmp_path):
    (tmp_path / "config.toml").write_text(
        "[hook]\nsession_start_tokens = 99999\nprompt_tokens = 7\n"
    )
    assert reply.hook_budgets(str(tmp_path)) == {
        "session-start": cp.MAX_TOKENS,
        "user-prompt-submit": 7,
    }
    (tmp_path / "config.toml").write_text("hook = 3")
    assert reply.hook_budgets(str(tmp_path))["session-start"] == cp.SESSION_START_TOKENS


def test_session_memo_is_private_bounded_and_never_a_raw_path(tmp_path):
    odd = reply.session_file(str(tmp_path), "../../etc/passwd")
    assert os.path.dirname(odd) == str(tmp_path / "run" / "hook-sessions")
    path = reply.session_file(str(tmp_path), "0193-abc")
    reply.save_given(path, [f"m{i}" for i in range(reply.MAX_GIVEN + 50)], prune=True)
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert len(reply.load_given(path)) == reply.MAX_GIVEN
    assert reply.session_file(str(tmp_path), None) is None and reply.load_given(None) == set()
