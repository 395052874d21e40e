"""Which undo and redo entries a table still offers once some events have left the
retained log (the store's ``retain``).

An undo entry whose event has gone cannot be undone; the others still can, each on
its own. Redo is stricter: it goes in order, from the top of its stack (the latest
undone event) down, so an entry that has gone takes every entry under it along —
keeping them would let the next redo re-apply a different change than the one the
GM was offered. The running table, a table loaded again and a follower all trim by
these two functions, so all three offer the same undo and redo.
"""

from __future__ import annotations

from collections.abc import Callable


def undo_in_reach(undo: list[int], kept: Callable[[int], bool]) -> list[int]:
    """The undo entries (seqs, bottom first) whose events are still ``kept``."""
    return [seq for seq in undo if kept(seq)]


def redo_in_reach(redo: list[int], kept: Callable[[int], bool]) -> list[int]:
    """The redo entries (seqs, bottom first) still reachable from the top: those
    above the topmost entry whose event is not ``kept``."""
    for index in range(len(redo) - 1, -1, -1):
        if not kept(redo[index]):
            return redo[index + 1 :]
    return list(redo)
