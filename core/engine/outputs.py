"""What a ruleset returns, turned into an event's plain data.

A :class:`~rollbridge.contract.Resolution` holds texts, private values and dice
records; an event holds plain data and says where its texts and private values
are (:func:`rollbridge.text.extract`). The conversion checks the data on the
way, so a ruleset's result that could not be stored or sent — an integer
beyond 64 bits, a NaN, text that is not valid Unicode, an undeclared message —
is refused with ``internal`` before the table changes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rollbridge.contract import Resolution, Ruleset
from rollbridge.exceptions import InternalError
from rollbridge.plain import JSON, NotPlain, ensure_plain
from rollbridge.text import Messages, extract, privatized

__all__ = ["Output", "resolution_output"]

#: The fields of a dice group a ruleset may give as texts or mark private.
_GROUP_FIELDS = ("label", "formula", "total", "target", "successes", "note")
_PLAIN = frozenset({str, int, float, bool})

say = Messages("rollbridge")

#: ``(data, texts, private)``: see :func:`rollbridge.text.extract`.
Output = tuple[JSON, list[list[Any]], list[list[Any]]]


def _follow_up(ruleset: Ruleset, apply: Any) -> JSON:
    """A resolution's ``apply``, checked: an action of the ruleset and its parameters."""
    action = apply.get("action") if isinstance(apply, Mapping) else None
    params = apply.get("params", {}) if isinstance(apply, Mapping) else None
    plain = isinstance(params, Mapping)
    if plain:
        try:  # plain data only: a Private or a Text would read otherwise to players
            ensure_plain(params, "apply.params")
        except NotPlain:
            plain = False
    if action not in ruleset.actions or not plain:
        # a stored private form in it as the Private it stands for: the requester (a
        # player) reads this, and the log
        raise InternalError(
            say(
                "internal.bad_follow_up",
                "ruleset {ruleset} returned a follow-up that is not one of its actions "
                "with parameters of plain data: {apply}",
            )(ruleset=repr(ruleset.id), apply=repr(privatized(apply))[:200]),
            details={"field": "apply"},
        )
    return {"action": action, "params": dict(params)}


def resolution_output(
    ruleset: Ruleset,
    resolution: Resolution,
    head: Mapping[str, Any],
    params: Mapping[str, Any] | None = None,
    *,
    prefix: tuple[Any, ...] = (),
    words: int | None = None,
) -> Output:
    """The event data of a resolution: ``head`` (the action, actors, …) followed by
    the parameters (the resolution's marked ones, if it returned any), narration,
    outcome, dice and steps, and the version of the ruleset's words it was written in
    (``words``: the ruleset's newest where None; left out at 1). Paths are relative to
    the event's data, under ``prefix``.

    :raises InternalError: naming the ruleset and the offending value.
    """
    out: JSON = dict(head)
    if params is not None:
        out["params"] = resolution.params if resolution.params is not None else params
    out["narration"] = resolution.narration
    out["outcome"] = resolution.outcome
    out["steps"] = list(resolution.steps)
    if resolution.apply is not None:
        out["apply"] = _follow_up(ruleset, resolution.apply)
    written = words if words is not None else ruleset.words
    if written != 1:
        out["words"] = written
    try:
        data, texts, private = extract(out, where="resolution")
        # Dice records are the dice engine's plain data; only a group's own fields
        # may hold a ruleset's texts and marks.
        dice = []
        for index, group in enumerate(resolution.dice):
            fields = group.to_dict()
            for key in _GROUP_FIELDS:
                value = fields.get(key)
                if value is not None and value.__class__ not in _PLAIN:
                    found, where, marked = extract(value, where=f"resolution.dice[{index}]")
                    fields[key] = found
                    if where:
                        texts += [["dice", index, key, *p] for p in where]
                    if marked:
                        private += [[["dice", index, key, *e[0]], *e[1:]] for e in marked]
            dice.append(fields)
        data["dice"] = dice
    except NotPlain as exc:
        raise InternalError(
            say(
                "internal.result_unstorable",
                "ruleset {ruleset} returned a result that cannot be stored or sent: {problem}",
            )(ruleset=repr(ruleset.id), problem=str(exc)),
            details={"field": exc.where[:200]},
        ) from None
    if prefix:
        texts = [[*prefix, *path] for path in texts]
        private = [[[*prefix, *entry[0]], *entry[1:]] for entry in private]
    return data, texts, private
