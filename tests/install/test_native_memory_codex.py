"""Codex's own memories behind review: with `[features] memories = true`, setup adds a marked
`[memories] use_memories = false` (Codex then stops injecting its unreviewed memories; comments
kept) and uninstall takes it out again; with the feature off, nothing."""

from __future__ import annotations

import tomllib


def test_memories_on_get_use_memories_off_and_back(memvet, codex_dir):
    config = codex_dir / "config.toml"
    original = '# my settings\nmodel = "gpt-5.5"\n\n[features]\nmemories = true  # I like it\n'
    config.write_text(original)
    report = memvet("setup", "codex", "--json").json()
    data = tomllib.loads(config.read_text())
    assert data["memories"]["use_memories"] is False
    assert "# I like it" in config.read_text() and "# my settings" in config.read_text()
    assert any("use_memories" in m for m in report["messages"])
    assert memvet("setup", "codex").returncode == 0  # idempotent
    assert config.read_text().count("use_memories") == 1
    memvet("setup", "codex", "--uninstall")
    assert config.read_text() == original


def test_a_use_memories_the_user_set_is_flipped_and_restored(memvet, codex_dir):
    config = codex_dir / "config.toml"
    original = "[features]\nmemories = true\n\n[memories]\nuse_memories = true # injected\nmax_unused_days = 9\n"
    config.write_text(original)
    memvet("setup", "codex")
    data = tomllib.loads(config.read_text())
    assert data["memories"] == {"use_memories": False, "max_unused_days": 9}
    memvet("setup", "codex", "--uninstall")
    assert config.read_text() == original


def test_memories_off_means_nothing_is_added(memvet, codex_dir):
    config = codex_dir / "config.toml"
    config.write_text("[features]\nmemories = false\n")
    memvet("setup", "codex")
    assert (
        "memories" not in tomllib.loads(config.read_text())
        or "use_memories" not in config.read_text()
    )


def test_the_daemon_queues_codex_memory_files_once(memvet, memvet_process, codex_dir, monkeypatch):
    monkeypatch.setenv("MEMVET_KEY_PROVIDER", "file")
    summaries = codex_dir / "memories_v2" / "rollout_summaries"
    summaries.mkdir(parents=True)
    (summaries / "2026-12-01-thread-a.md").write_text(
        "# Thread a\n- The user deploys with Helm charts.\n"
    )
    (codex_dir / "memories_v2" / "memory_summary.md").write_text("digest\n")
    (codex_dir / "config.toml").write_text("[features]\nmemories = false\n")
    assert memvet_process("daemon", "run", "--once").returncode == 0
    assert memvet("queue", "list", "--json").json()["candidates"] == []  # feature off: nothing
    (codex_dir / "config.toml").write_text("[features]\nmemories = true\n")
    assert memvet_process("daemon", "run", "--once").returncode == 0
    [candidate] = memvet("queue", "list", "--json").json()["candidates"]
    assert candidate["statement"] == "Thread a The user deploys with Helm charts."
    assert candidate["origin"] == "Codex memories" and candidate["source_type"] == "model_inference"
    memvet("queue", "reject", candidate["id"])
    path = summaries / "2026-12-01-thread-a.md"
    path.write_text(path.read_text())  # Codex rewrites a deleted summary: same name, same text
    assert memvet_process("daemon", "run", "--once").returncode == 0
    assert memvet("queue", "list", "--json").json()["candidates"] == []
