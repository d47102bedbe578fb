"""`memvet key status` and `memvet key rotate [--finish]`: which provider holds the store's key,
leftovers of an interrupted rotation, and re-wrapping the data key. Kept apart from
cli_handlers.py; imported only when a key command runs."""

from __future__ import annotations

import argparse
from datetime import datetime

from memvet.store.cli_handlers import _open
from memvet.store.console import emit
from memvet.store.records import iso


def key_status(args: argparse.Namespace) -> int:
    store = _open()
    info = {k: (iso(v) if isinstance(v, datetime) else v) for k, v in store.key_status().items()}
    warning = None
    if info.get("provider") == "file":
        warning = (
            "the key is in a file: anyone who can read your files can read the store; "
            "keep MEMVET_HOME out of backups you share, or use a desktop keyring"
        )
    info["warning"] = warning

    def human() -> None:
        print(f"provider: {info['provider']} — {info.get('where')}")
        print(f"key-encryption key version {info['kek_version']}, data key {info.get('dek_id')}")
        if warning:
            print(f"warning: {warning}")
        leftover = info.get("leftover_versions")
        if isinstance(leftover, list) and leftover:
            print(
                "leftover: key-encryption key version(s) "
                f"{', '.join(f'v{v}' for v in leftover)} from an interrupted "
                "rotation; `memvet key rotate --finish` removes them"
            )

    emit(args, info, human)
    return 0


def key_rotate(args: argparse.Namespace) -> int:
    store = _open()
    if args.finish:
        removed = store.finish_key_rotation()
        listed = ", ".join(f"v{v}" for v in removed)
        emit(
            args,
            {"finished": True, "removed_versions": removed},
            lambda: print(
                f"removed leftover key version(s) {listed}"
                if removed
                else "nothing to finish: no leftover keys"
            ),
        )
        return 0
    version = store.rotate_key()
    emit(
        args,
        {"kek_version": version, "rotated": True},
        lambda: print(f"rotated: the data key is now wrapped by key-encryption key v{version}"),
    )
    return 0
