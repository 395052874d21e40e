"""The Foundry VTT dialect adapter: inbound.py and outbound.py behind the
:class:`~rollbridge.adapter.Adapter` contract."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from rollbridge import __version__
from rollbridge.adapter import Adapter

from . import checked, inbound, outbound

__all__ = ["ACTOR_KINDS", "FoundryAdapter"]

#: The event kinds that change actors: the module writes their actors' flags from the
#: ``players`` copy (docs/foundry.md, "What every client may read of an actor").
ACTOR_KINDS = ("actor.created", "actor.updated", "actor.removed", "adjusted", "undo", "redo")
#: A settings change: its GM frame carries ``players`` when it changed how players see
#: some actor (those actors' views are in the players' copy alone, core/protocol/members.py).
SETTINGS = "settings"
#: A GM-only event as players receive it: of one that changed actors, their views.
HIDDEN = "hidden"
#: The GM's welcome: its ``players`` holds the NPCs as players see them (a snapshot's
#: table is the GM's view alone; core/protocol/table.py).
WELCOME = "welcome"
#: The event kinds whose GM frame carries ``players`` whenever the event is not GM-only
#: (a ``settings`` change's only when it changed how players see some actor, which its
#: frame does not say: core/protocol/members.py).
PLAYERS_ALWAYS = frozenset(
    ("roll", "resolution", "encounter.started", "encounter.turn", *ACTOR_KINDS)
)


class FoundryAdapter(Adapter):
    """``"dialect": "foundry"``: Foundry's rolls in, Foundry-shaped results out
    (docs/foundry.md, docs/protocol.md).

    ``public_view``: the GM's ``event`` frame of a ``roll``, a ``resolution``, an
    ``encounter.started`` or an ``encounter.turn`` (whose turn hooks' results the
    module posts as cards), and of every event that changes actors (``actor.*``,
    ``adjusted``, ``undo``, ``redo``), that is not GM-only also carries ``players``,
    the same event as a player in the GM's locale is sent it (its own ``foundry``
    fields). The GM's client writes the world's chat cards and the actors' flags,
    which Foundry hands to every client: it posts a public card from ``players``,
    and writes each actor's flags from its view there, so neither holds what the
    players' view leaves out (an NPC's armour, boxes, pool, hidden numbers). The
    GM's frame of a GM-only event that changed actors carries as ``players`` the
    ``hidden`` event players are sent, with their views of those actors: the module
    writes the actors' flags from it and posts no card from it. The GM's frame of a
    ``settings`` change that changed how players see some actors (an NPC's details
    shown or hidden) carries it too: the GM's own view of those actors did not
    change, so their new players' views are in ``players`` alone, and the module
    writes their flags from there; of one too large to store their records
    (``reread``), the GM's copy lists the players' view of every NPC of the table as
    it stands (core/protocol/members.py), which a GM's ``state`` could not give.
    The GM's snapshot ``welcome`` (a first connection, a restored table, a resume the
    log no longer reaches) carries ``players: {actors}``, the NPCs of the table as
    players see them: the module writes their flags from it rather than withhold them.
    A recovered resume's welcome carries none (its bytes would take the room of the
    missed events: core/protocol/table.py).
    Results do not carry it; the module writes from events only."""

    id: ClassVar[str] = "foundry"
    name: ClassVar[str] = "Foundry VTT"
    version: ClassVar[str] = __version__
    #: Its event frames' own fields: ``foundry`` (outbound.py: the chat card's rolls,
    #: speaker and texts; the turn hooks' rolls) and the GM's ``players``
    #: (``public_view``).
    event_fields: ClassVar[frozenset[str]] = frozenset({"foundry", "players"})
    #: The event kinds whose GM frames carry the players' view (core/protocol/members.py).
    public_view: ClassVar[frozenset[str]] = frozenset(
        (
            "roll",
            "resolution",
            *PLAYERS_ALWAYS,
            SETTINGS,
            HIDDEN,
            WELCOME,
        )
    )

    def inbound(self, message: Mapping[str, Any]) -> dict[str, Any]:
        return inbound.translate(message)

    def outbound(self, message: Mapping[str, Any]) -> dict[str, Any]:
        return outbound.translate(message, self.version)

    def plain(self, frame: Mapping[str, Any]) -> dict[str, Any]:
        """``frame`` without the ``foundry`` fields :meth:`outbound` adds (its own and
        each actor view's) and the GM's ``players`` (:func:`outbound.plain`)."""
        return outbound.plain(frame)

    def unlike(self, frame: Mapping[str, Any]) -> str | None:
        """Where ``frame``'s Foundry fields (the chat card's rolls, speaker and texts,
        each actor view's flags and system paths, the welcome's) are not what this
        adapter makes of the plain frame, or its GM's ``players`` copy not the same
        event (:func:`checked.unlike`)."""
        return checked.unlike(frame, self.version)

    def missing(self, frame: Mapping[str, Any], welcome: Mapping[str, Any]) -> str | None:
        """Where a line of a Foundry log (its ``welcome`` names this adapter) lacks its
        Foundry fields: all of them (a line the adapter adds to), or, in a GM's log,
        the ``players`` copy its frame always carries (:func:`checked.missing`)."""
        return checked.missing(frame, welcome, self.version, PLAYERS_ALWAYS)

    def written_by(self, frame: Mapping[str, Any]) -> str | None:
        """The adapter version a welcome's ``foundry.adapter`` names."""
        return checked.written_by(frame)
