"""What each audience sees: actors, events and snapshots. The one place that decides it.

There are two audiences. The GM sees everything. Everyone else — players and
observers — sees the actors some player controls in full, and the actors no
player controls (NPCs) only through the ruleset's
:meth:`~rollbridge.contract.Ruleset.player_view`; of an event they see every
value and text argument a ruleset marked :class:`~rollbridge.text.Private` only
where the actor it belongs to is a player's, or where the ruleset
:meth:`~rollbridge.contract.Ruleset.reveals` that aspect under the table's
settings; GM-only events reach them as a ``{"kind": "hidden"}`` placeholder
that keeps the seq sequence gap-free and carries only the actors the event
changed, as this audience sees them. Texts are rendered per audience and
locale (:mod:`rollbridge.text`).

Because the players' view is the same for every player, a server builds at most
one view of each event per audience and locale.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping
from typing import Any, NamedTuple

from rollbridge.contract import Actor, Ruleset
from rollbridge.engine.legacy import before_texts, withheld
from rollbridge.engine.model import ActorRecord, Event
from rollbridge.engine.places import index
from rollbridge.plain import JSON
from rollbridge.text import Hides, view_of, view_pair

__all__ = [
    "GM",
    "PLAYERS",
    "Audience",
    "actor_view",
    "event_view",
    "hides_for",
    "hides_now",
    "record_actor",
    "reshown",
    "shown_alike",
    "staged_data",
]


class Audience(NamedTuple):
    """Who a view is for: the GM or everyone else, and the locale of its texts.
    (A named tuple: views and frames are cached by audience, so it is hashed often.)

    ``requester``: the player who asked for a secret event with ``requester_sees``
    (Foundry's GM roll: the GM and the roller see it) — the event as players would
    see it were it not secret, NPC details hidden as ever; only their reply has it.
    """

    gm: bool
    locale: str = "en"
    requester: bool = False

    @property
    def name(self) -> str:
        """``gm``, ``players`` or ``requester``: the name replies use for the view
        they carry."""
        return "gm" if self.gm else "requester" if self.requester else "players"

    @classmethod
    def named(cls, name: str, locale: str = "en") -> Audience:
        """The audience of a reply's ``view`` (``gm``, ``players`` or ``requester``)."""
        return cls(name == "gm", locale, name == "requester")


GM = Audience(True)
PLAYERS = Audience(False)


def record_actor(record: ActorRecord | Mapping[str, Any]) -> Actor:
    """The ruleset's view of an actor record (an :class:`ActorRecord` or its dict)."""
    if isinstance(record, ActorRecord):
        return Actor(record.id, record.name, record.sheet, record.state)
    return Actor(record["id"], record["name"], record["sheet"], record["state"])


def actor_view(
    record: Mapping[str, Any] | ActorRecord,
    *,
    gm: bool,
    ruleset: Ruleset,
    settings: Mapping[str, Any],
    locale: str = "en",
    controlled: Callable[[str], bool] | None = None,
) -> JSON:
    """An actor record as a viewer sees it, with its common damage state (its
    texts rendered in ``locale``).

    :param record: the stored record (id, name, sheet, state, controllers).
    :param gm: whether the viewer is the GM.
    :param ruleset: the table's ruleset.
    :param settings: the ruleset's table settings.
    :param controlled: whether a player controls an actor (as the table stood where
        the view is of): a player's actor's detail in an NPC's common state reads in
        full to players, as in a result. None: no actor is taken for a player's.
    """
    if isinstance(record, ActorRecord):
        record = record.as_data()
    actor = record_actor(record)
    if gm or record.get("controllers"):
        return {
            "id": record["id"],
            "name": record["name"],
            "sheet": record["sheet"],
            "state": record["state"],
            "controllers": list(record.get("controllers") or ()),
            "common": ruleset.common_state(actor).to_dict(locale),
        }
    view = ruleset.player_view(actor, settings)
    return {
        "id": record["id"],
        "name": record["name"],
        "sheet": view.sheet,
        "state": view.state,
        "controllers": [],
        "common": view.common.to_dict(locale, _npc_hides(ruleset, settings, controlled)),
        "limited": True,
    }


def reshown(
    records: Iterable[ActorRecord],
    *,
    ruleset: Ruleset,
    before: Mapping[str, Any],
    after: Mapping[str, Any],
) -> list[ActorRecord]:
    """The NPCs among ``records`` whose players' view differs under the ruleset's
    settings ``after`` from under ``before`` (a ``settings`` change that shows or
    hides their details): players are sent their new views with the change
    (:attr:`Event.shown <rollbridge.engine.model.Event.shown>`). Decided on the
    English views; a player's character, which players see in full, never is one."""
    found = []
    for record in records:
        if record.controllers:
            continue
        old = actor_view(record, gm=False, ruleset=ruleset, settings=before)
        if old != actor_view(record, gm=False, ruleset=ruleset, settings=after):
            found.append(record)
    return found


def _npc_hides(
    ruleset: Ruleset, settings: Mapping[str, Any], controlled: Callable[[str], bool] | None
) -> Hides:
    """What players may not see of a :class:`~rollbridge.text.Private` argument in
    the texts of an NPC's common state (a condition, the modifier note): whatever
    aspect the ruleset does not reveal under the table's settings — of the NPC, or of
    any other actor no player controls (``controlled``; None: every actor is taken for
    an NPC, for a view that cannot tell)."""
    return _hides({}, ruleset, settings, controlled or _nobodys, failing_hides=False)


def _nobodys(actor_id: str) -> bool:
    """No actor is taken for a player's (:func:`_npc_hides` without ``controlled``)."""
    return False


def hides_for(
    event: Event,
    ruleset: Ruleset,
    settings: Mapping[str, Any],
    controlled: Callable[[str], bool],
) -> Hides:
    """The players' ``hides(actor, aspect)`` for one event: a detail is hidden when
    its actor is no player's (as the event's own records say, else ``controlled``:
    as the table was at the event's seq, its
    :class:`~rollbridge.engine.redaction.Redaction`) and the ruleset does not reveal
    its aspect (``settings``: the ruleset's own, at that seq)."""
    return _hides(_owners(event), ruleset, settings, controlled, failing_hides=False)


def _owners(event: Event) -> dict[str, bool]:
    """Whether a player controlled each actor the event changed, as its records say."""
    owners: dict[str, bool] = {}
    for change in event.changes:
        record = change["after"] or change["before"]
        if record is not None:
            owners[change["actor"]] = bool(record.get("controllers"))
    return owners


def _controlled_by(event: Event, controlled: Callable[[str], bool]) -> Callable[[str], bool]:
    """Whether a player controlled an actor as ``event`` left the table: as its own
    records say for the actors it changed, else as ``controlled`` says."""
    owners = _owners(event)

    def owned(actor_id: str) -> bool:
        found = owners.get(actor_id)
        return controlled(actor_id) if found is None else found

    return owned


def hides_now(
    ruleset: Ruleset, settings: Mapping[str, Any], controlled: Callable[[str], bool]
) -> Hides:
    """The players' ``hides(actor, aspect)`` as the table is now (for a text that
    is no event's, such as a refusal's message), as :func:`hides_for` decides it
    (``settings``: the ruleset's own); a ruleset whose ``reveals`` fails reveals
    nothing."""
    return _hides({}, ruleset, settings, controlled, failing_hides=True)


def _hides(
    owners: dict[str, bool],
    ruleset: Ruleset,
    settings: Mapping[str, Any],
    controlled: Callable[[str], bool],
    *,
    failing_hides: bool,
) -> Hides:
    revealed: dict[str, bool] = {}

    def hides(actor_id: str, aspect: str) -> bool:
        owned = owners.get(actor_id)
        if owned is None:
            owned = owners[actor_id] = controlled(actor_id)
        if owned:
            return False
        shown = revealed.get(aspect)
        if shown is None:
            try:
                shown = bool(ruleset.reveals(aspect, settings))
            except Exception:
                if not failing_hides:
                    raise
                shown = False
            revealed[aspect] = shown
        return not shown

    return hides


def _legacy_hidden(event: Event, data: Mapping[str, Any], npcs: frozenset[str]) -> frozenset[str]:
    return frozenset(
        change["actor"]
        for change in event.changes
        if change["after"] is not None and not change["after"].get("controllers")
    ) | frozenset(
        actor_id
        for actor_id in (data.get("actor"), *data.get("targets", ()))
        if actor_id is not None and actor_id in npcs
    )


def _overrides_player_resolution(ruleset: Ruleset) -> bool:
    return type(ruleset).player_resolution is not Ruleset.player_resolution


def event_view(
    event: Event,
    *,
    audience: Audience,
    ruleset: Ruleset,
    settings: Mapping[str, Any],
    controlled: Callable[[str], bool],
    npcs: frozenset[str] = frozenset(),
    data: JSON | None = None,
) -> JSON:
    """An event as an audience receives it: its place, what happened (private values
    hidden, texts rendered), and the new view of every actor it touched
    (``{"id": ..., "removed": true}`` for one removed; ``index``, its place among
    the table's actors, for one put back where it stood, :mod:`rollbridge.engine.places`);
    for players and observers also of every actor whose view they see differently
    after it though it did not change them (:attr:`Event.shown
    <rollbridge.engine.model.Event.shown>`, after those it changed). ``before``
    records stay in the log; they never go out.

    :param settings: the ruleset's settings as the event left the table.
    :param controlled: whether a player controlled an actor as the event left the
        table (for actors the event itself does not record; see
        :mod:`rollbridge.engine.redaction`).
    :param npcs: the actors no player controlled then, for a ruleset that still
        overrides the deprecated :meth:`~rollbridge.contract.Ruleset.player_resolution`
        and for an event stored before texts were data (:mod:`rollbridge.engine.legacy`).
    :param data: the event's data as this audience sees it (private values hidden,
        texts rendered), when the caller built it already (:func:`staged_data`).
    """
    gm = audience.gm
    actors: list[JSON] = []
    owned = None if gm or not (event.changes or event.shown) else _controlled_by(event, controlled)
    for change in event.changes:
        after = change["after"]
        if after is None:
            actors.append({"id": change["actor"], "removed": True})
            continue
        view = actor_view(
            after,
            gm=gm,
            ruleset=ruleset,
            settings=settings,
            locale=audience.locale,
            controlled=owned,
        )
        at = index(change) if change["before"] is None else None
        if at is not None:  # put back where it stood (an undone removal)
            view = {**view, "index": at}
        actors.append(view)
    if not gm:  # the actors whose players' view the event changed without changing them
        for record in event.shown:
            actors.append(
                actor_view(
                    record,
                    gm=False,
                    ruleset=ruleset,
                    settings=settings,
                    locale=audience.locale,
                    controlled=owned,
                )
            )
    if event.gm_only and not gm and not audience.requester:
        # A secret hides how (dice, texts, data), not the table it leaves: the actors
        # it changed, as this audience may see them, so that a client's actors agree
        # with `state` at every seq (protocol.md, "Visibility").
        hidden: JSON = {"kind": "hidden", "epoch": event.epoch, "seq": event.seq}
        if actors:
            hidden["actors"] = actors
        return hidden
    seen = data
    data = event.data
    hides = None  # the players' (made only where needed: the staged data has it applied)
    if seen is not None:
        data = seen
    elif event.texts or (event.private and not gm):
        if not gm:
            hides = hides_for(event, ruleset, settings, controlled)
        memo = event.views.setdefault(("rendered", audience.locale), {})
        data = view_of(
            data,
            event.texts,
            event.private,
            locale=audience.locale,
            hides=hides,
            memo=memo,
            places=event.places(),
        )
    if not gm:
        if "draws" in data and hides is None:
            hides = hides_for(event, ruleset, settings, controlled)
        if "draws" in data and _hides_any(event, hides):  # type: ignore[arg-type]
            # the raw dice of an event with hidden details could tell them (how many
            # dice an NPC rolled): players get the segment, not the dice
            data = {**data, "draws": {"segment": data["draws"]["segment"], "withheld": True}}
        if event.kind == "adjusted" and not controlled(data.get("actor", "")):
            data = {"actor": data["actor"]}  # how many boxes the GM added is the GM's business
        if _overrides_player_resolution(ruleset):
            data = _legacy_player_resolution(event, data, ruleset, settings, npcs)
        elif before_texts(event):
            data = withheld(
                event,
                data,
                locale=audience.locale,
                hidden=lambda actor_id: bool(npcs) and (actor_id is None or actor_id in npcs),
                touches_npc=bool(_legacy_hidden(event, data, npcs)),
            )
    view: JSON = {
        "kind": event.kind,
        "epoch": event.epoch,
        "seq": event.seq,
        "data": data,
        "actors": actors,
        "request": event.request,
        "by": event.by,
    }
    if event.at is not None:
        view["at"] = event.at
    if event.reread and not gm:  # too many actors to carry: read `state` again
        view["reread"] = True
    if event.table_change:
        after_table = dict(event.table_change["after"])
        if not gm:
            after_table.pop("pending", None)
        if after_table:  # the table's changed fields after the event; "table" is its id
            view["table_after"] = after_table
    if gm and event.gm_only:
        view["gm_only"] = True
    return view


def staged_data(
    event: Event,
    *,
    ruleset: Ruleset,
    settings: Mapping[str, Any],
    controlled: Callable[[str], bool],
    locale: str = "en",
) -> tuple[JSON, JSON] | None:
    """The event's data as the GM and as the players see it, walked once for both
    (:func:`~rollbridge.text.view_pair`), for :func:`event_view`'s ``data``; None
    where there is nothing to walk, or players see the event as ``hidden``."""
    if event.gm_only or not (event.texts or event.private):
        return None
    memo = event.views.setdefault(("rendered", locale), {})
    return view_pair(
        event.data,
        event.texts,
        event.private,
        hides=hides_for(event, ruleset, settings, controlled),
        locale=locale,
        memo=memo,
        places=event.places(),
    )


def _hides_any(event: Event, hides: Hides) -> bool:
    """Whether players miss any of the event's private values."""
    return any(hides(entry[1], entry[2]) for entry in event.private)


def shown_alike(
    event: Event, ruleset: Ruleset, controlled: Callable[[str], bool], texts_private: bool
) -> bool:
    """Whether players see exactly what the GM sees of ``event`` (then one view serves
    both): not GM-only, no private value, no private argument in its texts
    (``texts_private``, as the GM's view met them), every actor it shows a player's,
    no pending requests in it, no actor whose players' view it changed alone
    (:attr:`Event.shown <rollbridge.engine.model.Event.shown>`, :attr:`Event.reread
    <rollbridge.engine.model.Event.reread>`), and a ruleset that
    does not redact by itself."""
    if (
        event.gm_only
        or event.private
        or event.shown
        or event.reread
        or texts_private
        or _overrides_player_resolution(ruleset)
    ):
        return False
    for change in event.changes:
        after = change["after"]
        if after is not None and not after.get("controllers"):
            return False
    if event.table_change and "pending" in event.table_change["after"]:
        return False
    return event.kind != "adjusted" or controlled(event.data.get("actor", ""))


def _legacy_player_resolution(
    event: Event, data: JSON, ruleset: Ruleset, settings: Mapping[str, Any], npcs: frozenset[str]
) -> JSON:
    """A ruleset written before texts were data redacts rendered resolutions itself.
    It is given a copy: it may change what it is given in place, and the players' data
    shares the GM's objects where they read alike (:func:`~rollbridge.text.view_pair`)."""
    data = copy.deepcopy(data)
    if event.kind == "resolution":
        hidden = _legacy_hidden(event, data, npcs)
        if hidden:
            data = ruleset.player_resolution(data, hidden, settings)
    if data.get("hooks") and npcs:
        hooks = []
        for entry in data["hooks"]:
            shown = ruleset.player_resolution({"action": entry["hook"], **entry}, npcs, settings)
            hooks.append({k: v for k, v in shown.items() if k != "action" or "action" in entry})
        data = {**data, "hooks": hooks}
    return data
