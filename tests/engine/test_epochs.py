"""The record of which epochs a table's history ran through (rollbridge.engine.epochs,
docs/protocol.md "Which epochs the table's history ran through"): built from the
retained log where the table has none, carried on where it has one, bounded, and a
damaged one read as none."""

from __future__ import annotations

import pytest

from rollbridge.engine.epochs import MOST, from_log, moved, shown


def test_the_log_tells_each_run_of_an_epoch_and_where_it_went_on_from():
    rows = [(1, 3, 1), (4, 4, 1), (5, 9, 7), (10, 10, 9)]
    assert from_log(rows) == [[1, 0], [7, 4], [9, 9]]


def test_a_log_cut_at_its_start_does_not_know_the_first_epochs_start():
    assert from_log([(40, 45, 1), (46, 50, 7)]) == [[1, None], [7, 45]]


def test_a_move_carries_the_record_on_or_reads_the_log():
    record = [[1, 0], [7, 4]]
    assert moved(record, [], 7, 12, 20) == [[1, 0], [7, 4], [20, 12]]
    # a record of another epoch (a fence moved the table since): the log tells
    assert moved([[1, 0], [3, 2]], [(1, 4, 1), (5, 6, 7)], 7, 6, 20) == [
        [1, 0], [7, 4], [20, 6]]  # fmt: skip
    # no event of the epoch in a log that reaches the table's seq: it went on from that
    # seq and wrote nothing (before, its start was "not known": a null `from` after the
    # first entry, which docs/protocol.md does not allow and the Foundry module's
    # epochRecord refuses, guessing instead); an empty log: not known, the first entry
    assert moved(None, [(1, 4, 1)], 7, 4, 20) == [[1, 0], [7, 4], [20, 4]]
    assert moved(None, [], 7, 0, 20) == [[7, None], [20, 0]]


def test_the_record_is_bounded_and_forgets_what_went_before_its_oldest():
    record = [[e, e * 10] for e in range(1, MOST + 1)]
    after = moved(record, [], MOST, MOST * 10 + 5, 1000)
    assert len(after) == MOST and after[0] == [2, None] and after[-1] == [1000, MOST * 10 + 5]


@pytest.mark.parametrize(
    "record",
    [None, [], "x", [[1]], [[1, 2, 3]], [["1", 0]], [[1, "0"]], [[True, 0]], [[1, 0.5]], {"a": 1}],
)
def test_a_damaged_record_is_no_record(record):
    assert shown(record, 1) is None
    assert moved(record, [(1, 2, 1)], 1, 2, 5) == [[1, 0], [5, 2]]


def test_a_welcome_shows_the_record_of_the_tables_epoch_only():
    assert shown([[1, 0], [5, 3]], 5) == [{"epoch": 1, "from": 0}, {"epoch": 5, "from": 3}]
    assert shown([[1, 0], [5, 3]], 6) is None  # moved since (a Redis fence)
