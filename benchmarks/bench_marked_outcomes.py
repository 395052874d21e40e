"""What reading a marked event's outcome for forms of no actor costs a decode.

Run from anywhere, with the Python rollbridge is developed with (3.11+)::

    python benchmarks/bench_marked_outcomes.py
    python benchmarks/bench_marked_outcomes.py --events 20000 --repeats 7

An event marked as read (``"forms": true``) marked from 6 December, 23:47 until 7
December, 19:17 UTC may hold a stored form of no actor as data: its outcome is walked
for one (:func:`rollbridge.engine.forms.holds_nobodys_form`) when its packed bytes
hold ``"of"`` null (:data:`rollbridge.engine.model.NOBODYS`). Timed here:
``Event.unpacked`` of ``--events`` packed sr2 attack resolutions (Tukan on the
guard, each with its outcome, none of no actor), in CPU time, the median of
``--repeats``: as it reads now; in the same run the code before (no walk:
``holds_nobodys_form`` answering False at once); and every marked outcome walked
(the bytes not looked at: what the walk alone would cost) — and the ratios.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from bench_state_undone import ALICE, ATTACK, tukan_and_the_guard

from rollbridge.engine import forms, model
from rollbridge.engine.model import Event
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.plain import unpack
from rollbridge.stores.memory import MemoryStore


def attacks(count: int) -> list[bytes]:
    """``count`` packed sr2 attack events, each marked, with its outcome."""
    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    service = TableService(MemoryStore(), host)
    tukan_and_the_guard(service, host)
    for n in range(50):
        service.handle("t", {**ATTACK, "id": f"a{n}"}, ALICE)
    events = service.store.events_after("t", 0) or []
    made = [e.packed() for e in events if "outcome" in e.data]
    assert made and all(b"forms" in blob for blob in made), "no marked outcome"
    return [made[n % len(made)] for n in range(count)]


def walked(blob: bytes) -> Event:
    """``blob``'s event, its marked outcome walked whatever its bytes hold."""
    return Event.from_dict(unpack(blob), nobodys=True)


def timed(blobs: list[bytes], repeats: int, decode: Callable[[bytes], Event]) -> float:
    """The median CPU milliseconds of decoding every one of ``blobs``."""
    times = []
    for _ in range(repeats):
        started = time.process_time()
        for blob in blobs:
            decode(blob)
        times.append(time.process_time() - started)
    return statistics.median(times) * 1000


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args(argv)
    blobs = attacks(args.events)
    walk = model.holds_nobodys_form
    assert walk is forms.holds_nobodys_form
    now = timed(blobs, args.repeats, Event.unpacked)
    always = timed(blobs, args.repeats, walked)
    model.holds_nobodys_form = lambda data: False  # the code before: no walk
    try:
        before = timed(blobs, args.repeats, Event.unpacked)
    finally:
        model.holds_nobodys_form = walk
    now_again = timed(blobs, args.repeats, Event.unpacked)  # the machine's drift
    print(f"{args.events} marked attack events decoded: now {now:.1f} ms (again "
          f"{now_again:.1f} ms), before {before:.1f} ms, every outcome walked "
          f"{always:.1f} ms; ratios to before {now / before:.3f} ({now_again / before:.3f}), "
          f"{always / before:.3f}")  # fmt: skip
    return {"now_ms": now, "before_ms": before, "walked_ms": always, "ratio": now / before}


if __name__ == "__main__":
    main()
