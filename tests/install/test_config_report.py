"""Typed configuration (store/config_file.py, store/config_sections.py): `memvet doctor --config`
prints what each component would use, and every strict file refuses a bad value in one format —
the file, the key, what was expected."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from memvet.daemon.admission_policy import load_policy
from memvet.daemon.settings import ConfigError, load_settings


def write(name: str, text: str) -> Path:
    home = Path(os.environ["MEMVET_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    path = home / name
    path.write_text(text)
    return path


def test_defaults_when_there_is_no_file(memvet):
    result = memvet("doctor", "--config", "--json")
    assert result.returncode == 0, result.stderr
    report = result.json()
    assert report["config_file_exists"] is False
    assert report["daemon"]["debounce_ms"] == 150 and report["daemon"]["log_level"] == "INFO"
    assert report["hook"] == {"session_start_tokens": 1024, "prompt_tokens": 512}
    assert report["review"] == {"after_days": 90}
    assert report["mcp"] == {"writeback": False}
    assert report["policy"]["mode"] == "review"
    assert report["policy"]["actions"]["model_inference"]["add"] == "queue"


def test_the_effective_values_are_the_ones_each_component_reads(memvet):
    config = write(
        "config.toml",
        "[daemon]\ndebounce_ms = 50\nrescan_interval = 60.0\nlog_level = 'debug'\nlater = 1\n"
        "[hook]\nprompt_tokens = 100\n[review]\nafter_days = 30\n[mcp]\nwriteback = true\n",
    )
    policy = write("policy.toml", 'mode = "selective"\n[actions.explicit_user]\nadd = "queue"\n')
    report = memvet("doctor", "--config", "--json").json()
    settings = load_settings(config)
    assert report["daemon"]["debounce_ms"] == settings.debounce_ms == 50
    assert report["daemon"]["rescan_interval"] == settings.rescan_interval == 60
    assert report["daemon"]["log_level"] == "DEBUG"
    assert report["daemon"]["unknown_keys"] == ["later"]
    assert report["hook"] == {"session_start_tokens": 1024, "prompt_tokens": 100}
    assert report["review"] == {"after_days": 30}
    assert report["mcp"] == {"writeback": True}
    assert report["policy"]["mode"] == load_policy(policy).mode == "selective"
    assert report["policy"]["actions"]["explicit_user"] == {
        "add": "queue",  # overridden
        "deny": "auto_commit",  # the bundled default, kept
        "supersede": "queue",
    }
    human = memvet("doctor", "--config")
    assert human.returncode == 0
    assert "debounce_ms = 50" in human.stdout and 'mode = "selective"' in human.stdout


@pytest.mark.parametrize(
    "name, text, key, expected",
    [
        ("config.toml", "[daemon]\nbatch_lines = -1\n", "daemon.batch_lines", "a positive number"),
        (
            "config.toml",
            "[daemon]\nbatch_lines = true\n",
            "daemon.batch_lines",
            "a positive number",
        ),
        ("config.toml", "[daemon]\nextra_roots = 'x'\n", "daemon.extra_roots", "a list"),
        ("config.toml", "[daemon]\nlog_level = 'loud'\n", "daemon.log_level", "DEBUG, INFO"),
        ("config.toml", "daemon = 3\n", "[daemon]", "a table"),
        ("policy.toml", 'mode = "yolo"\n', "mode", "one of off, observe, review, selective"),
        ("policy.toml", "selective_threshold = 2\n", "selective_threshold", "between 0 and 1"),
        ("policy.toml", "version = 2\n", "version", "1"),
        ("policy.toml", "moed = 1\n", "moed", "one of version, mode"),
        (
            "policy.toml",
            '[actions.robot]\nadd = "queue"\n',
            "actions.robot",
            "one of explicit_user",
        ),
        ("policy.toml", '[actions.import]\nadd = "commit"\n', "actions.import.add", "one of queue"),
        (
            "policy.toml",
            '[actions.import]\nadd = "auto_commit"\n',
            "actions.import.add",
            "only statements the user typed",
        ),
    ],
)
def test_a_bad_value_names_the_file_the_key_and_what_was_expected(
    memvet, name, text, key, expected
):
    path = write(name, text)
    result = memvet("doctor", "--config", "--json")
    assert result.returncode == 2
    error = result.json()["error"]
    assert error["code"] == "config_invalid"
    assert error["file"] == str(path) and error["key"] == key and expected in error["expected"]
    assert error["message"].startswith(f"{path}: ")
    with pytest.raises(ConfigError) as raised:  # the daemon refuses it the same way
        load_settings(path) if name == "config.toml" else load_policy(path)
    assert raised.value.details == {k: error[k] for k in ("file", "key", "expected")}


def test_a_file_that_is_not_toml_is_refused_with_its_name(memvet):
    path = write("config.toml", "[daemon\n")
    error = memvet("doctor", "--config", "--json").json()["error"]
    assert error["code"] == "config_invalid" and "not valid TOML" in error["message"]
    assert error["file"] == str(path)
    assert json.loads(json.dumps(error))  # one JSON document, plain values only


def test_team_json_is_a_typed_model_with_the_same_error_format(tmp_path):
    from memvet.store.team.config import TeamConfig, load_config, save_config

    config = TeamConfig(
        url="postgresql://ana@db:5432/memvet",
        team_id="t1",
        member_id="m1",
        name="ana",
        personal=False,
        secret_provider="file",
    )
    save_config(tmp_path, config)
    assert load_config(tmp_path) == config
    data = json.loads((tmp_path / "team.json").read_text())
    for key, bad, expected in (
        ("personal", "yes", "a valid boolean"),
        ("secret_provider", "vault", '"keyring" or "file"'),
        ("team_id", 7, "a valid string"),
    ):
        (tmp_path / "team.json").write_text(json.dumps({**data, key: bad}))
        with pytest.raises(ConfigError) as err:
            load_config(tmp_path)
        assert err.value.details["key"] == key and expected in err.value.details["expected"]
        assert err.value.message.startswith(f"{tmp_path / 'team.json'}: {key} must be ")
    (tmp_path / "team.json").write_text("{not json")
    with pytest.raises(ConfigError, match="not valid JSON"):
        load_config(tmp_path)
