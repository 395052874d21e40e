"""One client connection, sans-I/O: frames in, effects out.

A :class:`Connection` decodes each frame and answers ``ping``, handles ``hello``
(the token is looked up with a store read, the table opened through the
:class:`Tables` registry shared by every connection of the driver, the
``welcome`` and the missed events sent by the table's protocol), and passes
every later request, through the client's dialect adapter, to the table's
:class:`~rollbridge.protocol.table.TableProtocol`.

A driver calls :meth:`Connection.receive` for each frame and carries out the
effects, as for the table protocol; it also carries out :class:`Open` (get the
table's protocol from the registry, loading it when needed).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rollbridge.adapter import Adapter
from rollbridge.engine.requests import BAD_ID, valid_id
from rollbridge.exceptions import (
    AuthenticationFailed,
    InternalError,
    InvalidRequest,
    RateLimited,
    RollbridgeError,
    StoreError,
    TooManyConnections,
    UndecodableFrame,
    UnknownTable,
)
from rollbridge.i18n import DEFAULT_LOCALE, known_locales, negotiate
from rollbridge.plain import JSON
from rollbridge.protocol.effects import Close, Effect, FindToken, LoadTable, Reopened, Reply
from rollbridge.protocol.frames import Kind, decode, encode
from rollbridge.protocol.limits import (
    COSTS,
    RateLimit,
    Rates,
    TokenRefusal,
    TokensRefused,
    WrongTokens,
)
from rollbridge.protocol.members import Member
from rollbridge.protocol.table import (
    CLOSE_RESYNC,
    CLOSE_TRY_LATER,
    FAILED,
    TableProtocol,
    error_message,
    store_cause,
    store_level,
)
from rollbridge.schema import validate
from rollbridge.sent_kinds import any_kind
from rollbridge.text import Messages
from rollbridge.tokens import hash_token
from rollbridge.visible import visible

__all__ = [
    "CLOSE_AUTH",
    "CLOSE_BEHIND",
    "CLOSE_LIMIT",
    "HELLO_SCHEMA",
    "Connection",
    "Tables",
    "retry_after",
    "said_seconds",
    "wrong_tokens_refusal",
]

log = logging.getLogger("rollbridge.connection")
say = Messages("rollbridge")
_JOINED = say("hello.joined", "this connection has already joined a table")

Effects = list[Effect]

#: Close codes: a token that does not (or no longer) open the table; a client too
#: far behind in reading (or that missed events it cannot be sent: it resumes).
CLOSE_AUTH = 1008
CLOSE_BEHIND = CLOSE_RESYNC
#: Frames a client may send while its ``hello`` is answered; more are refused.
MAX_WAITING = 64
#: Close code of a connection over an operator's limit of connections (per token or
#: address): try again later — clients reconnect with backoff, as for 1013 behind.
CLOSE_LIMIT = CLOSE_TRY_LATER

#: The longest locale name a hello may ask for.
_LOCALE_MAX = 35
HELLO_SCHEMA: JSON = {
    "type": "object",
    "properties": {
        "table": {"type": "string", "minLength": 1, "maxLength": 100},
        "token": {"type": "string", "minLength": 1, "maxLength": 200},
        "resume": {
            "type": "object",
            "properties": {
                "epoch": {"type": "integer", "minimum": 0},
                "seq": {"type": "integer", "minimum": 0},
            },
            "required": ["epoch", "seq"],
        },
        "dialect": {"type": "string", "maxLength": 32, "default": "rollbridge"},
        "client": {"type": "string", "maxLength": 100},
        "results": {"enum": ["full", "brief"], "default": "full"},
        "locale": {"type": "string", "maxLength": _LOCALE_MAX},
    },
    "required": ["table", "token"],
}


def _hides_all(actor_id: str, aspect: str) -> bool:
    """Every private argument hidden (a refusal outside a table, to a non-GM)."""
    return True


class Tables:
    """The open tables of one driver: each opened once, however many connections
    ask for it at the same time, and dropped when idle.

    :param rulesets: the installed rulesets, by id.
    :param rates: the request rates allowed per connection and per table.
    :param max_per_token: connections one join token may hold at once (None: any).
    :param wrong_tokens: the throttle of wrong tokens per client address (None: none);
        a connection's :attr:`Connection.address` is what it counts.
    :param options: passed to every :class:`TableProtocol` (dice, admit, limits).

    :attr:`protocol` is the class each table is opened as (a cluster driver sets a
    subclass of :class:`TableProtocol`).
    """

    protocol: type[TableProtocol] = TableProtocol

    def __init__(
        self,
        rulesets: Mapping[str, Any],
        *,
        rates: Rates | None = None,
        max_per_token: int | None = None,
        wrong_tokens: WrongTokens | None = None,
        **options: Any,
    ) -> None:
        self.rulesets = rulesets
        self.rates = rates or Rates()
        self.max_per_token = max_per_token
        self.wrong_tokens = wrong_tokens
        self.options = options
        self.open: dict[str, TableProtocol] = {}
        #: Joined connections per token key (for :attr:`max_per_token`).
        self.per_token: dict[str, int] = {}
        #: Request buckets of the open tables (for ``rates.per_table``).
        self.buckets: dict[str, RateLimit] = {}
        #: What each table owes for the reads of its log (:meth:`charge_read`): at
        #: its own rate, apart from :attr:`buckets`, which a read's time takes one
        #: burst at most from.
        self.read_debts: dict[str, RateLimit] = {}
        self._loading: dict[str, list[Callable[[TableProtocol | BaseException], Effects]]] = {}
        #: Tables whose load's waiters are being called, and those of them a waiter
        #: released meanwhile (dropped, if still idle, once every waiter has run).
        self._waking: set[str] = set()
        self._dropped: dict[str, TableProtocol] = {}
        #: Called with the id of each table that leaves memory (the driver's commit
        #: writer forgets what it marked of it).
        self.on_drop: Callable[[str], None] | None = None
        #: The server's refusal of every new read of the log a client asks, whatever
        #: the table (its garbage collector held off too long: ``rate_limited``,
        #: ``"scope": "server"``), or None: set by the driver, asked by
        #: :meth:`resume_refusal` as the driver asks it for ``state`` and ``stats``.
        self.server_read_refusal: Callable[[], RateLimited | None] | None = None

    def get(
        self, table_id: str, then: Callable[[TableProtocol | BaseException], Effects]
    ) -> Effects:
        """Call ``then`` with the table's protocol (or the error opening it raised),
        loading it from the store first if it is not open."""
        found = self.open.get(table_id)
        if found is not None:
            return then(found)
        waiting = self._loading.get(table_id)
        if waiting is not None:
            waiting.append(then)
            return []
        self._loading[table_id] = [then]
        load = LoadTable(table_id=table_id)
        load.on_result = lambda loaded: self._loaded(table_id, loaded)
        load.on_error = lambda error: self._failed(table_id, error)
        return [load]

    def _loaded(self, table_id: str, loaded: Any) -> Effects:
        try:
            protocol = self.protocol.open(loaded, self.rulesets, **self.options)
        except RollbridgeError as exc:
            return self._failed(table_id, exc)
        except Exception:  # a stored table this code cannot take in (a bug): its waiters
            # are answered ``internal``, and the next one loads it again
            log.exception("table %s: the table read cannot be opened", table_id)
            return self._failed(table_id, InternalError(FAILED()))
        self.open[table_id] = protocol
        # Loaded afresh: whatever a driver's commit queue remembers of an earlier copy's
        # failed commit is over (a copy leaves memory only with no write out).
        effects: Effects = [Reopened(table_id=table_id)]
        # Every waiter runs before any may drop the table: a waiter that is gone (or
        # refused) releases a table still idle, which must not leave the others on
        # a copy out of the registry (:meth:`release` waits until they have run).
        self._waking.add(table_id)
        try:
            for then in self._loading.pop(table_id, []):
                effects += then(protocol)
        finally:
            self._waking.discard(table_id)
        if self._dropped.pop(table_id, None) is protocol:
            self.release(protocol)
        return effects

    def _failed(self, table_id: str, error: BaseException) -> Effects:
        effects: Effects = []
        for then in self._loading.pop(table_id, []):
            effects += then(error)
        if table_id not in self.open:
            # a request counted against the table before it was asked for (a change
            # another process forwarded) made its bucket: no copy here will release it
            self.buckets.pop(table_id, None)
        return effects

    def release(self, protocol: TableProtocol) -> None:
        """Drop a table once nobody uses it (it loads again on the next ``hello``);
        while the waiters of its load are being called, once they all have."""
        if protocol.id in self._waking:
            self._dropped[protocol.id] = protocol
            return
        if protocol.idle and self.open.get(protocol.id) is protocol:
            del self.open[protocol.id]
            self._forget_buckets(protocol.id)
            if self.on_drop is not None:
                self.on_drop(protocol.id)

    def _forget_buckets(self, dropped: str) -> None:
        """Forget the buckets of tables out of memory whose buckets are full again,
        ``dropped``'s among them: one still in debt (a read of its log charged it) is
        kept until it has refilled, so that a player alone at its table cannot clear
        it by leaving and joining again (review of hostile27); so too its reads'
        debt (:attr:`read_debts`). Those kept are of tables dropped within the last
        few seconds (a bucket refills from empty, or from its floor of one burst
        below, in ``2 × burst / rate``), or — a read debt — within as long as a read
        of the log took in shares, at the table's rate (bounded by the log)."""
        for held in (self.buckets, self.read_debts):
            for table_id in [dropped, *(t for t in held if t not in self.open)]:
                bucket = held.get(table_id)
                if bucket is not None and bucket.full_at() <= bucket.clock():
                    del held[table_id]

    def table_wait(self, table_id: str) -> float | None:
        """Take a request from the table's bucket: None, or the seconds to wait."""
        bucket = self.buckets.get(table_id)
        if bucket is None:
            bucket = self.rates.bucket(self.rates.per_table)
            if bucket is None:
                return None
            self.buckets[table_id] = bucket
        return bucket.take()

    def charge_work(self, table_id: str, seconds: float) -> None:
        """A request at the table took ``seconds`` of the loop's CPU time: one more
        request from the table's rate for each share past the one it paid
        (:meth:`RateLimit.charge_work`) — wherever the request came from (a
        cluster's owner charges the changes other processes forward to it)."""
        bucket = self.buckets.get(table_id)
        if bucket is not None:
            _charged(bucket, seconds, 1.0, f"table {table_id}")

    def charge_read(self, table_id: str, seconds: float) -> None:
        """A read of the table's log took ``seconds`` of a reader thread's CPU time:
        one more request for each share of it, none credited — the request that asked
        it paid its one share against its time on the event loop (:meth:`charge_work`)
        already; credited again, each read of the log (two for ``stats``) took another
        5 ms free (hostile28).

        Its table owes all of it in :attr:`read_debts` (at the table's rate), however
        far below empty: held to one burst below, a ``stats`` of a log of the largest
        events (~5 s) cost its table ~2 s of waiting, so one table kept a reader
        thread, and the interpreter every table shares, busy more than two thirds of
        the time (hostile28). The next read of the log the table asks waits for that
        debt (:meth:`read_refusal`, :meth:`resume_refusal`); the table's ordinary
        requests, its honest players' rolls, lose one burst of the rate at most, as
        for any request's work: owed in the same bucket, one player's ``stats`` had
        every request at the table refused for the ~20 s (~50 s at 20/s) it took
        (review of hostile28). A read's time is bounded by the log (``--retain`` ×
        ``--max-event-size``), and so is the debt."""
        bucket = self.buckets.get(table_id)
        if bucket is None:
            return
        _charged(bucket, seconds, 0.0, f"table {table_id}")
        debt = self.read_debts.get(table_id)
        if debt is None:
            debt = self.rates.bucket(self.rates.per_table)
            if debt is None:
                return
            self.read_debts[table_id] = debt
        _charged(debt, seconds, 0.0, f"table {table_id}'s reads", math.inf)

    def read_refusal(self, table_id: str) -> RateLimited | None:
        """The refusal of a read of the table's log whose turn has come while the
        table still owes an earlier read's time (:meth:`charge_read`: its read debt
        below empty), or None. A request is admitted when it arrives, and nine reads
        may be out or waiting at a table: admitted before the first came back and
        charged, eight ``stats`` of a log of the largest events were each decoded and
        counted, a minute of the interpreter every table shares, before the table owed
        anything (hostile28). Takes nothing from the bucket."""
        debt = self.read_debts.get(table_id)
        wait = debt.wait(0.0) if debt is not None else None
        return None if wait is None else _rate_limited(wait, "table")

    def resume_refusal(self, table_id: str) -> RateLimited | None:
        """A ``hello`` resuming anywhere but the table's latest (which may read its
        log) counted at the table's rate: the refusal when the table is over it, or
        still owes a read's time (:meth:`read_refusal`) — else one player reconnecting
        and resuming at seq 0 again and again had the whole log decoded every two
        seconds, the table's rate losing one burst each time. Refused too while the
        server refuses every new read (:attr:`server_read_refusal`): let in then, a few
        tables' resumes one after another kept the reads out going, and every other
        table's ``state`` and ``stats`` refused, for as long as the collector's bound
        allowed (review of hostile29)."""
        refusal = self.read_refusal(table_id)
        if refusal is None and self.server_read_refusal is not None:
            refusal = self.server_read_refusal()
        if refusal is not None:
            return refusal
        try:
            self.count_at_table(table_id)
        except RateLimited as refused:
            return refused
        return None

    def count_at_table(self, table_id: str) -> None:
        """Count one request against the table's rate (``rates.per_table``).

        :raises RateLimited: the table is over its rate (``scope`` ``table``).
        """
        wait = self.table_wait(table_id)
        if wait is not None:
            raise _rate_limited(wait, "table")


def retry_after(wait: float) -> float:
    """A wait told to a client: rounded up to the millisecond, so that a client that
    waits this long is let through."""
    return max(0.001, math.ceil(round(wait * 1000, 9)) / 1000)


def said_seconds(retry: float) -> float | int:
    """A wait as a message says it: under 10 s as :func:`retry_after` gives it (0.25),
    from 10 s on in whole seconds rounded up (599, not 598.014: the millisecond of a
    wait of minutes only makes it harder to read). ``details.retry_after`` keeps the
    millisecond."""
    return retry if retry < 10 else math.ceil(retry)


def wrong_tokens_refusal(refusal: TokenRefusal) -> RateLimited:
    """The refusal of a token by the throttle of wrong tokens
    (:class:`~rollbridge.protocol.limits.WrongTokens`), a ``hello``'s, an admin or
    export request's alike: ``scope`` ``wrong_tokens``, its address presented too
    many wrong ones lately; ``checking``, too many of its tokens are being checked
    at once (try again in a moment). Refused for the allowance of the address's IPv6
    /48 (:attr:`TokenRefusal.site`, all its /64s together), the message says so and
    ``details`` name it (``network``)."""
    retry = retry_after(refusal.wait)
    scope = "checking" if refusal.checking else "wrong_tokens"
    details: dict[str, Any] = {"retry_after": retry, "scope": scope}
    if refusal.site is not None:  # its /48's allowance, all its /64s together
        details["network"] = refusal.site
        # Translators: {network} is an IPv6 network (2001:db8:1::/48), the site the
        # client's address is in; {seconds} a number of seconds.
        site_checking = say(
            "limit.tokens_checking_site",
            "too many tokens from this address's network {network} (all its IPv6 /64s "
            "together) are being checked at once; try again in {seconds} s",
        )
        # Translators: {network} is an IPv6 network (2001:db8:1::/48), the site the
        # client's address is in; {seconds} a number of seconds.
        site_wrong = say(
            "limit.wrong_tokens_site",
            "too many wrong tokens came from this address's network {network} (all its "
            "IPv6 /64s together); no token is checked from it for {seconds} s",
        )
        told = site_checking if refusal.checking else site_wrong
        return RateLimited(told(network=refusal.site, seconds=said_seconds(retry)), details=details)
    if refusal.checking:
        text = say(
            "limit.tokens_checking",
            "too many tokens from this address are being checked at once; try again in {seconds} s",
        )(seconds=said_seconds(retry))
    else:
        text = say(
            "limit.wrong_tokens",
            "too many wrong tokens came from this address; no token is checked from it "
            "for {seconds} s",
        )(seconds=said_seconds(retry))
    return RateLimited(text, details=details)


def _charged(
    bucket: RateLimit, seconds: float, paid: float, whose: str, below: float | None = None
) -> None:
    """``bucket`` (``whose`` rate) charged for a request's work
    (:meth:`RateLimit.charge_work`, after the request ran, down to ``-below``); a bug
    in it is logged with its traceback, never raised: what the request did (a change's
    commit, its reply) must not be lost with it — the table would be ahead of the
    store, held for good."""
    try:
        bucket.charge_work(seconds, paid, below)
    except Exception:
        log.exception("charging a request's work to %s's rate failed", whose)


def _rate_limited(wait: float, scope: str) -> RateLimited:
    """The refusal of a request over the rate of its connection or its table."""
    retry = retry_after(wait)
    if scope == "table":
        text = say(
            "limit.rate_table",
            "too many requests at this table; nothing was done: try again in {seconds} s",
        )(seconds=said_seconds(retry))
    else:
        text = say(
            "limit.rate_connection",
            "too many requests from this connection; nothing was done: try again in {seconds} s",
        )(seconds=said_seconds(retry))
    return RateLimited(text, details={"retry_after": retry, "scope": scope})


def _bad_id(message: Mapping[str, Any]) -> InvalidRequest:
    """The refusal of a request whose id is missing, or is not one (the reply
    then carries ``"id": null``: nothing the client sent is echoed)."""
    for key in message:
        if key.__class__ is not str:
            return InvalidRequest(
                say(
                    "request.key_kind",
                    "a request is a map whose field names are strings, not {kind}",
                )(kind=any_kind(key))
            )
    return InvalidRequest(BAD_ID(), details={"field": "id"})


@dataclass(eq=False)
class Connection:
    """One client's connection; see the module docstring.

    :param tables: the driver's table registry.
    :param adapters: the registered dialect adapters, by dialect name.
    :param origin: the driver's handle of the connection (given back in effects).
    :param address: the client's address group, as the driver knows it, for the
        throttle of wrong tokens (:attr:`Tables.wrong_tokens`); None: not counted.
    """

    tables: Tables
    adapters: Mapping[str, Adapter]
    origin: Any = None
    address: str | None = None
    member: Member | None = None
    table: TableProtocol | None = None
    #: The language of its replies before it has joined (what its ``hello`` asked for).
    locale: str = DEFAULT_LOCALE
    #: A hello is being answered: later frames wait.
    joining: bool = False
    closed: bool = False
    _waiting: list[bytes | str] = field(default_factory=list)
    _bucket: RateLimit | None = None
    _token_key: str | None = None
    #: A token of its ``hello`` is being looked up, taken from the wrong-token throttle.
    _presented: bool = False
    #: Called (with nothing) when its welcome fails after the table took its member
    #: (:meth:`TableProtocol.not_welcomed
    #: <rollbridge.protocol.table.TableProtocol.not_welcomed>`): it is no longer at a
    #: table, and may say ``hello`` again (the driver's ``hello`` deadline starts anew).
    on_welcome_failed: Callable[[], None] | None = None

    @property
    def joined(self) -> bool:
        """Whether it is at a table: welcomed, or being welcomed (its member not
        refused since)."""
        return self.member is not None and not self.member.refused

    def __post_init__(self) -> None:
        self._bucket = self.tables.rates.bucket(self.tables.rates.per_connection)

    def receive(self, frame: bytes | str) -> Effects:
        """Handle one frame from the client. A bug on the way (an exception that is no
        refusal, from anywhere in its reading: its decoding, its id's check, the
        connection's bucket) answers it ``internal`` with its traceback logged once,
        and the connection goes on: before, one raised before a request's own guard
        left the driver's read loop, closing the connection with websockets' "connection
        handler failed" in the operator's log."""
        try:
            return self._receive(frame)
        except Exception:
            log.exception("a frame failed before it was read")
            kind: Kind = "json" if isinstance(frame, str) else "msgpack"
            return [self._error(None, InternalError(FAILED()), kind)]

    def _receive(self, frame: bytes | str) -> Effects:
        if self.closed:  # disconnected (revoked, too far behind): queued frames are dropped
            return []
        if self.member is not None and self.member.refused:  # its welcome failed meanwhile
            self._unjoin()
        kind: Kind = "json" if isinstance(frame, str) else "msgpack"
        if self.joining:
            if len(self._waiting) >= MAX_WAITING:
                return [self._error(None, _rate_limited(0.1, "connection"), kind)]
            self._waiting.append(frame)
            return []
        # every frame takes from the connection's bucket, garbage too
        wait = self._bucket.take() if self._bucket is not None else None
        try:
            message, kind = decode(frame)
        except UndecodableFrame as exc:
            refused = exc if wait is None else _rate_limited(wait, "connection")
            return [self._error(None, refused, kind)]
        request_id = message.get("id")
        # nothing of a request is read before its id (and, in msgpack, its field names)
        if not valid_id(request_id) or (
            kind == "msgpack" and not all(key.__class__ is str for key in message)
        ):
            refused = _bad_id(message) if wait is None else _rate_limited(wait, "connection")
            return [self._error(None, refused, kind)]
        try:
            kind_name = message.get("type")
            cost = COSTS.get(kind_name) if kind_name.__class__ is str else None
            extra = 0.0  # what a costly request takes on top of its frame's one
            if cost is not None and self._bucket is not None:
                extra = min(cost, self._bucket.burst) - 1
            if wait is not None:
                # refused on its frame's own token (nothing taken): the wait told is
                # for the whole cost, so that a client that waits it gets in
                extra_wait = extra / self._bucket.rate if self._bucket is not None else 0.0
                raise _rate_limited(wait + extra_wait, "connection")
            if kind_name == "hello":
                return self._hello(message, kind, request_id)
            if self.table is None or self.member is None:
                raise AuthenticationFailed(
                    say("hello.first", "say hello with a table and a token first")()
                )
            if kind_name == "ping":
                return [self._reply({"type": "pong", "id": request_id}, kind, "ping")]
            if extra and self._bucket is not None:
                # the frame took one already; never more than the bucket holds
                wait = self._bucket.take(extra)
                if wait is not None:
                    # refused: the frame's token goes back too, so the wait told is
                    # the wait for the whole cost (a client that waits it gets in)
                    self._bucket.give_back(1)
                    raise _rate_limited(wait, "connection")
            try:
                self.tables.count_at_table(self.table.id)
            except RateLimited:
                if extra and self._bucket is not None:  # as a request of one refused there
                    self._bucket.give_back(extra)
                raise
            clock = self.tables.rates.work_clock
            started = clock()
            try:
                if self.member.adapter is not None:
                    message = self.member.adapter.inbound(message)
                return self.table.receive(
                    message, self.member.principal, self.origin, member=self.member
                )
            finally:
                self._charge(self.table.id, clock() - started, 1.0 + extra)
        except RollbridgeError as exc:
            return [self._error(request_id, exc, kind)]
        except Exception:
            log.exception("request %r failed", request_id)
            failed = InternalError(FAILED())
            return [self._error(request_id, failed, kind)]

    def _charge(self, table_id: str, seconds: float, paid: float) -> None:
        """A request took ``seconds`` of the event loop's CPU time: one more request
        for each share (:data:`~rollbridge.protocol.limits.SECONDS_PER_REQUEST`)
        past those it paid already — ``paid`` of the connection's rate (its cost),
        one of the table's."""
        if self._bucket is not None:
            _charged(self._bucket, seconds, paid, "a connection")
        self.tables.charge_work(table_id, seconds)

    @property
    def rated(self) -> bool:
        """Whether the connection's requests are held to a rate (``per_connection``)."""
        return self._bucket is not None

    def charge_forwarded(self, seconds: float) -> None:
        """A change this connection sent ran on another process (the table's owner
        under ``serve --redis``), which took ``seconds`` of its CPU time for it: one
        more request from this connection's rate for each share past the one the
        change paid, as the owner took from the table's (:meth:`Tables.charge_work`).
        The table's rate here is not charged again: the owner's bucket holds the
        table. ``seconds`` comes from the owner process, never from a client."""
        if self._bucket is not None:
            _charged(self._bucket, seconds, 1.0, "a connection")

    def charge_read(self, seconds: float) -> None:
        """A read of the log this connection's request asked for (``state`` at an
        earlier seq or with ``undone``, ``stats``, a resume's missed events) took
        ``seconds`` of a reader thread's CPU time: one more request from this
        connection's rate for each share of it (the driver charges the table's rate
        too, :meth:`Tables.charge_read`). None is credited: the request paid its
        cost against its time on the event loop already (hostile28)."""
        if self._bucket is not None:
            _charged(self._bucket, seconds, 0.0, "a connection")

    def _reply(self, message: JSON, kind: Kind, request: str | None = None) -> Reply:
        member = self.member
        frame = member.encode(message) if member is not None else encode(message, kind)
        return Reply(origin=self.origin, message=message, frame=frame, request=request)

    def _error(self, request_id: Any, error: RollbridgeError, kind: Kind) -> Reply:
        member = self.member
        locale = member.locale if member is not None else self.locale
        # no table to tell whose details a private argument is: only the GM sees it
        gm = member is not None and getattr(member.principal, "is_gm", False)
        hides = None if gm else _hides_all
        reply = self._reply(error_message(request_id, error, locale, hides), kind)
        reply.error = error
        return reply

    # -- hello -------------------------------------------------------------------------

    def _hello(self, message: Mapping[str, Any], kind: Kind, request_id: Any) -> Effects:
        if self.table is not None:
            raise InvalidRequest(_JOINED())
        body = {k: v for k, v in message.items() if k not in ("type", "id")}
        # the language first: a hello refused for another field is answered in it
        # (before rev29t in English, whatever its locale said)
        first = body.get("locale")
        if first.__class__ is str and len(first) <= _LOCALE_MAX:
            asked = negotiate(first)
            if asked is not None:
                self.locale = asked
        hello = validate(HELLO_SCHEMA, body, where="hello", error=InvalidRequest)
        adapter: Adapter | None = None
        dialect = hello["dialect"]
        if dialect != "rollbridge":
            registered = self.adapters.get(dialect)
            if registered is None:
                known = ", ".join(["rollbridge", *sorted(self.adapters)])
                raise InvalidRequest(
                    say(
                        "hello.dialect", "hello.dialect: unknown dialect {dialect} (known: {known})"
                    )(dialect=repr(dialect), known=known)
                )
            adapter = registered.connect(message)
        guard = self.tables.wrong_tokens
        if guard is not None:
            refusal = guard.present(self.address)
            if refusal is not None:  # refused unread: its address sent too many wrong ones
                return self._throttled(kind, request_id, refusal)
            self._presented = True
        self.joining = True
        # The token first: without one, nothing is loaded and nothing told apart.
        counted = self.address if guard is not None and self._presented else None
        find = FindToken(
            table_id=hello["table"], token_hash=hash_token(hello["token"]), address=counted
        )
        find.on_result = lambda record: self._hello_guarded(
            lambda: self._token_found(record, hello, adapter, kind, request_id),
            kind, request_id, hello["table"],
        )  # fmt: skip
        find.on_error = lambda error: self._hello_guarded(
            lambda: self._lookup_failed(error, kind, request_id, hello["table"]),
            kind, request_id, hello["table"],
        )  # fmt: skip
        return [find]

    def _hello_guarded(
        self, step: Callable[[], Effects], kind: Kind, request_id: Any, table: str
    ) -> Effects:
        """What ``step`` (the ``hello``'s next step, after a read came back) returns;
        a refusal it raises answers the ``hello`` with its own code, an exception that
        is no refusal (a bug) ``internal``, its traceback logged once; then the frames
        waiting for it run."""
        try:
            return step()
        except RollbridgeError as exc:
            return self._hello_failed(exc, kind, request_id, table)
        except Exception:
            log.exception("hello %r at table %s failed", request_id, table)
            return self._hello_failed(InternalError(FAILED()), kind, request_id, table)

    def _settle_token(self, right: bool) -> None:
        """The token taken from the wrong-token throttle was looked up: ``right``, it
        opened the table (or could not be looked up), and costs nothing; else it
        keeps its place."""
        presented, self._presented = self._presented, False
        guard = self.tables.wrong_tokens
        if not presented or guard is None:
            return
        if right:
            guard.right(self.address)
        else:
            guard.wrong(self.address)

    def _lookup_failed(
        self, error: BaseException, kind: Kind, request_id: Any, table: str
    ) -> Effects:
        self._settle_token(right=True)  # the server's failure, not a wrong token
        if isinstance(error, TokensRefused):  # by the count shared with other processes
            guard = self.tables.wrong_tokens
            if guard is not None and self.address is not None:
                guard.refuse(self.address, error.refusal)
            return self._throttled(kind, request_id, error.refusal)
        return self._hello_failed(error, kind, request_id, table)

    def _token_found(
        self, record: Any, hello: JSON, adapter: Adapter | None, kind: Kind, request_id: Any
    ) -> Effects:
        self._settle_token(right=record is not None)
        if record is None:  # refused (and counted) even if it has gone meanwhile
            return self._refused(kind, request_id)
        if self.closed:  # gone while its token was looked up: nothing to load for it
            self.joining = False
            return []

        def opened(found: TableProtocol | BaseException) -> Effects:
            if isinstance(found, UnknownTable):
                return self._refused(kind, request_id)
            if isinstance(found, BaseException):
                return self._hello_failed(found, kind, request_id, hello["table"])
            if self.closed:  # gone while the table loaded (released by ``guarded``)
                self.joining = False
                return []
            key = record.principal().key
            limit = self.tables.max_per_token
            if limit is not None and self.tables.per_token.get(key, 0) >= limit:
                return self._too_many(kind, request_id, limit)
            over = self._resume_over_rate(found, hello.get("resume"))
            if over is not None:
                return self._ended(kind, request_id, over, CLOSE_LIMIT)
            locale, notes = self._locale_for(hello.get("locale"), found)
            member = Member(
                record.principal(),
                kind=kind,
                adapter=adapter,
                locale=locale,
                brief=hello["results"] == "brief",
                origin=self.origin,
                hello_id=request_id,
                notes=notes,
                on_refused=self.on_welcome_failed,
            )
            # counted only as it joins: a hello that fails before is not counted
            self.tables.per_token[key] = self.tables.per_token.get(key, 0) + 1
            self._token_key = key
            self.table, self.member, self.locale = found, member, locale
            try:
                joined = found.join(member, hello.get("resume"))
            except Exception:  # a bug: answered by ``guarded``, as a welcome that failed
                found.not_welcomed(member)
                raise
            return joined + self._joined()

        def guarded(found: TableProtocol | BaseException) -> Effects:
            effects = self._hello_guarded(lambda: opened(found), kind, request_id, hello["table"])
            if self.member is not None and self.member.refused:  # its welcome failed
                self._unjoin()
            if isinstance(found, TableProtocol) and self.table is not found:
                # refused or failed (a bug) before it joined, or its welcome failed:
                # nothing here holds the table, which leaves memory now if nothing
                # else does (before, a failed welcome kept it, its connection too)
                self.tables.release(found)
            return effects

        return self.tables.get(hello["table"], guarded)

    def _locale_for(self, asked: str | None, table: TableProtocol) -> tuple[str, tuple[JSON, ...]]:
        """The member's locale: the one its ``hello`` asked for, else the table's
        default; a note for the ``welcome`` when the one asked for is not available."""
        chosen = negotiate(asked)
        if chosen is not None:
            return chosen, ()
        default = negotiate(table.table.settings.get("locale")) or DEFAULT_LOCALE
        if asked is None:
            return default, ()
        known = ", ".join(sorted(known_locales()))
        note = say(
            "hello.locale_unavailable",
            "the locale {asked} is not available (available: {known}); texts are in {used}",
        )(asked=visible(asked), known=known, used=default)  # its controls as escapes
        return default, ({"code": "locale_unavailable", "message": note.render(default)},)

    def _joined(self) -> Effects:
        """The ``hello`` is answered: the frames that waited for it run. A bug on one
        (an exception that is no refusal, out of :meth:`receive`) answers that frame
        ``internal`` and costs nothing else: the ``hello``'s answer (a welcome, the
        member already in the table's audience) and the other frames' still go."""
        self.joining = False
        effects: Effects = []
        waiting, self._waiting = self._waiting, []
        for frame in waiting:
            effects += self.receive(frame)  # guarded: a bug costs only its own frame
        return effects

    def _too_many(self, kind: Kind, request_id: Any, limit: int) -> Effects:
        error = TooManyConnections(
            say.plural(
                "limit.per_token",
                "this token already holds {limit} connection, the most the server allows",
                "this token already holds {limit} connections, the most the server allows",
                count="limit",
            )(limit=limit),
            details={"limit": limit},
        )
        return self._ended(kind, request_id, error, CLOSE_LIMIT)

    def _refused(self, kind: Kind, request_id: Any) -> Effects:
        error = AuthenticationFailed(say("hello.refused", "this token does not open that table")())
        return self._ended(kind, request_id, error, CLOSE_AUTH)

    def _resume_over_rate(
        self, found: TableProtocol, resume: Mapping[str, Any] | None
    ) -> RateLimited | None:
        """A ``hello`` whose ``resume`` names another place than the table's latest
        (which may make the table read its log: the missed events, or a GM's settled
        requests) is one request at the table's rate, which the read's CPU time is then
        charged to (:meth:`charge_read`): the refusal when the table is over it. A
        ``hello`` is not held to the connection's rate, and each new connection has its
        own: a player reconnecting and resuming at seq 0 again and again made the
        server decode the whole log each time, charged only to connections it then
        closed (review of hostile27)."""
        if resume is None or (resume.get("epoch"), resume.get("seq")) == (
            found.table.info.epoch,
            found.durable_seq,
        ):
            return None
        return self.tables.resume_refusal(found.id)

    def _throttled(self, kind: Kind, request_id: Any, refusal: TokenRefusal) -> Effects:
        """A ``hello`` refused before its token is looked up: its address presented
        too many wrong tokens (or has too many being checked). Closed 1013: a client
        reconnects later, with backoff."""
        return self._ended(kind, request_id, wrong_tokens_refusal(refusal), CLOSE_LIMIT)

    def _ended(self, kind: Kind, request_id: Any, error: RollbridgeError, code: int) -> Effects:
        """``hello`` refused with ``error``, the connection closed with ``code``."""
        self.joining = False
        self.closed = True
        self._waiting = []
        return [self._error(request_id, error, kind), Close(code=code, reason=error.code)]

    def _hello_failed(
        self, error: BaseException, kind: Kind, request_id: Any, table: str
    ) -> Effects:
        """``hello`` refused with ``error`` after a read came back. A store's failure
        (``store_error``: its token or its table could not be read) closes the
        connection 1013 after the refusal, as a limit's does: a client reconnects with
        backoff, as the bundled clients do on such a refusal. It was left open, and a
        client that did not say ``hello`` again was closed at the hello timeout with
        1008, ``no hello within 10 s`` — the code of a refused token. Another refusal
        (a bad ``resume``) leaves it open for a ``hello`` that may be taken."""
        if not isinstance(error, RollbridgeError) or isinstance(error, StoreError):
            log.log(store_level(error), "hello at table %s failed: %s", table, store_cause(error))
        if not isinstance(error, RollbridgeError):
            error = StoreError(f"{type(error).__name__}: {error}")
        if isinstance(error, StoreError):
            return self._ended(kind, request_id, error, CLOSE_TRY_LATER)
        return [self._error(request_id, error, kind), *self._joined()]

    # -- leaving -------------------------------------------------------------------------

    def close(self) -> None:
        """The connection is gone (or being cut off): leave the table. A ``hello``
        still being answered is answered to nobody: it is no longer joining."""
        self.closed = True
        self.joining = False
        self._waiting = []
        self._give_back_token()
        if self.table is not None and self.member is not None:
            self.table.leave(self.member)
            self.tables.release(self.table)

    def _unjoin(self) -> None:
        """Its welcome failed (:attr:`Member.refused
        <rollbridge.protocol.members.Member.refused>`, its member gone from the table):
        the connection is no longer at the table, and may say ``hello`` again; its
        token's count given back, the table dropped if nothing else holds it."""
        self._give_back_token()
        table, self.table, self.member = self.table, None, None
        if table is not None:
            self.tables.release(table)

    def _give_back_token(self) -> None:
        """The connection no longer counts against its token's connections."""
        key, self._token_key = self._token_key, None
        if key is not None:
            left = self.tables.per_token.get(key, 1) - 1
            if left > 0:
                self.tables.per_token[key] = left
            else:
                self.tables.per_token.pop(key, None)
