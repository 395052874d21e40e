"""The ruleset contract: what a ruleset plugin implements and what it gets.

A ruleset is an object (usually one instance of a :class:`Ruleset` subclass)
that a plugin hands to the host through the ``register_rulesets`` hook. A table
has exactly one ruleset and calls it directly. Rulesets are pure: they read
the :class:`ActionContext` they are given, draw dice only from the
:class:`~rollbridge.dice.DiceSource` they are given, and return new state in a
:class:`Resolution`; they never do I/O, read a clock or use a global random
generator. docs/plugins.md walks through writing one.

All data crossing this contract is plain JSON-compatible data (dicts, lists,
strings, numbers, booleans, None): sheets, states, parameters, outcomes. What a
ruleset says in words — its narration, its explanation steps, dice labels — is
text as data (:class:`~rollbridge.text.Text`: a message id and named arguments),
and a value that is one actor's own detail is marked
:class:`~rollbridge.text.Private`, so each audience is shown what it may see
without any sentence being rewritten (:mod:`rollbridge.text`, docs/plugins.md).
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from rollbridge.contract_returned import returned
from rollbridge.contract_shapes import expect, expect_items, expect_map
from rollbridge.dice.records import DiceGroup
from rollbridge.dice.sources import DiceSource
from rollbridge.exceptions import InvalidSheet, InvalidState, RuleViolation

# The odds hook's result, and the exact odds of notation a ruleset computes it with:
# part of the contract, so that a plugin needs no other module for them.
from rollbridge.odds import Distribution, Odds, distribution
from rollbridge.plain import JSON
from rollbridge.schema import validate
from rollbridge.text import Hides, Messages, Private, Text, render

__all__ = [
    "STATUSES",
    "ActionContext",
    "ActionSpec",
    "Actor",
    "CommonState",
    "Count",
    "Distribution",
    "Odds",
    "PlayerView",
    "Resolution",
    "Ruleset",
    "Statistics",
    "Status",
    "Track",
    "TurnContext",
    "actor_of",
    "choices_of",
    "complete_state",
    "dealt_and_taken",
    "describe_actions",
    "distribution",
    "major_version",
    "positive",
    "sheet_choices",
    "value_at",
]

#: What a text field of a result or a common state may hold (checked as it is made),
#: and how a refusal words it.
_WORDS = (str, Text, Private)
WORDS = "a Text, a str or a Private"
#: The sequences a field of many items may be (a list or a tuple).
_SEQUENCES = (list, tuple)

Status = Literal["ok", "impaired", "down", "dying", "dead"]
#: The common statuses, from best to worst.
STATUSES: tuple[Status, ...] = ("ok", "impaired", "down", "dying", "dead")


def major_version(version: str) -> int:
    """The major number of a ``MAJOR.MINOR.PATCH`` version string (``"2.1.0"`` → 2)."""
    head = version.split(".", 1)[0]
    return int(head) if head.isdigit() else 0


@dataclass(frozen=True, slots=True)
class Track:
    """One row of boxes any client can draw: a condition monitor, wound slots.
    ``label`` is a :class:`~rollbridge.text.Text` (rendered in each client's
    locale) or a plain string."""

    key: str
    label: str | Text
    value: int
    max: int

    def __post_init__(self) -> None:
        if (
            self.key.__class__ is str
            and isinstance(self.label, _WORDS)
            and self.value.__class__ is int
            and self.max.__class__ is int
        ):
            return  # the shape every ruleset gives, checked at the least cost
        expect("Track", "key", self.key, (str,), "a str")
        expect("Track", "label", self.label, _WORDS, WORDS)
        expect("Track", "value", self.value, (int,), "an int")
        expect("Track", "max", self.max, (int,), "an int")

    def to_dict(self, locale: str = "en", hides: Hides = None) -> JSON:
        """The track as clients get it, its label rendered in ``locale`` for an
        audience (``hides``: see :data:`rollbridge.text.Hides`; None for the GM)."""
        return {
            "key": self.key,
            "label": render(self.label, locale=locale, hides=hides),
            "value": self.value,
            "max": self.max,
        }


@dataclass(frozen=True, slots=True)
class CommonState:
    """An actor's damage state in the shape every client understands.

    :param status: ``ok``, ``impaired``, ``down``, ``dying`` or ``dead``.
    :param tracks: the actor's box rows, in the order to draw them.
    :param conditions: named conditions (``Shaken``, ``Heavily wounded``,
        ``Serious wound``), human-readable: texts (rendered in each client's
        locale) or plain strings.
    :param modifier: the number the ruleset applies to this actor's rolls
        because of its damage, signed as the ruleset applies it.
    :param modifier_note: how the modifier applies, human-readable (``+3 TN``,
        ``−2 to trait rolls``, ``disadvantage``); empty when there is none. A
        text or a plain string.
    """

    status: Status = "ok"
    tracks: tuple[Track, ...] = ()
    conditions: tuple[str | Text, ...] = ()
    modifier: int = 0
    modifier_note: str | Text = ""

    def __post_init__(self) -> None:
        if (
            self.status in STATUSES
            and self.tracks.__class__ in _SEQUENCES
            and self.conditions.__class__ in _SEQUENCES
            and self.modifier.__class__ is int
            and isinstance(self.modifier_note, _WORDS)
        ):
            for track in self.tracks:
                if track.__class__ is not Track:
                    break
            else:
                for condition in self.conditions:
                    if not isinstance(condition, _WORDS):
                        break
                else:
                    return  # the shape every ruleset gives, checked at the least cost
        if self.status not in STATUSES:
            raise TypeError(
                f"CommonState.status must be one of {', '.join(STATUSES)}, not {self.status!r}"
            )
        expect_items("CommonState", "tracks", self.tracks, (Track,), "a Track")
        hint = "one condition is (WOUNDED(),), not WOUNDED()"
        expect_items("CommonState", "conditions", self.conditions, _WORDS, WORDS, hint)
        expect("CommonState", "modifier", self.modifier, (int,), "an int")
        expect("CommonState", "modifier_note", self.modifier_note, _WORDS, WORDS)

    def to_dict(self, locale: str = "en", hides: Hides = None) -> JSON:
        """The state as clients get it, its texts rendered in ``locale`` for an
        audience: a :class:`~rollbridge.text.Private` argument of them reads as in
        a result (``hides``: see :data:`rollbridge.text.Hides`; None for the GM)."""
        return {
            "status": self.status,
            "tracks": [t.to_dict(locale, hides) for t in self.tracks],
            "conditions": [render(c, locale=locale, hides=hides) for c in self.conditions],
            "modifier": self.modifier,
            "modifier_note": render(self.modifier_note, locale=locale, hides=hides),
        }


@dataclass(frozen=True, slots=True)
class Actor:
    """What a ruleset sees of an actor: id, name, sheet and its own state."""

    id: str
    name: str
    sheet: Mapping[str, Any]
    state: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """An action a ruleset offers.

    :param name: the action's id, unique in its ruleset (``attack``).
    :param summary: one line for help screens: a text (rendered in each reader's
        language) or a plain string.
    :param params: the parameter schema (see :mod:`rollbridge.schema`).
    :param actor: whether the request names an acting actor: ``required``,
        ``optional`` or ``none``.
    :param min_targets: fewest target actors the request must name.
    :param max_targets: most target actors (``None``: no limit).
    :param every_actor: the engine passes every actor of the table as the
        targets (a new combat turn that refills every pool); the request names none.
        ``True`` or ``False``: another value is read by its truth (``"no"`` as true)
        with a WARNING at load, for a release, and the spec holds that bool from then
        on (one whose truth cannot be read is refused).
    :param gm_only: only the GM may ask for it (healing, awarding chips). ``True`` or
        ``False``, as ``every_actor``.
    :param secret: always secret: the server resolves every request for it as a
        ``secret`` one, whoever asks and whatever the request says (a GM's hidden
        perception check for an NPC, a roll the GM makes behind the screen) — the
        event is the GM's alone, players get a ``hidden`` placeholder, a player who
        asked a ``secret`` reply without the result; a player's own ``dice`` for it
        are refused. ``True`` or ``False``: anything else is refused at load.
    :param example: example parameters, shown in docs, ``rollbridge rulesets`` and
        forms (a list's or an object's example greyed out, as how to write it). Words
        a player would write in their own language may be texts (``{"note":
        DARK()}``): each reader gets them rendered (:meth:`example_in`).
    :param label: the action's name as people read it (``Attack``), a text or a
        plain string; empty: ``name``. Forms (the web table) show it.
    :param labels: each parameter's name as people read it, by parameter.
    :param hints: each parameter's one-line help in the reader's language, by
        parameter (without one, forms show the schema's ``description``).
    :param choices: the values of a parameter with an ``enum`` as people read them,
        by parameter, then by value (``{"range": {"short": TEXT(), …}}``).

    Every key of ``labels``, ``hints`` and ``choices`` must be a parameter of
    ``params`` (and every value a member of its ``enum``): checked at load.
    """

    name: str
    summary: str | Text
    params: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    actor: Literal["required", "optional", "none"] = "required"
    min_targets: int = 0
    max_targets: int | None = 0
    every_actor: bool = False
    gm_only: bool = False
    example: Mapping[str, Any] | None = None
    secret: bool = False
    label: str | Text = ""
    labels: Mapping[str, str | Text] = field(default_factory=dict)
    hints: Mapping[str, str | Text] = field(default_factory=dict)
    choices: Mapping[str, Mapping[Any, str | Text]] = field(default_factory=dict)

    def to_dict(self, locale: str = "en") -> JSON:
        """The action as clients get it, its texts rendered in ``locale`` (a
        choice's value as a string key); ``"secret": true`` only for an action that
        is always secret (absent otherwise, as before it existed)."""
        said: JSON = {
            "name": self.name,
            "label": render(self.label, locale=locale) or self.name,
            "summary": render(self.summary, locale=locale),
            "params": self.params,
            "actor": self.actor,
            "min_targets": self.min_targets,
            "max_targets": self.max_targets,
            # as the server reads them (one that is no bool loads with a WARNING)
            "every_actor": bool(self.every_actor),
            "gm_only": bool(self.gm_only),
            "example": self.example_in(locale),
            "labels": {k: render(v, locale=locale) for k, v in self.labels.items()},
            "hints": {k: render(v, locale=locale) for k, v in self.hints.items()},
            "choices": {
                k: {
                    _choice_key(value): render(text, locale=locale)
                    for value, text in values.items()
                }
                for k, values in self.choices.items()
            },
        }
        if self.secret:
            said["secret"] = True
        return said

    def example_in(self, locale: str = "en") -> JSON | None:
        """:attr:`example` as a request in ``locale`` would send it: its texts
        rendered in that language, everything else as it is."""
        return None if self.example is None else _rendered(dict(self.example), locale)


def _rendered(value: Any, locale: str) -> Any:
    """``value`` with every :class:`Text` in it rendered in ``locale``."""
    if isinstance(value, Text):
        return render(value, locale=locale)
    if isinstance(value, Mapping):
        return {key: _rendered(item, locale) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_rendered(item, locale) for item in value]
    return value


def _choice_key(value: Any) -> str:
    """An ``enum`` value as a key of :attr:`ActionSpec.choices` on the wire: as
    JavaScript's ``String(value)`` writes it (``null``, ``true``, ``3``), which is
    how a form looks its label up."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else ("true" if value else "false")
    return str(value)


@dataclass(frozen=True, slots=True)
class ActionContext:
    """Everything a ruleset needs to resolve one action.

    :param action: the action's name.
    :param params: the parameters, validated against the action's schema with
        defaults filled in.
    :param actor: the acting actor, or None.
    :param targets: the target actors, in the order the request named them.
    :param settings: the table's settings for this ruleset, defaults filled in.
    :param request_id: the request's id; unique at the table, usable as a
        reference to this roll later (a chip reroll names it).
    :param by_gm: whether the GM asked (True) or a player.
    :param secret: the request is secret (a GM-only event): players learn nothing of
        how it went, only what it leaves on the table (the states it changes, which
        they see as the ruleset shows them); so record nothing of its dice or results
        in a state a player sees (docs/plugins.md, "Secret requests").
    :param seq: the seq of the event that will record this resolution (None where
        nothing is recorded: odds): a later reroll of this roll names it in its dice
        group (:attr:`~rollbridge.dice.records.DiceGroup.earlier`).
    :param controls: where a player asks, the ids of the actor and targets that player
        controls; None where the GM asks (who acts for every actor) or the caller does
        not say (odds, tests). A choice that belongs to an actor (a stance, a spent
        resource) is the GM's or its player's: refuse it from another player *before*
        checking it, so that the refusal tells nothing of an NPC's sheet or state.
    :param words: the version of the ruleset's words (:attr:`Ruleset.words`) to
        write: None on a live table (the ruleset's newest); a number where
        ``rollbridge verify`` resolves a logged event again that an earlier version
        of the ruleset wrote (the ``words`` its data records, 1 where it records
        none). See docs/plugins.md, "Changing what your texts say".
    """

    action: str
    params: Mapping[str, Any]
    actor: Actor | None = None
    targets: tuple[Actor, ...] = ()
    settings: Mapping[str, Any] = field(default_factory=dict)
    request_id: str | None = None
    by_gm: bool = True
    secret: bool = False
    seq: int | None = None
    controls: frozenset[str] | None = None
    words: int | None = None

    def actor_by_id(self, actor_id: str) -> Actor | None:
        """The actor or target with this id, if the request involves it."""
        for candidate in (self.actor, *self.targets):
            if candidate is not None and candidate.id == actor_id:
                return candidate
        return None


@dataclass(slots=True)
class Resolution:
    """What resolving an action produced.

    :param narration: one line of what happened, as a :class:`~rollbridge.text.Text`
        (``Ana hits the guard: Deadly, 1 overflow``); a plain string is shown as it
        is to everyone, in every language.
    :param outcome: structured facts of the result (successes, level, boxes…): a
        dict of them by name (``{"hits": 2}``), plain data, documented per ruleset;
        any value may be marked :class:`~rollbridge.text.Private` (an NPC's armour),
        and players are shown it only where the ruleset reveals it.
    :param dice: every die rolled, grouped by test, explosion steps included (a
        group's label and note may be texts, its fields private).
    :param states: the new ruleset state of each actor touched, by actor id.
        Actors not listed are unchanged.
    :param steps: how the result was built, one text each (``TN 5 = medium range
        5 + recoil 0``).
    :param params: the parameters as the event records them, with the private ones
        marked (an NPC's Body given by the GM); None: as validated.
    :param apply: the follow-up that applies the same result to other targets, where
        the rules allow it: ``{"action": name, "params": {...}}`` — an action of this
        ruleset and its parameters, without targets (a client's "apply to selected
        targets" sends it as a ``resolve`` with the targets chosen then). Everyone
        who sees the event sees it: put nothing hidden in it. None: no follow-up.
    """

    narration: Text | str
    outcome: JSON = field(default_factory=dict)
    dice: list[DiceGroup] = field(default_factory=list)
    states: dict[str, JSON] = field(default_factory=dict)
    steps: list[Text | str] = field(default_factory=list)
    params: Mapping[str, Any] | None = None
    apply: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if (
            isinstance(self.narration, _WORDS)
            and self.outcome.__class__ is dict
            and self.dice.__class__ in _SEQUENCES
            and self.states.__class__ is dict
            and self.steps.__class__ in _SEQUENCES
            and (self.params is None or isinstance(self.params, Mapping))
            and (self.apply is None or isinstance(self.apply, Mapping))
        ):  # the shape every ruleset gives, at the least cost: loops, no generators
            for group in self.dice:
                if group.__class__ is not DiceGroup:
                    break
            else:
                for actor_id, state in self.states.items():
                    if actor_id.__class__ is not str or state.__class__ is not dict:
                        break
                else:
                    for step in self.steps:
                        if not isinstance(step, _WORDS):
                            break
                    else:
                        return
        expect("Resolution", "narration", self.narration, _WORDS, WORDS)
        expect("Resolution", "outcome", self.outcome, (dict,), "a map (dict) of its facts")
        hint = "a roll_die()'s Die goes in a group: DiceGroup(LABEL(), (die,))"
        expect_items("Resolution", "dice", self.dice, (DiceGroup,), "a DiceGroup", hint)
        expect_map("Resolution", "states", self.states)
        for actor_id, state in self.states.items():
            expect("Resolution", "states' key", actor_id, (str,), "an actor's id (a str)")
            expect_map("Resolution", f"states[{actor_id!r}]", state)
        hint = "one step is [STEP()], not STEP()"
        expect_items("Resolution", "steps", self.steps, _WORDS, WORDS, hint)
        expect_map("Resolution", "params", self.params, optional=True)
        expect_map("Resolution", "apply", self.apply, optional=True)

    def to_dict(self) -> JSON:
        """The resolution with its texts and marks as they are (for comparing)."""
        return {
            "narration": self.narration,
            "outcome": self.outcome,
            "dice": [g.to_dict() for g in self.dice],
            "states": self.states,
            "steps": list(self.steps),
            "params": self.params,
            "apply": self.apply,
        }


@dataclass(frozen=True, slots=True)
class TurnContext:
    """Where an encounter stands when a turn hook is called.

    :param round: the round number, from 1.
    :param actor: whose turn starts or ends (None in round hooks).
    :param participants: every actor in the encounter, in turn order.
    :param settings: the table's settings for this ruleset.
    :param dice_supplied: whether the dice source holds results the player
        supplied (WD-9's recovery roll may be supplied).
    :param seq: the seq of the encounter event that will record the hook's result
        (as :attr:`ActionContext.seq`); None where nothing is recorded.
    :param words: the version of the ruleset's words to write (as
        :attr:`ActionContext.words`): None on a live table.
    """

    round: int
    actor: Actor | None
    participants: tuple[Actor, ...]
    settings: Mapping[str, Any] = field(default_factory=dict)
    dice_supplied: bool = False
    seq: int | None = None
    words: int | None = None


@dataclass(frozen=True, slots=True)
class Count:
    """One thing a ruleset's result meant for one actor, for roll statistics: add
    ``value`` to ``actor``'s count ``key`` (one of :attr:`Statistics.keys`) and the
    session's; ``actor`` None: the session's alone (a hit by no actor, a trap)."""

    actor: str | None
    key: str
    value: int = 1


def actor_of(value: Any) -> str | None:
    """``value`` when it is an actor id (a string), else None: for a
    :attr:`Statistics.count`, which reads views where any value may be absent."""
    return value if value.__class__ is str else None


def positive(value: Any) -> int:
    """``value`` when it is a positive integer, else 0 (a count a view may leave out)."""
    return value if value.__class__ is int and value > 0 else 0


def dealt_and_taken(
    dealer: str | None, taker: str | None, value: Any, dealt: str, taken: str
) -> list[Count]:
    """``value`` (when :func:`positive`) counted as ``dealt`` for ``dealer`` and as
    ``taken`` for ``taker``; an actor that is None counts nothing."""
    amount = positive(value)
    if not amount:
        return []
    pairs = ((dealer, dealt), (taker, taken))
    return [Count(actor, key, amount) for actor, key in pairs if actor is not None]


@dataclass(frozen=True, slots=True)
class Statistics:
    """What a ruleset's results mean, for roll statistics (:meth:`Ruleset.statistics`).

    :param keys: the counts it keeps, in the order they are shown: ``(key, label)``,
        the label a :class:`~rollbridge.text.Text` of the ruleset's own messages.
    :param count: reads one event *as the asker's audience sees it* (a view of
        :func:`rollbridge.engine.views.event_view`: ``kind``, ``seq``, ``data`` with
        hidden values left out) and returns its :class:`Count` entries. It must read
        nothing else, tolerate any value being absent, and change nothing. Each turn
        hook's result in an ``encounter.*`` event is given to it too, as a view of
        kind ``hook`` whose ``data`` holds the hook's ``actor``, ``outcome`` and
        ``dice``, and ``action`` the hook's name (``on_turn_start``, …): a ruleset
        that counts nothing of it need do nothing.
    """

    keys: tuple[tuple[str, Text], ...]
    count: Callable[[Mapping[str, Any]], Sequence[Count]]


@dataclass(frozen=True, slots=True)
class PlayerView:
    """What players and observers may see of an actor that no player controls.

    :param common: the common state as players see it (a ruleset may drop
        tracks and keep only the status, say).
    :param sheet: the parts of the sheet players may see, or None.
    :param state: the parts of the ruleset state players may see, or None.
    """

    common: CommonState
    sheet: Mapping[str, Any] | None = None
    state: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        if (
            self.common.__class__ is CommonState
            and (self.sheet is None or self.sheet.__class__ is dict)
            and (self.state is None or self.state.__class__ is dict)
        ):
            return
        expect("PlayerView", "common", self.common, (CommonState,), "a CommonState")
        expect_map("PlayerView", "sheet", self.sheet, optional=True)
        expect_map("PlayerView", "state", self.state, optional=True)

    def to_dict(self) -> JSON:
        return {"common": self.common.to_dict(), "sheet": self.sheet, "state": self.state}


class Ruleset(ABC):
    """Base class of every ruleset. Subclass it, set the class attributes,
    implement the three abstract methods, and register an instance.

    Required class attributes: ``id`` (short, lowercase, unique among loaded
    rulesets), ``name``, ``version`` (``MAJOR.MINOR.PATCH``; tables created
    under one major version refuse to open under another) and ``actions``.
    """

    id: ClassVar[str]
    name: ClassVar[str]
    version: ClassVar[str]
    #: One paragraph for ``rollbridge rulesets`` and the docs: a text (rendered in each
    #: reader's language, in ``describe(locale)`` and by ``rollbridge rulesets``) or a
    #: plain English string.
    summary: ClassVar[str | Text] = ""
    #: The version of the ruleset's words: a whole number from 1, raised when a
    #: resolution gives its texts other arguments for the same result (an actor's
    #: name where it gave its id). Each event records the words it was written in
    #: (``data.words``, left out at 1), and the contexts say which to write
    #: (:attr:`ActionContext.words`), so that ``rollbridge verify`` resolves an
    #: older event again in its own words (docs/plugins.md, "Changing what your
    #: texts say").
    words: ClassVar[int] = 1
    #: The actions, by name.
    actions: ClassVar[Mapping[str, ActionSpec]]
    #: Schema of a character sheet (see :mod:`rollbridge.schema`).
    sheet_schema: ClassVar[Mapping[str, Any]] = {"type": "object", "additionalProperties": True}
    #: Schema of an actor's ruleset state, as ``initial_state`` makes it and as
    #: ``actor.create`` / ``actor.update`` may supply it (see :meth:`validate_state`).
    #: Give no defaults in it: a field a supplied state lacks takes the fresh
    #: state's value. The default accepts any plain data.
    state_schema: ClassVar[Mapping[str, Any]] = {"type": "object", "additionalProperties": True}
    #: Schema of the table settings this ruleset reads, defaults included.
    settings_schema: ClassVar[Mapping[str, Any]] = {"type": "object", "properties": {}}
    #: Sample character sheets by name: shown in docs, used by the CLI's
    #: ``resolve`` when no actors are given, and by the conformance suite.
    example_sheets: ClassVar[Mapping[str, Mapping[str, Any]]] = {}

    # -- required ---------------------------------------------------------

    @abstractmethod
    def initial_state(self, sheet: Mapping[str, Any]) -> JSON:
        """The state of a fresh, unhurt actor with this (validated) sheet.

        :raises InvalidSheet: for sheet problems the schema cannot express.
        """

    @abstractmethod
    def resolve(self, context: ActionContext, dice: DiceSource) -> Resolution:
        """Resolve ``context.action`` drawing every die from ``dice``.

        :raises RuleViolation: (with a specific ``code``) when the rules refuse
            the action; :class:`~rollbridge.exceptions.InvalidParams` for
            parameter problems the schema cannot express.
        """

    @abstractmethod
    def common_state(self, actor: Actor) -> CommonState:
        """Describe ``actor``'s state in the common damage shape."""

    # -- provided, may be overridden ----------------------------------------

    def validate_sheet(self, sheet: Mapping[str, Any]) -> JSON:
        """Check a sheet against :attr:`sheet_schema`; return it with defaults."""
        return validate(self.sheet_schema, sheet, where="sheet", error=InvalidSheet)

    def validate_state(self, sheet: Mapping[str, Any], state: Mapping[str, Any]) -> JSON:
        """Check a supplied state against :attr:`state_schema` and complete it.

        ``sheet`` is the actor's validated sheet. The state is validated (errors are
        :class:`~rollbridge.exceptions.InvalidState` naming the field, ``state.stun``),
        then laid over ``initial_state(sheet)`` by :func:`complete_state`: a field it
        lacks takes the fresh value. The schema is :meth:`state_schema_for` the sheet,
        which narrows bounds by the sheet (a value within the sheet's track sizes).
        Override this for checks no schema can express and raise ``InvalidState``
        naming the field; call it first for the schema check and the completion.

        :raises InvalidState: naming the offending field.
        :raises InternalError: ``initial_state`` returned no dict (a missing
            ``return``), naming the hook and the type it returned.
        """
        schema = self.state_schema_for(sheet)
        given = validate(schema, state, where="state", error=InvalidState)
        fresh = returned(self.id, self.initial_state(sheet), dict, "initial_state")
        return complete_state(fresh, given, schema)

    def state_schema_for(self, sheet: Mapping[str, Any]) -> Mapping[str, Any]:
        """The state schema for an actor with this (validated) sheet: by default
        :attr:`state_schema`. Override it to narrow a bound by the sheet (a track as
        long as the sheet's Body); keep the same fields. Return the same object for the
        same bounds (cache it): validators are compiled once per schema object."""
        return self.state_schema

    def adjust(
        self, actor: Actor, track: str, delta: int, settings: Mapping[str, Any] | None = None
    ) -> JSON:
        """A GM's direct damage (``delta`` > 0) or healing (< 0) on the track
        ``track`` of the common state, bypassing the dice. Returns the new state.

        ``settings`` are the table's settings for this ruleset (defaults filled in),
        for a rule a setting changes (sr2's ``stun_carry``); the engine passes them
        only to an override that names the parameter (one written before it existed
        goes on working). The default refuses; rulesets whose tracks map onto boxes
        override it.
        """
        say = Messages("rollbridge")
        raise RuleViolation(
            say(
                "ruleset.adjust_unsupported",
                "ruleset {ruleset} does not support direct adjustment of tracks",
            )(ruleset=repr(self.id)),
            code="adjust_unsupported",
        )

    def player_view(self, actor: Actor, settings: Mapping[str, Any]) -> PlayerView:
        """What players and observers see of an actor no player controls.

        The default shows the common state — its tracks with their exact values and
        maxima too — and hides the sheet and state: override it to leave out a track
        whose values you mark :class:`~rollbridge.text.Private` in results.
        """
        return PlayerView(common=self.common_state(actor))

    def reveals(self, aspect: str, settings: Mapping[str, Any]) -> bool:
        """Whether players see the NPCs' details of ``aspect`` (the ``aspect`` of
        the :class:`~rollbridge.text.Private` values this ruleset marks) under the
        table's settings for this ruleset. A player's own actors' details are
        always shown to players.

        The default reveals nothing: every marked value of an NPC is hidden.
        """
        return False

    def player_resolution(
        self, data: Mapping[str, Any], hidden: frozenset[str], settings: Mapping[str, Any]
    ) -> JSON:
        """Deprecated: mark private values with :class:`~rollbridge.text.Private`
        instead. Kept so that rulesets written before texts were data still hide
        what they hid: when a ruleset overrides it, the engine calls it on the
        players' view of a resolution that touched NPCs (texts rendered already).

        :param data: the resolution as players see it so far (``action``,
            ``params``, ``narration``, ``outcome``, ``dice``, ``steps``, ``actor``,
            ``targets``): a copy, which it may change in place.
        :param hidden: ids of the NPCs involved (actors no player controls).
        :param settings: the table's settings for this ruleset.

        It is also called for each turn hook's result in ``encounter.*`` events,
        with ``action`` set to the hook's name and ``hidden`` holding every NPC.
        """
        return dict(data)

    # -- optional odds ---------------------------------------------------------

    def odds(self, context: ActionContext) -> Odds | None:
        """The exact outcome distribution of ``context``'s action, or None (no odds
        for this action: the default, for every action).

        It must follow exactly the rules :meth:`resolve` applies to the same
        context (settings, the actors' sheets and states included), draw no dice,
        change nothing, and depend on nothing the asker may not see: the actors
        are given as the table holds them, and the protocol layer decides what a
        player may ask (docs/plugins.md, "Odds"). It may refuse what
        :meth:`resolve` would refuse, with the same error.
        """
        return None

    # -- optional statistics ---------------------------------------------------

    def statistics(self) -> Statistics | None:
        """What this ruleset's results mean for roll statistics (hits, wounds dealt
        and taken, chips spent…), or None (the default: dice statistics only).

        Its ``count`` is given each event as the asker sees it, so that a player's
        statistics never tell what GM-only events hid (docs/statistics.md).
        """
        return None

    # -- optional turn structure: return a Resolution to change state --------

    def on_round_start(self, context: TurnContext, dice: DiceSource) -> Resolution | None:
        """A new round of an encounter begins (also round 1)."""
        return None

    def on_round_end(self, context: TurnContext, dice: DiceSource) -> Resolution | None:
        """The last turn of a round has ended."""
        return None

    def on_turn_start(self, context: TurnContext, dice: DiceSource) -> Resolution | None:
        """``context.actor``'s turn begins."""
        return None

    def on_turn_end(self, context: TurnContext, dice: DiceSource) -> Resolution | None:
        """``context.actor``'s turn ends."""
        return None

    # -- description --------------------------------------------------------

    def describe(self, locale: str = "en") -> JSON:
        """Metadata of the ruleset as plain data (for clients and the CLI), its
        texts (summaries, the actions' labels, hints and choices) in ``locale``."""
        return {
            "id": self.id,
            "name": self.name,
            "version": self.version,
            "summary": render(self.summary, locale=locale),
            "actions": {name: spec.to_dict(locale) for name, spec in self.actions.items()},
            "sheet_schema": self.sheet_schema,
            "state_schema": self.state_schema,
            "settings_schema": self.settings_schema,
            "example_sheets": self.example_sheets,
        }


def complete_state(
    fresh: Mapping[str, Any], given: Mapping[str, Any], schema: Mapping[str, Any]
) -> JSON:
    """A partial state completed: ``fresh`` (a new copy) with the fields of ``given`` over it.

    Objects the schema describes field by field (a node with ``properties``) merge
    the same way, field by field, when both sides hold one; anything else — a
    number, an array, a map the schema leaves open (``additionalProperties`` only),
    ``null`` — is taken whole from ``given``. ``given`` must be validated already.
    """
    out: dict[str, Any] = copy.deepcopy(dict(fresh))
    props = schema.get("properties") or {}
    for key, value in given.items():
        sub = props.get(key)
        old = out.get(key)
        if (
            isinstance(sub, Mapping)
            and "properties" in sub
            and isinstance(value, Mapping)
            and isinstance(old, Mapping)
        ):
            out[key] = complete_state(old, value, sub)
        else:
            out[key] = copy.deepcopy(value)
    return out


def describe_actions(actions: Sequence[ActionSpec]) -> dict[str, ActionSpec]:
    """Build a ruleset's ``actions`` mapping from a list of specs."""
    return {spec.name: spec for spec in actions}


def value_at(node: Any, path: str) -> Any:
    """The value at ``path`` (field names joined by dots, ``"armor.ballistic"``) inside
    ``node``, or None when a step of it is missing."""
    for key in path.split("."):
        if not isinstance(node, Mapping):
            return None
        node = node.get(key)
    return node


def choices_of(param: Mapping[str, Any]) -> Literal["actor", "target"] | None:
    """Whose sheet or state a parameter's ``choicesFrom`` reads: ``"actor"``, the
    acting actor's (the default), or ``"target"``, the action's one target's (the
    request's ``targets[0]``: the host lets ``"of": "target"`` only on an action of at
    most one target); None without an annotation. Pass that actor's sheet and state,
    as the asker holds them, to :func:`sheet_choices`.

    :param param: the parameter's schema (a property of an action's ``params``).
    """
    annotation = param.get("choicesFrom")
    if not isinstance(annotation, Mapping):
        return None
    return "target" if annotation.get("of") == "target" else "actor"


def sheet_choices(
    param: Mapping[str, Any],
    sheet: Mapping[str, Any] | None,
    state: Mapping[str, Any] | None = None,
) -> list[Any]:
    """The choices a parameter's ``choicesFrom`` annotation names on one actor: what
    a form offers for it (docs/plugins.md, "Choices from the sheet"). Which actor —
    the acting one or the target — says :func:`choices_of`; give its sheet and state
    as the asker sees them (a player's view of an NPC target: ``player_view``'s), so
    nothing is offered that the asker may not see.

    The annotation's ``sheet`` (or ``state``) path leads to a list or an object of
    the actor's sheet (or state). A list gives each item's ``value`` field (the
    items themselves without ``value``); an object gives its keys without
    ``value``, else each of its values' ``value`` field. Only texts and numbers
    are choices; each is given once, in the sheet's order.

    :param param: the parameter's schema (a property of an action's ``params``).
    :param sheet: the actor's sheet as the asker sees it (None: not seen).
    :param state: the actor's state as the asker sees it (None: not seen).
    :returns: the choices, ``[]`` without an annotation or when nothing is there.
    """
    annotation = param.get("choicesFrom")
    if not isinstance(annotation, Mapping):
        return []
    source, path = (
        ("state", annotation.get("state"))
        if "state" in annotation
        else (
            "sheet",
            annotation.get("sheet"),
        )
    )
    found = value_at(state if source == "state" else sheet, str(path))
    value = annotation.get("value")
    if isinstance(found, Mapping):
        items = list(found) if value is None else [value_at(v, value) for v in found.values()]
    elif isinstance(found, list | tuple):
        items = [item if value is None else value_at(item, value) for item in found]
    else:
        return []
    out: list[Any] = []
    seen: set[Any] = set()  # a set: a list of thousands is read in one pass
    for item in items:
        plain = isinstance(item, str | int | float) and not isinstance(item, bool)
        if plain and item not in seen:
            seen.add(item)
            out.append(item)
    return out
