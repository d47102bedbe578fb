"""store/scope.py writes the scope rule and `in_force` once and renders each as raw SQL (the hook's
sqlite3 path), SQLAlchemy (the Store) and Python (records outside SQL). On random rows in a real
SQLite file the three renderings select the same rows."""

from __future__ import annotations

import sqlite3
from types import SimpleNamespace

import hypothesis.strategies as st
import pytest
import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from memvet.store import fast_read, scope

USERS = ["u1", "u2"]
WORKSPACES = [None, "w1", "w2"]
TIMES = [
    None,
    "2026-01-01T00:00:00Z",
    "2026-01-01T00:00:01Z",
    "2026-06-01T12:00:00Z",
    "2027-01-01T00:00:00Z",
]
COLUMNS = ("user_bidx", "workspace_bidx", "valid_from", "valid_to", "expires_at")

rows_strategy = st.lists(
    st.tuples(
        st.sampled_from(USERS),
        st.sampled_from(WORKSPACES),
        *(st.sampled_from(TIMES) for _ in range(3)),
    ),
    max_size=25,
)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("scope") / "rows.db"
    engine = sa.create_engine(f"sqlite:///{path}")
    table = sa.Table(
        "rows",
        sa.MetaData(),
        sa.Column("id", sa.Integer, primary_key=True),
        *(sa.Column(name, sa.Text) for name in COLUMNS),
    )
    table.metadata.create_all(engine)
    raw = sqlite3.connect(path)
    yield SimpleNamespace(engine=engine, table=table, raw=raw)
    raw.close()
    engine.dispose()


def _load(db, rows) -> list[SimpleNamespace]:
    db.raw.execute("DELETE FROM rows")
    db.raw.executemany(
        f"INSERT INTO rows (id, {', '.join(COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?)",
        [(i, *row) for i, row in enumerate(rows)],
    )
    db.raw.commit()
    return [
        SimpleNamespace(id=i, **dict(zip(COLUMNS, row, strict=True))) for i, row in enumerate(rows)
    ]


def _by_sql(db, rule, column, values) -> tuple[set, set]:
    """The rows the raw SQL rendering selects, and those the SQLAlchemy one does."""
    text, params = scope.sql(rule, column)
    by_sql = {
        r[0]
        for r in db.raw.execute(f"SELECT id FROM rows WHERE {text}", [values[p] for p in params])
    }
    with db.engine.connect() as conn:
        by_sqlalchemy = {
            r[0]
            for r in conn.execute(
                sa.select(db.table.c.id).where(scope.clause(rule, db.table, values, column))
            )
        }
    return by_sql, by_sqlalchemy


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    rows=rows_strategy,
    user=st.sampled_from(USERS),
    workspace=st.sampled_from(WORKSPACES),
    all_scopes=st.booleans(),
)
def test_the_scope_rule_renders_the_same_three_ways(db, rows, user, workspace, all_scopes):
    records = _load(db, rows)
    rule = scope.SCOPE_ALL if all_scopes else scope.SCOPE
    in_python = {
        r.id
        for r in records
        if scope.visible(
            user,
            workspace,
            all_scopes,
            SimpleNamespace(user=r.user_bidx, workspace=r.workspace_bidx),
        )
    }
    by_sql, by_sqlalchemy = _by_sql(db, rule, "{}_bidx", {"user": user, "workspace": workspace})
    assert by_sql == by_sqlalchemy == in_python
    # the rule itself: own user only; global, or this workspace, unless all scopes
    assert in_python == {
        r.id
        for r in records
        if r.user_bidx == user
        and (all_scopes or r.workspace_bidx is None or r.workspace_bidx == workspace)
    }


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=rows_strategy, now=st.sampled_from(TIMES[1:]))
def test_in_force_renders_the_same_three_ways(db, rows, now):
    records = _load(db, [row for row in rows if row[2] is not None])  # valid_from is never NULL
    in_python = {r.id for r in records if scope.in_force(r, now)}
    by_sql, by_sqlalchemy = _by_sql(db, scope.IN_FORCE, "{}", {"now": now})
    assert by_sql == by_sqlalchemy == in_python
    assert in_python == {
        r.id
        for r in records
        if r.valid_from <= now
        and (r.valid_to is None or r.valid_to > now)
        and (r.expires_at is None or r.expires_at > now)
    }


def test_the_hook_path_uses_the_one_rendering():
    assert (
        fast_read.SCOPE_SQL
        == scope.SCOPE_SQL
        == "user_bidx = ? AND (workspace_bidx IS NULL OR workspace_bidx = ?)"
    )
    assert fast_read.IN_FORCE_SQL == scope.IN_FORCE_SQL


def test_a_null_parameter_matches_nothing_in_every_rendering(db):
    """SQL's `= NULL` is never true; SQLAlchemy alone would write IS NULL: the rendering keeps SQL's meaning."""
    _load(db, [("u1", None, TIMES[1], None, None)])
    rule = ((("workspace", "=", "workspace"),),)
    by_sql, by_sqlalchemy = _by_sql(db, rule, "{}_bidx", {"workspace": None})
    assert by_sql == by_sqlalchemy == set()
    assert not scope.predicate(rule, ("workspace",))(SimpleNamespace(workspace=None), None)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=rows_strategy, user=st.sampled_from(USERS), workspace=st.sampled_from(WORKSPACES))
def test_the_scopes_parts_select_its_rows_each_once(db, rows, user, workspace):
    """fast_read counts per part and sums (issue 15): the parts must cover the scope exactly
    and never overlap, or the hook's footer would count a memory twice."""
    _load(db, rows)
    values = {"user": user, "workspace": workspace}
    whole, _ = _by_sql(db, scope.SCOPE, "{}_bidx", values)
    parts = [_by_sql(db, part, "{}_bidx", values)[0] for part in scope.split(scope.SCOPE, 1)]
    assert len(parts) == 2 and set().union(*parts) == whole
    assert sum(len(p) for p in parts) == len(whole)
    assert [text for text, _ in scope.SCOPE_PARTS_SQL] == [
        "user_bidx = ? AND workspace_bidx IS NULL",
        "user_bidx = ? AND workspace_bidx = ?",
    ]
