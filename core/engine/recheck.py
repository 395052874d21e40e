"""Checking every resolution of a log by resolving it again (``rollbridge verify``).

The dice check (:mod:`rollbridge.dice.verify`) shows that a resolution's dice are
the seed's; this shows that the rules were applied to them as the ruleset applies
them. Walking the log in order, it keeps the table as the log shows it
(:class:`~rollbridge.engine.logtable.LoggedTable`, from the ``welcome`` on) and
resolves each ``resolution`` event, and each encounter event whose turn hooks
resolved, again on the table as of the seq before it, with its dice
(:func:`~rollbridge.engine.rerun.rerun`). A result that is not the
event as logged is a problem (``wrong_resolution``), reported with its line and seq.

A resolution it cannot resolve again is counted apart, by reason (:data:`REASONS`),
never passed: ``no_table`` (no ``welcome`` before it, or an event missing between:
the log does not hold the table it ran on; a resumed client's missed events that
follow a welcome the log has nothing before), ``unknown_kind`` (an event before it,
since the last ``welcome``, is of a kind the engine does not make, :data:`KNOWN_KINDS`:
a later version's, or a line altered — the table after it is not known here, as a
verifier of that version would know it), ``withheld`` (this view withholds an
involved NPC's numbers or the event's dice), ``ruleset`` (the table's ruleset is
not installed here, or at another major version), ``words`` (the event records
words newer than the installed ruleset's: a newer version of it wrote the event, or
the log was altered — the ruleset installed here cannot tell), ``turn_hooks`` (turn hooks'
results in an encounter event of a kind this version does not know), ``unknown_field``
(a frame with a field the plain protocol's have not: a newer version's, a dialect not
installed here, or a line altered; resolved again without it, so a forged result is a
mismatch, and counted here when it agrees, as what the field says is not known). A
dialect's frames (the Foundry module's) are given here as the plain protocol's, what
their adapters add taken off (:func:`rollbridge.adapter.plain_frame`, by the caller).
A secret event reaches players as a ``hidden`` stand-in that does not say what it
was: those are counted as ``secret``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from rollbridge.adapter import recovered_resume
from rollbridge.contract import Ruleset
from rollbridge.dice.verify import Problem
from rollbridge.engine.follow import APPLIED_KINDS
from rollbridge.engine.logtable import LoggedTable
from rollbridge.engine.model import TableInfo
from rollbridge.engine.recorded import HOOK_KINDS
from rollbridge.engine.rerun import rerun
from rollbridge.engine.table import Table
from rollbridge.exceptions import RulesetUnavailable
from rollbridge.text import Messages

__all__ = ["REASONS", "ResolutionCheck", "check_resolutions"]

say = Messages("rollbridge")
# Translators: {part} names what differs, as the event's fields name it (data.outcome,
# actors, …); keep it as it is.
WRONG = say(
    "verify.wrong_resolution",
    "seq {seq}: resolved again with its own dice on the table the log shows before "
    "it, its {part} differs from the log's: the rules were not applied as logged",
)
# Translators: {error} is the engine's own message.
REFUSED = say(
    "verify.resolution_refused",
    "seq {seq}: resolved again with its own dice on the table the log shows before "
    "it, the engine refuses it ({error})",
)
# Translators: {seq} is an event number; an NPC is an actor no player controls.
PUBLIC_ON_GM = say(
    "verify.public_on_gm_resolution",
    "seq {seq}: a resolution that is not secret, not approved and names no NPC was drawn "
    "on the GM's stream, whose seed players never see: its dice belonged on the public "
    "stream",
)
MALFORMED = say(
    "verify.resolution_malformed",
    "seq {seq}: cannot be resolved again: the table the log shows before it, or the "
    "event itself, is not well-formed",
)
#: Why a resolution was not resolved again (see the module docstring).
REASONS = (
    "no_table", "unknown_kind", "unknown_field", "withheld", "ruleset", "words", "secret",
    "turn_hooks",
)  # fmt: skip
#: The kinds of event the engine makes (each taken to the table from what it carries)
#: and a secret event's stand-in. After an event of another kind (a later version's,
#: or a resolution renamed) the table is not known: a new ``welcome`` starts again.
KNOWN_KINDS = APPLIED_KINDS | {"dice.abandoned", "hidden"}
#: The fields of an ``event`` frame of the plain protocol (docs/protocol.md); a frame
#: with others is ``unknown_field`` (a dialect's are taken off before: the caller's).
FRAME_FIELDS = frozenset(
    {"type", "table", "kind", "epoch", "seq", "data", "actors", "request", "by", "at",
     "table_after", "gm_only"}
)  # fmt: skip


class ResolutionCheck:
    """Feed a log's entries in order (:meth:`feed`); see the module docstring.

    :param rulesets: the rulesets installed here, by id.
    """

    def __init__(self, rulesets: Mapping[str, Ruleset]) -> None:
        self.rulesets = rulesets
        self.table: LoggedTable | None = None
        self.ruleset: Ruleset | None = None
        self.checked = 0
        self.skipped: Counter[str] = Counter()
        self.problems: list[Problem] = []
        #: The seq a resumed client's ``welcome`` showed the table at, when the log
        #: had not the table before it: the missed events up to it that follow are
        #: in that table already.
        self._resumed_at: int | None = None
        #: Whether the table was lost to an event of a kind this version does not
        #: know (since the last ``welcome``): the resolutions after it are
        #: ``unknown_kind``, not ``no_table``.
        self._unknown = False

    def feed(self, entry: Mapping[str, Any], position: int) -> None:
        """One entry of the log, at its line ``position``."""
        if entry.get("type") == "welcome":
            self._welcome(entry)
            return
        if entry.get("type") not in (None, "event") or not isinstance(entry.get("seq"), int):
            return
        table, kind, data = self.table, entry.get("kind"), entry.get("data")
        if self._resumed_at is not None and entry["seq"] <= self._resumed_at:
            if kind == "resolution":  # the table before it is not in the log
                self.skipped["no_table"] += 1
            return
        self._resumed_at = None
        if table is not None and (
            entry["seq"] != table.seq + 1 or entry.get("epoch", table.epoch) != table.epoch
        ):
            self.table = table = None  # an event missing, or another epoch: lost
        hooks = isinstance(data, Mapping) and bool(data.get("hooks"))
        if kind == "resolution" or (kind in HOOK_KINDS and hooks):
            self._resolution(entry, position)
        elif kind == "hidden":
            self.skipped["secret"] += 1
        elif hooks:  # an encounter event of a kind this version does not know
            self.skipped["turn_hooks"] += 1
        if table is not None and isinstance(kind, str) and kind in KNOWN_KINDS:
            table.apply(entry)
        elif table is not None:  # not the engine's: what it left is not known (a follower reloads)
            self.table, self._unknown = None, True

    def _welcome(self, welcome: Mapping[str, Any]) -> None:
        """A client's join or resume, or an export's first line: the table from here.
        A resume that recovered continues the table the log holds (the missed events
        follow, in order); where the log holds none, the welcome's table is the one
        after them."""
        recovered = recovered_resume(welcome)
        shown = LoggedTable.from_welcome(welcome)
        held = self.table
        if recovered and held is not None and shown is not None and shown.epoch == held.epoch:
            return  # the missed events continue the table held
        self._resumed_at = shown.seq if recovered and shown is not None else None
        self.table, self.ruleset, self._unknown = shown, None, False
        if self.table is None:
            return
        info = TableInfo(self.table.id, self.table.name, self.table.ruleset,
                         self.table.ruleset_version, {})  # fmt: skip
        try:
            self.ruleset = Table.check_ruleset(info, self.rulesets)
        except RulesetUnavailable:
            self.ruleset = None

    def _resolution(self, entry: Mapping[str, Any], position: int) -> None:
        table, data = self.table, entry.get("data")
        if table is None:
            self.skipped["unknown_kind" if self._unknown else "no_table"] += 1
            return
        if not isinstance(data, Mapping):
            self.problems.append(Problem(position, entry["seq"], "wrong_resolution",
                                         MALFORMED(seq=entry["seq"])))  # fmt: skip
            return
        if self.ruleset is None:
            self.skipped["ruleset"] += 1
            return
        draws = data.get("draws")
        # judged with a field no one knows too: a field added must not keep a
        # resolution's stream from the check
        if self._public_on_gm(table, entry, data):
            self.problems.append(Problem(position, entry["seq"], "public_on_gm",
                                         PUBLIC_ON_GM(seq=entry["seq"])))  # fmt: skip
        unknown = entry.keys() - FRAME_FIELDS
        if unknown:  # no one's field: resolved again without it, what it says not known
            entry = {key: value for key, value in entry.items() if key in FRAME_FIELDS}
        if (isinstance(draws, Mapping) and draws.get("withheld")) or any(
            table.limited(a) for a in self._involved(table, entry) if isinstance(a, str)
        ):
            self.skipped["unknown_field" if unknown else "withheld"] += 1
            return
        self.checked += 1
        found = rerun(table, entry, self.ruleset)
        if found.skipped is not None:
            self.checked -= 1
            self.skipped[found.skipped] += 1
            return
        if found.ok:
            if unknown:  # agrees without the field; what the field says is not known
                self.checked -= 1
                self.skipped["unknown_field"] += 1
            return
        seq = entry["seq"]
        if found.malformed:
            text = MALFORMED(seq=seq)
        elif found.refused is not None:
            text = REFUSED(seq=seq, error=found.refused)
        else:
            text = WRONG(seq=seq, part=found.field)
        self.problems.append(Problem(position, seq, "wrong_resolution", text))

    def _public_on_gm(
        self, table: LoggedTable, entry: Mapping[str, Any], data: Mapping[str, Any]
    ) -> bool:
        """Whether a resolution drawn on the GM's stream belonged on the public one, by
        the engine's rule (:func:`rollbridge.engine.segments.stream_of`): not secret
        (GM-only), not an approval's, and every actor it names — its actor and targets,
        or every actor of the table for an action on every actor (the ruleset's spec)
        — one a player controls, as the log shows the table before it. An actor the
        table does not hold is not judged; an encounter event's turn hooks always
        roll on the GM's stream."""
        draws = data.get("draws")
        if entry.get("kind") != "resolution" or not isinstance(draws, Mapping):
            return False
        if draws.get("stream") != "gm" or entry.get("gm_only") or "approved_by" in data:
            return False
        named = [a for a in self._involved(table, entry) if a is not None]
        views = [table.actors.get(a) if isinstance(a, str) else None for a in named]
        return all(isinstance(v, Mapping) and bool(v.get("controllers")) for v in views)

    def _involved(self, table: LoggedTable, entry: Mapping[str, Any]) -> list[Any]:
        """The actors a resolution's rules read: its actor and targets (every actor,
        for an action on every actor); an encounter event's, the encounter's."""
        data = entry["data"]
        if entry.get("kind") in HOOK_KINDS:
            shown = entry.get("table_after")
            after = shown.get("encounter") if isinstance(shown, Mapping) else None
            after = after or table.encounter
            order = after.get("order") if isinstance(after, Mapping) else None
            return list(order) if isinstance(order, list) else list(table.actors)
        action, targets = data.get("action"), data.get("targets")
        spec = (
            self.ruleset.actions.get(action) if self.ruleset and isinstance(action, str) else None
        )
        if spec is not None and spec.every_actor:
            return list(table.actors)
        return [data.get("actor"), *(targets if isinstance(targets, list) else [])]


def check_resolutions(
    entries: Iterable[Mapping[str, Any]], rulesets: Mapping[str, Ruleset]
) -> ResolutionCheck:
    """Check every resolution of a whole log (entries in order, one a line, each the
    plain protocol's: a dialect's additions taken off, :func:`~rollbridge.adapter.plain_frame`)."""
    check = ResolutionCheck(rulesets)
    for position, entry in enumerate(entries, start=1):
        check.feed(entry, position)
    return check
