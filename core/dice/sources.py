"""Where dice results come from.

Every roll in rollbridge draws from a :class:`DiceSource` handed in by the
caller; nothing reads a global random generator. Three sources:

* :class:`SeededDice` — a seeded generator: tests and replays.
* :class:`SecureDice` — the operating system's generator: the server's default.
* :class:`ScriptedDice` — results supplied by the caller in order (a table
  that rolls physical dice, a test that needs exact values); each is checked
  against the die it is used for.

Every source counts the results it hands out and refuses to pass
``limit`` (10,000 by default) in one request, so an exploding d1 or a
hostile formula ends with :class:`~rollbridge.exceptions.DiceLimitExceeded`
at once instead of a hang.
"""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Iterable

from rollbridge.contract_codes import servers_own
from rollbridge.exceptions import (
    DiceLimitExceeded,
    DiceScriptError,
    DiceScriptExhausted,
    DiceScriptUnused,
    InvalidRequest,
)
from rollbridge.text import Messages

__all__ = [
    "MAX_FACES",
    "MAX_RESULTS_PER_REQUEST",
    "DiceSource",
    "ScriptedDice",
    "SecureDice",
    "SeededDice",
]

say = Messages("rollbridge")
FACES = say("dice.faces", "a die must have 1 to {limit} faces, not {faces}")
ROLLED_TOO_MANY = say.plural(
    "dice.rolled_too_many",
    "this request rolled more than {count} die (explosions included)",
    "this request rolled more than {count} dice (explosions included)",
)
NOT_WHOLE = say("dice.supplied_not_whole", "supplied die #{number} is {value}, not a whole number")
SUPPLIED_TOO_MANY = say.plural(
    "dice.supplied_too_many",
    "{count} die was supplied; at most {limit} are allowed",
    "{count} dice were supplied; at most {limit} are allowed",
)
EXHAUSTED = say.plural(
    "dice.exhausted",
    "the roll needs more dice than the {count} supplied (next: a d{faces})",
    "the roll needs more dice than the {count} supplied (next: a d{faces})",
)
CANNOT_SHOW = say(
    "dice.cannot_show", "supplied die #{number} is {value}, which a d{faces} cannot show"
)
# Translators: chosen by {unused}, the dice left over; {count} were supplied, {used} used.
UNUSED = say.plural(
    "dice.unused",
    "{unused} of the {count} supplied dice was not used (the roll used {used})",
    "{unused} of the {count} supplied dice were not used (the roll used {used})",
    count="unused",
)

#: Results one request may draw, explosions included.
MAX_RESULTS_PER_REQUEST = 10_000
#: The largest die any source rolls.
MAX_FACES = 1_000_000


class DiceSource:
    """Base of all dice sources: counts draws and enforces the per-request limit.

    Subclasses implement :meth:`_draw`. :meth:`roll` is the only method
    rulesets and the dice engine call.
    """

    def __init__(self, *, limit: int = MAX_RESULTS_PER_REQUEST) -> None:
        self.limit = limit
        self.drawn = 0

    def roll(self, faces: int) -> int:
        """One result of a die with ``faces`` faces, from 1 to ``faces``."""
        if faces < 1 or faces > MAX_FACES:
            raise InvalidRequest(FACES(limit=MAX_FACES, faces=faces), details={"faces": faces})
        if self.drawn >= self.limit:
            raise DiceLimitExceeded(
                ROLLED_TOO_MANY(count=self.limit),
                details={"limit": self.limit},
            )
        value = self._draw(faces)
        self.drawn += 1  # after the draw: a refused draw (scripted dice) hands out nothing
        return value

    def _draw(self, faces: int) -> int:  # pragma: no cover - abstract
        raise NotImplementedError

    def finish(self) -> None:
        """Called when a request is done with the source; scripted dice check leftovers."""

    @property
    def supplied(self) -> bool:
        """True when the results came from the caller rather than a generator."""
        return False


class SeededDice(DiceSource):
    """A reproducible source: the same seed gives the same results.

    A text seed is seeded by its UTF-8 bytes, as :class:`random.Random` seeds a text;
    a text that is not UTF-8 as well: a command line's (``--seed``), whose bytes that
    are not UTF-8 Python holds as lone surrogates, by the bytes given, and any other
    lone surrogate by its own three bytes. Such a seed once ended ``rollbridge roll``
    with a traceback."""

    def __init__(self, seed: int | str | None = 0, *, limit: int = MAX_RESULTS_PER_REQUEST) -> None:
        super().__init__(limit=limit)
        self.seed = seed
        self._random = random.Random(_seed_bytes(seed) if isinstance(seed, str) else seed).random

    def _draw(self, faces: int) -> int:
        return int(self._random() * faces) + 1


def _seed_bytes(seed: str) -> bytes:
    """The bytes a text seed stands for (:class:`random.Random` seeds a text and its
    UTF-8 bytes alike): a command line's bytes as given, any other lone surrogate
    as its three bytes."""
    try:
        return seed.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return seed.encode("utf-8", "surrogatepass")


#: Bytes read from the operating system's generator at a time, per thread.
RANDOM_BUFFER = 4096


class _RandomBytes(threading.local):
    """Bytes from ``os.urandom`` read :data:`RANDOM_BUFFER` at a time, each
    handed out once; one buffer per thread, so no lock and no byte is shared."""

    def __init__(self) -> None:
        self.data = b""
        self.position = 0

    def take(self, width: int) -> int:
        """The next ``width`` bytes as an unsigned integer."""
        end = self.position + width
        if end > len(self.data):
            self.data, self.position, end = os.urandom(RANDOM_BUFFER), 0, width
        value = int.from_bytes(self.data[self.position : end], "little")
        self.position = end
        return value


_random_bytes = _RandomBytes()


def _forget_buffer_after_fork() -> None:
    """A forked child must not hand out the parent's unread bytes again."""
    _random_bytes.data, _random_bytes.position = b"", 0


os.register_at_fork(after_in_child=_forget_buffer_after_fork)


class SecureDice(DiceSource):
    """The operating system's cryptographic generator; what a live table rolls with.

    Bytes come from ``os.urandom`` (the generator ``secrets`` uses), read
    4 KiB at a time rather than with one system call per die. A die takes
    one byte (up to 256 faces), two (up to 65,536) or four, and values past
    the largest multiple of its faces are thrown away and drawn again
    (rejection sampling), so every face is exactly as likely.
    """

    def _draw(self, faces: int) -> int:
        width = 1 if faces <= 0x100 else 2 if faces <= 0x10000 else 4
        span = 1 << (8 * width)
        cutoff = span - span % faces
        take = _random_bytes.take
        while True:
            value = take(width)
            if value < cutoff:
                return value % faces + 1


class ScriptedDice(DiceSource):
    """Results supplied in order by the caller, each checked against its die.

    :param results: the die results, in the order the roll will use them.
    :raises DiceScriptError: when a result cannot be shown by the die it is
        used for (a 7 on a d6).
    :raises DiceScriptExhausted: when the roll needs more results than supplied.
    :raises DiceScriptUnused: from :meth:`finish`, when results are left over.
    """

    def __init__(self, results: Iterable[int], *, limit: int = MAX_RESULTS_PER_REQUEST) -> None:
        super().__init__(limit=limit)
        values = list(results)
        for index, value in enumerate(values):
            if isinstance(value, bool) or not isinstance(value, int):
                raise DiceScriptError(
                    NOT_WHOLE(number=index + 1, value=repr(value)),
                    details={"index": index},
                )
        if len(values) > limit:
            raise DiceLimitExceeded(
                SUPPLIED_TOO_MANY(count=len(values), limit=limit),
                details={"limit": limit},
            )
        self.results = values
        self.position = 0

    @property
    def supplied(self) -> bool:
        return True

    @property
    def remaining(self) -> int:
        """How many supplied results have not been used yet."""
        return len(self.results) - self.position

    def _draw(self, faces: int) -> int:
        if self.position >= len(self.results):
            # the server's own refusal of the requester's dice, though a ruleset's
            # resolve drew the die: never marked the ruleset's (contract_codes)
            raise servers_own(
                DiceScriptExhausted(
                    EXHAUSTED(count=len(self.results), faces=faces),
                    details={"supplied": len(self.results), "faces": faces},
                )
            )
        value = self.results[self.position]
        if not 1 <= value <= faces:
            raise servers_own(
                DiceScriptError(
                    CANNOT_SHOW(number=self.position + 1, value=value, faces=faces),
                    details={"index": self.position, "value": value, "faces": faces},
                )
            )
        self.position += 1
        return value

    def finish(self) -> None:
        if self.remaining:
            raise DiceScriptUnused(
                UNUSED(unused=self.remaining, count=len(self.results), used=self.position),
                details={"supplied": len(self.results), "used": self.position},
            )
