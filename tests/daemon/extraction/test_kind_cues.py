"""Kinds by category (issue 12: "kinds that mean something"): a candidate that says how a task is
done here is a procedure, one that says which choice was made is a decision, a statement of how
things are that also forbids is a constraint, whichever rule or scorer proposed it. The
`[[kind_cue]]` rules of assets/rules.toml (daemon/extraction/kind_cues.py), through the real
pipeline; the sentences are new, not corpus messages."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from memvet.daemon.extraction.extract import Extracted
from memvet.daemon.extraction.kind_cues import with_kind_cues
from memvet.daemon.extraction.rules import RulesError, load_rules
from memvet.daemon.pipeline import FilePipeline

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "corpus" / "extraction"))
from labelled_corpus import load  # noqa: E402

RULES = load_rules()


@pytest.fixture(scope="module")
def rules_alone(tmp_path_factory: pytest.TempPathFactory):
    """The categories are about kinds, not about what the scorer keeps (its weights are retrained
    apart): the rule front alone proposes; the cues run after either front the same way."""
    overlay = tmp_path_factory.mktemp("rules") / "rules.toml"
    overlay.write_text("[policy]\nlearned_scorer = false\n")
    return load_rules(str(overlay))


def _user_line(text: str, n: int = 1) -> bytes:
    return json.dumps(
        {
            "type": "user",
            "parentUuid": None,
            "isSidechain": False,
            "userType": "external",
            "cwd": "/work/kinds",
            "sessionId": "kind-cues",
            "version": "2.1.50",
            "uuid": f"kind-cues-{n}",
            "timestamp": f"2026-01-01T00:00:{n:02d}.000Z",
            "message": {"role": "user", "content": text},
        }
    ).encode()


def _drafts(text: str, rules=RULES) -> list:
    pipeline = FilePipeline("claude-code", "/work/kinds/s.jsonl", rules=rules, user="dana")
    return pipeline.feed(_user_line(text), 1)


def _kinds(text: str, rules=RULES) -> list[str]:
    return [d.kind for d in _drafts(text, rules)]


@pytest.mark.parametrize(
    "text",
    [
        # steps in order, introduced by what they are for
        "Deploys go: merge to main, wait for the canary, promote with `fly deploy --image`.",
        "When you add a locale, first copy en.json, then run `pnpm i18n:check`.",
        # a command that does the task, said as what the task "is"
        "The dev server is started with `pnpm dev`.",
        "The release process is `npm version patch && git push --tags`.",
        "Our deploy script is `./scripts/deploy.sh staging`.",
    ],
)
def test_how_a_task_is_done_here_is_a_procedure(text: str, rules_alone) -> None:
    assert _kinds(text, rules_alone) == ["procedure"]


@pytest.mark.parametrize(
    "text",
    [
        "We migrated auth to Keycloak.",  # moved / switched / migrated … to
        "Payments moved to Stripe last quarter.",
        "The frontend runs on Vercel, that was the team's call.",  # whose call, pick, choice
        "Our pick for the queue is RabbitMQ.",
        "After the RFC, the backend is Rust.",  # after the spike / RFC / bake-off
        "Jest is out, we use vitest now.",
        "We don't use Redux anymore, state lives in Zustand.",  # no longer / anymore
    ],
)
def test_a_choice_that_was_made_is_a_decision(text: str, rules_alone) -> None:
    assert _kinds(text, rules_alone) == ["decision"]


@pytest.mark.parametrize(
    "text",
    [
        "Secrets come from Doppler, never from env files in the repo.",
        "Fonts are self-hosted, no Google Fonts.",
    ],
)
def test_a_fact_that_also_forbids_is_a_constraint(text: str, rules_alone) -> None:
    assert _kinds(text, rules_alone) == ["constraint"]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("I'm on a 13 inch screen, no wide tables please.", "fact"),  # about the person
        ("The API runs on port 8080.", "fact"),
        ("Config lookup order is flag, then env, then the toml file.", "fact"),  # no steps
        ("Use pnpm, not npm.", "preference"),
        ("Never merge your own PR.", "constraint"),
        ("Hypothesis, not hand-picked examples.", "preference"),  # "picked" inside a word
    ],
)
def test_what_no_cue_speaks_for_keeps_its_kind(text: str, kind: str, rules_alone) -> None:
    assert _kinds(text, rules_alone) == [kind]


def test_what_the_learned_scorer_keeps_is_retyped_too() -> None:
    # a correction is never scored out (learned.py), so the default pipeline keeps it
    assert _kinds("We migrated auth to Keycloak.") == ["decision"]


def _without_cues(tmp_path: Path):
    off = tmp_path / "rules.toml"
    off.write_text(
        "[policy]\nlearned_scorer = false\n\n"
        + "".join(f'[[kind_cue]]\nname = "{c.name}"\nenabled = false\n\n' for c in RULES.kind_cues)
    )
    return load_rules(str(off))


def test_cues_retype_candidates_and_never_make_or_drop_one(tmp_path: Path, rules_alone) -> None:
    plain = _without_cues(tmp_path)
    assert plain.kind_cues == () and RULES.kind_cues
    texts = [
        "Deploys go: merge to main, wait for the canary, promote with `fly deploy --image`.",
        "First run the eval on the new checkpoint, then compare it with yesterday.",  # one-off
        "We moved the standup to Thursday, so no rush.",
        "Did we decide on Docusaurus or MkDocs?",
        "Before you push this branch, squash the fixups.",
    ]
    retyped = 0
    for text in texts:
        with_cues, without = _drafts(text, rules_alone), _drafts(text, plain)
        assert [d.statement for d in with_cues] == [d.statement for d in without], text
        retyped += [d.kind for d in with_cues] != [d.kind for d in without]
    assert retyped >= 1  # the first text: fact without the cues


def test_a_cue_says_why_and_leaves_kinds_outside_over_alone(rules_alone) -> None:
    [draft] = _drafts("Our deploy script is `./scripts/deploy.sh staging`.", rules_alone)
    assert "cue.procedure.by-command" in draft.reasons
    # "never" is a must/never rule: no procedure cue retypes a constraint
    rule = Extracted(
        statement="When you deploy, first run `make check`, never skip it.",
        kind="constraint",
        confidence=0.8,
        reasons=("constraint.never",),
    )
    assert with_kind_cues([rule], RULES.kind_cues) == [rule]
    as_fact = with_kind_cues([Extracted(**{**rule.__dict__, "kind": "fact"})], RULES.kind_cues)
    assert as_fact[0].kind == "procedure" and as_fact[0].reasons[-1].startswith("cue.procedure")


@pytest.mark.parametrize(
    ("table", "message"),
    [
        ('kind = "rumour"\npattern = "x"', "key 'kind' must be one of"),
        ('kind = "fact"\nover = ["opinion"]\npattern = "x"', "key 'over' may only list"),
        ('kind = "fact"\nover = "preference"\npattern = "x"', "key 'over' has the wrong type"),
    ],
)
def test_a_bad_kind_cue_is_refused_with_where_it_is(
    tmp_path: Path, table: str, message: str
) -> None:
    bad = tmp_path / "rules.toml"
    bad.write_text(f'[[kind_cue]]\nname = "cue.mine"\n{table}\n')
    with pytest.raises(RulesError) as caught:
        load_rules(str(bad))
    assert str(bad) in str(caught.value) and "cue.mine" in str(caught.value)
    assert message in str(caught.value)


def test_every_cue_match_has_one_of_its_keywords() -> None:
    """`keywords` skip a cue's regex: a match without one would be lost. Checked on the corpus's
    train and dev messages and labels (the regex alone against the regex behind its keywords)."""
    messages = load("train") + load("dev")
    texts = [m["text"] for m in messages]
    texts += [label["statement"] for m in messages for label in m["labels"]]
    keyed = [c for c in RULES.kind_cues if c.keywords]
    assert len(keyed) >= 5
    for cue in keyed:
        matched = [t for t in texts if cue.pattern.search(t)]
        assert matched, cue.name  # the check means something only if the cue matches some
        assert [t for t in matched if not any(k in t.lower() for k in cue.keywords)] == []
