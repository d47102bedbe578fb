"""vocabulary.py's StrEnums are built from vocabulary_values.py's plain classes, which the
no-daemon hook reads without enum machinery (issue 15): each enum has exactly its plain class's
members, with the same values, so the two can never name a word differently."""

from __future__ import annotations

from enum import StrEnum

from memvet.store import vocabulary, vocabulary_values


def _plain_members(namespace: type) -> dict[str, str]:
    return {k: v for k, v in vars(namespace).items() if not k.startswith("_")}


def test_each_enum_has_exactly_its_plain_classs_members():
    enums = {
        n: e
        for n, e in vars(vocabulary).items()
        if isinstance(e, type) and issubclass(e, StrEnum) and e is not StrEnum
    }
    plain = {n: c for n, c in vars(vocabulary_values).items() if isinstance(c, type)}
    assert set(enums) == set(plain) and len(enums) >= 9
    for name, enum in enums.items():
        assert {m.name: m.value for m in enum} == _plain_members(plain[name]), name


def test_the_plain_words_are_plain_strings_equal_to_the_members():
    assert type(vocabulary_values.MemoryStatus.ACTIVE) is str
    assert vocabulary_values.MemoryStatus.ACTIVE == vocabulary.MemoryStatus.ACTIVE
    assert vocabulary.LIVE_STATUSES == vocabulary_values.LIVE_STATUSES
    assert all(isinstance(s, vocabulary.MemoryStatus) for s in vocabulary.LIVE_STATUSES)
