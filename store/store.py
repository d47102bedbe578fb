"""The Store: one object per process that every component uses. Its public methods return
plain read models (records.py), never live ORM objects."""

from __future__ import annotations

import getpass
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa
from memvet.store.admission import AdmissionMixin
from memvet.store.bulk import BulkMixin
from memvet.store.candidates import CandidateReadMixin
from memvet.store.checkpoints import CKPT, CheckpointMixin
from memvet.store.core import Clock, random_id, utcnow
from memvet.store.crypto import FieldCipher
from memvet.store.engine import ChangeSignal, create_store_engine, damaged_store_error, optimize
from memvet.store.errors import no_store_error
from memvet.store.keyring_setup import finish_rotation, key_info, load_cipher, rotate_kek
from memvet.store.maintenance import MaintenanceMixin
from memvet.store.memories import MemoryMixin
from memvet.store.paths import ensure_private_dir, memvet_home
from memvet.store.records import StoreStatus
from memvet.store.reservation import ReservationMixin
from memvet.store.review import ReviewMixin
from memvet.store.schema import current_version, ensure_schema
from memvet.store.slot_decisions import SlotMixin
from memvet.store.undo import UndoMixin


class Store(
    AdmissionMixin,
    BulkMixin,
    CheckpointMixin,
    ReservationMixin,
    MemoryMixin,
    CandidateReadMixin,
    MaintenanceMixin,
    SlotMixin,
    UndoMixin,
    ReviewMixin,
):
    home: Path
    path: Path

    def rotate_key(self) -> int:
        version, _ = rotate_kek(self.engine, self.home, self.now())
        with self._write() as conn:
            self._audit(conn, "operator", "key.rotated", "key", f"kek-v{version}")
        return version

    def finish_key_rotation(self) -> list[int]:
        """Remove the keys an interrupted rotation left behind (`key rotate --finish`)."""
        _, removed = finish_rotation(self.engine, self.home)
        if removed:
            with self._write() as conn:
                self._audit(
                    conn,
                    "operator",
                    "key.leftovers_removed",
                    "key",
                    ",".join(f"kek-v{v}" for v in removed),
                )
        return removed

    def key_status(self) -> dict[str, object]:
        return key_info(self.engine, self.home)

    def optimize(self) -> None:
        """Refresh planner statistics; the daemon runs this as a daily sweep."""
        optimize(self.engine)

    def change_signal(self) -> ChangeSignal:
        """A cheap change detector for live views (the inspector polls it)."""
        return ChangeSignal(self.path)

    def status(self) -> StoreStatus:
        reader = self.reader_for(None, all_scopes=True)
        with self._read() as conn:
            files = conn.execute(sa.select(sa.func.count()).select_from(CKPT)).scalar_one()
            last = conn.execute(sa.select(sa.func.max(CKPT.c.updated_at))).scalar()
        return StoreStatus(
            schema_version=current_version(self.engine),
            key_provider=self.key_provider,
            counts=self.queue_counts(reader),
            memory_counts=self.count_memories(reader),
            files_tracked=int(files),
            last_ingest_at=last,
            sweeps={k: v.isoformat() for k, v in self.sweep_runs().items()},
        )

    def close(self) -> None:
        self.engine.dispose()


def open_store(
    home: Path | None = None,
    *,
    schema: str = "create",
    clock: Clock = utcnow,
    new_id: Callable[[str], str] = random_id,
    user: str | None = None,
    cipher: FieldCipher | None = None,
    create: bool | None = None,
) -> Store:
    """Open (or create) the store under MEMVET_HOME.

    schema: "create" (default: an empty database is migrated, an older one is refused with
    exit 3), "upgrade" (the daemon and `memvet migrate`), "never" (the inspector: check only).
    create: make a new store when there is none (default: unless schema is "never"); reading
    commands pass False and get NoStoreError, with nothing written, not even the folder.
    cipher: only the encrypted-versus-plaintext benchmark passes one.
    """
    home = Path(home) if home is not None else memvet_home()
    path = home / "memvet.db"
    create = schema != "never" if create is None else create
    if not create and not path.is_file():
        raise no_store_error(path)
    ensure_private_dir(home)
    if path.is_file() and path.stat().st_size == 0 and any((home / "keys").glob("kek-v*")):
        # Its key is there, so a store was: the file lost its contents. Touch nothing.
        raise damaged_store_error(path, "the file is empty, yet its key exists")
    engine = create_store_engine(path)
    try:
        version = current_version(engine)
        if version == 0 and not create:
            raise no_store_error(path)  # an empty file an older memvet left: not a store
        existing = None
        if version > 0 and cipher is None:
            # A wrong or missing key stops before any write; keyed migrations need the cipher.
            existing, _ = load_cipher(engine, home, clock())
        ensure_schema(engine, mode=schema, cipher=cipher or existing)
        provider_name = "benchmark"
        if cipher is None:
            cipher, provider = load_cipher(engine, home, clock())
            provider_name = provider.name
    except BaseException:
        engine.dispose()
        raise
    store = Store(
        engine,
        cipher,
        user=user or getpass.getuser(),
        key_provider=provider_name,
        clock=clock,
        new_id=new_id,
    )
    store.home, store.path = home, path
    return store
