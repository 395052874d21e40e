"""The request buckets (``rollbridge.protocol.limits``) and the ``retry_after`` they
tell a refused client (docs/protocol.md, "Limits": "send it again after
``details.retry_after`` s"): waiting exactly that long lets the request in, and a
refused request takes nothing from the bucket."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from rollbridge.protocol.connection import _rate_limited
from rollbridge.protocol.limits import RateLimit


class Clock:
    """Seconds that move only when the test says."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


RATES = [0.3, 0.7, 1.0, 2.5, 3.3, 5.0, 7.0, 20.0, 50.0, 333.0]


@pytest.mark.parametrize("rate", RATES)
@pytest.mark.parametrize("cost", [1.0, 5.0])
def test_waiting_the_told_retry_after_lets_the_request_in(rate, cost):
    clock = Clock()
    bucket = RateLimit(rate, max(1.0, 2 * rate), clock)
    cost = min(cost, bucket.burst)
    refusals = 0
    for _ in range(int(bucket.burst / cost) + 20):  # drained, then each retry after its hint
        wait = bucket.take(cost)
        if wait is None:
            continue
        refusals += 1
        hint = _rate_limited(wait, "connection").details["retry_after"]
        assert hint >= wait - 1e-9  # rounded up, never down (but for float noise)
        clock.now += hint
        assert bucket.take(cost) is None, (rate, cost, wait, hint)
    assert refusals > 0


def test_a_refused_take_takes_nothing_and_a_give_back_never_passes_the_burst():
    clock = Clock()
    bucket = RateLimit(2.0, 4.0, clock)
    assert bucket.take(3) is None  # 1 left
    assert bucket.take(2) == pytest.approx(0.5)  # refused: still 1
    assert bucket.take(1) is None  # 0 left
    bucket.give_back(1)
    assert bucket.take(1) is None
    bucket.give_back(100)
    assert bucket.take(4) is None and bucket.take(0.5) is not None


def test_a_charge_for_work_done_may_leave_the_bucket_below_empty_down_to_its_burst():
    clock = Clock()
    bucket = RateLimit(2.0, 4.0, clock)
    bucket.charge(6)  # 4 held: 2 below empty
    assert bucket.take(1) == pytest.approx(1.5)  # 3 to gain at 2 a second
    bucket.charge(100)  # never more than a burst below empty
    assert bucket.take(1) == pytest.approx(2.5)
    clock.now += 2.5
    assert bucket.take(1) is None


def joined_connection(per_connection: float, clock: Clock):
    """A sans-I/O connection past its hello, at a stand-in table that serves every
    request it is handed (``["served"]``): only the rate limits are under test."""
    import json
    import types

    from rollbridge.protocol.connection import Connection, Tables
    from rollbridge.protocol.limits import Rates

    tables = Tables({}, rates=Rates(per_connection=per_connection, clock=clock))
    connection = Connection(tables, {})
    connection.table = types.SimpleNamespace(id="t", receive=lambda *a, **k: ["served"])
    connection.member = types.SimpleNamespace(  # a member's fields the frame path reads
        adapter=None, principal=None, locale="en", encode=json.dumps, refused=False
    )

    def send(kind: str):
        out = connection.receive(json.dumps({"type": kind, "id": "x"}))
        return "served" if out == ["served"] else out[0].message

    return send


@pytest.mark.parametrize("rate", [2.0, 5.0, 20.0])
def test_a_costly_request_refused_on_its_frame_s_token_waits_for_its_whole_cost(rate):
    """Drained by cheap requests, the bucket cannot give even the frame's token: the
    wait told an odds request is still the wait for all five."""
    clock = Clock()
    send = joined_connection(rate, clock)
    while send("state") == "served":
        pass
    for _ in range(3):
        refused = send("odds")
        assert refused["code"] == "rate_limited"
        clock.now += refused["details"]["retry_after"]
        assert send("odds") == "served"


def timed_connection(work: dict[str, Callable[[], None]]):
    """A sans-I/O connection past its hello at 20 requests a second (bursts of 40),
    on the real clocks, at a stand-in table whose handling of a request type runs
    ``work[type]`` (nothing for others); ``send`` answers whether it was served."""
    import json
    import types

    from rollbridge.protocol.connection import Connection, Tables
    from rollbridge.protocol.limits import Rates

    tables = Tables({}, rates=Rates(per_connection=20.0))
    connection = Connection(tables, {})

    def receive(message, *args, **kwargs):
        work.get(message["type"], lambda: None)()
        return ["served"]

    connection.table = types.SimpleNamespace(id="t", receive=receive)
    connection.member = types.SimpleNamespace(  # a member's fields the frame path reads
        adapter=None, principal=None, locale="en", encode=json.dumps, refused=False
    )

    def send(kind: str) -> bool:
        return connection.receive(json.dumps({"type": kind, "id": "x"})) == ["served"]

    return send


def served_in_a_row(send: Callable[[str], bool]) -> int:
    count = 0
    while send("roll"):
        count += 1
    return count


def test_time_a_request_spends_off_the_cpu_is_not_charged_to_the_rates():
    """The charge for a slow request was timed on the wall clock: a request whose
    thread waited 60 ms (the machine busy with other processes, or the interpreter
    with the commit writer's thread) took 11 more requests from its connection's 40
    — an honest client got ``rate_limited``. Only the CPU time of its own thread
    counts."""
    send = timed_connection({"state": lambda: time.sleep(0.06)})
    assert send("state")
    assert served_in_a_row(send) >= 38  # 39 left, and what 20/s refills meanwhile


def busy_for(seconds: float) -> Callable[[], None]:
    def work() -> None:
        until = time.thread_time() + seconds
        while time.thread_time() < until:
            pass

    return work


def test_a_costly_request_is_charged_only_for_cpu_time_past_what_its_cost_paid():
    """An ``odds`` request pays five requests for its tens of milliseconds; 20 ms of
    CPU is within those five shares and takes nothing more (it took three more, paid
    twice). 60 ms of a plain request is still charged: eleven more."""
    send = timed_connection({"odds": busy_for(0.02), "state": busy_for(0.06)})
    assert send("odds")
    assert served_in_a_row(send) >= 34  # 35 left
    send = timed_connection({"odds": busy_for(0.02), "state": busy_for(0.06)})
    assert send("state")
    assert served_in_a_row(send) <= 31  # 39 left, 11 charged (1.2 refilled meanwhile)


def rated_connection(kind: str = "roll") -> tuple[Any, Any, Callable[[], bool]]:
    """A sans-I/O connection past its hello at 20 requests a second (bursts of 40),
    its table at 50 (bursts of 100), on a clock that never moves (nothing refills),
    at a stand-in table that serves every request: the connection, the driver's
    tables, and ``send`` (a ``kind`` request: whether it was served)."""
    import json
    import types

    from rollbridge.protocol.connection import Connection, Tables
    from rollbridge.protocol.limits import Rates

    tables = Tables({}, rates=Rates(per_connection=20, per_table=50, clock=Clock()))
    connection = Connection(tables, {})
    connection.table = types.SimpleNamespace(id="t", receive=lambda *a, **k: ["served"])
    connection.member = types.SimpleNamespace(  # a member's fields the frame path reads
        adapter=None, principal=None, locale="en", encode=json.dumps, refused=False
    )

    def send() -> bool:
        return connection.receive(json.dumps({"type": kind, "id": "x"})) == ["served"]

    return connection, tables, send


def test_a_forwarded_change_s_time_on_the_owner_is_charged_to_its_connection_only():
    """Under ``serve --redis`` a change runs on the table's owner, which charges the
    table's rate for its time and sends the time back: the connection that sent the
    change is charged for it as if it had run here (one more request per 5 ms past
    the one it paid), the table's rate here not again."""
    connection, tables, send = rated_connection()
    assert send()  # 39 of the connection's 40 left, 99 of the table's 100
    connection.charge_forwarded(0.004)  # within the share the change paid: nothing
    connection.charge_forwarded(0.0)  # an owner that did not say: nothing
    connection.charge_forwarded(0.05)  # ten shares: nine more
    served = 0
    while send():
        served += 1
    assert served == 30
    left = 0
    while tables.table_wait("t") is None:
        left += 1
    assert left == 100 - 31  # one a request, no more
