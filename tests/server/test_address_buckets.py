"""The per-address buckets (``rollbridge.protocol.limits``: :class:`Buckets`, the
throttle of wrong tokens :class:`WrongTokens`) on a clock the test moves: what an
address may present, when it may again, and a memory that a flood of addresses
cannot grow (docs/operations.md, "Limits")."""

from __future__ import annotations

import asyncio

from rollbridge.protocol.limits import CHECKING_WAIT, Buckets, TokenRefusal, WrongTokens
from rollbridge.server.token_places import WaitingWrongTokens
from tests.server.test_rate_limits import Clock


def test_buckets_keep_the_addresses_used_last_and_no_more():
    clock = Clock()
    buckets = Buckets(1.0, 2.0, most=100, clock=clock)
    assert buckets.take("198.51.100.1") is None
    assert buckets.take("198.51.100.1") is None
    assert buckets.take("198.51.100.1") is not None  # drained
    for n in range(5000):  # a flood of addresses
        buckets.take(f"2001:db8:{n:x}::/64")
        if n == 50:  # the drained address is used again meanwhile: it is kept
            assert buckets.take("198.51.100.1") is not None
    assert len(buckets) == 100
    # used longer ago than the last 100: forgotten, and its next request finds a full bucket
    assert buckets.take("198.51.100.1") is None


def test_an_address_may_present_so_many_wrong_tokens_in_the_window_then_waits():
    clock = Clock()
    refused: list[tuple[str, float]] = []
    guard = WrongTokens(3, 30.0, clock=clock, refused=lambda a, w: refused.append((a, w)))
    for _ in range(3):  # three wrong ones at once
        assert guard.present("203.0.113.7") is None
    for _ in range(3):
        guard.wrong("203.0.113.7")
    assert guard.present("203.0.113.7") == TokenRefusal(10.0)  # one more every 30 s / 3
    assert guard.present("203.0.113.8") is None  # another address: not held up
    assert refused == [("203.0.113.7", TokenRefusal(10.0))]
    clock.now += 10.0
    assert guard.present("203.0.113.7") is None
    guard.wrong("203.0.113.7")
    assert guard.present("203.0.113.7") is not None
    assert guard.checking == {"203.0.113.8": 1}


def test_a_right_token_costs_nothing_and_pays_back_no_wrong_one():
    clock = Clock()
    guard = WrongTokens(3, 30.0, clock=clock)
    for _ in range(2):
        assert guard.present("203.0.113.7") is None  # wrong: kept
        guard.wrong("203.0.113.7")
    for _ in range(50):  # right ones, as many as it likes
        assert guard.present("203.0.113.7") is None
        guard.right("203.0.113.7")
    assert guard.present("203.0.113.7") is None  # the third wrong one
    guard.wrong("203.0.113.7")
    refused = guard.present("203.0.113.7")  # a right one is refused too now
    assert refused == TokenRefusal(10.0) and not refused.checking
    clock.now += 10.0  # one more every 30 s / 3
    assert guard.present("203.0.113.7") is None


def test_an_address_not_counted_is_never_refused():
    guard = WrongTokens(1, 30.0, clock=Clock())
    for _ in range(10):
        assert guard.present(None) is None
        guard.right(None)
    assert len(guard.buckets) == 0


def test_the_wrong_token_throttle_tracks_at_most_its_most_addresses():
    clock = Clock()
    guard = WrongTokens(2, 600.0, most=1000, clock=clock)
    for n in range(20_000):
        guard.present(f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}")
    assert len(guard.buckets) == 1000


def test_more_tokens_at_once_than_allowed_wait_a_moment_not_the_window():
    """Found by review: right tokens presented at once from one address past its
    allowance (a group of 18 behind one router joining after a restart) were refused
    as "too many wrong tokens came from this address", to wait the window's minute,
    though none was wrong: each held its place while it was looked up. They are told
    that tokens of the address are being checked, and to wait a moment."""
    clock = Clock()
    guard = WrongTokens(3, 30.0, clock=clock)
    for _ in range(3):
        assert guard.present("203.0.113.7") is None  # being checked
    refused = guard.present("203.0.113.7")
    assert refused == TokenRefusal(CHECKING_WAIT, checking=True)
    for _ in range(3):  # all right
        guard.right("203.0.113.7")
    for _ in range(3):
        assert guard.present("203.0.113.7") is None
    # one of them wrong, two right: the wait of the wrong ones is told once none
    # being checked could give a place back
    guard.wrong("203.0.113.7")
    guard.right("203.0.113.7")
    assert guard.present("203.0.113.7") is None
    refused = guard.present("203.0.113.7")
    assert refused is not None and refused.checking  # two being checked
    guard.wrong("203.0.113.7")
    guard.wrong("203.0.113.7")
    refused = guard.present("203.0.113.7")
    assert refused is not None and not refused.checking and refused.wait == 10.0
    assert guard.checking == {}


async def test_an_http_token_waits_for_its_addresss_checks_instead_of_being_refused():
    """Over HTTP (:class:`WaitingWrongTokens`) a token refused only for the places its
    address's tokens being checked hold waits for one of them: a right one gives
    its place back and the token goes on; once they are all known wrong, it is
    refused for the window's wait, told once."""
    refused: list[TokenRefusal] = []
    guard = WaitingWrongTokens(2, 20.0, clock=Clock(), refused=lambda a, r: refused.append(r))
    for _ in range(2):
        assert guard.present("203.0.113.7") is None  # being checked
    waiting = asyncio.ensure_future(guard.place("203.0.113.7"))
    await asyncio.sleep(0)
    assert not waiting.done()
    guard.right("203.0.113.7")
    assert await waiting is None  # its place, given back
    assert refused == []
    waiting = asyncio.ensure_future(guard.place("203.0.113.7"))
    await asyncio.sleep(0)
    guard.wrong("203.0.113.7")
    await asyncio.sleep(0)
    assert not waiting.done()  # one still being checked
    guard.wrong("203.0.113.7")
    assert await waiting == TokenRefusal(10.0)
    assert refused == [TokenRefusal(10.0)]
    assert guard.checking == {} and guard._ended == {}
