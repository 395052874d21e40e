"""Checking a table's verifiable dice from its log (``rollbridge verify``).

:class:`LogVerifier` reads events in the order they were received or exported —
each as a client got it (an ``event`` frame or the bare event) — and checks:

* **order**: seqs strictly increase (an event moved or repeated is reported);
* **gaps**: every seq after the ``welcome``'s is in the log (an export and a client's
  log hold them all; a player's view sends a GM-only event as ``hidden``), so a seq
  no line holds — an event removed — is reported (``missing``), after the whole log
  is read: an event moved is out of order, not missing;
* **commitments**: each segment is committed once, before any die of it
  (``dice.committed`` earlier in seq order than every event whose ``draws`` name
  the segment), and a revealed seed hashes to its commitment (a wrong seed);
* **dice**: once a segment is revealed, every die of every event of it is derived
  again from the seed and the event's place (:func:`rollbridge.dice.verifiable.derive`)
  and compared with the recorded ``draws``; the dice a resolution shows, and those of
  an encounter event's turn hooks, must be exactly its draws in the order drawn
  (:func:`event_dice`); any other die result an event shows must be one of its draws;
  a ``roll`` event's formula is evaluated again on its draws and must give its dice,
  total and line (``text``); a ``dice.drawn`` event's results must be its draws;
* **carried dice**: a dice group that shows an earlier roll again with some dice
  rerolled (a chip: tagged ``reroll``) names the event that showed that roll
  (``earlier``, its seq) and the roll (``roll``, the ruleset's name for it); where
  that event is in the log's current epoch, the group's dice not rolled anew must be
  the dice of that event's group of the same actor that names the same roll, die for
  die (:func:`carried_dice`, :func:`shown_groups`); an ``earlier`` that is no seq
  before the chip's, or names an event of this epoch of a kind that shows no roll,
  is a mismatch too;
* **approvals**: an event the GM approved names a request held before it, that
  request where the log shows it (in a player's log, a ``hidden`` stand-in that is
  not the GM's seed of a reveal and changed no actor), made while the table's setting
  ``approval`` was on (where the log shows it), a player's, settled once
  (:mod:`rollbridge.dice.approvals_check`, :mod:`rollbridge.dice.stand_ins`); a
  rejection alike; the approver is a GM; a settling names the request's client id
  where the log shows the request; a GM's ``welcome`` lists as waiting no request the
  log shows otherwise (``welcome_pending``); and, in a client's log holding the
  replies to its own requests, an approval or rejection of one of them names the id
  its reply gave it (:mod:`rollbridge.dice.own_replies`);
* **streams**: a roll on the GM's stream is secret, approved or an NPC's
  (``public_on_gm``), and one that is any of these is on the GM's stream of a segment
  that has one (``gm_on_public``);
* **seeds**: no segment commits to a seed (of either stream) an earlier one did;
* **epochs**: each epoch of the table (a ``welcome`` that names another one: a
  client's resume after a restore or a fence) has its own seqs and segments; an event
  of another epoch with no welcome before it is a problem, as is a commitment naming
  another epoch than its event's.

It tells apart what it could not check: dice a client or the GM supplied
(``supplied``), events whose draws players do not see (``withheld``), secret
events (``hidden``), segments not yet revealed, dice of an earlier roll a chip's
reroll shows again that the log cannot match (``carried``: its event is not in the
log, is secret or shows no dice groups, is of an earlier epoch and shows other dice,
or the group names none), events
rolled at a later attempt of their seq (``retried``), and the commitments it has
from a ``welcome`` alone (``welcomed``: a client that joined mid-segment, an export
that starts mid-segment), which the log cannot show were published before its
dice. The first problem found, in log order, is what ``rollbridge verify``
reports (all of them with ``--all``).
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from rollbridge.adapter import missed_count
from rollbridge.dice.approvals_check import NOT_LISTED, ApprovalCheck
from rollbridge.dice.evaluate import roll_formula
from rollbridge.dice.own_replies import OwnReplies
from rollbridge.dice.sources import MAX_FACES, ScriptedDice
from rollbridge.dice.verifiable import derive
from rollbridge.exceptions import RollbridgeError
from rollbridge.text import Messages, Text

__all__ = [
    "LogVerifier",
    "Problem",
    "Report",
    "Shown",
    "carried_dice",
    "event_dice",
    "resolution_dice",
    "shown_dice",
    "shown_groups",
    "untagged_chip_dice",
    "verify_events",
]

say = Messages("rollbridge")
# Translators: {seq}, {last} are event numbers; {segment} a segment number; {faces} a
# die size; {number} a die's place in its event; {got}, {want}, {value} die results.
NO_SEQ = say("verify.no_seq", "an event without a whole-number seq")
OUT_OF_ORDER = say(
    "verify.out_of_order", "seq {seq} comes after seq {last}: events are out of order or repeated"
)
UNCOMMITTED = say(
    "verify.uncommitted", "seq {seq} rolled dice of segment {segment} before its commitment"
)
AFTER_REVEAL = say(
    "verify.after_reveal",
    "seq {seq} rolled dice of segment {segment}, whose seed was revealed before it",
)
BAD_COMMITMENT = say("verify.bad_commitment", "seq {seq}: a commitment without its fields")
TWICE = say("verify.twice", "seq {seq}: segment {segment} committed again")
UNKNOWN_SEGMENT = say(
    "verify.unknown_segment",
    "seq {seq} reveals segment {segment}, whose commitment the log does not hold before it",
)
WRONG_SEED = say(
    "verify.wrong_seed",
    "seq {seq}: the seed revealed for segment {segment} does not hash to its commitment",
)
BAD_DRAWS = say("verify.bad_draws", "seq {seq}: its draws are not [faces, result]")
# Translators: {seq} is an event number; player_dice is a table setting's name: keep it.
PLAYERS_DICE = say(
    "verify.players_dice",
    "seq {seq}: the log says a player supplied its dice, but the table did not let players "
    "supply their own dice then (setting player_dice): they were the server's, and not "
    "drawn from the seed",
)
# Translators: {seq} is an event number; approval is a table setting's name: keep it.
UNASKED_APPROVAL = say(
    "verify.unasked_approval",
    "seq {seq}: the log says the GM approved it, but the table's setting approval was off "
    "from the table's first seq up to it, so no request could wait for the GM: an approved "
    "event's dice are on the GM's stream, where players cannot check them",
)
# Translators: {seq} is an event number; an NPC is an actor no player controls.
PUBLIC_ON_GM = say(
    "verify.public_on_gm",
    "seq {seq}: a roll that is not secret and rolls for no NPC was drawn on the GM's "
    "stream, whose seed players never see: its dice belonged on the public stream",
)
# Translators: {seq} is an event number; an NPC is an actor no player controls.
GM_ON_PUBLIC = say(
    "verify.gm_on_public",
    "seq {seq}: a roll that is secret, approved by the GM or for an NPC was drawn on the "
    "public stream of a segment that has a GM stream: such dice are always drawn on the GM's "
    "stream, so the event is not the one the server rolled",
)
# Translators: {seq} is an event number; data.actor is an event's field: keep it.
BAD_ACTOR = say(
    "verify.bad_actor",
    "seq {seq}: its actor (data.actor) names no actor: an actor's id is a string",
)
NO_DRAWS = say(
    "verify.no_draws",
    "seq {seq} shows dice while segment {segment} is open, but neither names its draws "
    "nor says its dice were supplied",
)
WRONG_DIE = say(
    "verify.wrong_die",
    "seq {seq}, die {number} (a d{faces}): the log says {got}, the seed gives {want}",
)
NOT_DRAWN = say(
    "verify.not_drawn", "seq {seq} shows a d{faces} result {value} that it did not draw"
)
WRONG_RESULTS = say(
    "verify.wrong_results", "seq {seq}: the results it shows are not the dice it drew"
)
# Translators: {error} is the dice engine's own message.
NO_ROLL = say("verify.no_roll", "seq {seq}: its formula does not roll on its dice ({error})")
# Translators: {drawn} and {shown} are counts of dice.
NOT_AS_DRAWN = say(
    "verify.not_as_drawn",
    "seq {seq}: the dice it shows are not the dice it drew, in the order drawn (it drew "
    "{drawn}, shows {shown}): a server could have drawn more and shown those it liked, "
    "or moved dice between tests",
)
# Translators: {text} is the roll's line as the log has it, {want} as its dice give it.
WRONG_TEXT = say("verify.wrong_text", "seq {seq}: its line reads {text}, its dice give {want}")
# Translators: {first}, {last} and {seq} are event numbers (seqs); an export or a
# client's log holds every seq after its welcome, so a missing one was left out.
MISSING_ONE = say(
    "verify.missing_one",
    "seq {first} is not in the log (seq {seq} follows seq {before}): an event was removed "
    "or the log was not saved whole, and what it showed cannot be checked",
)
MISSING_MANY = say(
    "verify.missing_many",
    "seqs {first} to {last} are not in the log (seq {seq} follows seq {before}): events "
    "were removed or the log was not saved whole, and what they showed cannot be checked",
)
# Translators: {epoch}, {current} are epoch numbers (docs/dice.md).
OTHER_EPOCH = say(
    "verify.other_epoch",
    "seq {seq} is of epoch {epoch}, but the log's table is in epoch {current} and no "
    "welcome in between says it moved",
)
# Translators: {table} and {current} are table ids, quoted; "welcome" is the protocol's
# message, kept as it is.
OTHER_TABLE = say(
    "verify.other_table",
    "a line of table {table} in the log of table {current}: a log holds one table's "
    "events (logs put together?); verify each table's log on its own",
)
# Translators: {epoch}, {current} are epoch numbers.
COMMIT_EPOCH = say(
    "verify.commit_epoch",
    "seq {seq}: segment {segment} commits to epoch {epoch} in epoch {current}",
)
# Translators: {earlier} is a segment number.
SEED_REUSED = say(
    "verify.seed_reused",
    "seq {seq}: segment {segment} commits to the seed of segment {earlier}, whose dice "
    "anyone could know",
)
# Translators: {earlier} is an event's number; a chip rerolls some dice of an earlier
# roll and shows the others again (docs/dice.md).
CARRIED_MISMATCH = say(
    "verify.carried_mismatch",
    "seq {seq} shows again dice of the roll of seq {earlier} (a chip's reroll), but "
    "seq {earlier} shows no such roll: the dice it carries are not that roll's",
)
# Translators: {formula} is dice notation, quoted; {total} and {logged} numbers ({logged}
# is quoted where the log holds text instead).
WRONG_TOTAL = say(
    "verify.wrong_total", "seq {seq}: {formula} on its dice totals {total}, the log says {logged}"
)
# Translators: {formula} is dice notation, quoted; data.roll is the event's field, as it is.
WRONG_GROUPS = say(
    "verify.wrong_groups",
    "seq {seq}: {formula} on its dice does not give the dice its data.roll shows (which "
    "were kept, dropped, exploded), though its total is the same",
)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing that does not check out: where (the entry's place in the log, its
    seq) and what."""

    position: int
    seq: int | None
    code: str
    #: What is wrong, as a :class:`~rollbridge.text.Text` (rendered per reader).
    text: Text

    @property
    def message(self) -> str:
        """The problem in English."""
        return self.text.render("en")

    def to_dict(self, locale: str = "en") -> dict[str, Any]:
        return {"position": self.position, "seq": self.seq, "code": self.code,
                "message": self.text.render(locale)}  # fmt: skip


@dataclass(slots=True)
class Report:
    """What a log's check found; see the module docstring."""

    events: int = 0
    verified_events: int = 0
    verified_dice: int = 0
    supplied: int = 0
    withheld: int = 0
    hidden: int = 0
    unrevealed: int = 0
    gm_stream: int = 0
    #: Of :attr:`gm_stream`, the events the GM approved: an approved request is
    #: rolled on the GM's stream whoever asked (rollbridge.engine.segments), so a
    #: player's own held rolls are checked only in the GM's log.
    gm_stream_approved: int = 0
    #: Verified events drawn at a later attempt (a request refused at their seq after
    #: drawing dice, docs/dice.md): a server could have chosen among attempts.
    retried: int = 0
    #: Verified resolutions that show dice of an earlier roll again (a chip's reroll:
    #: a group tagged ``reroll``) that the log cannot match with that roll: its event
    #: is not in the log, is a secret event's stand-in or shows no dice groups, is of
    #: an earlier epoch and shows other dice (the same seq past where the epochs
    #: part), or the group names no event (or no roll, where that event's groups
    #: name theirs).
    carried: int = 0
    #: Verified resolutions whose carried dice were matched to the earlier roll's.
    carried_matched: int = 0
    #: Events the GM approved whose request the log shows (``approval.requested``:
    #: the GM's log), held to it (:mod:`rollbridge.dice.approvals_check`).
    approvals_held: int = 0
    #: Events the GM approved whose request the log cannot show: a ``hidden``
    #: stand-in (a player's log) or a seq before the log begins (or in a gap).
    approvals_unseen: int = 0
    #: Of :attr:`approvals_unseen`, those whose request's seq is before the log's
    #: first line (of its epoch).
    approvals_before_log: int = 0
    #: Of :attr:`approvals_unseen`, those whose request's seq is after the log's first
    #: line but not in the log: events a client missed, before a later ``welcome``.
    approvals_missed: int = 0
    #: Of :attr:`approvals_held`, those held to a request only a GM's ``welcome``
    #: lists (its ``pending``; no line of the log shows the request): that it was
    #: held, whose and what, is that welcome's word.
    approvals_welcomed: int = 0
    #: The runs of seqs a client's log skipped at a ``welcome`` that did not recover
    #: them (a new connection's, after the log's last line of that epoch), each
    #: ``{"epoch", "first", "last"}`` (a restored table's epochs each count their own
    #: seqs): events the client was away for, by that welcome's word.
    unreceived: list[dict[str, Any]] = field(default_factory=list)
    #: Of :attr:`hidden`, the stand-ins the log tells (:mod:`rollbridge.dice.stand_ins`):
    #: the GM's seed at a reveal, and requests an approval or a rejection names.
    stand_in_seeds: int = 0
    stand_in_requests: int = 0
    #: Of :attr:`stand_in_requests`, those the client's own replies tie to a request
    #: of its own (:mod:`rollbridge.dice.own_replies`): the rest pass every check the
    #: log allows, yet each could be a secret roll the GM made, passed off as a request.
    stand_in_own: int = 0
    #: The table's epochs in log order, when the log spans more than one (a restored
    #: backup, a table moved): each starts its own seqs and segments.
    epochs: list[int] = field(default_factory=list)
    #: Each segment's state, in the order committed; a segment of a later epoch of
    #: the log is named ``"<number>@<epoch>"``.
    segments: dict[int | str, str] = field(default_factory=dict)
    #: The segments (named as in :attr:`segments`) whose commitment the log has from
    #: a ``welcome`` line alone, not from their ``dice.committed`` event: the
    #: commitment, to compare with the one the table published.
    welcomed: dict[int | str, str] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    verified_seqs: list[int] = field(default_factory=list)
    #: Resolutions resolved again on their dice and the table the log shows before
    #: them (:mod:`rollbridge.engine.recheck`), and those it could not, by reason.
    resolved: int = 0
    unresolved: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """No problem was found."""
        return not self.problems

    def to_dict(self, locale: str = "en") -> dict[str, Any]:
        """Plain data; the problems' messages in ``locale``."""
        return {
            "ok": self.ok,
            "events": self.events,
            "verified_events": self.verified_events,
            "verified_dice": self.verified_dice,
            "supplied": self.supplied,
            "withheld": self.withheld,
            "hidden": self.hidden,
            "unrevealed": self.unrevealed,
            "gm_stream": self.gm_stream,
            "gm_stream_approved": self.gm_stream_approved,
            "retried": self.retried,
            "carried": self.carried,
            "carried_matched": self.carried_matched,
            "approvals_held": self.approvals_held,
            "approvals_unseen": self.approvals_unseen,
            "approvals_before_log": self.approvals_before_log,
            "approvals_missed": self.approvals_missed,
            "approvals_welcomed": self.approvals_welcomed,
            "unreceived": [dict(run) for run in self.unreceived],
            "stand_in_seeds": self.stand_in_seeds,
            "stand_in_requests": self.stand_in_requests,
            "stand_in_own": self.stand_in_own,
            "epochs": list(self.epochs),
            "segments": {str(k): v for k, v in self.segments.items()},
            "welcomed": {str(k): v for k, v in self.welcomed.items()},
            "resolved": self.resolved,
            "unresolved": dict(self.unresolved),
            "problems": [p.to_dict(locale) for p in sorted(self.problems, key=_place)],
        }


#: The kinds of event that may show a roll a chip names: a resolution, an encounter
#: event (its turn hooks'), and a secret event's stand-in.
_ROLL_KINDS = ("resolution", "encounter.started", "encounter.turn", "hidden")


def _place(problem: Problem) -> tuple[int, int]:
    return problem.position, problem.seq or 0


class _Spans:
    """Runs of numbers, each added as ``low`` to ``high``: kept sorted and disjoint,
    merged as they overlap, so that adding one touches only the runs it meets."""

    def __init__(self) -> None:
        self._lows: list[int] = []
        self._highs: list[int] = []

    def add(self, low: int, high: int) -> list[tuple[int, int]]:
        """Add the run ``low`` to ``high``; return its parts no run added before held."""
        if low > high:
            return []
        first = bisect_left(self._highs, low)
        last, new, at = first, [], low
        while last < len(self._lows) and self._lows[last] <= high:
            if self._lows[last] > at:
                new.append((at, self._lows[last] - 1))
            at = max(at, self._highs[last] + 1)
            last += 1
        if at <= high:
            new.append((at, high))
        if last > first:
            low, high = min(low, self._lows[first]), max(high, self._highs[last - 1])
        self._lows[first:last], self._highs[first:last] = [low], [high]
        return new


def _absent_runs(low: int, high: int, present: list[int]) -> Iterator[tuple[int, int]]:
    """The runs of the numbers from ``low`` to ``high`` that the sorted, distinct
    ``present`` (all within them) lacks, as (first, last), without counting through
    them."""
    for number in [*present, high + 1]:
        if number > low:
            yield low, number - 1
        low = number + 1


#: The kinds of event whose stream is judged by their actor alone
#: (:meth:`LogVerifier._public_roll`): a roll, a client's draw.
_DRAWN_FOR = ("roll", "dice.drawn")


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _well_formed(draws: Mapping[str, Any]) -> bool:
    """Whether an event's ``draws`` hold ``[faces, result]`` pairs a seed can derive
    and a whole ``attempt``."""
    drawn, attempt = draws.get("dice"), draws.get("attempt", 0)
    return (
        isinstance(drawn, list)
        and all(
            isinstance(d, list)
            and len(d) == 2
            and all(_whole(x) for x in d)
            and 1 <= d[0] <= MAX_FACES  # 0 faces, or past 2**64, derives no die
            for d in drawn
        )
        and _whole(attempt)
        and attempt >= 0
    )


def _shown(entry: Mapping[str, Any], drawn: Counter[tuple[int, int]]) -> Iterator[tuple[int, int]]:
    """The dice an event shows once each, which its ``drawn`` dice must include: a
    roll's groups, a resolution's dice groups (its outcome may repeat them), else any
    die record in its data. A group that shows an earlier roll again with some dice
    rerolled (a wilddie chip: the group tagged ``reroll``, as are the dice rolled
    anew) drew only its dice tagged ``reroll``; the rest came from the earlier event,
    whose own check covers them. A log written before groups were tagged (3 December
    2026) has the dice's tags alone: such a resolution is read as a reroll only when
    its rerolled dice are exactly what it drew (a reroll within a fresh roll, as
    ``6d6r<3``, drew all its dice, and every one is checked)."""
    data = entry.get("data")
    if not isinstance(data, Mapping):
        data = {}
    if entry.get("kind") == "roll":
        return shown_dice(data.get("roll"))
    if entry.get("kind") == "resolution":
        groups = _dice_groups(data)
        untagged = [g for g in groups if "reroll" not in _tags(g)]
        old_rerolls = [r for g in untagged for r in _die_records(g) if "reroll" in _tags(r)]
        if old_rerolls and Counter(_results(old_rerolls)) == drawn:  # a chip, before tags
            rerolled = [r for g in groups for r in _die_records(g) if "reroll" in _tags(r)]
            return _results(rerolled)
        return iter(_own_dice(groups))
    ordered = event_dice(entry.get("kind"), data)
    if ordered is not None:
        return iter(ordered)
    return iter(set(shown_dice(data)))


def event_dice(kind: Any, data: Mapping[str, Any]) -> list[tuple[int, int]] | None:
    """The dice an event shows as its own, in order, where the contract says they are
    its draws as drawn: a resolution's (:func:`resolution_dice`), and an encounter
    event's turn hooks' (each a resolution, ``data.hooks``, in order); None for
    other events (a ``roll`` is checked by evaluating its formula again)."""
    if kind == "resolution":
        return resolution_dice(data)
    if not isinstance(data.get("hooks"), list):
        return None
    return [die for hook in _parts(data)[1:] for die in resolution_dice(hook)]


def resolution_dice(data: Mapping[str, Any]) -> list[tuple[int, int]]:
    """The ``(faces, result)`` of every die a resolution's ``data`` shows as its own,
    in order: its dice groups' records, of a group tagged ``reroll`` (a chip) only the
    dice tagged ``reroll``. The contract: they are the dice it drew, as drawn."""
    return _own_dice(_dice_groups(data))


def untagged_chip_dice(kind: Any, data: Mapping[str, Any]) -> list[tuple[int, int]] | None:
    """The dice an event of a log written before a chip's group was tagged
    ``reroll`` drew if its groups that show dice tagged ``reroll`` are chips: of those
    groups only those dice, of the others every die; None where no group is such
    (or the event is no resolution or encounter event). Such a group is a chip's or a
    fresh roll with rerolls (``6d6r<3``), which drew every die it shows; the log
    does not say which, so :mod:`rollbridge.engine.rerun` tries both."""
    if kind != "resolution" and not isinstance(data.get("hooks"), list):
        return None
    parts = [data] if kind == "resolution" else _parts(data)[1:]
    groups = [group for part in parts for group in _dice_groups(part)]
    chips = [
        "reroll" in _tags(group) or any("reroll" in _tags(record) for record in _die_records(group))
        for group in groups
    ]
    if chips == ["reroll" in _tags(group) for group in groups]:
        return None  # no group untagged with dice tagged reroll: nothing to read otherwise
    records = []
    for group, chip in zip(groups, chips, strict=True):
        found = list(_die_records(group))
        records += [r for r in found if "reroll" in _tags(r)] if chip else found
    return list(_results(records))


def _own_dice(groups: Iterable[Mapping[str, Any]]) -> list[tuple[int, int]]:
    records = []
    for group in groups:
        found = list(_die_records(group))
        if "reroll" in _tags(group):
            found = [r for r in found if "reroll" in _tags(r)]
        records += found
    return list(_results(records))


def _parts(data: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """What shows dice groups in an event's data: the data itself (a resolution's),
    then each turn hook's result of an encounter event (``hooks``), in order."""
    hooks = data.get("hooks")
    if not isinstance(hooks, list):
        return [data]
    return [data, *(hook for hook in hooks if isinstance(hook, Mapping))]


def _dice_groups(part: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The dice groups of a resolution's data, or of one turn hook's result."""
    given = part.get("dice")
    return [g for g in given if isinstance(g, Mapping)] if isinstance(given, list) else []


#: A dice group's dice as ``rollbridge verify`` compares them: each die's faces and
#: every roll it made, in order.
Rolled = tuple[tuple[int, tuple[int, ...]], ...]


class Shown(NamedTuple):
    """A dice group as a chip's carried dice are matched with it: the actor who rolled
    it (the group's ``actor``, else its resolution's or hook's), the roll it names
    (``roll``: the ruleset's name for it; None: unnamed) and its dice."""

    actor: Any
    roll: Any
    dice: Rolled


def shown_groups(data: Mapping[str, Any]) -> list[Shown]:
    """Every dice group of a resolution's ``data`` (or of its turn hooks'), in order."""
    return [
        _shown_group(part, group, _die_records(group))
        for part in _parts(data)
        for group in _dice_groups(part)
    ]


def carried_dice(data: Mapping[str, Any]) -> Iterator[tuple[Mapping[str, Any], Shown]]:
    """Each group of a resolution's ``data`` (or of its turn hooks') that shows an
    earlier roll again (tagged ``reroll``), with its dice not rolled anew (those not
    tagged ``reroll``: the earlier roll's, the ones replaced included), in order: the
    group itself (its ``earlier`` as the log has it) and those dice as :class:`Shown`."""
    for part in _parts(data):
        for group in _dice_groups(part):
            if "reroll" in _tags(group):
                carried = [r for r in _die_records(group) if "reroll" not in _tags(r)]
                if carried:
                    yield group, _shown_group(part, group, carried)


def _shown_group(
    part: Mapping[str, Any], group: Mapping[str, Any], records: Iterable[Mapping[str, Any]]
) -> Shown:
    actor = group.get("actor")
    roller = actor if isinstance(actor, str) else part.get("actor")
    return Shown(roller, group.get("roll"), _rolled(records))


def _bound(shown: list[Shown], carried: Shown) -> bool | None:
    """Whether ``carried`` (a chip's dice shown again) are the roll it names among an
    event's groups ``shown``: True, False (a mismatch), or None (not bound to one: the
    chip names no roll where the event's groups name theirs). Only the groups the
    chip's actor rolled count; where they name their rolls, only the one named as the
    chip names its (an event shown before groups named them: any of them)."""
    mine = [group for group in shown if group.actor == carried.actor]
    named = [group for group in mine if group.roll is not None]
    if not named:
        return any(group.dice == carried.dice for group in mine)
    if carried.roll is None:
        return None if any(group.dice == carried.dice for group in mine) else False
    return any(group.dice == carried.dice for group in named if group.roll == carried.roll)


def _rolled(records: Iterable[Mapping[str, Any]]) -> Rolled:
    return tuple(
        (record["faces"], tuple(v for v in record["rolls"] if isinstance(v, int)))
        for record in records
    )


def shown_dice(data: Any) -> Iterator[tuple[int, int]]:
    """Every ``(faces, result)`` an event's data shows: each roll of each die record
    (``{"faces": F, "rolls": [...]}``), wherever in the data it is."""
    return _results(_die_records(data))


def _die_records(data: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(data, Mapping):
        if isinstance(data.get("faces"), int) and isinstance(data.get("rolls"), list):
            yield data
        for key, value in data.items():
            if key != "draws":
                yield from _die_records(value)
    elif isinstance(data, list):
        for item in data:
            yield from _die_records(item)


def _tags(record: Mapping[str, Any]) -> Any:
    tags = record.get("tags")
    return tags if isinstance(tags, list) else ()


def _results(records: Iterable[Mapping[str, Any]]) -> Iterator[tuple[int, int]]:
    for record in records:
        for value in record["rolls"]:
            if isinstance(value, int):
                yield record["faces"], value


@dataclass(slots=True)
class _Segment:
    commitment: str
    table: str
    epoch: int
    committed_at: int
    gm_commitment: str | None = None
    seed: bytes | None = None
    gm_seed: bytes | None = None
    #: Events waiting for a stream's seed, by stream (``public`` or ``gm``).
    events: dict[str, list[tuple[int, Mapping[str, Any]]]] = field(
        default_factory=lambda: {"public": [], "gm": []}
    )

    #: Its number, and how the report names it (:attr:`Report.segments`).
    number: int = 0
    label: int | str = 0

    def revealed(self, stream: str) -> bool:
        return (self.seed if stream == "public" else self.gm_seed) is not None


class LogVerifier:
    """Feed events in log order (:meth:`feed`); read :attr:`report` at any time. A
    segment's dice are checked the moment its seed is revealed, so a live client
    can mark rolls verified as the reveal arrives (:meth:`feed` returns their seqs).
    """

    def __init__(self) -> None:
        self.report = Report()
        #: The segments of the log's current epoch, by number.
        self._segments: dict[int, _Segment] = {}
        #: Every segment of the log, by commitment (a restored one goes on in a later
        #: epoch: the same segment, its waiting events with it).
        self._committed_to: dict[str, _Segment] = {}
        #: Every commitment of the log, of either stream, and its segment.
        self._seeds: dict[str, _Segment] = {}
        #: The segment whose public seed is not revealed yet: its dice must be drawn.
        self._open: int | None = None
        self._last_seq: int | None = None
        #: The seq the next event must have: every seq after the welcome's is in an
        #: export or a client's log (a player's view sends GM-only events as
        #: ``hidden``), so one that is not was left out.
        self._next: int | None = None
        #: Where seqs were skipped: (log position, epoch, the seq before, the seq).
        self._gaps: list[tuple[int, int | None, int, int]] = []
        self._epoch: int | None = None
        #: The table of the log: the id of its first welcome or event that names one.
        self._table: str | None = None
        #: The other tables whose lines the log holds (each said once).
        self._other_tables: set[str] = set()
        self._position = 0
        #: The dice groups each resolution (or encounter event) of the log shows, by
        #: epoch and seq, for the chips that show one of them again (:meth:`_carried`).
        self._rolls: dict[tuple[int | None, int], list[Shown]] = {}
        #: The kind of every event of the log, by epoch and seq (a chip naming one).
        self._seen: dict[tuple[int | None, int], Any] = {}
        #: The log positions of events whose carried dice were matched, or not.
        self._matched: set[int] = set()
        self._unmatched: set[int] = set()
        #: Events whose draws disagree with what they show (:meth:`_consistent`), by
        #: line: the index of that problem, which the reveal replaces when the draws
        #: are not the seed's either (the deeper fault).
        self._inconsistent: dict[int, int] = {}
        #: Whether the table lets players supply their own dice (setting
        #: ``player_dice``), as the log last showed it; None: not known.
        self._player_dice: bool | None = None
        #: Whether the table's ``approval`` was on at some time since the log saw the
        #: table begin (a ``welcome`` at seq 0); None: not known (the log began later).
        self._approval: bool | None = None
        #: Whether a player controls each actor the log showed, by id, as last shown.
        self._controlled: dict[Any, bool] = {}
        #: Whether each actor the log showed is an NPC, by id, as last shown: its view
        #: lists its ``controllers``, and none (a view without the list: not known).
        self._npc: dict[Any, bool] = {}
        #: Each approved event held to the request it names (unheld_approval, …).
        self._approvals = ApprovalCheck()
        #: The replies to the client's own held requests (a client's log).
        self._replies = OwnReplies()

    def _enter(self, epoch: Any) -> None:
        """An event or welcome of ``epoch``: a new epoch of the table (a restored
        backup, a move) starts its own seqs and segments."""
        if not _whole(epoch) or epoch == self._epoch:
            return
        if self._epoch is not None:
            self._segments, self._open, self._last_seq = {}, None, None
            self._next = None
        if not self.report.epochs or self.report.epochs[-1] != epoch:
            self.report.epochs.append(epoch)
        self._epoch = epoch

    def _label(self, number: int) -> int | str:
        return number if len(self.report.epochs) <= 1 else f"{number}@{self._epoch}"

    def _add_segment(self, number: int, segment: _Segment) -> None:
        segment.number, segment.label = number, self._label(number)
        self._segments[number] = segment
        self._committed_to.setdefault(segment.commitment, segment)
        for digest in (segment.commitment, segment.gm_commitment):
            if digest is not None:
                self._seeds.setdefault(digest, segment)
        self.report.segments[segment.label] = "committed"
        self._open = number

    def known(self, table: str, epoch: int, dice: Mapping[str, Any] | None) -> None:
        """What a client joining mid-segment knows from its ``welcome``: the table's
        ``dice`` field names the open segment, its commitment and the seq it was
        committed at (before the log this client receives)."""
        if not isinstance(dice, Mapping) or not dice.get("open"):
            return
        if not isinstance(dice.get("commitment"), str):
            return
        number = dice.get("segment")
        if isinstance(number, int) and number not in self._segments:
            earlier = self._committed_to.get(dice["commitment"])
            if earlier is not None:  # a restored table: the segment committed before it
                self._segments[number] = earlier
                if earlier.seed is None:
                    self._open = number
                return
            since = dice.get("since")
            at = since if isinstance(since, int) else 0
            gm = dice.get("gm_commitment")
            committed = dice.get("epoch")  # a restored table's segment: the epoch before
            if _whole(committed):
                epoch = committed
            self._add_segment(
                number,
                _Segment(dice["commitment"], table, epoch, at, gm if isinstance(gm, str) else None),
            )
            # its commitment is the welcome's word: the log holds no dice.committed
            self.report.welcomed[self._segments[number].label] = dice["commitment"]

    def _other_table(self, seq: int | None, table: Any) -> bool:
        """Whether a line names another table than the log's (a problem, said once for
        each table met): seqs, segments and seeds are each table's own, so the lines
        of two tables put together read as events out of order, or as seeds that do
        not match, and the events of one under another's welcome could verify."""
        if not isinstance(table, str):
            return False
        if self._table is None:
            self._table = table
        if table == self._table:
            return False
        if table not in self._other_tables:
            self._other_tables.add(table)
            said = OTHER_TABLE(table=repr(table), current=repr(self._table))
            self._problem(seq, "other_table", said)
        return True

    def _welcome(self, welcome: Mapping[str, Any]) -> None:
        """A ``welcome`` line of a client's log: the segment open when it joined
        (:meth:`known`), committed before the events that follow it."""
        table = welcome.get("table")
        if not isinstance(table, Mapping) or not isinstance(table.get("id"), str):
            return
        if self._other_table(None, table["id"]):
            return
        self._replies.joined(welcome.get("role"), welcome.get("name"))
        epoch = table.get("epoch", welcome.get("epoch", 1))
        self._enter(epoch)
        resume = welcome.get("resume")
        # as the server sends one: with the count of the missed events that follow
        missed = missed_count(welcome)
        recovered = missed is not None
        seq = table.get("seq", welcome.get("seq"))
        if not missed:  # a snapshot, or a resume that missed nothing: the table now
            # a resume that recovered shows the table after the missed events that
            # follow it: they are judged by the table as the log last showed it,
            # which they then change as they did at the table; one that missed none
            # shows the table its next event follows, as a snapshot does
            if self._approval is not True:
                # a table at seq 0 had no request before; a later one may have had
                # one waiting since before the log, though approval is off now
                self._approval = False if _whole(seq) and seq == 0 else None
            if _whole(seq):
                if self._last_seq is not None and self._last_seq < seq:
                    # the events between the log's last and this welcome are not in it
                    self._approvals.setting(self._epoch, self._last_seq + 1, None)
                    run = {"epoch": self._epoch, "first": self._last_seq + 1, "last": seq}
                    self.report.unreceived.append(run)
                self._approvals.begins(self._epoch, seq + 1)
            self._settings(table, seq + 1 if _whole(seq) else None)
            self._actors(table.get("actors"))
            pending = table.get("pending", NOT_LISTED)
            listed = self._approvals.welcomed(self._epoch, seq, pending, self._seen)
            for code, text in listed:
                self._problem(seq if _whole(seq) else None, code, text)
        if not recovered and _whole(seq):  # a resume that recovered: the missed follow
            self._next = seq + 1
        elif recovered and self._next is None and _whole(seq) and missed is not None:
            # a log that opens at it: its missed events follow it, from seq - missed + 1
            self._next = seq - missed + 1
        dice = table.get("dice")
        if recovered and not self._committed_before(resume, seq, dice):
            return  # its segment's commitment is among the missed events that follow
        self.known(table["id"], epoch if _whole(epoch) else 1, dice)

    def _committed_before(self, resume: Mapping[str, Any], seq: Any, dice: Any) -> bool:
        """Whether the segment a resume that recovered shows open was committed before
        the events it missed. Its table is the one after them (they follow it in the
        log): a segment committed among them has its ``dice.committed`` there, and
        taking it from the welcome too made that commitment a second one
        (``committed_twice``) in an honest log of a client that resumed across a
        reveal. Where it is not known when the missed events start, it is not taken."""
        since = dice.get("since") if isinstance(dice, Mapping) else None
        missed = resume.get("missed")
        if self._last_seq is not None:
            first = self._last_seq + 1
        elif _whole(seq) and _whole(missed):
            first = seq - missed + 1
        else:
            return False
        return _whole(since) and since < first

    def _problem(self, seq: int | None, code: str, text: Text) -> None:
        self.report.problems.append(Problem(self._position, seq, code, text))

    def feed(self, entry: Mapping[str, Any]) -> list[int]:
        """Check one event; returns the seqs verified by it (a reveal's segment)."""
        self._position += 1
        if entry.get("type") == "welcome":  # a client that joined mid-segment: its start
            self._welcome(entry)
            return []
        if entry.get("type") == "result":  # a reply to the client's own request
            self._replies.replied(self._epoch, entry)
            return []
        if entry.get("type") not in (None, "event") or "seq" not in entry:
            return []  # not an event (a state reply, …): nothing to check
        report = self.report
        report.events += 1
        seq = entry.get("seq")
        if not isinstance(seq, int):
            self._problem(None, "bad_event", NO_SEQ())
            return []
        if self._other_table(seq, entry.get("table")):
            return []
        epoch = entry.get("epoch")
        if _whole(epoch) and self._epoch is not None and epoch != self._epoch:
            # a table's epoch changes only with a welcome (a client's resume after a
            # restore or a fence): an event that moves it alone could hide its dice
            wrong = OTHER_EPOCH(seq=seq, epoch=epoch, current=self._epoch)
            self._problem(seq, "other_epoch", wrong)
            return []
        self._enter(epoch)
        if self._last_seq is not None and seq <= self._last_seq:
            self._problem(seq, "out_of_order", OUT_OF_ORDER(seq=seq, last=self._last_seq))
        self._last_seq = seq if self._last_seq is None else max(seq, self._last_seq)
        self._gap(seq)
        self._approvals.begins(self._epoch, seq)
        kind = entry.get("kind")
        self._seen.setdefault((self._epoch, seq), kind)
        data = entry.get("data") if isinstance(entry.get("data"), Mapping) else {}
        if kind == "hidden":
            report.hidden += 1
            self._approvals.stand_ins.hidden(self._epoch, seq, bool(entry.get("actors")))
            return []
        self._players_dice(seq, entry, data)
        # the client's own replies are asked only of a settling the log holds no other
        # fault of (a forged one is said once)
        settling = self._approvals.feed(self._epoch, seq, entry, self._seen)
        owned = [] if settling else self._replies.check(self._epoch, seq, entry)
        for code, text in settling or owned:
            self._problem(seq, code, text)
        if not settling and not owned:
            at = self._replies.own_request(self._epoch, entry)
            if at is not None:  # the client's reply ties this request to its own
                self._approvals.stand_ins.own(self._epoch, at)
        report.approvals_held = self._approvals.held
        report.approvals_welcomed = self._approvals.held_welcomed
        report.approvals_unseen = self._approvals.unseen
        report.approvals_before_log = self._approvals.before_log
        report.approvals_missed = self._approvals.missed
        self._actors(entry.get("actors"))
        if kind == "actor.removed":
            removed = data.get("actor")
            if isinstance(removed, str):
                self._controlled.pop(removed, None)
                self._npc.pop(removed, None)
            else:
                self._problem(seq, "bad_event", BAD_ACTOR(seq=seq))
        if kind == "resolution" or isinstance(data.get("hooks"), list):
            self._carried(seq, data)
        if kind == "dice.committed":
            self._committed(seq, data)
        elif kind == "dice.revealed":
            number = data.get("segment")
            segment = self._segments.get(number) if _whole(number) else None
            gm_stream = segment is not None and segment.gm_commitment is not None
            self._approvals.stand_ins.revealed(self._epoch, seq, gm_stream)
            return self._revealed(seq, data, "public")
        elif kind == "dice.revealed.gm":
            return self._revealed(seq, data, "gm")
        elif kind == "dice.abandoned":
            self._abandoned(data)
        draws = data.get("draws")
        if isinstance(draws, Mapping):
            if draws.get("withheld"):
                report.withheld += 1
                return []
            number, stream = draws.get("segment"), draws.get("stream", "public")
            segment = self._segments.get(number) if _whole(number) else None
            if segment is None or segment.committed_at >= seq or stream not in ("public", "gm"):
                self._problem(seq, "uncommitted", UNCOMMITTED(seq=seq, segment=repr(number)))
                return []
            if segment.revealed(stream):
                self._problem(seq, "after_reveal", AFTER_REVEAL(seq=seq, segment=number))
                return []
            actor = data.get("actor")
            if entry.get("kind") in _DRAWN_FOR and not isinstance(actor, str | None):
                self._problem(seq, "bad_event", BAD_ACTOR(seq=seq))  # no stream to judge
            elif stream == "gm" and self._public_roll(entry, data):
                self._problem(seq, "public_on_gm", PUBLIC_ON_GM(seq=seq))
            elif stream == "public" and segment.gm_commitment and self._gm_roll(entry, data):
                self._problem(seq, "gm_on_public", GM_ON_PUBLIC(seq=seq))
            # what the draws must agree with needs no seed: checked now, so a log
            # exported before the reveal shows an edited total or die already
            if not self._consistent(entry):
                if not _well_formed(data["draws"]):
                    return []
                self._inconsistent[self._position] = len(report.problems) - 1
            segment.events[stream].append((self._position, entry))
        elif data.get("supplied"):
            report.supplied += 1
        elif self._open is not None and next(iter(_shown(entry, Counter())), None) is not None:
            # dice in an open segment are the server's, drawn, or supplied: a log that
            # says neither would keep made-up dice from the check
            self._problem(seq, "no_draws", NO_DRAWS(seq=seq, segment=self._open))
        return []

    def _actors(self, views: Any) -> None:
        """Note whether a player controls each actor of ``views`` (a welcome's table's
        actors, an event's)."""
        for view in views if isinstance(views, list) else ():
            if isinstance(view, Mapping) and isinstance(view.get("id"), str):
                self._controlled[view["id"]] = bool(view.get("controllers"))
                self._npc[view["id"]] = view.get("controllers") == []

    def _public_roll(self, entry: Mapping[str, Any], data: Mapping[str, Any]) -> bool:
        """Whether ``entry`` is a roll the server must draw on the public stream: not
        secret, not an approval's, for no actor or one a player controls (the rule of
        rollbridge.engine.segments.stream_of). A client's draw (``dice.drawn``, the
        Foundry module's dice for each of its rolls) is judged alike. An actor the log
        never showed is not judged."""
        if entry.get("kind") not in _DRAWN_FOR or entry.get("gm_only") or "approved_by" in data:
            return False
        actor = data.get("actor")
        return actor is None or self._controlled.get(actor) is True

    def _gm_roll(self, entry: Mapping[str, Any], data: Mapping[str, Any]) -> bool:
        """Whether ``entry`` is a roll the server draws on the GM's stream alone: secret
        (``gm_only``), approved by the GM, or for an actor the log last showed with no
        controller (rollbridge.engine.segments.stream_of). Drawn on the public stream
        of a segment that has a GM stream, it is no event the server rolled: its
        public dice said to be a secret roll's or an NPC's (a player's roll passed off
        as the NPC's). A segment without a GM stream (the first verifiable version's)
        drew every roll on the public one."""
        if entry.get("kind") not in _DRAWN_FOR:
            return False
        secret = entry.get("gm_only") is True or "approved_by" in data
        return secret or self._npc.get(data.get("actor")) is True

    def _settings(self, table: Any, since: int | None) -> None:
        """Note the table's ``player_dice`` and ``approval`` from a welcome's table or
        an event's ``table_after`` (a settings change, an undo of one), in effect from
        the seq ``since`` on (None: not known)."""
        settings = table.get("settings") if isinstance(table, Mapping) else None
        if isinstance(settings, Mapping) and "approval" in settings and since is not None:
            self._approvals.setting(self._epoch, since, settings["approval"] is True)
        if isinstance(settings, Mapping) and "player_dice" in settings:
            self._player_dice = settings["player_dice"] is True
        if isinstance(settings, Mapping) and settings.get("approval") is True:
            self._approval = True  # a request held then may be approved after it is off

    def _players_dice(self, seq: int, entry: Mapping[str, Any], data: Mapping[str, Any]) -> None:
        """A player's event that says its dice were supplied at a table that did not
        let players supply them is the server's dice passed off as the player's: they
        would escape the seed's check. (An approved request's dice are the GM's.) So
        is an event said to be approved at a table whose ``approval`` was never on:
        it would put a player's dice on the GM's stream."""
        by = entry.get("by")
        player = isinstance(by, str) and by.partition(":")[0] == "player"
        if (
            data.get("supplied") is True
            and player
            and self._player_dice is False
            and "approved_by" not in data
        ):
            self._problem(seq, "players_dice", PLAYERS_DICE(seq=seq))
        if "approved_by" in data and self._approval is False:
            self._problem(seq, "unasked_approval", UNASKED_APPROVAL(seq=seq))
        self._settings(entry.get("table_after"), seq + 1)

    def _gap(self, seq: int) -> None:
        """Note the seqs missing before ``seq``; :meth:`finish` reports those that no
        line of the log holds (an event removed, not one moved: out of order)."""
        first = self._next
        if first is not None and seq > first:
            self._gaps.append((self._position, self._epoch, first - 1, seq))
            self._approvals.setting(self._epoch, first, None)  # a missing event may change it
        if first is None or seq >= first:
            self._next = seq + 1

    def _missing(self) -> None:
        """Report each run of seqs missing between two lines of the log. The runs are
        found from the seqs the log holds, never by counting through a gap: a line's
        seq may be any 64-bit number (a hostile ``9223372036854775807`` made
        ``verify`` count for ever)."""
        held: dict[int | None, list[int]] = {}
        for epoch, seq in self._seen:
            held.setdefault(epoch, []).append(seq)
        for seqs in held.values():
            seqs.sort()
        spanned: dict[int | None, _Spans] = {}
        for position, epoch, before, seq in self._gaps:
            seqs = held.get(epoch, [])
            # a seq is named once, at the first gap over it: gaps overlap after a
            # welcome that goes back, and a hostile log's gaps named every run again
            for low, high in spanned.setdefault(epoch, _Spans()).add(before + 1, seq - 1):
                inside = seqs[bisect_left(seqs, low) : bisect_right(seqs, high)]
                for first, last in _absent_runs(low, high, inside):
                    if first == last:
                        said = MISSING_ONE(first=first, seq=seq, before=before)
                    else:
                        said = MISSING_MANY(first=first, last=last, seq=seq, before=before)
                    self.report.problems.append(Problem(position, seq, "missing", said))

    def _carried(self, seq: int, data: Mapping[str, Any]) -> None:
        """Match the dice each chip's group shows again (:func:`carried_dice`) with the
        roll it names (:meth:`_match`); then keep this event's groups for later chips."""
        matched = unmatched = False
        for group, carried in carried_dice(data):
            found = self._match(seq, group, carried)
            if found is None:
                unmatched = True
            elif found:
                matched = True
            else:
                earlier = repr(group.get("earlier"))
                self._problem(seq, "carried_mismatch", CARRIED_MISMATCH(seq=seq, earlier=earlier))
        if unmatched:
            self._unmatched.add(self._position)
        elif matched:
            self._matched.add(self._position)
        groups = shown_groups(data)
        if groups:
            self._rolls[(self._epoch, seq)] = groups

    def _match(self, seq: int, group: Mapping[str, Any], carried: Shown) -> bool | None:
        """Whether a chip's ``carried`` dice are the roll its ``group`` names: True,
        False (a mismatch), or None (not matched: counted as ``carried``)."""
        if "earlier" not in group:
            return None  # a roll remembered without its event, or a log before ``earlier``
        earlier = group["earlier"]
        if not _whole(earlier) or not 0 < earlier < seq:
            return False  # no seq, or the chip's own or a later one
        here = (self._epoch, earlier)
        if here in self._rolls:
            return _bound(self._rolls[here], carried)
        if here in self._seen:  # secret here, or no dice groups: else it shows no roll
            return None if self._seen[here] in _ROLL_KINDS else False
        # not in this epoch of the log: the same seq of an earlier epoch (a restored
        # backup, a fence) is that roll up to where the epochs part, which the log
        # does not say; past it, another event
        older = (s for (e, at), s in self._rolls.items() if at == earlier and e != self._epoch)
        return True if any(_bound(shown, carried) for shown in older) else None

    def _committed(self, seq: int, data: Mapping[str, Any]) -> None:
        number = data.get("segment")
        if (
            not _whole(number)
            or not isinstance(data.get("commitment"), str)
            or not _whole(data.get("epoch", 1))
        ):
            self._problem(seq, "bad_event", BAD_COMMITMENT(seq=seq))
            return
        if number in self._segments:
            self._problem(seq, "committed_twice", TWICE(seq=seq, segment=number))
            return
        committed_epoch = int(data.get("epoch") or 1)
        if self._epoch is not None and committed_epoch != self._epoch:
            wrong = COMMIT_EPOCH(seq=seq, segment=number, epoch=committed_epoch,
                                 current=self._epoch)  # fmt: skip
            self._problem(seq, "commit_epoch", wrong)
        gm = data.get("gm_commitment")
        digests = [data["commitment"], *([gm] if isinstance(gm, str) else [])]
        for digest in digests:
            earlier = self._seeds.get(digest)
            if earlier is not None or digests.count(digest) > 1:
                shown = earlier.label if earlier is not None else number
                reused = SEED_REUSED(seq=seq, segment=number, earlier=shown)
                self._problem(seq, "seed_reused", reused)
                break
        self._add_segment(number, _Segment(
            data["commitment"], str(data.get("table")), int(data.get("epoch") or 1), seq,
            gm if isinstance(gm, str) else None,
        ))  # fmt: skip

    def _abandoned(self, data: Mapping[str, Any]) -> None:
        """The server lost the key of a segment (``dice.abandoned``): its seed can
        never be revealed, so its dice stay unchecked (counted as not revealed)."""
        number = data.get("segment")
        if _whole(number) and number in self._segments:
            self.report.segments[self._segments[number].label] = "abandoned"
            if self._open == number:
                self._open = None

    def _revealed(self, seq: int, data: Mapping[str, Any], stream: str) -> list[int]:
        number = data.get("segment")
        try:
            seed = bytes.fromhex(str(data.get("seed")))
        except ValueError:
            seed = b""
        segment = self._segments.get(number) if _whole(number) else None
        if segment is None:  # a restored table reveals the segment open in its backup
            segment = self._earlier(number, seed, stream)
        if segment is None:
            self._problem(seq, "unknown_segment", UNKNOWN_SEGMENT(seq=seq, segment=repr(number)))
            return []
        committed = segment.commitment if stream == "public" else segment.gm_commitment
        if hashlib.sha256(seed).hexdigest() != committed:
            self._problem(seq, "wrong_seed", WRONG_SEED(seq=seq, segment=number))
            self.report.segments[segment.label] = "wrong seed"
            return []
        if stream == "public":
            segment.seed = seed
            self.report.segments[segment.label] = "revealed"
            if self._open == number:
                self._open = None
        else:
            segment.gm_seed = seed
        verified = []
        for position, entry in segment.events[stream]:
            if self._check_dice(position, entry, segment, seed):
                verified.append(entry["seq"])
        segment.events[stream] = []
        return verified

    def _earlier(self, number: Any, seed: bytes, stream: str) -> _Segment | None:
        """The segment ``number`` of an earlier epoch of the log that ``seed`` opens,
        if any: a table restored from a backup reveals, in its new epoch, the segment
        open when the backup was made."""
        digest = hashlib.sha256(seed).hexdigest()
        for segment in self._committed_to.values():
            committed = segment.commitment if stream == "public" else segment.gm_commitment
            if committed == digest and segment.number == number:
                return segment
        return None

    def _consistent(self, entry: Mapping[str, Any]) -> bool:
        """Check what an event's logged draws must agree with whatever the seed:
        well-formed draws, every die shown among them (a resolution's, in the order
        drawn), a roll's formula giving its dice and total on them, a ``dice.drawn``'s
        results being them. A problem is reported at the event's own line."""
        seq, data = entry["seq"], entry["data"]
        if not _well_formed(data["draws"]):
            self._problem(seq, "bad_event", BAD_DRAWS(seq=seq))
            return False
        drawn = data["draws"]["dice"]
        counted = Counter((f, v) for f, v in drawn)
        shown = list(_shown(entry, counted))
        extra = Counter(shown) - counted
        if extra:
            f, v = min(extra)
            self._problem(seq, "wrong_die", NOT_DRAWN(seq=seq, faces=f, value=v))
            return False
        as_drawn = entry.get("kind") == "resolution" or isinstance(data.get("hooks"), list)
        if as_drawn and shown != [(f, v) for f, v in drawn]:
            # the contract: a resolution shows every die it rolls, as rolled
            wrong = NOT_AS_DRAWN(seq=seq, drawn=len(drawn), shown=len(shown))
            self._problem(seq, "not_as_drawn", wrong)
            return False
        values = [v for _, v in drawn]
        if entry.get("kind") == "roll" and not self._same_roll(seq, data, values):
            return False
        if entry.get("kind") == "dice.drawn" and data.get("results") != values:
            self._problem(seq, "wrong_die", WRONG_RESULTS(seq=seq))
            return False
        return True

    def _check_dice(
        self, position: int, entry: Mapping[str, Any], segment: _Segment, seed: bytes
    ) -> bool:
        """At the reveal: whether the draws of an event are the dice ``seed`` gives
        at its seq (and the event agreed with them, :meth:`_consistent`)."""
        seq, data = entry["seq"], entry["data"]
        drawn = data["draws"]["dice"]
        attempt = data["draws"].get("attempt", 0)
        saved, self._position = self._position, position
        try:
            faces = [f for f, _ in drawn]
            expected = derive(seed, segment.table, segment.epoch, seq, faces, attempt)
            for index, ((f, got), want) in enumerate(zip(drawn, expected, strict=True)):
                if got != want:
                    wrong = WRONG_DIE(seq=seq, number=index + 1, faces=f, got=got, want=want)
                    self._problem(seq, "wrong_die", wrong)
                    if position in self._inconsistent:  # the deeper fault, said once
                        self.report.problems[self._inconsistent[position]] = (
                            self.report.problems.pop()
                        )
                    return False
            if position in self._inconsistent:
                return False  # the seed's dice, shown otherwise: reported at its feed
        finally:
            self._position = saved
        self.report.verified_events += 1
        self.report.retried += attempt > 0
        self.report.carried += position in self._unmatched
        self.report.carried_matched += position in self._matched
        self.report.verified_dice += len(drawn)
        self.report.verified_seqs.append(seq)
        return True

    def _same_roll(self, seq: int, data: Mapping[str, Any], values: list[int]) -> bool:
        try:
            result = roll_formula(str(data.get("formula")), ScriptedDice(values))
        except RollbridgeError as exc:
            self._problem(
                seq,
                "wrong_roll",
                NO_ROLL(seq=seq, error=exc.text if exc.text is not None else exc.message),
            )
            return False
        if result.total != data.get("total"):
            # quoted as every formula a user is shown: the log's, which parses with a
            # carriage return or a line separator in it, overwrote the report's line
            # the log's total too: a number reads as it is, anything else quoted
            wrong = WRONG_TOTAL(seq=seq, formula=repr(str(data.get("formula"))), total=result.total,
                                logged=repr(data.get("total")))  # fmt: skip
            self._problem(seq, "wrong_roll", wrong)
            return False
        if result.to_dict() != data.get("roll"):  # the total alone would say "3, not 3"
            self._problem(
                seq, "wrong_roll", WRONG_GROUPS(seq=seq, formula=repr(str(data.get("formula"))))
            )
            return False
        if "text" in data and data["text"] != result.describe():  # what the web log shows
            wrong = WRONG_TEXT(seq=seq, text=repr(data["text"]), want=repr(result.describe()))
            self._problem(seq, "wrong_roll", wrong)
            return False
        return True

    def finish(self) -> Report:
        """The report, counting the events of streams never revealed: of a segment not
        revealed yet, ``unrevealed``; of the GM stream of a segment revealed to
        players (a player's log never has the GM stream's seed), ``gm_stream``."""
        self._missing()
        segments = self._committed_to.values()
        waiting = [s for s in segments if s.seed is None]
        self.report.unrevealed = sum(len(s.events["public"]) + len(s.events["gm"]) for s in waiting)
        self.report.gm_stream = sum(len(s.events["gm"]) for s in segments if s.seed is not None)
        self.report.gm_stream_approved = sum(
            1
            for segment in segments
            if segment.seed is not None
            for _, entry in segment.events["gm"]
            if isinstance(entry.get("data"), Mapping) and "approved_by" in entry["data"]
        )
        told = self._approvals.stand_ins.told()
        self.report.stand_in_seeds, self.report.stand_in_requests, self.report.stand_in_own = told
        return self.report


def verify_events(events: Iterable[Mapping[str, Any]]) -> Report:
    """Check a whole log (see the module docstring)."""
    verifier = LogVerifier()
    for entry in events:
        verifier.feed(entry)
    return verifier.finish()
