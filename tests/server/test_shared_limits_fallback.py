""":class:`~rollbridge.server.shared_limits.Fallback`, on a clock the test moves:
after Redis failed to answer a shared limit, each process's own limits decide alone
for :data:`~rollbridge.server.shared_limits.RETRY_AFTER` seconds — nothing asked of
Redis then —, each such check counted by limit, the outage logged once and its end
once (docs/redis.md, "The per-address limits, shared")."""

from __future__ import annotations

import asyncio
import logging

import pytest

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
    assert lines[-1][0] == "INFO" and lines[-1][1].endswith("works again, after 2 failures")
    assert len(lines) == 3  # the TimeoutError, of another kind, is said at once


def test_after_a_failure_one_check_at_a_time_asks_redis_again():
    """A Redis that hangs (paused, its packets dropped) costs each check that asks it
    :data:`SHARED_TIMEOUT`: once the window after a failure is over, one check asks,
    and the others decide alone until it has its answer — before, every check that
    came meanwhile waited the whole second for a Redis that was gone (a paused
    redis-server: each request and connection of the second after each window)."""
    clock = Clock()
    counted: list[str] = []
    fallback = Fallback(counted.append, clock=clock)
    assert fallback.usable("http_rate") and fallback.usable("http_rate")  # all is well: all ask
    fallback.worked()
    fallback.failed("http_rate", TimeoutError())
    clock.now += RETRY_AFTER
    assert fallback.usable("http_rate")  # asks again ...
    assert not fallback.usable("http_rate")  # ... and the others do not wait for it
    assert not fallback.usable("per_address")
    assert counted == ["http_rate", "http_rate", "per_address"]
    fallback.failed("http_rate", TimeoutError())  # no answer: the next window
    assert not fallback.usable("per_address")
    clock.now += RETRY_AFTER
    assert fallback.usable("per_address")
    fallback.abandoned()  # that check's connection closed as it waited: another may ask
    assert fallback.usable("http_rate")
    assert not fallback.usable("http_rate")
    fallback.worked()  # Redis answers again: every check asks
    assert fallback.usable("http_rate") and fallback.usable("per_address")


async def test_a_check_cancelled_as_it_asks_lets_the_next_ask():
    """:meth:`Fallback.ask`: a probe cancelled as it waits (its client went away) does
    not leave every later check deciding alone for good."""
    clock = Clock()
    fallback = Fallback(lambda _limit: None, clock=clock)
    fallback.failed("per_address", ConnectionError("Connection refused"))
    clock.now += RETRY_AFTER
    started = asyncio.Event()

    async def hangs() -> None:
        started.set()
        await asyncio.Event().wait()

    probe = asyncio.create_task(fallback.ask("per_address", hangs))
    await started.wait()
    assert await fallback.ask("per_address", hangs) == (False, None)  # decided alone
    probe.cancel()
    with pytest.raises(asyncio.CancelledError):
        await probe

    async def answers() -> int:
        return 7

    assert await fallback.ask("per_address", answers) == (True, 7)


async def test_a_check_cancelled_that_was_not_the_probe_leaves_the_probe_alone():
    """A check that began while Redis answered and is cancelled while, after a
    failure, another asks again: that other is still the one asking."""
    clock = Clock()
    fallback = Fallback(lambda _limit: None, clock=clock)
    waiting = asyncio.Event()

    async def hangs() -> None:
        await waiting.wait()

    async def answers() -> int:
        return 7

    early = asyncio.create_task(fallback.ask("http_rate", hangs))  # Redis well: not a probe
    await asyncio.sleep(0)
    fallback.failed("per_address", ConnectionError("Connection refused"))  # another's failure
    clock.now += RETRY_AFTER
    probe = asyncio.create_task(fallback.ask("per_address", hangs))
    await asyncio.sleep(0)
    early.cancel()
    with pytest.raises(asyncio.CancelledError):
        await early
    assert await fallback.ask("http_rate", answers) == (False, None)  # the probe still asks
    waiting.set()
    assert await probe == (True, None)
    assert await fallback.ask("http_rate", answers) == (True, 7)
