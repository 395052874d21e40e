"""Random but valid games at a verifiable table, their exports, and forgeries of them
(tests/dice/test_verify_fuzz_games.py).

:func:`play` plays one game from a seed on real SQLite files: a built-in ruleset's
table with ``verifiable`` on, its example actors (some a player's, some NPCs),
several players and the GM making rolls (public and secret), resolving the
ruleset's actions with their example parameters, running encounters (their orders
NPCs and players' characters mixed, turns ended by the GM or by the current actor's
player — not held for approval, which holds rolls and resolutions only — between
players' rolls and resolutions that are, their turn hooks rolling where the ruleset's
do), turning ``approval`` on and off,
approving and rejecting held requests, undoing and redoing, revealing; at a random
step the file is backed up, the game goes on (the history the backup loses), and the
backup is restored (``finish_restore``: a new epoch) and played on. Requests the
rules refuse are part of the game (their attempts, their refusals). Every source of
chance is the seed's: the dice key, each segment's nonce (the engine's
``os.urandom``, replaced while the game is played) and every choice.

:func:`exports` exports the lost history's file and the restored one as the GM and
as a player (``rollbridge table export --format jsonl``: every player's export is
the players' view, the same for each), whole and from a seq mid-game (``--since``).
:data:`FORGERIES` change such a log as someone with the file would: one die changed,
two lines swapped, a line dropped, an approval forged into a player's event (naming
an event that is no request, a settled request, or a stand-in a player's log tells is
none) or into the GM's, a rejection naming what is no request or said to be of
another requester or type than its request, a revealed segment's commitment changed, a
resolution's recorded words changed; each returns None where the log has no place for
it, and names the problem codes ``rollbridge verify`` must report.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from rollbridge.cli import main
from rollbridge.cli.offline import offline_host
from rollbridge.dice.verifiable import DiceKey
from rollbridge.engine import segments
from rollbridge.engine.model import Principal
from rollbridge.exceptions import RollbridgeError
from rollbridge.offline import TableService
from rollbridge.stores.backup import backup
from rollbridge.stores.sqlite import SQLiteStore

#: The built-in rulesets a game may be played with.
RULESETS = ("sr2", "bandits", "wilddie", "techlevel")
#: Rolls of dice notation the players and the GM make.
FORMULAS = ("1d20", "2d6 + 1", "4d6kh3", "3d6!", "1d8!! + 2", "2d10x", "6d6r<2", "d%")
GM = Principal("gm", "gm", "gm-token")
TABLE = "g"

Lines = list[dict[str, Any]]


def run(*argv: str) -> tuple[int, str]:
    """``rollbridge`` in this process: its exit status and what it printed."""
    out, err = StringIO(), StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue() + err.getvalue()


@contextmanager
def _nonces(rng: random.Random) -> Iterator[None]:
    """The engine's segment nonces from ``rng`` while the game is played."""
    kept = segments.os
    segments.os = SimpleNamespace(urandom=rng.randbytes)  # type: ignore[assignment]
    try:
        yield
    finally:
        segments.os = kept


class _Game:
    """One table being played: its service, players and actors, and the seed's choices."""

    def __init__(self, rng: random.Random, service: TableService, players: list[Principal]):
        self.rng, self.service, self.players = rng, service, players
        self.ruleset = service.table(TABLE).ruleset
        self.made = 0

    def send(self, who: Principal, message: dict[str, Any]) -> dict[str, Any] | None:
        """Send one request; a refusal is part of the game (None)."""
        self.made += 1
        try:
            return self.service.handle(TABLE, {**message, "id": f"q{self.made}"}, who)
        except RollbridgeError:
            return None

    def actors(self) -> list[dict[str, Any]]:
        return list(self.service.table(TABLE).view(gm=True)["actors"])

    def step(self) -> None:
        """One random request of the GM's or a player's."""
        rng = self.rng
        choice = rng.choices(
            ("roll", "resolve", "approve", "undo", "redo", "approval", "reveal", "verifiable",
             "encounter"),
            weights=(6, 6, 3, 1, 1, 1, 1, 0.3, 3),
        )[0]  # fmt: skip
        if choice == "roll":
            who = rng.choice([GM, *self.players])
            message: dict[str, Any] = {"type": "roll", "formula": rng.choice(FORMULAS)}
            if rng.random() < 0.25:
                message["secret"] = True
            self.send(who, message)
        elif choice == "resolve":
            self._resolve()
        elif choice == "encounter":
            self._encounter()
        elif choice == "approve":
            pending = self.service.table(TABLE).view(gm=True).get("pending") or []
            if pending:
                answer = rng.choice(("approve", "approve", "reject"))
                self.send(GM, {"type": answer, "request": rng.choice(pending)["pending"]})
        elif choice in ("undo", "redo"):
            self.send(GM, {"type": choice})
        elif choice in ("approval", "verifiable"):
            settings = self.service.table(TABLE).settings
            self.send(GM, {"type": "settings", "settings": {choice: not settings.get(choice)}})
            if choice == "verifiable" and not self.service.table(TABLE).settings.get(choice):
                self.send(GM, {"type": "settings", "settings": {choice: True}})
        else:
            self.send(GM, {"type": "dice.reveal"})

    def _encounter(self) -> None:
        """An encounter's step: the GM starts one (its order some of the actors, NPCs
        and players' characters mixed), or the turn ends — by the GM, or
        by the player of the current actor (never held: approval holds rolls and
        resolutions only), the new round's order given at times — or the GM reorders or
        ends it. Its turn hooks roll the ruleset's dice where they roll (wilddie's
        Shaken recovery; an NPC's on the GM's stream)."""
        rng = self.rng
        ids = [actor["id"] for actor in self.actors()]
        encounter = self.service.table(TABLE).view(gm=True).get("encounter")
        if not ids:
            return
        if not encounter:
            order = rng.sample(ids, rng.randint(1, len(ids)))
            self._shake(order)
            self.send(GM, {"type": "encounter.start", "order": order})
            return
        step = rng.choices(("next", "reorder", "end"), weights=(8, 1, 1))[0]
        if step == "next":
            current = encounter["order"][encounter["turn"]] if encounter["order"] else None
            controllers = next((a.get("controllers") or [] for a in self.actors()
                                if a["id"] == current), [])  # fmt: skip
            players = [p for p in self.players if p.name in controllers]
            who = rng.choice([GM, *players]) if players else GM
            message: dict[str, Any] = {"type": "encounter.next"}
            if who is GM and rng.random() < 0.2:
                message["order"] = rng.sample(ids, rng.randint(1, len(ids)))
            self.send(who, message)
        elif step == "reorder":
            self.send(GM, {"type": "encounter.reorder",
                           "order": rng.sample(ids, rng.randint(1, len(ids)))})  # fmt: skip
        else:
            self.send(GM, {"type": "encounter.end"})

    def _shake(self, order: list[str]) -> None:
        """Before an encounter, the GM marks some of its actors Shaken where the
        ruleset's state has the mark (wilddie: a Shaken character rolls to recover at
        the start of its turn, WD-9), so that turn hooks roll dice — no other built-in
        ruleset's do, and the games' damage seldom shakes anyone."""
        for actor in self.actors():
            state = actor.get("state") or {}
            if actor["id"] in order and "shaken" in state and self.rng.random() < 0.5:
                self.send(GM, {"type": "actor.update", "actor": actor["id"],
                               "state": {**state, "shaken": True}})  # fmt: skip

    def _resolve(self) -> None:
        """One of the ruleset's actions, its example parameters, by the GM or by the
        player of the acting actor."""
        rng, actors = self.rng, self.actors()
        name = rng.choice(sorted(self.ruleset.actions))
        spec = self.ruleset.actions[name]
        message: dict[str, Any] = {"type": "resolve", "action": name,
                                   "params": spec.example_in("en") or {}}  # fmt: skip
        actor = rng.choice(actors) if actors and spec.actor != "none" else None
        if actor is not None:
            message["actor"] = actor["id"]
        others = [a["id"] for a in actors if actor is None or a["id"] != actor["id"]]
        if not spec.every_actor and others:
            most = spec.max_targets if spec.max_targets is not None else len(others)
            count = min(len(others), max(spec.min_targets, rng.randint(0, max(most, 0))))
            message["targets"] = rng.sample(others, count)
        if rng.random() < 0.2:
            message["secret"] = True
        controllers = (actor or {}).get("controllers") or []
        players = [p for p in self.players if p.name in controllers]
        who = rng.choice(players) if players and not spec.gm_only else GM
        self.send(who, message)


def play(seed: int, folder: Path) -> tuple[Path, Path]:
    """Play the game of ``seed`` in ``folder``: the lost history's file and the
    restored backup's."""
    rng = random.Random(seed)
    host = offline_host()
    key = DiceKey(rng.randbytes(32))
    players = [Principal("player", f"p{n}", f"p{n}-token") for n in range(rng.randint(2, 4))]
    lost, restored = folder / "lost.db", folder / "restored.db"
    ticks = iter(range(1_000_000))
    clock = lambda: 1_800_000_000.0 + next(ticks)  # noqa: E731
    with _nonces(rng):
        with SQLiteStore(lost) as store:
            service = TableService(store, host, dice_key=key, clock=clock)
            settings = {"verifiable": True, "approval": rng.random() < 0.5}
            service.create_table(TABLE, rng.choice(RULESETS), settings=settings, table_id=TABLE)
            game = _Game(rng, service, players)
            for name, sheet in game.ruleset.example_sheets.items():
                owner = rng.choice([None, *players])
                actor = {"name": name, "sheet": dict(sheet),
                         "controllers": [owner.name] if owner else []}  # fmt: skip
                game.send(GM, {"type": "actor.create", "actor": actor})
            steps = rng.randint(12, 30)
            saved = rng.randrange(steps)
            for number in range(steps):
                game.step()
                if number == saved:
                    backup(lost, restored)
            game.send(GM, {"type": "dice.reveal"})
        with SQLiteStore(restored) as store:
            assert store.finish_restore() is not None
            service = TableService(store, host, dice_key=key, clock=clock)
            game = _Game(rng, service, players)
            game.made = 10_000  # request ids apart from the lost history's
            for _ in range(rng.randint(5, 20)):
                game.step()
            if rng.random() < 0.8:
                game.send(GM, {"type": "dice.reveal"})
    return lost, restored


def exports(folder: Path, files: tuple[Path, ...], rng: random.Random) -> dict[str, Lines]:
    """Each file's export as the GM and as a player, by name (``lost-gm``, …), and
    each from a seq ``rng`` chooses among its events' on (``--since``: an export that
    starts mid-game, its first line the table at that seq; ``lost-gm-since``, …)."""
    logs = {}
    for path in files:
        for who in ("gm", "player"):
            logs[f"{path.stem}-{who}"] = lines = _export(folder, path, who)
            seqs = [line["seq"] for line in lines if line.get("type") == "event"]
            since = str(rng.choice(seqs[:-1])) if len(seqs) > 1 else "0"
            logs[f"{path.stem}-{who}-since"] = _export(folder, path, who, "--since", since)
    return logs


def _export(folder: Path, path: Path, who: str, *more: str) -> Lines:
    """``rollbridge table export`` of ``path`` as ``who``, as lines."""
    out = folder / f"{path.stem}-{who}.jsonl"
    status, said = run("table", "export", TABLE, "--db", str(path), "--as", who,
                       "--format", "jsonl", "--out", str(out), *more)  # fmt: skip
    assert status == 0, said
    return [json.loads(line) for line in out.read_text().splitlines()]


def verify(folder: Path, lines: Lines) -> tuple[int, dict[str, Any]]:
    """``rollbridge verify --json`` on ``lines``: its exit status and report."""
    log = folder / "checked.jsonl"
    log.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    status, said = run("verify", str(log), "--json")
    return status, json.loads(said)


# -- forgeries ----------------------------------------------------------------------


def _events(lines: Lines) -> list[int]:
    """The indexes of the lines that are events."""
    return [n for n, line in enumerate(lines) if line.get("type") == "event"]


def _copy(lines: Lines) -> Lines:
    return json.loads(json.dumps(lines))


def changed_die(rng: random.Random, lines: Lines) -> tuple[Lines, set[str]] | None:
    """One drawn die of one event changed to another face."""
    places = [
        (n, d)
        for n in _events(lines)
        for d, (faces, _) in enumerate(_draws(lines[n]))
        if isinstance(faces, int) and faces > 1
    ]
    if not places:
        return None
    n, d = rng.choice(places)
    forged = _copy(lines)
    die = _draws(forged[n])[d]
    die[1] = rng.choice([face for face in range(1, die[0] + 1) if face != die[1]])
    return forged, {"wrong_die", "not_as_drawn", "wrong_roll", "wrong_resolution"}


def _draws(line: dict[str, Any]) -> list[list[int]]:
    draws = (line.get("data") or {}).get("draws")
    return draws.get("dice") or [] if isinstance(draws, dict) else []


def swapped(rng: random.Random, lines: Lines) -> tuple[Lines, set[str]] | None:
    """Two neighbouring events swapped."""
    events = _events(lines)
    pairs = [(a, b) for a, b in itertools.pairwise(events) if b == a + 1]
    if not pairs:
        return None
    a, b = rng.choice(pairs)
    forged = _copy(lines)
    forged[a], forged[b] = forged[b], forged[a]
    return forged, {"out_of_order"}


def dropped(rng: random.Random, lines: Lines) -> tuple[Lines, set[str]] | None:
    """An event taken out (not the last: what follows it shows the gap)."""
    events = _events(lines)[:-1]
    if not events:
        return None
    forged = _copy(lines)
    del forged[rng.choice(events)]
    return forged, {"missing"}


def _approval_off(lines: Lines) -> set[int]:
    """The seqs of the events made while the table's setting ``approval`` was off, as
    the log shows it: its first line's table, then each event's ``table_after``."""
    off, on = set(), None
    for line in lines:
        table = line.get("table") if line.get("type") == "welcome" else line.get("table_after")
        if line.get("type") == "event" and on is False:
            off.add(line["seq"])
        settings = table.get("settings") if isinstance(table, dict) else None
        if isinstance(settings, dict) and "approval" in settings:
            on = settings["approval"] is True
    return off


def _stand_ins(lines: Lines) -> dict[int, str]:
    """What a player's log tells of each ``hidden`` stand-in, by seq: ``seed`` (the
    GM's seed, just before a reveal), ``changed`` (it changed actors), ``off`` (made
    while ``approval`` was off), else ``plain`` (which may have been a request)."""
    events, off = _events(lines), _approval_off(lines)
    seeds = {
        lines[m]["seq"]
        for m, n in itertools.pairwise(events)
        if lines[n].get("kind") == "dice.revealed"
    }
    told = {}
    for n in events:
        line = lines[n]
        if line.get("kind") != "hidden":
            continue
        seq = line["seq"]
        told[seq] = ("off" if seq in off else "seed" if seq in seeds
                     else "changed" if line.get("actors") else "plain")  # fmt: skip
    return told


def _forged_approval(
    rng: random.Random, lines: Lines, kinds: tuple[str, ...], gm: bool = False
) -> tuple[Lines, set[str]] | None:
    """An event not approved said to be, naming an earlier line of one of ``kinds``
    (``_stand_ins``'s, ``public``: an event that is no request, ``settled``: a request
    an earlier event settled): a player's roll or resolution, or with ``gm`` the GM's
    (then each named stand-in is ``plain``: a request by no player)."""
    events, told = _events(lines), _stand_ins(lines)
    named = {  # the requests the log's approvals and rejections settle
        (lines[n].get("data") or {}).get(field) for n in events for field in ("approved", "pending")
    }
    choices = []
    for n in events:
        line = lines[n]
        data = line.get("data") or {}
        owner = str(line.get("by", ""))
        if (owner == "gm") != gm or (not gm and not owner.startswith("player")):
            continue
        if "approved_by" in data or line.get("kind") not in ("roll", "resolution"):
            continue
        for m in events:
            earlier = lines[m]
            if earlier["seq"] >= line["seq"] or earlier.get("epoch") != line.get("epoch"):
                continue
            settled = (earlier.get("data") or {}).get("approved")
            kind = told.get(earlier["seq"])
            public = kind is None and earlier.get("kind") != "approval.requested"
            if isinstance(settled, str) and "settled" in kinds:
                choices.append((n, settled, "settled_twice"))
            elif ("public" if public else kind) in kinds:
                choices.append((n, f"p{earlier['seq']}", "unheld_approval"))
            elif kind == "plain" and gm and f"p{earlier['seq']}" not in named:
                choices.append((n, f"p{earlier['seq']}", "other_request"))
    if not choices:
        return None
    n, request, code = rng.choice(choices)
    forged = _copy(lines)
    forged[n]["data"].update({"approved_by": "gm", "approved": request})
    return forged, {code}


def forged_approval(rng: random.Random, lines: Lines) -> tuple[Lines, set[str]] | None:
    """A player's event not approved said to be: naming an earlier event that is no
    request (``unheld_approval``) or a request an earlier event settled
    (``settled_twice``)."""
    return _forged_approval(rng, lines, ("public", "settled"))


def approved_seed(rng: random.Random, lines: Lines) -> tuple[Lines, set[str]] | None:
    """In a player's log, a player's event said to be approved, naming the GM's seed's
    stand-in just before a reveal (``unheld_approval``)."""
    return _forged_approval(rng, lines, ("seed",))


def approved_changed(rng: random.Random, lines: Lines) -> tuple[Lines, set[str]] | None:
    """In a player's log, a player's event said to be approved, naming a stand-in that
    changed actors (a secret resolution's: ``unheld_approval``)."""
    return _forged_approval(rng, lines, ("changed",))


def approved_off(rng: random.Random, lines: Lines) -> tuple[Lines, set[str]] | None:
    """In a player's log, a player's event said to be approved, naming a stand-in made
    while the setting ``approval`` was off (``unheld_approval``)."""
    return _forged_approval(rng, lines, ("off",))


def approved_gm(rng: random.Random, lines: Lines) -> tuple[Lines, set[str]] | None:
    """In a player's log, the GM's roll or resolution said to be approved, naming a
    stand-in no approval settles: only a player's request is held (``other_request``)."""
    return _forged_approval(rng, lines, (), gm=True)


def rejected_other(rng: random.Random, lines: Lines) -> tuple[Lines, set[str]] | None:
    """A rejection naming, instead of its request, an earlier event that is no request
    (a public one), or in a player's log a stand-in the log tells is none (the GM's
    seed, one that changed actors, one made while ``approval`` was off):
    ``unheld_rejection``."""
    events, told = _events(lines), _stand_ins(lines)
    choices = []
    for n in events:
        line = lines[n]
        if line.get("kind") != "approval.rejected":
            continue
        for m in events:
            earlier = lines[m]
            if earlier["seq"] >= line["seq"] or earlier.get("epoch") != line.get("epoch"):
                continue
            kind = told.get(earlier["seq"])
            if kind in ("seed", "changed", "off") or (
                kind is None and earlier.get("kind") != "approval.requested"
            ):
                choices.append((n, f"p{earlier['seq']}"))
    if not choices:
        return None
    n, request = rng.choice(choices)
    forged = _copy(lines)
    forged[n]["data"]["pending"] = request
    return forged, {"unheld_rejection"}


def changed_commitment(rng: random.Random, lines: Lines) -> tuple[Lines, set[str]] | None:
    """A commitment (a ``dice.committed`` event's, or the first line's) of a segment
    this log reveals, one hex digit changed: the seed no longer hashes to it."""
    revealed = {
        ((line.get("data") or {}).get("segment"), line["kind"])
        for line in lines
        if line.get("kind") in ("dice.revealed", "dice.revealed.gm")
    }
    places = []
    for n, line in enumerate(lines):
        if line.get("kind") == "dice.committed":
            where = line["data"]
        elif line.get("type") == "welcome" and isinstance(line["table"].get("dice"), dict):
            where = line["table"]["dice"]
            if not where.get("open"):
                continue
        else:
            continue
        for field, kind in (("commitment", "dice.revealed"), ("gm_commitment", "dice.revealed.gm")):
            if (where.get("segment"), kind) in revealed and isinstance(where.get(field), str):
                places.append((n, line.get("type") == "welcome", field))
    if not places:
        return None
    n, welcome, field = rng.choice(places)
    forged = _copy(lines)
    where = forged[n]["table"]["dice"] if welcome else forged[n]["data"]
    digit = rng.randrange(len(where[field]))
    old = where[field][digit]
    new = rng.choice([c for c in "0123456789abcdef" if c != old])
    where[field] = where[field][:digit] + new + where[field][digit + 1 :]
    return forged, {"wrong_seed"}


def changed_words(rng: random.Random, lines: Lines) -> tuple[Lines, set[str]] | None:
    """A resolution's or a turn hook's recorded words (``data.words``, sr2's 2) changed
    to words no server wrote it in: 1 written out (a server leaves words 1 out, and the
    texts are words 2's), or no whole number from 1. In a GM's log only (a player's
    withholds an event involving an NPC from the check), and not in an approved event
    (one whose request the log may not hold is not resolved again)."""
    if not lines or lines[0].get("role") != "gm":
        return None
    places = []
    for n in _events(lines):
        data = lines[n].get("data") or {}
        if "approved" in data:
            continue
        if "words" in data:
            places.append((n, None))
        hooks = data.get("hooks") if isinstance(data.get("hooks"), list) else []
        first = next((i for i, h in enumerate(hooks) if isinstance(h, dict) and "words" in h), None)
        if first is not None:
            places.append((n, first))
    if not places:
        return None
    (n, hook), words = rng.choice(places), rng.choice([1, 0, -1, "2", 2.0, True, None])
    forged = _copy(lines)
    data = forged[n]["data"]
    (data if hook is None else data["hooks"][hook])["words"] = words
    return forged, {"wrong_resolution"}


def rejected_requester(rng: random.Random, lines: Lines) -> tuple[Lines, set[str]] | None:
    """A rejection whose request the log shows (a GM's log: its
    ``approval.requested``) said to be another requester's, or of another type, than
    the request: ``other_request``."""
    requests = {
        line["seq"]: line["data"]["request"]
        for line in lines
        if line.get("type") == "event" and line.get("kind") == "approval.requested"
    }
    choices = []
    for n in _events(lines):
        data = lines[n].get("data") or {}
        pending = data.get("pending") if lines[n].get("kind") == "approval.rejected" else None
        if isinstance(pending, str) and int(pending[1:]) in requests:
            choices.append(n)
    if not choices:
        return None
    n = rng.choice(choices)
    forged = _copy(lines)
    data = forged[n]["data"]
    choice = rng.randrange(3)
    if choice == 0:
        data["requested_by"] = f"{data['requested_by']}-other"
    elif choice == 1:
        data["type"] = "resolve" if data["type"] == "roll" else "roll"
    else:  # the client's own id of another request (before dice-22: not compared)
        data["request"] = f"{data.get('request')}-other"
    return forged, {"other_request"}


def secret_public(rng: random.Random, lines: Lines) -> tuple[Lines, set[str]] | None:
    """A roll drawn on the public stream said to be secret (``gm_only``), as a player
    might pass off its own roll as one it was not: the server draws secret rolls on
    the GM's stream alone, ``gm_on_public`` (before dice-22: verified)."""
    choices = [
        n
        for n in _events(lines)
        if lines[n].get("kind") == "roll"
        and ((lines[n].get("data") or {}).get("draws") or {}).get("stream", "public") == "public"
        and _draws(lines[n])
    ]
    if not choices:
        return None
    forged = _copy(lines)
    forged[rng.choice(choices)]["gm_only"] = True
    return forged, {"gm_on_public"}


#: Each forgery by name: (its random choices, an honest log) → the forged log and the
#: codes of which verify must report one, or None where the log has no place for it.
FORGERIES: dict[str, Callable[[random.Random, Lines], tuple[Lines, set[str]] | None]] = {
    "die": changed_die,
    "swap": swapped,
    "drop": dropped,
    "approval": forged_approval,
    "approved seed": approved_seed,
    "approved changed": approved_changed,
    "approved off": approved_off,
    "approved gm": approved_gm,
    "rejected other": rejected_other,
    "rejected requester": rejected_requester,
    "secret public": secret_public,
    "commitment": changed_commitment,
    "words": changed_words,
}
