"""A Bloom filter of strings: "certainly not added" or "maybe added".

The table protocol (:mod:`rollbridge.protocol.table`) keeps one per table for the
idempotency keys its store holds, so a request whose id was never seen (nearly
every request) is executed at once instead of after a store read; a "maybe"
costs that read, and a "no" is always right.

A store keeps a reply for :func:`~rollbridge.stores.base.reply_window` seqs, so a
filter whose every key was added at or before that window's floor holds only keys
the store has forgotten too: :meth:`KeySet.forget_through` drops it. A table
loaded for weeks then keeps a few filters, not one per doubling since it was
loaded (their false "maybe"s add up: 4.3 million keys in 17 filters answered
"maybe" for 8 % of new keys).
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["KeyFilter", "KeySet"]

#: Bits per key at capacity; with :data:`HASHES` hashes, about 1 % false "maybe".
BITS_PER_KEY = 10
#: Bit positions set per key.
HASHES = 4
_MASK64 = (1 << 64) - 1


class KeyFilter:
    """A fixed-size Bloom filter for up to ``capacity`` keys.

    Positions come from Python's own string hash (randomised per process, so
    a filter is never saved or shared between processes) split into two
    halves for double hashing. Past ``capacity`` it still answers correctly,
    only with more false "maybe"; :attr:`full` tells the owner to rebuild it
    bigger.

    :param keys: keys to add at once.
    :param capacity: the number of keys it is sized for (at least 64).
    """

    __slots__ = ("_size", "bits", "capacity", "count", "last_seq")

    def __init__(self, keys: Iterable[str] = (), *, capacity: int = 64, seq: int = 0) -> None:
        self.capacity = max(64, capacity)
        self._size = self.capacity * BITS_PER_KEY
        self.bits = bytearray((self._size + 7) // 8)
        self.count = 0
        #: The table's seq when its latest key was added (its keys' replies are
        #: stored at that seq or before).
        self.last_seq = seq
        for key in keys:
            self.add(key)

    def _positions(self, key: str) -> list[int]:
        value = hash(key) & _MASK64
        first, second = value & 0xFFFFFFFF, (value >> 32) | 1
        size = self._size
        return [(first + i * second) % size for i in range(HASHES)]

    def add(self, key: str) -> None:
        """Remember ``key``."""
        bits = self.bits
        for position in self._positions(key):
            bits[position >> 3] |= 1 << (position & 7)
        self.count += 1

    def __contains__(self, key: object) -> bool:
        """False only for a key that was certainly never added. (Asked once per
        request: the positions are walked here, stopping at the first bit unset,
        without a generator or a list.)"""
        if not isinstance(key, str):
            return False
        value = hash(key) & _MASK64
        first, second = value & 0xFFFFFFFF, (value >> 32) | 1
        size, bits = self._size, self.bits
        for i in range(HASHES):
            position = (first + i * second) % size
            if not bits[position >> 3] & (1 << (position & 7)):
                return False
        return True

    @property
    def full(self) -> bool:
        """More keys were added than it was sized for."""
        return self.count > self.capacity


class KeySet:
    """The idempotency keys of one table: a chain of :class:`KeyFilter`, a bigger
    one added whenever the newest is full, so it forgets no key the store still
    holds a reply for (a forgotten key would let a retried request run twice) and
    its false "maybe"s stay near 1 %. Built again, as small as it can be, whenever
    the table is loaded; filters holding only keys the store has forgotten too are
    dropped (:meth:`forget_through`).

    :param keys: the keys the store holds now.
    :param seq: the table's seq when they were read.
    """

    __slots__ = ("_filters",)

    def __init__(self, keys: Iterable[str] = (), *, seq: int = 0) -> None:
        keys = list(keys)
        self._filters = [KeyFilter(keys, capacity=2 * len(keys), seq=seq)]

    def add(self, key: str, seq: int = 0) -> None:
        """Remember ``key``, whose reply is stored at the table's ``seq`` or before."""
        newest = self._filters[-1]
        if newest.full:
            newest = KeyFilter(capacity=2 * newest.capacity)
            self._filters.append(newest)
        newest.add(key)
        if seq > newest.last_seq:
            newest.last_seq = seq

    def forget_through(self, floor: int) -> None:
        """Drop the filters (all but the newest) whose keys were all added at seq
        ``floor`` or before: the store answers no reply stored at or below it."""
        filters = self._filters
        if len(filters) > 1 and filters[0].last_seq <= floor:
            self._filters = [f for f in filters[:-1] if f.last_seq > floor] + [filters[-1]]

    @property
    def filters(self) -> int:
        """How many filters it holds."""
        return len(self._filters)

    def __contains__(self, key: object) -> bool:
        """False only for a key that was certainly never added."""
        for keys in self._filters:  # noqa: SIM110 - any() and a generator cost more, per request
            if key in keys:
                return True
        return False
