"""Holding an approved event to the request the GM approved (``rollbridge verify``).

An event the GM approved says so in its ``data``: ``approved_by`` (who approved)
and ``approved``, the id of the request it settles, ``p`` and the seq of the
request's ``approval.requested`` event (rollbridge.engine.pending), GM-only. Its
dice are on the GM's stream, which players cannot check; so a server that wrote
``approved_by`` into a player's roll would keep its dice from their check. What the
log can show, :class:`ApprovalCheck` checks:

* the approval names a request held before it (``approved`` is ``p`` and a seq
  before the event's); where the log holds that seq in the event's epoch, it is the
  request (``approval.requested``) or, in a player's log, its ``hidden`` stand-in
  (any other event there: ``unheld_approval``);
* where the log shows the request (the GM's log), it is this event's: the same
  requester (the event's ``by``, which every event the server writes has: one
  without it is no requester's) and the same kind (a ``roll`` request, a ``roll``
  event; any other, a resolution) — else ``other_request``;
* a rejection (``approval.rejected``) names its request as an approval does, and is
  held alike (``unheld_rejection``): a request held before it, no other kind of event
  at its seq, no stand-in the log shows is no request. One that names what is no
  request passes a GM's secret event off as a player's request turned down. Its
  ``type`` and ``requested_by`` are the request's where the log shows it, a player's
  where it does not (else ``other_request``);
* the approver (``approved_by``) is a GM: only the GM's ``approve`` settles a
  request (else ``unheld_approval``); and where the log shows the request, the
  client's own id of it (the approved event's ``request``, a rejection's
  ``data.request``) is the request's ``id`` (else ``other_request``);
* a request is settled once: approved once, or rejected once (``approval.rejected``,
  which players see too); any second settling of it, an approval or a rejection after
  an approval or a rejection, is ``settled_twice``. An honest server writes none: a
  request sent again with its id after it was settled gets the settled answer again
  (no event), an undo or redo of an approved event is an ``undo`` or ``redo`` event
  (no ``approved``), and a restored table goes on in another epoch, whose requests are
  apart from the earlier epoch's.

A GM's client log that begins later has the requests waiting then in its
``welcome`` (the table's ``pending``, :meth:`ApprovalCheck.welcomed`): an approval
of one is held to it as to a request the log shows (counted apart,
:attr:`ApprovalCheck.held_welcomed`: such a request is that welcome's word alone;
nothing in a log signs a welcome). A listed request the log shows otherwise — no
``p`` and seq at or before the welcome's, another kind of event there, settled before
the welcome, or another type, requester or client id than its
``approval.requested`` — is ``welcome_pending``: the log's word wins over the line's.
And a request held at or before a GM's welcome's seq and settled after it was
waiting then: one that welcome does not list is no request (``unheld_approval``,
``unheld_rejection``). Without that, a ``welcome`` put into a log, the lines under it
taken out, made any seq there one the client missed, and an approval naming it passed.

What it cannot show: that a request whose seq is a ``hidden`` stand-in (a player's
log) was a request rather than a secret roll or the GM's seed at a reveal, and
anything of a request held before the log begins that no GM's ``welcome`` lists (an
export's first line shows the table of a past seq, without its requests), or at a seq
the log does not hold after its first line (a client's log, while the client was away:
a player's later ``welcome`` shows the table without its requests, and whether the
client was away is that welcome's word). Such approvals are counted
(``approvals_unseen``; of them ``before_log`` and ``missed``), those held to their
request too (``approvals_held``).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Mapping
from typing import Any

from rollbridge.dice.stand_ins import StandIns
from rollbridge.text import Message, Messages, Text

__all__ = ["NOT_LISTED", "ApprovalCheck"]

say = Messages("rollbridge")
# Translators: {seq} is an event number; {request} the id it names, quoted ('p12');
# approved and approved_by are an event's fields: keep them.
NO_REQUEST = say(
    "verify.approval_no_request",
    "seq {seq}: the log says the GM approved it, but its field approved ({request}) names "
    "no request held before it: an approved event names its request, 'p' and that "
    "request's seq, and its dice are on the GM's stream, where players cannot check them",
)
# Translators: {seq} and {at} are event numbers; {request} a request's id, quoted;
# {kind} the kind of event the log holds at {at}, quoted ('roll').
UNHELD = say(
    "verify.unheld_approval",
    "seq {seq}: the log says the GM approved request {request}, but seq {at} of the log "
    "is a {kind} event, not a request held for approval: an approved event's dice are "
    "on the GM's stream, where players cannot check them",
)
# Translators: {seq} and {at} are event numbers; {request} a request's id, quoted;
# {requested} and {by} who asked (a role and name, quoted: 'player:ana').
OTHER_REQUEST = say(
    "verify.other_request",
    "seq {seq}: the log says the GM approved request {request}, but that request (seq "
    "{at}) is another one: a {type} request by {requested}, where this event is a {kind} "
    "by {by}",
)
# Translators: {seq} is an event number; {request} a request's id, quoted ('p12');
# {by} who the event says approved it, quoted ('player'); approved_by is its field.
NOT_A_GM = say(
    "verify.approved_by_not_a_gm",
    "seq {seq}: the log says {by} approved request {request} (its approved_by), and only a "
    "GM approves requests",
)
# Translators: {seq} and {settled} are event numbers; {request} a request's id, quoted.
SETTLED_TWICE = say(
    "verify.settled_twice",
    "seq {seq}: the log says the GM approved request {request}, which seq {settled} "
    "already settled: a request is approved or rejected once",
)
# Translators: {seq} and {settled} are event numbers; {request} a request's id, quoted.
REJECTED_TWICE = say(
    "verify.rejected_settled",
    "seq {seq}: the log says the GM rejected request {request}, which seq {settled} "
    "already settled: a request is approved or rejected once",
)

# Translators: {seq} and {at} are event numbers; {request} a request's id, quoted.
STAND_IN_CHANGED = say(
    "verify.approval_stand_in_changed",
    "seq {seq}: the log says the GM approved request {request}, but seq {at} of the log "
    "is a hidden event that changed actors, which a request held for approval never does: "
    "an approved event's dice are on the GM's stream, where players cannot check them",
)
# Translators: {seq} and {at} are event numbers; {request} a request's id, quoted;
# dice.revealed is an event's kind: keep it.
STAND_IN_SEED = say(
    "verify.approval_stand_in_seed",
    "seq {seq}: the log says the GM approved request {request}, but seq {at} of the log "
    "is the GM's seed of the reveal at seq {reveal} (a reveal writes it just before its "
    "dice.revealed), not a request held for approval: an approved event's dice are on "
    "the GM's stream, where players cannot check them",
)
# Translators: {seq} and {at} are event numbers; {request} a request's id, quoted;
# approval is a table setting's name: keep it.
APPROVAL_OFF = say(
    "verify.approval_off",
    "seq {seq}: the log says the GM approved request {request}, but at seq {at}, the "
    "request's, the table's setting approval was off, so no request was held for the "
    "GM: an approved event's dice are on the GM's stream, where players cannot check them",
)
# Translators: {seq} is an event number; {request} a request's id, quoted; {by} who
# asked (a role and name, quoted: 'gm').
NOT_A_PLAYER = say(
    "verify.approval_not_a_player",
    "seq {seq}: the log says the GM approved request {request}, but this event is by "
    "{by}, and only a player's requests are held for the GM's approval",
)

# A rejection (approval.rejected, which players see too) names its request as an
# approval does: one naming an event the log shows is no request passes that event off
# as a player's request the GM turned down (a secret roll, in a player's log, "told"
# as a request).
# Translators: {seq} is an event number; {request} the id it names, quoted ('p12');
# approval.rejected is an event's kind: keep it.
REJECTED_NO_REQUEST = say(
    "verify.rejection_no_request",
    "seq {seq}: the log says the GM rejected request {request}, but that names no request "
    "held before it: an approval.rejected event names its request, 'p' and that request's "
    "seq",
)
# Translators: {seq} and {at} are event numbers; {request} a request's id, quoted;
# {kind} the kind of event the log holds at {at}, quoted ('roll').
REJECTED_UNHELD = say(
    "verify.rejection_unheld",
    "seq {seq}: the log says the GM rejected request {request}, but seq {at} of the log is "
    "a {kind} event, not a request held for approval",
)
# Translators: {seq} and {at} are event numbers; {request} a request's id, quoted.
REJECTED_STAND_IN_CHANGED = say(
    "verify.rejection_stand_in_changed",
    "seq {seq}: the log says the GM rejected request {request}, but seq {at} of the log is "
    "a hidden event that changed actors, which a request held for approval never does: a "
    "secret event passed off as a player's request the GM turned down",
)
# Translators: {seq}, {at} and {reveal} are event numbers; {request} a request's id,
# quoted; dice.revealed is an event's kind: keep it.
REJECTED_STAND_IN_SEED = say(
    "verify.rejection_stand_in_seed",
    "seq {seq}: the log says the GM rejected request {request}, but seq {at} of the log is "
    "the GM's seed of the reveal at seq {reveal} (a reveal writes it just before its "
    "dice.revealed), not a request held for approval",
)
# Translators: {seq} and {at} are event numbers; {request} a request's id, quoted;
# approval is a table setting's name: keep it.
REJECTED_APPROVAL_OFF = say(
    "verify.rejection_approval_off",
    "seq {seq}: the log says the GM rejected request {request}, but at seq {at}, the "
    "request's, the table's setting approval was off, so no request was held for the GM",
)

# Translators: {seq} and {at} are event numbers; {request} a request's id, quoted;
# {type} and {held} kinds of request, quoted ('roll', 'resolve'); {by} and {requested}
# who asked, quoted ('player:ana'); requested_by is an event's field: keep it.
REJECTED_OTHER_REQUEST = say(
    "verify.rejection_other_request",
    "seq {seq}: the log says the GM rejected request {request}, a {type} request by {by} "
    "(its type and requested_by), but that request (seq {at}) is another one: a {held} "
    "request by {requested}",
)
# Translators: {seq} and {at} are event numbers; {request} a request's id, quoted;
# {by} who the rejection says asked, quoted ('gm'); requested_by is an event's field.
REJECTED_NOT_A_PLAYER = say(
    "verify.rejection_not_a_player",
    "seq {seq}: the log says the GM rejected request {request} (seq {at}) of {by} (its "
    "requested_by), and only a player's requests are held for the GM's approval",
)

# Translators: {seq}, {at} and {welcome} are event numbers; {request} a request's id,
# quoted; "welcome" is the protocol's message, kept as it is; pending is its field.
UNLISTED = say(
    "verify.approval_unlisted",
    "seq {seq}: the log says the GM approved request {request}, held at seq {at}, but the "
    "GM's welcome line at seq {welcome} (its pending: the requests waiting then) does not "
    "list it: it was no request waiting for the GM, and an approved event's dice are on the "
    "GM's stream, where players cannot check them",
)
# Translators: {seq}, {at} and {welcome} are event numbers; {request} a request's id,
# quoted; "welcome" is the protocol's message, kept as it is; pending is its field.
REJECTED_UNLISTED = say(
    "verify.rejection_unlisted",
    "seq {seq}: the log says the GM rejected request {request}, held at seq {at}, but the "
    "GM's welcome line at seq {welcome} (its pending: the requests waiting then) does not "
    "list it",
)

# Translators: {seq} and {at} are event numbers; {request} a request's id, quoted
# ('p12'); {asked} and {held} a client's own ids of its request, quoted ('r1');
# request is an event's field: keep it.
APPROVED_OTHER_ID = say(
    "verify.approval_other_id",
    "seq {seq}: the log says the GM approved request {request}, sent as {asked} (this "
    "event's request), but that request (seq {at}) was sent as {held}: the approval "
    "settles another request than the one it names",
)
# Translators: {seq} and {at} are event numbers; {request} a request's id, quoted
# ('p12'); {asked} and {held} a client's own ids of its request, quoted ('r1');
# data.request is an event's field: keep it.
REJECTED_OTHER_ID = say(
    "verify.rejection_other_id",
    "seq {seq}: the log says the GM rejected request {request}, sent as {asked} (its "
    "data.request), but that request (seq {at}) was sent as {held}: the rejection "
    "settles another request than the one it names",
)

# A GM's welcome lists the requests waiting at its seq (its table's pending); where
# the log itself shows such a request (its approval.requested, its settling), the
# listing must agree with it: a forged welcome could otherwise make any request the
# log shows another player's, or one already settled waiting again.
# Translators: {welcome} is an event number (the welcome's seq); {request} a
# request's id, quoted ('p12'); "welcome" is the protocol's message, pending its field.
WELCOME_NO_REQUEST = say(
    "verify.welcome_pending_no_request",
    "the GM's welcome line at seq {welcome}, in its pending (the requests waiting then), "
    "lists {request}, but that names no request held at or before it: a request's id is "
    "'p' and the seq of its approval.requested",
)
# Translators: {welcome} and {at} are event numbers; {request} a request's id, quoted;
# {kind} the kind of event the log holds at {at}, quoted ('roll').
WELCOME_UNHELD = say(
    "verify.welcome_pending_unheld",
    "the GM's welcome line at seq {welcome}, in its pending, lists request {request}, but seq "
    "{at} of the log is a {kind} event, not a request held for approval",
)
# Translators: {welcome} and {settled} are event numbers; {request} a request's id,
# quoted.
WELCOME_SETTLED = say(
    "verify.welcome_pending_settled",
    "the GM's welcome line at seq {welcome}, in its pending, lists request {request}, but seq "
    "{settled} of the log already settled it",
)
# Translators: {welcome} and {at} are event numbers; {request} a request's id, quoted;
# {type}/{held} kinds of request ('roll'), {by}/{requested} who asked ('player:ana'),
# {asked}/{sent} the client's own ids of the request ('r1'), each quoted.
WELCOME_OTHER = say(
    "verify.welcome_pending_other",
    "the GM's welcome line at seq {welcome}, in its pending, lists request {request} as a "
    "{type} request by {by} sent as {asked}, but the log shows that request (seq {at}) as "
    "a {held} request by {requested} sent as {sent}",
)

# Translators: {welcome} is an event number (the welcome's seq); {value} what the line
# holds instead, as JSON; "welcome" is the protocol's message, pending its field.
WELCOME_MALFORMED = say(
    "verify.welcome_pending_malformed",
    "the GM's welcome line at seq {welcome} has a pending (the requests waiting then) that "
    "is not a list of requests, each an object with its id in pending: {value}; no server "
    "writes it, so the line was altered or the client that wrote the log is broken",
)

#: What a welcome without ``pending`` lists (a player's, an export's first line).
NOT_LISTED: Any = object()

#: A request's id: ``p`` and the seq of its ``approval.requested`` event.
_REQUEST_ID = re.compile(r"p([1-9][0-9]{0,18}|0)")


class ApprovalCheck:
    """The approvals and requests of one log, checked as :meth:`feed` meets them
    (module docstring)."""

    def __init__(self) -> None:
        #: The requests the log shows whole, by epoch and id: (type, requester, the
        #: client's own id of it).
        self._requests: dict[tuple[Any, str], tuple[Any, Any, Any]] = {}
        #: Of those, the ones an ``approval.requested`` line of the log shows.
        self._logged: set[tuple[Any, str]] = set()
        #: Where each request was settled, by epoch and id: the settling event's seq.
        self._settled: dict[tuple[Any, str], int] = {}
        #: The requests known from a GM's welcome alone (before the log), by epoch and id.
        self._welcomed: set[tuple[Any, str]] = set()
        #: Each GM's welcome by epoch: its seq and the ids of the requests it lists as
        #: waiting (every one held at or before that seq and settled after it).
        #: Kept in seq order (then log order), so an approval looks at those from its
        #: request's seq on alone: a log of many welcomes and approvals is not read
        #: once per approval.
        self._listings: dict[Any, list[tuple[int, int, frozenset[str]]]] = {}
        #: The ``hidden`` stand-ins of a player's log and what the log tells of them.
        self.stand_ins = StandIns()
        #: The table's setting ``approval`` by epoch, as (from seq, its place in the
        #: log, on; None: not known), in seq order, then log order (:meth:`setting`):
        #: the one in force at a seq is the last from it or before.
        self._setting: dict[Any, list[tuple[int, int, bool | None]]] = {}
        #: How many settings and listings were noted: each one's place in the log.
        self._noted = 0
        #: The first seq of each epoch the log shows (a welcome's seq after it).
        self._first: dict[Any, int] = {}
        #: Approvals held to their request, and those the log cannot hold to one (of
        #: which ``before_log``: their request held before the log's first line;
        #: ``missed``: at a later seq the log does not hold, before a later welcome).
        self.held = 0
        #: Of :attr:`held`, those held to a request only a GM's welcome lists.
        self.held_welcomed = 0
        self.unseen = 0
        self.before_log = 0
        self.missed = 0

    def begins(self, epoch: Any, seq: int) -> None:
        """The log shows ``epoch`` from ``seq`` on (its first welcome's seq after it,
        else its first event's): a request of a seq before it was held before the log."""
        self._first.setdefault(epoch, seq)

    def setting(self, epoch: Any, since: int, on: bool | None) -> None:
        """The table's setting ``approval`` from ``since`` on, as a ``welcome`` (its
        seq after it) or an event's ``table_after`` shows it (None: not known, from
        the first seq of a gap on, until an event shows the settings again)."""
        self._noted += 1
        bisect.insort(self._setting.setdefault(epoch, []), (since, self._noted, on))

    def _approval_at(self, epoch: Any, seq: int) -> bool | None:
        """The setting ``approval`` when the request at ``seq`` was made (None: not known)."""
        settings = self._setting.get(epoch, [])
        at = bisect.bisect_right(settings, (seq, self._noted + 1))
        return settings[at - 1][2] if at else None

    def welcomed(
        self, epoch: Any, seq: Any, pending: Any, seen: Mapping[tuple[Any, int], Any]
    ) -> list[tuple[str, Text]]:
        """The requests a GM's ``welcome`` at ``seq`` lists as waiting (its table's
        ``pending``: each with its id, ``type``, ``who`` and the client's ``id``):
        held before the log began, so an approval of one is held to it as to a
        request the log shows; and a request of a seq up to ``seq`` that it does not
        list was not waiting then, so no later event settles it (:meth:`_unlisted`). A
        player's welcome, and an export's first line, list none (no ``pending``:
        :data:`NOT_LISTED`); a ``pending`` that is no list of requests (null too) is
        ``welcome_pending``, as no server writes it. ``seen``: the kind of every event
        the log has shown, by epoch and seq. Where the log shows a listed request (its
        line, its settling), the listing must agree with it: the problems found are
        returned (``welcome_pending``)."""
        if pending is NOT_LISTED:
            return []
        malformed = _malformed_listing(pending)
        if malformed is not None:
            return [("welcome_pending", WELCOME_MALFORMED(welcome=seq, value=malformed))]
        ids, problems = set(), []
        for request in pending:
            problems += self._listed(epoch, seq, request, seen)
            ids.add(request["pending"])
        if isinstance(seq, int):
            self._noted += 1
            bisect.insort(self._listings.setdefault(epoch, []), (seq, self._noted, frozenset(ids)))
        return problems

    def _listed(
        self, epoch: Any, seq: Any, request: Mapping[str, Any], seen: Mapping[tuple[Any, int], Any]
    ) -> list[tuple[str, Text]]:
        """One request a GM's welcome at ``seq`` lists, held to what the log shows of
        it; one the log does not show is taken as the welcome says."""
        pending = request["pending"]
        key, listed = (epoch, pending), _asked(request)
        match = _REQUEST_ID.fullmatch(pending)
        said = {"welcome": seq, "request": repr(pending)}
        whole = isinstance(seq, int) and not isinstance(seq, bool)
        if match is None or (whole and int(match.group(1)) > seq):
            return [("welcome_pending", WELCOME_NO_REQUEST(**said))]
        at = int(match.group(1))
        there = seen.get((epoch, at))
        if there not in (None, "hidden", "approval.requested"):
            return [("welcome_pending", WELCOME_UNHELD(**said, at=at, kind=repr(there)))]
        if key in self._settled and (not whole or self._settled[key] <= seq):
            return [("welcome_pending", WELCOME_SETTLED(**said, settled=self._settled[key]))]
        if key in self._logged and self._requests[key] != listed:
            (held, requested, sent), (asked, by, own) = self._requests[key], listed
            return [("welcome_pending", WELCOME_OTHER(
                **said, at=at, type=repr(asked), by=repr(by), asked=repr(own),
                held=repr(held), requested=repr(requested), sent=repr(sent),
            ))]  # fmt: skip
        if key not in self._logged:
            self._requests[key] = listed
            self._welcomed.add(key)
        return []

    def _unlisted(self, epoch: Any, at: int, request: str) -> int | None:
        """The seq of a GM's welcome, at or after ``at``, that does not list
        ``request`` among the requests then waiting, or None. A request held at
        ``at`` and settled after that welcome waited at it: a welcome put into a log
        to make the request's seq one the client missed must list it."""
        listings = self._listings.get(epoch, [])
        for place in range(bisect.bisect_left(listings, (at,)), len(listings)):
            seq, _, ids = listings[place]
            if request not in ids:
                return seq
        return None

    def feed(
        self,
        epoch: Any,
        seq: int,
        entry: Mapping[str, Any],
        seen: Mapping[tuple[Any, int], Any],
    ) -> list[tuple[str, Text]]:
        """Check one event of ``epoch`` (not a ``hidden`` stand-in); ``seen``: the kind
        of every event the log has shown, by epoch and seq. Returns the problems found,
        each a code and its text."""
        kind = entry.get("kind")
        data = entry.get("data") if isinstance(entry.get("data"), Mapping) else {}
        if kind == "approval.requested":
            request = data.get("request")
            if isinstance(data.get("pending"), str) and isinstance(request, Mapping):
                self._requests[(epoch, data["pending"])] = _asked(request)
                self._logged.add((epoch, data["pending"]))
            return []
        if kind == "approval.rejected":
            return self._rejected(epoch, seq, data, seen)
        if "approved_by" not in data:
            return []
        return self._approved(epoch, seq, kind, entry, data, seen)

    def _names(
        self, epoch: Any, seq: int, request: Any, code: str, no_request: Message
    ) -> tuple[int | None, list[tuple[str, Text]]]:
        """The seq of the request an approval (``code`` ``unheld_approval``) or a
        rejection at ``seq`` names, and the problems found: no request held before it
        (said by ``no_request``; then no seq), or one settled before."""
        match = _REQUEST_ID.fullmatch(request) if isinstance(request, str) else None
        if match is None or int(match.group(1)) >= seq:
            return None, [(code, no_request(seq=seq, request=repr(request)))]
        twice = SETTLED_TWICE if code == "unheld_approval" else REJECTED_TWICE
        return int(match.group(1)), self._settle(epoch, seq, request, twice)

    def _rejected(
        self, epoch: Any, seq: int, data: Mapping[str, Any], seen: Mapping[tuple[Any, int], Any]
    ) -> list[tuple[str, Text]]:
        """A rejection (its event's ``data``) of the request it names: held, as an
        approval is, to what the log shows at the request's seq (``unheld_rejection``:
        no request held before it, another kind of event there, or a stand-in the log
        shows is no request), to the request's type and requester where the log shows
        it, to a player's where it does not (``other_request``), and settled once."""
        request = data.get("pending")
        at, problems = self._names(epoch, seq, request, "unheld_rejection", REJECTED_NO_REQUEST)
        if at is None or problems:
            return problems
        said = {"seq": seq, "request": repr(request), "at": at}
        there = seen.get((epoch, at))
        if there not in (None, "hidden", "approval.requested"):
            return [("unheld_rejection", REJECTED_UNHELD(**said, kind=repr(there)))]
        shown = there == "approval.requested" or (epoch, request) in self._welcomed
        if there is None and not shown:
            missing = self._unlisted(epoch, at, request)
            if missing is not None:
                return [("unheld_rejection", REJECTED_UNLISTED(**said, welcome=missing))]
        if self._approval_at(epoch, at) is False:
            return [("unheld_rejection", REJECTED_APPROVAL_OFF(**said))]
        asked, by = data.get("type"), data.get("requested_by")
        held, requester, sent = self._requests.get((epoch, request), (None, None, None))
        if shown and (asked, by) != (held, requester):
            return [("other_request", REJECTED_OTHER_REQUEST(
                **said, type=repr(asked), by=repr(by), held=repr(held), requested=repr(requester),
            ))]  # fmt: skip
        if shown and data.get("request") != sent:
            own = repr(data.get("request"))
            return [("other_request", REJECTED_OTHER_ID(**said, asked=own, held=repr(sent)))]
        if not shown and not _a_players(by):
            return [("other_request", REJECTED_NOT_A_PLAYER(**said, by=repr(by)))]
        if there == "hidden" and self.stand_ins.gm_seed(epoch, at):
            return [("unheld_rejection", REJECTED_STAND_IN_SEED(**said, reveal=at + 1))]
        if there == "hidden" and self.stand_ins.changed(epoch, at):
            return [("unheld_rejection", REJECTED_STAND_IN_CHANGED(**said))]
        self.stand_ins.named(epoch, at)
        return []

    def _approved(
        self,
        epoch: Any,
        seq: int,
        kind: Any,
        entry: Mapping[str, Any],
        data: Mapping[str, Any],
        seen: Mapping[tuple[Any, int], Any],
    ) -> list[tuple[str, Text]]:
        request = data.get("approved")
        at, problems = self._names(epoch, seq, request, "unheld_approval", NO_REQUEST)
        if at is None or problems:
            return problems
        approver = data.get("approved_by")
        if not isinstance(approver, str) or approver.partition(":")[0] != "gm":
            said = NOT_A_GM(seq=seq, request=repr(request), by=repr(approver))
            return [("unheld_approval", said)]
        self.stand_ins.named(epoch, at)
        there = seen.get((epoch, at))
        if there is None and (epoch, request) in self._welcomed:
            there = "approval.requested"  # held before the log: the GM's welcome lists it
        elif there is None and (missing := self._unlisted(epoch, at, request)) is not None:
            said = UNLISTED(seq=seq, request=repr(request), at=at, welcome=missing)
            return [("unheld_approval", said)]
        if there in (None, "hidden", "approval.requested"):
            problems = self._unheld(epoch, seq, at, request, entry.get("by"), there)
            if problems or there == "approval.requested":
                return problems or self._held_to(epoch, seq, at, request, kind, entry)
            self.unseen += 1  # a stand-in, or not in the log: the log cannot show it
            if there is None and at < self._first.get(epoch, at + 1):
                self.before_log += 1
            elif there is None:  # missed by the client: before a later welcome
                self.missed += 1
            return []
        return [("unheld_approval", UNHELD(seq=seq, request=repr(request), at=at,
                                           kind=repr(there)))]  # fmt: skip

    def _unheld(
        self, epoch: Any, seq: int, at: int, request: str, by: Any, there: Any
    ) -> list[tuple[str, Text]]:
        """What the log shows against the request at ``at`` having been held: the
        setting ``approval`` off then, a requester who is no player (where the log
        does not show the request, whose requester :meth:`_held_to` compares), a
        stand-in that changed actors or is the GM's seed of a reveal."""
        said = {"seq": seq, "request": repr(request), "at": at}
        if self._approval_at(epoch, at) is False:
            return [("unheld_approval", APPROVAL_OFF(**said))]
        if there != "approval.requested" and not _a_players(by):
            return [("other_request", NOT_A_PLAYER(seq=seq, request=repr(request), by=repr(by)))]
        if there == "hidden" and self.stand_ins.gm_seed(epoch, at):
            return [("unheld_approval", STAND_IN_SEED(**said, reveal=at + 1))]
        if there == "hidden" and self.stand_ins.changed(epoch, at):
            return [("unheld_approval", STAND_IN_CHANGED(**said))]
        return []

    def _held_to(
        self, epoch: Any, seq: int, at: int, request: str, kind: Any, entry: Mapping[str, Any]
    ) -> list[tuple[str, Text]]:
        """Hold the approval at ``seq`` to the request the log shows at ``at``: the
        same requester and kind (``other_request``)."""
        asked, requester, sent = self._requests.get((epoch, request), (None, None, None))
        by = entry.get("by")
        if (asked == "roll") != (kind == "roll") or by != requester:  # no by: no one's
            said = OTHER_REQUEST(
                seq=seq, request=repr(request), at=at, type=repr(asked),
                requested=repr(requester), kind=repr(kind), by=repr(by),
            )  # fmt: skip
            return [("other_request", said)]
        if entry.get("request") != sent:  # the approved event names the client's id
            said = APPROVED_OTHER_ID(
                seq=seq, request=repr(request), at=at, asked=repr(entry.get("request")),
                held=repr(sent),
            )  # fmt: skip
            return [("other_request", said)]
        self.held += 1
        if (epoch, request) not in self._logged:
            self.held_welcomed += 1  # the request is that welcome's word alone
        return []

    def _settle(self, epoch: Any, seq: int, request: str, twice: Message) -> list[tuple[str, Text]]:
        """Note that the event at ``seq`` settles ``request`` of ``epoch``; a second
        settling of it is ``settled_twice``, said by ``twice`` (the same event's line
        met again is not a second one)."""
        settled = self._settled.setdefault((epoch, request), seq)
        if settled == seq:
            return []
        return [("settled_twice", twice(seq=seq, request=repr(request), settled=settled))]


def _malformed_listing(pending: Any) -> str | None:
    """What is wrong with a GM's welcome's ``pending`` that no server writes (as JSON, as
    the line holds it, cut to 60 characters): not a list, or an entry of it that is not
    an object with its id (a string) in ``pending``; None for a well-formed listing."""
    if isinstance(pending, list):
        wrong = [r for r in pending if not _request_entry(r)]
        if not wrong:
            return None
        pending = wrong[0]
    shown = json.dumps(pending, ensure_ascii=False)
    return shown if len(shown) <= 60 else shown[:59] + "…"


def _request_entry(entry: Any) -> bool:
    """Whether an entry of a GM's welcome's ``pending`` is a request: an object with
    its id, a string, in ``pending``."""
    return isinstance(entry, Mapping) and isinstance(entry.get("pending"), str)


def _asked(request: Mapping[str, Any]) -> tuple[Any, Any, Any]:
    """A held request's type, requester (a role and name as an event's ``by`` writes
    them: ``player:ana``, or ``gm``) and the client's own id of it (``id``)."""
    who = request.get("who") if isinstance(request.get("who"), Mapping) else {}
    role, name = who.get("role"), who.get("name")
    return request.get("type"), name if name == role else f"{role}:{name}", request.get("id")


def _a_players(by: Any) -> bool:
    """Whether an event's ``by`` names a player (``player``, or ``player:`` and its
    name, as :func:`_asked` writes a requester)."""
    return isinstance(by, str) and by.partition(":")[0] == "player"
