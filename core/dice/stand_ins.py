"""What a player's log can tell of its ``hidden`` stand-ins (``rollbridge verify``).

A player's view gets every GM-only event as a stand-in, ``{"kind": "hidden",
"epoch": e, "seq": s}`` (and the actors it changed, as players see them): a secret
roll or resolution, a player's request held for the GM (``approval.requested``),
the GM's seed at a reveal (``dice.revealed.gm``), an undo or redo of a secret
event. The stand-in says none of this. :class:`StandIns` notes what the events
around each stand-in tell of it:

* the GM's seed at a reveal: the reveal of a segment with a GM stream writes
  ``dice.revealed.gm`` at the seq just before its public ``dice.revealed`` (one
  request's events, in order, nothing between them), so the stand-in at that seq
  is the GM's seed;
* a request held for the GM: an approval or a rejection of the log names it (its
  ``p`` and seq); that it was one is the server's word, which
  :mod:`rollbridge.dice.approvals_check` holds to what the log shows;
* whether the stand-in changed actors (a request held for the GM changes none).

The rest — a secret roll or resolution, its undo or redo, a request still waiting —
cannot be told from a player's roll the server hid and rolled again: the stand-in
says neither who asked nor for what, and the log does not hold what each player
asked for (docs/dice.md, "What it cannot check").
"""

from __future__ import annotations

from typing import Any

__all__ = ["StandIns"]


class StandIns:
    """The ``hidden`` stand-ins of one log and what the events around them tell."""

    def __init__(self) -> None:
        #: Each stand-in, by epoch and seq: whether it changed actors.
        self._changed: dict[tuple[Any, int], bool] = {}
        #: The seqs of public reveals of segments with a GM stream, by epoch.
        self._reveals: set[tuple[Any, int]] = set()
        #: The stand-ins an approval or a rejection names as its request.
        self._named: set[tuple[Any, int]] = set()
        #: Of those, the ones the client's own replies tie to its own request.
        self._own: set[tuple[Any, int]] = set()

    def hidden(self, epoch: Any, seq: int, changed: bool) -> None:
        """A stand-in at ``seq``; ``changed``: it lists actors it changed."""
        self._changed.setdefault((epoch, seq), changed)

    def revealed(self, epoch: Any, seq: int, gm_stream: bool) -> None:
        """A public ``dice.revealed`` at ``seq``; ``gm_stream``: its segment has a GM
        stream (its commitment names ``gm_commitment``), whose seed the GM-only event
        just before it reveals."""
        if gm_stream:
            self._reveals.add((epoch, seq))

    def named(self, epoch: Any, seq: int) -> None:
        """An approval or a rejection names the request at ``seq``."""
        self._named.add((epoch, seq))

    def own(self, epoch: Any, seq: int) -> None:
        """The client's own reply ties the request at ``seq`` to a request of its own
        (:meth:`rollbridge.dice.own_replies.OwnReplies.own_request`)."""
        self._own.add((epoch, seq))

    def changed(self, epoch: Any, seq: int) -> bool:
        """Whether the stand-in at ``seq`` changed actors."""
        return self._changed.get((epoch, seq), False)

    def gm_seed(self, epoch: Any, seq: int) -> bool:
        """Whether the stand-in at ``seq`` is the GM's seed of a reveal (a public
        reveal of a segment with a GM stream at the next seq). Known once that
        reveal is read: an approval that names it comes after both."""
        return (epoch, seq + 1) in self._reveals

    def told(self) -> tuple[int, int, int]:
        """How many stand-ins the log tells: GM's seeds at reveals, requests an
        approval or a rejection names (not one of those), and of those requests the
        ones the client's own replies tie to its own (the rest could be secret rolls
        of the GM's passed off as requests)."""
        seeds = sum(1 for epoch, seq in self._changed if self.gm_seed(epoch, seq))
        named = [key for key in self._changed if key in self._named and not self.gm_seed(*key)]
        return seeds, len(named), sum(1 for key in named if key in self._own)
