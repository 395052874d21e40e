"""When ``rollbridge connect`` reconnects, and how soon: what each close code means to
a person at the terminal, the backoff of the attempts, and the words it says about
them (docs/protocol.md, "rollbridge connect after a close").

Loaded by :mod:`rollbridge.cli.connect` to read its options, so it loads neither
asyncio nor websockets nor the server's protocol: the close codes are written here
(a test holds them alike with the protocol's and the bundled client's).
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rollbridge.cli.helps import help_locale
from rollbridge.cli.waits import seconds_from
from rollbridge.text import Messages, Text

__all__ = [
    "CLOSE_LOST",
    "CLOSE_TRY_LATER",
    "DELAY_ENV",
    "ENDS_WELL",
    "RECONNECT_AFTER",
    "RECONNECT_FOR",
    "TRY_LATER",
    "Schedule",
    "asked_wait",
    "attempts_option",
    "close_status",
    "closed_text",
    "gap_text",
    "schedule_from",
]

say = Messages("rollbridge")
# Translators: {code} and {reason} are the WebSocket close code and the server's reason.
CLOSED = say("cli.terminal.closed", "connection closed ({code}: {reason})")
CLOSED_CODE = say("cli.terminal.closed_code", "connection closed ({code})")
CLOSED_NO_CODE = say("cli.terminal.closed_no_code", "connection closed (no code)")
# Translators: the connection ended without a close from the server: the server's
# process was killed, or the network between went away. 1006 is WebSocket's number
# for that: keep it.
LOST = say(
    "cli.terminal.lost",
    "connection lost (1006: no close from the server: it stopped, or the network failed)",
)
# Translators: after "connection closed (1013: …)" on the same line: the server asks
# its clients to come back (it was too busy, or the client fell behind).
ASKED = say.plural(
    "cli.terminal.reconnecting",
    "the server asks to reconnect: reconnecting (at most {count} attempt)",
    "the server asks to reconnect: reconnecting (at most {count} attempts)",
)
# Translators: after "connection closed (1001)" or "connection lost (…)" on the same
# line: the server stopped, restarts or failed, or the network did.
RECONNECTING = say.plural(
    "cli.terminal.reconnecting_after",
    "reconnecting (at most {count} attempt)",
    "reconnecting (at most {count} attempts)",
)
# Translators: {attempt} is the attempt's number (1, 2, …); {problem} why it failed.
ATTEMPT_FAILED = say("cli.terminal.attempt_failed", "reconnecting, attempt {attempt}: {problem}")
GAVE_UP = say.plural(
    "cli.terminal.gave_up",
    "could not reconnect in {count} attempt; the session ends",
    "could not reconnect in {count} attempts; the session ends",
)
# Translators: as cli.terminal.reconnecting, where the session tries for a time
# (--reconnect-for) rather than a number of attempts; {seconds} a whole number.
ASKED_FOR = say(
    "cli.terminal.reconnecting_for",
    "the server asks to reconnect: reconnecting (for up to {seconds} s)",
)
# Translators: as cli.terminal.reconnecting_after, where the session tries for a time.
RECONNECTING_FOR = say(
    "cli.terminal.reconnecting_after_for", "reconnecting (for up to {seconds} s)"
)
# Translators: as cli.terminal.gave_up, where the session tried for a time; {seconds}
# a whole number (--reconnect-for).
GAVE_UP_WITHIN = say.plural(
    "cli.terminal.gave_up_within",
    "could not reconnect in {count} attempt within {seconds} s; the session ends",
    "could not reconnect in {count} attempts within {seconds} s; the session ends",
)
# Translators: {seconds} a number; the server took the connection but did not answer
# the hello (it stalls, or the network does).
NO_WELCOME = say("cli.terminal.no_welcome", "no welcome within {seconds} s")
# Translators: {seq} the number of the last event shown before the connection closed.
RESUMED = say("cli.terminal.resumed", "resumed after #{seq}: what was missed follows")
# Translators: {seq} as above; the table as it is now is printed next (the events
# missed are too many, gone from the log, or of an earlier epoch: not shown one by one).
NOT_RESUMED = say(
    "cli.terminal.not_resumed", "could not resume after #{seq}: the table as it is now"
)
# Translators: {missing} the events' numbers (#5, or #5-#7: {count} of them), {seq}
# the last event shown: the ones missing never came, so the client reconnects to be
# sent them.
GAP = say.plural(
    "cli.terminal.gap",
    "{count} event did not come ({missing}): resuming after #{seq}",
    "{count} events did not come ({missing}): resuming after #{seq}",
)
# Translators: {epoch} a number: the table was restored from a backup or moved (its
# events count anew); {seq} the last event shown.
NEW_EPOCH = say("cli.terminal.new_epoch", "the table began epoch {epoch}: resuming after #{seq}")
# Translators: as cli.terminal.gap, where the session does not reconnect
# (--reconnect-attempts 0) but ends.
GAP_ENDS = say.plural(
    "cli.terminal.gap_ends",
    "{count} event did not come ({missing}); the session ends",
    "{count} events did not come ({missing}); the session ends",
)
# Translators: as cli.terminal.new_epoch, where the session ends.
NEW_EPOCH_ENDS = say(
    "cli.terminal.new_epoch_ends", "the table began epoch {epoch}; the session ends"
)
# Translators: as cli.terminal.gap, where no attempt is left: the next line says
# "could not reconnect in {count} attempts; the session ends".
GAP_LAST = say.plural(
    "cli.terminal.gap_last",
    "{count} event did not come ({missing})",
    "{count} events did not come ({missing})",
)
# Translators: as cli.terminal.new_epoch, where no attempt is left (as above).
NEW_EPOCH_LAST = say("cli.terminal.new_epoch_last", "the table began epoch {epoch}")
# Translators: after "argument --reconnect-attempts: "; {given} is its value as given.
BAD_ATTEMPTS = say("cli.connect.attempts", "give a whole number from 0 to 100, not {given}")
# Translators: {name} is the environment variable's name, {given} its value.
BAD_DELAY = say(
    "cli.connect.delay",
    "{name} takes the first reconnect's wait in seconds, from 0 to 60, not {given}",
)

#: Close code of a server that asks its clients to come back later and resume
#: (docs/protocol.md, "Close codes"): the protocol's own
#: (:data:`rollbridge.protocol.table.CLOSE_TRY_LATER`).
CLOSE_TRY_LATER = 1013
#: WebSocket's number for a connection that ended without a close frame: the
#: server's process was killed, the network went away (no answer to the library's
#: keepalive pings, 20 s apart, within 20 s).
CLOSE_LOST = 1006
#: Closes after which the server, or the way to it, may be back in a moment: the
#: session reconnects and resumes. 1001 the server stopping (a restart, an upgrade),
#: 1006 lost, 1011 the server failed, 1012 a service restart, 1013 try again later,
#: 1014 a proxy that could not reach the server. The bundled client
#: (``adapters/client/connection.mjs``) reconnects after these too.
RECONNECT_AFTER = frozenset({1001, CLOSE_LOST, 1011, 1012, CLOSE_TRY_LATER, 1014})
#: Closes that end the session as the other side meant it (a normal close, with
#: or without its code): status 0. Any other close (1008: the token refused or
#: revoked; 1009: a frame too large, which would be sent again; 1002, 1003, 1007,
#: 1010, 4000-4999, which ``rollbridge serve`` never sends) ends it with status 1.
ENDS_WELL = frozenset({1000, 1005})
#: Hello refusals for now (as the bundled client's ``TRANSIENT_HELLO``, held alike by
#: a test): the attempt failed, the next one may not. Any other (``unauthorized``:
#: the token was revoked meanwhile) ends the session.
TRY_LATER = frozenset(
    {
        "too_many_connections",
        "rate_limited",
        "busy",
        "store_error",
        "internal",
        "ruleset_unavailable",
    }
)
#: The longest ``retry_after`` of a refused hello an attempt waits, in seconds.
RETRY_AFTER_CAP = 60.0


def asked_wait(value: object) -> float:
    """The seconds a server's or proxy's ``retry_after`` asks to wait before the next
    attempt, capped at :data:`RETRY_AFTER_CAP`; 0 for anything that is no finite
    positive number (a boolean, NaN, a negative). Compared before it is made a float:
    a JSON welcome's whole number of hundreds of digits is no float."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return 0.0
    if value != value or value <= 0:  # NaN, or nothing to wait
        return 0.0
    return RETRY_AFTER_CAP if value >= RETRY_AFTER_CAP else float(value)


#: How long the attempts of an outage go on, in seconds, unless ``--reconnect-for``
#: (or ``--reconnect-attempts``, counting attempts instead) says otherwise: a server
#: restarted, or a Redis it waits for, takes minutes, not the 15 s five attempts took.
RECONNECT_FOR = 300.0
#: The environment variable that sets the wait before the first attempt, in seconds.
DELAY_ENV = "ROLLBRIDGE_RECONNECT_DELAY"
#: The wait before the first attempt, in seconds; each next one doubles it, up to
#: :data:`DELAY_CAP`: 0.5, 1, 2, 4, 8 s.
FIRST_DELAY = 0.5
DELAY_CAP = 8.0
#: The most of each that may be asked for.
MOST_ATTEMPTS = 100
MOST_DELAY = 60.0


@dataclass(frozen=True)
class Schedule:
    """The backoff of reconnecting: how long the attempts of one outage go on —
    ``within`` seconds from its first, or, if ``attempts`` is given, that many — and
    the wait before the first (doubled for each next one, up to :data:`DELAY_CAP` or
    the first wait if longer; each waited between its half and its whole, at random,
    so that a server's clients do not all come at once). ``clock`` tells the time
    (seconds, only its differences count)."""

    attempts: int | None = None
    first: float = FIRST_DELAY
    within: float = RECONNECT_FOR
    clock: Callable[[], float] = time.monotonic

    def reconnects(self) -> bool:
        """Whether the session reconnects at all (not ``--reconnect-attempts 0`` nor
        ``--reconnect-for 0``)."""
        return bool(self.attempts) if self.attempts is not None else self.within > 0

    def spent(self, strikes: int, began: float | None) -> bool:
        """Whether an outage whose attempts began at ``began`` (``clock``'s time; None
        before its first) and made ``strikes`` may make no more."""
        if self.attempts is not None:
            return strikes >= self.attempts
        return not self.reconnects() or (began is not None and self.left(began) <= 0)

    def left(self, began: float | None) -> float:
        """The seconds an outage whose attempts began at ``began`` has left."""
        return self.within if began is None else self.within - (self.clock() - began)

    def heading(
        self, code: int | None, reason: str | None, strikes: int, began: float | None, locale: str
    ) -> str:
        """The line that says the connection closed and that the session reconnects:
        with at most so many attempts, or for up to so many seconds."""
        said: Text
        if self.attempts is not None:
            left = self.attempts - strikes
            said = (ASKED if code == CLOSE_TRY_LATER else RECONNECTING)(count=left)
        else:
            seconds = max(1, math.ceil(self.left(began)))
            said = (ASKED_FOR if code == CLOSE_TRY_LATER else RECONNECTING_FOR)(seconds=seconds)
        return f"{closed_text(code, reason, locale)}; {said.render(locale)}"

    def gave_up(self, strikes: int, locale: str) -> str:
        """The line that says the attempts are spent and the session ends."""
        if self.attempts is not None:
            return GAVE_UP(count=self.attempts).render(locale)
        return GAVE_UP_WITHIN(count=strikes, seconds=f"{self.within:g}").render(locale)

    def delay(self, attempt: int, draw: Callable[[], float] = random.random) -> float:
        """The wait before attempt ``attempt`` (0 for the first), in seconds."""
        ceiling = min(self.first * 2 ** min(attempt, 30), max(self.first, DELAY_CAP))
        return ceiling / 2 + draw() * ceiling / 2

    def wait(
        self,
        attempt: int,
        began: float | None,
        at_least: float = 0.0,
        draw: Callable[[], float] = random.random,
    ) -> float:
        """The wait before attempt ``attempt`` of an outage whose attempts began at
        ``began``: its :meth:`delay`, or ``at_least`` if longer (a refused hello's
        ``retry_after``), but never past the time the outage has left when it is tried
        for a time: the last attempt is made at the limit, not a wait after it."""
        wait = max(at_least, self.delay(attempt, draw))
        return wait if self.attempts is not None else max(0.0, min(wait, self.left(began)))


def attempts_option(text: str) -> int:
    """``--reconnect-attempts``: a whole number from 0 (never reconnect) to 100.

    :raises argparse.ArgumentTypeError: for anything else, naming the option and the
        value in the language of the command line (a usage error, exit status 2).
    """
    try:
        value = int(text)
    except ValueError:
        value = -1
    if not 0 <= value <= MOST_ATTEMPTS:
        said = BAD_ATTEMPTS(given=repr(text[:64])).render(help_locale())
        raise argparse.ArgumentTypeError(said)
    return value


def schedule_from(
    attempts: int | None, environ: Mapping[str, str], within: float = RECONNECT_FOR
) -> Schedule:
    """The schedule of ``attempts`` attempts (``--reconnect-attempts``), else of
    ``within`` seconds (``--reconnect-for``), the first waiting what
    :data:`DELAY_ENV` says (seconds, 0 to 60; default :data:`FIRST_DELAY`).

    :raises InvalidRequest: the variable holds anything else (naming it and its value).
    """
    first = seconds_from(environ, DELAY_ENV, MOST_DELAY, BAD_DELAY, zero=True)
    return Schedule(attempts, FIRST_DELAY if first is None else first, within)


def close_status(code: int | None) -> int | None:
    """The exit status a close with ``code`` ends the session with, or None: it
    reconnects (:data:`RECONNECT_AFTER`). ``None`` (no close seen at all: the
    client's own reading failed) ends it with 1."""
    if code in RECONNECT_AFTER:
        return None
    return 0 if code in ENDS_WELL else 1


def closed_text(code: int | None, reason: str | None, locale: str = "en") -> str:
    """``connection closed (1008: token revoked)``: the server's code and reason;
    ``connection lost (1006: …)`` when no close came."""
    if code is None:
        return CLOSED_NO_CODE().render(locale)
    if code == CLOSE_LOST and not reason:
        return LOST().render(locale)
    text = CLOSED(code=code, reason=reason) if reason else CLOSED_CODE(code=code)
    return text.render(locale)


def gap_text(
    last: tuple[int, int], came: tuple[int, int], locale: str, then: str = "resume"
) -> str:
    """The line that says the event ``came`` (epoch, seq) does not follow ``last``,
    the last one shown, and what follows: ``then`` ``"resume"``, that the session
    resumes after it; ``"end"``, that the session ends there (it makes no attempts);
    ``"last"``, nothing (no attempt is left: the next line says so)."""
    said: Text
    if came[0] != last[0]:
        if then == "end":
            said = NEW_EPOCH_ENDS(epoch=came[0])
        elif then == "last":
            said = NEW_EPOCH_LAST(epoch=came[0])
        else:
            said = NEW_EPOCH(epoch=came[0], seq=last[1])
        return said.render(locale)
    first, final = last[1] + 1, came[1] - 1
    missing = f"#{first}" if first == final else f"#{first}-#{final}"
    count = final - first + 1
    if then == "end":
        said = GAP_ENDS(count=count, missing=missing)
    elif then == "last":
        said = GAP_LAST(count=count, missing=missing)
    else:
        said = GAP(count=count, missing=missing, seq=last[1])
    return said.render(locale)
