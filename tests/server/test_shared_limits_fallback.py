""":class:`~rollbridge.server.shared_limits.Fallback`, on a clock the test moves:
after Redis failed to answer a shared limit, each process's own limits decide alone
for :data:`~rollbridge.server.shared_limits.RETRY_AFTER` seconds — nothing asked of
Redis then —, each such check counted by limit, the outage logged once and its end
once (docs/redis.md, "The per-address limits, shared")."""

from __future__ import annotations

import logging

from rollbridge.server.shared_limits import RETRY_AFTER, Fallback


class Clock:
    """Seconds that move only when the test says."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_failure_leaves_the_process_alone_for_a_while_and_counts_each_check(caplog):
    clock = Clock()
    counted: list[str] = []
    fallback = Fallback(counted.append, clock=clock)
    assert fallback.usable("per_address") and counted == []
    with caplog.at_level(logging.INFO, logger="rollbridge.cluster"):
        fallback.failed("per_address", ConnectionError("Connection refused"))
        assert counted == ["per_address"]
        clock.now += RETRY_AFTER / 2
        assert not fallback.usable("http_rate")  # not asked: decided here alone
        assert not fallback.usable("per_address")
        assert counted == ["per_address", "http_rate", "per_address"]
        fallback.failed("http_rate", TimeoutError())  # a second failure: no second line
        clock.now += RETRY_AFTER
        assert fallback.usable("http_rate")
        fallback.worked()
        fallback.worked()
    assert counted == ["per_address", "http_rate", "per_address", "http_rate"]
    lines = [(r.levelname, r.getMessage()) for r in caplog.records]
    assert lines[0] == (
        "WARNING",
        "the per-address limits shared in Redis (each process's own limits decide alone "
        "meanwhile): Connection refused",
    )
    assert lines[-1][0] == "INFO" and lines[-1][1].endswith("works again, after 2 failure(s)")
    assert len(lines) == 3  # the TimeoutError, of another kind, is said at once
