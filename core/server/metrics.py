"""What a running server counts, in Prometheus' text format (``GET /metrics``).

Each :class:`~rollbridge.server.app.Server` owns a :class:`ServerMetrics` with a
registry of its own (not prometheus-client's global one), so several servers in
one process — the tests — count apart.

The hot path stays cheap. What the event loop counts per frame or per reply
(bytes sent, requests, errors, clients cut off) is a plain integer added to in
the loop thread — no lock, no label look-up beyond one dict — and read only when
``/metrics`` is scraped, by :class:`_LoopCounters`. The gauges (connections, open
tables, pending commits, the store failing) are read from the server at scrape time and cost
nothing in between. Only the commit histograms are prometheus-client's own
objects (thread-safe): the writer thread observes them once per group commit, and
the store-reading threads count each read they are given.

Metrics::

    rollbridge_connections                        gauge: WebSocket connections open
    rollbridge_open_tables                        gauge: tables loaded in memory
    rollbridge_pending_commits                    gauge: commits waiting for the disk
    rollbridge_store_failing                      gauge: 1 while the store refuses every change
    rollbridge_requests_total{type,outcome}       counter: requests answered
    rollbridge_errors_total{code}                 counter: error replies, by error code
    rollbridge_commit_seconds                     histogram: one group commit (write + fsync)
    rollbridge_commit_group_size                  histogram: commits per group commit
    rollbridge_bytes_sent_total                   counter: frame payload handed to clients
    rollbridge_clients_cut_off_total{reason}      counter: connections the server ended
    rollbridge_store_reads_total{outcome}         counter: work of the store-reading threads
    rollbridge_throttled_total{limit}             counter: refused for their address's rate
    rollbridge_forwarded_total{outcome}           counter: changes sent to their table's process
    rollbridge_limit_fallbacks_total{limit}       counter: shared limits decided alone (Redis down)
    rollbridge_tables_owned                       gauge: tables whose lease this process holds
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily
from prometheus_client.exposition import CONTENT_TYPE_LATEST

if TYPE_CHECKING:
    from rollbridge.protocol.effects import Reply
    from rollbridge.server.app import Server

__all__ = ["CONTENT_TYPE", "ServerMetrics"]

#: The ``Content-Type`` of :meth:`ServerMetrics.render`.
CONTENT_TYPE = CONTENT_TYPE_LATEST

#: A reply's type → the kind of request it answers (``table``: any table request;
#: ``hello``: a hello, or anything a client sends before it has joined).
_REQUEST_OF = {"welcome": "hello", "pong": "ping", "result": "table"}

_JOINED, _UNJOINED = "result", "welcome"  # errors counted as a result's, or a hello's
_HELLO_DONE = ("welcome", "done")
#: A close reason that is an error code (anything else is counted by close code).
_CODE = re.compile(r"[a-z][a-z_]{0,39}")

#: Seconds: a group commit is one fsync, from tenths of a millisecond (a fast
#: SSD) to seconds (a stalled disk).
_COMMIT_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5)
#: Commits per group commit, up to the writer's MAX_BATCH (256).
_GROUP_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256)


class _LoopCounters:
    """The counters the event loop adds to, exported at scrape time (a
    prometheus-client custom collector)."""

    def __init__(self) -> None:
        self.bytes_sent = 0
        #: By (reply type, status): the labels are made when scraped.
        self.requests: dict[tuple[Any, Any], int] = {}
        self.errors: dict[str, int] = {}
        self.cut_off: dict[str, int] = {}
        self.throttled: dict[str, int] = {}
        self.forwarded: dict[str, int] = {}
        self.fell_back: dict[str, int] = {}

    def describe(self) -> list[Any]:
        return []  # collected only when scraped; nothing to check at registration

    def collect(self) -> Iterator[CounterMetricFamily]:
        requests = CounterMetricFamily(
            "rollbridge_requests", "Requests answered, by type and outcome.",
            labels=("type", "outcome"),
        )  # fmt: skip
        for (kind, outcome), count in list(self.requests.items()):
            requests.add_metric((_REQUEST_OF.get(kind, str(kind)), str(outcome)), count)
        yield requests
        yield _by_label(
            "rollbridge_errors", "Error replies sent, by error code.", "code", self.errors
        )
        yield CounterMetricFamily(
            "rollbridge_bytes_sent",
            "Frame payload bytes handed to clients (characters of a text frame).",
            value=self.bytes_sent,
        )
        yield _by_label(
            "rollbridge_clients_cut_off",
            "Connections the server ended: behind (1013), revoked (1008), or the"
            " error code of a refused hello or a broken limit.",
            "reason",
            self.cut_off,
        )
        yield _by_label(
            "rollbridge_throttled",
            "Refused for their client address's rate: http_rate (an HTTP request, 429),"
            " wrong_tokens (a token presented by an address that sent too many wrong ones),"
            " wrong_tokens_48 (by an IPv6 /48 whose /64s together sent too many).",
            "limit",
            self.throttled,
        )
        yield _by_label(
            "rollbridge_forwarded",
            "Changes this process sent on to the process that runs their table (on"
            " Redis; balance by table to keep it low): answered (run there), loaded"
            " (nobody ran the table: this process loaded it, as on its first change),"
            " taken_over (a process seen running it lost its lease, neither stopped nor"
            " letting the table go unused: killed, hung or cut off; this process took it"
            " over), refused (no answer in time, or the table gone).",
            "outcome",
            self.forwarded,
        )
        yield _by_label(
            "rollbridge_limit_fallbacks",
            "Checks of a per-address limit shared in Redis (serve --redis) that this"
            " process's own limit decided alone, as Redis did not answer (or had failed"
            " within the last second, or another check was asking it again): http_rate"
            " (--http-rate-per-address), per_address (--max-connections-per-address).",
            "limit",
            self.fell_back,
        )


def _owned(server: Server) -> int:
    """How many tables ``server`` holds the lease of (a cluster process's; else 0)."""
    ownership = getattr(server, "ownership", None)
    return len(ownership.owned) if ownership is not None else 0


def _by_label(
    name: str, documentation: str, label: str, counts: dict[str, int]
) -> CounterMetricFamily:
    """A counter with one label, a sample per value counted in ``counts``."""
    family = CounterMetricFamily(name, documentation, labels=(label,))
    for value, count in list(counts.items()):
        family.add_metric((value,), count)
    return family


class ServerMetrics:
    """One server's metrics; see the module docstring.

    :param server: the server whose connections, tables and writer the gauges read.
    """

    def __init__(self, server: Server) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self._loop = _LoopCounters()
        self.registry.register(self._loop)  # type: ignore[arg-type]
        gauges = (
            ("rollbridge_connections", "WebSocket connections open.", lambda: len(server.clients)),
            ("rollbridge_open_tables", "Tables loaded in memory.", lambda: len(server.tables.open)),
            (
                "rollbridge_pending_commits",
                "Commits submitted and not yet written (or failed).",
                lambda: server.writer.pending if server.writer is not None else 0,
            ),
            (
                "rollbridge_store_failing",
                "1 while the store fails as a whole (a full disk, a lock held by another"
                " program, Redis gone): from its first such failure until a commit is"
                " written again (or a read works, if only reads failed); else 0.",
                lambda: int(server.health.failing is not None),
            ),
            (
                "rollbridge_tables_owned",
                "Tables whose lease this process holds, so runs their changes (on Redis; else 0).",
                lambda: _owned(server),
            ),
        )
        for name, documentation, read in gauges:
            Gauge(name, documentation, registry=self.registry).set_function(read)
        self.commit_seconds = Histogram(
            "rollbridge_commit_seconds",
            "Seconds one group commit takes (the write and its fsync).",
            buckets=_COMMIT_BUCKETS,
            registry=self.registry,
        )
        self.store_reads = Counter(
            "rollbridge_store_reads",
            "Work given to the store-reading threads (token look-ups, tables loaded, the"
            " log read, statistics counted, /readyz, the admin API, exports), by how it"
            " ended: done; skipped, as nobody"
            " waited for it any more (its client left while it waited its turn);"
            " failed.",
            labelnames=("outcome",),
            registry=self.registry,
        )
        self.commit_group_size = Histogram(
            "rollbridge_commit_group_size",
            "Commits written in one transaction (group commit).",
            buckets=_GROUP_BUCKETS,
            registry=self.registry,
        )

    # -- the event loop ------------------------------------------------------------

    def replied(self, reply: Reply) -> None:
        """A reply is being sent: count the request by type and outcome (and its
        error code). The labels are made when scraped: here only a tuple and a dict."""
        counts = self._loop.requests
        error = reply.error
        if error is None:
            message = reply.message
            key = (reply.request or message.get("type"), message.get("status", "done"))
        else:
            fallback = _JOINED if getattr(reply.origin, "session", None) else _UNJOINED
            key = (reply.request or fallback, "error")
            errors = self._loop.errors
            errors[error.code] = errors.get(error.code, 0) + 1
        counts[key] = counts.get(key, 0) + 1

    def joined(self) -> None:
        """A ``hello`` was answered with a ``welcome`` (which is delivered, not replied)."""
        counts = self._loop.requests
        counts[_HELLO_DONE] = counts.get(_HELLO_DONE, 0) + 1

    def sent(self, size: int) -> None:
        """A frame of ``size`` bytes (a text frame's UTF-8) was handed to a client."""
        self._loop.bytes_sent += size

    def cut_off(self, reason: str) -> None:
        """The server ended a connection (``behind``, ``revoked``, an error code)."""
        self._loop.cut_off[reason] = self._loop.cut_off.get(reason, 0) + 1

    def throttled(self, limit: str) -> None:
        """A request was refused for its address's rate (``http_rate``, ``wrong_tokens``,
        ``wrong_tokens_48``)."""
        self._loop.throttled[limit] = self._loop.throttled.get(limit, 0) + 1

    def forwarded(self, outcome: str) -> None:
        """A change was sent on to its table's process: ``answered``, ``loaded``,
        ``taken_over`` or ``refused``."""
        self._loop.forwarded[outcome] = self._loop.forwarded.get(outcome, 0) + 1

    def fell_back(self, limit: str) -> None:
        """A check of ``limit`` (``http_rate``, ``per_address``) shared in Redis was
        decided by this process's own limit alone: Redis did not answer."""
        self._loop.fell_back[limit] = self._loop.fell_back.get(limit, 0) + 1

    def closed(self, code: int, reason: str) -> None:
        """The protocol closed a connection (a refused ``hello``, a broken limit):
        counted by its reason when that is an error code, else by the close code."""
        self.cut_off(reason if _CODE.fullmatch(reason) else f"close_{code}")

    # -- the writer thread ---------------------------------------------------------

    def committed(self, size: int, seconds: float) -> None:
        """One group commit of ``size`` commits took ``seconds`` (thread-safe)."""
        self.commit_seconds.observe(seconds)
        self.commit_group_size.observe(size)

    # -- the store-reading threads -------------------------------------------------

    def store_read(self, outcome: str) -> None:
        """A reader thread's work ended ``outcome`` (thread-safe)."""
        self.store_reads.labels(outcome).inc()

    # -- scraping --------------------------------------------------------------------

    def render(self) -> bytes:
        """Every metric in Prometheus' text format (:data:`CONTENT_TYPE`)."""
        return generate_latest(self.registry)
