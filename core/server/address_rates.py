"""What one client address may ask of the server per second, over plain HTTP and
in tokens presented (docs/operations.md, "Limits").

:class:`HttpRate` holds every plain HTTP request the server answers — the web
view and its files, ``/metrics``, ``/healthz``, ``/readyz``, the admin API, the
session-log export, a 404, websockets' own refusal of a request that is no
handshake — to ``--http-rate-per-address`` per address group, before anything else
is done for it: past it, 429 with ``Retry-After``, no store read, no export slot.
A WebSocket handshake is not counted here: its connection is held to
``--max-connections-per-address`` and its requests to the protocol's rates. Under
``serve --redis`` a request this process's bucket lets through is then taken from
the address's bucket every process shares in Redis as well
(:mod:`~rollbridge.server.shared_limits`, through :attr:`HttpRate.shared`).

:func:`wrong_tokens` makes the server's throttle of wrong tokens
(:class:`~rollbridge.protocol.limits.WrongTokens`, ``--wrong-tokens-per-address``;
the /64s of an IPv6 /48 together :data:`~rollbridge.server.limits.WRONG_TOKENS_PER_SITE`
times as many), which the ``hello`` of a WebSocket client, the admin API and the
export share; :func:`look_up_token` is how the HTTP routes look a token up under it.
Under ``serve --redis`` a token it lets through also takes a place from the count
every process shares in Redis (:mod:`~rollbridge.server.shared_tokens`, through
:meth:`~rollbridge.server.cluster.ClusterServer.take_token_place`).

The HTTP rate forgets the address used longest ago once it holds
:data:`~rollbridge.protocol.limits.MOST_ADDRESSES` (:class:`Buckets`): an address
forgotten gets a full burst again, which it could have spent from any of the
addresses it flooded with, so nothing is won. The throttle of wrong tokens forgets
the one full again soonest (:class:`~rollbridge.protocol.limits.PenaltyBuckets`),
so that one penalised is not cleared by a flood of other addresses.

Both count a request under :func:`~rollbridge.server.addresses.rated_address`:
the machine's own requests (loopback) and a trusted proxy's own (one naming no
client) are not counted. Each refusal is counted in
``rollbridge_throttled_total{limit}`` and logged, a WARNING at most every 10 s
per limit, saying how many more were refused since.
"""

from __future__ import annotations

import json
import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeVar

from rollbridge.exceptions import AuthenticationFailed, NotFound, RateLimited
from rollbridge.protocol.connection import retry_after, said_seconds, wrong_tokens_refusal
from rollbridge.protocol.limits import Buckets, TokenRefusal, TokensRefused
from rollbridge.server.addresses import address_site, rated_address
from rollbridge.server.limits import HTTP_BURST_SECONDS, WRONG_TOKENS_PER_SITE
from rollbridge.server.logs import quiet
from rollbridge.server.throttle import Throttle
from rollbridge.server.token_places import WaitingWrongTokens
from rollbridge.server.web import error_headers, request_locale, respond
from rollbridge.text import Messages

if TYPE_CHECKING:
    from websockets.asyncio.server import ServerConnection
    from websockets.http11 import Request, Response

    from rollbridge.server.app import Server
    from rollbridge.server.limits import Limits
    from rollbridge.server.metrics import ServerMetrics

__all__ = ["LOG_INTERVAL", "HttpRate", "look_up_token", "wrong_tokens"]

T = TypeVar("T")

log = logging.getLogger("rollbridge.server")
say = Messages("rollbridge")
# Translators: the body of an HTTP 429 answer; {rate} and {burst} are numbers of
# requests, {seconds} a number of seconds.
TOO_FAST = say(
    "limit.http_rate",
    "too many HTTP requests from this address (the server takes {rate:g} a second, "
    "{burst:g} at once); nothing was done: try again in {seconds} s",
)

#: Seconds between two WARNING lines about one limit's refusals.
LOG_INTERVAL = 10.0


class HttpRate:
    """The per-address rate of one server's plain HTTP requests; see the module
    docstring.

    :param limits: the server's limits (``http_rate_per_address``, the trusted proxies).
    :param metrics: where refusals are counted.
    :param clock: the buckets' clock (seconds, monotonic).
    """

    def __init__(
        self,
        limits: Limits,
        metrics: ServerMetrics,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.rate = limits.http_rate_per_address
        self.trusted = limits.trusted_proxies
        self.metrics = metrics
        burst = max(1.0, (self.rate or 0) * HTTP_BURST_SECONDS)
        self.buckets = Buckets(self.rate, burst, clock=clock) if self.rate else None
        self._said = Throttle(LOG_INTERVAL)
        #: Under ``serve --redis``: the wait of the bucket every process counts
        #: ``address`` against (None: a request taken), asked once this process's own
        #: bucket let a request through; it fails open (None) when Redis does not
        #: answer (:mod:`~rollbridge.server.shared_limits`). None: this process only.
        self.shared: Callable[[str], Awaitable[float | None]] | None = None

    async def refuse(self, connection: ServerConnection, request: Request) -> Response | None:
        """Count ``request`` against its address's rate (this process's, then, under
        ``serve --redis``, every process's): None if it may be answered, else the 429
        that answers it instead."""
        if self.buckets is None:
            return None
        address = rated_address(connection, self.trusted, request)
        if address is None:
            return None
        wait = self.buckets.take(address)
        if wait is None and self.shared is not None:
            # refused there, the request keeps its place here too: this process's
            # bucket counts what it asked Redis, so an address flooding it is asked
            # at most at the rate, the rest refused here at no cost to Redis
            wait = await self.shared(address)
        if wait is None:
            return None
        self.metrics.throttled("http_rate")
        quiet(connection)  # websockets' INFO lines of its answer: the WARNING says them
        held = self._said.allow()
        if held is not None:
            log.warning(
                "refused HTTP requests from %s: more than %g a second "
                "(--http-rate-per-address); %d more refused since the last such line",
                address, self.rate, held, extra={"code": "rate_limited"},
            )  # fmt: skip
        retry = retry_after(wait)
        error = RateLimited(
            TOO_FAST(rate=self.rate, burst=self.buckets.burst, seconds=said_seconds(retry)),
            details={"retry_after": retry, "scope": "http"},
        )
        body = json.dumps(error.to_dict(request_locale(request)), ensure_ascii=False) + "\n"
        return respond(429, body, "application/json; charset=utf-8", **error_headers(error))


def wrong_tokens(limits: Limits, metrics: ServerMetrics) -> WaitingWrongTokens | None:
    """The server's throttle of wrong tokens (``limits.wrong_tokens_per_address``,
    :data:`~rollbridge.server.limits.WRONG_TOKENS_PER_SITE` times it per IPv6 /48;
    None: off), its refusals counted and logged."""
    allowed = limits.wrong_tokens_per_address
    if not allowed:
        return None
    per_site = allowed * WRONG_TOKENS_PER_SITE
    said, said_site = Throttle(LOG_INTERVAL), Throttle(LOG_INTERVAL)
    said_checking = Throttle(LOG_INTERVAL)

    def refused(address: str, refusal: TokenRefusal) -> None:
        site = refusal.site
        metrics.throttled("wrong_tokens" if site is None else "wrong_tokens_48")
        if refusal.checking:  # no wrong token: more at once than it may hold
            held = said_checking.allow()
            if held is not None:
                whose = "its" if site is None else f"its IPv6 /48 {site}'s"
                checking = guard.checking if site is None else guard.site_checking
                bound = (f"--wrong-tokens-per-address {allowed}" if site is None else
                         f"{per_site}, --wrong-tokens-per-address {allowed} × "
                         f"{WRONG_TOKENS_PER_SITE}")  # fmt: skip
                log.info(
                    "refused a token from %s for a moment: %d of %s tokens were being "
                    "checked (%s); %d more refused since the last such line",
                    address, checking.get(site or address, 0), whose, bound, held,
                    extra={"code": "rate_limited"},
                )  # fmt: skip
            return
        if site is not None:
            held = said_site.allow()
            if held is not None:
                log.warning(
                    "refused a token from %s without checking it: too many wrong tokens "
                    "from its IPv6 /48 %s, all its /64s together (%d, "
                    "--wrong-tokens-per-address %d × %d), for %d s more; %d more "
                    "refused since the last such line",
                    address, site, per_site, allowed, WRONG_TOKENS_PER_SITE,
                    math.ceil(refusal.wait), held, extra={"code": "rate_limited"},
                )  # fmt: skip
            return
        held = said.allow()
        if held is not None:
            log.warning(
                "refused a token from %s without checking it: too many wrong tokens "
                "from that address (--wrong-tokens-per-address %d), for %d s more; "
                "%d more refused since the last such line",
                address, allowed, math.ceil(refusal.wait), held,
                extra={"code": "rate_limited"},
            )  # fmt: skip

    guard = WaitingWrongTokens(allowed, refused=refused, site=address_site, per_site=per_site)
    return guard


async def look_up_token(
    server: Server,
    connection: ServerConnection,
    request: Request,
    lookup: Callable[[], Awaitable[T]],
) -> T:
    """``lookup()`` of a token ``request`` presented, under the server's throttle of
    wrong tokens: a lookup that finds nothing (None, ``unauthorized``, a table or
    token not found) counts as a wrong token of the request's address; one that
    fails otherwise (the store) does not.

    :raises RateLimited: the address presented too many wrong tokens lately
        (``scope`` ``wrong_tokens``); nothing was looked up.
    """
    guard = server.tables.wrong_tokens
    if guard is None:
        return await lookup()
    address = rated_address(connection, server.limits.trusted_proxies, request)
    if isinstance(guard, WaitingWrongTokens):  # waits while its tokens are being checked
        refusal = await guard.place(address)
    else:
        refusal = guard.present(address)
    if refusal is not None:
        raise wrong_tokens_refusal(refusal)
    shared = getattr(server, "shared_tokens", None) if address is not None else None
    if shared is not None:  # serve --redis: every process's count of wrong tokens
        try:
            await server.take_token_place(address)  # type: ignore[attr-defined]
        except TokensRefused as exc:
            guard.right(address)  # not looked up: its place here is given back
            guard.refuse(address, exc.refusal)
            raise wrong_tokens_refusal(exc.refusal) from None
        except BaseException:
            guard.right(address)
            raise
    try:
        found = await lookup()
    except (AuthenticationFailed, NotFound):
        guard.wrong(address)  # what it took stays taken
        raise
    except BaseException:
        guard.right(address)  # the server's failure, not the token's
        if shared is not None:
            server.give_back_token_place(address)  # type: ignore[attr-defined]
        raise
    if found is None:
        guard.wrong(address)
    else:
        guard.right(address)
        if shared is not None:
            server.give_back_token_place(address)  # type: ignore[attr-defined]
    return found
