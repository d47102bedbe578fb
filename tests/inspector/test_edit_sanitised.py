"""Issue 9: the inspector's edit dialog writes through the store's gate: a pasted AWS key pair
and GitHub token are redacted and escape sequences stripped before the memory is stored."""

from __future__ import annotations

from .conftest import app_for, settle

AWS_ID, AWS_SECRET = "AKIA2E0A8F3B244C9986", "Zk3v9QmB2xR7tL5pW8nY4cH6jD1sF0gA3eU7iO2q"
GH_TOKEN = "ghp_R8kq2VbN7xT1mZ4cW9pL3sD6fH0jY5aE2uQ8"


async def test_an_edited_statement_is_redacted_before_it_is_stored(seeded, clock):
    app = app_for(seeded, clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one(
            "#edit-statement"
        ).value = f"Use uv; AWS key {AWS_ID} {AWS_SECRET}; token {GH_TOKEN} \x1b[2J"
        await pilot.press("ctrl+s")
        await settle(pilot)
    memory = seeded.get_memory("m_0001")
    assert "[REDACTED:aws-access-key]" in memory.statement
    assert "[REDACTED:github-token]" in memory.statement
    assert not any(s in memory.statement for s in (AWS_ID, AWS_SECRET, GH_TOKEN, "\x1b"))
    data = seeded.path.read_bytes()
    wal = seeded.path.with_name(seeded.path.name + "-wal")
    data += wal.read_bytes() if wal.exists() else b""
    assert not any(s.encode() in data for s in (AWS_ID, AWS_SECRET, GH_TOKEN))
