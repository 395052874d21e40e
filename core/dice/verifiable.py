"""Verifiable dice: every server die derived from a committed seed (docs/dice.md,
"Verifiable dice").

A table in verifiable mode rolls in *segments*. Each segment has a secret 32-byte
seed; before any die uses it, the server publishes ``SHA-256(seed)`` (the
commitment) in a ``dice.committed`` event; when the segment ends, a
``dice.revealed`` event publishes the seed itself. Each die is then a function of
the seed and the die's place in the log:

* the *stream* of the event that records the die — ``(table, epoch, seq)`` — is a
  sequence of 32-byte blocks ``HMAC-SHA256(seed, "rollbridge-dice/v1\\0" + table +
  "\\0" + epoch + "\\0" + seq + "\\0" + block number)``, read as little-endian
  unsigned 64-bit words, one after another; after ``a`` requests were refused at that
  seq having drawn dice, ``seq`` is written ``seq.a`` (the event's ``draws`` say
  ``attempt: a``), so that what a refusal told of its dice says nothing of the
  dice the seq is then rolled with;
* a die of F faces takes the next word x; if ``x < 2^64 − (2^64 mod F)`` it shows
  ``x mod F + 1``, else the word is thrown away and the next one is taken
  (rejection sampling: every face exactly equally likely, no modulo bias). Every
  die drawn counts — explosions and rerolls are dice like any other.

The seed of segment k is itself ``HMAC-SHA256(key, "rollbridge-seed/v1\\0" + table
+ "\\0" + epoch + "\\0" + k + "\\0" + nonce)`` for the server's dice key
(:class:`DiceKey`, kept outside the store) and the segment's random nonce (kept in the
table's ``dice`` field): revealing one seed reveals neither the key nor any other
segment's seed. A segment opened before segments had a nonce (rollbridge of
2 December 2026, before the GM stream) was committed to ``HMAC-SHA256(key,
"rollbridge-seed/v1\\0" + table + "\\0" + epoch + "\\0" + k)``: its nonce is None,
and it has only the public stream.

:class:`VerifiableDice` is the :class:`~rollbridge.dice.sources.DiceSource` the
table engine rolls with while a segment is open; it records what it drew per seq
(``draws``), which the engine puts in the event (``data.draws``).
:func:`derive` is what a verifier runs.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import logging
import os
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import suppress
from pathlib import Path
from typing import Any

from rollbridge.dice.sources import MAX_RESULTS_PER_REQUEST, DiceSource
from rollbridge.exceptions import StoreError
from rollbridge.system_words import system_reason
from rollbridge.text import Messages

__all__ = [
    "SCHEME",
    "DiceKey",
    "VerifiableDice",
    "commitment",
    "derive",
    "key_path",
    "place_key",
    "segment_seed",
    "stream",
]

#: The name of this construction, in every ``dice.committed`` event.
SCHEME = "rollbridge-hmac-sha256-v1"
_WORD = 1 << 64
KEY_BYTES = 32

log = logging.getLogger("rollbridge.dice")
say = Messages("rollbridge")
# Translators: {path} is the key file; "dice_key_lost" is an error code, kept as it is.
BAD_KEY = say(
    "dice.bad_key",
    "{path} is not a dice key (64 hexadecimal digits): restore the file from the backup "
    "of the database, or, if it is lost, move it aside so that a new key is made "
    "(open verifiable segments then refuse dice with dice_key_lost)",
)
# Translators: {path} is the key file; {error} the system's (English) reason.
UNREADABLE_KEY = say(
    "dice.unreadable_key",
    "the dice key {path} cannot be read ({error}): give the server's user access to it, "
    "or restore it from the backup of the database",
)

# Translators: {path} is the key file; {error} the system's (English) reason.
UNWRITABLE_KEY = say(
    "dice.unwritable_key",
    "a new dice key cannot be written to {path} ({error}): give the server's user "
    "write access to its folder, or free space there",
)


def segment_seed(
    key: bytes, table: str, epoch: int, segment: int | str, nonce: str | None = ""
) -> bytes:
    """The seed of ``segment`` of ``table``'s ``epoch`` under the server's ``key``;
    ``nonce`` is the segment's random nonce (a table deleted and made again, or
    moved again, never reuses a seed); None for a segment opened before segments
    had one (its seed was derived without). ``segment`` ``"3:gm"`` names segment
    3's GM stream (secret rolls and rolls that involve an NPC)."""
    tail = "" if nonce is None else f"\0{nonce}"
    message = f"rollbridge-seed/v1\0{table}\0{epoch}\0{segment}{tail}".encode()
    return hmac.new(key, message, hashlib.sha256).digest()


def commitment(seed: bytes) -> str:
    """The published commitment to ``seed``: its SHA-256, in hex."""
    return hashlib.sha256(seed).hexdigest()


def stream(seed: bytes, table: str, epoch: int, seq: int, attempt: int = 0) -> Iterator[int]:
    """The 64-bit words of the dice of event ``seq``, at its ``attempt``-th try after
    requests refused having drawn dice (see the module docstring)."""
    place = f"{seq}.{attempt}" if attempt else str(seq)
    prefix = f"rollbridge-dice/v1\0{table}\0{epoch}\0{place}\0".encode()
    block = 0
    while True:
        digest = hmac.new(seed, prefix + str(block).encode(), hashlib.sha256).digest()
        for at in range(0, 32, 8):
            yield int.from_bytes(digest[at : at + 8], "little")
        block += 1


def next_die(words: Iterator[int], faces: int) -> int:
    """One die of ``faces`` faces from ``words``, by rejection sampling."""
    cutoff = _WORD - _WORD % faces
    for word in words:
        if word < cutoff:
            return word % faces + 1
    raise AssertionError("a stream never ends")  # pragma: no cover


def derive(
    seed: bytes, table: str, epoch: int, seq: int, faces: list[int], attempt: int = 0
) -> list[int]:
    """The results the dice ``faces`` (in draw order) of event ``seq`` (at its
    ``attempt``, the event's ``draws.attempt``) must show."""
    words = stream(seed, table, epoch, seq, attempt)
    return [next_die(words, f) for f in faces]


class DiceKey:
    """The server's secret from which every table's segment seeds are derived.

    :param secret: 32 bytes. :meth:`load` reads (or first creates) it from a file
        readable by its owner only; :meth:`ephemeral` makes one for a process
        that keeps nothing (its unrevealed seeds are lost when it exits).
    """

    def __init__(self, secret: bytes) -> None:
        if len(secret) != KEY_BYTES:
            raise ValueError(f"a dice key is {KEY_BYTES} bytes, not {len(secret)}")
        self._secret = secret
        #: Whether :meth:`load` made this key just now (the file was absent).
        self.created = False

    def __repr__(self) -> str:
        return "DiceKey(…)"  # never the secret, not even in a traceback

    def secret(self) -> bytes:
        """The 32 bytes (to compare with, or put back into, the store that keeps them)."""
        return self._secret

    def adopt(self, secret: bytes) -> bool:
        """Take ``secret`` in place of this key's, for every table holding this key:
        a process whose store's key changed under it (Redis lost its data and another
        process made a new one). Whether it differed.

        :raises ValueError: not 32 bytes."""
        if len(secret) != KEY_BYTES:
            raise ValueError(f"a dice key is {KEY_BYTES} bytes, not {len(secret)}")
        changed = secret != self._secret
        self._secret = secret
        return changed

    @classmethod
    def ephemeral(cls) -> DiceKey:
        """A fresh random key, kept nowhere."""
        return cls(os.urandom(KEY_BYTES))

    @classmethod
    def load(cls, path: str | Path) -> DiceKey:
        """The key in ``path``, created if absent: written (mode 0600) and synced under a
        temporary name, then linked into place and the folder synced, so that a crash
        leaves no key or a whole one (:attr:`created` is then true).

        :raises StoreError: ``path`` cannot be read or holds no key (code
            ``bad_dice_key``): never replaced, since verifiable tables' segments were
            committed under it.
        """
        path = Path(path)
        try:
            return cls._read_settled(path)
        except FileNotFoundError:
            pass
        secret = os.urandom(KEY_BYTES)
        if not place_key(path, secret):
            return cls._read_settled(path)
        key = cls(secret)
        key.created = True
        return key

    @classmethod
    def _read_settled(cls, path: Path) -> DiceKey:
        """:meth:`_read`, where an empty file is a claim of the no-hard-links path
        above: another process is about to put its key over it (wait for it, up to
        :data:`_CLAIM_WAIT` seconds), or died between the claim and the rename, its
        whole key left in its temporary file beside (that key is put in place). An
        empty file with neither is refused as any other (``bad_dice_key``)."""
        deadline = time.monotonic() + _CLAIM_WAIT
        while path.stat().st_size == 0 and time.monotonic() < deadline:
            time.sleep(0.05)
        if path.stat().st_size == 0:
            for left in sorted(path.parent.glob(f".{path.name}.*.tmp")):
                with suppress(OSError, StoreError, ValueError):
                    cls._read(left)  # a whole key: the creation the crash cut short
                    os.replace(left, path)
                    _sync_folder(path.parent)
                    break
        return cls._read(path)

    @classmethod
    def read_file(cls, path: str | Path) -> DiceKey:
        """The key in the file ``path``, never made there (``rollbridge migrate``
        reads the key beside the database it moves).

        :raises FileNotFoundError: no such file.
        :raises StoreError: it cannot be read, or holds no key (``bad_dice_key``),
            said in the reader's language.
        """
        return cls._read(Path(path))

    @classmethod
    def _read(cls, path: Path) -> DiceKey:
        """The key in ``path``. :raises FileNotFoundError: StoreError:"""
        try:
            text = path.read_text(encoding="ascii", errors="replace").strip()
        except FileNotFoundError:
            raise
        except OSError as exc:
            raise _unreadable(path, exc) from None
        try:
            return cls(bytes.fromhex(text))
        except ValueError:
            raise StoreError(
                BAD_KEY(path=str(path)), code="bad_dice_key", details={"path": str(path)}
            ) from None

    @classmethod
    def for_store(cls, store: object) -> DiceKey:
        """The key of a store: one the store keeps itself (``store.dice_secret()``:
        Redis, shared by every process on it); for a store kept in a file
        (``store.path``), the file beside it, ``<path>.dice-key`` (back it up with
        the database); else an ephemeral key."""
        kept = getattr(store, "dice_secret", None)
        if kept is not None:
            return cls(kept())
        path = getattr(store, "path", None)
        if path is None:
            return cls.ephemeral()
        file = key_path(path)
        key = cls.load(file)
        tables = getattr(store, "tables", None)
        # only a table with verifiable dice on has a segment the lost key committed to
        # (a file of a rollbridge from before verifiable dice gets its first key here)
        if key.created and tables is not None and any(_verifiable(t) for t in tables()):
            log.warning(
                "%s was missing, so a new dice key was made, but the database "
                "holds tables already (restored without its key file?): open segments "
                "of verifiable tables will refuse dice (dice_key_lost) until their GM "
                "ends them with dice.reveal; restore the key file beside the database "
                "to avoid that",
                file,
            )
        return key

    def seed(self, table: str, epoch: int, segment: int | str, nonce: str | None = "") -> bytes:
        """The seed of one segment's stream (:func:`segment_seed`)."""
        return segment_seed(self._secret, table, epoch, segment, nonce)


def _verifiable(info: Any) -> bool:
    """Whether a stored table (a :class:`~rollbridge.engine.model.TableInfo`) has the
    setting ``verifiable`` on."""
    settings = getattr(info, "settings", None)
    return isinstance(settings, Mapping) and bool(settings.get("verifiable"))


def key_path(db: str | os.PathLike[str]) -> Path:
    """The dice key file of the database ``db``: ``<db>.dice-key`` beside the file
    ``db`` really is (symlinks resolved, so a link to it shares its key); the one
    beside the link if only that exists (a key made before keys followed links)."""
    real = Path(f"{os.path.realpath(db)}.dice-key")
    given = Path(f"{db}.dice-key")
    if real != given and not os.path.exists(real) and os.path.exists(given):  # no errors
        return given
    return real


def place_key(path: Path, secret: bytes) -> bool:
    """Write ``secret`` as the key file ``path``: written (mode 0600) and synced under a
    temporary name, then linked into place and the folder synced, so that a crash
    leaves no key or a whole one; never over a file there (False then: another
    process's key, to be read). ``rollbridge migrate`` writes Redis's key with it.

    :raises StoreError: ``path`` cannot be written (``bad_dice_key``).
    """
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as file:
            file.write(secret.hex() + "\n")
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(temporary, path)  # never over a key another process just made
        except FileExistsError:
            return False
        except OSError as exc:
            if exc.errno not in _NO_LINKS:
                raise
            # no hard links here (some network and FAT file systems): claim the
            # name, then put the whole key over the claim
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except FileExistsError:
                return False
            os.replace(temporary, path)
        _sync_folder(path.parent)
    except OSError as exc:
        raise _unreadable(path, exc, UNWRITABLE_KEY) from None
    finally:
        with suppress(OSError):
            temporary.unlink()
    return True


def _unreadable(path: Path, exc: OSError, message: Any = UNREADABLE_KEY) -> StoreError:
    """The refusal of a key file the system would not read (or, with
    :data:`UNWRITABLE_KEY`, write)."""
    error = system_reason(exc)
    return StoreError(
        message(path=str(path), error=error),
        code="bad_dice_key",
        details={"path": str(path)},
    )


#: What :func:`os.link` fails with on a file system without hard links.
#: Seconds an empty key file (a claim) is given to become a key.
_CLAIM_WAIT = 2.0
_NO_LINKS = {errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.ENOSYS, errno.EXDEV}


def _sync_folder(folder: Path) -> None:
    """fsync a folder, so that a name just linked in it survives a crash."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover - a system without folder descriptors
        return
    try:
        os.fsync(descriptor)
    except OSError:  # pragma: no cover - a file system that cannot sync folders
        pass
    finally:
        os.close(descriptor)


class VerifiableDice(DiceSource):
    """Dice derived from a segment's seed, each in the stream of the event that
    will record it.

    :param seed: the open segment's seed.
    :param table: epoch: the table's id and epoch.
    :param next_seq: the seq of the event the next die will belong to (the
        engine's draft: the next event it will add).
    :param attempt: how many requests were refused at this seq having drawn dice
        (each such try rolls other dice: see the module docstring).
    """

    def __init__(
        self,
        seed: bytes,
        table: str,
        epoch: int,
        next_seq: Callable[[], int],
        *,
        attempt: int = 0,
        limit: int = MAX_RESULTS_PER_REQUEST,
    ) -> None:
        super().__init__(limit=limit)
        self._seed, self._table, self._epoch = seed, table, epoch
        self.attempt = attempt
        self._next_seq = next_seq
        self._words: dict[int, Iterator[int]] = {}
        #: What was drawn, per seq: ``[faces, result]`` in draw order.
        self.draws: dict[int, list[list[int]]] = {}
        #: The segment's stream the seed is of (``public`` or ``gm``), for the record.
        self.stream = "public"
        #: Raised at the first die instead of drawing it (the seed is not the one
        #: committed to: the server's dice key changed).
        self.refusal: Exception | None = None

    def __repr__(self) -> str:
        return f"VerifiableDice(table={self._table!r})"

    def _draw(self, faces: int) -> int:
        if self.refusal is not None:
            raise self.refusal
        seq = self._next_seq()
        words = self._words.get(seq)
        if words is None:
            words = self._words[seq] = stream(
                self._seed, self._table, self._epoch, seq, self.attempt
            )
        value = next_die(words, faces)
        self.draws.setdefault(seq, []).append([faces, value])
        return value
