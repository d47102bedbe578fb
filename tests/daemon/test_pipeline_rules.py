"""`load_rules`: the packaged files load; a user file overlays them; mistakes are clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from memvet.daemon.extraction.rules import RulesError
from memvet.daemon.pipeline import load_rules


def test_packaged_rules_load_and_are_sane() -> None:
    rules = load_rules()
    assert not rules.policy.assistant_inference  # model text never becomes a candidate by default
    assert {r.kind for r in rules.kinds} == {
        "preference",
        "constraint",
        "decision",
        "fact",
        "procedure",
    }
    names = [
        r.name
        for r in (
            *rules.kinds,
            *rules.reject,
            *rules.durable,
            *rules.correction,
            *rules.filters.drop,
            *rules.filters.strip,
        )
    ]
    assert len(names) == len(set(names))
    assert rules.sources == ("memvet/assets/filters.toml", "memvet/assets/rules.toml")


def test_user_file_overlays_by_name(tmp_path: Path) -> None:
    user_file = tmp_path / "rules.toml"
    user_file.write_text(
        "[policy]\nmin_confidence = 0.8\nassistant_inference = true\n\n"
        "[[kind]]\nname = 'constraint.never'\nenabled = false\n\n"
        "[[kind]]\nname = 'fact.team'\nkind = 'fact'\nconfidence = 0.9\npattern = 'our team'\n\n"
        "[[drop]]\nname = 'claude.interrupt'\nenabled = false\n"
    )
    rules = load_rules(str(user_file))
    assert rules.policy.min_confidence == 0.8 and rules.policy.assistant_inference
    names = {r.name for r in rules.kinds}
    assert "constraint.never" not in names and "fact.team" in names
    assert "claude.interrupt" not in {r.name for r in rules.filters.drop}
    assert rules.sources[-1] == str(user_file)


def test_memvet_home_rules_are_picked_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "mh"
    home.mkdir()
    (home / "rules.toml").write_text("[policy]\nmin_words = 5\n")
    monkeypatch.setenv("MEMVET_HOME", str(home))
    assert load_rules().policy.min_words == 5


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "[[kind]]\nname = 'x'\nkind = 'fact'\npatern = 'a'\n",
            "[[kind]] 'x': unknown key 'patern'",
        ),
        (
            "[[kind]]\nname = 'bad-re'\nkind = 'fact'\npattern = '(unclosed'\n",
            "[[kind]] 'bad-re': key 'pattern': bad regex",
        ),
        ("[[strip]]\nname = 's'\npattern = '[z-a]'\n", "[[strip]] 's': key 'pattern': bad regex"),
        ("[[kind]]\nname = 'k'\nkind = 'opinion'\npattern = 'a'\n", "key 'kind' must be one of"),
        (
            "[[kind]]\nname = 'c'\nkind = 'fact'\nconfidence = 3\npattern = 'a'\n",
            "'confidence' must be between 0 and 1",
        ),
        ("[[drop]]\nname = 'h'\nhosts = ['cursor']\npattern = 'a'\n", "'hosts' may only list"),
        ("[policy]\nmin_confidence = 'high'\n", "[policy]: key 'min_confidence' must be a float"),
        ("[policy]\nfavourite = 1\n", "[policy]: unknown key 'favourite'"),
        ("[[reject]]\npattern = 'a'\n", "needs a non-empty string 'name'"),
        ("[[correction]]\nname = 'c'\npattern = '(?P<new>x)'\n", "the only named group allowed"),
        ("[extraction]\nx = 1\n", "unknown section(s) extraction"),
        ("[[kind]\nname = 'x'\n", "not valid TOML"),
        (
            "[[kind]]\nname = 'd'\nkind = 'fact'\npattern = 'a'\n[[kind]]\nname = 'd'\nkind = 'fact'\npattern = 'b'\n",
            "duplicate name",
        ),
    ],
)
def test_invalid_user_rules_are_named_errors(tmp_path: Path, content: str, message: str) -> None:
    user_file = tmp_path / "rules.toml"
    user_file.write_text(content)
    with pytest.raises(RulesError) as caught:
        load_rules(str(user_file))
    assert message in caught.value.message and str(user_file) in caught.value.message
    assert caught.value.code == "invalid_rules"


def test_unreadable_rules_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match="cannot read rules file"):
        load_rules(str(tmp_path / "missing.toml"))
