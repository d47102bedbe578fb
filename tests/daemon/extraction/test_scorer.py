"""The learned scorer: packaged weights, pure-Python runtime, its decisions in the pipeline and
what `memvet extract --json` shows of them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from memvet.daemon.extraction.extract import Extractor
from memvet.daemon.extraction.features import Context, hashed, sentence_features
from memvet.daemon.extraction.learned import LearnedExtractor
from memvet.daemon.extraction.rules import load_rules
from memvet.daemon.extraction.scorer import KINDS, Scorer, default_scorer


@pytest.fixture(scope="module")
def learned() -> LearnedExtractor:
    return LearnedExtractor(Extractor(load_rules()))


def test_weights_load_and_hashing_is_stable_across_processes() -> None:
    scorer = default_scorer()
    # two keep lines, each calibrated on dev: rule candidates and sentences only the scorer read
    assert 0 < scorer.threshold_proposed < 1 and 0 < scorer.threshold < 1
    names = sentence_features("Never push to main.", Context())
    here = hashed(names)
    code = (
        "import json; from memvet.daemon.extraction.features import Context, hashed, sentence_features; "
        "print(json.dumps(sorted(hashed(sentence_features('Never push to main.', Context())).items())))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "7", "PATH": ""},
    )
    assert [tuple(x) for x in json.loads(done.stdout)] == sorted(here.items())


def test_the_runtime_imports_no_numeric_library() -> None:
    code = (
        "import sys; from memvet.daemon.extraction.scorer import default_scorer, Context; "
        "default_scorer().judge('Use pnpm, not npm.', Context()); "
        "print(sorted(m for m in ('numpy', 'sklearn', 'scipy', 'wordllama') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_judge_gives_a_probability_a_kind_and_reasons() -> None:
    verdict = default_scorer().judge(
        "Never commit directly to main.", Context(rules=("constraint.never",))
    )
    assert 0.0 <= verdict.score <= 1.0 and verdict.kind in KINDS and 0.0 <= verdict.global_p <= 1.0
    assert verdict.reasons[0] == f"score:{verdict.score:.3f}"
    assert any(r.startswith("feature:") for r in verdict.reasons)


def test_damaged_weights_are_refused() -> None:
    scorer = default_scorer()
    with pytest.raises(ValueError, match="truncated"):
        Scorer(scorer.header, b"\0" * 12)
    with pytest.raises(ValueError, match="do not match"):
        Scorer({**scorer.header, "buckets": 16}, b"")


def test_rule_candidates_keep_their_polarity(learned: LearnedExtractor) -> None:
    found = learned.extract("Never force-push to main.")
    assert [f.polarity for f in found] == ["deny"]
    assert any(r.startswith("score:") for r in found[0].reasons)


def test_a_question_and_chit_chat_are_not_candidates(learned: LearnedExtractor) -> None:
    assert learned.extract("should we always use pnpm here?") == []
    assert learned.extract("thanks, that works") == []


def test_the_scorer_is_on_by_default_and_the_switch_turns_it_off(tmp_path: Path) -> None:
    from memvet.daemon.pipeline import FilePipeline

    user_file, opt_in = tmp_path / "rules.toml", tmp_path / "opt-in.toml"
    user_file.write_text("[policy]\nlearned_scorer = false\n")
    opt_in.write_text("[policy]\nlearned_scorer = true\n")
    line = json.dumps(
        {
            "type": "user",
            "sessionId": "s",
            "uuid": "u1",
            "cwd": "/w",
            "timestamp": "2026-01-01T00:00:00Z",
            "message": {"role": "user", "content": "Never push to main."},
        }
    ).encode()
    off = FilePipeline("claude-code", "/t.jsonl", rules=load_rules(str(user_file)), user="u").feed(
        line, 1
    )
    on = FilePipeline("claude-code", "/t.jsonl", rules=load_rules(str(opt_in)), user="u").feed(
        line, 1
    )
    default = FilePipeline("claude-code", "/t.jsonl", rules=load_rules(), user="u").feed(line, 1)
    assert any(r.startswith("score:") for r in default[0].reasons)  # on unless switched off
    assert [d.statement for d in off] == [d.statement for d in on] == ["Never push to main."]
    assert not any(r.startswith("score:") for r in off[0].reasons)
    assert any(r.startswith("score:") for r in on[0].reasons)


def test_extract_json_shows_score_and_reasons(tmp_path: Path) -> None:
    from memvet.store.paths import memvet_home

    home = memvet_home()
    home.mkdir(parents=True, exist_ok=True)
    (home / "rules.toml").write_text("[policy]\nlearned_scorer = true\n")  # the scorer is opt-in
    path = tmp_path / "s.jsonl"
    path.write_text(
        json.dumps(
            {
                "type": "user",
                "sessionId": "s",
                "uuid": "u1",
                "cwd": str(tmp_path),
                "timestamp": "2026-01-01T00:00:00Z",
                "message": {"role": "user", "content": "Never log request bodies."},
            }
        )
        + "\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "memvet.install.launcher",
            "extract",
            "--host",
            "claude-code",
            str(path),
            "--json",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    [candidate] = json.loads(done.stdout)["candidates"]
    assert candidate["score"] == candidate["confidence"]
    explanation = candidate["explanation"]
    assert "constraint.never" in explanation["rules"]
    assert explanation["features"] and all(f.count(":") >= 2 for f in explanation["features"])
