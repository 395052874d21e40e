"""How much work one exact distribution may take: the bounds, and lowering them.

Every computation of :mod:`rollbridge.odds` checks its cost against the
:class:`Bounds` in force before it starts the step that would pass them, and
refuses with :class:`~rollbridge.exceptions.DiceLimitExceeded` (``dice_limit``)
rather than approximate. :data:`DEFAULT_BOUNDS` (about half a second at worst on
one core) serve the CLI and the library; a server answering many players lowers
them for its ``odds`` requests with :func:`bounded` (:data:`SERVER_BOUNDS`, a few
tens of milliseconds at worst: ``docs/performance.md``, "Exact odds"). The bounds
live in a context variable, so one thread's or task's bounds never leak into
another's.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

__all__ = ["DEFAULT_BOUNDS", "SERVER_BOUNDS", "Bounds", "bounded", "current"]


@dataclass(frozen=True, slots=True)
class Bounds:
    """The most work one distribution may take.

    :param pairs: outcome pairs one combination of two laws may visit (``*``, ``/``).
    :param bits: the largest packed law one convolution may build, in bits.
    :param totals: the most totals one plain ``NdF`` term may have.
    :param order_steps: steps of the law of a kept block (``kh``, ``kl``, ``dh``, ``dl``).
    :param unit_states: states of one die with what it adds (explosions, rerolls).
    :param plain_bits: the size of a plain ``NdF`` term's law, in bits (its totals
        × the bits of its denominator ``F^N``): big-integer arithmetic, not steps,
        is what a term of many dice costs.
    """

    pairs: int
    bits: int
    totals: int
    order_steps: int
    unit_states: int
    plain_bits: int


#: The library's and the CLI's bounds (``50d6!!`` is near ``bits``).
DEFAULT_BOUNDS = Bounds(
    pairs=1_000_000,
    bits=8_000_000,
    totals=1_000_000,
    order_steps=3_000_000,
    unit_states=20_000,
    # 999d6 (1.3e7 bits), 1d1000000 (2e7) and 50d1000 (2.5e7) are inside; past it the
    # law's reduced fractions alone took minutes and gigabytes (999d1000: 1e10 bits)
    plain_bits=40_000_000,
)
#: What ``rollbridge serve`` allows one ``odds`` request: every formula within them
#: is answered in tens of milliseconds (docs/performance.md, "Exact odds of actions").
SERVER_BOUNDS = Bounds(
    pairs=20_000,
    bits=1_000_000,
    totals=20_000,
    order_steps=300_000,
    unit_states=5_000,
    plain_bits=2_000_000,
)

_CURRENT: ContextVar[Bounds] = ContextVar("rollbridge_odds_bounds", default=DEFAULT_BOUNDS)


def current() -> Bounds:
    """The bounds in force in this context."""
    return _CURRENT.get()


@contextmanager
def bounded(bounds: Bounds) -> Iterator[Bounds]:
    """Compute under ``bounds`` inside the ``with`` block (restored after it)."""
    token = _CURRENT.set(bounds)
    try:
        yield bounds
    finally:
        _CURRENT.reset(token)
