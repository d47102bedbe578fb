"""Who sees a record, and whether a memory is in force: each rule written once, here, as data,
and rendered three ways: raw SQL for the hook's sqlite3 path (fast_read.py), SQLAlchemy for the
Store, and Python for records assembled outside SQL. tests/store/test_scope_rule.py checks on
random rows that the three renderings agree.

A rule is clauses joined by AND, each clause alternatives joined by OR, each alternative
(field, operator, parameter): SQL semantics, so a comparison with NULL is false. Standard
library only (the hook imports it); SQLAlchemy is imported only by `clause`.
"""

from __future__ import annotations

Atom = tuple  # (field, operator, parameter): operator "=", "<=", ">" or "is null" (no parameter)
Rule = tuple  # of clauses; a clause is a tuple of Atoms

# A reader sees the user's global records and those of its own workspace, never another
# workspace's (the operator's all-scopes view drops the workspace clause). SQL compares blind
# indexes (`<field>_bidx`), Python the decrypted values.
SCOPE: Rule = (
    (("user", "=", "user"),),
    (("workspace", "is null", None), ("workspace", "=", "workspace")),
)
SCOPE_ALL: Rule = SCOPE[:1]
# In force at `now`: started, not ended, not past its TTL (the sweep may not have retired it yet).
IN_FORCE: Rule = (
    (("valid_from", "<=", "now"),),
    (("valid_to", "is null", None), ("valid_to", ">", "now")),
    (("expires_at", "is null", None), ("expires_at", ">", "now")),
)


def sql(rule: Rule, column: str = "{}") -> tuple[str, tuple[str, ...]]:
    """`rule` as an SQL condition with `?` placeholders, and the parameter each one takes.
    `column` formats a field into its column name ("{}_bidx": the blind index)."""
    params: list[str] = []

    def atom(field: str, op: str, param: str | None) -> str:
        name = column.format(field)
        if op == "is null":
            return f"{name} IS NULL"
        params.append(param or "")
        return f"{name} {op} ?"

    clauses = []
    for alternatives in rule:
        parts = [atom(*alternative) for alternative in alternatives]
        clauses.append(parts[0] if len(parts) == 1 else "(" + " OR ".join(parts) + ")")
    return " AND ".join(clauses), tuple(params)


def clause(rule: Rule, table, values: dict, column: str = "{}"):
    """`rule` as a SQLAlchemy condition over `table`'s columns, with `values` for its parameters."""
    import sqlalchemy as sa

    def atom(field: str, op: str, param: str | None):
        col = table.c[column.format(field)]
        if op == "is null":
            return col.is_(None)
        value = values[param]
        if value is None:  # SQL's `= NULL`: never true (SQLAlchemy would write IS NULL)
            return sa.false()
        return {"=": col.__eq__, "<=": col.__le__, ">": col.__gt__}[op](value)

    return sa.and_(*(sa.or_(*(atom(*a) for a in alternatives)) for alternatives in rule))


def predicate(rule: Rule, params: tuple[str, ...]):
    """`rule` as a Python function of (a record, then `params` in order), reading the fields
    as attributes; compiled once, so it costs what a hand-written test would."""

    def atom(field: str, op: str, param: str | None) -> str:
        if op == "is null":
            return f"r.{field} is None"
        return f"(r.{field} is not None and {param} is not None and r.{field} {'==' if op == '=' else op} {param})"

    body = " and ".join(
        "(" + " or ".join(atom(*a) for a in alternatives) + ")" for alternatives in rule
    )
    return eval(f"lambda r, {', '.join(params)}: {body}")  # our own constant rules, never input


def split(rule: Rule, at: int) -> list[Rule]:
    """`rule` as one rule per alternative of its clause `at`: together they select what `rule`
    does. SQLite seeks an index range for each instead of testing the OR on every row; and when
    those alternatives exclude each other (SCOPE's `IS NULL` / `= ?`), counts may be summed."""
    return [(*rule[:at], (alternative,), *rule[at + 1 :]) for alternative in rule[at]]


SCOPE_SQL, SCOPE_PARAMS = sql(SCOPE, "{}_bidx")
# SCOPE per workspace alternative (the user's global records, then the workspace's): disjoint.
SCOPE_PARTS_SQL = [sql(part, "{}_bidx") for part in split(SCOPE, 1)]
IN_FORCE_SQL, IN_FORCE_PARAMS = sql(IN_FORCE)
_in_force = predicate(IN_FORCE, ("now",))
_in_scope = predicate(SCOPE, ("user", "workspace"))
_in_user = predicate(SCOPE_ALL, ("user",))


def in_force(record, now) -> bool:
    """`record` (valid_from, valid_to, expires_at: all ISO strings or all datetimes) is in force at `now`."""
    return _in_force(record, now)


def visible(user: str, workspace: str | None, all_scopes: bool, scope) -> bool:
    """A reader (user, workspace, all_scopes) sees a record of `scope` (user, workspace)."""
    return _in_user(scope, user) if all_scopes else _in_scope(scope, user, workspace)
