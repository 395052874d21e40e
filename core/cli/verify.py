"""``rollbridge verify LOG.jsonl``: check a table's verifiable dice from its log.

The log is JSON Lines: one event per line, as a client received it (``event``
frames, or bare events; a ``welcome`` gives the segment open when the client joined,
or an export began; other lines — results — are skipped), in the order received or
exported. Every die of every revealed segment is derived again
from its seed and compared (:mod:`rollbridge.dice.verify`), and every resolution
whose inputs the log holds is resolved again with its dice by the ruleset installed
here, on the table the log shows before it (:mod:`rollbridge.engine.recheck`); those
it cannot are counted by reason. The exit status is 0
when nothing is wrong, 1 at the first problem (printed with its line and seq),
2 for a file that cannot be read, 3 when nothing is wrong but resolutions were left
that the rulesets installed here cannot check (newer words, a ruleset not installed,
an event of a kind this version does not know, a frame's field neither the protocol
nor an installed dialect knows: :data:`INCOMPLETE_REASONS`, each with its own advice,
:data:`INCOMPLETE_ADVICE`), so the log is neither forged nor verified. ``--json``
prints the whole report (``complete``: false for such a log).
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rollbridge.cli import shared_help
from rollbridge.cli.helps import Help
from rollbridge.cli.locales import add_locale_option
from rollbridge.cli.render import error_words, print_error, print_json
from rollbridge.dice.verify import Report, verify_events
from rollbridge.engine.recheck import REASONS
from rollbridge.exceptions import PluginError, RollbridgeError, UndecodableFrame
from rollbridge.json_words import json_reason, value_reason
from rollbridge.system_words import system_reason
from rollbridge.text import Messages, Text
from rollbridge.visible import visible

if TYPE_CHECKING:
    from rollbridge.host import PluginHost

__all__ = ["add_parsers", "read_log", "recheck", "render_report"]

say = Messages("rollbridge")
# Translators: {path} is the log given; {problem} the system's words (in English).
CANNOT_READ = say("cli.verify.cannot_read", "cannot read {path}: {problem}")
# Translators: {path} a file, {line} a line number, {error} the parser's message.
UNREADABLE = say("cli.verify.unreadable", "{path}: line {line} is not JSON: {error}")
# Translators: {path} a file, {line} a line number: the file's last line, which a
# download or a copy that stopped early left without its end.
CUT_OFF = say(
    "cli.verify.cut_off",
    "{path}: line {line} is cut off: the file ends before its JSON does (a download "
    "that stopped early?); export the log again",
)
TOO_DEEP = say("cli.verify.too_deep", "{path}: line {line} is JSON nested too deep to check")
# Translators: {path} a file, {line} a line number; {code} and {message} the
# server's error (its code, and its message in the language it was asked in).
ERROR_REPLY = say(
    "cli.verify.error_reply",
    "{path}: line {line} is the server's refusal, not a log: {code}: {message} "
    "(export it again with a token of the table: ?format=jsonl)",
)
# Translators: {path} a file, {line} a line number.
NOT_TEXT = say("cli.verify.not_text", "{path}: line {line} is not UTF-8 text: not a log")
# Translators: a summary of `rollbridge verify`; the numbers are counts, each after
# its label, so that no word agrees with a number ("events: 1").
SUMMARY = say(
    "cli.verify.summary",
    "events: {events}; rolls verified: {verified} (dice: {dice}); with supplied dice (not "
    "the server's): {supplied}; with dice withheld from this view: {withheld}; secret: "
    "{hidden}; in segments not revealed yet: {unrevealed}",
)
# Translators: {segment} a number, {status} committed / revealed / wrong seed.
SEGMENT = say("cli.verify.segment", "segment {segment}: {status}")
# Translators: {line} the line of the log, {message} what is wrong.
PROBLEM = say("cli.verify.problem", "MISMATCH at line {line}: {message}")
# Translators: the state of a segment of verifiable dice.
STATUSES = {
    "committed": say("cli.verify.committed", "committed, not revealed yet"),
    "revealed": say("cli.verify.revealed", "revealed"),
    "wrong seed": say("cli.verify.wrong_seed", "the revealed seed does not match"),
    "abandoned": say(
        "cli.verify.abandoned",
        "abandoned: the server lost its dice key, so its seed can never be revealed "
        "and its dice cannot be checked",
    ),
}
ALL_GOOD = say("cli.verify.ok", "every revealed server die checks out")
NONE_YET = say(
    "cli.verify.none_yet",
    "no die could be checked yet: nothing in this log was rolled in a revealed segment "
    "(ask the GM for dice.reveal)",
)
NONE_SEEN = say(
    "cli.verify.none_seen",
    "no die could be checked from this log: what was rolled in its revealed segments is "
    "secret, withheld from this view or on the GM's stream",
)
# Translators: {count} events; a chip rerolls dice of an earlier roll (docs/dice.md).
CARRIED = say(
    "cli.verify.carried",
    "{count} show dice of an earlier roll again (a chip's reroll) that this log cannot "
    "match with that roll (its event is not in the log, is secret or shows no dice here, "
    "is of an earlier epoch, or the chip does not name it): only their new dice are checked",
)
# Translators: {count} events; a chip rerolls dice of an earlier roll (docs/dice.md).
CARRIED_MATCHED = say(
    "cli.verify.carried_matched",
    "{count} show dice of an earlier roll again (a chip's reroll): matched to that roll",
)
# Translators: {segment} a number; {commitment} a SHA-256 in hex; "welcome" is the
# protocol's message, kept as it is.
WELCOMED = say(
    "cli.verify.welcomed",
    "segment {segment} was committed before this log begins: its commitment {commitment} "
    "is only the word of the log's welcome line (a client's join, an export's first "
    "line); compare it with the one the table published",
)
# Translators: {count} events; docs/dice.md, "attempt".
RETRIED = say(
    "cli.verify.retried",
    "{count} rolled at a later attempt of their seq, after requests refused there "
    "having drawn dice: a server could have chosen among attempts",
)
# Translators: {epochs} the epochs' numbers.
EPOCHS = say(
    "cli.verify.epochs",
    "the table's history restarted in this log (epochs: {epochs}; a restored backup "
    "or a move): each epoch's seqs and segments are checked on their own",
)
# Translators: {count} events whose dice came from the GM's stream (docs/dice.md).
GM_STREAM = say(
    "cli.verify.gm_stream",
    "{count} rolled on the GM's stream (secret, approved by the GM, or with NPCs): only the "
    "GM's log checks them",
)
# Translators: {count} events the GM approved (players' requests held for approval);
# approval is a table setting's name: keep it.
GM_STREAM_APPROVED = say.plural(
    "cli.verify.gm_stream_approved",
    "{count} of them was approved by the GM: a request held for approval is rolled on the "
    "GM's stream when the GM approves it, whoever asked, so at a table with the setting "
    "approval on a player cannot check the dice of their own held rolls here, only in the GM's "
    "log",
    "{count} of them were approved by the GM: a request held for approval is rolled on the GM's "
    "stream when the GM approves it, whoever asked, so at a table with the setting approval "
    "on a player cannot check the dice of their own held rolls here, only in the GM's log",
)
# Translators: {count} resolutions (a ruleset's actions, such as an attack).
RESOLVED = say.plural(
    "cli.verify.resolved",
    "{count} resolution resolved again with its dice on the table the log shows before it",
    "{count} resolutions resolved again with their dice on the table the log shows before them",
)
# Translators: why resolutions could not be resolved again; {count} events.
UNRESOLVED = {
    "no_table": say.plural(
        "cli.verify.unresolved_no_table",
        "{count} resolution not resolved again: the log does not hold the table it ran "
        "on (no welcome line before it, or events missing)",
        "{count} resolutions not resolved again: the log does not hold the table they "
        "ran on (no welcome line before them, or events missing)",
    ),
    "unknown_kind": say.plural(
        "cli.verify.unresolved_unknown_kind",
        "{count} resolution not resolved again: an event before it is of a kind this "
        "version of rollbridge does not know (a newer version wrote the log, or it was "
        "altered), so the table it ran on is not known here; check the log with the "
        "rollbridge that wrote it",
        "{count} resolutions not resolved again: an event before them is of a kind this "
        "version of rollbridge does not know (a newer version wrote the log, or it was "
        "altered), so the table they ran on is not known here; check the log with the "
        "rollbridge that wrote it",
    ),
    # Translators: a frame is one line of the log (an event as a client received it).
    "unknown_field": say.plural(
        "cli.verify.unresolved_unknown_field",
        "{count} resolution not checked whole: its frame has a field neither the protocol "
        "nor a dialect installed here knows (a newer version of rollbridge or an adapter "
        "not installed here wrote the log, or it was altered); it agrees resolved again "
        "without the field, but what the field says is not known here",
        "{count} resolutions not checked whole: their frames have a field neither the "
        "protocol nor a dialect installed here knows (a newer version of rollbridge or an "
        "adapter not installed here wrote the log, or it was altered); they agree resolved "
        "again without the field, but what the field says is not known here",
    ),
    # Translators: a frame is one line of the log; {count} frames. A dialect is a
    # VTT's form of the protocol (Foundry's); an adapter translates it.
    "dialect_version": say.plural(
        "cli.verify.unresolved_dialect_version",
        "{count} frame of a dialect not checked whole: what its adapter added is not what "
        "the adapter installed here makes of it, and the log says another version of the "
        "adapter wrote it",
        "{count} frames of a dialect not checked whole: what their adapter added is not "
        "what the adapter installed here makes of them, and the log says another version "
        "of the adapter wrote it",
    ),
    "withheld": say.plural(
        "cli.verify.unresolved_withheld",
        "{count} resolution not resolved again: this view withholds an NPC's numbers "
        "or its dice (only the GM's log checks it)",
        "{count} resolutions not resolved again: this view withholds an NPC's numbers "
        "or their dice (only the GM's log checks them)",
    ),
    "ruleset": say.plural(
        "cli.verify.unresolved_ruleset",
        "{count} resolution not resolved again: the table's ruleset is not installed "
        "here, or at another major version",
        "{count} resolutions not resolved again: the table's ruleset is not installed "
        "here, or at another major version",
    ),
    "words": say.plural(
        "cli.verify.unresolved_words",
        "{count} resolution not resolved again: it records newer words than the "
        "installed ruleset writes (data.words) — a newer version of the ruleset wrote "
        "it, or the log was altered; install the newer version to check it",
        "{count} resolutions not resolved again: they record newer words than the "
        "installed ruleset writes (data.words) — a newer version of the ruleset wrote "
        "them, or the log was altered; install the newer version to check them",
    ),
    "secret": say.plural(
        "cli.verify.unresolved_secret",
        "{count} event for the GM only, hidden from this view, was not checked (a secret "
        "roll or action, an approval request, or the GM's seed at a reveal: only the GM's "
        "log checks it)",
        "{count} events for the GM only, hidden from this view, were not checked (secret "
        "rolls or actions, approval requests, or the GM's seed at each reveal: only the "
        "GM's log checks them)",
    ),
    "turn_hooks": say.plural(
        "cli.verify.unresolved_turn_hooks",
        "{count} encounter event ran turn hooks whose resolutions are not resolved again",
        "{count} encounter events ran turn hooks whose resolutions are not resolved again",
    ),
}
# Translators: {count} events the GM approved (a player's request held for approval).
APPROVALS_HELD = say.plural(
    "cli.verify.approvals_held",
    "{count} event approved by the GM held to the request it names (the same requester "
    "and kind, settled once)",
    "{count} events approved by the GM held to the requests they name (the same "
    "requester and kind, each settled once)",
)
# Translators: {count} events the GM approved; "hidden" stand-ins are GM-only events
# as a player's view gets them; approval is a table setting's name: keep it.
APPROVALS_UNSEEN = say.plural(
    "cli.verify.approvals_stand_in",
    "{count} event approved by the GM names a request this log shows only as a hidden "
    "stand-in: checked that the stand-in comes before it, changed no actor, is not the "
    "GM's seed of a reveal, fell while the table held players' requests (its setting "
    "approval on, where the log shows it), that a player asked and that the request is "
    "settled once; what the request was and whose is the server's word, and its dice, on "
    "the GM's stream, only the GM's log checks",
    "{count} events approved by the GM name requests this log shows only as hidden "
    "stand-ins: checked that each stand-in comes before its approval, changed no actor, is "
    "not the GM's seed of a reveal, fell while the table held players' requests (its "
    "setting approval on, where the log shows it), that a player asked and that each "
    "request is settled once; what the requests were and whose is the server's word, and "
    "their dice, on the GM's stream, only the GM's log checks",
)
# Translators: {count} events the GM approved whose requests were held before the
# log's first line (an export from a later seq).
APPROVALS_BEFORE_LOG = say.plural(
    "cli.verify.approvals_before_log",
    "{count} event approved by the GM names a request held before this log's first line: "
    "checked only that a player asked, that the request's seq is before the log and that "
    "the log settles it once; that a request was held at that seq, whose it was and what "
    "it asked is the server's word (the log's first line shows the table without its "
    "requests), and in a player's log its dice, on the GM's stream, only the GM's log "
    "checks",
    "{count} events approved by the GM name requests held before this log's first line: "
    "checked only that a player asked, that each request's seq is before the log and that "
    "the log settles each once; that requests were held at those seqs, whose they were "
    "and what they asked is the server's word (the log's first line shows the table "
    "without its requests), and in a player's log their dice, on the GM's stream, only "
    "the GM's log checks",
)
# Translators: {count} events the GM approved whose requests were held while the
# client that wrote the log was away (between its lines and a later welcome).
APPROVALS_MISSED = say.plural(
    "cli.verify.approvals_missed",
    "{count} event approved by the GM names a request at a seq this log does not hold, "
    "after its first line (an event the client missed, before a later welcome line): "
    "checked only that a player asked and that the log settles it once; that a request "
    "was held at that seq, whose it was and what it asked is the server's word, and in a "
    "player's log its dice, on the GM's stream, only the GM's log checks",
    "{count} events approved by the GM name requests at seqs this log does not hold, "
    "after its first line (events the client missed, before a later welcome line): "
    "checked only that a player asked and that the log settles each once; that requests "
    "were held at those seqs, whose they were and what they asked is the server's word, "
    "and in a player's log their dice, on the GM's stream, only the GM's log checks",
)
# Translators: {count} events (seqs) a client's log does not hold, skipped at a
# welcome line; {seqs} the seqs, as runs ('9–12, 30'); "welcome" is the protocol's
# message, kept as it is.
UNRECEIVED = say.plural(
    "cli.verify.unreceived",
    "{count} event after this log's first line is in none of its lines, skipped at a "
    "later welcome line (a new connection, which did not get the events it missed): seq "
    "{seqs}; that the client was away then is that welcome's word, and what the event "
    "was only the GM's log shows",
    "{count} events after this log's first line are in none of its lines, skipped at "
    "later welcome lines (new connections, which did not get the events they missed): "
    "seqs {seqs}; that the client was away then is those welcomes' word, and what the "
    "events were only the GM's log shows",
)
# Translators: {count} events the GM approved, held to requests that only a GM's
# welcome line lists (its pending); "welcome" is the protocol's message, kept as it is.
APPROVALS_WELCOMED = say.plural(
    "cli.verify.approvals_welcomed",
    "{count} of them is held to a request only a GM's welcome line lists (its pending; "
    "no line of this log shows the request): that it was held, whose it was and what it "
    "asked is that welcome's word, and another log of the table (an export, a player's "
    "log) shows what its seq was",
    "{count} of them are held to requests only a GM's welcome line lists (its pending; "
    "no line of this log shows them): that they were held, whose they were and what they "
    "asked is that welcome's word, and another log of the table (an export, a player's "
    "log) shows what their seqs were",
)
# Translators: {count} hidden stand-ins that an approval or a rejection names as
# requests; approval is a table setting's name: keep it.
STAND_INS_UNPROVEN = say.plural(
    "cli.verify.stand_ins_unproven",
    "{count} of the requests so told passes every check this log allows, yet could be a "
    "secret roll or action the GM made while approval was on, passed off as a player's "
    "request: only the GM's log shows what it was (a client's own requests are tied to "
    "their stand-ins by the server's replies, where its log keeps them)",
    "{count} of the requests so told pass every check this log allows, yet each could be "
    "a secret roll or action the GM made while approval was on, passed off as a player's "
    "request: only the GM's log shows what they were (a client's own requests are tied to "
    "their stand-ins by the server's replies, where its log keeps them)",
)
# Translators: {count} hidden stand-ins that are this client's own requests.
STAND_INS_OWN = say.plural(
    "cli.verify.stand_ins_own",
    "{count} of the requests so told is this client's own, as the server's reply to it "
    "says (the id it was held as)",
    "{count} of the requests so told are this client's own, as the server's replies to "
    "them say (the ids they were held as)",
)
# Translators: {count} resolutions this rollbridge or the rulesets installed here
# could not check; {advice} says what would check them (INCOMPLETE_ADVICE, joined by
# "; "); the verifier says the log is neither forged nor verified.
INCOMPLETE = say.plural(
    "cli.verify.incomplete_advised",
    "INCOMPLETE: no mismatch found, but {count} resolution could not be checked here "
    "(above): the log is not verified; {advice} (exit status 3)",
    "INCOMPLETE: no mismatch found, but {count} resolutions could not be checked here "
    "(above): the log is not verified; {advice} (exit status 3)",
)
#: What would check the resolutions left for each reason of :data:`INCOMPLETE_REASONS`:
#: a newer ruleset only for newer words or a ruleset not installed; an event kind or a
#: turn hook's kind, or a frame's field, is rollbridge's, never a ruleset's, so a
#: renamed kind (a line altered) is not taken for a ruleset's newer version.
INCOMPLETE_ADVICE = {
    # Translators: data.words is an event's field, kept as it is.
    "words": say(
        "cli.verify.advice_words",
        "install the ruleset's newer version that wrote what data.words records and run "
        "verify again",
    ),
    # Translators: "welcome" is the protocol's message, kept as it is.
    "ruleset": say(
        "cli.verify.advice_ruleset",
        "install the table's ruleset, at the major version the log's welcome line names, "
        "and run verify again",
    ),
    "unknown_kind": say(
        "cli.verify.advice_unknown_kind",
        "an event's kind is rollbridge's, not a ruleset's, so no ruleset installed makes "
        "it known: run verify with the newer rollbridge that wrote the log; if this "
        "version wrote it, the kind was renamed and the line altered (compare it with "
        "an export of the table)",
    ),
    "turn_hooks": say(
        "cli.verify.advice_turn_hooks",
        "an encounter event's kind is rollbridge's, not a ruleset's: run verify with the "
        "newer rollbridge that wrote the log; if this version wrote it, the line was "
        "altered",
    ),
    "dialect_version": say(
        "cli.verify.advice_dialect_version",
        "run verify with the rollbridge (and adapter) version the log's welcome names; "
        "if that is this one, the welcome's version was altered",
    ),
    # Translators: a frame is one line of the log (an event as a client received it).
    "unknown_field": say(
        "cli.verify.advice_unknown_field",
        "a frame's fields are rollbridge's and its adapters', not a ruleset's: run verify "
        "with the newer rollbridge (or the adapter) that wrote the log; if this version "
        "wrote it, the field was added and the line altered",
    ),
}
#: The reasons a resolution was not resolved again that a verifier with the right
#: rulesets installed would have checked: a log with such a resolution and no
#: mismatch is incomplete (exit status 3), neither verified nor forged.
INCOMPLETE_REASONS = (
    "unknown_kind", "unknown_field", "words", "ruleset", "turn_hooks", "dialect_version",
)  # fmt: skip
#: At most this many runs of :data:`UNRECEIVED` are named (the rest: "…").
UNRECEIVED_RUNS = 10
#: verify's exit status where a plugin installed here could not be loaded or registered
#: (a broken plugin, a refused adapter): the log was not checked, so neither 0 nor the
#: 1 of a mismatch, which a script would read as a forged log (docs/dice.md).
NOT_RUN = 4
# Translators: {count} hidden stand-ins (GM-only events as a player's view gets
# them); {seeds} and {requests} how many of them are each; dice.revealed is an
# event's kind: keep it.
STAND_INS_TOLD = say.plural(
    "cli.verify.stand_ins_told",
    "{count} hidden stand-in is told by the events around it: the GM's seeds of reveals "
    "(each just before its dice.revealed): {seeds}; requests held for the GM that an "
    "approval or a rejection names: {requests}",
    "{count} hidden stand-ins are told by the events around them: the GM's seeds of "
    "reveals (each just before its dice.revealed): {seeds}; requests held for the GM that "
    "an approval or a rejection names: {requests}",
)
# Translators: {count} events a player's view got as hidden stand-ins (GM-only events).
STAND_INS = say.plural(
    "cli.verify.stand_ins",
    "{count} hidden stand-in cannot be told from a player's roll the server hid and "
    "rolled again: the log does not say what each player asked for, so a player who "
    "misses a roll of theirs, or finds it rolled twice, can check it only in the GM's log",
    "{count} hidden stand-ins cannot be told from a player's roll the server hid and "
    "rolled again: the log does not say what each player asked for, so a player who "
    "misses a roll of theirs, or finds it rolled twice, can check it only in the GM's log",
)
NO_EVENTS = say(
    "cli.verify.no_events",
    "this log holds no events: an export of a table that has none is empty, and so is "
    "an export that failed before it wrote (check that the table and the token are right)",
)
NOTHING = say(
    "cli.verify.nothing",
    "no verifiable dice in this log (is the table's setting verifiable on?)",
)


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add the ``verify`` sub-command."""
    verify = commands.add_parser(
        "verify",
        help=Help(
            say(
                "cli.help.verify",
                "check a table's event log (JSON Lines): its verifiable dice, and its "
                "resolutions resolved again with their dice",
            )
        ),
        description=Help(
            say(
                "cli.help.verify.description",
                "Check a table's event log (a client's, or 'rollbridge table export "
                "--format jsonl'): every die of a revealed segment is derived again from its "
                "seed, every roll's formula evaluated again on its dice, and every resolution "
                "whose inputs the log holds (its request, its dice, the table shown before it "
                "from the log's welcome line on) resolved again by the ruleset installed here "
                "and compared with the event as logged. Resolutions it cannot resolve again "
                "(an NPC's numbers withheld from a player's view, secret events, a ruleset not "
                "installed, a log without its welcome line) are counted "
                "apart by reason. Exit status: 0 nothing wrong, 1 a problem, 2 an unreadable "
                "file or a usage error, 3 incomplete: no problem, but resolutions this "
                "rollbridge and the rulesets installed here cannot check (newer words, a "
                "ruleset not installed, an event of a kind this version does not know, a "
                "frame's field that neither the protocol nor a dialect installed here "
                "knows), 4 not checked: a plugin installed here could not be loaded or "
                "registered (a broken plugin, a refused adapter).",
            )
        ),
    )
    verify.add_argument(
        "log",
        help=Help(say("cli.help.verify.log", "the events, one JSON object per line ('-': stdin)")),
    )
    verify.add_argument(
        "--all",
        action="store_true",
        help=Help(say("cli.help.verify.all", "print every problem, not the first")),
    )
    verify.add_argument(
        "--json",
        action="store_true",
        help=Help(shared_help.JSON_REPORT),
    )
    add_locale_option(verify)
    verify.set_defaults(handler=_verify)


def read_log(path: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSON Lines file (blank lines skipped).

    :raises ValueError: naming the line that is not UTF-8 text, not JSON (a number
        of more than 4300 digits too), or JSON nested too deep.
    """
    data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    entries = []
    raws = data.splitlines()
    for number, raw in enumerate(raws, start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            if number == len(raws) and _letter_cut(data, raw, exc):
                raise ValueError(CUT_OFF(path=path, line=number)) from None
            raise ValueError(NOT_TEXT(path=path, line=number)) from None
        if not line.strip():
            entries.append({})
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as exc:
            if number == len(raws) and _ends_early(data, line, exc):
                raise ValueError(CUT_OFF(path=path, line=number)) from exc
            raise ValueError(UNREADABLE(path=path, line=number, error=json_reason(exc))) from exc
        except ValueError as exc:  # a number of more than 4300 digits: Python's limit
            raise ValueError(UNREADABLE(path=path, line=number, error=value_reason(exc))) from exc
        except RecursionError:
            raise ValueError(TOO_DEEP(path=path, line=number)) from None
        if _refusal(entry):
            raise ValueError(ERROR_REPLY(path=path, line=number, code=entry["code"],
                                         message=entry["message"]))  # fmt: skip
        entries.append(entry if isinstance(entry, dict) else {})
    return entries


def _ends_early(data: bytes, line: str, error: json.JSONDecodeError) -> bool:
    """Whether the file's last line is JSON cut off (a file that does not end with a
    line break, whose JSON is whole up to where the text ends): what a download that
    stopped early leaves, which the parser calls an "unterminated string", a value
    "expected" at the end or where a word the cut shortened starts (``fa`` of
    ``false``), or an "invalid \\uXXXX escape" that the end cut short."""
    if data.endswith((b"\n", b"\r")):
        return False
    rest = line[error.pos :].rstrip()
    return (
        error.pos >= len(line.rstrip())
        or error.msg.startswith("Unterminated string")
        # a word cut short ("fa" of false, a minus sign without its number), or an
        # escape (u04 of the escape of the letter U+0423)
        or (bool(rest) and any(word.startswith(rest) for word in _WORDS))
        or (error.msg.startswith("Invalid \\uXXXX") and _ESCAPE_CUT.fullmatch(rest) is not None)
    )


#: The words JSON spells out, which a cut can leave part of, and a number's sign.
_WORDS = ("true", "false", "null", "-")
#: What is left of a ``\\uXXXX`` escape (after its backslash) that the end of the
#: text cut short.
_ESCAPE_CUT = re.compile(r"u[0-9A-Fa-f]{0,3}")


def _letter_cut(data: bytes, raw: bytes, error: UnicodeDecodeError) -> bool:
    """Whether the file's last line ends inside a letter's UTF-8 bytes (a download
    that stopped between them): the bytes are UTF-8 up to there, and the file does
    not end with a line break."""
    return (
        not data.endswith((b"\n", b"\r"))
        and error.reason == "unexpected end of data"
        and error.end == len(raw)
    )


def _refusal(entry: Any) -> bool:
    """Whether a line is the export's error reply (``{"code", "message"}``, what
    ``curl … > log.jsonl`` saves from a refused token or a missing ``format``), not
    an event or the table before it."""
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("code"), str)
        and isinstance(entry.get("message"), str)
        and not {"kind", "seq", "type"} & entry.keys()
    )


def _unreceived(runs: list[dict[str, Any]], epochs: int) -> Text:
    """:data:`UNRECEIVED` of ``runs`` (``{"epoch", "first", "last"}`` each); in a log
    of more than one epoch (``epochs``) each run names its epoch as a segment does
    (``9–11@2``): a restored table's epochs count their own seqs."""
    count = sum(run["last"] - run["first"] + 1 for run in runs)
    named = []
    for run in runs:
        first, last = run["first"], run["last"]
        seqs = str(first) if first == last else f"{first}–{last}"
        named.append(f"{seqs}@{run['epoch']}" if epochs > 1 else seqs)
    more = ["…"] if len(named) > UNRECEIVED_RUNS else []
    return UNRECEIVED(count=count, seqs=", ".join(named[:UNRECEIVED_RUNS] + more))


def render_report(report: Report, locale: str = "en", every: bool = False) -> list[str]:
    """The lines ``rollbridge verify`` prints, each control character in them shown,
    not obeyed (:func:`~rollbridge.visible.visible`): what they quote of the log (a
    welcome's commitment, a problem's value) is the word of whoever wrote the file."""
    lines = [
        SUMMARY(
            events=report.events,
            verified=report.verified_events,
            dice=report.verified_dice,
            supplied=report.supplied,
            withheld=report.withheld,
            hidden=report.hidden,
            unrevealed=report.unrevealed,
        ).render(locale)
    ]
    if report.gm_stream:
        lines.append(GM_STREAM(count=report.gm_stream).render(locale))
    if report.gm_stream_approved:
        lines.append(GM_STREAM_APPROVED(count=report.gm_stream_approved).render(locale))
    if report.retried:
        lines.append(RETRIED(count=report.retried).render(locale))
    if report.carried_matched:
        lines.append(CARRIED_MATCHED(count=report.carried_matched).render(locale))
    if report.carried:
        lines.append(CARRIED(count=report.carried).render(locale))
    if len(report.epochs) > 1:
        epochs = ", ".join(map(str, report.epochs))
        lines.append(EPOCHS(epochs=epochs).render(locale))
    for number, status in report.segments.items():  # in the order committed
        shown = STATUSES[status]() if status in STATUSES else status
        lines.append(SEGMENT(segment=number, status=shown).render(locale))
    for number, digest in report.welcomed.items():
        lines.append(WELCOMED(segment=number, commitment=digest).render(locale))
    if report.resolved:
        lines.append(RESOLVED(count=report.resolved).render(locale))
    for reason, count in report.unresolved.items():
        if count and reason in UNRESOLVED:
            lines.append(UNRESOLVED[reason](count=count).render(locale))
    if report.approvals_held:
        lines.append(APPROVALS_HELD(count=report.approvals_held).render(locale))
    if report.approvals_welcomed:
        lines.append(APPROVALS_WELCOMED(count=report.approvals_welcomed).render(locale))
    not_in_log = report.approvals_before_log + report.approvals_missed
    stand_in_approvals = report.approvals_unseen - not_in_log
    if stand_in_approvals:
        lines.append(APPROVALS_UNSEEN(count=stand_in_approvals).render(locale))
    if report.approvals_before_log:
        lines.append(APPROVALS_BEFORE_LOG(count=report.approvals_before_log).render(locale))
    if report.approvals_missed:
        lines.append(APPROVALS_MISSED(count=report.approvals_missed).render(locale))
    if report.unreceived:
        lines.append(_unreceived(report.unreceived, len(report.epochs)).render(locale))
    told = report.stand_in_seeds + report.stand_in_requests
    if told:
        said = STAND_INS_TOLD(
            count=told, seeds=report.stand_in_seeds, requests=report.stand_in_requests
        )
        lines.append(said.render(locale))
    if report.stand_in_own:
        lines.append(STAND_INS_OWN(count=report.stand_in_own).render(locale))
    if report.stand_in_requests - report.stand_in_own:
        unproven = report.stand_in_requests - report.stand_in_own
        lines.append(STAND_INS_UNPROVEN(count=unproven).render(locale))
    if report.hidden - told:
        lines.append(STAND_INS(count=report.hidden - told).render(locale))
    problems = sorted(report.problems, key=lambda p: (p.position, p.seq or 0))
    for problem in problems if every else problems[:1]:
        lines.append(PROBLEM(line=problem.position, message=problem.text).render(locale))
    if not report.events:
        lines.append(NO_EVENTS().render(locale))
    unchecked = incomplete(report)
    if report.ok and unchecked:
        lines.append(INCOMPLETE(count=unchecked, advice=_advice(report, locale)).render(locale))
    elif report.ok:
        revealed = "revealed" in report.segments.values()
        done = ALL_GOOD if report.verified_events else NONE_SEEN if revealed else NONE_YET
        lines.append((done if report.segments else NOTHING)().render(locale))
    return [visible(line) for line in lines]


def _advice(report: Report, locale: str) -> str:
    """What would check the resolutions ``report`` left incomplete, each reason's own
    (:data:`INCOMPLETE_ADVICE`), in ``locale``, in the order of
    :data:`INCOMPLETE_REASONS`."""
    found = [r for r in INCOMPLETE_REASONS if report.unresolved.get(r, 0)]
    return "; ".join(INCOMPLETE_ADVICE[r]().render(locale) for r in found)


def incomplete(report: Report) -> int:
    """How many resolutions of ``report`` the rulesets installed here could not check
    though a verifier with the right ones would have (:data:`INCOMPLETE_REASONS`): a
    log with any and no mismatch is incomplete, exit status 3."""
    return sum(report.unresolved.get(reason, 0) for reason in INCOMPLETE_REASONS)


def recheck(entries: list[dict[str, Any]], report: Report, host: PluginHost | None = None) -> None:
    """Resolve every resolution of ``entries`` again (:mod:`rollbridge.engine.recheck`,
    with the rulesets and adapters of ``host``, by default those installed here) and
    add what it found to ``report``. :raises PluginError: a plugin installed here
    could not be loaded or registered (``host`` not given)."""
    from rollbridge.adapter import plain_frame
    from rollbridge.engine.recheck import check_resolutions
    from rollbridge.export.dialects import check_dialects

    engine_log = logging.getLogger("rollbridge.engine")
    quiet = engine_log.disabled
    # a logged state the ruleset fails on is this log's mismatch, not a traceback here
    engine_log.disabled = True
    try:
        if host is None:
            from rollbridge.cli.offline import offline_host

            host = offline_host()
        dialects = list(host.adapters.values())
        plain = [plain_frame(entry, dialects) for entry in entries]
        check = check_resolutions(plain, host.rulesets)
    finally:
        engine_log.disabled = quiet
    report.resolved = check.checked
    report.unresolved = {r: check.skipped[r] for r in REASONS if check.skipped[r]}
    report.problems += check.problems
    dialects_check = check_dialects(entries, dialects)
    if dialects_check.other_version:
        report.unresolved["dialect_version"] = dialects_check.other_version
    report.problems += dialects_check.problems


def _verify(args: argparse.Namespace) -> int:
    try:
        entries = read_log(args.log)
    except OSError as exc:  # missing, a folder, unreadable: the system's words, no errno
        said = CANNOT_READ(path=str(args.log), problem=system_reason(exc))
        return _unreadable(args, RollbridgeError(said, code="cannot_read"))
    except (ValueError, UnicodeDecodeError) as exc:
        text = exc.args[0] if exc.args else None
        said = text if hasattr(text, "render") else str(exc)
        return _unreadable(args, UndecodableFrame(said))
    from rollbridge.cli.offline import offline_host

    try:
        host = offline_host()
    except PluginError as exc:  # nothing of the log checked: not a mismatch of it
        return _not_run(args, exc)
    report = verify_events(entries)
    recheck(entries, report, host)
    unchecked = incomplete(report)
    if args.json:
        print_json({**report.to_dict(args.locale), "complete": not unchecked})
    else:
        print("\n".join(render_report(report, args.locale, args.all)))
    return 1 if not report.ok else 3 if unchecked else 0


def _not_run(args: argparse.Namespace, error: PluginError) -> int:
    """The plugins installed here could not be loaded or registered (exit status 4:
    the log was not checked, neither verified nor forged): the error on stderr as
    every command's, with ``--json`` as JSON on stdout."""
    if args.json:
        print_error(error, args.locale)
    else:
        sys.stderr.write(f"rollbridge: error: {error.code}: {error_words(error, args.locale)}\n")
    return NOT_RUN


def _unreadable(args: argparse.Namespace, error: RollbridgeError) -> int:
    """A log that cannot be read (exit status 2): one line on stderr, without a code
    as it always was; with ``--json``, the error as JSON on stdout (``cannot_read``,
    ``undecodable``), as every command's error with ``--json``."""
    if args.json:
        print_error(error, args.locale)
    else:
        # the refusal a log holds is quoted: its controls shown, never obeyed
        sys.stderr.write(f"rollbridge: error: {visible(error.render(args.locale))}\n")
    return 2
