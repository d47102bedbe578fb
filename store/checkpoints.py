"""Per-file checkpoints for the daemon: file identity and the offset of the last whole line.
Paths are sensitive (they name the user's projects), so they are stored encrypted and looked up
by a keyed blind index."""

from __future__ import annotations

import json

import sqlalchemy as sa
from memvet.store.core import StoreCore
from memvet.store.models import FileCheckpointRow
from memvet.store.records import Checkpoint
from sqlalchemy import Connection

CKPT = FileCheckpointRow.__table__


class CheckpointMixin(StoreCore):
    def _path_key(self, path: str) -> str:
        return self.cipher.blind_index("path", path) or ""

    def get_checkpoint(self, path: str) -> Checkpoint | None:
        with self._read() as conn:
            row = conn.execute(
                sa.select(CKPT).where(CKPT.c.path_key == self._path_key(path))
            ).first()
        return None if row is None else self._checkpoint_from_row(row)

    def all_checkpoints(self) -> list[Checkpoint]:
        with self._read() as conn:
            rows = conn.execute(sa.select(CKPT)).all()
        return [self._checkpoint_from_row(r) for r in rows]

    def save_checkpoint(self, checkpoint: Checkpoint) -> None:
        """Advance a checkpoint on its own (a batch with no candidates)."""
        with self._write() as conn:
            self._save_checkpoint(conn, checkpoint)

    def forget_checkpoint(self, path: str) -> None:
        with self._write() as conn:
            conn.execute(CKPT.delete().where(CKPT.c.path_key == self._path_key(path)))

    def _save_checkpoint(self, conn: Connection, cp: Checkpoint) -> None:
        key = self._path_key(cp.path)
        values = {
            "host": cp.host,
            "device": cp.device,
            "inode": cp.inode,
            "fingerprint": cp.fingerprint,
            "offset": cp.offset,
            "line_no": cp.line_no,
            "size_seen": cp.size_seen,
            "updated_at": self.now(),
            "path_ct": self.cipher.encrypt("file_checkpoints", "path", key, cp.path),
            "state_ct": self.cipher.encrypt("file_checkpoints", "state", key, json.dumps(cp.extra)),
        }
        done = conn.execute(CKPT.update().where(CKPT.c.path_key == key).values(**values)).rowcount
        if not done:
            conn.execute(CKPT.insert(), dict(path_key=key, **values))

    def _checkpoint_from_row(self, row: sa.Row) -> Checkpoint:
        path = self.cipher.decrypt("file_checkpoints", "path", row.path_key, row.path_ct) or ""
        state = self.cipher.decrypt("file_checkpoints", "state", row.path_key, row.state_ct)
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
