"""Per-file checkpoints for the daemon: file identity and the offset of the last whole line.
Paths are sensitive (they name the user's projects), so they are stored encrypted and looked up
by a keyed blind index."""

from __future__ import annotations

import json

import sqlalchemy as sa
from memvet.store.context import StoreContext
from memvet.store.models import FileCheckpointRow
from memvet.store.records import Checkpoint
from sqlalchemy import Connection

CKPT = FileCheckpointRow.__table__


class Checkpoints:
    def __init__(self, ctx: StoreContext) -> None:
        self.ctx = ctx

    def _path_key(self, path: str) -> str:
        return self.ctx.cipher.blind_index("path", path) or ""

    def get(self, path: str) -> Checkpoint | None:
        with self.ctx.read() as conn:
            row = conn.execute(
                sa.select(CKPT).where(CKPT.c.path_key == self._path_key(path))
            ).first()
        return None if row is None else self._from_row(row)

    def every(self) -> list[Checkpoint]:
        with self.ctx.read() as conn:
            rows = conn.execute(sa.select(CKPT)).all()
        return [self._from_row(r) for r in rows]

    def save(self, checkpoint: Checkpoint) -> None:
        """Advance a checkpoint on its own (a batch with no candidates)."""
        with self.ctx.write() as conn:
            self.save_in(conn, checkpoint)

    def forget(self, path: str) -> None:
        with self.ctx.write() as conn:
            conn.execute(CKPT.delete().where(CKPT.c.path_key == self._path_key(path)))

    def save_in(self, conn: Connection, cp: Checkpoint) -> None:
        key = self._path_key(cp.path)
        values = {
            "host": cp.host,
            "device": cp.device,
            "inode": cp.inode,
            "fingerprint": cp.fingerprint,
            "offset": cp.offset,
            "line_no": cp.line_no,
            "size_seen": cp.size_seen,
            "updated_at": self.ctx.now(),
            "path_ct": self.ctx.cipher.encrypt("file_checkpoints", "path", key, cp.path),
            "state_ct": self.ctx.cipher.encrypt(
                "file_checkpoints", "state", key, json.dumps(cp.extra)
            ),
        }
        done = conn.execute(CKPT.update().where(CKPT.c.path_key == key).values(**values)).rowcount
        if not done:
            conn.execute(CKPT.insert(), dict(path_key=key, **values))

    def _from_row(self, row: sa.Row) -> Checkpoint:
        path = self.ctx.cipher.decrypt("file_checkpoints", "path", row.path_key, row.path_ct) or ""
        state = self.ctx.cipher.decrypt("file_checkpoints", "state", row.path_key, row.state_ct)
        return Checkpoint(
            path=path,
            host=row.host,
            device=row.device,
            inode=row.inode,
            fingerprint=row.fingerprint,
            offset=row.offset,
            line_no=row.line_no,
            size_seen=row.size_seen,
            updated_at=row.updated_at,
            extra=json.loads(state) if state else {},
        )
