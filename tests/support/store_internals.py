"""The only way a test reaches inside a Store: its engine and its cipher.

No caller outside store/ may (they go through Store's methods: `store.log_tag(path)`,
`store.direct_source(conn, workspace)`, ...). A test does, to write a row as an attacker or an
older memvet would, to count SQL statements, or to read what is stored in the clear or not.
"""

from __future__ import annotations

from memvet.store import Store
from memvet.store.crypto import FieldCipher
from sqlalchemy import Engine


def engine_of(store: Store) -> Engine:
    return store.ctx.engine


def cipher_of(store: Store) -> FieldCipher:
    return store.ctx.cipher
