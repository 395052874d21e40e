"""A proxy's ``Retry-After`` of hundreds or thousands of digits: ``connect`` read it as
a whole number and then met Python's limits — ``float()`` of 400 digits overflows
where the wait is capped, ``int()`` of 5,000 digits is refused — a traceback. A number
longer than the longest wait is read as that (the caller caps it at 60 s)."""

from __future__ import annotations

import pytest

from rollbridge.cli.reconnect import asked_wait
from rollbridge.cli.retry_after import LONGEST, retry_after_seconds


@pytest.mark.parametrize("digits", [10, 400, 5000])
def test_a_very_long_retry_after_is_the_longest_wait(digits):
    wait = retry_after_seconds({"Retry-After": "9" * digits})
    assert wait == LONGEST
    assert min(float(wait), 60.0) == 60.0  # as the reconnect loop caps it


def test_a_short_one_is_as_given():
    assert retry_after_seconds({"Retry-After": "20"}) == 20
    assert retry_after_seconds({"Retry-After": "999999999"}) == 999_999_999


@pytest.mark.parametrize(
    ("asked", "waited"),
    [(10**400, 60.0), (float("inf"), 60.0), (float("nan"), 0.0), (-3, 0.0), (True, 0.0),
     ("20", 0.0), (None, 0.0), (0, 0.0), (2.5, 2.5), (61, 60.0)],
)  # fmt: skip
def test_a_servers_retry_after_is_waited_capped_whatever_it_is(asked, waited):
    """A refused hello's ``retry_after`` comes from the server's JSON, where a whole
    number of 400 digits is no float (``float()`` of it raised: a traceback)."""
    assert asked_wait(asked) == waited
