"""The TR39 skeleton table ships as data (assets/canonical/skeleton.json), derived from the
`confusable-homoglyphs` package: a content key costs no parse of the package's 17k-entry map in
every writing process, and keys do not move when that package is upgraded."""

from __future__ import annotations

import subprocess
import sys

from memvet.store import canonical


def test_the_shipped_table_is_the_one_derived_from_the_tr39_data():
    # Upgrading confusable-homoglyphs fails here: a changed table changes content keys, so it
    # needs `python -m memvet.store.canonical` and a key migration (as m004 did for norm2).
    shipped = canonical._skeleton_table()
    derived = canonical.derive_skeleton_table()
    assert len(shipped) > 6000
    assert shipped == derived


def test_confusables_read_the_same_through_the_shipped_table():
    assert canonical.norm2("раураl") == canonical.norm2("paypal")  # Cyrillic р, а, у
    assert canonical.norm2("«Use рnpm.»") == canonical.norm2("use pnpm")
    assert canonical.norm2("use pnpm") != canonical.norm2("use npm")


def test_a_canonical_form_does_not_load_the_confusables_package():
    probe = (
        "import sys; from memvet.store.canonical import norm2; norm2('Cyrillic о'); "
        "print(sorted(m for m in sys.modules if m.startswith('confusable')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"
