"""Subjects, slots and conflicts decided at approval (issue 13): what each memory is about, when
two memories of one slot are rivals, and what supersede / keep both / dispute / no choice do."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import pytest
import sqlalchemy as sa
from memvet.store import ConflictError, Edits, Evidence, UsageError
from memvet.store.claims import claim_of, rivalry
from memvet.store.core import MEM
from memvet.store.recall import recall
from memvet.store.slots import derive_subject, normalise_subject
from store_internals import cipher_of, engine_of

from .conftest import draft

APP = "/home/dana/src/app"


def said(
    store,
    clock,
    statement: str,
    *,
    kind: str = "fact",
    polarity: str = "assert",
    hint: str | None = None,
    workspace: str | None = APP,
) -> str:
    """A candidate whose evidence says the user typed it now (clock time)."""
    d = draft(statement, kind=kind, polarity=polarity, hint=hint, workspace=workspace)
    d = replace(d, evidence=replace(d.evidence, timestamp=clock.now))
    return store.admit(d).candidate_id


def approve(store, cid: str, **edits):
    return store.approve(cid, actor="dana", edits=Edits(**edits))


# --- subjects and rivals ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "statement, kind, subject",
    [
        (
            "The staging postgres listens on port 5433, not the default 5432",
            "fact",
            "staging postgres port",
        ),
        ("The staging postgres listens on port 5432", "fact", "staging postgres port"),
        ("This repo uses poetry", "fact", "package manager"),
        ("We moved from poetry to uv last week, use `uv sync` now", "decision", "package manager"),
        ("Deploys go through Heroku", "fact", "deploys"),
        ("Format Python with ruff format.", "preference", "python formatter"),  # role per language
        ("Never push straight to main on this repo", "constraint", "push"),
    ],
)
def test_a_subject_is_derived_from_the_statement_and_kind(statement, kind, subject):
    assert derive_subject(statement, kind) == subject


def _clash(
    a: str,
    b: str,
    kind_a: str = "fact",
    kind_b: str = "fact",
    pol_a: str = "assert",
    pol_b: str = "assert",
) -> str | None:
    subject = derive_subject(a, kind_a)
    assert normalise_subject(subject) == normalise_subject(derive_subject(b, kind_b))
    return rivalry(claim_of(a, pol_a, subject), claim_of(b, pol_b, subject), kind_a, kind_b)


def test_a_negated_value_is_a_rival_not_support():
    assert (
        _clash(
            "The staging postgres listens on port 5433, not the default 5432",
            "The staging postgres listens on port 5432",
        )
        == "negation"
    )
    assert (
        _clash(
            "We use Docker for local development", "This project does not use Docker", pol_b="deny"
        )
        == "negation"
    )
    assert (
        _clash("Packages are managed with uv", "Packages are managed with poetry")
        == "different_value"
    )
    assert (
        _clash("The staging database is Postgres 15", "The staging database is Postgres 16")
        == "different_value"
    )


def test_agreeing_or_limiting_memories_of_one_slot_are_not_rivals():
    assert (
        _clash(
            "This repo uses poetry",
            "Run `poetry install` after pulling (not pip)",
            kind_b="procedure",
        )
        is None
    )
    assert (
        _clash("Indent with tabs", "Never use tabs in YAML files", "preference", "constraint")
        is None
    )  # a narrower rule is a boundary
    assert _clash("We use pnpm in this repo", "Don't run npm install", kind_b="constraint") is None
    assert (
        _clash(
            "The staging postgres listens on port 5433",
            "The staging postgres listens on port 5433 (docker compose)",
        )
        is None
    )


def test_a_rule_that_denies_exactly_what_another_memory_asserts_is_a_rival():
    # A constraint is a boundary of a fact or a procedure unless it denies the very thing the
    # other asserts, with no qualifier of its own ("in YAML files" would make it a boundary).
    assert (
        _clash(
            "Commit the lockfile with every dependency change",
            "Don't commit the lockfile",
            "procedure",
            "constraint",
        )
        == "negation"
    )
    assert (
        _clash(
            "Integration tests run against a real Postgres database",
            "Integration tests never use a real Postgres database",
            kind_b="constraint",
        )
        == "negation"
    )
    assert _clash("Use tabs", "Never use tabs in YAML files", "decision", "constraint") is None


def test_word_values_are_compared_only_under_one_relation():
    # "hosted on X" against "hosted on Y" is a rival; "kept for 30 days" against "shipped to S3"
    # says two things about backups.
    assert (
        _clash("The docs are hosted on GitHub Pages", "The docs are hosted on Netlify")
        == "different_value"
    )
    assert _clash("Backups are kept for 30 days", "Backups are shipped to S3") is None
    # Logs: how long they are kept is a slot of its own ("log retention"), apart from where
    # they go, however either is phrased.
    kept, shipped = (
        derive_subject(s, "fact") for s in ("Logs are kept for 30 days", "Logs are shipped to Loki")
    )
    assert kept == "log retention" and kept != shipped
    assert _clash("Keep 7 days of logs", "Logs are retained for 30 days") == "different_value"
    assert _clash("Logs go to Datadog", "We ship our logs to Loki") == "different_value"
    assert _clash("The app is deployed to fly.io", "The app is deployed to render") is not None


def test_a_statement_that_is_all_subject_is_asserted_or_denied_whole():
    assert (
        _clash(
            "Run migrations before deploying",
            "Don't run migrations before deploying",
            "procedure",
            "constraint",
        )
        == "negation"
    )
    assert _clash("Run migrations before deploying", "Run migrations before deploying") is None


def test_the_purpose_a_tool_is_used_for_is_the_slot():
    assert derive_subject("We use Sentry for errors", "decision") == "errors"
    assert _clash("We use Sentry for errors", "We use Datadog for errors") == "different_value"
    # Someone else's tool is not the speaker's choice: the leading noun phrase stays the subject.
    assert derive_subject("The frontend uses Foo for state", "fact") == "frontend"


# --- storage ---------------------------------------------------------------------------------------
def test_the_subject_is_stored_encrypted_with_a_blind_index_and_editable(store, clock):
    cid = said(store, clock, "The staging postgres listens on port 5433")
    assert store.get_candidate(cid).subject == "staging postgres port"
    memory = approve(store, cid, subject="Staging  DB port")
    assert memory.subject == "Staging DB port"
    with engine_of(store).connect() as conn:
        row = conn.execute(sa.select(MEM).where(MEM.c.id == memory.id)).one()
    assert b"Staging" not in row.subject_ct and row.subject_bidx
    assert row.subject_bidx == store.rows.slot_index(
        normalise_subject("staging db port"), APP, "dana"
    )
    with engine_of(store).connect() as conn:
        assert [m.id for m in store.slots.members(conn, "staging db ports", APP)] == [memory.id]


# --- decisions at approval -------------------------------------------------------------------------
def test_a_conflicting_approval_that_asks_is_refused_naming_the_memories(store, clock):
    old = approve(
        store, said(store, clock, "The staging postgres listens on port 5433, not the default 5432")
    )
    cid = said(store, clock, "The staging postgres listens on port 5432")
    with pytest.raises(ConflictError) as err:
        approve(store, cid, conflict="ask")
    assert err.value.exit_code == 1 and old.id in err.value.message
    assert [m["id"] for m in err.value.details["memories"]] == [old.id]
    cand = store.get_candidate(cid)
    assert cand.status == "pending" and cand.last_error is None  # refused before reserving
    assert [m.id for m in store.candidate_detail(cid).conflicts] == [old.id]


def test_a_correction_supersedes_every_memory_that_asserts_what_it_replaces(store, clock):
    uses = approve(store, said(store, clock, "This repo uses poetry"))
    run = approve(
        store, said(store, clock, "Run `poetry install` after pulling (not pip)", kind="procedure")
    )
    other = approve(store, said(store, clock, "Deploys go through Heroku"))
    clock.advance(days=3)
    told = clock.now
    cid = said(
        store,
        clock,
        "We moved from poetry to uv last week, use `uv sync` now",
        kind="decision",
        hint="poetry",
    )
    detail = store.candidate_detail(cid)
    assert detail.correction and set(detail.preselect) == {uses.id, run.id}
    with pytest.raises(ConflictError):
        approve(store, cid, conflict="ask")  # the link alone would leave `poetry install`
    clock.advance(days=2)
    new = approve(store, cid, conflict="supersede")
    assert new.valid_from == told
    for old in (uses, run):
        gone = store.get_memory(old.id)
        assert gone.status == "superseded" and gone.superseded_by_id == new.id
        assert gone.valid_to == told  # closed when the user said it, not at approval
    assert store.get_memory(other.id).status == "active"
    out = recall(store, "how do I install dependencies?", workspace=APP)
    served = {m.id for m in out.memories}
    assert new.id in served and not served & {uses.id, run.id}
    before = recall(store, "which package manager?", workspace=APP, as_of=told - timedelta(hours=1))
    assert before.state == "VERIFIED_HISTORICAL" and uses.id in {m.id for m in before.memories}


def test_supersede_refuses_a_memory_outside_the_slot(store, clock):
    approve(store, said(store, clock, "Packages are managed with uv"))
    unrelated = approve(store, said(store, clock, "Deploys go through Heroku"))
    cid = said(store, clock, "Packages are managed with poetry")
    with pytest.raises(UsageError, match="not in this candidate's slot"):
        approve(store, cid, conflict="supersede", supersede_ids=(unrelated.id,))
    assert store.get_memory(unrelated.id).status == "active"
    assert store.get_candidate(cid).status == "pending"


def test_keep_both_marks_compatible_and_recall_serves_both(store, clock):
    uv = approve(store, said(store, clock, "Deploys go through Heroku"))
    cid = said(store, clock, "Deploys go through the release pipeline")
    pipeline = approve(store, cid, conflict="keep_both")
    assert store.get_memory(uv.id).compatible_key == pipeline.compatible_key is not None
    out = recall(store, "how do deploys go?", workspace=APP)
    assert out.state == "VERIFIED" and out.contradictions == ()


def test_keep_both_cannot_make_a_denial_compatible(store, clock):
    old = approve(
        store, said(store, clock, "The staging postgres listens on port 5433, not the default 5432")
    )
    cid = said(store, clock, "The staging postgres listens on port 5432")
    with pytest.raises(ConflictError, match="cannot both be true"):
        approve(store, cid, conflict="keep_both")
    assert store.get_memory(old.id).compatible_key is None
    assert store.get_candidate(cid).status == "pending"


def test_dispute_takes_both_out_of_recall(store, clock):
    a = approve(
        store, said(store, clock, "The staging postgres listens on port 5433, not the default 5432")
    )
    b = approve(
        store, said(store, clock, "The staging postgres listens on port 5432"), conflict="dispute"
    )
    assert {store.get_memory(a.id).status, store.get_memory(b.id).status} == {"disputed"}
    out = recall(store, "what port does staging postgres listen on?", workspace=APP)
    assert (out.state, out.reason_code) == ("UNKNOWN", "unresolved_conflict")
    assert out.memories == ()


def test_no_choice_leaves_both_unsettled_and_recall_refuses_to_pick(store, clock):
    a = approve(
        store, said(store, clock, "The staging postgres listens on port 5433, not the default 5432")
    )
    b = approve(store, said(store, clock, "The staging postgres listens on port 5432"))
    assert {store.get_memory(a.id).conflict_state, b.conflict_state} == {"unsettled"}
    out = recall(store, "what port does staging postgres listen on?", workspace=APP)
    assert (out.state, out.reason_code) == ("UNKNOWN", "unresolved_conflict")
    assert {a.id, b.id} <= {c.id for c in out.contradictions}
    assert out.missing_conditions[1].startswith("decide which is current")
    store.forget(b.id, actor="dana")
    assert store.get_memory(a.id).conflict_state == "none"  # its rival left: settled
    assert (
        recall(store, "what port does staging postgres listen on?", workspace=APP).state
        == "VERIFIED"
    )


# --- valid time ------------------------------------------------------------------------------------
def test_valid_from_is_when_the_user_said_it_and_record_time_the_approval(store, clock):
    said_at = clock.now
    cid = store.admit(
        replace(
            draft("We use uv"),
            evidence=Evidence(
                path="/x.jsonl", line=1, message_id="m", timestamp=said_at, excerpt="We use uv"
            ),
        )
    ).candidate_id
    clock.advance(days=9)
    memory = approve(store, cid)
    assert memory.valid_from == said_at and memory.recorded_at == clock.now
    reader = store.reader_for(APP)
    assert [m.id for m in store.list_memories(reader, as_of=said_at + timedelta(days=1))] == [
        memory.id
    ]
    assert store.list_memories(reader, recorded_as_of=said_at + timedelta(days=1)) == []


def test_memories_list_and_recall_as_of_follow_one_rule_for_a_forget(store, clock):
    memory = approve(store, said(store, clock, "We use uv for packaging"))
    then = clock.advance(hours=1)
    clock.advance(hours=1)
    store.forget(memory.id, actor="dana")
    reader = store.reader_for(APP)
    assert store.list_memories(reader, as_of=then) == []
    assert recall(store, "which package manager", workspace=APP, as_of=then).state == "UNKNOWN"


def test_recorded_as_of_answers_history_never_current(store, clock):
    old = approve(store, said(store, clock, "Packages are managed with poetry"))
    recorded = clock.advance(hours=1)
    clock.advance(hours=1)
    cid = said(store, clock, "We switched from poetry to uv for packages", kind="fact")
    approve(store, cid, conflict="supersede")
    out = recall(store, "what are packages managed with?", workspace=APP, recorded_as_of=recorded)
    assert out.state == "VERIFIED_HISTORICAL" and [m.id for m in out.memories] == [old.id]
    now = recall(store, "what are packages managed with?", workspace=APP)
    assert old.id not in {m.id for m in now.memories}


# --- the context pack ------------------------------------------------------------------------------
def _pack(store, event: str = "session-start", prompt: str | None = None) -> str:
    import json
    import sqlite3

    from memvet.store import context_pack as cp
    from memvet.store import fast_read as fr
    from memvet.store import hook_reply as reply

    conn = sqlite3.connect(str(store.path))
    try:
        source = fr.DirectSource(conn, cipher_of(store), "dana", APP)
        payload = {"session_id": None, **({"prompt": prompt} if prompt else {})}
        out = reply.respond(source, event, payload, str(store.home), cp.stamp(store.now()))
    finally:
        conn.close()
    return json.loads(out)["hookSpecificOutput"]["additionalContext"] if out else ""


@pytest.mark.parametrize("decision", [None, "dispute"])
def test_the_pack_never_hands_both_sides_and_names_the_slot(store, clock, decision):
    a = approve(
        store, said(store, clock, "The staging postgres listens on port 5433, not the default 5432")
    )
    approve(
        store, said(store, clock, "The staging postgres listens on port 5432"), conflict=decision
    )
    keep = approve(store, said(store, clock, "Deploys go through Heroku"))
    for text in (_pack(store), _pack(store, "user-prompt-submit", "staging postgres port?")):
        assert "5432" not in text and "5433" not in text
        slot = [line for line in text.splitlines() if "ask the user which is current" in line]
        assert len(slot) == 1 and slot[0].endswith(store.get_memory(a.id).subject)
    assert "Heroku" in _pack(store) and keep.id


def test_an_unsettled_mark_contests_a_line_only_beside_a_rival_of_its_slot(store, clock):
    # A correction approved without a choice may mark a memory of another subject too ("moved
    # off yarn" against "run the tests with yarn"): alone in its slot, it is one answer, as in
    # recall, which compares only memories of one subject.
    tests = approve(
        store, said(store, clock, "Run the tests serially with `yarn test`", kind="procedure")
    )
    pm = approve(store, said(store, clock, "app uses pnpm (moved off yarn); run `pnpm install`"))
    assert store.get_memory(tests.id).subject != store.get_memory(pm.id).subject
    with engine_of(store).begin() as conn:
        conn.execute(
            sa.update(MEM).where(MEM.c.id.in_([tests.id, pm.id])).values(conflict_state="unsettled")
        )
    text = _pack(store)
    assert "yarn test" in text and "pnpm install" in text
    assert "ask the user which is current" not in text


def test_the_pack_drops_superseded_lines(store, clock):
    approve(store, said(store, clock, "This repo uses poetry"))
    approve(
        store, said(store, clock, "Run `poetry install` after pulling (not pip)", kind="procedure")
    )
    clock.advance(days=1)
    approve(
        store,
        said(store, clock, "We moved from poetry to uv, use `uv sync` now", kind="decision"),
        conflict="supersede",
    )
    text = _pack(store)
    assert "uv sync" in text and "This repo uses poetry" not in text
    assert "poetry install" not in text


def test_a_disputed_slot_lists_both_as_contradictions(store, clock):
    a = approve(
        store, said(store, clock, "The staging postgres listens on port 5433, not the default 5432")
    )
    b = approve(
        store, said(store, clock, "The staging postgres listens on port 5432"), conflict="dispute"
    )
    out = recall(store, "what port does staging postgres listen on?", workspace=APP)
    assert {c.id for c in out.contradictions} == {a.id, b.id}
    assert any(m.startswith("decide which is current") for m in out.missing_conditions)
