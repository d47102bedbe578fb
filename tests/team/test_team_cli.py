"""The team commands through the real command line (in this process): the interface's JSON
shapes, and exit 3 with cause and fix for each way the server can be unusable."""

from __future__ import annotations

import json

import psycopg
from memvet.install.launcher import main


def run(monkeypatch, capsys, home, *argv):
    monkeypatch.setenv("MEMVET_HOME", str(home))
    capsys.readouterr()
    code = main(list(argv))
    out = capsys.readouterr()
    return code, (json.loads(out.out) if "--json" in argv else out.out), out.err


def test_create_join_admit_members_status_and_propose(
    monkeypatch, capsys, homes, team_url, pg_server, team_db, tmp_path
):
    code, created, _ = run(
        monkeypatch, capsys, homes[0], "team", "create", team_url, "--name", "ana", "--json"
    )
    assert code == 0 and created["role"] == "admin"
    bare = pg_server.url(team_db, password=None)  # the second member's password: PGPASSFILE
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"127.0.0.1:{pg_server.port}:{team_db}:memvet:{pg_server.password}\n")
    passfile.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    code, joined, _ = run(
        monkeypatch, capsys, homes[1], "team", "join", bare, "--name", "ben", "--json"
    )
    assert code == 0 and joined["status"] == "pending"
    code, err, _ = run(monkeypatch, capsys, homes[1], "team", "members", "--json")
    assert code == 3 and err["error"]["code"] == "team_no_key"
    assert f"memvet team admit {joined['member']}" in err["error"]["message"]
    code, _, _ = run(
        monkeypatch, capsys, homes[0], "team", "admit", joined["member"], "--role", "approver"
    )
    assert code == 0
    code, listed, _ = run(monkeypatch, capsys, homes[1], "team", "members", "--json")
    assert code == 0
    shape = [
        {k: m[k] for k in ("id", "name", "role", "status", "key_version")}
        for m in listed["members"]
    ]
    assert shape == [
        {
            "id": created["member"],
            "name": "ana",
            "role": "admin",
            "status": "admitted",
            "key_version": 1,
        },
        {
            "id": joined["member"],
            "name": "ben",
            "role": "approver",
            "status": "admitted",
            "key_version": 1,
        },
    ]
    repo = homes[0].parent / "src"
    (repo / ".git").mkdir(parents=True)
    (repo / ".git" / "config").write_text('[remote "origin"]\n\turl = https://x.test/a/b.git\n')
    code, proposed, _ = run(
        monkeypatch,
        capsys,
        homes[0],
        "propose",
        "use uv, not pip",
        "--cwd",
        str(repo),
        "--team",
        "--json",
    )
    assert code == 0 and proposed["status"] == "pending"
    code, queue, _ = run(monkeypatch, capsys, homes[1], "queue", "list", "--team", "--json")
    assert [(c["id"], c["statement"], c["scope"]["workspace"]) for c in queue["candidates"]] == [
        (proposed["id"], "use uv, not pip", "x.test/a/b")
    ]
    code, own, _ = run(monkeypatch, capsys, homes[0], "team", "approve", proposed["id"], "--json")
    assert code == 1 and own["results"][0]["code"] == "self_approval"
    code, approved, _ = run(
        monkeypatch, capsys, homes[1], "team", "approve", proposed["id"], "--json"
    )
    assert code == 0 and approved["results"][0]["status"] == "committed"
    code, synced, _ = run(monkeypatch, capsys, homes[0], "sync", "--once", "--json")
    assert code == 0 and synced["applied"] == 1
    code, listed, _ = run(monkeypatch, capsys, homes[0], "memories", "list", "--team", "--json")
    assert [(m["statement"], m["scope"]["workspace"]) for m in listed["memories"]] == [
        ("use uv, not pip", str(repo))
    ]
    code, status, _ = run(monkeypatch, capsys, homes[0], "team", "status", "--json")
    assert code == 0 and status["reachable"] and status["key_version"] == 1
    assert status["outbox"] == 0 and status["lag"] == 0
    code, verified, _ = run(monkeypatch, capsys, homes[0], "team", "audit", "verify", "--json")
    assert code == 0 and verified["ok"] and verified["events"] >= 4
    password = pg_server.password
    for home in homes[:2]:  # the password is in the keyring, nowhere in the home
        for path in home.rglob("*"):
            if path.is_file():
                assert password.encode() not in path.read_bytes(), path


def test_exit_3_unreachable_wrong_password_schema_and_missing_team(
    monkeypatch, capsys, homes, pg_server, team_db, team_url
):
    code, err, _ = run(monkeypatch, capsys, homes[0], "team", "members", "--json")
    assert code == 3 and err["error"]["code"] == "team_not_configured"
    dead = f"postgresql://memvet:x@127.0.0.1:1/{team_db}"
    code, err, _ = run(
        monkeypatch, capsys, homes[0], "team", "create", dead, "--name", "a", "--json"
    )
    assert code == 3 and err["error"]["code"] == "team_unreachable"
    assert "127.0.0.1:1/" in err["error"]["message"] and ":x@" not in err["error"]["message"]
    wrong = pg_server.url(team_db, password="not-the-password")
    code, err, _ = run(
        monkeypatch, capsys, homes[1], "team", "create", wrong, "--name", "a", "--json"
    )
    assert code == 3 and err["error"]["code"] == "team_auth"
    assert "not-the-password" not in json.dumps(err)
    code, _, _ = run(monkeypatch, capsys, homes[2], "team", "create", team_url, "--name", "a")
    assert code == 0
    with psycopg.connect(team_url, autocommit=True) as conn:
        conn.execute("UPDATE team_meta SET value = '99' WHERE key = 'schema_version'")
    code, err, _ = run(monkeypatch, capsys, homes[2], "team", "members", "--json")
    assert code == 3 and err["error"]["code"] == "team_schema_mismatch"
    assert "upgrade memvet" in err["error"]["message"]
    code, err, _ = run(monkeypatch, capsys, homes[2], "sync", "--once", "--json")
    assert code == 3 and err["error"]["code"] == "team_schema_mismatch"


def test_an_older_server_schema_stops_until_team_migrate(monkeypatch, capsys, homes, team_url):
    from memvet.store.team import schema

    code, _, _ = run(monkeypatch, capsys, homes[0], "team", "create", team_url, "--name", "a")
    assert code == 0
    newer = len(schema.TEAM_MIGRATIONS) + 1  # this memvet is one step newer
    monkeypatch.setattr(
        schema,
        "TEAM_MIGRATIONS",
        [*schema.TEAM_MIGRATIONS, ("s999_note", "ALTER TABLE team_meta ADD COLUMN note TEXT")],
    )
    monkeypatch.setattr(schema, "TEAM_SCHEMA_VERSION", newer)
    code, err, _ = run(monkeypatch, capsys, homes[0], "team", "members", "--json")
    assert code == 3 and err["error"]["code"] == "team_schema_mismatch"
    assert "memvet team migrate" in err["error"]["message"]
    code, migrated, _ = run(monkeypatch, capsys, homes[0], "team", "migrate", "--json")
    assert code == 0 and migrated == {"applied": ["s999_note"], "version": newer}
    code, again, _ = run(monkeypatch, capsys, homes[0], "team", "migrate", "--json")
    assert again["applied"] == []
    code, listed, _ = run(monkeypatch, capsys, homes[0], "team", "members", "--json")
    assert code == 0 and [m["name"] for m in listed["members"]] == ["a"]
