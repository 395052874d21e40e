"""One sr2 attack's execute and stage against a 3d6 roll's, in one thread, timed.

Run from the repository's root, with the Python rollbridge is developed with::

    python benchmarks/bench_attack.py                 # µs a request: attack, roll
    python benchmarks/bench_attack.py --profile cumulative --top 45

The request mix of ``bench_server.py throughput`` taken apart: the benchmark's sr2
``attack`` (Tukan on the guard, Hackler, short range) and a ``3d6`` roll, each sent
``--requests`` times by the player on a table seeded in a SQLite file, through
``Table.execute`` (rules, dice, every audience's view packed), then the frames for
the table's six clients and the commit prepared for the store; the GM heals the
guard whenever an attack leaves it down. Dice are seeded, one ``SeededDice`` per
request. It prints the CPU time (``time.thread_time``) a request spends in
``execute`` and in the frames and the commit's preparation; ``--profile`` runs the
attacks once more under ``cProfile`` and prints its table, sorted as asked.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent))

__all__ = ["Mix", "main"]


class Mix:
    """A seeded sr2 table, its clients, and the benchmark's attack and roll."""

    def __init__(self, folder: Path) -> None:
        from bench_server import heal_request, make_host, open_mix_table, seed_sqlite

        from rollbridge.stores import SQLiteStore

        host = make_host()
        path = folder / "attack.db"
        seed_sqlite(path, 1, host)
        self.store = SQLiteStore(path)
        self.protocol, self.player, self.gm, self.members = open_mix_table(
            self.store, host, "t0000"
        )
        self.heal = heal_request(host)

    def run(self, first: int, count: int, kind: str) -> tuple[float, float]:
        """Send ``count`` requests of ``kind`` (``attack`` or ``roll``); the µs a
        request spent executing, and making the frames and the commit."""
        from bench_server import ATTACK, HEAL_STATUSES, ROLL

        from rollbridge.dice import SeededDice
        from rollbridge.engine import parse_request
        from rollbridge.protocol import Delivery
        from rollbridge.protocol.frames import decode

        table = self.protocol.table
        message = ATTACK if kind == "attack" else ROLL
        executing = staging = 0.0
        for n in range(first, first + count):
            decoded, _ = decode(msgpack.packb({**message, "id": f"r{n}"}))
            request = parse_request(decoded)
            started = time.thread_time()
            outcome = table.execute(request, self.player, SeededDice(n))
            executed = time.thread_time()
            deliveries = [Delivery(table, event) for event in outcome.events]
            for delivery in deliveries:
                for member in self.members:
                    delivery.frame(member)
            self.store.prepare(outcome.commit)  # type: ignore[arg-type]
            executing += executed - started
            staging += time.thread_time() - executed
            self._heal_if_down(deliveries, n, HEAL_STATUSES)
            for event in outcome.events:
                event.views.clear()
        return executing / count * 1e6, staging / count * 1e6

    def _heal_if_down(self, deliveries: list[Any], n: int, statuses: Any) -> None:
        from rollbridge.dice import SeededDice
        from rollbridge.engine import parse_request

        for delivery in deliveries:
            for actor in delivery.view(self.members[0].audience)["actors"]:
                if actor["id"] == "guard" and actor["common"]["status"] in statuses:
                    heal = parse_request({**self.heal, "id": f"h{n}"})
                    self.protocol.table.execute(heal, self.gm, SeededDice(n))

    def close(self) -> None:
        """Close the store."""
        self.store.close()


def main(argv: list[str] | None = None) -> dict[str, float]:
    """Time the attack and the roll (printed, and returned in µs a request); profile
    the attacks if asked."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000, help="of each kind (1000)")
    parser.add_argument("--warmup", type=int, default=300, help="attacks first, untimed")
    parser.add_argument("--profile", metavar="SORT", help="cProfile the attacks, sorted so")
    parser.add_argument("--top", type=int, default=45, help="rows of the profile (45)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-attack-") as folder:
        mix = Mix(Path(folder))
        try:
            mix.run(0, args.warmup, "attack")
            attack = mix.run(100_000, args.requests, "attack")
            roll = mix.run(200_000, args.requests, "roll")
            print("µs a request     execute  frames+commit")
            print(f"sr2 attack      {attack[0]:8.1f}  {attack[1]:13.1f}")
            print(f"3d6 roll        {roll[0]:8.1f}  {roll[1]:13.1f}")
            if args.profile:
                profile = cProfile.Profile()
                profile.enable()
                mix.run(300_000, args.requests, "attack")
                profile.disable()
                pstats.Stats(profile).sort_stats(args.profile).print_stats(args.top)
        finally:
            mix.close()
    return {
        "attack_execute_us": attack[0],
        "attack_frames_commit_us": attack[1],
        "roll_execute_us": roll[0],
        "roll_frames_commit_us": roll[1],
    }


if __name__ == "__main__":
    main()
