"""The work a call does, counted: how the dice tests bound "refused before any work"
and "an endless explosion stops" without timing anything.

A wall-clock bound (``perf_counter() - started < 1``) fails on a loaded machine and
passes a change that made the work ten times larger on a fast one; the number of
Python and C function calls a deterministic call makes is the same on every machine
and grows with the work (``sys.setprofile`` sees each ``call`` and ``c_call``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType
from typing import Any

__all__ = ["Count", "counting"]


@dataclass
class Count:
    """The calls made inside a :func:`counting` block."""

    calls: int = 0


@contextmanager
def counting() -> Iterator[Count]:
    """Count the Python and C function calls made inside the block, exceptions
    raised in it included (the profile hook is removed whatever happens)."""
    count = Count()

    def hook(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" or event == "c_call":
            count.calls += 1

    sys.setprofile(hook)
    try:
        yield count
    finally:
        sys.setprofile(None)
