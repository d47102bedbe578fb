"""The admission policy file: defaults, user overrides, validation, and decisions; and the
policy applied by the ingestor (selective auto-commit through the reservation protocol)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from memvet.daemon.admission_policy import default_policy_text, load_policy
from memvet.daemon.settings import ConfigError
from memvet.store import QueueFilter

from .conftest import ClaudeSession, claude_root, make_draft, make_ingestor, say


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "policy.toml"
    path.write_text(text)
    return path


def test_defaults_queue_everything() -> None:
    policy = load_policy(None)
    assert policy.mode == "review"
    assert "mode" in default_policy_text()
    assert policy.decide(make_draft("we use uv", confidence=1.0)) == "queue"
    assert policy.decide(make_draft("x", source="model_inference")) == "queue"


def test_a_user_override_changes_only_its_keys(tmp_path: Path) -> None:
    policy = load_policy(
        write(tmp_path, 'mode = "selective"\n[actions.model_inference]\nadd = "drop"\n')
    )
    assert policy.mode == "selective"
    assert policy.selective_threshold == 0.9  # from the defaults
    assert policy.actions[("model_inference", "add")] == "drop"
    assert policy.actions[("model_inference", "deny")] == "queue"


@pytest.mark.parametrize(
    "text, words",
    [
        ('moed = "review"\n', "unknown key(s) moed"),
        ('mode = "yolo"\n', "mode must be one of"),
        ("selective_threshold = 1.5\n", "between 0 and 1"),
        ('[actions.robot]\nadd = "queue"\n', "unknown source type actions.robot"),
        ('[actions.explicit_user]\ncreate = "queue"\n', "unknown operation"),
        ('[actions.explicit_user]\nadd = "commit"\n', "must be one of queue, auto_commit, drop"),
        ('[actions.model_inference]\nadd = "auto_commit"\n', "only statements the user typed"),
        ("mode = \n", "not valid TOML"),
    ],
)
def test_invalid_policies_are_refused_with_a_clear_error(
    tmp_path: Path, text: str, words: str
) -> None:
    with pytest.raises(ConfigError) as err:
        load_policy(write(tmp_path, text))
    assert words in err.value.message
    assert str(tmp_path / "policy.toml") in err.value.message
    assert err.value.exit_code == 2


def test_modes_decide() -> None:
    base = load_policy(None)
    explicit = make_draft("we use uv", confidence=0.95)
    assert replace(base, mode="off").decide(explicit) == "off"
    assert replace(base, mode="observe").decide(explicit) == "observe"
    assert replace(base, mode="review").decide(explicit) == "queue"
    selective = replace(base, mode="selective")
    assert selective.decide(explicit) == "auto_commit"
    assert selective.decide(make_draft("maybe", confidence=0.5)) == "queue"
    assert selective.decide(make_draft("x", source="model_inference", confidence=1.0)) == "queue"
    correction = replace(make_draft("we use uv now", confidence=1.0), supersedes_hint="pip")
    assert selective.decide(correction) == "queue"  # supersede is "queue" by default
    denial = replace(make_draft("we do not use docker", confidence=1.0), polarity="deny")
    assert selective.decide(denial) == "auto_commit"


def test_selective_mode_auto_commits_only_explicit_statements_above_threshold(
    store, roots, claude_project, recording, tmp_path
) -> None:
    policy = load_policy(write(tmp_path, 'mode = "selective"\nselective_threshold = 0.8\n'))
    path = claude_project / "s-1.jsonl"
    s = ClaudeSession()  # host-shaped, chained lines: selective mode checks them (issue 9)
    path.write_bytes(
        s.prompt("we use uv", say="we use uv", confidence=0.95)
        + s.prompt("maybe use ruff", say="maybe use ruff", confidence=0.5)
        + s.prompt(
            "docker", say="the model thinks docker", source="model_inference", confidence=1.0
        )
    )
    ingestor = make_ingestor(store, policy=policy)
    ingestor.process(str(path), claude_root(roots))
    reader = store.reader_for(None, all_scopes=True)
    memories = store.list_memories(reader)
    assert [(m.statement, m.approved_by) for m in memories] == [("we use uv", "policy:selective")]
    pending = store.list_candidates(reader, QueueFilter(statuses=("pending",)))
    assert {c.statement for c in pending} == {"maybe use ruff", "the model thinks docker"}
    committed = store.list_candidates(reader, QueueFilter(statuses=("committed",)))
    assert [c.decided_by for c in committed] == ["policy:selective"]
    assert ingestor.stats.outcomes["auto_committed"] == 1


def test_selective_mode_never_auto_commits_into_a_conflict(
    store, roots, claude_project, recording, tmp_path
) -> None:
    """Issue 13: a statement that rivals an approved memory of its slot stays queued."""
    policy = load_policy(write(tmp_path, 'mode = "selective"\nselective_threshold = 0.8\n'))
    path = claude_project / "s-1.jsonl"
    s = ClaudeSession()  # host-shaped lines: selective mode checks them (issue 9)
    first, second = (f"the staging postgres listens on port {n}" for n in (5433, 5432))
    path.write_bytes(s.prompt(first, say=first, confidence=0.95))
    ingestor = make_ingestor(store, policy=policy)
    ingestor.process(str(path), claude_root(roots))
    with path.open("ab") as handle:
        handle.write(s.prompt(second, say=second, confidence=0.95))
    ingestor.process(str(path), claude_root(roots))
    reader = store.reader_for(None, all_scopes=True)
    assert [m.statement for m in store.list_memories(reader)] == [
        "the staging postgres listens on port 5433"
    ]
    pending = store.list_candidates(reader, QueueFilter(statuses=("pending",)))
    assert [c.statement for c in pending] == ["the staging postgres listens on port 5432"]
    assert pending[0].last_error is None  # refused before it was reserved: nothing to release
    assert ingestor.stats.outcomes["auto_committed"] == 1


def test_observe_and_off_admit_nothing_but_advance(
    store, roots, claude_project, recording, tmp_path
) -> None:
    path = claude_project / "s-1.jsonl"
    path.write_bytes(say("we use uv") + say("tabs"))
    for mode, outcome in (("observe", "observed"), ("off", "not_admitted")):
        ingestor = make_ingestor(store, policy=load_policy(write(tmp_path, f'mode = "{mode}"\n')))
        store.forget_checkpoint(str(path))
        ingestor.load()
        ingestor.process(str(path), claude_root(roots))
        assert ingestor.stats.outcomes[outcome] == 2
        assert store.get_checkpoint(str(path)).line_no == 2
    reader = store.reader_for(None, all_scopes=True)
    assert store.list_candidates(reader, QueueFilter(statuses=("pending",))) == []
