"""Issue 9: migration m004_norm2_keys re-derives the content keys of an existing store with the
norm2 canonicalisation and gives its tombstones their statement key and scope, so that what was
rejected before the upgrade is blocked in every form afterwards. The old store is written the
way the version before looked (raw rows, keys that norm2 does not produce)."""

from __future__ import annotations

import getpass
import hashlib
from datetime import UTC, datetime

import sqlalchemy as sa
from memvet.store import CandidateDraft, QueueFilter, Scope, open_store
from memvet.store.engine import create_store_engine, write_transaction
from memvet.store.keyring_setup import load_cipher
from memvet.store.migrations import MIGRATIONS
from memvet.store.paths import memvet_home
from memvet.store.schema import migrate

BEFORE = [m.__name__ for m in MIGRATIONS].index("m004_norm2_keys")
NOW = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def old_key(text: str) -> str:
    return hashlib.sha256(("norm1:" + text).encode()).hexdigest()  # not what norm2 derives


def old_candidate(
    conn,
    cipher,
    cid: str,
    statement: str,
    status: str,
    workspace: str | None,  # noqa: ANN001
    user: str,
) -> str:
    key = old_key(statement)
    conn.execute(
        sa.text(
            "INSERT INTO candidates (id, status, kind, source_type, host, user_bidx, workspace_bidx, "
            "content_key, polarity, confidence, importance, evidence_count, created_at, updated_at, "
            "statement_ct, user_ct, workspace_ct) VALUES (:id, :status, 'decision', 'operator', "
            "'memvet', :ub, :wb, :key, 'assert', 1.0, 1, 1, :now, :now, :st, :uc, :wc)"
        ),
        dict(
            id=cid,
            status=status,
            ub=cipher.blind_index("user", user),
            wb=cipher.blind_index("workspace", workspace),
            key=key,
            now=NOW,
            st=cipher.encrypt("candidates", "statement", cid, statement),
            uc=cipher.encrypt("candidates", "user", cid, user),
            wc=cipher.encrypt("candidates", "workspace", cid, workspace),
        ),
    )
    if status == "rejected":
        conn.execute(
            sa.text(
                "INSERT INTO tombstones (content_key, reason, source_id, created_at, seen_again, "
                "preview_ct) VALUES (:key, 'rejected', :id, :now, 2, :pv)"
            ),
            dict(
                key=key, id=cid, now=NOW, pv=cipher.encrypt("tombstones", "preview", key, statement)
            ),
        )
    return key


def test_an_upgraded_store_blocks_what_it_rejected_before_in_every_form(tmp_path):
    ws = str(tmp_path / "w")
    (tmp_path / "w" / ".git").mkdir(parents=True)
    home = memvet_home()
    home.mkdir(parents=True, exist_ok=True)
    engine = create_store_engine(home / "memvet.db")
    migrate(engine, target=BEFORE)
    cipher, _ = load_cipher(engine, home, NOW)
    user = getpass.getuser()  # the user the store is opened as
    with write_transaction(engine) as conn:
        old_candidate(conn, cipher, "c_1", "We deploy on Fridays", "rejected", ws, user)
        old_candidate(conn, cipher, "c_2", "We deploy on Fridays。", "rejected", ws, user)
        old_candidate(conn, cipher, "c_3", "Run the tests with pytest", "pending", ws, user)
    engine.dispose()

    store = open_store(schema="upgrade")
    try:
        [tomb] = store.list_tombstones()
        assert tomb.seen_again == 4 and tomb.preview == "We deploy on Fridays"  # merged into one
        for statement, workspace, kind in (
            ("We deplоy on Fridays", None, "fact"),
            ("“We deploy on Fridays.”", ws, "constraint"),
        ):
            result = store.admit(
                CandidateDraft(
                    statement=statement,
                    kind=kind,
                    source_type="operator",
                    scope=Scope(user=user, workspace=workspace),
                )
            )
            assert result.outcome == "tombstoned", statement
        again = store.admit(
            CandidateDraft(
                statement="Run the tests with pytest.",
                kind="decision",
                source_type="operator",
                scope=Scope(user=user, workspace=ws),
            )
        )
        assert (again.outcome, again.candidate_id) == ("merged", "c_3")  # its key is norm2's now
        reader = store.reader_for(None, all_scopes=True)
        pending = store.list_candidates(reader, QueueFilter(statuses=("pending",)))
        assert [c.id for c in pending] == ["c_3"] and store.unreadable()["count"] == 0
        assert store.verify_audit().ok
    finally:
        store.close()
