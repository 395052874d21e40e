"""Trying the store while its changes fail, so that an idle server sees it mended.

:class:`~rollbridge.server.store_health.StoreHealth` ends an outage of changes (a
full disk, a lock held by another program, Redis refusing writes) when a commit is
written again. A server whose clients all left during the outage sends no commit
after it: its ``rollbridge_store_failing`` stayed 1 and its "the store works again"
never came, for as long as nobody changed anything — an alert that never cleared
(found in the Redis drills: a process whose tables had moved to another). While
changes fail, :func:`probe_store` tries the store's
:meth:`~rollbridge.stores.base.Store.probe_write` every :data:`PROBE_EVERY` seconds
on a reader thread — a write that changes nothing a table reads, and fails as a
commit would — and once it is written, the outage ends as a commit would end it.

An outage in which only reads failed (a ``hello`` whose token could not be looked up
while Redis was down) ends when a read works; a process nobody joined after it kept
``rollbridge_store_failing`` at 1 for as long, its ``/readyz`` answering 200 all the
while (found moving a SQLite server to two ``serve --redis`` processes: a minute and
more after Redis was back). While only reads fail, the same loop tries a read
instead (the store's ``probe_read``, else its ``ping``), and once it answers the
outage ends as a read would end it.

Redis's tries go over a new connection each (:meth:`RedisStore.probe_write
<rollbridge.stores.redis.RedisStore.probe_write>`): a password rotated while the
process serves (``CONFIG SET requirepass``, ``ACL SETUSER``) leaves the connections
made before it authenticated, and a try over one of them ended the outage while every
new connection was still refused.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from rollbridge.exceptions import StoreError, StoreUnavailable
from rollbridge.server.throttle import Throttle
from rollbridge.server.web import in_reader

if TYPE_CHECKING:
    from rollbridge.server.app import Server

__all__ = ["PROBE_EVERY", "probe_store"]

log = logging.getLogger("rollbridge.writer")

#: Seconds between two tries of the store while its changes fail.
PROBE_EVERY = 5.0


async def probe_store(server: Server, interval: float = PROBE_EVERY) -> None:
    """Run until cancelled: every ``interval`` seconds, while ``server.health`` says
    changes fail, try a write; written, the outage ends (one WARNING, the gauge 0);
    refused as the store as a whole, the outage goes on (a changed cause, or a
    minute's reminder, said as a commit's failure says it). Either answer may come
    back after a commit's, which is newer: a refusal that comes after a commit ended
    the outage begins none; a write ends none in which a commit failed meanwhile."""
    said = Throttle(60.0)
    while True:
        await asyncio.sleep(interval)
        health = server.health
        if health.reads_failing:
            await _try_a_read(server, said)
            continue
        if not health.changes_failing:
            continue
        failures = health.commit_failures  # one more by its end: this try is older
        try:
            await in_reader(server, server.store.probe_write)
        except StoreUnavailable as exc:
            health.failed(exc, 0, ongoing=True)  # unless a commit ended it meanwhile
        except StoreError:
            continue  # this write's own fault: the next commit or try tells
        except Exception:  # a bug: the next try may work; said at most once a minute
            if said.allow() is not None:
                log.exception("trying the store while its changes fail")
        else:
            health.succeeded(failures=failures)


async def _try_a_read(server: Server, said: Throttle) -> None:
    """While only reads fail: the store's ``probe_read`` (Redis's: a ``PING`` over a
    new connection, refused when the password changed) or else its ``ping``, on a
    reader thread; answered, the outage ends as a read that works ends it (not one in
    which a commit failed meanwhile). Refused, it goes on, said by the reads that
    fail, not here."""
    store = server.store
    try:
        await in_reader(server, getattr(store, "probe_read", store.ping))
    except StoreError:
        return
    except Exception:  # a bug: the next try may work; said at most once a minute
        if said.allow() is not None:
            log.exception("trying the store while its reads fail")
        return
    server.health.read()
