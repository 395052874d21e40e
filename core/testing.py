"""A pytest plugin for ruleset authors: drive a ruleset through the real engine.

Installed with rollbridge (entry point ``pytest11``), so any project that
depends on rollbridge gets it. Two tools:

**The harness.** :class:`RulesetHarness` (fixture ``ruleset_harness``) puts one
ruleset on a real table — the real table engine, the real request validation
and an in-memory store — with GM and player principals, and lets a test add
actors and resolve actions with supplied or seeded dice::

    def test_attack(ruleset_harness):
        table = ruleset_harness(MyRuleset())
        table.add_actor("Ana", {"body": 4}, player=True)
        table.add_actor("Guard", {"body": 3})
        event = table.resolve("attack", actor="ana", targets=["guard"],
                              params={"weapon": "pistol"}, dice=[6, 5, 2, 1])
        assert table.actor("guard")["common"]["status"] == "impaired"

**The conformance suite.** Subclass :class:`RulesetConformance` in a test
module and set ``ruleset``; pytest collects its tests, which every ruleset must
pass: a valid contract, example sheets that validate, JSON-safe states, a
well-formed common state whose private arguments are its actor's own, pure and
reproducible resolutions that never mutate their input and show every die they roll
(as rolled: verifiable dice check it), only typed errors, texts whose arguments fit
their format specs, turn hooks that touch only participants, refusals made before
the first die (a table with approval holds a request up to it), GM adjustments
(``adjust``) whose states the rules take, and supplied states (fuzzed with
hypothesis) that are either refused with ``invalid_state`` or completed into states
every action works on, and, for the actions a ruleset gives odds of, exact odds that
draw no dice::

    class TestMyRulesetConforms(RulesetConformance):
        ruleset = MyRuleset()

The suite needs :attr:`~rollbridge.contract.Ruleset.example_sheets` (at least
one) and an ``example`` on each action to exercise it.

A ``Private``'s repr hides its value (:mod:`rollbridge.text`); a failed ``assert``
comparing values that hold one shows both sides with the values revealed
(:mod:`rollbridge.testing_compare`, the plugin's ``pytest_assertrepr_compare``).

Its failures are in English, and stay so: they are for the plugin's developer,
read in pytest's output beside Python's and pytest's own English, and they quote
code to write. A plugin refused at startup is the operator's, and reads in their
language (:mod:`rollbridge.host`; docs/plugins.md, "Publishing").
"""

from __future__ import annotations

import copy
import difflib
import inspect
import json
import traceback
import warnings
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, ClassVar

import pytest

from rollbridge.contract import (
    STATUSES,
    ActionContext,
    Actor,
    CommonState,
    PlayerView,
    Resolution,
    Ruleset,
    Statistics,
    choices_of,
    sheet_choices,
    value_at,
)
from rollbridge.contract import TurnContext as _TurnContext
from rollbridge.contract_codes import acted_on, foreign_code, well_formed
from rollbridge.dice.sources import DiceSource, ScriptedDice, SeededDice
from rollbridge.dice.verifiable import DiceKey
from rollbridge.dice.verify import resolution_dice
from rollbridge.engine.model import Principal
from rollbridge.engine.rolls import stopped_at_first_die
from rollbridge.engine.views import Audience
from rollbridge.exceptions import (
    InternalError,
    InvalidState,
    NeverResolvedWarning,
    PlainWordsWarning,
    PluginError,
    RollbridgeError,
    RuleViolation,
    ToldTargetWarning,
)
from rollbridge.hookspecs import hookimpl
from rollbridge.host import PluginHost, check_ruleset
from rollbridge.i18n import LOCALES, catalogs_of, locales_of
from rollbridge.odds import Odds
from rollbridge.offline import TableService
from rollbridge.plain import JSON
from rollbridge.schema import check_schema, validate
from rollbridge.server.logs import said_as_gm
from rollbridge.stats.tally import hook_views
from rollbridge.stores.memory import MemoryStore
from rollbridge.testing_compare import pytest_assertrepr_compare
from rollbridge.testing_plurals import (
    english_count_slips,
    numbered_placeholders,
    uncounted_plurals,
    worded_placeholders,
)
from rollbridge.text import (
    Text,
    message,
    messages_of,
    misformatted,
    render,
    stored_private,
    unreadable_renamings,
    untranslated,
)

__all__ = [
    "GM",
    "OBSERVER",
    "PLAYER",
    "RulesetConformance",
    "RulesetHarness",
    "all_keys",
    "host_with",
    "pytest_assertrepr_compare",
    "ruleset_harness",
]


GM = Principal("gm", "gm", "gm-token")
PLAYER = Principal("player", "player", "player-token")
OBSERVER = Principal("observer", "observer", "observer-token")


def host_with(*rulesets: Ruleset, builtins: bool = False) -> PluginHost:
    """A plugin host holding ``rulesets`` (registered through the real hook),
    without entry-point plugins and, by default, without the built-ins."""

    class _Plugin:
        @hookimpl
        def register_rulesets(self, register: Callable[[Ruleset], None]) -> None:
            for ruleset in rulesets:
                register(ruleset)

    return PluginHost(
        {"under-test": _Plugin()},
        builtins=builtins,
        environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )


class RulesetHarness:
    """One table running ``ruleset`` on the real engine and an in-memory store.

    :param ruleset: the ruleset under test.
    :param settings: table settings (``{"ruleset": {...}}`` for the ruleset's own).
    :param seed: seed of the dice used when a call supplies none.
    :param clock: the table's clock (each event's ``at``); None, the default: events
        carry no time, so a test's views are the same at every run.
    :param verifiable: the table rolls verifiable dice (a fixed test key), as a table
        with the setting ``verifiable`` does: every die from a committed seed, and a
        resolution (or turn hook) refused unless it shows every die it drew.
    """

    def __init__(
        self,
        ruleset: Ruleset,
        *,
        settings: Mapping[str, Any] | None = None,
        seed: int = 0,
        clock: Callable[[], float] | None = None,
        verifiable: bool = False,
    ) -> None:
        self.ruleset = ruleset
        self.host = host_with(ruleset)
        self.seed = seed
        self._rolls = 0
        key = DiceKey(bytes(32)) if verifiable else None
        if verifiable:
            settings = {**(settings or {}), "verifiable": True}
        self.service = TableService(
            MemoryStore(), self.host, dice=self._next_dice, clock=clock, dice_key=key
        )
        info, self.tokens = self.service.create_table(
            "harness", ruleset.id, settings=settings, table_id="harness"
        )
        self.table_id = info.id
        self._ids = 0
        self.last_reply: JSON | None = None

    def _next_dice(self) -> DiceSource:
        self._rolls += 1
        return SeededDice(f"{self.seed}:{self._rolls}")

    def _id(self) -> str:
        self._ids += 1
        return f"h{self._ids}"

    @property
    def table(self):  # -> rollbridge.engine.table.Table
        """The engine's table object."""
        return self.service.table(self.table_id)

    def request(
        self, message: Mapping[str, Any], *, who: Principal = GM, dice: DiceSource | None = None
    ) -> JSON:
        """Send a raw request (a request id is added if absent) and return the reply.

        A refusal of the ruleset's with a code clients act on (``busy``, ``stopped``:
        :mod:`rollbridge.contract_codes`) or a malformed one (``"No Skill"``) is raised
        as the ruleset raised it, so that a test (the conformance suite's) names the
        code; a table reads it as the ruleset's failure, ``internal``
        (``self.service.handle`` raises that)."""
        body = dict(message)
        body.setdefault("id", self._id())
        try:
            self.last_reply = self.service.handle(self.table_id, body, who, dice)
        except InternalError as failed:
            cause = failed.__cause__
            if isinstance(cause, RollbridgeError) and (
                acted_on(cause) is not None or not well_formed(cause.code)
            ):
                raise cause from None
            raise
        return self.last_reply

    def add_actor(
        self,
        name: str,
        sheet: Mapping[str, Any],
        *,
        actor_id: str | None = None,
        player: bool = False,
        state: Mapping[str, Any] | None = None,
    ) -> str:
        """Create an actor (controlled by the harness's player when ``player``); its id."""
        actor: JSON = {"name": name, "sheet": dict(sheet)}
        if actor_id:
            actor["id"] = actor_id
        if player:
            actor["controllers"] = [PLAYER.name]
        if state is not None:
            actor["state"] = dict(state)
        return self.request({"type": "actor.create", "actor": actor})["actor"]

    def resolve(
        self,
        action: str,
        *,
        actor: str | None = None,
        targets: Sequence[str] = (),
        params: Mapping[str, Any] | None = None,
        dice: Sequence[int] | None = None,
        who: Principal = GM,
        secret: bool = False,
    ) -> JSON:
        """Resolve an action; ``dice`` are supplied results (every one must be
        used); ``secret``: a secret request (the event the GM's alone, players get
        a ``hidden`` placeholder). Returns the event as ``who`` sees it, or ``who``'s
        reply where it carries none: a player's secret request's (any request of an
        action that is always secret) ``{"seq", "status": "secret", "note"}``, a
        request held for approval's ``{"pending", "status": "pending"}``."""
        message: JSON = {
            "type": "resolve",
            "action": action,
            "params": dict(params or {}),
            "targets": list(targets),
        }
        if actor is not None:
            message["actor"] = actor
        if secret:
            message["secret"] = True
        source = ScriptedDice(dice) if dice is not None else None
        reply = self.request(message, who=who, dice=source)
        return reply.get("event", reply)

    def actor(self, actor_id: str, *, gm: bool = True, locale: str = "en") -> JSON:
        """An actor as the GM (or, with ``gm=False``, a player) sees it, in ``locale``."""
        return self.table.view_actor(actor_id, gm=gm, locale=locale)

    def events(self, after: int = 0) -> list:  # -> list[rollbridge.engine.Event]
        """The stored events with a seq above ``after``, in order."""
        return self.service.store.events_after(self.table_id, after) or []

    def views(self, seq: int | None = None, *, locale: str = "en") -> tuple[JSON, JSON]:
        """An event (default: the latest) as the GM and as players see it, in ``locale``."""
        wanted = self.table.info.seq if seq is None else seq
        later = self.events(wanted - 1)
        self.table.recall(later)  # shown as it left the table, as live
        (event,) = [e for e in later if e.seq == wanted]
        return (
            self.table.view_event(event, audience=Audience(True, locale)),
            self.table.view_event(event, audience=Audience(False, locale)),
        )

    def state(self, actor_id: str) -> JSON:
        """An actor's ruleset state."""
        return copy.deepcopy(self.table.actors[actor_id].state)


@pytest.fixture
def ruleset_harness() -> Callable[..., RulesetHarness]:
    """A factory: ``ruleset_harness(MyRuleset(), settings=..., seed=...)``."""
    return RulesetHarness


class _Recording(SeededDice):
    """Seeded dice that remember every ``(faces, result)`` drawn, in order."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.record: list[tuple[int, int]] = []

    def _draw(self, faces: int) -> int:
        value = super()._draw(faces)
        self.record.append((faces, value))
        return value


def all_keys(value: Any) -> set[str]:
    """Every key of every mapping inside ``value``: for asserting that a redacted
    view holds no field named like a hidden one."""
    if isinstance(value, Mapping):
        return set(value) | {k for v in value.values() for k in all_keys(v)}
    if isinstance(value, list | tuple):
        return {k for v in value for k in all_keys(v)}
    return set()


def _json_roundtrip(value: Any, what: str) -> None:
    try:
        again = json.loads(json.dumps(value))
    except (TypeError, ValueError) as exc:
        raise AssertionError(f"{what} is not JSON data: {exc}") from None
    assert again == value, f"{what} does not survive a JSON round trip: {value!r}"


def _check_made_state(ruleset: Ruleset, sheet: Mapping[str, Any], state: Any, what: str) -> None:
    """A state the rules made (a resolution's, a turn hook's) is one the GM could send
    back: it passes ``state_schema_for(sheet)`` and comes back unchanged from
    ``validate_state`` — otherwise an ``actor.update`` resending the actor as it
    stands would be refused, and a supplied state could never reach it."""
    _json_roundtrip(state, what)
    try:
        validate(ruleset.state_schema_for(sheet), state, where="state", error=InvalidState)
        again = ruleset.validate_state(sheet, copy.deepcopy(state))
    except InvalidState as refused:
        raise AssertionError(f"{what} breaks the state schema: {refused.message}") from None
    assert again == state, f"{what} changes through validate_state: {state!r} -> {again!r}"


def _check_rendered(data: Mapping[str, Any], what: str) -> None:
    narration = data.get("narration")
    assert isinstance(narration, str) and narration.strip(), f"{what}: empty narration"
    for line in [narration, *(data.get("steps") or ())]:
        assert isinstance(line, str), f"{what}: a step was not rendered: {line!r}"
        assert not line.startswith("["), f"{what}: an undeclared message: {line}"
        assert "{" not in line and "}" not in line, f"{what}: a placeholder is left: {line}"


def _stored_forms(value: Any, path: str) -> list[str]:
    """Where ``value`` holds a stored private form (:func:`rollbridge.text.stored_private`)."""
    if isinstance(value, Mapping):
        if "private" in value and "of" in value and stored_private(dict(value)) is not None:
            return [path]
        return [p for k, v in value.items() for p in _stored_forms(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _stored_forms(v, f"{path}[{i}]")]
    return []


def _look_alikes(value: Any, path: str) -> list[tuple[str, list[str]]]:
    """Where ``value`` holds a map with ``private`` and ``of`` that is no stored private
    form (other keys, or ``of`` or ``aspect`` not a string), with its other keys."""
    if isinstance(value, Mapping):
        if "private" in value and "of" in value and stored_private(dict(value)) is None:
            extra = sorted(map(str, value.keys() - _FORM_KEYS))
            return [(path, extra)]
        return [p for k, v in value.items() for p in _look_alikes(v, f"{path}.{k}")]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _look_alikes(v, f"{path}[{i}]")]
    return []


#: The keys a stored private form may have (:func:`rollbridge.text.stored`).
_FORM_KEYS = frozenset(("private", "of", "aspect", "instead"))


def _check_no_look_alike(data: Any, what: str, root: str = "data") -> None:
    """Players' view of a resolution (or of what a hook made: ``root`` names where
    ``data`` stands in it) holds no map that looks like a stored private form but is
    none (``{"private": 7, "of": "orc", "note": …}``): the server reads only the exact
    form as a private value, so such a map reaches every player, its number with it —
    what its author, who wrote ``private``, did not mean."""
    found = _look_alikes(data, root)
    if not found:
        return
    said = ", ".join(
        f"{path} (other keys: {', '.join(extra)})" if extra else f"{path} (of or aspect not text)"
        for path, extra in found
    )
    raise AssertionError(
        f"{what}: players' view holds a map with 'private' and 'of' that is not a stored "
        f"private form, at {said}: it is plain data, and every player reads its "
        "'private'. Give a Private(value, of=actor_id, aspect=...) there (or a stored "
        "form with only private, of, aspect and instead, of and aspect text), or name "
        "the keys otherwise if the value is not private"
    )


def _check_players_view(view: Mapping[str, Any], step: str) -> None:
    """Players' view of an event a hook had a part in (``step``: the request that made
    it) holds no look-alike of a stored private form (:func:`_check_no_look_alike`):
    in a turn hook's result (named by its hook), in the rest of its data, in each
    actor it shows (what ``initial_state``, ``adjust``, ``common_state`` and
    ``player_view`` made of it)."""
    data = view.get("data") or {}
    hooks = data.get("hooks") if isinstance(data.get("hooks"), list) else []
    for index, hook in enumerate(hooks):
        name = hook.get("hook") if isinstance(hook, Mapping) else None
        _check_no_look_alike(hook, f"{name or 'a turn hook'} ({step})", f"data.hooks[{index}]")
    rest = {key: value for key, value in data.items() if key != "hooks"}
    _check_no_look_alike(rest, step)
    for index, actor in enumerate(view.get("actors") or ()):
        who = actor.get("id") if isinstance(actor, Mapping) else None
        _check_no_look_alike(actor, f"{step}: actor {who}", f"actors[{index}]")


def _check_no_stored_form(data: Mapping[str, Any], what: str) -> None:
    """Players' view of a resolution (every actor an NPC) holds no stored private form:
    one the ruleset built or kept outside its outcome (a follow-up's ``apply``, a dice
    group's field) reaches every player as plain data, the number in it."""
    found = _stored_forms(data, "data")
    assert not found, (
        f"{what}: players' view holds a stored private form at {', '.join(found)} "
        "({'private': …, 'of': …}): every player reads its number there. Give a "
        "Private(value, of=actor_id, aspect=...) in its place (in the outcome, or a dice "
        "group's total, target, note or another field but its dice, players' view leaves "
        "it out), and keep hidden numbers out of apply, which everyone who sees the event "
        "reads"
    )


#: The tags a die counted against a target bears (``count_successes``).
_TELLING_TAGS = frozenset(("success", "failure"))


def _told_targets(gm: Mapping[str, Any], players: Mapping[str, Any], what: str) -> list[str]:
    """What players are told of a dice group's hidden target: for each group whose
    ``target`` the GM reads and players do not (or read as another word: its
    ``instead``), while players see its dice tagged ``success`` or ``failure``, or
    its count of ``successes`` as the GM does beside the dice (rev28a: the dice' values
    and how many of them met it bracket the number as the tags do) — docs/plugins.md,
    "Dice"."""
    found = []
    groups = zip(gm.get("dice") or [], players.get("dice") or [], strict=False)
    for index, (theirs, shown) in enumerate(groups):
        if theirs.get("target") is None or shown.get("target") == theirs.get("target"):
            continue
        dice = shown.get("dice") or ()
        if any(_TELLING_TAGS.intersection(die.get("tags") or ()) for die in dice):
            told = "its dice tagged success or failure"
        elif (
            dice
            and shown.get("successes") is not None
            and (shown.get("successes") == theirs.get("successes"))
        ):
            told = "its count of successes beside its dice"
        else:
            continue
        found.append(
            f"{what}: dice group {index} ({shown.get('label')!r}) hides its target from "
            f"players but shows them {told}, which bracket it: count the hits without "
            'tagging the dice and mark the count Private (docs/plugins.md, "Dice"), or '
            "make the action secret"
        )
    return found


def _hooks_told_targets(gm: Mapping[str, Any], players: Mapping[str, Any]) -> list[str]:
    """:func:`_told_targets` of each turn hook's result in an event (its ``data.hooks``,
    the GM's and the players' views of it), named by its hook and the event."""
    found = []
    hooks = zip(_hooks_of(gm), _hooks_of(players), strict=False)
    for theirs, shown in hooks:
        what = f"{theirs.get('hook') or 'a turn hook'} ({gm.get('kind')} event)"
        found += _told_targets(theirs, shown, what)
    return found


def _hooks_of(view: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The turn hooks' results in an event's view (none where it has none)."""
    data = view.get("data")
    hooks = data.get("hooks") if isinstance(data, Mapping) else None
    return [hook for hook in hooks if isinstance(hook, Mapping)] if isinstance(hooks, list) else []


def _check_specs(before: Mapping[tuple[str, str, str, str], int], what: str) -> None:
    """Fail naming each message whose argument did not fit its format spec while texts
    were rendered since ``before`` (a :func:`~rollbridge.text.misformatted` reading): at
    a table it reads without the spec, and the server logs a WARNING."""
    after = misformatted()
    slips = sorted(key for key, times in after.items() if times > before.get(key, 0))
    assert not slips, (
        f"{what}: arguments that do not fit their format spec (message, argument, spec, "
        f"the value's type): {slips} — at a table each reads without its spec; give the "
        "template a spec every value of the argument fits ({n} for any value, {n:d} only "
        "for integers, {n:.1f} for numbers), or pass a value the spec formats"
    )


def _checked_counts(statistics: Statistics, keys: list[str], view: JSON, what: str) -> int:
    """How many non-zero counts ``statistics`` gives for ``view``, each checked: one of
    ``keys``, an actor id or None, an integer value."""
    nonzero = 0
    for count in statistics.count(view):
        assert count.key in keys, f"{what}: count of unknown key {count.key!r}"
        assert count.actor is None or count.actor.__class__ is str, (
            f"{what}: count of {count.actor!r}"
        )
        assert count.value.__class__ is int, f"{what}: {count.key} not an int"
        nonzero += count.value != 0
    return nonzero


def _check_common(common: CommonState, what: str) -> None:
    assert isinstance(common, CommonState), f"{what}: common_state must return a CommonState"
    assert common.status in STATUSES, f"{what}: status {common.status!r} is not one of {STATUSES}"
    for track in common.tracks:
        assert 0 <= track.value <= track.max, (
            f"{what}: track {track.key!r} has value {track.value} outside 0..{track.max}"
        )
    slips = misformatted()
    _json_roundtrip(common.to_dict(), f"{what}: common state")
    _check_specs(slips, f"{what}: common state")


def _check_own_details(common: CommonState, actor_id: str, what: str) -> None:
    """Every :class:`~rollbridge.text.Private` argument of the texts of actor
    ``actor_id``'s common state is its own detail: the common state of an actor a player
    controls reads whole to every player and observer (docs/plugins.md, "The common
    damage state"), so another actor's detail there — an NPC's — would reach them all."""
    others: dict[str, str] = {}

    def noting(of: str, aspect: str) -> bool:
        if of != actor_id:
            others.setdefault(of, aspect)
        return False

    common.to_dict(hides=noting)
    assert not others, (
        f"{what}: its common state's texts hold a Private argument of another actor "
        f"({', '.join(f'of={of!r}, aspect={aspect!r}' for of, aspect in others.items())}): "
        "players and observers read the common state of a player's actor whole, so that "
        "detail reaches them all whenever this actor is a player's — mark only the actor's "
        "own details there (of=actor.id), and tell the other actor's in a result"
    )


def _example_sheets(ruleset: Ruleset) -> Mapping[str, Any]:
    """The ruleset's example sheets, or an AssertionError saying to give some (before,
    all but one test failed with a bare IndexError, the first actor missing)."""
    sheets = ruleset.example_sheets
    assert sheets, (
        f"{ruleset.id} has no example sheets, and the suite's actors are made from them "
        "(the first acts, the next are its targets): give the ruleset example_sheets = "
        "{'Name': {...}, ...}, sheets its sheet_schema takes, two where an action takes "
        "a target (docs/plugins.md, 'The contract')"
    )
    return sheets


def _example_sheet(ruleset: Ruleset, name: str, sheet: Any) -> JSON:
    """The example sheet ``name`` validated, or an AssertionError naming it and how to
    fix it (before, each test failed with the bare ``InvalidSheet``, naming no sheet)."""
    try:
        return ruleset.validate_sheet(sheet)
    except RollbridgeError as refused:
        raise AssertionError(
            f"example_sheets[{name!r}] is refused by the ruleset's own sheet_schema "
            f"(or validate_sheet): {refused.code}: {refused} — correct the example sheet, "
            "or the schema if the sheet is right"
        ) from None


def _example_params(ruleset: Ruleset, name: str, locale: str = "en") -> JSON:
    """Action ``name``'s example in ``locale`` (its texts rendered) validated against
    its ``params`` (defaults filled in), or an AssertionError naming the action and
    how to fix it."""
    spec = ruleset.actions[name]
    example = spec.example_in(locale) or {}
    try:
        return validate(spec.params, example)
    except RollbridgeError as refused:
        where = "" if locale == "en" else f" in {locale}"
        raise AssertionError(
            f"action {name!r}: its example{where} {example!r} is refused by its "
            f"own params schema: {refused} — give ActionSpec(example=...) parameters a "
            "request may send"
        ) from None


def _defaults(schema: Any, prefix: str = "") -> dict[str, Any]:
    """Each ``default`` under a state schema's ``properties``, by its field's path."""
    found: dict[str, Any] = {}
    if not isinstance(schema, Mapping):
        return found
    for key, sub in (schema.get("properties") or {}).items():
        if isinstance(sub, Mapping):
            path = f"{prefix}{key}"
            if "default" in sub:
                found[path] = sub["default"]
            found.update(_defaults(sub, f"{path}."))
    return found


def _defaults_hint(schema: Any, fresh: Any) -> str:
    """Why a supplied state may not complete to the fresh one: a ``default`` in the
    state schema, which validation fills in over the fresh state's value — one that
    differs from it (a default the fresh state holds changes nothing: naming it
    would blame the schema for what the ruleset's own ``validate_state`` did)."""
    defaults = {
        path: value
        for path, value in _defaults(schema).items()
        if _at(fresh, path) != (True, value)
    }
    if not defaults:
        return ""
    return (
        f" — the state schema gives defaults ({defaults!r}): validation fills them in "
        "over the fresh state's values; remove them, initial_state is the state's "
        "default (docs/plugins.md, 'Supplied states')"
    )


def _required_fields(schema: Any, prefix: str = "state") -> dict[str, list[str]]:
    """Each ``required`` of a state schema's node that a supplied state completes field
    by field (the top and each node under ``properties`` with ``properties`` of its
    own), by the node's path."""
    found: dict[str, list[str]] = {}
    if not isinstance(schema, Mapping) or not isinstance(schema.get("properties"), Mapping):
        return found
    if schema.get("required"):
        found[prefix] = list(schema["required"])
    for key, sub in schema["properties"].items():
        found.update(_required_fields(sub, f"{prefix}.{key}"))
    return found


def _completed(ruleset: Ruleset, sheet: Mapping[str, Any], state: Any, what: str) -> JSON:
    """``validate_state`` of a partial state, which it must take and complete: a refusal
    fails naming the state and, where the state schema has them, its ``required``
    fields (a supplied state may leave any field out: docs/plugins.md, 'Supplied
    states')."""
    try:
        return ruleset.validate_state(sheet, copy.deepcopy(state))
    except InvalidState as refused:
        required = _required_fields(ruleset.state_schema_for(sheet))
        hint = (
            f" — the state schema requires fields ({required!r}), but a supplied state "
            "may leave any field out, which takes the fresh state's value: remove "
            "'required' (docs/plugins.md, 'Supplied states')"
            if required
            else ""
        )
        raise AssertionError(
            f"{what}: validate_state refused {state!r}: {refused}{hint}"
        ) from refused


def _at(state: Any, path: str) -> tuple[bool, Any]:
    """Whether ``state`` holds a value at ``path`` (field names joined by dots), and it."""
    for key in path.split("."):
        if not isinstance(state, Mapping) or key not in state:
            return False, None
        state = state[key]
    return True, state


def _translation_hint(missing: Sequence[tuple[str, str]]) -> str:
    """What to do about messages that read in English, by domain and locale: give
    ``Messages`` its ``catalogs`` folder, make the locale's catalogue, or translate
    and compile it (docs/plugins.md, 'Languages')."""
    hints: list[str] = []
    for domain, locale in sorted({(_domain_of(i), locale) for i, locale in missing}):
        folder = catalogs_of(domain)
        package = folder.parent if folder is not None else "PACKAGE"
        update = f"rollbridge catalogs update {package} --domain {domain} --locale {locale}"
        if domain == "rollbridge" and locale not in LOCALES:
            hints.append(
                f"rollbridge itself does not speak {locale!r} (it speaks {', '.join(LOCALES)}): "
                "its own messages, such as the schema's refusals, read in English there; "
                f"set locales to those your plugin and rollbridge both ship"
            )
        elif folder is None:
            hints.append(
                f"no catalogue folder is registered for the domain {domain!r}: declare "
                f"say = Messages({domain!r}, catalogs=Path(__file__).with_name('locale')) "
                f"in your messages module, then run `{update}`"
            )
        elif folder.name != "locale":
            hints.append(
                f"{domain!r} reads its catalogues from {folder}, but `rollbridge catalogs` "
                f"writes them to {folder.parent / 'locale'}: declare say = "
                f"Messages({domain!r}, catalogs=Path(__file__).with_name('locale')) and "
                f"run `{update}` (or move the catalogues there)"
            )
        elif not (folder / locale / "LC_MESSAGES" / f"{domain}.mo").is_file():
            hints.append(
                f"{domain!r} has no compiled {locale!r} catalogue in {folder}: run "
                f"`{update}`, translate the .po it writes, and run it again to compile"
            )
        else:
            hints.append(
                f"translate them in {folder / locale / 'LC_MESSAGES' / (domain + '.po')} "
                f"(after `{update}` if they are new; an entry marked '#, fuzzy' is not "
                "compiled: check it and delete that line), then run it again to compile; "
                f"`rollbridge catalogs check {package} --domain {domain} --locale {locale}` "
                "lists what is left"
            )
    return "; ".join(hints)


def _check_code(refused: RollbridgeError, where: str) -> None:
    """A ruleset's refusal carries a code of its own: a snake-case name that is none of
    rollbridge's — clients act on those (``busy`` and ``rate_limited`` are sent again,
    ``internal`` reads as the server's failure) — and none the browser client gives a
    request it could not send or acts on in a reply
    (:data:`~rollbridge.contract_codes.CLIENT_CODES`). That holds for a subclass of
    ``RuleViolation`` with a class ``code`` too; only the code of rollbridge's class
    the refusal is or derives from (``rule_violation``) is rollbridge's to give
    (:func:`~rollbridge.contract_codes.foreign_code`)."""
    code = refused.code
    assert well_formed(code), (
        f"{where}: the refusal's code is {code!r}: give RuleViolation a code of lowercase "
        "letters, digits and underscores, at most 64, with a letter among them and no "
        'underscore first (code="no_ammo")'
    )
    foreign = foreign_code(refused)
    assert foreign != "rollbridge", (
        f"{where}: the refusal's code {code!r} is one of rollbridge's own, which "
        "clients act on (busy and rate_limited are sent again, internal reads as the "
        "server's failure): give it a code of your ruleset's (code=\"no_ammo\")"
    )
    assert foreign != "client", (
        f"{where}: the refusal's code {code!r} is one a client gives a request its "
        "connection could not send (stopped, refused: the Foundry module keeps a "
        "player's held request refused so and asks for it again at every connection, "
        "never telling the player) or acts on in a reply (held_dice_secret: the web view "
        "asks for the GM's dice; not_pending: the Foundry module marks the approval "
        'settled); give it a code of your ruleset\'s (code="no_ammo")'
    )


def _none_resolved(refusals: Mapping[str, RuleViolation]) -> str:
    """Why no action example resolved: each action's first refusal, and what to do."""
    said = "; ".join(
        f"{name!r}: {refused.code}: {said_as_gm(refused)}" for name, refused in refusals.items()
    )
    return (
        "no action example resolved with any seed — the rules refused each "
        f"({said or 'no action has an example'}): give at least one action an example "
        "the example actors can do fresh (the first example sheet acts and the next are "
        "its targets; with no acting actor, the targets are the first ones)"
    )


def _never_resolved(refusals: Mapping[str, RuleViolation]) -> str:
    """Which action examples the rules refused with every seed, and what to do: none
    of the suite's checks of a resolution (texts, private values, dice) reached them."""
    said = "; ".join(
        f"{name!r}: {refused.code}: {said_as_gm(refused)}" for name, refused in refusals.items()
    )
    return (
        f"an action example never resolved with any seed ({said}), so no check of a "
        "resolution reached it: give it an example the example actors can do, or start "
        "them in the state it needs (example_states = {sheet name: state} on your "
        "conformance class: a pool to spend, a stake the GM set), or just before that "
        "action where they could do nothing else in it (action_states = {action: {sheet "
        "name: state}}: a dying character to stabilise)"
    )


def _domain_of(message_id: str) -> str:
    declared = message(message_id)
    return declared.domain if declared is not None else message_id.split(".", 1)[0]


def _text_ids(value: Any) -> set[str]:
    """The message ids of every :class:`~rollbridge.text.Text` in ``value``, or text as
    an event stores it (``{"id": ..., "args": ...}``), its arguments, and the values
    of maps and items of lists, included."""
    if isinstance(value, Text):
        return {value.id} | _text_ids(list(value.args.values()))
    if isinstance(value, Mapping):
        stored = value.keys() == {"id", "args"} and message(str(value["id"])) is not None
        return ({str(value["id"])} if stored else set()) | _text_ids(list(value.values()))
    if isinstance(value, list | tuple):
        return set().union(*map(_text_ids, value))
    return set()


def _untranslated_since(
    before: frozenset[tuple[str, str]], locales: Sequence[str], own: Callable[[str], bool]
) -> list[tuple[str, str]]:
    """The messages read in English for want of a translation since ``before``, and
    those in ``locales`` that ``own`` takes (by message id) read so before it too: the
    process notes each (message, locale) once, so one an earlier test rendered — the
    statistics test renders its labels in every locale, another suite class of the
    same ruleset its texts — was no news here, and passed."""
    return sorted(
        key for key in untranslated() if key not in before or (key[1] in locales and own(key[0]))
    )


# -- supplied states ------------------------------------------------------------------

#: Values put in place of a state field by the state fuzzer: every JSON type, numbers
#: just out of any range, beyond 64 bits and not finite, text that is not Unicode.
_WRONG_STATE_VALUES: tuple[Any, ...] = (
    None,
    True,
    False,
    "x",
    "",
    "\ud800",
    -1,
    0,
    1,
    3,
    11,
    10**6,
    2**64,
    -(2**64),
    5.5,
    -0.5,
    float("inf"),
    float("nan"),
    [],
    [1, "x"],
    {},
    {"x": 1},
)


def _state_paths(schema: Mapping[str, Any], prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The path of every field a state schema describes, nested objects' fields too."""
    paths: list[tuple[str, ...]] = []
    for key, sub in (schema.get("properties") or {}).items():
        paths.append((*prefix, key))
        if isinstance(sub, Mapping) and len(prefix) < 4:
            paths.extend(_state_paths(sub, (*prefix, key)))
    return paths


def _value_paths(value: Any, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """The path of every field of a state (nested objects' fields too)."""
    paths: list[tuple[str, ...]] = []
    if isinstance(value, Mapping) and len(prefix) < 5:
        for key, sub in value.items():
            paths.append((*prefix, key))
            paths.extend(_value_paths(sub, (*prefix, key)))
    return paths


def _nested(depth: int) -> Any:
    """A value nested ``depth`` levels deep, lists and maps in turn."""
    value: Any = 1
    for level in range(depth):
        value = [value] if level % 2 else {"n": value}
    return value


def _put(state: Mapping[str, Any], path: Sequence[str], value: Any) -> JSON:
    """A copy of ``state`` with ``value`` at ``path`` (objects made on the way)."""
    out = copy.deepcopy(dict(state))
    here = out
    for key in path[:-1]:
        inner = here.get(key)
        here[key] = dict(inner) if isinstance(inner, Mapping) else {}
        here = here[key]
    here[path[-1]] = value
    return out


def _state_strategy(st: Any, fresh: Mapping[str, Any], schema: Mapping[str, Any]) -> Any:
    """States to supply for an actor whose fresh state is ``fresh``: a field made
    ill-typed or out of range, a partial state, an unknown field, deep nesting, or a
    few of these at once."""
    paths = sorted(set(_state_paths(schema)) | set(_value_paths(fresh))) or [("x",)]
    wrong = st.sampled_from(_WRONG_STATE_VALUES) | st.integers(-(2**70), 2**70)
    one_wrong = st.builds(lambda p, v: _put(fresh, p, v), st.sampled_from(paths), wrong)
    keys = sorted(fresh)
    partial = st.builds(
        lambda chosen: {k: copy.deepcopy(fresh[k]) for k in chosen},
        st.sets(st.sampled_from(keys)) if keys else st.just(set()),
    )
    partial_wrong = st.builds(
        lambda base, p, v: _put(base, p, v), partial, st.sampled_from(paths), wrong
    )
    extra = st.builds(
        lambda base, name, v: {**base, name: v},
        partial,
        st.sampled_from(["zz_unknown", "", "state", "__proto__"]),
        wrong,
    )
    deep = st.builds(
        lambda p, depth: _put(fresh, p, _nested(depth)),
        st.sampled_from(paths),
        st.integers(1, 80),
    )
    whole = st.just(fresh) | st.just({}) | st.sampled_from(_WRONG_STATE_VALUES)
    return st.one_of(one_wrong, partial, partial_wrong, extra, deep, whole)


class StateConformance:
    """The supplied-state tests of :class:`RulesetConformance` (mixed into it)."""

    ruleset: ClassVar[Ruleset]
    #: Examples the state fuzzer tries (kept modest: the suite stays fast).
    state_examples: ClassVar[int] = 60
    #: The state fuzzer's seed (None: hypothesis draws one each run); a seed makes it
    #: try the same states every run, as a test of a finding needs.
    state_seed: ClassVar[int | None] = None

    def _sheets(self) -> list[tuple[str, JSON]]:
        return [
            (name, _example_sheet(self.ruleset, name, sheet))
            for name, sheet in _example_sheets(self.ruleset).items()
        ]

    def test_state_schema_describes_the_fresh_states(self) -> None:
        """``state_schema`` is a valid schema; every fresh state passes it and comes back
        unchanged from ``validate_state``; an empty state is the fresh state."""
        check_schema(self.ruleset.state_schema, "state_schema")
        for name, sheet in self._sheets():
            fresh = self.ruleset.initial_state(sheet)
            schema = self.ruleset.state_schema_for(sheet)
            check_schema(schema, f"state_schema_for({name!r})")
            validate(schema, fresh, where="state", error=InvalidState)
            validate(self.ruleset.state_schema, fresh, where="state", error=InvalidState)
            again = self.ruleset.validate_state(sheet, copy.deepcopy(fresh))
            assert again == fresh, f"{name}: validate_state changed a fresh state"
            assert _completed(self.ruleset, sheet, {}, f"{name}: an empty state") == fresh, (
                f"{name}: an empty state is not completed to the fresh state"
                + _defaults_hint(schema, fresh)
            )

    def test_partial_states_are_completed(self) -> None:
        """Each field of a fresh state, supplied alone, gives the whole fresh state."""
        for name, sheet in self._sheets():
            fresh = self.ruleset.initial_state(sheet)
            for key, value in fresh.items():
                completed = _completed(
                    self.ruleset, sheet, {key: value}, f"{name}: a state with only {key!r}"
                )
                assert completed == fresh, (
                    f"{name}: state with only {key!r} not completed to the fresh state"
                    + _defaults_hint(self.ruleset.state_schema_for(sheet), fresh)
                )

    def _run_with_state(self, name: str, actors: list[Actor], fuzzed: Actor) -> None:
        spec = self.ruleset.actions[name]
        params = _example_params(self.ruleset, name)
        others = [a for a in actors if a.id != fuzzed.id] or [fuzzed]
        wanted = spec.min_targets or (1 if (spec.max_targets or 0) >= 1 else 0)
        if spec.actor != "none":
            actor: Actor | None = fuzzed
            targets = tuple([*actors] if spec.every_actor else others[:wanted])
        else:
            actor = None
            targets = tuple(actors if spec.every_actor else [fuzzed, *others][:wanted])
        context = ActionContext(name, params, actor, targets, {}, "fuzz", True, spec.secret)
        try:
            result = self.ruleset.resolve(context, SeededDice(1))
        except RuleViolation as refused:  # a refusal the examples' own states never reach
            _check_code(refused, f"{name} by {fuzzed.name} with the state {fuzzed.state!r}")
            return  # its texts are checked by the locale tests
        except RollbridgeError:
            return  # a typed refusal (its texts are checked by the locale tests)
        assert isinstance(result, Resolution), (
            f"{name}: resolve returned {type(result).__name__}, not a Resolution"
        )
        sheets = {a.id: a.sheet for a in actors}
        for actor_id, state in result.states.items():
            _check_made_state(self.ruleset, sheets[actor_id], state, f"{name}: new state")

    def test_supplied_states_are_refused_or_work(self) -> None:
        """Fuzzed states (hypothesis): each is refused with ``InvalidState`` (a Text
        naming the field) or completed into a state the common state and an example
        action work on without any other exception."""
        if self.ruleset.state_schema is Ruleset.state_schema:
            pytest.skip(f"{self.ruleset.id} declares no state_schema: any plain data passes")
        hypothesis = pytest.importorskip("hypothesis")
        st = hypothesis.strategies
        sheets = self._sheets()
        names = [n for n, spec in self.ruleset.actions.items() if spec.example is not None]
        assert sheets, "the ruleset needs at least one example sheet"

        @hypothesis.settings(
            max_examples=self.state_examples,
            deadline=None,
            database=None,
            suppress_health_check=list(hypothesis.HealthCheck),
        )
        @hypothesis.given(data=st.data())
        def check(data: Any) -> None:
            index = data.draw(st.integers(0, len(sheets) - 1), label="sheet")
            sheet_name, sheet = sheets[index]
            fresh = self.ruleset.initial_state(sheet)
            schema = self.ruleset.state_schema_for(sheet)
            supplied = data.draw(_state_strategy(st, fresh, schema), label="state")
            try:
                state = self.ruleset.validate_state(sheet, supplied)
            except InvalidState as refused:
                assert refused.text is not None, (
                    f"{sheet_name}: the state {supplied!r} is refused with a plain string, "
                    f"{refused.message!r}: give InvalidState a Text of your catalogue "
                    "(say('refused.x', '…')(…)), which each client reads in its language"
                )
                field = refused.details.get("field")
                assert isinstance(field, str) and field.startswith("state"), (
                    f"{sheet_name}: the state {supplied!r} is refused with details "
                    f"{refused.details!r}, which name no field: give "
                    "InvalidState(…, details={'field': 'state.<field>'}), as "
                    "rollbridge.schema.validate(..., where='state') does"
                )
                return
            except RollbridgeError as other:
                raise AssertionError(
                    f"{sheet_name}: {supplied!r} refused with {other.code}, not invalid_state"
                ) from other
            _json_roundtrip(state, f"{sheet_name}: validated state")
            validate(schema, state, where="state", error=InvalidState)
            actors = [
                Actor(f"a{i}", n, s, self.ruleset.initial_state(s))
                for i, (n, s) in enumerate(sheets)
            ]
            fuzzed = Actor(f"a{index}", sheet_name, sheet, state)
            actors[index] = fuzzed
            _check_common(self.ruleset.common_state(fuzzed), f"{sheet_name} with {state!r}")
            _check_common(self.ruleset.player_view(fuzzed, {}).common, f"view of {sheet_name}")
            if names:
                self._run_with_state(
                    data.draw(st.sampled_from(names), label="action"), actors, fuzzed
                )

        (check if self.state_seed is None else hypothesis.seed(self.state_seed)(check))()


def _plain_words(ruleset: Ruleset) -> list[str]:
    """Where a ruleset gives words people read — its summary, an action's label and
    summary, its parameters' labels, hints and choices — as a plain string (with its
    place and the string): English for every reader, which no catalogue translates."""
    found = []
    if isinstance(ruleset.summary, str) and ruleset.summary:
        found.append(f"the ruleset's summary {ruleset.summary!r}")
    for name, spec in ruleset.actions.items():
        words: list[tuple[str, Any]] = [("summary", spec.summary), ("label", spec.label)]
        for part in ("labels", "hints"):
            words += [(f"{part}[{key!r}]", said) for key, said in getattr(spec, part).items()]
        for key, choices in spec.choices.items():
            words += [(f"choices[{key!r}][{value!r}]", said) for value, said in choices.items()]
        found += [
            f"{name}: {where} {said!r}" for where, said in words if isinstance(said, str) and said
        ]
    return found


def _warn_at_ruleset(ruleset: Ruleset, warning: Warning) -> None:
    """Warn of ``ruleset`` with ``warning`` at the line its class is written on (its
    author's file, where pytest's warnings summary shows it), or at the suite's test
    where its source cannot be read (a class made in a shell)."""
    kind = type(ruleset)
    try:
        filename = inspect.getsourcefile(kind)
        line = inspect.getsourcelines(kind)[1]
    except (OSError, TypeError):
        filename = None
    if filename is None:
        warnings.warn(warning, stacklevel=2)
        return
    warnings.warn_explicit(warning, type(warning), filename, line, module=kind.__module__)


def _first_die_failure(name: str, failed: RollbridgeError, without: RollbridgeError | None) -> str:
    """What the first-die check says of a player's request for action ``name`` that
    failed ``internal`` (or with a plugin error) at a table with approval: what the
    ruleset did — caught the dice's stop, leaned on dice of its own kind, or fails a
    player's request at any table (``without``: how it fails without approval)."""
    raised = _raised_by_ruleset(failed)
    said = f"{name}: a player's request with its example failed ({failed.code}: {raised})"
    if stopped_at_first_die(failed):
        return (
            f"{said} at a table with approval, where resolve is run up to its first die "
            "before the request is held for the GM: the dice stop it there with an "
            "exception derived from BaseException only, and resolve raised its own while "
            "that stop went through it — an `except BaseException:`, a bare `except:`, a "
            "`finally:` or a context manager's `__exit__` that raised. Let the stop pass: "
            "catch `Exception` (or narrower), and raise nothing in `finally`"
        )
    if without is None:
        return (
            f"{said} at a table with approval only (it works without): there resolve is "
            "run up to its first die with dice of rollbridge's own that stop it, an "
            "exception derived from BaseException only — a ruleset that swallows that "
            "stop (`except BaseException:` or a bare `except:` that carries on), or "
            "leans on a source of its own kind (its class, an attribute only "
            "SeededDice has), fails there. Draw dice only through the DiceSource given "
            "(`roll_die(dice, faces)`, `dice.roll(faces)`) and let what it raises pass"
        )
    return (
        f"{said}, and fails so at a table without approval too: the example fails "
        "whenever a player asks for it (the first example actor theirs), whatever the "
        "dice — fix resolve for a player's request, or refuse it with a RuleViolation"
    )


def _raised_by_ruleset(failed: RollbridgeError) -> str:
    """The exception a ruleset raised under ``failed`` (the ``internal`` error made of
    it), its type, words and the line it came from; ``failed``'s own message where it
    was raised from none (a plugin error: a hook's return refused)."""
    cause = failed.__cause__
    if cause is None:
        return str(failed)
    frames = traceback.extract_tb(cause.__traceback__)
    at = f", at {Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else ""
    try:
        words = str(cause)
        said = f"{type(cause).__name__}{': ' + words if words else ''}"
    except Exception as unsaid:  # its own __str__ fails: named all the same
        said = f"{type(cause).__name__} (its __str__ raised {type(unsaid).__name__})"
    return f"{failed}: {said}{at}"


def _null_on(node: Any, path: str) -> bool:
    """Whether ``path`` (field names joined by dots) leads through a null inside
    ``node``: a field of it that is there and null (a vehicle not ridden yet)."""
    head, *rest = path.split(".")
    if not isinstance(node, Mapping) or head not in node:
        return False
    if node[head] is None:
        return bool(rest)
    return bool(rest) and _null_on(node[head], ".".join(rest))


class RulesetConformance(StateConformance):
    """Tests every ruleset must pass. Subclass it and set ``ruleset``."""

    #: The ruleset under test.
    ruleset: ClassVar[Ruleset]
    #: Seeds each action is resolved with.
    seeds: ClassVar[Sequence[int]] = tuple(range(12))
    #: The locales every text must read in (None: each the ruleset ships a catalogue of).
    locales: ClassVar[Sequence[str] | None] = None
    #: A state to start an example actor in, by example sheet name (a GM's supplied
    #: state: ``validate_state`` completes it): for an action whose example the fresh
    #: actors cannot do (a pool to spend, a stake the GM set in secret). The others
    #: start fresh (``initial_state``).
    example_states: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    #: States to put example actors in just before one action's example, by action
    #: name, then example sheet name (a GM's ``actor.update``; ``validate_state``
    #: completes each): for an action whose example needs a state in which an actor
    #: can do nothing else, so :attr:`example_states` would refuse the others (a
    #: dying character to stabilise, who then cannot attack). The actors stay so for
    #: the examples after it.
    action_states: ClassVar[Mapping[str, Mapping[str, Mapping[str, Any]]]] = {}
    #: Messages of the ruleset's (their ids, ``domain.key``) whose English reads right
    #: at every count though :meth:`test_english_counts_agree_with_their_nouns` finds a
    #: count before a plural noun, each with why: a count that cannot be one ("{rounds}
    #: rounds" of a burst, two rounds at the least), or a plural's singular whose words
    #: do not change with the count.
    never_one: ClassVar[Mapping[str, str]] = {}

    def _example_state(self, name: str, sheet: Mapping[str, Any]) -> dict[str, Any]:
        """The example actor ``name``'s starting state (:attr:`example_states`)."""
        given = self.example_states.get(name)
        if given is None:
            return self.ruleset.initial_state(sheet)
        return self.ruleset.validate_state(sheet, dict(given))

    def _actors(self) -> list[Actor]:
        actors = []
        for index, (name, sheet) in enumerate(_example_sheets(self.ruleset).items()):
            valid = _example_sheet(self.ruleset, name, sheet)
            actors.append(Actor(f"a{index}", name, valid, self._example_state(name, valid)))
        return actors

    def test_contract_is_valid(self) -> None:
        check_ruleset(self.ruleset, "under-test")
        _json_roundtrip(self.ruleset.describe(), "describe()")

    def test_a_table_needs_no_settings(self) -> None:
        """``settings_schema`` takes no settings at all (``{}``): it marks no field
        ``required`` (a field's ``default`` fills it in when it is left out; a
        required one is refused when left out, default or not). A table is made
        without settings wherever a GM gives none (``rollbridge table create``
        without ``--settings``, the admin API's create without them), and each was
        refused, naming the field, for every GM of the ruleset."""
        try:
            validate(self.ruleset.settings_schema, {}, where="settings.ruleset")
        except RollbridgeError as exc:
            raise AssertionError(
                f"a table made without settings is refused ({exc.message}): every "
                "`table create` without --settings would fail — take the field out of "
                "settings_schema's `required` and give it a `default`, which fills it in "
                "(docs/plugins.md, 'Testing a ruleset')"
            ) from None

    def test_no_member_of_the_contract_is_misspelt(self) -> None:
        """No attribute the ruleset's class defines is a near miss of a member of the
        contract (``player_veiw``, ``on_turn_starts``, ``state_schema_fro``): the
        engine calls only the contract's names, so it would never be called — the
        base class's default answering instead, and every other test passing."""
        contract = {n for n in dir(Ruleset) if not n.startswith("_")}
        contract |= set(Ruleset.__annotations__)
        own: set[str] = set()
        for cls in type(self.ruleset).__mro__:
            if cls in Ruleset.__mro__:  # rollbridge's own classes, and object
                continue
            own |= {name for name in vars(cls) if not name.startswith("_")}
        misses = {
            name: close[0]
            for name in sorted(own - contract)
            if (close := difflib.get_close_matches(name, sorted(contract), n=1, cutoff=0.85))
        }
        assert not misses, (
            "members named like the contract's but not as it names them, which the engine "
            f"never calls: {', '.join(f'{n} (the contract has {c})' for n, c in misses.items())}"
            " — name each as the contract does (docs/plugins.md, 'The contract'), or, if "
            "it is a helper of your own, start its name with an underscore (a private "
            "name is never taken for the contract's) or give it one further from the contract's"
        )

    def test_example_sheets_validate_and_states_are_json(self) -> None:
        for actor in self._actors():
            _json_roundtrip(dict(actor.sheet), f"sheet {actor.name!r}")
            _json_roundtrip(dict(actor.state), f"initial state of {actor.name!r}")
            _check_common(self.ruleset.common_state(actor), f"actor {actor.name!r}")
            view = self.ruleset.player_view(actor, {})
            assert isinstance(view, PlayerView), "player_view must return a PlayerView"
            _check_common(view.common, f"player view of {actor.name!r}")

    def test_choices_from_name_the_example_sheets(self) -> None:
        """Each parameter whose choices are on the actor's sheet or state
        (``choicesFrom``) names a list or an object that is there on at least one
        example actor (its sheet, or the fresh state of it), that some example actor
        offers a choice there (a sheet's; a state's may be empty on every fresh
        actor, or lead through a null on every one, as a vehicle not ridden yet: it
        fills in play), and every choice found there is a value the
        parameter's schema accepts; a ruleset without such a parameter passes.

        A target's (``"of": "target"``) is also read as a player holds each example
        actor as an NPC (``player_view`` under the default settings): what that view
        offers is among what the actor has — a view that made up or changed a choice
        would have players send what the rules refuse."""
        actors = self._actors()
        settings = validate(self.ruleset.settings_schema, {}, where="settings.ruleset")
        for name, spec in self.ruleset.actions.items():
            for param, schema in ((spec.params or {}).get("properties") or {}).items():
                annotation = schema.get("choicesFrom")
                if annotation is None:
                    continue
                source = "state" if "state" in annotation else "sheet"
                path = annotation[source]
                where = f"action {name!r} parameter {param!r}: choicesFrom {source} {path!r}"
                found = [
                    actor
                    for actor in actors
                    if isinstance(
                        value_at(actor.state if source == "state" else actor.sheet, path),
                        Mapping | list | tuple,
                    )
                ]
                # a state's path may pass through a null of every fresh actor (the
                # vehicle ridden: none yet), as a state's list may be empty; one actor
                # that holds it there (a vehicle ridden) shows the path right or wrong
                unfilled = source == "state" and all(
                    _null_on(actor.state, path) for actor in actors
                )
                assert found or unfilled, f"{where} is on no example actor's {source}"
                offered = False
                for actor in found:
                    for choice in sheet_choices(schema, actor.sheet, actor.state):
                        offered = True
                        try:
                            validate(schema, choice, where=f"params.{param}")
                        except RollbridgeError as exc:
                            raise AssertionError(
                                f"{where}: {actor.name!r} offers {choice!r}, which the "
                                f"parameter refuses: {exc}"
                            ) from exc
                # a state's list may be empty on every fresh actor: it fills in play
                # (what an actor picks up); a sheet's is there from the start
                assert offered or source == "state", (
                    f"{where}: no example actor offers a choice there"
                )
                if choices_of(schema) == "target":
                    for actor in actors:
                        view = self.ruleset.player_view(actor, settings)
                        seen = sheet_choices(schema, view.sheet, view.state)
                        whole = sheet_choices(schema, actor.sheet, actor.state)
                        made_up = [choice for choice in seen if choice not in whole]
                        assert not made_up, (
                            f"{where}: players' view of {actor.name!r} offers {made_up!r}, "
                            f"which {actor.name!r} does not have ({whole!r})"
                        )

    def test_every_action_has_an_example(self) -> None:
        """Every action has an ``example`` its own ``params`` schema takes."""
        missing = [n for n, spec in self.ruleset.actions.items() if spec.example is None]
        assert not missing, (
            f"actions without an example: {missing} — give each ActionSpec "
            "example={...}, parameters a request may send ({} for none)"
        )
        for name in self.ruleset.actions:
            for locale in ("en", *self._locales()):  # its texts rendered in each
                _example_params(self.ruleset, name, locale)

    def _cases(self) -> list[tuple[str, JSON]]:
        cases = []
        for name, spec in self.ruleset.actions.items():
            if spec.example is not None:
                _example_params(self.ruleset, name)  # refused: says which, and why
                cases.append((name, {"params": spec.example_in("en") or {}}))
        return cases

    def _harness(self, seed: int, *, verifiable: bool = False) -> tuple[RulesetHarness, list[str]]:
        harness = RulesetHarness(self.ruleset, seed=seed, verifiable=verifiable)
        ids = []
        for i, (name, sheet) in enumerate(_example_sheets(self.ruleset).items()):
            _example_sheet(self.ruleset, name, sheet)  # refused: says which, and why
            state = self.example_states.get(name)
            ids.append(harness.add_actor(name, sheet, actor_id=f"a{i}", state=state))
        return harness, ids

    def _request_for(self, name: str, ids: list[str], harness: RulesetHarness) -> JSON:
        """Who acts in the action's example and whom it targets at ``harness``, its
        example actors put in the states :attr:`action_states` gives for it first."""
        names = list(_example_sheets(self.ruleset))
        for sheet_name, state in self.action_states.get(name, {}).items():
            update = {"type": "actor.update", "actor": ids[names.index(sheet_name)]}
            harness.request({**update, "state": dict(state)})
        spec = self.ruleset.actions[name]
        actor = ids[0] if spec.actor != "none" else None
        others = [i for i in ids if i != actor] or ids
        wanted = spec.min_targets or (1 if (spec.max_targets or 0) >= 1 else 0)
        targets = [] if spec.every_actor else others[:wanted]
        return {"actor": actor, "targets": targets}

    def test_actions_resolve_through_the_engine(self) -> None:
        resolved = 0
        done: set[str] = set()
        refusals: dict[str, RuleViolation] = {}
        for seed in self.seeds:
            harness, ids = self._harness(seed)
            for name, case in self._cases():
                where = self._request_for(name, ids, harness)
                before = {i: harness.state(i) for i in ids}
                try:
                    event = harness.resolve(name, params=case["params"], **where)
                except RuleViolation as refused:
                    _check_code(refused, f"{name}: refused")
                    refusals.setdefault(name, refused)
                    after = {i: harness.state(i) for i in ids}
                    assert after == before, f"{name}: a refused action changed state"
                    continue
                except RollbridgeError as exc:
                    raise AssertionError(
                        f"action {name!r} with its example failed: {exc.code}: {said_as_gm(exc)}"
                    ) from exc
                resolved += 1
                done.add(name)
                _json_roundtrip(event["data"], f"{name}: resolution")
                assert event["data"]["narration"], f"{name}: the narration is empty"
                for actor_id in ids:
                    _check_made_state(
                        self.ruleset,
                        harness.table.actors[actor_id].sheet,
                        harness.state(actor_id),
                        f"{name}: new state of {actor_id}",
                    )
                    common = harness.actor(actor_id)["common"]
                    assert common["status"] in STATUSES, (
                        f"{name}: the common status of {actor_id} is {common['status']!r}, "
                        f"not one of {STATUSES}"
                    )
                    for track in common["tracks"]:
                        assert 0 <= track["value"] <= track["max"], (
                            f"{name}: track {track['key']} of {actor_id} out of bounds"
                        )
                    record = harness.table.actors[actor_id]
                    _check_own_details(
                        self.ruleset.common_state(
                            Actor(record.id, record.name, record.sheet, record.state)
                        ),
                        actor_id,
                        f"{name}: {actor_id}",
                    )
        assert resolved, _none_resolved(refusals)
        never = {name: refused for name, refused in refusals.items() if name not in done}
        if never:
            _warn_at_ruleset(self.ruleset, NeverResolvedWarning(_never_resolved(never)))

    def test_refusals_come_before_the_first_die(self) -> None:
        """At a table with ``approval`` a player's request is checked by running
        ``resolve`` up to its first die, then held for the GM (docs/protocol.md,
        "Approval"). An example a player may ask for that the rules refuse only after
        a die was drawn was answered ``pending``, and refused when the GM approved it:
        the GM read the refusal, and the player's request waited until the GM rejected
        it. Each example is asked for by a player (the first example actor is theirs)
        and, when held, approved."""
        for seed in self.seeds[:4]:
            harness = RulesetHarness(self.ruleset, seed=seed, settings={"approval": True})
            ids = []
            for i, (name, sheet) in enumerate(_example_sheets(self.ruleset).items()):
                sheet = _example_sheet(self.ruleset, name, sheet)
                state = self.example_states.get(name)
                ids.append(
                    harness.add_actor(name, sheet, actor_id=f"a{i}", player=i == 0, state=state)
                )
            for name, case in self._cases():
                if self.ruleset.actions[name].gm_only:
                    continue
                where = self._request_for(name, ids, harness)
                try:
                    reply = harness.resolve(name, params=case["params"], who=PLAYER, **where)
                except RuleViolation as refused:
                    _check_code(refused, f"{name}: refused to a player")
                    continue  # refused before its first die, as it should be
                except (InternalError, PluginError) as failed:
                    without = self._without_approval(seed, name, case["params"])
                    raise AssertionError(_first_die_failure(name, failed, without)) from failed
                except RollbridgeError:
                    continue
                if reply.get("status") != "pending":
                    continue
                try:
                    harness.request({"type": "approve", "request": reply["pending"]})
                except (InternalError, PluginError):
                    raise
                except RollbridgeError as refused:
                    raise AssertionError(
                        f"{name}: a player's request with its example was held for the GM's "
                        f"approval and refused only when the GM approved it ({refused.code}: "
                        f"{said_as_gm(refused)}): at a table with approval a request is "
                        "checked by running resolve up to its first die, so make every refusal "
                        "before drawing any die (the dice a refused request drew are shown "
                        "nowhere)"
                    ) from None

    def _without_approval(self, seed: int, name: str, params: JSON) -> RollbridgeError | None:
        """What a player's request for action ``name`` with ``params`` fails with at a
        table without approval (None: it works there, or is refused with a typed
        error), the first example actor the player's, as in the first-die check."""
        harness = RulesetHarness(self.ruleset, seed=seed)
        ids = [
            harness.add_actor(
                sheet_name,
                _example_sheet(self.ruleset, sheet_name, sheet),
                actor_id=f"a{i}",
                player=i == 0,
            )
            for i, (sheet_name, sheet) in enumerate(_example_sheets(self.ruleset).items())
        ]
        where = self._request_for(name, ids, harness)
        try:
            harness.resolve(name, params=params, who=PLAYER, **where)
        except (InternalError, PluginError) as failed:
            return failed
        except RollbridgeError:
            pass
        return None

    def test_adjustments_make_states_the_rules_take(self) -> None:
        """A GM's ``adjust`` (docs/protocol.md: damage or healing on a common track)
        of each example actor's tracks — a box, past the track's end, a box healed,
        past its start — is refused with a typed error (a ``RuleViolation``'s code checked
        as the examples' are), or makes a state that passes
        ``state_schema_for(sheet)``, comes back unchanged from ``validate_state`` and
        keeps every track within its bounds. The engine stores what ``adjust``
        returns unchecked: a state healed below zero would be stored, drawn as a track
        of −4 boxes, and the GM's ``actor.update`` resending it refused."""
        if type(self.ruleset).adjust is Ruleset.adjust:
            pytest.skip("the ruleset does not override adjust (the GM's adjust is refused)")
        harness, ids = self._harness(self.seeds[0])
        for actor_id in ids:
            for track in harness.actor(actor_id)["common"]["tracks"]:
                past = min(1000, max(1, track["max"]) + 1)  # the request takes ±1000
                for delta in (1, past, -1, -min(1000, 2 * past)):
                    where = f"adjust of {actor_id}'s track {track['key']!r} by {delta:+d}"
                    request = {"type": "adjust", "actor": actor_id, "track": track["key"]}
                    try:
                        harness.request({**request, "delta": delta})
                    except (InternalError, PluginError) as exc:
                        raise AssertionError(f"{where}: {exc.code}: {said_as_gm(exc)}") from exc
                    except RuleViolation as refused:
                        _check_code(refused, f"{where}: refused")
                        continue  # the rules do not take it
                    except RollbridgeError:
                        continue  # refused: the rules do not take it
                    sheet = harness.table.actors[actor_id].sheet
                    _check_made_state(self.ruleset, sheet, harness.state(actor_id), where)
                    for shown in harness.actor(actor_id)["common"]["tracks"]:
                        assert 0 <= shown["value"] <= shown["max"], (
                            f"{where}: track {shown['key']!r} reads {shown['value']} of "
                            f"{shown['max']}: keep adjust's state within the track"
                        )

    def test_statistics_read_the_rulesets_own_events(self) -> None:
        """A ruleset's :meth:`~rollbridge.contract.Ruleset.statistics` (when it has
        them): distinct keys with labels that render in every locale; on the GM's and
        the players' views of every example's event, and of every turn hook's result
        in an encounter of the example actors, only its keys, with integer values and
        actor ids; and some count from the examples — so the counts read the fields
        the ruleset's events really have."""
        statistics = self.ruleset.statistics()
        if statistics is None:
            return
        keys = [key for key, _ in statistics.keys]
        assert len(set(keys)) == len(keys), f"statistics keys repeat: {keys}"
        for key, label in statistics.keys:
            for locale in ("en", *self._locales()):
                assert render(label, locale=locale).strip(), f"statistics {key}: empty label"
        counted = 0
        for seed in self.seeds[:4]:
            harness, ids = self._harness(seed)
            for name, case in self._cases():
                where = self._request_for(name, ids, harness)
                try:
                    harness.resolve(name, params=case["params"], **where)
                except RuleViolation:
                    continue
                for view in harness.views():
                    counted += _checked_counts(statistics, keys, view, name)
            for view in self._encounter_views(harness, ids):
                for hook in hook_views(view):
                    _checked_counts(statistics, keys, hook, f"turn hook {hook['data']['action']}")
        assert counted, "no action example counted anything for the ruleset's statistics"

    @staticmethod
    def _encounter_views(harness: RulesetHarness, ids: list[str]) -> list[JSON]:
        """The GM's and the players' views of an encounter of the example actors: its
        start, two rounds of turns and its end (the turn hooks' results are in them).
        A step the rules refuse is skipped; one the engine refuses as the ruleset's
        fault (``internal``: a hook returned what cannot be stored, raised, …; or
        ``plugin_error``) fails, naming the step."""
        views: list[JSON] = []
        steps = [{"type": "encounter.start", "order": ids}]
        steps += [{"type": "encounter.next"}] * (2 * len(ids)) + [{"type": "encounter.end"}]
        for step in steps:
            try:
                harness.request(step)
            except (InternalError, PluginError) as exc:
                raise AssertionError(f"{step['type']}: {exc.code}: {said_as_gm(exc)}") from exc
            except RollbridgeError:
                continue  # a ruleset may refuse a step; the rest still count
            views.extend(harness.views())
            for actor_id, actor in harness.table.actors.items():
                where = f"{step['type']}: state of {actor_id}"
                _check_made_state(harness.ruleset, actor.sheet, dict(actor.state), where)
        return views

    def _context(self, name: str, case: JSON, actors: list[Actor]) -> ActionContext:
        """The action's example as a context: the first example actor acts (if the
        action takes one), the next ones are its targets; asked by the GM, secret where
        the action is always secret (as the server tells ``resolve`` and ``odds``)."""
        spec = self.ruleset.actions[name]
        params = validate(spec.params, case["params"])
        given = self.action_states.get(name, {})
        actors = [
            Actor(a.id, a.name, a.sheet, self.ruleset.validate_state(a.sheet, dict(given[a.name])))
            if a.name in given
            else a
            for a in actors
        ]
        actor = actors[0] if spec.actor != "none" else None
        others = [a for a in actors if a is not actor] or actors
        wanted = spec.min_targets or (1 if (spec.max_targets or 0) >= 1 else 0)
        targets = tuple(actors if spec.every_actor else others[:wanted])
        return ActionContext(name, params, actor, targets, {}, "r1", True, spec.secret)

    def test_resolution_is_pure_and_reproducible(self) -> None:
        actors = self._actors()
        for name, case in self._cases():
            context = self._context(name, case, actors)
            actor, targets, params = context.actor, context.targets, context.params
            frozen = copy.deepcopy((actor, targets, params))
            results = []
            for _ in range(2):
                try:
                    result = self.ruleset.resolve(context, SeededDice(7))
                except RuleViolation:
                    result = None
                results.append(result.to_dict() if isinstance(result, Resolution) else None)
                assert (actor, targets, params) == frozen, f"{name}: resolve mutated its input"
            assert results[0] == results[1], f"{name}: the same dice gave different results"

    def test_a_resolution_shows_every_die_it_rolls(self) -> None:
        """The dice groups of each example's resolution, and of each turn hook's,
        show every die it drew, in the order drawn (a chip's group: its rerolled
        dice): at a table with verifiable dice the engine refuses one that does not
        (``internal``), and ``rollbridge verify`` reports one as a server that chose
        its dice. Checked on the resolutions themselves and through the engine at a
        verifiable table: every example, and an encounter of the example actors."""
        for seed in self.seeds[:4]:
            harness, ids = self._harness(seed, verifiable=True)
            for name, case in self._cases():
                where = self._request_for(name, ids, harness)
                try:
                    harness.resolve(name, params=case["params"], **where)
                except (InternalError, PluginError) as exc:
                    raise AssertionError(f"{name}: {exc.code}: {said_as_gm(exc)}") from exc
                except RollbridgeError:
                    continue
            self._encounter_views(harness, ids)  # a hook the engine refuses fails here
        actors = self._actors()
        for name, case in self._cases():
            context = self._context(name, case, actors)
            for seed in self.seeds:
                source = _Recording(seed)
                try:
                    result = self.ruleset.resolve(context, source)
                except RuleViolation:
                    continue
                shown = resolution_dice({"dice": [g.to_dict() for g in result.dice]})
                assert shown == source.record, (
                    f"{name}: drew {source.record} (faces, result) but shows {shown}"
                )

    def test_odds_are_exact_and_draw_no_dice(self) -> None:
        """Each action example whose :meth:`~rollbridge.contract.Ruleset.odds` gives an
        :class:`~rollbridge.odds.Odds`: non-negative fractions that, with
        ``truncated``, sum to exactly 1; no die drawn (any dice source raises), the
        input unchanged, the same odds twice. Skipped when every action has none."""
        actors = self._actors()
        computed = 0

        def no_dice(source: DiceSource, faces: int) -> int:
            raise AssertionError("odds drew a die")

        for name, case in self._cases():
            context = self._context(name, case, actors)
            frozen = copy.deepcopy((context.actor, context.targets, context.params))
            results = []
            for _ in range(2):
                with pytest.MonkeyPatch.context() as patch:
                    patch.setattr(DiceSource, "roll", no_dice)
                    try:
                        results.append(self.ruleset.odds(context))
                    except RuleViolation:
                        results.append(None)
            assert (context.actor, context.targets, context.params) == frozen, (
                f"{name}: odds mutated its input"
            )
            odds = results[0]
            if odds is None:
                continue
            assert isinstance(odds, Odds), f"{name}: odds must return an Odds or None"
            assert results[1] == odds, f"{name}: odds differ between two calls"
            values = [*odds.outcomes.values(), odds.truncated]
            assert all(isinstance(p, Fraction) and p >= 0 for p in values), (
                f"{name}: every probability must be a non-negative Fraction"
            )
            assert sum(values) == 1, f"{name}: the outcomes and truncated sum to {sum(values)}"
            _json_roundtrip(odds.to_dict(), f"{name}: odds")
            computed += 1
        if not computed:
            pytest.skip("the ruleset gives no odds for any action example")

    def test_texts_are_data_and_render_for_every_audience(self) -> None:
        """Narration and steps are :class:`~rollbridge.text.Text` (so they can be
        rendered per audience and language), and every resolution renders for the
        GM and for players — with every actor an NPC, so every private value is
        hidden — as non-empty text with no placeholder left, every argument fitting
        its format spec, and so of an example's refusal (``{armour:d}`` given None or a
        float fails here: at a table it reads without the spec, and the server logs a
        WARNING)."""
        rendered = 0
        refusals: dict[str, RuleViolation] = {}
        slips = misformatted()
        told: set[str] = set()
        for seed in self.seeds[:4]:
            harness, ids = self._harness(seed)
            for name, case in self._cases():
                where = self._request_for(name, ids, harness)
                try:
                    harness.resolve(name, params=case["params"], **where)
                except RuleViolation as refused:  # rendered in English as it was made
                    refusals.setdefault(name, refused)
                    _check_specs(slips, f"{name}: its refusal")
                    continue
                _check_specs(slips, name)
                event = harness.events(harness.table.info.seq - 1)[-1]
                for path in event.texts:
                    assert path, f"{name}: a text without a place"
                assert ["narration"] in event.texts, f"{name}: the narration is not a Text"
                steps = event.data.get("steps") or []
                missing = [i for i in range(len(steps)) if ["steps", i] not in event.texts]
                assert not missing, f"{name}: steps {missing} are plain strings, not Texts"
                gm, players = harness.views()
                _check_rendered(gm["data"], name)
                if players["kind"] == "hidden":  # always secret: players read no data
                    _check_players_view(players, name)
                else:
                    _check_rendered(players["data"], name)
                    _check_no_stored_form(players["data"], name)
                    _check_no_look_alike(players["data"], name)
                    told.update(_told_targets(gm["data"], players["data"], name))
                _check_specs(slips, name)
                rendered += 1
        assert rendered, _none_resolved(refusals)
        for said in sorted(told):
            _warn_at_ruleset(self.ruleset, ToldTargetWarning(said))

    def test_what_players_see_of_every_hook_holds_no_look_alike(self) -> None:
        """Players' views of what every hook but ``resolve`` made — each example
        actor's creation (``initial_state``, ``common_state``, ``player_view``), an
        encounter's start, turns and end (the turn hooks' results), a GM's ``adjust``
        of each track — hold no map that looks like a stored private form but is none,
        as a resolution's may not (:meth:`test_texts_are_data_and_render_for_every_audience`):
        the failure names the hook, the path and the fix."""
        harness, ids = self._harness(self.seeds[0])
        for seq in range(1, harness.table.info.seq + 1):
            _check_players_view(harness.views(seq)[1], "actor.create")
        adjusts = type(self.ruleset).adjust is not Ruleset.adjust
        for actor_id in ids if adjusts else ():
            for track in harness.actor(actor_id)["common"]["tracks"]:
                for delta in (1, -1):
                    request = {"type": "adjust", "actor": actor_id, "track": track["key"]}
                    try:
                        harness.request({**request, "delta": delta})
                    except RollbridgeError:
                        continue  # the rules do not take it (a fault fails its own test)
                    _check_players_view(harness.views()[1], f"adjust of {actor_id}")
        views = self._encounter_views(harness, ids)
        told: set[str] = set()
        for gm, players in zip(views[0::2], views[1::2], strict=True):  # of each step
            _check_players_view(players, f"{players['kind']} event")
            told.update(_hooks_told_targets(gm, players))
        for said in sorted(told):  # as a resolution's are (rev28a)
            _warn_at_ruleset(self.ruleset, ToldTargetWarning(said))

    def test_secret_actions_show_players_only_that_something_happened(self) -> None:
        """Each action that is always secret (``ActionSpec(secret=True)``), its example
        asked for without ``secret`` by the GM and by the acting actor's player: the
        ruleset is told it is secret (``context.secret``), the event is the GM's
        alone, players get its ``hidden`` placeholder — nothing but that something
        happened (and the actors it changed, as they may see them) — and the player who
        asked a ``secret`` reply without the result. Skipped when no action is."""
        secret = [name for name, spec in self.ruleset.actions.items() if spec.secret]
        if not secret:
            pytest.skip("no action is always secret (ActionSpec(secret=True))")
        told: list[bool] = []
        resolve = self.ruleset.resolve

        def noting(context: ActionContext, dice: DiceSource) -> Resolution:
            told.append(context.secret)
            return resolve(context, dice)

        checked = 0
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(self.ruleset, "resolve", noting)
            for name in secret:
                checked += self._secret_example(name, told)
        assert checked, f"no example of the secret actions {secret} resolved"

    def _secret_example(self, name: str, told: list[bool]) -> int:
        """:meth:`test_secret_actions_show_players_only_that_something_happened` for
        one action: how many of its requests resolved."""
        resolved = 0
        case = dict(self._cases()).get(name)
        if case is None:
            return 0
        for who in (GM, PLAYER):
            harness, ids = self._harness(self.seeds[0])
            where = self._request_for(name, ids, harness)
            acting = where["actor"] or (where["targets"] or ids)[0]
            harness.request({"type": "actor.update", "actor": acting, "controllers": ["player"]})
            del told[:]
            try:
                reply = harness.request(
                    {"type": "resolve", "action": name, "params": case["params"], **where},
                    who=who,
                )
            except RollbridgeError:
                continue  # refused: the other tests say whether it ever resolves
            what = f"{name} (always secret), asked by the {who.role}"
            assert told and all(told), f"{what}: resolve was not told it is secret"
            gm, players = harness.views()
            assert gm.get("gm_only") is True, f"{what}: the event is not the GM's alone"
            assert players["kind"] == "hidden" and "data" not in players, (
                f"{what}: players' view shows more than that something happened: {players}"
            )
            if who is PLAYER:
                assert reply.get("status") == "secret" and "event" not in reply, (
                    f"{what}: the player's reply is not a secret roll's: {reply}"
                )
            resolved += 1
        return resolved

    def test_renamed_messages_read_as_declared_ones(self) -> None:
        """Every message id the ruleset renamed (``say.renamed``) leads to a declared
        message, so that the texts older tables keep under the old id read as it
        (a misspelt new key reads ``[domain.key] arg=value`` in every export)."""
        unreadable = [pair for domain in self._domains() for pair in unreadable_renamings(domain)]
        assert not unreadable, "renamed to no declared message: " + ", ".join(
            f"{old} -> {new}" for old, new in unreadable
        )

    def _no_catalogue(self) -> str:
        """Why the locale tests are skipped, and what makes them run."""
        ident = self.ruleset.id
        if not all(part.isidentifier() for part in ident.split(".")):
            return (
                f"{ident} ships no catalogue besides English in the domain {ident!r} (its "
                "id, where the suite looks), and no Messages can declare that domain: a "
                f"domain is a dotted name ({ident.replace('-', '_')!r}, not {ident!r}); set "
                "locales = ('cs', ...) on this class to the languages its catalogues ship"
            )
        return (
            f"{ident} ships no catalogue besides English in the domain {ident!r} (its id, "
            f"where the suite looks): declare its messages with Messages({ident!r}, "
            "catalogs=Path(__file__).with_name('locale')) and make the catalogues "
            f"(rollbridge catalogs update YOUR_PACKAGE --domain {ident} --locale cs; "
            "docs/plugins.md, 'Languages'), or set locales = ('cs', ...) on this class to "
            "require those"
        )

    def _domains(self) -> set[str]:
        """The domains of the ruleset's own messages: its id's, and those its actions'
        words and its statistics' labels are declared in."""
        statistics = self.ruleset.statistics()
        words = [
            [spec.label, spec.summary, spec.labels, spec.hints, spec.choices]
            for spec in self.ruleset.actions.values()
        ]
        labels = [label for _key, label in statistics.keys] if statistics is not None else []
        return {self.ruleset.id} | {_domain_of(i) for i in _text_ids([words, labels])}

    def _locales(self) -> list[str]:
        if self.locales is not None:
            return list(self.locales)
        return sorted(locales_of(self.ruleset.id) - {"en"})

    def test_english_counts_agree_with_their_nouns(self) -> None:
        """No message of the ruleset's reads "1 hits": a count before a plural noun in
        a plain message (``say(key, "{hits} hits")``) or in a plural message's singular,
        or a plural message whose singular is its plural's text, fails naming the
        message (:mod:`rollbridge.testing_plurals`); so does a plural message the
        examples gave a count that is no ``int`` (``count="1"``: "1 successes"). The
        messages scanned are those of the ruleset's domains declared once every example
        has run (a message declared where its text is made counts once an example
        reaches it); rollbridge's own are held to it by its own tests.
        :attr:`never_one` names the exceptions."""
        said = self._examples_said()
        domains = self._domains() | {_domain_of(i) for i in _text_ids(said)}
        worded, numbered = worded_placeholders(said), numbered_placeholders(said)
        slips = {}
        for domain in sorted(domains - {"rollbridge"}):
            slips.update(english_count_slips(messages_of(domain), worded, numbered))
        declared = {m.id for d in domains for m in messages_of(d)}
        unknown = sorted(self.never_one.keys() - declared)
        assert not unknown, (
            f"never_one names no message of the ruleset's domains ({', '.join(sorted(domains))}"
            f"): {unknown} — name each by its id, domain.key, as this test's failure does"
        )
        wrong = {key: slip for key, slip in slips.items() if key not in self.never_one}
        assert not wrong, (
            "messages that read wrong at a count of one: "
            + "; ".join(f"{key}: {slip}" for key, slip in sorted(wrong.items()))
            + ' — declare a plain one with say.plural(key, "{count} hit", "{count} hits", '
            'count="count") and translate every plural form (docs/plugins.md, '
            '"Languages"), or put the count after its word ("hits: {hits}"); give a '
            "plural one a singular that reads right at one; a count that cannot be one "
            "goes in never_one = {message id: why} on this class"
        )
        stale = sorted(self.never_one.keys() - slips.keys())
        assert not stale, f"never_one names messages that read right at one, drop: {stale}"
        uncounted = uncounted_plurals(said)
        assert not uncounted, (
            "plural messages given a count that is no int, which chooses no form ('1' "
            "reads '1 successes'): "
            + "; ".join(f"{key}: {given}" for key, given in sorted(uncounted.items()))
            + " — pass the count as an int (int(...) of a parameter or a field read as text)"
        )

    def _examples_said(self) -> list[Any]:
        """What the action examples (with the first seed: their events, or their
        refusals' texts) and an encounter of the example actors after them (its
        events: the turn hooks' texts) said — running them declares the messages
        declared where their texts are made."""
        harness, ids = self._harness(self.seeds[0])
        said: list[Any] = []
        for name, case in self._cases():
            try:
                harness.resolve(
                    name, params=case["params"], **self._request_for(name, ids, harness)
                )
            except RollbridgeError as refused:
                said.append(refused.text)
        self._encounter_views(harness, ids)
        return said + [event.data for event in harness.events()]

    def test_every_action_reads_in_every_locale(self) -> None:
        """Every action's resolution (for the GM and for players), an encounter of
        the example actors (its turn hooks' texts), every actor's
        common state, every refusal, the actions' own words (label, summary, the
        parameters' labels, hints and choices), the labels of the examples' odds and
        of the statistics' keys read in each locale the ruleset ships
        (:attr:`locales`) with no message left in English for want of a translation."""
        locales = self._locales()
        if not locales:
            pytest.skip(self._no_catalogue())
        plain = _plain_words(self.ruleset)
        if plain:
            _warn_at_ruleset(
                self.ruleset,
                PlainWordsWarning(
                    "words people read are plain strings, which read in English in "
                    f"{', '.join(locales)}: {'; '.join(plain)} — give each as a Text of your "
                    'catalogue (summary=say("action.attack.summary", "…")(), '
                    'label=say("action.attack", "…")())'
                ),
            )
        before = untranslated()
        slips = misformatted()
        rendered = 0
        refusals: dict[str, RuleViolation] = {}
        said: list[Any] = []  # what the ruleset said: where its messages' domains are read
        for seed in self.seeds[:3]:
            harness, ids = self._harness(seed)
            for name, case in self._cases():
                where = self._request_for(name, ids, harness)
                try:
                    harness.resolve(name, params=case["params"], **where)
                except RuleViolation as refused:
                    refusals.setdefault(name, refused)
                    assert refused.text is not None, (
                        f"{name}: the refusal {refused.message!r} is a plain string, not a Text"
                    )
                    said.append(refused.text)
                    for locale in locales:
                        assert refused.render(locale).strip(), f"{name}: an empty refusal"
                    _check_specs(slips, f"{name}: its refusal")
                    continue
                for locale in locales:
                    for view in harness.views(locale=locale):
                        if view["kind"] != "hidden":  # always secret: players read no data
                            _check_rendered(view["data"], f"{name} in {locale}")
                    _check_specs(slips, f"{name} in {locale}")
                    for actor_id in ids:
                        for gm in (True, False):
                            _json_roundtrip(
                                harness.actor(actor_id, gm=gm, locale=locale)["common"],
                                f"{name}: common state of {actor_id} in {locale}",
                            )
                rendered += 1
            if seed == self.seeds[0]:  # the turn hooks' texts, as each reader sees them
                self._encounter_in(harness, ids, locales)
            said.extend(event.data for event in harness.events())
        assert rendered, _none_resolved(refusals)
        for locale in locales:  # the actions' own words, as forms show them
            _json_roundtrip(self.ruleset.describe(locale), f"describe({locale!r})")
        actors = self._actors()
        for name, case in self._cases():  # the odds' outcomes, as each reader sees them
            try:
                odds = self.ruleset.odds(self._context(name, case, actors))
            except RollbridgeError:
                continue
            if isinstance(odds, Odds):
                said.append(odds.labels)
                for locale in locales:
                    _json_roundtrip(odds.to_dict(locale), f"{name}: odds in {locale}")
        statistics = self.ruleset.statistics()
        for _key, label in statistics.keys if statistics is not None else ():
            for locale in locales:  # the statistics' labels, as each reader sees them
                render(label, locale=locale)
        domains = self._domains() | {_domain_of(i) for i in _text_ids(said)}
        domains |= {_domain_of(key[0]) for key in untranslated() - before}
        missing = _untranslated_since(before, locales, lambda id_: _domain_of(id_) in domains)
        assert not missing, (
            f"messages without a translation (id, locale): {missing} — "
            + _translation_hint(missing)
        )

    def _encounter_in(self, harness: RulesetHarness, ids: list[str], locales: list[str]) -> None:
        """An encounter of the example actors at ``harness`` (:meth:`_encounter_views`),
        each of its events rendered for the GM and for players in each of ``locales``:
        a turn hook's message a catalogue lacks is noted as untranslated. Until
        author29 the locale test resolved the action examples alone."""
        first = harness.table.info.seq
        self._encounter_views(harness, ids)
        for seq in range(first + 1, harness.table.info.seq + 1):
            for locale in locales:
                for view in harness.views(seq, locale=locale):
                    for hook in _hooks_of(view):
                        _check_rendered(hook, f"{hook.get('hook')} at event {seq} in {locale}")

    #: Ill-typed or out-of-range values put in place of each example parameter and
    #: sheet field by :meth:`test_every_refusal_reads_in_every_locale`.
    wrong_values: ClassVar[tuple[Any, ...]] = (None, "?", -1, 10**6, [], {"x": 1})

    def test_every_refusal_reads_in_every_locale(self) -> None:
        """Every refusal of a bad parameter or sheet field — the core's schema checks
        and the ruleset's own — is a Text that reads in each locale the ruleset ships,
        every argument fitting its format spec there and in English."""
        locales = self._locales()
        if not locales:
            pytest.skip(self._no_catalogue())
        before = untranslated()
        refusals: list[tuple[str, RollbridgeError]] = []
        harness, ids = self._harness(self.seeds[0])
        for name, case in self._cases():
            where = self._request_for(name, ids, harness)
            for key in case["params"]:
                for wrong in self.wrong_values:
                    slips = misformatted()  # a refusal is rendered in English as it is made
                    try:
                        harness.resolve(name, params={**case["params"], key: wrong}, **where)
                    except RollbridgeError as refused:
                        refusals.append((f"{name} with {key}={wrong!r}", refused))
                        _check_specs(slips, refusals[-1][0])
        for sheet_name, sheet in self.ruleset.example_sheets.items():
            for key in sheet:
                for wrong in self.wrong_values:
                    slips = misformatted()
                    try:
                        harness.add_actor(f"{sheet_name}?", {**sheet, key: wrong})
                    except RollbridgeError as refused:
                        refusals.append((f"sheet {sheet_name} with {key}={wrong!r}", refused))
                        _check_specs(slips, refusals[-1][0])
        assert refusals, "no bad parameter or sheet field was refused"
        slips = misformatted()
        for where, refused in refusals:
            assert refused.text is not None, (
                f"{where}: the refusal {refused.message!r} is a plain string, not a Text"
            )
            for locale in locales:
                assert refused.render(locale).strip(), f"{where}: an empty refusal in {locale}"
            _check_specs(slips, where)
        said = _text_ids([refused.text for _where, refused in refusals])
        missing = _untranslated_since(before, locales, said.__contains__)
        assert not missing, (
            f"refusals without a translation (id, locale): {missing} — "
            + _translation_hint(missing)
        )

    def test_turn_hooks_touch_only_participants(self) -> None:
        actors = tuple(self._actors())
        for hook in ("on_round_start", "on_turn_start", "on_turn_end", "on_round_end"):
            context = _TurnContext(1, actors[0] if "turn" in hook else None, actors, {})
            result = getattr(self.ruleset, hook)(context, SeededDice(3))
            if result is None:
                continue
            assert isinstance(result, Resolution), f"{hook} must return a Resolution or None"
            assert set(result.states) <= {a.id for a in actors}, f"{hook} touched a stranger"
            sheets = {a.id: a.sheet for a in actors}
            for actor_id, state in result.states.items():
                _check_made_state(self.ruleset, sheets[actor_id], state, f"{hook}: new state")
