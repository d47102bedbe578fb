"""The plain helpers behind the screens: text safety, times, the filter line, sort orders."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from memvet.inspector.filters import SORT_ORDERS, QuerySpec, parse_query, sort_for_column
from memvet.inspector.formatting import age, clean, clip_excerpt, one_line, parse_when
from memvet.inspector.jobs import attempt
from memvet.store import EXCERPT_LIMIT, ReservationHeldError

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def test_control_sequences_never_reach_the_terminal():
    assert clean("ok\x1b[31mred\x07\r") == "ok\ufffd[31mred\ufffd\ufffd"
    assert clean("two\nlines\tkept") == "two\nlines\tkept"


@pytest.mark.parametrize("length", [0, EXCERPT_LIMIT - 1, EXCERPT_LIMIT, EXCERPT_LIMIT + 1, 5000])
def test_excerpts_are_clipped_to_the_limit(length):
    clipped = clip_excerpt("x" * length)
    assert len(clipped) <= EXCERPT_LIMIT
    assert clipped.endswith("…") == (length > EXCERPT_LIMIT)


def test_one_line_flattens_and_cuts():
    assert one_line("a\n  b\tc", 4) == "a b…"
    assert one_line(None) == ""


@pytest.mark.parametrize(
    ("delta", "shown"),
    [
        (timedelta(seconds=5), "5s"),
        (timedelta(minutes=12), "12m"),
        (timedelta(hours=3), "3h"),
        (timedelta(days=2), "2d"),
        (timedelta(days=15), "2w"),
        (timedelta(days=800), "2y"),
        (timedelta(seconds=-30), "0s"),
    ],
)
def test_ages(delta, shown):
    assert age(NOW, NOW - delta) == shown


def test_times_for_as_of():
    assert parse_when("3d", NOW) == NOW - timedelta(days=3)
    assert parse_when("2h ago", NOW) == NOW - timedelta(hours=2)
    assert parse_when("2026-02-01", NOW) == datetime(2026, 2, 1, tzinfo=UTC)
    assert parse_when("2026-02-01T10:00Z", NOW) == datetime(2026, 2, 1, 10, tzinfo=UTC)
    with pytest.raises(ValueError, match="not a time"):
        parse_when("last tuesday", NOW)


def test_the_filter_line():
    spec = parse_query("host:codex kind:pref ws:/home/dana/src/app uv  here")
    assert spec == QuerySpec(("codex",), ("preference",), "/home/dana/src/app", False, "uv here")
    assert parse_query("ws:global").global_only
    assert parse_query(spec.describe()) == spec
    assert not parse_query("").active
    assert parse_query("note:this").text == "note:this"  # not a filter key: plain text
    for bad in ("kind:x", "kind:", "host:"):
        with pytest.raises(ValueError):
            parse_query(bad)


def test_sort_orders_from_headers():
    oldest, newest = SORT_ORDERS[0], SORT_ORDERS[1]
    assert sort_for_column("age", oldest) == newest
    assert sort_for_column("age", newest) == oldest
    confidence = sort_for_column("confidence", oldest)
    assert confidence.store_sort == "confidence" and confidence.newest_first
    reversed_ = sort_for_column("confidence", confidence)
    assert not reversed_.newest_first
    assert sort_for_column("confidence", reversed_) == confidence
    assert sort_for_column("statement", oldest) is None  # encrypted: not sortable in SQL


def test_attempt_turns_failures_into_outcomes():
    def held():
        raise ReservationHeldError("held", holder="cli pid 9", status="reserved")

    outcome = attempt(held)
    assert not outcome.ok and outcome.code == "reservation_held"
    assert (outcome.holder, outcome.status) == ("cli pid 9", "reserved")
    assert attempt(lambda: 1 / 0).code == "unexpected"
    assert attempt(lambda: 42).value == 42
