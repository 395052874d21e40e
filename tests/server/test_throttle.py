"""Log lines a client can cause come at most once per interval, and the next one
says how many were held back (rollbridge.server.throttle). Over the admin API:
tests/server/test_server_admin.py; a full server: tests/hostile."""

from __future__ import annotations

from rollbridge.server.throttle import Throttle


def test_one_line_per_interval_and_the_count_of_those_held_back() -> None:
    now = [100.0]
    throttle = Throttle(10.0, clock=lambda: now[0])
    assert throttle.allow() == 0  # the first goes through
    assert [throttle.allow() for _ in range(5)] == [None] * 5
    now[0] += 9.9
    assert throttle.allow() is None
    now[0] += 0.1
    assert throttle.allow() == 6  # the six held back since
    assert throttle.allow() is None and throttle.held == 1
