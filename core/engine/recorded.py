"""The request a logged event records, to be executed again (:mod:`.rerun`).

An event that resolved rules names what was asked: a ``resolution`` its action,
actor, targets, parameters, secret or not; an encounter event whose turn hooks ran
(``encounter.started``, ``encounter.turn``) the encounter it started or moved on
(``table_after.encounter``). Every such event names who asked (``by``), the
request's id, and shows its dice in the order drawn: its verifiable ``draws``, else
its dice groups (:func:`rollbridge.dice.verify.event_dice`); dice it says were
supplied are supplied in the request again, the server's are the server's. A log
written before a chip's dice group was tagged ``reroll`` shows the chip's carried dice
beside its new ones, untold apart from a fresh roll's rerolls: such an event also
gives the dice read as a chip's (:attr:`Recorded.chip_dice`).

A resolution the GM approved is the GM's ``approve`` of its pending request, where
the log holds that request (the GM's log, :attr:`LoggedTable.pending
<rollbridge.engine.logtable.LoggedTable.pending>`): with the GM's dice (supplied
dice where the request held none, or other dice than the player's it held, or any
where the approval made the request secret, which takes no player's dice: the GM's in
their place, as a held request of an action since made always secret is approved), or
the player's as they were asked for (the GM's dice equal to them are read so: the
result is the same; where the engine refuses that reading — ``player_dice`` turned off,
the actor or a target no longer the player's — as the GM's: :attr:`Recorded.as_gms`).
Elsewhere it is the player's ``resolve`` (what an approval runs); one with supplied
dice is then not executed again (:func:`recorded` gives None), as the log does not say
whose dice they were, and that decides who the ruleset is told asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rollbridge.dice.verify import event_dice, untagged_chip_dice
from rollbridge.engine.logtable import LoggedTable
from rollbridge.engine.model import Principal
from rollbridge.plain import JSON

__all__ = ["HOOK_KINDS", "Recorded", "recorded"]

#: The encounter events whose turn hooks resolve rules.
HOOK_KINDS = ("encounter.started", "encounter.turn")


@dataclass(frozen=True, slots=True)
class Recorded:
    """A logged event's request: the message, who sent it, and the server's dice
    it rolled (none where they were supplied: the message has them)."""

    message: JSON
    who: Principal
    dice: list[int]
    #: The server's dice read the other way a log written before a chip's group was
    #: tagged allows (:func:`~rollbridge.dice.verify.untagged_chip_dice`); None where
    #: there is no other way (its draws, supplied dice, no such group).
    chip_dice: list[int] | None = None
    #: An approval's dice equal to the player's held ones, read as the player's in
    #: ``message``: the same approval with them as the GM's (the engine's refusal of
    #: the player's reading tells that the GM gave them; :func:`~rollbridge.engine.rerun.rerun`
    #: runs it then). None where there is no other reading.
    as_gms: JSON | None = None


def recorded(table: LoggedTable, frame: Mapping[str, Any]) -> Recorded | None:
    """The request ``frame`` (a resolution or an encounter event that ran turn
    hooks) records, on ``table`` as of the seq before it; None where the log cannot
    tell it (see the module docstring).

    :raises KeyError: TypeError: ValueError: a frame no server writes.
    """
    data, kind = frame["data"], frame["kind"]
    dice = _dice(kind, data)
    supplied = bool(data.get("supplied"))
    own = dice if supplied else None
    chips = None if supplied or _drawn(data) is not None else untagged_chip_dice(kind, data)
    chip_dice = None if chips is None else [value for _faces, value in chips]
    if kind in HOOK_KINDS:
        message = _encounter(table, frame, kind, own)
        return Recorded(message, _principal(frame.get("by")), [] if supplied else dice, chip_dice)
    approved = data.get("approved")
    if "approved_by" in data and approved is not None:
        entry = (table.pending or {}).get(approved) if isinstance(approved, str) else None
        if isinstance(entry, Mapping):
            message: JSON = {"type": "approve", "id": "verify", "request": approved}
            fields = entry.get("fields")
            fields = fields if isinstance(fields, Mapping) else {}
            held = fields.get("dice")
            # an event for the GM alone from a request that did not ask it: its action
            # was always secret at the approval, which takes no player's dice
            made_secret = frame.get("gm_only") is True and not fields.get("secret")
            if supplied and (held is None or held != dice or made_secret):
                # the GM's dice, given with the approval: where the request held the
                # player's, other dice than theirs are the GM's, given in their place
                message["dice"] = dice
            # equal dice read as the player's: where the engine refuses that reading
            # (the table changed since the request: player_dice turned off, the actor
            # or a target no longer the player's), they were the GM's
            as_gms = {**message, "dice": dice} if supplied and "dice" not in message else None
            who = _principal(data["approved_by"])
            return Recorded(message, who, [] if supplied else dice, chip_dice, as_gms)
        if supplied:
            return None
    message = _resolve(frame, data, own)
    return Recorded(message, _principal(frame.get("by")), [] if supplied else dice, chip_dice)


def _resolve(frame: Mapping[str, Any], data: Mapping[str, Any], dice: list[int] | None) -> JSON:
    """The ``resolve`` request a resolution records (``dice``: the dice it supplied)."""
    request: JSON = {
        "type": "resolve",
        "id": _id(frame),
        "action": data.get("action"),
        "params": data.get("params") or {},
    }
    if data.get("actor") is not None:
        request["actor"] = data["actor"]
    if data.get("targets"):
        request["targets"] = data["targets"]
    if dice is not None:
        request["dice"] = dice
    if frame.get("gm_only"):
        request["secret"] = True
        if data.get("requester_sees"):
            request["requester_sees"] = True
    return request


def _encounter(
    table: LoggedTable, frame: Mapping[str, Any], kind: str, dice: list[int] | None
) -> JSON:
    """The ``encounter.start`` or ``encounter.next`` an encounter event records: the
    order it started with, or the new round's order a GM gave with the turn."""
    after = frame["table_after"]["encounter"]
    request: JSON = {"type": "encounter.next", "id": _id(frame)}
    if kind == "encounter.started":
        request = {"type": "encounter.start", "id": _id(frame), "order": after["order"]}
    elif (
        table.encounter is not None
        and after["round"] != table.encounter["round"]
        and after["order"] != table.encounter["order"]
    ):
        request["order"] = after["order"]  # the new round's, given with the turn
    if dice is not None:
        request["dice"] = dice
    return request


def _id(frame: Mapping[str, Any]) -> Any:
    return frame.get("request") if frame.get("request") is not None else "verify"


def _principal(by: Any) -> Principal:
    """Who asked, from an event's ``by`` (``gm``, ``player``, ``player:alice``,
    :meth:`Principal.label`)."""
    role, _, name = str(by).partition(":")
    if role not in ("gm", "player", "observer"):
        role, name = "player", str(by)
    return Principal(role, name or role, "verify")  # type: ignore[arg-type]


def _dice(kind: str, data: Mapping[str, Any]) -> list[int]:
    """The results the event rolled, in the order drawn: its draws, else the dice
    its resolution or turn hooks show as their own."""
    drawn = _drawn(data)
    if drawn is not None:
        return drawn
    return [value for _faces, value in event_dice(kind, data) or []]


def _drawn(data: Mapping[str, Any]) -> list[int] | None:
    """The results of the event's verifiable ``draws``, in order; None without them."""
    draws = data.get("draws")
    if isinstance(draws, Mapping) and isinstance(draws.get("dice"), list):
        return [d[1] for d in draws["dice"] if isinstance(d, list) and len(d) == 2]
    return None
