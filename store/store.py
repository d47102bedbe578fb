"""The Store: one object per process that every component uses, a facade over its parts.

Each part (queue, reservations, memories, the ledger's tombstones, checkpoints, slots, sweeps,
undo, review, import) is a class of its own module, built here with one StoreContext and the
other parts it calls; a transaction that spans parts passes its connection explicitly. The
facade's methods are one-line delegations, so `store.approve(...)` is the way in for every
caller outside store/. Its public methods return plain read models (records.py), never live
ORM objects."""

from __future__ import annotations

import getpass
import sqlite3
from collections.abc import Callable
from pathlib import Path

import sqlalchemy as sa
from memvet.store.admission import Admission
from memvet.store.bulk import BulkImport
from memvet.store.candidates import QueueReads
from memvet.store.checkpoints import CKPT, Checkpoints
from memvet.store.context import Clock, StoreContext, random_id, utcnow
from memvet.store.crypto import FieldCipher
from memvet.store.delegate import delegate
from memvet.store.engine import ChangeSignal, create_store_engine, damaged_store_error, optimize
from memvet.store.errors import no_store_error
from memvet.store.fast_read import DirectSource
from memvet.store.keyring_setup import finish_rotation, key_info, load_cipher, rotate_kek
from memvet.store.maintenance import Maintenance
from memvet.store.memories import Memories
from memvet.store.memory_creation import MemoryCreation
from memvet.store.memory_edit import MemoryEditor
from memvet.store.memory_lifecycle import MemoryLifecycle
from memvet.store.near_duplicates import NearDuplicates
from memvet.store.paths import ensure_private_dir, memvet_home
from memvet.store.records import StoreStatus
from memvet.store.rejection import Rejections
from memvet.store.reservation import Reservations
from memvet.store.review import Review
from memvet.store.rows import RowCodec
from memvet.store.schema import current_version, ensure_schema
from memvet.store.slot_decisions import Slots
from memvet.store.tombstones import Tombstones
from memvet.store.undo import Undo
from sqlalchemy import Engine


class Store:
    path: Path

    def __init__(
        self,
        engine: Engine,
        cipher: FieldCipher,
        *,
        user: str,
        key_provider: str,
        clock: Clock = utcnow,
        new_id: Callable[[str], str] = random_id,
    ) -> None:
        ctx = self.ctx = StoreContext(engine, cipher, user, key_provider, clock, new_id)
        rows = self.rows = RowCodec(ctx)
        # Built in the order they depend on one another: no part reaches another through self.
        self.checkpoints = Checkpoints(ctx)
        self.tombstones = Tombstones(ctx, rows)
        self.near = NearDuplicates(ctx, rows)
        self.lifecycle = MemoryLifecycle(ctx)
        self.slots = Slots(ctx, rows, self.lifecycle)
        self.memories = Memories(ctx, rows, self.lifecycle, self.slots, self.tombstones)
        self.maintenance = Maintenance(ctx, rows, self.memories, self.tombstones)
        self.queue = QueueReads(ctx, rows, self.tombstones, self.slots)
        self.admission = Admission(ctx, rows, self.tombstones, self.near, self.checkpoints)
        creation = MemoryCreation(ctx, rows, self.tombstones, self.slots, self.lifecycle)
        self.rejections = Rejections(ctx, rows, self.tombstones)
        self.reservations = Reservations(
            ctx, rows, self.queue, creation, self.slots, self.rejections, self.maintenance
        )
        self.undo = Undo(ctx, rows, self.lifecycle, self.slots, self.tombstones)
        self.edits = MemoryEditor(ctx, rows, self.lifecycle, self.slots, self.tombstones, self.undo)
        self.review = Review(ctx, rows, self.lifecycle, self.memories)
        self.bulk = BulkImport(ctx, rows, self.admission)

    # --- the shared context -------------------------------------------------------------------
    @property
    def home(self) -> Path:
        if self.ctx.home is None:  # a bare Store (tests, benchmarks): no home, no config
            raise AttributeError("home")
        return self.ctx.home

    @home.setter
    def home(self, value: Path) -> None:
        self.ctx.home = value

    @property
    def user(self) -> str:
        return self.ctx.user

    @property
    def key_provider(self) -> str:
        return self.ctx.key_provider

    def log_tag(self, path: str) -> str:
        """A keyed hash naming a file or folder in logs and stats without revealing its path
        (the daemon's file ids; `memvet status` names the shell's roots the same way)."""
        return self.ctx.cipher.log_tag(path)

    def direct_source(self, conn: sqlite3.Connection, workspace: str | None) -> DirectSource:
        """This user's memories of one scope straight from SQL on `conn`, the hook's fast path
        (the daemon's context server builds its cached packs from it)."""
        return DirectSource(conn, self.ctx.cipher, self.user, workspace)

    now = delegate("ctx", StoreContext.now)
    reader_for = delegate("ctx", StoreContext.reader_for)
    unreadable = delegate("ctx", StoreContext.unreadable)

    # store/ modules that are not parts (team/, learning, the term index, the redaction sweep)
    # open the same unit of work as the parts: `store.ctx.read()`, `store.ctx.write()`,
    # `store.ctx.audit(conn, ...)`, and decrypt with `store.rows.dec(...)`.

    # --- the queue: admission and reads -------------------------------------------------------
    admit = delegate("admission", Admission.admit)
    admit_many = delegate("admission", Admission.admit_many)
    ingest = delegate("admission", Admission.ingest)
    list_candidates = delegate("queue", QueueReads.page)
    count_candidates = delegate("queue", QueueReads.count)
    queue_counts = delegate("queue", QueueReads.counts)
    get_candidate = delegate("queue", QueueReads.get)
    get_candidate_record = delegate("queue", QueueReads.get)
    candidate_detail = delegate("queue", QueueReads.detail)
    conflicts_for = delegate("slots", Slots.conflicts_for)

    # --- decisions: the reservation protocol, undo, import ------------------------------------
    reserve = delegate("reservations", Reservations.reserve)
    commit = delegate("reservations", Reservations.commit)
    release = delegate("reservations", Reservations.release)
    approve = delegate("reservations", Reservations.approve)
    reject = delegate("rejections", Rejections.reject)
    undo_reject = delegate("rejections", Rejections.undo_reject)
    recover = delegate("reservations", Reservations.recover)
    undo_approval = delegate("undo", Undo.undo_approval)
    undo_retirement = delegate("undo", Undo.undo_retirement)
    import_memories = delegate("bulk", BulkImport.import_memories)
    import_batch = delegate("bulk", BulkImport.import_batch)

    # --- memories ------------------------------------------------------------------------------
    false_write = delegate("memories", Memories.false_write)
    forget = delegate("memories", Memories.forget)
    retire = delegate("memories", Memories.retire)
    dispute = delegate("memories", Memories.dispute)
    resolve_dispute = delegate("memories", Memories.resolve_dispute)
    restore = delegate("memories", Memories.restore)
    edit_memory = delegate("edits", MemoryEditor.edit)
    undo_edit = delegate("edits", MemoryEditor.undo)
    edit_conflicts = delegate("edits", MemoryEditor.conflicts)
    memory_versions = delegate("edits", MemoryEditor.versions)
    get_memory = delegate("memories", Memories.get)
    transitions = delegate("memories", Memories.transitions)
    list_memories = delegate("memories", Memories.find)
    count_memories = delegate("memories", Memories.count)
    confirm = delegate("review", Review.confirm)
    review_due = delegate("review", Review.review_due)

    # --- the ledger's tombstones; checkpoints -------------------------------------------------
    list_tombstones = delegate("tombstones", Tombstones.every)
    lift_tombstone = delegate("tombstones", Tombstones.lift)
    get_checkpoint = delegate("checkpoints", Checkpoints.get)
    all_checkpoints = delegate("checkpoints", Checkpoints.every)
    save_checkpoint = delegate("checkpoints", Checkpoints.save)
    forget_checkpoint = delegate("checkpoints", Checkpoints.forget)

    # --- sweeps and the audit ledger ----------------------------------------------------------
    mark_stale_leases = delegate("maintenance", Maintenance.mark_stale_leases)
    expire_candidates = delegate("maintenance", Maintenance.expire_candidates)
    retire_due_memories = delegate("maintenance", Maintenance.retire_due_memories)
    decay_confidence = delegate("maintenance", Maintenance.decay_confidence)
    verify_audit = delegate("maintenance", Maintenance.verify_audit)
    integrity_scan = delegate("maintenance", Maintenance.integrity_scan)
    audit_events = delegate("maintenance", Maintenance.audit_events)
    audit_events_after = delegate("maintenance", Maintenance.audit_events_after)
    audit_head = delegate("maintenance", Maintenance.audit_head)
    record_sweep = delegate("maintenance", Maintenance.record_sweep)
    sweep_runs = delegate("maintenance", Maintenance.sweep_runs)

    # --- keys and the file -----------------------------------------------------------------------
    def rotate_key(self) -> int:
        version, _ = rotate_kek(self.ctx.engine, self.home, self.ctx.now())
        with self.ctx.write() as conn:
            self.ctx.audit(conn, "operator", "key.rotated", "key", f"kek-v{version}")
        return version

    def finish_key_rotation(self) -> list[int]:
        """Remove the keys an interrupted rotation left behind (`key rotate --finish`)."""
        _, removed = finish_rotation(self.ctx.engine, self.home)
        if removed:
            with self.ctx.write() as conn:
                self.ctx.audit(
                    conn,
                    "operator",
                    "key.leftovers_removed",
                    "key",
                    ",".join(f"kek-v{v}" for v in removed),
                )
        return removed

    def key_status(self) -> dict[str, object]:
        return key_info(self.ctx.engine, self.home)

    def optimize(self) -> None:
        """Refresh planner statistics; the daemon runs this as a daily sweep."""
        optimize(self.ctx.engine)

    def change_signal(self) -> ChangeSignal:
        """A cheap change detector for live views (the inspector polls it)."""
        return ChangeSignal(self.path)

    def status(self) -> StoreStatus:
        reader = self.ctx.reader_for(None, all_scopes=True)
        with self.ctx.read() as conn:
            files = conn.execute(sa.select(sa.func.count()).select_from(CKPT)).scalar_one()
            last = conn.execute(sa.select(sa.func.max(CKPT.c.updated_at))).scalar()
        return StoreStatus(
            schema_version=current_version(self.ctx.engine),
            key_provider=self.key_provider,
            counts=self.queue.counts(reader),
            memory_counts=self.memories.count(reader),
            files_tracked=int(files),
            last_ingest_at=last,
            sweeps={k: v.isoformat() for k, v in self.maintenance.sweep_runs().items()},
        )

    def close(self) -> None:
        self.ctx.engine.dispose()


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
