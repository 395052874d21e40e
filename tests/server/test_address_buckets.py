"""The per-address buckets (``rollbridge.protocol.limits``: :class:`Buckets`, the
throttle of wrong tokens :class:`WrongTokens` on :class:`PenaltyBuckets`) on a clock
the test moves: what an address may present, when it may again, what the /64s of
one IPv6 /48 may together, and a memory that a flood of addresses can neither grow
nor use to clear a penalty (docs/operations.md, "Limits")."""

from __future__ import annotations

import asyncio

import pytest

from rollbridge.protocol.connection import wrong_tokens_refusal
from rollbridge.protocol.limits import (
    CHECKING_WAIT,
    Buckets,
    PenaltyBuckets,
    TokenRefusal,
    WrongTokens,
)
from rollbridge.server.addresses import address_group, address_site
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


@pytest.mark.parametrize("cost", ["right", "wrong"])
def test_a_flood_of_addresses_does_not_make_the_throttle_forget_a_penalised_one(cost):
    """Found by review: a client past its wrong tokens made ``most`` other addresses
    (the /64s of its /48) present one token each, and its own, used longest ago,
    was forgotten — its penalty with it. The throttle forgets first an address
    whose bucket is full again (a right token's), else the one nearest full (one
    wrong token's, full again in a minute), never one further from full while any
    is nearer."""
    clock = Clock()
    guard = WrongTokens(10, 600.0, most=1000, clock=clock)
    guesser = "2001:db8:1:ffff::/64"
    for _ in range(10):
        assert guard.present(guesser) is None
        guard.wrong(guesser)
    assert guard.present(guesser) == TokenRefusal(60.0)
    for n in range(5000):
        address = f"2001:db8:1:{n:x}::/64"
        assert guard.present(address) is None
        guard.right(address) if cost == "right" else guard.wrong(address)
    assert len(guard.buckets) == 1000
    assert guard.present(guesser) == TokenRefusal(60.0)  # still: one more a minute
    # forgotten only once every address kept is further from full than its own:
    # 1000 addresses, each of them ten wrong tokens (10,000 guesses) later
    clock.now += 1.0
    for n in range(1000):
        address = f"198.51.{n >> 8}.{n & 255}"
        for _ in range(10):
            assert guard.present(address) is None
            guard.wrong(address)
    assert guard.present(guesser) is None


def test_penalty_buckets_forget_the_one_full_again_soonest_at_a_bounded_cost():
    clock = Clock()
    buckets = PenaltyBuckets(1.0, 10.0, most=100, clock=clock)
    for n in range(100):  # each drained of n % 10 + 1: full again in as many seconds
        for _ in range(n % 10 + 1):
            assert buckets.take(f"k{n}") is None
    buckets.give_back("k9")  # full again in nine seconds now, not ten
    for n in range(100, 110):  # ten more keys, each drained of two
        assert buckets.take(f"k{n}") is None
        assert buckets.take(f"k{n}") is None
    forgotten = {f"k{n}" for n in range(100) if n % 10 == 0}  # full in 1 s
    assert {f"k{n}" for n in range(110)} - set(buckets._buckets) == forgotten
    clock.now += 10.0  # all full again: any may go
    for n in range(200_000):  # each request costs the heap a note, never more than
        buckets.take(f"k{n % 5000}")  # twice the keys' worth of them
        assert len(buckets._notes) <= 2 * len(buckets) + 64
    assert len(buckets) == 100


def test_the_64s_of_one_48_are_held_to_its_allowance_together():
    """The /64s of one IPv6 /48 present at most ``per_site`` wrong tokens within the
    window together: a holder of a /48 no longer gets ten guesses per /64 (65,536 of
    them). Another /48, an IPv4 address and a right token of another site are not
    held up; a right token gives its place back to the /48 too."""
    clock = Clock()
    refused: list[tuple[str, TokenRefusal]] = []
    guard = WrongTokens(3, 30.0, clock=clock, site=address_site, per_site=12,
                        refused=lambda a, r: refused.append((a, r)))  # fmt: skip
    site = "2001:db8:1::/48"
    for n in range(4):  # four /64s, three wrong tokens each: the /48's twelve
        for _ in range(3):
            assert guard.present(f"2001:db8:1:{n:x}::/64") is None
            guard.wrong(f"2001:db8:1:{n:x}::/64")
    fresh = address_group("2001:db8:1:ab::7")
    assert guard.present(fresh) == TokenRefusal(2.5, site=site)  # one more every 30 s / 12
    assert refused == [(fresh, TokenRefusal(2.5, site=site))]
    # the /64 drained itself too: told the longer of the two waits, its own
    assert guard.present("2001:db8:1:3::/64") == TokenRefusal(10.0)
    for other in ("2001:db8:2:1::/64", "203.0.113.7"):  # another /48, IPv4
        for _ in range(3):
            assert guard.present(other) is None
            guard.wrong(other)
    assert guard.present("2001:db8:2:2::/64") is None  # the other /48's 4th
    guard.right("2001:db8:2:2::/64")
    for n in range(50):  # right tokens from many of its /64s cost it nothing
        assert guard.present(f"2001:db8:2:{n + 100:x}::/64") is None
        guard.right(f"2001:db8:2:{n + 100:x}::/64")
    assert len(guard.sites or ()) == 2 and guard.checking == guard.site_checking == {}
    clock.now += 2.5
    assert guard.present(fresh) is None  # the /48's next one
    guard.wrong(fresh)
    assert guard.present(address_group("2001:db8:1:cd::1")) == TokenRefusal(2.5, site=site)
    refusal = wrong_tokens_refusal(TokenRefusal(2.5, site=site))
    assert refusal.details == {"retry_after": 2.5, "scope": "wrong_tokens", "network": site}
    assert f"this address's network {site} (all its IPv6 /64s together)" in str(refusal)


async def test_right_tokens_of_one_48_at_once_wait_a_moment_for_its_checks():
    """More right tokens at once from the /64s of one /48 than its allowance: those
    past it are told its tokens are being checked (:attr:`TokenRefusal.checking`);
    over HTTP they wait for the /48's checks, as for one address's."""
    clock = Clock()
    guard = WaitingWrongTokens(3, 30.0, clock=clock, site=address_site, per_site=6)
    site = "2001:db8:1::/48"
    for n in range(6):
        assert guard.present(f"2001:db8:1:{n:x}::/64") is None
    assert guard.present("2001:db8:1:6::/64") == TokenRefusal(
        CHECKING_WAIT, checking=True, site=site
    )
    waiting = asyncio.ensure_future(guard.place("2001:db8:1:7::/64"))
    await asyncio.sleep(0)
    assert not waiting.done()
    guard.right("2001:db8:1:2::/64")  # another /64 of the /48: its place is given back
    assert await waiting is None
    for n in (0, 1, 3, 4, 5, 7):
        guard.right(f"2001:db8:1:{n:x}::/64")
    assert guard.checking == guard.site_checking == guard._ended == {}


def test_a_48_s_checks_holding_every_place_are_told_as_the_48_s(caplog):
    """A token refused only because the tokens of its /48 being checked hold every
    place of the /48's allowance (its own /64 has none being checked) was told
    ``too many tokens from this address are being checked``, and the log line named
    an address's allowance (``--wrong-tokens-per-address 10``), not the /48's 100:
    both now name the /48 and its allowance, and ``details`` its ``network``."""
    from rollbridge.server.address_rates import wrong_tokens
    from rollbridge.server.limits import Limits

    class Counted:
        def __init__(self) -> None:
            self.limits: list[str] = []

        def throttled(self, limit: str) -> None:
            self.limits.append(limit)

    metrics = Counted()
    guard = wrong_tokens(Limits(), metrics)  # type: ignore[arg-type]
    assert guard is not None
    site = "2001:db8:7::/48"
    for n in range(100):  # the /48's 100 at once, none checked yet
        assert guard.present(f"2001:db8:7:{n:x}::/64") is None
    with caplog.at_level("INFO", logger="rollbridge.server"):
        refusal = guard.present("2001:db8:7:ffff::/64")
    assert refusal == TokenRefusal(CHECKING_WAIT, checking=True, site=site)
    assert metrics.limits == ["wrong_tokens_48"]
    told = wrong_tokens_refusal(refusal)
    assert told.details == {"retry_after": CHECKING_WAIT, "scope": "checking", "network": site}
    assert f"this address's network {site}" in str(told), str(told)
    for locale in ("cs", "de", "ru"):  # translated, the network named
        assert site in told.to_dict(locale)["message"]
    line = caplog.records[-1].getMessage()
    assert f"100 of its IPv6 /48 {site}'s tokens were being checked" in line, line
    assert "(100, --wrong-tokens-per-address 10 × 10)" in line, line
