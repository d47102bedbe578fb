"""Typed errors of the store. Each carries a stable code and the CLI exit code it maps to."""

from __future__ import annotations


class MemvetError(Exception):
    """Base of every error memvet reports to a person. `code` is stable; `exit_code` per interfaces.md."""

    code = "error"
    exit_code = 1

    def __init__(self, message: str, *, code: str | None = None, **details: object) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        self.details = details

    def to_json(self) -> dict[str, object]:
        return {"error": {"code": self.code, "message": self.message, **self._plain_details()}}

    def _plain_details(self) -> dict[str, object]:
        return {
            k: v
            for k, v in self.details.items()
            if isinstance(v, (str, int, float, bool, type(None)))
        }


class UsageError(MemvetError):
    code = "usage"
    exit_code = 2


class StoreUnavailableError(MemvetError):
    """The store cannot be opened: key missing or wrong, keyring locked, schema mismatch (exit 3)."""

    code = "store_unavailable"
    exit_code = 3


class KeyMissingError(StoreUnavailableError):
    code = "key_missing"


class KeyWrongError(StoreUnavailableError):
    code = "key_wrong"


class KeyringLockedError(StoreUnavailableError):
    code = "keyring_locked"


class SchemaMismatchError(StoreUnavailableError):
    code = "schema_mismatch"


class NoStoreError(SchemaMismatchError):
    """There is no store yet (no file, or an empty one). A schema mismatch at its extreme
    (version 0), so callers that wait for a daemon to create or upgrade the store wait for this."""

    code = "no_store"


def no_store_error(path: object) -> NoStoreError:
    return NoStoreError(
        f"no store yet at {path} — try `memvet demo`, or run `memvet up` once you have sessions",
        found=0,
        path=str(path),
    )


class StoreBusyError(StoreUnavailableError):
    """Another process held the store's write lock beyond the busy timeout; `holder_pid` says
    which, when the OS could tell."""

    code = "store_busy"


class StoreDamagedError(StoreUnavailableError):
    """memvet.db is not a readable SQLite database any more (corrupted or truncated)."""

    code = "store_damaged"


class IntegrityError(StoreUnavailableError):
    """A ciphertext failed authentication: tampered, moved to another row, or a wrong key."""

    code = "integrity"


class NotFoundError(MemvetError):
    code = "not_found"


class IllegalTransitionError(MemvetError):
    code = "illegal_transition"


class ReservationHeldError(MemvetError):
    """Someone else holds the candidate, or it was already decided. `holder` says who."""

    code = "reservation_held"


class AlreadyDecidedError(MemvetError):
    code = "already_decided"


class LeaseMismatchError(MemvetError):
    code = "lease_mismatch"


class TombstonedError(MemvetError):
    code = "tombstoned"


class DuplicateError(MemvetError):
    code = "duplicate"


class ConflictError(MemvetError):
    """An approval that would leave two answers in one slot without the operator's choice
    (supersede, keep both, dispute); `memories` names the rivals."""

    code = "conflict"
