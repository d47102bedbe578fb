"""One real PostgreSQL server for the whole team suite (started once, a fresh database per
test), on 127.0.0.1 with password authentication. As root (CI), the server runs as `nobody`:
PostgreSQL refuses to run as root. Skips with the reason only when no server can be started."""

from __future__ import annotations

import glob
import itertools
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from memvet.store import open_store
from memvet.store.team.members import admit, create_team, join_team
from memvet.store.team.outbox import note_workspace
from memvet.store.team.session import open_session

PASSWORD = "pw-" + secrets.token_hex(8)
_DBS = itertools.count(1)


def _bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, bin_dir: Path, root: Path) -> None:
        self.bin, self.root, self.data = bin_dir, root, root / "data"
        self.port = _free_port()
        self.password = PASSWORD
        self.as_user = ["runuser", "-u", "nobody", "--"] if os.geteuid() == 0 else []

    def _run(self, *argv: str) -> None:
        subprocess.run([*self.as_user, *argv], check=True, capture_output=True, timeout=60)

    def init(self) -> None:
        pwfile = self.root / "pw"
        pwfile.write_text(PASSWORD + "\n")
        if self.as_user:
            shutil.chown(self.root, "nobody")
            shutil.chown(pwfile, "nobody")
        self._run(
            str(self.bin / "initdb"),
            "-D",
            str(self.data),
            "-U",
            "memvet",
            "-E",
            "UTF8",
            "--auth=scram-sha-256",
            f"--pwfile={pwfile}",
            "--no-sync",
        )

    def start(self) -> None:
        opts = (
            f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c full_page_writes=off"
        )  # fsync off: a killed server still keeps its commits (OS cache)
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            opts,
            "-l",
            str(self.root / "log"),
            "-w",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def url(self, db: str = "postgres", password: str | None = PASSWORD) -> str:
        auth = f"memvet:{password}" if password else "memvet"
        return f"postgresql://{auth}@127.0.0.1:{self.port}/{db}"

    def pg_dump(self, db: str) -> str:
        env = {**os.environ, "PGPASSWORD": PASSWORD}
        return subprocess.run(
            [
                str(self.bin / "pg_dump"),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                "memvet",
                db,
            ],
            check=True,
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        ).stdout


def _skip(reason: str) -> None:
    """Skip with the reason; in CI (MEMVET_TEAM_REQUIRED=1, set by .ci/run) fail instead."""
    if os.environ.get("MEMVET_TEAM_REQUIRED") == "1":
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def pg_server() -> Iterator[Server]:
    bin_dir = _bin_dir()
    if bin_dir is None:
        _skip(
            "no PostgreSQL server binaries (initdb) on this machine; .ci/run installs "
            "the Debian package `postgresql`"
        )
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _skip("psycopg is not installed (pip install -e '.[test]')")
    root = Path(tempfile.mkdtemp(prefix="memvet-pg-"))
    server = Server(bin_dir, root)
    try:
        server.init()
        server.start()
    except (subprocess.CalledProcessError, OSError) as exc:
        shutil.rmtree(root, ignore_errors=True)
        _skip(f"a PostgreSQL server could not be started here: {exc}")
    yield server
    try:
        server.stop("immediate")
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def team_db(pg_server: Server) -> str:
    """A fresh, empty database; returns its name."""
    import psycopg

    name = f"team_{os.getpid()}_{next(_DBS)}"
    with psycopg.connect(pg_server.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return name


@pytest.fixture
def team_url(pg_server: Server, team_db: str) -> str:
    return pg_server.url(team_db)


@pytest.fixture
def homes(tmp_path: Path) -> list[Path]:
    """Three memvet homes on this machine, each a member-to-be."""
    out = [tmp_path / f"member-{i}" for i in "abc"]
    for home in out:
        home.mkdir(mode=0o700)
    return out


# --- members of one team on this machine ------------------------------------------------------
REMOTE = "git@github.com:acme/app.git"


def clone(where: Path, remote: str = REMOTE) -> str:
    """A folder that is a git clone of `remote` (only what memvet reads: .git/config)."""
    (where / ".git").mkdir(parents=True)
    (where / ".git" / "config").write_text(
        f'[core]\n\tbare = false\n[remote "origin"]\n\turl = {remote}\n'
    )
    return str(where)


_TEMPLATE: list[Path] = []  # one fresh local store (key in a file), copied into each home


def _local_store(home: Path, user: str):  # noqa: ANN202
    """A fresh local store in `home`: a copy of one made once (migrating a new SQLite store
    costs about a second; the team suite needs a dozen). Copies share a local key, which no
    team test depends on: team rows are under the team key."""
    if not _TEMPLATE:
        template = Path(tempfile.mkdtemp(prefix="memvet-team-template-"))
        previous = os.environ.get("MEMVET_KEY_PROVIDER")
        os.environ["MEMVET_KEY_PROVIDER"] = "file"
        try:
            open_store(template, user=user).close()
        finally:
            if previous is None:
                os.environ.pop("MEMVET_KEY_PROVIDER")
            else:
                os.environ["MEMVET_KEY_PROVIDER"] = previous
        _TEMPLATE.append(template)
    if not (home / "memvet.db").exists():
        shutil.copytree(_TEMPLATE[0], home, dirs_exist_ok=True)
    return open_store(home, user=user)


class Member:
    def __init__(
        self,
        home: Path,
        session,
        user: str = "dana",  # noqa: ANN001
        remote: str = REMOTE,
    ) -> None:
        self.home, self.session = home, session
        self.store = _local_store(home, user)
        self.repo = clone(home.parent / f"{home.name}-src" / "app", remote)
        note_workspace(self.store, self.repo)

    def reopen(self) -> None:
        self.session.close()
        self.session = open_session(self.home)

    def close(self) -> None:
        self.session.close()
        self.store.close()


def team_of(
    homes: list[Path],
    url: str,
    *,
    roles: tuple[str, ...] = ("approver", "approver"),
    personal: bool = False,
    user: str = "dana",
    **policy,
) -> list[Member]:  # noqa: ANN003
    first = create_team(homes[0], url, "ana-quokka", personal=personal, **policy)
    out = [Member(homes[0], first, user)]
    for home, role, name in zip(homes[1:], roles, ("ben-quokka", "cy-quokka"), strict=False):
        joined = join_team(home, url, name)
        admit(first, joined["member"], role=role)
        out.append(Member(home, open_session(home), user))
    return out


@pytest.fixture
def make_team(homes, team_url):  # noqa: ANN201
    """make_team(roles=..., personal=..., **policy) -> [Member, ...], closed after the test."""
    made: list[Member] = []

    def make(**kwargs):  # noqa: ANN003, ANN202
        members = team_of(homes, team_url, **kwargs)
        made.extend(members)
        return members

    yield make
    for member in made:
        member.close()


@pytest.fixture
def member_of():  # noqa: ANN201
    """member_of(home, session) -> Member (closed after the test)."""
    made: list[Member] = []

    def make(home: Path, session, remote: str = REMOTE) -> Member:  # noqa: ANN001
        member = Member(home, session, remote=remote)
        made.append(member)
        return member

    yield make
    for member in made:
        member.close()
