"""The log of an outage of the store, on a clock the test moves (the real faults
under a running server are tests/server/test_storage_faults.py): one ERROR when it
begins, one a minute while it lasts, one WARNING when it ends; a loop's failures
the same way (throttle.Retried)."""

from __future__ import annotations

import logging

from rollbridge.exceptions import StoreUnavailable
from rollbridge.server.store_health import StoreHealth
from rollbridge.server.throttle import Retried


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def full() -> StoreUnavailable:
    return StoreUnavailable("the disk is full", details={"reason": "disk_full"})


def messages(caplog) -> list[tuple[str, str]]:
    return [(r.levelname, r.getMessage()) for r in caplog.records]


def test_an_outage_is_said_when_it_begins_once_a_minute_and_when_it_ends(caplog):
    caplog.set_level(logging.DEBUG, "rollbridge.writer")
    clock = Clock()
    health = StoreHealth(clock=clock)
    health.succeeded()  # the store works: nothing to say
    for _ in range(100):
        health.failed(full(), 2)
        clock.now += 0.1
    health.also_refused(3)
    assert [level for level, _ in messages(caplog)] == ["ERROR"]
    assert "the disk is full" in messages(caplog)[0][1]
    clock.now += 60
    health.failed(full())
    assert messages(caplog)[-1] == (
        "ERROR", "the store still fails, for 70 s now (204 requests refused): the disk is full"
    )  # fmt: skip
    health.succeeded()
    health.succeeded()
    assert messages(caplog)[-1][0] == "WARNING" and len(caplog.records) == 3
    assert "after 70 s: 204 requests were refused" in messages(caplog)[-1][1]
    health.also_refused(5)  # the store works: not counted for the next outage
    health.failed(full())
    assert messages(caplog)[-1][0] == "ERROR" and health.refused == 1


def test_another_cause_is_said_at_once(caplog):
    caplog.set_level(logging.DEBUG, "rollbridge.writer")
    health = StoreHealth(clock=Clock())
    health.failed(full())
    health.failed(StoreUnavailable("locked", details={"reason": "locked"}))
    health.failed(StoreUnavailable("locked", details={"reason": "locked"}))
    assert [message for _, message in messages(caplog)][1].startswith("the store fails: locked")
    assert len(caplog.records) == 2


def test_a_loop_failing_again_and_again_is_said_once_a_minute(caplog):
    caplog.set_level(logging.DEBUG, "test.loop")
    clock = Clock()
    loop = Retried(logging.getLogger("test.loop"), "reading the inbox", clock=clock)
    loop.worked()
    for _ in range(50):  # five a second for ten seconds
        loop.failed(ConnectionError("refused"))
        clock.now += 0.2
    clock.now += 50
    loop.failed(ConnectionError("refused"))
    loop.worked()
    loop.failed(ConnectionError("again"))
    assert messages(caplog) == [
        ("WARNING", "reading the inbox: refused"),
        ("WARNING", "reading the inbox: still failing (51 times since it began): refused"),
        ("INFO", "reading the inbox works again, after 51 failures"),
        ("WARNING", "reading the inbox: again"),  # a new outage: said at once
    ]


def test_an_outage_of_reads_alone_ends_when_a_read_works(caplog):
    """Players joined while Redis was down, and nobody changed anything since: the
    first read that works ends it (a commit may never come at an idle table). An
    outage in which a commit failed is ended by a commit only: reads work on a full
    disk."""
    caplog.set_level(logging.DEBUG, "rollbridge.writer")
    health = StoreHealth(clock=Clock())
    health.failed(full(), commit=False)
    health.read()
    assert health.failing is None
    assert [level for level, _ in messages(caplog)] == ["ERROR", "WARNING"]
    health.failed(full(), commit=False)
    health.failed(full())  # a commit failed too
    health.read()
    assert health.failing is not None
    health.succeeded()
    assert health.failing is None
    health.failed(full())  # a new outage: a commit's
    health.failed(full(), commit=False)
    health.read()
    assert health.failing is not None


def test_a_loop_failing_another_way_says_so_at_once(caplog):
    """Redis comes back but refuses the password: that is not held back for a minute
    behind the 'connection refused' that began the outage."""
    caplog.set_level(logging.DEBUG, "x")
    clock = Clock()
    retried = Retried(logging.getLogger("x"), "reading the inbox", clock=clock)
    retried.failed(ConnectionError("Connection refused"))
    clock.now += 5
    retried.failed(ConnectionError("Connection refused"))  # held back
    clock.now += 5
    retried.failed(PermissionError("WRONGPASS invalid username-password pair"))
    clock.now += 5
    retried.failed(PermissionError("WRONGPASS invalid username-password pair"))  # held
    said = [message for _, message in messages(caplog)]
    assert len(said) == 2, said
    assert "WRONGPASS" in said[1], said
