"""Instructions per request, counted by callgrind: a figure the machine's load cannot move.

The throughput benchmark (``bench_server.py throughput``) moves by ±10 % between
rounds on a shared VM, which hides any change worth a few percent. This one runs
the same request mix in one process — an sr2 ``attack`` (Tukan on the guard,
Hackler, short range) and a ``3d6`` roll in turn, the GM's heal
(``actor.update``) whenever the guard is down — through the same code the server
runs for a request: decode the frame, parse, the idempotency check, execute and
stage (rules, dice, every audience's view packed), the frames for the table's six
msgpack clients and the result, and the commit prepared for SQLite. No sockets
and no SQLite write: the in-process work of a request. Dice are seeded (one
``SeededDice`` per request), so the same code executes the same instructions.

``python benchmarks/bench_instructions.py`` runs itself twice under
``valgrind --tool=callgrind`` (``PYTHONHASHSEED=0``), once with no pairs (the
imports and the table's load) and once with ``--pairs`` pairs, and prints the
difference divided by the pairs: instructions per attack + roll pair (heals
included). It also prints a SHA-256 of every frame and prepared commit made, so
two versions of the code can show they put the same bytes on the wire and in
the store (the tables are seeded with a fixed epoch, so the digest is stable),
and one of the frames alone (a change of what the store writes moves the first,
never the second).

``--redis`` prepares each commit for the Redis store instead
(:func:`rollbridge.stores.redis.prepare` and the commit script's arguments,
:func:`~rollbridge.stores.redis.commit_args`, made against the table's last commit
as the store's writer makes them) and digests those arguments: the client's work of
a commit on ``serve --redis`` short of the socket (no Redis is needed; a version
whose ``commit_args`` takes no last commit makes them as it did).

``--run N`` runs the mix without valgrind (what the counted runs execute).
Needs valgrind (Debian: ``apt-get install valgrind``).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent))

__all__ = ["count_instructions", "run_mix"]

#: The epoch the benchmark's table is seeded with (the digest must not depend on the clock).
EPOCH = 1


def run_mix(
    pairs: int, group: int = 0, tables: int = 1, *, frames_only: bool = False, redis: bool = False
) -> str:
    """Run ``pairs`` attack + roll pairs (and the heals they call for) in-process;
    the SHA-256 of every frame and prepared commit made (``frames_only``: of every
    frame, which a change of what the store writes leaves as it was). With
    ``group``, the prepared commits are also written to SQLite, ``group`` per group
    commit (``commit_many``, as the server's writer thread does). The requests go to
    ``tables`` tables in turn, each with its own mix. ``redis``: the commits are
    prepared for the Redis store instead (the module docstring), never written."""
    from bench_server import (
        ATTACK,
        HEAL_STATUSES,
        ROLL,
        heal_request,
        make_host,
        open_mix_table,
        seed_sqlite,
    )

    from rollbridge.dice import SeededDice
    from rollbridge.engine import Table, parse_request
    from rollbridge.protocol import Delivery
    from rollbridge.protocol.frames import decode
    from rollbridge.protocol.members import result_frame
    from rollbridge.protocol.table import echo_id
    from rollbridge.stores import SQLiteStore

    digest = hashlib.sha256()
    host = make_host()
    for_redis = _for_redis() if redis else None
    with tempfile.TemporaryDirectory(prefix="bench-instructions-") as folder:
        path = Path(folder) / "mix.db"
        seed_sqlite(path, tables, host)
        store = SQLiteStore(path)
        try:
            with store._transaction(write=True) as conn:  # a fixed epoch: a stable digest
                conn.execute("UPDATE tables SET epoch = ?", (EPOCH,))
            opened = [open_mix_table(store, host, f"t{k:04d}") for k in range(tables)]
            heal = heal_request(host)
            asked = [0] * tables  # requests each table was sent
            need_heal = [False] * tables
            waiting: list = []
            for n in range(pairs * 2):
                k = n % tables
                protocol, player, gm, members = opened[k]
                table = protocol.table
                if need_heal[k]:
                    message, who, need_heal[k] = heal, gm, False
                else:
                    message, who = (ATTACK if asked[k] % 2 == 0 else ROLL), player
                asked[k] += 1
                asker = members[1] if who is gm else members[0]
                frame = msgpack.packb({**message, "id": f"r{n}"})
                decoded, _ = decode(frame)
                request = parse_request(decoded)
                key = Table.reply_key(who, request.id)
                if key in protocol._recent or key in protocol._keys:
                    raise SystemExit(f"request id {request.id} seen before")
                outcome = table.execute(request, who, SeededDice(n))
                deliveries = [Delivery(table, event) for event in outcome.events]
                for delivery in deliveries:
                    for member in members:
                        digest.update(bytes(delivery.frame(member)))
                reply = {"type": "result", "id": echo_id(decoded), **outcome.reply}
                if reply.pop("view", None) is not None and deliveries:
                    reply["event"] = deliveries[-1].view(asker.audience)
                last = deliveries[-1] if deliveries else None
                digest.update(bytes(result_frame(asker, reply, last)))
                if for_redis is not None:
                    args = for_redis(protocol.id, outcome.commit)
                    if not frames_only:
                        digest.update(b"".join(a for a in args if isinstance(a, bytes)))
                else:
                    prepared = store.prepare(outcome.commit)  # type: ignore[arg-type]
                    if not frames_only:
                        digest.update(prepared.events + prepared.state)
                        # the meta's fields, packed apart since schema 6 (before it, in state)
                        digest.update(b"".join(v for _, v in getattr(prepared, "meta", ())))
                if group:
                    waiting.append((protocol.id, prepared))
                    if len(waiting) == group or n == pairs * 2 - 1:
                        store.commit_many(waiting)
                        waiting = []
                if message is ATTACK and deliveries:
                    for actor in deliveries[-1].view(members[0].audience)["actors"]:
                        if actor["id"] == "guard" and actor["common"]["status"] in HEAL_STATUSES:
                            need_heal[k] = True
                for event in outcome.events:
                    event.views.clear()
        finally:
            store.close()
    return digest.hexdigest()


def _for_redis() -> Any:
    """``(table id, commit) -> ARGV`` of the Redis commit script, each commit made
    against the one before it of its table (when this version sends commits so)."""
    from rollbridge.stores import redis as module
    from rollbridge.stores.redis_keys import RedisKeys

    keys, last, sent = RedisKeys(), {}, getattr(module, "Sent", None)

    def make(table_id: str, commit: Any) -> list[Any]:
        p = module.prepare(commit)
        if sent is None:
            return module.commit_args(keys.table(table_id), "", p, 1000)[1]
        args = module.commit_args(keys.table(table_id), "", p, 1000, last.get(table_id))[1]
        last[table_id] = sent.of(p)
        return args

    return make


def count_instructions(
    pairs: int, valgrind: str = "valgrind", group: int = 0, tables: int = 1, redis: bool = False
) -> int:
    """Instructions callgrind counts for a run of ``pairs`` pairs (the whole process)."""
    with tempfile.TemporaryDirectory(prefix="bench-callgrind-") as folder:
        out = Path(folder) / "callgrind.out"
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        command = [valgrind, "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable,
                   str(Path(__file__).resolve()), "--run", str(pairs),
                   "--commit", str(group), "--tables", str(tables),
                   *(["--redis"] if redis else [])]  # fmt: skip
        done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"valgrind failed ({done.returncode}):\n{done.stderr[-2000:]}")
        found = re.search(r"Collected\s*:\s*(\d+)", done.stderr)
        if found is None:
            raise SystemExit(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
        return int(found.group(1))


def main(argv: list[str] | None = None) -> int:
    """Count, or with ``--run N`` only run the mix."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=100, help="attack + roll pairs (default 100)")
    parser.add_argument("--run", type=int, metavar="N", help="run N pairs, no valgrind")
    parser.add_argument("--valgrind", default="valgrind", help="the valgrind binary")
    parser.add_argument(
        "--commit", type=int, default=0, metavar="N",
        help="also write the commits to SQLite, N per group commit (the writer's "
        "instructions; the kernel's writes and fsyncs are not counted)",
    )  # fmt: skip
    parser.add_argument("--tables", type=int, default=1, help="tables the mix is spread over")
    parser.add_argument(
        "--frames", action="store_true", help="with --run: also the digest of the frames alone"
    )
    parser.add_argument(
        "--redis", action="store_true",
        help="prepare the commits for the Redis store instead (never written)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if args.redis and args.commit:
        parser.error("--redis prepares the commits only: give no --commit")
    if args.run is not None:
        print(run_mix(args.run, args.commit, args.tables, redis=args.redis))
        if args.frames:
            print(run_mix(args.run, args.commit, args.tables, frames_only=True, redis=args.redis))
        return 0
    if shutil.which(args.valgrind) is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    print(f"counting {args.pairs} pairs under callgrind (a minute or two) ...", file=sys.stderr)
    empty = count_instructions(0, args.valgrind, args.commit, args.tables, args.redis)
    full = count_instructions(args.pairs, args.valgrind, args.commit, args.tables, args.redis)
    per_pair = (full - empty) / args.pairs
    written = f", written {args.commit} per group commit" if args.commit else ""
    written += f", over {args.tables} tables" if args.tables != 1 else ""
    written += ", commits prepared for Redis" if args.redis else ""
    print(f"M instructions per attack + roll pair{written}: {per_pair / 1e6:.3f}")
    mixed = run_mix(args.pairs, args.commit, args.tables, redis=args.redis)
    print(f"frames and commits digest: {mixed}")
    frames = run_mix(args.pairs, args.commit, args.tables, frames_only=True, redis=args.redis)
    print(f"frames digest: {frames}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
