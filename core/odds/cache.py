"""Caches of exact odds bounded by what they hold, and answers that keep nothing.

A long-running server answers ``odds`` requests for any text a client sends, so a
cache of results keyed by what clients choose must be bounded by its memory, not
only by how many entries it has: one entry of ``8d2500`` is megabytes, one of
``3d6`` a few kilobytes. A :class:`BoundedCache` keeps at most ``entries`` values
whose estimated sizes (its ``size`` function, in bytes) add up to at most
``budget``, forgets the least recently used first, and never keeps a value larger
than ``largest`` (one large value must not push out everything else).

Inside :func:`provisional`, what the caches would keep is held aside and kept
only when the block ends without an exception: the server answers an ``odds``
request inside one, so a result it refuses (a reply too large to send, say)
leaves nothing behind. ``docs/dice.md``, "Caches", gives the figures.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Generic, TypeVar

__all__ = ["BoundedCache", "CacheInfo", "provisional"]

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

#: What the caches would keep inside :func:`provisional`: (cache, key, value, size).
_Held = tuple["BoundedCache", Hashable, object, int]
_PENDING: ContextVar[list[_Held] | None] = ContextVar("rollbridge_odds_pending", default=None)


@dataclass(frozen=True, slots=True)
class CacheInfo:
    """A cache's counters: look-ups answered and not, values kept, their bytes."""

    hits: int
    misses: int
    entries: int
    bytes: int


class BoundedCache(Generic[K, V]):
    """A least-recently-used cache bounded by entries and by bytes (see the module
    docstring). Safe to share between threads.

    :param entries: the most values kept.
    :param budget: the most bytes the kept values may take together, by ``size``.
    :param largest: the largest value kept, in bytes (at most ``budget``).
    :param size: a value's size in bytes: an estimate, never below what it holds.
    """

    def __init__(
        self, *, entries: int, budget: int, largest: int, size: Callable[[V], int]
    ) -> None:
        self.entries = entries
        self.budget = budget
        self.largest = min(largest, budget)
        self._size = size
        self._kept: OrderedDict[K, tuple[V, int]] = OrderedDict()
        self._bytes = 0
        self._hits = self._misses = 0
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        """The value kept for ``key`` (or held aside for it in this
        :func:`provisional` block), else None."""
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                self._hits += 1
                return found[0]
            self._misses += 1
        for cache, held_key, value, _ in _PENDING.get() or ():
            if cache is self and held_key == key:
                return value  # type: ignore[return-value]
        return None

    def put(self, key: K, value: V) -> bool:
        """Keep ``value`` for ``key`` (inside :func:`provisional`: hold it aside).
        Returns whether it was kept or held: not when larger than :attr:`largest`."""
        size = self._size(value)
        if size > self.largest:
            return False
        self._keep(key, value, size)
        return True

    def _keep(self, key: K, value: V, size: int) -> None:
        pending = _PENDING.get()
        if pending is not None:
            pending.append((self, key, value, size))
            return
        with self._lock:
            old = self._kept.pop(key, None)
            if old is not None:
                self._bytes -= old[1]
            self._kept[key] = (value, size)
            self._bytes += size
            while len(self._kept) > self.entries or self._bytes > self.budget:
                _, (_, freed) = self._kept.popitem(last=False)
                self._bytes -= freed

    def cached(self, key: K, compute: Callable[[], V]) -> V:
        """The value for ``key``: the kept one, else ``compute()`` (then kept)."""
        value = self.get(key)
        if value is None:
            value = compute()
            self.put(key, value)
        return value

    def clear(self) -> None:
        """Forget every value and the counters."""
        with self._lock:
            self._kept.clear()
            self._bytes = self._hits = self._misses = 0

    def __len__(self) -> int:
        return len(self._kept)

    def __contains__(self, key: object) -> bool:
        return key in self._kept

    def info(self) -> CacheInfo:
        """The counters and what is kept."""
        with self._lock:
            return CacheInfo(self._hits, self._misses, len(self._kept), self._bytes)


@contextmanager
def provisional() -> Iterator[None]:
    """Hold aside what every :class:`BoundedCache` would keep inside the block; keep
    it when the block ends normally, drop it when an exception ends it."""
    pending: list[_Held] = []
    token = _PENDING.set(pending)
    try:
        yield
    finally:
        _PENDING.reset(token)
    for cache, key, value, size in pending:  # only reached without an exception
        cache._keep(key, value, size)  # into an enclosing block's, if there is one
