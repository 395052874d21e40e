"""Which ``serve --redis`` processes on one Redis run an older lease protocol
(docs/redis.md, "Upgrading processes that share a Redis").

Processes of two releases may share a Redis while they are restarted one by one.
Writes stay safe across them — the commit script refuses a commit that is not the
lease holder's or does not continue the stored seq, whichever release sent it — but
an older process does not do what the newer ones count on: its ``TAKE`` does not read
(nor delete) a table's ``let_go`` note, so a process that takes the table later may
count a take-over as ``loaded`` (or the reverse); and it gives its tables up when
Redis fails for a lease, so a Redis restart moves its tables as before. Each process
of this release marks itself (``{prefix}node:{ID}:lease_protocol``, lasting as its
claim of its settings: :data:`~rollbridge.server.cluster_peers.CLAIM`, renewed with
it) and says once, as a WARNING, each live process it finds without the mark.
"""

from __future__ import annotations

import logging
from typing import Any

from rollbridge.server.cluster_peers import named

__all__ = ["LEASE_PROTOCOL", "OlderProcesses", "mark", "mark_key"]

log = logging.getLogger("rollbridge.cluster")

#: The lease protocol of this release: ``TAKE`` reads the ``let_go`` note, and
#: ``RENEW`` takes a lease that ran out while Redis failed again. A process without a
#: mark runs an older one.
LEASE_PROTOCOL = "2"

#: The most processes looked at (and remembered as said) at once.
MOST_SEEN = 1000


def mark_key(prefix: str, node: str) -> str:
    """The key that marks process ``node``'s lease protocol."""
    return f"{prefix}node:{node}:lease_protocol"


def mark(client: Any, prefix: str, node: str, ttl_ms: int) -> None:
    """Mark process ``node`` for ``ttl_ms`` on a redis-py (synchronous) ``client``,
    before it claims its settings: a process found claimed is marked if it can be.
    :raises redis.RedisError: Redis failed."""
    client.set(mark_key(prefix, node), LEASE_PROTOCOL, px=ttl_ms)


class OlderProcesses:
    """The live processes found without a mark, each said once (:meth:`look`): those that claim
    their settings (:data:`~rollbridge.server.cluster_peers.CLAIM`), and those seen
    holding a lease (a release older than the claims makes none)."""

    def __init__(self, prefix: str, node: str, peers_key: str) -> None:
        self.prefix, self.node, self.peers_key = prefix, node, peers_key
        #: The processes found older at the last look.
        self.found: set[str] = set()
        self._seen: set[str] = set()
        self._told: set[str] = set()

    def saw(self, node: str) -> None:
        """Process ``node`` was seen holding a lease: looked at with the next renewal."""
        if node != self.node and len(self._seen) < MOST_SEEN:
            self._seen.add(node)

    async def remark(self, redis: Any, ttl_ms: int) -> None:
        """Mark this process again (asyncio ``redis``), before its claim is renewed:
        a claim is never found without its mark, even after Redis lost both (set
        again in the other order, a process reading the claims between the two said
        this one older).
        :raises redis.RedisError: Redis failed."""
        key = mark_key(self.prefix, self.node)
        if not await redis.pexpire(key, ttl_ms):  # (a SET only if it is gone)
            await redis.set(key, LEASE_PROTOCOL, px=ttl_ms)

    async def look(self, redis: Any) -> set[str]:
        """Say each live process of the claims' hash (and each seen holding a lease)
        that has no mark, once (asyncio ``redis``). The processes found older.
        :raises redis.RedisError: Redis failed."""
        nodes = await redis.hkeys(self.peers_key)
        claimed = {n.decode() if isinstance(n, bytes) else str(n) for n in nodes}
        others = sorted((claimed | self._seen) - {self.node})
        self._seen = set()
        marks = await redis.mget([mark_key(self.prefix, n) for n in others]) if others else []
        older = {n for n, m in zip(others, marks, strict=True) if m is None}
        if len(self._told) > MOST_SEEN:
            self._told = set(self.found)
        for node in sorted(older - self._told):
            log.warning(
                "process %s on this Redis runs an older rollbridge (no lease protocol "
                "mark): writes stay safe, but its takes read no let_go note (the "
                "forwarded_total outcomes may count a take-over as loaded) and a Redis "
                "restart moves its tables; restart it with this release "
                '(docs/redis.md, "Upgrading processes that share a Redis")',
                named(node),
            )
        self._told |= older
        self.found = older
        return older
