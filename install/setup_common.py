"""What every host setup shares: how host files are changed safely (timestamped backup, atomic
replace with the original permissions, a unified diff for --dry-run, nothing written on any
error). How memvet names itself in those files is memvet_entries.py."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from memvet.install.json_edit import JsonText
from memvet.store.errors import MemvetError


@dataclass
class Planned:
    """A transform's answer: the new text (None: no file), notes for the person, and the JSON
    containers memvet had to create (so uninstall removes those, and only those, once empty)."""

    text: str | None
    notes: list[str] = field(default_factory=list)
    created: list[tuple[str, ...]] = field(default_factory=list)


Transform = Callable[[str | None], Planned]


class ConfigFileError(MemvetError):
    """A host file memvet must edit cannot be read as JSON/TOML, or has an unexpected shape."""

    code = "invalid_config"
    exit_code = 1


@dataclass
class FileEdit:
    """One host file to change. `transform` is re-run if the file changes under us."""

    path: Path
    transform: Transform
    new_mode: int = 0o600  # only for files memvet creates; existing files keep their mode
    before: str | None = None
    after: str | None = None
    notes: list[str] = field(default_factory=list)
    created: list[tuple[str, ...]] = field(default_factory=list)

    def plan(self) -> None:
        refuse_foreign(self.path)
        self.before = read_text(self.path)
        planned = self.transform(self.before)
        self.after, self.notes, self.created = planned.text, planned.notes, planned.created

    @property
    def action(self) -> str:
        if self.after == self.before:
            return "unchanged"
        if self.before is None:
            return "created"
        return "removed" if self.after is None else "updated"


def refuse_foreign(path: Path) -> None:
    """Only files of the user running setup are written. Setup as root with a host file that is
    a symlink into another user's files (or a folder linked there) would write as root into
    them: refused, before anything is written. Links to the user's own files (dotfile managers)
    are followed as before."""
    real = Path(os.path.realpath(path))
    probe = real
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent  # a file to be created: the folder it would be created in
    owner, me = probe.stat().st_uid, os.geteuid()
    if owner == me:
        return
    via = f" (it resolves to {real})" if real != Path(os.path.abspath(path)) else ""
    what = "belongs" if probe == real else f"would be created in {probe}, which belongs"
    raise ConfigFileError(
        f"{path}{via} {what} to another user (uid {owner}), not to you (uid {me}); memvet "
        "writes only your own files, so nothing was written. Point the link at a file you own, "
        "or run setup as that user.",
        path=str(path),
        owner_uid=owner,
    )


def read_text(path: Path) -> str | None:
    # Bytes, not read_text(): newline translation would turn CRLF files into LF ones.
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigFileError(f"{path}: cannot read: {exc.strerror}", path=str(path)) from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigFileError(f"{path}: not UTF-8 text (byte {exc.start})", path=str(path)) from exc


def load_json(text: str, path: Path) -> JsonText:
    """Parse a host's JSON file (an object at the root), or say exactly where it is broken."""
    try:
        doc = JsonText(text)
    except json.JSONDecodeError as exc:
        raise ConfigFileError(
            f"{path}:{exc.lineno}:{exc.colno}: not valid JSON ({exc.msg}); left alone",
            path=str(path),
            line=exc.lineno,
            column=exc.colno,
        ) from exc
    if not isinstance(doc.data, dict):
        raise ConfigFileError(f"{path}: not a JSON object; left alone", path=str(path))
    return doc


def apply(edits: list[FileEdit], dry_run: bool) -> list[dict[str, object]]:
    """Plan every file first (so one broken file stops all writes), then write the changed ones."""
    for edit in edits:
        edit.plan()
    results = []
    for edit in edits:
        entry: dict[str, object] = {"path": str(edit.path), "action": edit.action, "backup": None}
        if dry_run:
            entry["diff"] = unified_diff(edit.path, edit.before, edit.after)
        elif edit.action != "unchanged":
            entry["backup"] = _commit(edit)
            entry["action"] = edit.action  # may differ if the file changed under us
        results.append(entry)
    return results


def _commit(edit: FileEdit) -> str | None:
    # The host may rewrite its file while we work (Claude Code rewrites .claude.json often):
    # check again right before replacing, and redo the edit on what is there now.
    for _ in range(3):
        backup = make_backup(edit.path) if edit.before is not None else None
        if edit.after is None:
            if read_text(edit.path) == edit.before:
                os.unlink(edit.path)  # a symlink goes, not the dotfile it points to
                return str(backup) if backup else None
        elif atomic_write(edit.path, edit.after, edit.new_mode, expect=edit.before):
            return str(backup) if backup else None
        if backup:
            backup.unlink(missing_ok=True)
        edit.plan()
        if edit.action == "unchanged":
            return None
    raise MemvetError(f"{edit.path} keeps changing while memvet edits it; try again", code="busy")


def make_backup(path: Path) -> Path:
    """`<file>.memvet-backup-YYYYmmddTHHMMSSZ` beside the file, with the file's own mode."""
    real = Path(os.path.realpath(path))
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    mode = stat.S_IMODE(real.stat().st_mode)
    data = real.read_bytes()
    for n in range(1, 100):
        suffix = "" if n == 1 else f"-{n}"
        target = path.with_name(f"{path.name}.memvet-backup-{stamp}{suffix}")
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        except FileExistsError:
            continue
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        return target
    raise MemvetError(f"{path}: too many backups in one second", code="backup_failed")


def atomic_write(path: Path, text: str, new_mode: int, *, expect: str | None) -> bool:
    """Write through a temp file in the same folder and `os.replace`; keep the file's mode.

    A symlinked file (dotfile managers) is written at its target, so the link survives.
    Returns False, writing nothing, when the file does not hold `expect` (None: no file).
    """
    import tempfile  # here, not at import: `memvet status` loads this module only to read

    real = Path(os.path.realpath(path))
    existed = real.exists()
    if not existed:
        real.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    mode = stat.S_IMODE(real.stat().st_mode) if existed else new_mode
    fd, tmp = tempfile.mkstemp(dir=real.parent, prefix=f".{real.name}.", suffix=".memvet-tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
        if read_text(real) != expect:
            os.unlink(tmp)
            return False
        os.replace(tmp, real)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return True


def unified_diff(path: Path, before: str | None, after: str | None) -> str:
    import difflib

    old = (before or "").splitlines(keepends=True)
    new = (after or "").splitlines(keepends=True)
    lines = difflib.unified_diff(
        old,
        new,
        fromfile=str(path) if before is not None else "/dev/null",
        tofile=str(path) if after is not None else "/dev/null",
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
