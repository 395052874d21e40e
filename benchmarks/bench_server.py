"""Benchmarks of the live server: throughput against a bare baseline, 6,000
connections at once, and the cost of compression.

Run from the repository root::

    python benchmarks/bench_server.py throughput             # (a) rollbridge vs baseline
    python benchmarks/bench_server.py throughput --profile   # + cProfile of the server
    python benchmarks/bench_server.py throughput --mix roll  # 3d6 rolls only (the floor)
    python benchmarks/bench_server.py scale                  # (b) 1,000 tables x 6 clients
    python benchmarks/bench_server.py compression            # permessage-deflate on vs off
    python benchmarks/bench_server.py MODE --json            # one JSON document on stdout

Every mode takes ``--help``. Results and their reading: docs/performance-server.md.

Processes. The server under test runs in a child process (``bench_server.py
_serve``, started with :mod:`asyncio.subprocess`), the load generator in this
one, so they never share an interpreter or a GIL. On a machine with two or more
CPUs the child is pinned to the last CPU and the load generator to the first
(``os.sched_setaffinity``; ``--no-pin`` turns it off): the server gets exactly
one core, its commit-writer thread included, and the load generator the other.
Both servers are measured the same way, so the ratio is one core's worth of
server against one core's worth of server. The figures report the CPU each side
used during the measurement (``/proc/<pid>/task/*/stat`` for the server, split
into the event-loop thread and the writer thread; ``time.process_time`` for the
load generator), which shows which side was the bottleneck.

The servers.

* ``rollbridge``: a real :class:`rollbridge.server.Server` on a real SQLite file
  (WAL, ``synchronous=FULL``: every group commit fsyncs) in a temporary
  directory, with the default dice (the secure generator) and the default
  limits. The tables are seeded before it starts, as ``tests/server`` does: an
  sr2 table with Tukan (controlled by the player, with his Hackler) and a guard
  (``Guard A`` of ``rollbridge rulesets sr2 --json``).
* ``baseline``: websockets + msgpack with the same options (max_size 64 KiB,
  max_queue 8, write_limit 32 KiB, compression off, pings every 20 s): it
  decodes each request, broadcasts a fixed event to every client of the
  request's table with ``websockets.broadcast``, and answers the requester with
  a fixed result carrying the request id. The fixed frames are the ones
  rollbridge sends for the same request type (captured from a real server at
  the start of the run), so both servers put the same bytes on the wire.

The load generator (:mod:`bench_server_wire`): one asyncio process, raw
WebSocket connections (handshake, zero-key masked frames, header-only parsing
of frames nobody reads), because websockets' own client costs about as much
per frame as the server, and the load generator must be the cheaper side.
Each table has six connections, all joined with ``hello`` and a token: the
player who sends the requests (alternately an sr2 ``attack``, Tukan on the
guard with the Hackler at short range, and a ``roll`` of ``3d6``; with
``--mix roll`` only the rolls), the GM
(who heals the guard with an ``actor.update`` to a fresh state whenever a
result shows it down, dying or dead, so attacks keep doing damage), and four
more players who only receive. Latency is from the send of a request to the
arrival of its result.

Where the time goes: ``throughput`` always breaks one request's CPU down step by
step in a single thread without sockets (``_costs``); ``--profile`` samples each
server with py-spy if it is installed (phases: :data:`LOOP_PHASES`), ``--cprofile``
runs rollbridge under cProfile. ``--variants`` (``throughput`` and ``scale``) also
runs servers with benchmark-only changes from :mod:`bench_server_variants`
(``sync-off``, ``default-gc``, ``as-is``: what durability costs, the collector
without its manager, the machine's noise).

Each figure is explained where it is printed; ``--json`` gives all of them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import math
import os
import platform
import resource
import secrets
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import types
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import msgpack
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_server_wire import WireClient, connect

from rollbridge.dice import SeededDice
from rollbridge.engine import Principal
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.plain import JSON
from rollbridge.server.limits import Limits
from rollbridge.stores import MemoryStore, SQLiteStore

GM = Principal("gm", "gm", "bench-setup")
HEAL_STATUSES = frozenset({"down", "dying", "dead"})
#: The six clients of a table: who they are, and whether they send requests.
ROLES = ("player", "gm", "player", "player", "player", "player")
ADDRESS = "127.0.0.1"
ATTACK = {
    "type": "resolve",
    "action": "attack",
    "actor": "tukan",
    "targets": ["guard"],
    "params": {"weapon": "Hackler", "range": "short"},
}
ROLL = {"type": "roll", "formula": "3d6"}
#: The request mixes ``throughput --mix`` offers: ``attack-roll`` (the benchmark's, and
#: issue 12's goal's: an attack and a roll in turn, heals as needed) and ``roll``
#: (only ``3d6`` rolls: the pipeline with almost no rules or texts, its floor).
MIXES = ("attack-roll", "roll")
#: The goals of issue 3, item 10.
GOAL_RATIO = 0.5
#: The goal of the core pipeline (issue 12, item 6): at most this much server CPU
#: per request, and at least this throughput ratio, durable commits on.
GOAL_PIPELINE_US = 300
GOAL_PIPELINE_RATIO = 0.30
GOAL_KB_PER_CONNECTION = 40.0
#: The hosted-server limits off that a load generator (thousands of connections
#: from one address, a few tokens, far more requests per second than a person
#: sends) would hit; everything else as `rollbridge serve` has it.
LOAD_TEST_LIMITS = Limits(
    per_address=None, per_token=None, rate_per_connection=None, rate_per_table=None
)


def make_host() -> PluginHost:
    """The built-in rulesets only (no third-party plugins found by entry point)."""
    return PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})


def fresh_guard_state(host: PluginHost) -> JSON:
    ruleset = host.rulesets["sr2"]
    return ruleset.initial_state(ruleset.validate_sheet(ruleset.example_sheets["Guard A"]))


def heal_request(host: PluginHost) -> JSON:
    return {"type": "actor.update", "actor": "guard", "state": fresh_guard_state(host)}


# -- the machine ---------------------------------------------------------------


def machine() -> JSON:
    model = "?"
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    memory = "?"
    with contextlib.suppress(OSError, ValueError, IndexError):
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f"{kb / 2**20:.0f} GB"
    return {
        "cpus": os.cpu_count(),
        "cpu": model,
        "memory": memory,
        "system": f"{platform.system()} {platform.release()} {platform.machine()}",
        "python": platform.python_version(),
        "websockets": websockets.__version__,
        "msgpack": ".".join(map(str, msgpack.version)),
        "sqlite": sqlite3.sqlite_version,
        "loadavg": [round(x, 2) for x in os.getloadavg()],
    }


def pin(cpu: int | None) -> None:
    if cpu is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {cpu})


def cpus_for(args: argparse.Namespace) -> tuple[int | None, int | None]:
    """(load generator CPU, server CPU), or Nones when not pinning."""
    count = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    if args.no_pin or count < 2:
        return None, None
    mine = sorted(os.sched_getaffinity(0))
    return mine[0], mine[-1]


def raise_nofile() -> int:
    """Raise the soft limit of open files to the hard limit; return it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    return soft


# -- seeding -------------------------------------------------------------------


class _BufferedStore:
    """Seeding only: a store whose commits wait in a list and are written
    together with ``commit_many`` (one transaction per chunk instead of one
    per request). Everything else goes to the SQLite store."""

    def __init__(self, store: SQLiteStore) -> None:
        self._store = store
        self.pending: list[tuple[str, Any]] = []

    def commit(self, table_id: str, commit: Any) -> None:
        self.pending.append((table_id, self._store.prepare(commit)))

    def flush(self) -> None:
        for start in range(0, len(self.pending), 512):
            self._store.commit_many(self.pending[start : start + 512])
        self.pending.clear()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def seed_tables(service: TableService, table_ids: Iterable[str]) -> dict[str, dict[str, str]]:
    """Create sr2 tables with Tukan (the player's) and a guard; their tokens by role."""
    sheets = service.host.rulesets["sr2"].example_sheets
    tokens = {}
    for table_id in table_ids:
        _, tokens[table_id] = service.create_table(f"Bench {table_id}", "sr2", table_id=table_id)
        for n, (actor_id, name, controllers) in enumerate(
            [("tukan", "Tukan", ["player"]), ("guard", "Guard A", [])]
        ):
            actor = {"id": actor_id, "name": name, "sheet": dict(sheets[name])}
            actor["controllers"] = controllers
            service.handle(table_id, {"type": "actor.create", "id": f"seed{n}", "actor": actor}, GM)
    return tokens


def seed_sqlite(
    path: Path, count: int, host: PluginHost
) -> tuple[dict[str, dict[str, str]], float]:
    """Seed ``count`` tables into a new SQLite file; (tokens, seconds taken)."""
    start = time.perf_counter()
    store = SQLiteStore(path)
    try:
        buffered = _BufferedStore(store)
        service = TableService(buffered, host)  # type: ignore[arg-type]
        tokens = seed_tables(service, (f"t{n:04d}" for n in range(count)))
        buffered.flush()
    finally:
        store.close()
    return tokens, time.perf_counter() - start


# -- typical frames, from a real server ----------------------------------------


async def capture_frames(host: PluginHost, rounds: int = 40) -> JSON:
    """Frames exactly as rollbridge sends them, from an in-process server on a
    memory store with seeded dice, in msgpack and JSON: the player's welcome, and
    the player's stream of events for ``rounds`` x (attack, roll) with the GM's
    heals in between; also one result of each request type (msgpack, for the
    baseline server)."""
    from rollbridge.server import Server

    store = MemoryStore()
    seeds = itertools.count(1)
    tokens = seed_tables(TableService(store, host), ["capture"])["capture"]
    server = Server(store, host, port=0, dice=lambda: SeededDice(next(seeds)), ping_interval=None,
                    limits=LOAD_TEST_LIMITS)  # fmt: skip
    await server.start()
    try:
        return {
            kind: await _capture(server.url, tokens, kind, host, rounds)
            for kind in ("msgpack", "json")
        }
    finally:
        await server.stop()


async def _capture(
    url: str, tokens: dict[str, str], kind: str, host: PluginHost, rounds: int
) -> JSON:
    from websockets.asyncio.client import connect as ws_connect

    def pack(message: JSON) -> bytes | str:
        return msgpack.packb(message) if kind == "msgpack" else json.dumps(message)

    def unpack(frame: bytes | str) -> JSON:
        return msgpack.unpackb(frame) if isinstance(frame, bytes) else json.loads(frame)

    options: JSON = {"max_size": None, "max_queue": 4096, "compression": None}
    player = await ws_connect(url, **options)
    gm = await ws_connect(url, **options)
    hello = {"type": "hello", "id": 1, "table": "capture"}
    await player.send(pack({**hello, "token": tokens["player"]}))
    welcome = await player.recv()
    await gm.send(pack({**hello, "token": tokens["gm"]}))
    await gm.recv()
    stream: list[tuple[str, bytes | str]] = []
    results: dict[str, bytes | str] = {}
    counter = itertools.count()

    async def request(who: Any, message: JSON, label: str) -> JSON:
        """Send a request; keep the event the player sees; return the result."""
        rid = f"{kind}-{next(counter)}"
        await who.send(pack({**message, "id": rid}))
        stream.append((label, await player.recv()))  # every request makes one event
        while True:  # the requester's result (the GM skips events it saw earlier)
            frame = await who.recv()
            decoded = unpack(frame)
            if decoded.get("id") == rid:
                results.setdefault(label, frame)
                return decoded

    for _ in range(rounds):
        result = await request(player, ATTACK, "attack")
        statuses = [a["common"]["status"] for a in result["event"].get("actors", [])]
        await request(player, ROLL, "roll")
        if HEAL_STATUSES.intersection(statuses):
            await request(gm, heal_request(host), "heal")
    await player.close()
    await gm.close()
    return {"welcome": welcome, "stream": stream, "results": results}


def baseline_replies(frames: JSON) -> JSON:
    """For the baseline server: per request type, the event frame it broadcasts
    and the result it answers (a frame rollbridge sent for that type; for the
    attack, one where the guard keeps standing, so the load generator never
    asks the baseline for a heal)."""
    stream = frames["msgpack"]["stream"]
    replies: JSON = {"welcome": frames["msgpack"]["welcome"]}
    for label, request_type in (("attack", "resolve"), ("roll", "roll"), ("heal", "actor.update")):
        for frame_label, frame in stream:
            if frame_label != label:
                continue
            event = msgpack.unpackb(frame)
            statuses = {a["common"]["status"] for a in event.get("actors", []) if "common" in a}
            if label == "attack" and statuses & HEAL_STATUSES:
                continue
            event.pop("type")
            event.pop("table")
            replies[request_type] = {"frame": frame, "event": event}
            break
    return replies


# -- where the time goes (py-spy) ------------------------------------------------

#: Phases of the event loop thread's work. A py-spy sample belongs to the first
#: phase (in this order) that any frame of its stack matches, so a phase holds
#: everything below it that no earlier phase claims.
LOOP_PHASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("texts: rendered per audience (text.py)", ("core/text.py",)),
    ("sr2 rules: resolve the attack", ("plugins/sr2/",)),
    ("dice: notation, secure source", ("core/dice/", "random.py", "secrets.py")),
    ("schema validation", ("core/schema.py",)),
    ("engine: event and table views", ("core/engine/views.py", "Table.view_event")),
    ("engine: stage, pack, apply", ("Table._stage", "core/plain.py")),
    ("engine: parse, execute", ("core/engine/",)),
    (
        "encode frames (frames.py, members.py)",
        ("core/protocol/frames.py", "core/protocol/members.py"),
    ),
    ("protocol: idempotency, commit, deliveries", ("core/protocol/",)),
    ("commit hand-off (writer.submit, callbacks)", ("core/server/writer.py",)),
    ("driver: carry effects, enqueue", ("core/server/app.py", "Client.enqueue")),
    ("receive: websockets reader, Client.run", ("data_received", "core/server/client.py")),
    ("baseline handler (bench_server.py)", ("_baseline_server",)),
    ("websockets (other)", ("websockets/",)),
    ("asyncio loop (other)", ("asyncio/",)),
)
WRITER_PHASES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("serialise the commit (prepare: to_dict, msgpack)", ("_prepare", "SQLiteStore.prepare")),
    (
        "SQL statements (commit_many, _snapshot)",
        ("SQLiteStore.commit_many", "SQLiteStore._snapshot", "SQLiteStore._head"),
    ),
    ("BEGIN / COMMIT (fsync of the WAL)", ("SQLiteStore._transaction",)),
    ("callbacks to the loop", ("call_soon_threadsafe",)),
)


def find_py_spy(option: str | None) -> str | None:
    return option or shutil.which("py-spy")


async def py_spy(binary: str, pid: int, seconds: float, output: Path) -> JSON | None:
    """Sample a process with py-spy (not pausing it) and sort the samples by phase."""
    process = await asyncio.create_subprocess_exec(
        binary,
        "record",
        "--pid",
        str(pid),
        "--duration",
        str(max(1, round(seconds))),
        "--rate",
        "400",
        "--format",
        "raw",
        "--output",
        str(output),
        "--threads",
        "--nonblocking",
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    _, error = await process.communicate()
    if process.returncode or not output.exists():
        log(f"  py-spy failed: {error.decode(errors='replace').strip()[-300:]}")
        return None
    return spy_summary(output.read_text())


def spy_summary(raw: str, top: int = 15) -> JSON:
    """Per thread: samples by phase and the hottest leaf functions."""
    phases: dict[str, Counter[str]] = {}
    leaves: dict[str, Counter[str]] = {}
    for line in raw.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        frames = stack.split(";")
        name = frames[0].split(": ", 1)[-1]
        thread = "loop" if name == "MainThread" else "writer" if "writer" in name else "other"
        table = WRITER_PHASES if thread == "writer" else LOOP_PHASES
        phase = next(
            (label for label, marks in table if any(m in f for f in frames[1:] for m in marks)),
            "other",
        )
        phases.setdefault(thread, Counter())[phase] += int(count)
        leaves.setdefault(thread, Counter())[frames[-1]] += int(count)
    out: JSON = {}
    for thread, counter in phases.items():
        total = sum(counter.values())
        out[thread] = {
            "samples": total,
            "phases": [
                {"phase": p, "share": round(n / total, 4)} for p, n in counter.most_common()
            ],
            "top_leaves": [
                {"function": f, "share": round(n / total, 4)}
                for f, n in leaves[thread].most_common(top)
            ],
        }
    return out


# -- the server under test (child process) -------------------------------------


def _rss_kb() -> dict[str, int]:
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(("VmRSS:", "VmHWM:")):
            fields[line.split(":")[0]] = int(line.split()[1])
    return {"rss_kb": fields["VmRSS"], "hwm_kb": fields["VmHWM"]}


class _Profiler:
    """cProfile of the event loop thread, and of the commit writer thread (its
    ``_write`` wrapped, on this benchmark's server instance only): cProfile
    sees only the thread it is enabled in."""

    def __init__(self, writer: Any) -> None:
        import cProfile

        self.loop = cProfile.Profile()
        self.writer_profile = cProfile.Profile()
        self.writer = writer
        if writer is not None:
            original = writer._write

            def profiled_write(batch: Any) -> None:
                self.writer_profile.enable()
                try:
                    original(batch)
                finally:
                    self.writer_profile.disable()

            writer._write = profiled_write
            self._original = original
        self.loop.enable()

    def stop(self, top: int, dump: str | None = None) -> JSON:
        self.loop.disable()
        if self.writer is not None:
            self.writer._write = self._original
        if dump:
            self.loop.dump_stats(f"{dump}.loop.pstats")
            self.writer_profile.dump_stats(f"{dump}.writer.pstats")
        return {
            "loop": _profile_figures(self.loop, top),
            "writer": _profile_figures(self.writer_profile, top // 2),
        }


def _profile_figures(profile: Any, top: int) -> JSON:
    import pstats

    try:
        stats = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    except TypeError:  # nothing was profiled
        return {"total_s": 0.0, "groups": [], "top_tottime": []}
    total = sum(tt for (_, _, tt, _, _) in stats.values()) or 1.0
    rows = []
    groups: Counter[str] = Counter()
    for (filename, line, name), (_, calls, tt, ct, _) in stats.items():
        groups[_group(filename, name)] += tt
        where = name if filename == "~" else f"{_short(filename)}:{line}({name})"
        rows.append((tt, ct, calls, where))
    rows.sort(reverse=True)
    return {
        "total_s": round(total, 3),
        "groups": [
            {"group": g, "share": round(t / total, 4), "s": round(t, 3)}
            for g, t in groups.most_common()
        ],
        "top_tottime": [
            {"function": f, "tottime_s": round(tt, 4), "cumtime_s": round(ct, 4), "calls": c}
            for tt, ct, c, f in rows[:top]
        ],
    }


ROOT = Path(__file__).resolve().parents[1]


def _short(filename: str) -> str:
    for marker in ("site-packages/", "/lib/python3.11/", f"{ROOT}/"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    return filename


def _group(filename: str, name: str) -> str:
    """Who owns a profiled function: a rollbridge module, a library, C code."""
    if filename == "~":
        for word, group in (
            ("msgpack", "msgpack"),
            ("json", "json"),
            ("sqlite3", "sqlite3"),
            ("socket", "socket"),
            ("epoll", "epoll"),
        ):
            if word in name:
                return f"C: {group}"
        return "C: other builtins"
    if "websockets/" in filename:
        return "websockets"
    if "/asyncio/" in filename:
        return "asyncio"
    if filename.startswith(f"{ROOT}/"):
        parts = Path(filename).relative_to(ROOT).parts
        if parts[0] == "core":
            return "rollbridge." + parts[1].removesuffix(".py")
        if parts[0] in ("plugins", "adapters") and len(parts) > 2:
            return f"rollbridge.{parts[0]}.{parts[1]}"
        return parts[0]
    return "other Python (stdlib)"


async def _baseline_server(
    replies: JSON, compression: str | None, ping_interval: float | None = 20.0
) -> tuple[Any, Callable]:
    """The bare server; returns (websockets server, client count)."""
    from websockets.asyncio.server import broadcast, serve

    tables: dict[str, set[Any]] = {}
    welcome = msgpack.unpackb(replies["welcome"])
    unpackb, packb = msgpack.unpackb, msgpack.Packer().pack
    seq = itertools.count(1)

    async def handler(connection: Any) -> None:
        members: set[Any] | None = None
        try:
            async for frame in connection:
                request = unpackb(frame)
                if members is None:  # hello: join the table
                    members = tables.setdefault(request["table"], set())
                    members.add(connection)
                    await connection.send(packb({**welcome, "id": request.get("id")}))
                    continue
                reply = replies.get(request.get("type")) or replies["roll"]
                broadcast(members, reply["frame"])
                result = {"type": "result", "id": request["id"], "status": "done"}
                result["seq"] = next(seq)
                result["event"] = reply["event"]
                await connection.send(packb(result))
        finally:
            if members is not None:
                members.discard(connection)

    server = await serve(
        handler,
        ADDRESS,
        0,
        max_size=64 * 1024,
        max_queue=8,
        write_limit=32 * 1024,
        compression=compression,
        ping_interval=ping_interval,
        ping_timeout=ping_interval,
        close_timeout=5,
    )
    return server, lambda: sum(len(m) for m in tables.values())


async def serve_main(args: argparse.Namespace) -> None:
    """The child: start a server, then answer commands (JSON lines on stdin)."""
    pin(args.cpu)
    raise_nofile()
    loop = asyncio.get_running_loop()
    compression = "deflate" if args.compression == "deflate" else None
    rollbridge_server = None
    if args.kind == "rollbridge":
        from rollbridge.server import Server

        store = SQLiteStore(args.db)
        rollbridge_server = Server(  # as `rollbridge serve` runs it, less the limits a
            # load generator on one address with a few tokens would hit at once
            store,
            make_host(),
            address=ADDRESS,
            port=0,
            compression=compression,
            manage_gc=True,
            limits=LOAD_TEST_LIMITS,
        )
        if args.variant:
            from bench_server_variants import apply

            apply(args.variant, rollbridge_server)
        await rollbridge_server.start()
        port = rollbridge_server.port
        writer_tid = rollbridge_server.writer._thread.native_id  # type: ignore[union-attr]

        def clients() -> int:
            return len(rollbridge_server.clients)  # type: ignore[union-attr]
    else:
        replies = msgpack.unpackb(Path(args.frames).read_bytes())
        server, clients = await _baseline_server(replies, compression)
        port = server.sockets[0].getsockname()[1]
        writer_tid = None
    reader = asyncio.StreamReader(limit=2**24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def answer(message: JSON) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    answer({"ready": True, "port": port, "pid": os.getpid(), "writer_tid": writer_tid})
    profiler: _Profiler | None = None
    pauses: list[tuple[int, float]] = []  # (generation, seconds) of each collection
    started: list[float] = []

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(time.perf_counter())
        elif started:
            pauses.append((info["generation"], time.perf_counter() - started.pop()))

    gc.callbacks.append(on_gc)
    while line := await reader.readline():
        command = json.loads(line)
        name = command["cmd"]
        if name == "rss":
            gc.collect()
            answer({**_rss_kb(), "clients": clients()})
        elif name == "load":  # open tables without any connection
            from rollbridge.protocol.effects import LoadTable
            from rollbridge.protocol.table import TableProtocol

            tables = rollbridge_server.tables  # type: ignore[union-attr]
            for table_id in command["tables"]:
                loaded = LoadTable(table_id=table_id).run(store)
                tables.open[table_id] = TableProtocol.open(
                    loaded, tables.rulesets, **tables.options
                )
            answer({"sessions": len(tables.open)})
        elif name == "gc":  # collections since the last call: count and pauses
            by_generation: dict[str, JSON] = {}
            for generation, seconds in pauses:
                entry = by_generation.setdefault(str(generation), {"count": 0, "max_ms": 0.0,
                                                                   "total_ms": 0.0})  # fmt: skip
                entry["count"] += 1
                entry["max_ms"] = round(max(entry["max_ms"], seconds * 1e3), 2)
                entry["total_ms"] = round(entry["total_ms"] + seconds * 1e3, 2)
            pauses.clear()
            answer({"collections": by_generation, "objects": len(gc.get_objects())})
        elif name == "stats":
            writer = rollbridge_server.writer if rollbridge_server else None
            answer(
                {
                    "clients": clients(),
                    "batches": writer.batches if writer else None,
                    "commits": writer.commits if writer else None,
                }
            )
        elif name == "profile_start":
            profiler = _Profiler(rollbridge_server.writer if rollbridge_server else None)
            answer({"profiling": True})
        elif name == "profile_stop":
            assert profiler is not None
            answer(profiler.stop(command.get("top", 25), command.get("dump")))
            profiler = None
        elif name == "trace_start":
            import tracemalloc

            gc.collect()
            tracemalloc.start(command.get("frames", 1))
            answer({"tracing": True})
        elif name == "trace_stop":
            import tracemalloc

            gc.collect()
            snapshot = tracemalloc.take_snapshot()
            tracemalloc.stop()
            stats = snapshot.statistics("lineno")
            answer(
                {
                    "total_bytes": sum(s.size for s in stats),
                    "top": [
                        {
                            "where": f"{_short(s.traceback[0].filename)}:{s.traceback[0].lineno}",
                            "bytes": s.size,
                            "blocks": s.count,
                        }
                        for s in stats[: command.get("top", 25)]
                    ],
                }
            )
        elif name == "stop":
            break
    if rollbridge_server is not None:
        await rollbridge_server.stop()
    else:
        server.close()
        await server.wait_closed()
    answer({"stopped": True})


class ServerProcess:
    """The parent's handle on a server child."""

    def __init__(self, process: asyncio.subprocess.Process, ready: JSON, kind: str) -> None:
        self.process = process
        self.kind = kind
        self.port: int = ready["port"]
        self.pid: int = ready["pid"]
        self.writer_tid: int | None = ready["writer_tid"]

    @classmethod
    async def start(
        cls,
        kind: str,
        *,
        db: Path | None = None,
        frames: Path | None = None,
        cpu: int | None = None,
        compression: str | None = None,
        variant: str | None = None,
    ) -> ServerProcess:
        argv = [sys.executable, str(Path(__file__).resolve()), "_serve", "--kind", kind]
        if db is not None:
            argv += ["--db", str(db)]
        if frames is not None:
            argv += ["--frames", str(frames)]
        if cpu is not None:
            argv += ["--cpu", str(cpu)]
        if compression:
            argv += ["--compression", compression]
        if variant:
            argv += ["--variant", variant]
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=2**24
        )
        line = await asyncio.wait_for(process.stdout.readline(), 60)  # type: ignore[union-attr]
        if not line:
            raise RuntimeError(f"the {kind} server did not start (exit {await process.wait()})")
        return cls(process, json.loads(line), kind)

    async def call(self, cmd: str, **fields: Any) -> JSON:
        self.process.stdin.write((json.dumps({"cmd": cmd, **fields}) + "\n").encode())  # type: ignore[union-attr]
        line = await self.process.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise RuntimeError(f"the {self.kind} server exited")
        return json.loads(line)

    def cpu_seconds(self) -> JSON:
        """CPU seconds used so far: event loop thread, writer thread, others."""
        tick = os.sysconf("SC_CLK_TCK")
        out = {"loop": 0.0, "writer": 0.0, "other": 0.0}
        for task in Path(f"/proc/{self.pid}/task").iterdir():
            with contextlib.suppress(OSError):
                fields = task.joinpath("stat").read_text().rsplit(")", 1)[1].split()
                seconds = (int(fields[11]) + int(fields[12])) / tick
                tid = int(task.name)
                key = "loop" if tid == self.pid else "writer" if tid == self.writer_tid else "other"
                out[key] += seconds
        return out

    async def stop(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.call("stop"), 30)
        with contextlib.suppress(Exception):
            self.process.stdin.close()  # type: ignore[union-attr]
        try:
            await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


# -- the load generator --------------------------------------------------------


def percentile(sorted_values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile of sorted values (nan if there are none)."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


class Recorder:
    """Completions and latencies inside the measurement window."""

    def __init__(self) -> None:
        self.start = math.inf
        self.end = math.inf
        self.latencies: list[float] = []
        self.kinds: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()
        self.sent = 0

    def done(self, kind: str, latency: float, now: float) -> None:
        if self.start <= now < self.end:
            self.latencies.append(latency)
            self.kinds[kind] += 1

    def summary(self) -> JSON:
        values = sorted(self.latencies)
        seconds = self.end - self.start
        return {
            "requests": len(values),
            "requests_per_s": round(len(values) / seconds, 1) if seconds > 0 else math.nan,
            "p50_ms": round(percentile(values, 50) * 1e3, 3),
            "p90_ms": round(percentile(values, 90) * 1e3, 3),
            "p99_ms": round(percentile(values, 99) * 1e3, 3),
            "max_ms": round(values[-1] * 1e3, 3) if values else math.nan,
            "mix": dict(self.kinds),
            "errors": dict(self.errors),
        }


def _reply_type(payload: bytes) -> bytes:
    """The ``type`` of a msgpack message from either server, without decoding it
    (both put ``type`` first): b"result", b"error", b"event", ..."""
    start = 1 if payload[0] & 0xF0 == 0x80 else 3  # fixmap, or map 16
    if payload[start : start + 5] != b"\xa4type":
        return msgpack.unpackb(payload).get("type", "").encode()
    length = payload[start + 5] & 0x1F
    return payload[start + 6 : start + 6 + length]


class LoadTable:
    """One table as the load generator sees it: six connections, requests in
    flight, and whether the guard needs healing."""

    def __init__(
        self,
        table_id: str,
        tokens: dict[str, str],
        recorder: Recorder,
        heal: JSON,
        mix: str = "attack-roll",
    ) -> None:
        self.id = table_id
        self.tokens = tokens
        self.recorder = recorder
        self.heal = heal
        self.connections: list[WireClient] = []
        self.player: WireClient | None = None
        self.gm: WireClient | None = None
        self.pending: dict[str, tuple[float, str]] = {}
        self.prefix = secrets.token_hex(4)
        self.counter = 0
        self.attacks = mix == "attack-roll"
        self.attack_next = self.attacks
        self.need_heal = False
        self.next_request: Callable[[LoadTable], None] | None = None

    def request(self, sent: float | None = None) -> None:
        """Send the table's next request (``sent``: its scheduled time)."""
        if self.need_heal:
            kind, message, connection = "heal", self.heal, self.gm
            self.need_heal = False
        elif self.attack_next:
            kind, message, connection = "attack", ATTACK, self.player
            self.attack_next = False
        else:
            kind, message, connection = "roll", ROLL, self.player
            self.attack_next = self.attacks
        self.counter += 1
        request_id = f"{self.prefix}-{self.counter}"
        now = time.perf_counter()
        self.pending[request_id] = (now if sent is None else sent, kind)
        self.recorder.sent += 1
        connection.send_binary(msgpack.packb({**message, "id": request_id}))  # type: ignore[union-attr]

    def on_message(self, opcode: int, payload: bytes) -> None:
        kind_of = _reply_type(payload)
        if kind_of != b"result" and kind_of != b"error":
            return
        message = msgpack.unpackb(payload)
        entry = self.pending.pop(message.get("id"), None)
        if entry is None:
            return
        now = time.perf_counter()
        sent, kind = entry
        if kind_of == b"error":
            self.recorder.errors[message.get("code", "?")] += 1
        else:
            if kind == "attack":
                for actor in message.get("event", {}).get("actors", ()):
                    if actor.get("id") == "guard":
                        status = actor.get("common", {}).get("status")
                        self.need_heal = self.need_heal or status in HEAL_STATUSES
            self.recorder.done(kind, now - sent, now)
        if self.next_request is not None:
            self.next_request(self)


async def join_tables(
    port: int | Callable[[LoadTable, int], int],
    tables: list[LoadTable],
    *,
    clients: int = 6,
    deflate: bool = False,
    concurrency: int = 64,
) -> float:
    """Connect every client of every table and say hello; seconds taken. ``port``:
    one server's, or a function of (table, client index) giving each connection's
    (several processes: bench_cluster.py)."""
    port_of = port if callable(port) else lambda table, index: port
    semaphore = asyncio.Semaphore(concurrency)
    loop = asyncio.get_running_loop()
    start = time.perf_counter()

    async def join(table: LoadTable, index: int) -> None:
        role = ROLES[index % len(ROLES)]
        async with semaphore:
            connection = await connect(ADDRESS, port_of(table, index), deflate=deflate)
            welcome: asyncio.Future[None] = loop.create_future()

            def on_welcome(opcode: int, payload: bytes) -> None:
                kind = _reply_type(payload)
                if kind == b"welcome" and not welcome.done():
                    welcome.set_result(None)
                elif kind == b"error" and not welcome.done():
                    welcome.set_exception(
                        RuntimeError(f"hello refused: {msgpack.unpackb(payload)}")
                    )

            connection.on_message = on_welcome
            hello = {"type": "hello", "id": 1, "table": table.id, "token": table.tokens[role]}
            connection.send_binary(msgpack.packb(hello))
            await asyncio.wait_for(welcome, 60)
            active = index in (0, 1)
            connection.on_message = table.on_message if active else None
            table.connections.append(connection)
            if index == 0:
                table.player = connection
            elif index == 1:
                table.gm = connection

    await asyncio.gather(*(join(t, i) for t in tables for i in range(clients)))
    return time.perf_counter() - start


async def leave_tables(tables: list[LoadTable], concurrency: int = 256) -> None:
    semaphore = asyncio.Semaphore(concurrency)

    async def leave(connection: WireClient) -> None:
        async with semaphore:
            await connection.close()

    await asyncio.gather(*(leave(c) for t in tables for c in t.connections))


async def drain(tables: list[LoadTable], timeout: float = 10.0) -> int:
    """Wait until no request is in flight (or timeout); the number left."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        left = sum(len(t.pending) for t in tables)
        if not left:
            return 0
        await asyncio.sleep(0.01)
    return sum(len(t.pending) for t in tables)


async def measure(
    server: ServerProcess, recorder: Recorder, warmup: float, duration: float
) -> JSON:
    """Wait out the warm-up, then time the window: the recorder's figures and
    the CPU both sides used."""
    await asyncio.sleep(warmup)
    cpu0, mine0 = server.cpu_seconds(), time.process_time()
    recorder.start = time.perf_counter()
    recorder.end = recorder.start + duration
    await asyncio.sleep(duration)
    cpu1, mine1 = server.cpu_seconds(), time.process_time()
    figures = recorder.summary()
    for key in cpu0:
        figures[f"server_cpu_{key}"] = round((cpu1[key] - cpu0[key]) / duration, 3)
    figures["server_cpu"] = round((sum(cpu1.values()) - sum(cpu0.values())) / duration, 3)
    figures["loadgen_cpu"] = round((mine1 - mine0) / duration, 3)
    return figures


async def closed_loop(
    server: ServerProcess, tables: list[LoadTable], inflight: int, warmup: float, duration: float
) -> JSON:
    """Each table keeps ``inflight`` requests outstanding: a result sends the next."""
    recorder = tables[0].recorder

    def next_request(table: LoadTable) -> None:
        if time.perf_counter() < recorder.end:
            table.request()

    for table in tables:
        table.next_request = next_request
    for table in tables:
        for _ in range(inflight):
            table.request()
    figures = await measure(server, recorder, warmup, duration)
    figures["left_in_flight"] = await drain(tables)
    for table in tables:
        table.next_request = None
    return figures


async def open_loop(
    server: ServerProcess, tables: list[LoadTable], rate: float, warmup: float, duration: float
) -> JSON:
    """Requests at a steady ``rate`` per second, round-robin over the tables,
    whatever the replies do; latency counts from each request's scheduled time
    (so a stall is not hidden by the requests it delays)."""
    recorder = tables[0].recorder
    stop = asyncio.Event()

    async def ticker() -> None:
        start = time.perf_counter()
        sent = 0
        while not stop.is_set():
            now = time.perf_counter()
            due = int((now - start) * rate) + 1  # request n is due at start + n / rate
            while sent < due:
                tables[sent % len(tables)].request(sent=start + sent / rate)
                sent += 1
            await asyncio.sleep(max(0.0, start + sent / rate - time.perf_counter()))

    task = asyncio.create_task(ticker())
    figures = await measure(server, recorder, warmup, duration)
    stop.set()
    await task
    figures["offered_per_s"] = rate
    figures["left_in_flight"] = await drain(tables)
    return figures


def make_load_tables(
    tokens: dict[str, dict[str, str]], heal: JSON, mix: str = "attack-roll"
) -> list[LoadTable]:
    recorder = Recorder()
    return [LoadTable(table_id, t, recorder, heal, mix) for table_id, t in tokens.items()]


# -- (a) throughput --------------------------------------------------------------


#: The time of every event of the in-process request mix (seconds since the Unix epoch).
MIX_TIME = 1_764_720_000.5


def open_mix_table(
    store: SQLiteStore, host: PluginHost, table_id: str = "t0000"
) -> tuple[Any, Principal, Principal, list]:
    """A seeded table (``t0000``) opened in a table protocol, for the request mix run
    in one process: ``(protocol, player, gm, members)``, the members being the
    table's six msgpack clients (the player who asks, the GM, four more players).
    Its events carry a time, as the server's do: always :data:`MIX_TIME`, so the
    same requests make the same bytes."""
    from rollbridge.protocol import Member
    from rollbridge.protocol.effects import LoadTable
    from rollbridge.protocol.table import TableProtocol

    loaded = LoadTable(table_id=table_id).run(store)
    protocol = TableProtocol.open(loaded, host.rulesets, clock=lambda: MIX_TIME)
    player = Principal("player", "player", "bench-player")
    gm = Principal("gm", "gm", "bench-gm")
    members = [Member(p, kind="msgpack") for p in (player, gm, *[player] * 4)]
    return protocol, player, gm, members


def inprocess_costs(host: PluginHost, path: Path, count: int, variant: str | None = None,
                    passes: int = 3, mix: str = "attack-roll") -> JSON:  # fmt: skip
    """CPU per request of each step rollbridge takes for the same request mix,
    in one thread and without sockets: what the engine, the views, the codec
    and the store cost before any WebSocket work (``time.thread_time``, the
    least of ``passes`` passes of ``count`` requests per step; the commit is
    also given in wall time, which includes the fsync)."""
    from rollbridge.dice import SecureDice
    from rollbridge.engine import Table, parse_request
    from rollbridge.protocol import Delivery
    from rollbridge.protocol.frames import decode
    from rollbridge.protocol.members import result_frame
    from rollbridge.protocol.table import echo_id

    seed_sqlite(path, 1, host)
    store = SQLiteStore(path)
    # What a variant may patch in-process: the store and the dice factory.
    server = types.SimpleNamespace(store=store, dice=SecureDice)
    if variant:
        from bench_server_variants import apply

        apply(variant, server)
    clock = time.thread_time
    best: dict[str, float] = {}
    try:
        protocol, player, gm, members = open_mix_table(store, host)
        table = protocol.table
        heal = heal_request(host)
        attacks = mix == "attack-roll"
        attack_next, need_heal, pending = attacks, False, []
        for number in range(passes):
            steps: Counter[str] = Counter()
            commit_wall = 0.0
            for n in range(count):
                if need_heal:
                    message, who, kind, need_heal = heal, gm, "heal", False
                else:
                    message, who, kind = (ATTACK, player, "attack") if attack_next else (
                        ROLL, player, "roll")  # fmt: skip
                    attack_next = attacks and not attack_next
                asker = members[1] if who is gm else members[0]
                frame = msgpack.packb({**message, "id": f"p{number}-{n}"})
                t0 = clock()
                decoded, _ = decode(frame)
                t1 = clock()
                request = parse_request(decoded)
                t2 = clock()
                key = Table.reply_key(who, request.id)
                assert key not in protocol._recent
                # the key filter's answer (a rare false "maybe" costs the server a store read)
                _maybe = key in protocol._keys
                t3 = clock()
                outcome = table.execute(request, who, server.dice())
                t4 = clock()
                deliveries = [Delivery(table, event) for event in outcome.events]
                for delivery in deliveries:
                    for member in members:
                        delivery.frame(member)
                reply = {"type": "result", "id": echo_id(decoded), **outcome.reply}
                view = reply.pop("view", None)
                if view is not None and deliveries:
                    reply["event"] = deliveries[-1].view(asker.audience)
                result_frame(asker, reply, deliveries[-1] if deliveries else None)
                t5 = clock()
                pending.append(("t0000", store.prepare(outcome.commit)))  # type: ignore[arg-type]
                t6 = clock()
                steps["decode the frame"] += t1 - t0
                steps["parse and validate the request"] += t2 - t1
                steps["idempotency check (memory, then the key filter)"] += t3 - t2
                steps["execute and stage (rules, dice, every audience's view packed)"] += t4 - t3
                steps["frames: the event to 6 clients (2 views) and the result"] += t5 - t4
                steps["prepare the commit (writer thread)"] += t6 - t5
                if len(pending) == 2 or n == count - 1:  # group commits of 2, as observed
                    w0, c0 = time.perf_counter(), clock()
                    store.commit_many(pending)
                    steps["SQLite commit, CPU (writer thread)"] += clock() - c0
                    commit_wall += time.perf_counter() - w0
                    pending = []
                if kind == "attack" and deliveries:
                    for actor in deliveries[-1].view(members[0].audience)["actors"]:
                        if actor["id"] == "guard" and actor["common"]["status"] in HEAL_STATUSES:
                            need_heal = True
                for event in outcome.events:
                    event.views.clear()
            steps["total"] = sum(steps.values())
            steps["SQLite commit, wall incl. fsync"] = commit_wall
            for step, seconds in steps.items():
                best[step] = min(best.get(step, math.inf), seconds / count * 1e6)
    finally:
        store.close()
    return {step: round(us, 1) for step, us in best.items()}


async def costs_process(variant: str | None, requests: int, cpu: int | None,
                        mix: str = "attack-roll") -> JSON:  # fmt: skip
    """:func:`inprocess_costs` in a fresh process (the variants patch classes)."""
    argv = [sys.executable, str(Path(__file__).resolve()), "_costs", "--requests", str(requests),
            "--mix", mix]  # fmt: skip
    if variant:
        argv += ["--variant", variant]
    if cpu is not None:
        argv += ["--cpu", str(cpu)]
    process = await asyncio.create_subprocess_exec(*argv, stdout=asyncio.subprocess.PIPE)
    output, _ = await process.communicate()
    if process.returncode:
        raise RuntimeError(f"the cost breakdown failed (variant {variant})")
    return json.loads(output)


SUMMARY_KEYS = (
    "requests_per_s",
    "p50_ms",
    "p99_ms",
    "server_cpu",
    "server_cpu_loop",
    "server_cpu_writer",
    "loadgen_cpu",
)


async def run_once(server: ServerProcess, args: argparse.Namespace, tokens: JSON,
                   heal: JSON) -> JSON:  # fmt: skip
    tables = make_load_tables(tokens, heal, args.mix)
    await join_tables(server.port, tables, clients=args.clients)
    figures = await closed_loop(server, tables, args.inflight, args.warmup, args.duration)
    await leave_tables(tables)
    return figures


async def profile_once(server: ServerProcess, args: argparse.Namespace, tokens: JSON,
                       heal: JSON, spy: str, output: Path) -> JSON:  # fmt: skip
    """A run sampled by py-spy over its measurement window."""
    tables = make_load_tables(tokens, heal, args.mix)
    await join_tables(server.port, tables, clients=args.clients)
    run = asyncio.create_task(
        closed_loop(server, tables, args.inflight, args.warmup, args.duration)
    )
    await asyncio.sleep(args.warmup)
    samples = await py_spy(spy, server.pid, args.duration, output)
    figures = await run
    await leave_tables(tables)
    return {"run": figures, "py_spy": samples}


def closed_loop_config(args: argparse.Namespace) -> JSON:
    """The closed-loop run's settings, as a result's ``config`` names them."""
    return {
        "tables": args.tables,
        "clients_per_table": args.clients,
        "inflight_per_table": args.inflight,
        "warmup_s": args.warmup,
        "duration_s": args.duration,
        "rounds": args.rounds,
    }


async def run_throughput(args: argparse.Namespace, workdir: Path) -> JSON:
    host = make_host()
    loadgen_cpu, server_cpu = cpus_for(args)
    pin(loadgen_cpu)
    raise_nofile()
    frames = await capture_frames(host, rounds=8)
    frames_path = workdir / "baseline-frames.msgpack"
    frames_path.write_bytes(msgpack.packb(baseline_replies(frames)))
    tokens, seed_s = seed_sqlite(workdir / "seeded.db", args.tables, host)
    heal = heal_request(host)
    costs = {v or "rollbridge": await costs_process(v, args.cost_requests, server_cpu, args.mix)
             for v in [None, *args.variants]}  # fmt: skip
    names = ["baseline", "rollbridge", *(f"rollbridge+{v}" for v in args.variants)]
    servers: dict[str, ServerProcess] = {}
    runs: list[JSON] = []
    profile: JSON | None = None
    try:
        for name in names:
            if name == "baseline":
                servers[name] = await ServerProcess.start("baseline", frames=frames_path,
                                                          cpu=server_cpu)  # fmt: skip
                continue
            db = workdir / f"{name}.db"  # the same seeded tables (and tokens) for each
            shutil.copyfile(workdir / "seeded.db", db)
            variant = name.partition("+")[2] or None
            servers[name] = await ServerProcess.start("rollbridge", db=db, cpu=server_cpu,
                                                      variant=variant)  # fmt: skip
        for round_number in range(args.rounds):
            for name in names:
                figures = await run_once(servers[name], args, tokens, heal)
                runs.append({"server": name, "round": round_number + 1, **figures})
                log(
                    f"  round {round_number + 1} {name:24s} {figures['requests_per_s']:9.1f} "
                    f"req/s  p50 {figures['p50_ms']:.2f} ms  p99 {figures['p99_ms']:.2f} ms  "
                    f"server cpu {figures['server_cpu']:.2f}  "
                    f"loadgen cpu {figures['loadgen_cpu']:.2f}"
                )
        stats = await servers["rollbridge"].call("stats")
        if args.profile:
            spy = find_py_spy(args.py_spy)
            profile = {}
            if spy is None:
                log("  py-spy not found (--py-spy PATH): no sampling profile")
            else:
                for name in names:
                    output = workdir / f"{name}.spy.txt"
                    profile[name] = await profile_once(servers[name], args, tokens, heal,
                                                       spy, output)  # fmt: skip
                    if args.profile_dump and output.exists():
                        shutil.copyfile(output, f"{args.profile_dump}.{name}.spy.txt")
        if args.cprofile:
            profile = profile or {}
            server = servers["rollbridge"]
            tables = make_load_tables(tokens, heal, args.mix)
            await join_tables(server.port, tables, clients=args.clients)
            await server.call("profile_start")
            figures = await closed_loop(server, tables, args.inflight, args.warmup,
                                        args.duration)  # fmt: skip
            cprofile = await server.call("profile_stop", top=args.profile_top,
                                         dump=args.profile_dump)  # fmt: skip
            cprofile["run"] = figures
            profile["cprofile"] = cprofile
            await leave_tables(tables)
    finally:
        for server in servers.values():
            await server.stop()
    summary: JSON = {"servers": {}}
    baseline_runs = [r for r in runs if r["server"] == "baseline"]
    for name in names:
        mine = [r for r in runs if r["server"] == name]
        figures = {key: round(statistics.median(r[key] for r in mine), 3) for key in SUMMARY_KEYS}
        if name != "baseline":
            ratios = [
                r["requests_per_s"] / b["requests_per_s"]
                for b, r in zip(baseline_runs, mine, strict=True)
                if b["requests_per_s"]
            ]
            figures["ratio"] = round(statistics.median(ratios), 3) if ratios else math.nan
            figures["ratios_per_round"] = [round(x, 3) for x in ratios]
            figures["cpu_us_per_request"] = round(
                figures["server_cpu"] / figures["requests_per_s"] * 1e6
            )
        else:
            figures["cpu_us_per_request"] = round(
                figures["server_cpu"] / figures["requests_per_s"] * 1e6
            )
        summary["servers"][name] = figures
    summary["ratio"] = summary["servers"]["rollbridge"]["ratio"]
    summary["goal_ratio"] = GOAL_RATIO
    summary["goal_met"] = summary["ratio"] >= GOAL_RATIO
    mine = summary["servers"]["rollbridge"]
    summary["goal_pipeline"] = {"us_per_request": GOAL_PIPELINE_US, "ratio": GOAL_PIPELINE_RATIO}
    summary["goal_pipeline_met"] = (
        mine["cpu_us_per_request"] <= GOAL_PIPELINE_US and summary["ratio"] >= GOAL_PIPELINE_RATIO
    )
    summary["commits_per_batch"] = (
        round(stats["commits"] / stats["batches"], 2) if stats.get("batches") else None
    )
    return {
        "mode": "throughput",
        "config": {
            **closed_loop_config(args),
            "mix": args.mix,
            "variants": args.variants,
            "pinning": {"loadgen": loadgen_cpu, "server": server_cpu},
            "seed_s": round(seed_s, 2),
        },
        "runs": runs,
        "summary": summary,
        "inprocess_us_per_request": costs,
        "profile": profile,
    }


# -- (b) scale -------------------------------------------------------------------


async def connect_and_measure(
    server: ServerProcess, tables: list[LoadTable], clients: int, deflate: bool = False
) -> JSON:
    before = await server.call("rss")
    seconds = await join_tables(server.port, tables, clients=clients, deflate=deflate)
    after = await server.call("rss")
    connections = after["clients"]
    return {
        "connections": connections,
        "connect_s": round(seconds, 2),
        "rss_before_kb": before["rss_kb"],
        "rss_after_kb": after["rss_kb"],
        "kb_per_connection": round((after["rss_kb"] - before["rss_kb"]) / max(1, connections), 2),
    }


async def tracemalloc_breakdown(server: ServerProcess, tables: list[LoadTable], count: int,
                                top: int, clients: int, heal: JSON) -> JSON:  # fmt: skip
    """Connect ``count`` more clients (to the first tables) under tracemalloc:
    the Python heap each one adds, by the line that allocated it."""
    extra = tables[: max(1, count // clients)]
    more = make_load_tables({t.id: t.tokens for t in extra}, heal)
    await server.call("trace_start")
    rss0 = (await server.call("rss"))["rss_kb"]
    await join_tables(server.port, more, clients=clients)
    rss1 = (await server.call("rss"))["rss_kb"]
    trace = await server.call("trace_stop", top=top)
    added = sum(len(t.connections) for t in more)
    trace["connections"] = added
    trace["bytes_per_connection"] = round(trace["total_bytes"] / added)
    trace["rss_kb_per_connection_while_tracing"] = round((rss1 - rss0) / added, 2)
    for row in trace["top"]:
        row["bytes_per_connection"] = round(row["bytes"] / added)
    await leave_tables(more)
    return trace


async def run_scale(args: argparse.Namespace, workdir: Path) -> JSON:
    host = make_host()
    loadgen_cpu, server_cpu = cpus_for(args)
    pin(loadgen_cpu)
    nofile = raise_nofile()
    needed = args.tables * args.clients + args.breakdown + 200
    if nofile < needed:
        raise SystemExit(f"need {needed} open files, the hard limit is {nofile}")
    frames = await capture_frames(host, rounds=8)
    frames_path = workdir / "baseline-frames.msgpack"
    frames_path.write_bytes(msgpack.packb(baseline_replies(frames)))
    tokens, seed_s = seed_sqlite(workdir / "seeded.db", args.tables, host)
    heal = heal_request(host)
    result: JSON = {
        "mode": "scale",
        "config": {
            "tables": args.tables,
            "clients_per_table": args.clients,
            "rates_per_s": args.rate,
            "warmup_s": args.warmup,
            "duration_s": args.duration,
            "pinning": {"loadgen": loadgen_cpu, "server": server_cpu},
            "seed_s": round(seed_s, 2),
            "nofile": nofile,
            "variants": args.variants,
        },
        "servers": {},
    }
    for variant in [None, *args.variants]:
        name = f"rollbridge+{variant}" if variant else "rollbridge"
        db = workdir / f"{name}.db"
        shutil.copyfile(workdir / "seeded.db", db)
        server = await ServerProcess.start("rollbridge", db=db, cpu=server_cpu, variant=variant)
        entry: JSON = {}
        try:
            started = await server.call("rss")
            loaded = await server.call("load", tables=list(tokens))
            after_load = await server.call("rss")
            tables = make_load_tables(tokens, heal)
            memory = await connect_and_measure(server, tables, args.clients)
            connections = memory["connections"]
            memory.update(
                rss_started_kb=started["rss_kb"],
                sessions=loaded["sessions"],
                kb_per_table_session=round(
                    (after_load["rss_kb"] - started["rss_kb"]) / max(1, args.tables), 2
                ),
                kb_per_connection_with_sessions=round(
                    (memory["rss_after_kb"] - started["rss_kb"]) / max(1, connections), 2
                ),
                goal_kb=GOAL_KB_PER_CONNECTION,
                goal_met=memory["kb_per_connection"] <= GOAL_KB_PER_CONNECTION,
            )
            entry["memory"] = memory
            log(
                f"  {name}: {connections} connections, {memory['kb_per_connection']} KB each "
                f"(+{memory['kb_per_table_session']} KB per table session)"
            )
            if variant is None and args.breakdown:
                entry["breakdown"] = await tracemalloc_breakdown(
                    server, tables, args.breakdown, args.breakdown_top, args.clients, heal
                )
            entry["steady"] = []
            for rate in args.rate:
                await server.call("gc")
                latency = await open_loop(server, tables, rate, args.warmup, args.duration)
                latency["gc"] = await server.call("gc")
                latency["rss_after_kb"] = (await server.call("rss"))["rss_kb"]
                if latency["left_in_flight"]:  # overloaded: let the backlog clear
                    latency["left_after_drain"] = await drain(tables, timeout=120)
                for table in tables:
                    table.recorder.__init__()  # type: ignore[misc]
                entry["steady"].append(latency)
                log(
                    f"  {name} steady {rate:.0f}/s: {latency['requests_per_s']} req/s, p50 "
                    f"{latency['p50_ms']} ms, p99 {latency['p99_ms']} ms, server cpu "
                    f"{latency['server_cpu']}"
                )
            await leave_tables(tables)
        finally:
            await server.stop()
        result["servers"][name] = entry
    baseline = await ServerProcess.start("baseline", frames=frames_path, cpu=server_cpu)
    try:
        tables = make_load_tables(tokens, heal)
        result["baseline_memory"] = await connect_and_measure(baseline, tables, args.clients)
        log(f"  baseline: {result['baseline_memory']['kb_per_connection']} KB per connection")
        await leave_tables(tables)
    finally:
        await baseline.stop()
    return result


# -- compression -------------------------------------------------------------------


def _deflaters() -> tuple[Any, Any]:
    """A server-side encoder and a client-side decoder, as websockets negotiates
    them with ``compression="deflate"``: windows of 2^12, memLevel 5, context
    takeover on both sides."""
    from websockets.extensions.permessage_deflate import PerMessageDeflate

    server = PerMessageDeflate(False, False, 12, 12, {"memLevel": 5})
    client = PerMessageDeflate(False, False, 12, 12, {"memLevel": 5})
    return server, client


def _time_per_message(frames: list[bytes], repeats: int) -> JSON:
    """One connection's stream of frames through deflate: compressed sizes, and
    the CPU to compress and to inflate each frame (best of ``repeats``, so each
    position is timed in the same context state every time)."""
    from websockets.frames import Frame, Opcode

    clock = time.perf_counter
    encode_s = [math.inf] * len(frames)
    decode_s = [math.inf] * len(frames)
    sizes: list[int] = []
    for _ in range(repeats):
        server, client = _deflaters()
        sizes = []
        for index, data in enumerate(frames):
            frame = Frame(Opcode.BINARY, data)
            t0 = clock()
            encoded = server.encode(frame)
            t1 = clock()
            client.decode(encoded)
            t2 = clock()
            encode_s[index] = min(encode_s[index], t1 - t0)
            decode_s[index] = min(decode_s[index], t2 - t1)
            sizes.append(len(encoded.data))
    return {
        "sizes": sizes,
        "encode_us": [t * 1e6 for t in encode_s],
        "decode_us": [t * 1e6 for t in decode_s],
    }


def compression_frames(frames: JSON, repeats: int) -> list[JSON]:
    """Per frame type and encoding: bytes off / with deflate, CPU per message."""
    rows = []
    for kind in ("msgpack", "json"):
        data = frames[kind]
        welcome = data["welcome"]
        welcome = welcome.encode() if isinstance(welcome, str) else welcome
        stream = [(label, f.encode() if isinstance(f, str) else f) for label, f in data["stream"]]
        # What one client receives, in order: its welcome (a fresh context),
        # then the table's events (context takeover: each compresses against
        # the ones before).
        figures = _time_per_message([welcome] + [f for _, f in stream], repeats)
        labelled = [("welcome", welcome), *stream]
        names = {
            "welcome": "welcome (sr2, 2 actors)",
            "attack": "sr2 attack resolution event",
            "roll": "roll event 3d6",
            "heal": "actor.update event (heal)",
        }
        for label, name in names.items():
            picked = [i for i, (lab, _) in enumerate(labelled) if lab == label]
            if not picked:
                continue
            rows.append({
                "frame": name,
                "encoding": kind,
                "count": len(picked),
                "raw_bytes": round(statistics.mean(len(labelled[i][1]) for i in picked)),
                "deflate_bytes": round(statistics.mean(figures["sizes"][i] for i in picked)),
                "encode_us": round(statistics.mean(figures["encode_us"][i] for i in picked), 2),
                "decode_us": round(statistics.mean(figures["decode_us"][i] for i in picked), 2),
            })  # fmt: skip
    for row in rows:
        row["saved"] = round(1 - row["deflate_bytes"] / row["raw_bytes"], 3)
    return rows


def encode_costs(frames: JSON, repeats: int) -> JSON:
    """CPU of encoding an event as rollbridge does (msgpack / JSON of the map)."""
    from rollbridge.protocol.frames import encode

    out = {}
    for kind in ("msgpack", "json"):
        stream = frames[kind]["stream"]
        messages = [
            msgpack.unpackb(f) if isinstance(f, bytes) else json.loads(f) for _, f in stream
        ]
        best = math.inf
        for _ in range(repeats):
            start = time.process_time()
            for message in messages:
                encode(message, kind)  # type: ignore[arg-type]
            best = min(best, (time.process_time() - start) / len(messages))
        out[kind] = round(best * 1e6, 2)
    return out


async def compression_memory(
    workdir: Path, host: PluginHost, tables_count: int, clients: int, server_cpu: int | None
) -> list[JSON]:
    """RSS per connection of rollbridge with compression off and deflate,
    after the welcome and after one attack at every table."""
    rows = []
    heal = heal_request(host)
    for setting in (None, "deflate"):
        db = workdir / f"memory-{setting or 'off'}.db"
        tokens, _ = seed_sqlite(db, tables_count, host)
        server = await ServerProcess.start("rollbridge", db=db, cpu=server_cpu, compression=setting)
        try:
            await server.call("load", tables=list(tokens))
            tables = make_load_tables(tokens, heal)
            memory = await connect_and_measure(server, tables, clients, deflate=bool(setting))
            negotiated = all(c.deflate for t in tables for c in t.connections)
            for table in tables:
                table.request()
            await drain(tables)
            after = await server.call("rss")
            memory["kb_per_connection_after_traffic"] = round(
                (after["rss_kb"] - memory["rss_before_kb"]) / max(1, memory["connections"]), 2
            )
            rows.append({"compression": setting or "off", "negotiated": negotiated, **memory})
            await leave_tables(tables)
        finally:
            await server.stop()
    return rows


async def compression_throughput(
    args: argparse.Namespace, workdir: Path, host: PluginHost, server_cpu: int | None
) -> list[JSON]:
    """Closed-loop rollbridge throughput with compression off and deflate."""
    runs = []
    heal = heal_request(host)
    servers = {}
    try:
        for setting in ("off", "deflate"):
            db = workdir / f"throughput-{setting}.db"
            tokens, _ = seed_sqlite(db, args.tables, host)
            servers[setting] = (
                tokens,
                await ServerProcess.start(
                    "rollbridge",
                    db=db,
                    cpu=server_cpu,
                    compression=None if setting == "off" else setting,
                ),
            )
        for round_number in range(args.rounds):
            for setting, (tokens, server) in servers.items():
                tables = make_load_tables(tokens, heal)
                await join_tables(
                    server.port, tables, clients=args.clients, deflate=setting == "deflate"
                )
                figures = await closed_loop(
                    server, tables, args.inflight, args.warmup, args.duration
                )
                await leave_tables(tables)
                runs.append({"compression": setting, "round": round_number + 1, **figures})
                log(
                    f"  round {round_number + 1} {setting:8s} {figures['requests_per_s']:9.1f} "
                    f"req/s  p50 {figures['p50_ms']:.2f} ms  p99 {figures['p99_ms']:.2f} ms"
                )
    finally:
        for _, server in servers.values():
            await server.stop()
    return runs


async def run_compression(args: argparse.Namespace, workdir: Path) -> JSON:
    host = make_host()
    loadgen_cpu, server_cpu = cpus_for(args)
    pin(loadgen_cpu)
    raise_nofile()
    frames = await capture_frames(host, rounds=args.events)
    rows = compression_frames(frames, args.repeats)
    for row in rows:
        log(
            f"  {row['frame']:30s} {row['encoding']:8s} {row['raw_bytes']:6d} B -> "
            f"{row['deflate_bytes']:5d} B  ({row['saved']:.0%} saved)  compress "
            f"{row['encode_us']:.1f} us  inflate {row['decode_us']:.1f} us"
        )
    memory = await compression_memory(workdir, host, args.memory_tables, args.clients, server_cpu)
    for row in memory:
        log(
            f"  memory {row['compression']:8s} {row['kb_per_connection']} KB per connection, "
            f"{row['kb_per_connection_after_traffic']} KB after one event"
        )
    throughput = await compression_throughput(args, workdir, host, server_cpu)
    summary: JSON = {}
    for setting in ("off", "deflate"):
        mine = [r for r in throughput if r["compression"] == setting]
        summary[setting] = {
            key: round(statistics.median(r[key] for r in mine), 3)
            for key in ("requests_per_s", "p50_ms", "p99_ms", "server_cpu")
        }
    summary["throughput_ratio_deflate_off"] = round(
        summary["deflate"]["requests_per_s"] / summary["off"]["requests_per_s"], 3
    )
    off, on = memory[0], memory[1]
    summary["deflate_extra_kb_per_connection"] = round(
        on["kb_per_connection_after_traffic"] - off["kb_per_connection_after_traffic"], 2
    )
    return {
        "mode": "compression",
        "config": {
            "deflate": "websockets' defaults for compression='deflate': server_max_window_bits"
            "=12, client_max_window_bits=12, memLevel=5, context takeover",
            "events": args.events,
            "repeats": args.repeats,
            "memory_tables": args.memory_tables,
            "clients_per_table": args.clients,
            "tables": args.tables,
            "inflight_per_table": args.inflight,
            "warmup_s": args.warmup,
            "duration_s": args.duration,
            "rounds": args.rounds,
            "pinning": {"loadgen": loadgen_cpu, "server": server_cpu},
        },
        "frames": rows,
        "encode_us": encode_costs(frames, args.repeats),
        "memory": memory,
        "throughput": throughput,
        "summary": summary,
    }


# -- command line ------------------------------------------------------------------


def log(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def print_machine(result: JSON, extra: str = "") -> None:
    """The report's first lines: the machine, the load average, the run's settings."""
    info = result["machine"]
    print(
        f"machine: {info['cpus']} CPUs ({info['cpu']}), {info['memory']}, {info['system']}, "
        f"Python {info['python']}, websockets {info['websockets']}, msgpack {info['msgpack']}, "
        f"SQLite {info.get('sqlite')}{extra}; "
        f"load average {info['loadavg']} before, {result['loadavg_after']} after"
    )
    print("config: " + ", ".join(f"{k}={v}" for k, v in result["config"].items()))


def print_report(result: JSON) -> None:
    """A readable report of a mode's result (``--json`` prints the result itself)."""
    print_machine(result)
    mode = result["mode"]
    if mode == "throughput":
        print(
            f"{'server':26s}{'round':>6s}{'req/s':>10s}{'p50 ms':>9s}{'p99 ms':>9s}"
            f"{'srv cpu':>9s}{'(loop':>7s}{'writer)':>8s}{'gen cpu':>9s}"
        )
        for run in result["runs"]:
            print(
                f"{run['server']:26s}{run['round']:6d}{run['requests_per_s']:10.1f}"
                f"{run['p50_ms']:9.2f}{run['p99_ms']:9.2f}{run['server_cpu']:9.2f}"
                f"{run['server_cpu_loop']:7.2f}{run['server_cpu_writer']:8.2f}"
                f"{run['loadgen_cpu']:9.2f}"
            )
        s = result["summary"]
        print("medians over the rounds:")
        for name, f in s["servers"].items():
            ratio = f" ratio {f['ratio']}" if "ratio" in f else ""
            print(
                f"  {name:26s}{f['requests_per_s']:10.1f} req/s  p50 {f['p50_ms']:.2f} ms  "
                f"p99 {f['p99_ms']:.2f} ms  {f['cpu_us_per_request']} us CPU/request{ratio}"
            )
        print(
            f"rollbridge / baseline: {s['ratio']} (goal >= {s['goal_ratio']}: "
            f"{'met' if s['goal_met'] else 'NOT met'}); commits per group commit "
            f"{s['commits_per_batch']}"
        )
        pipeline = s["goal_pipeline"]
        mix = result["config"]["mix"]
        mix_note = f" (the goal is for the attack-roll mix; here: {mix})"
        if mix == "attack-roll":
            mix_note = ""
        print(
            f"core pipeline goal (issue 12): <= {pipeline['us_per_request']} us CPU/request and"
            f" ratio >= {pipeline['ratio']}: {'met' if s['goal_pipeline_met'] else 'NOT met'}"
            + mix_note
        )
        costs = result["inprocess_us_per_request"]
        print("in-process CPU per request, one thread, no sockets (us):")
        names = list(costs)
        print("  " + "".join(f"{n[:14]:>15s}" for n in names) + "  step")
        for step in costs["rollbridge"]:
            cells = "".join(f"{costs[n].get(step, math.nan):15.1f}" for n in names)
            print(f"  {cells}  {step}")
        for name, entry in (result.get("profile") or {}).items():
            if name == "cprofile":
                continue
            run, samples = entry["run"], entry["py_spy"] or {}
            print(f"py-spy, {name} ({run['requests_per_s']} req/s while sampled):")
            for thread in ("loop", "writer"):
                if thread not in samples:
                    continue
                print(f"  {thread} thread, {samples[thread]['samples']} samples:")
                for phase in samples[thread]["phases"]:
                    print(f"    {phase['share']:6.1%}  {phase['phase']}")
        cprofile = (result.get("profile") or {}).get("cprofile")
        if cprofile:
            run = cprofile["run"]
            print(f"cProfile, rollbridge ({run['requests_per_s']} req/s while profiled):")
            for thread in ("loop", "writer"):
                figures = cprofile[thread]
                print(f"  {thread} thread: {figures['total_s']} s of own time")
                for row in figures["top_tottime"]:
                    print(f"    {row['tottime_s']:8.3f} s {row['calls']:9d}  {row['function']}")
    elif mode == "scale":
        for name, entry in result["servers"].items():
            m = entry["memory"]
            print(
                f"{name}: {m['connections']} connections, {m['sessions']} table sessions; RSS "
                f"{m['rss_started_kb']} KB started, {m['rss_before_kb']} KB with the tables "
                f"loaded, {m['rss_after_kb']} KB connected"
            )
            print(
                f"  per connection {m['kb_per_connection']} KB (goal <= {m['goal_kb']}: "
                f"{'met' if m['goal_met'] else 'NOT met'}); with the table sessions "
                f"{m['kb_per_connection_with_sessions']} KB; per table session "
                f"{m['kb_per_table_session']} KB"
            )
            for s in entry["steady"]:
                print(
                    f"  steady load: offered {s['offered_per_s']:.0f}/s, done "
                    f"{s['requests_per_s']}/s, p50 {s['p50_ms']} ms, p90 {s['p90_ms']} ms, p99 "
                    f"{s['p99_ms']} ms, max {s['max_ms']} ms; server cpu {s['server_cpu']} "
                    f"(loop {s['server_cpu_loop']}, writer {s['server_cpu_writer']}), loadgen "
                    f"cpu {s['loadgen_cpu']}; RSS after {s['rss_after_kb']} KB; errors "
                    f"{s['errors']}"
                )
            if entry.get("breakdown"):
                t = entry["breakdown"]
                print(
                    f"  tracemalloc over {t['connections']} more connections: "
                    f"{t['bytes_per_connection']} B of Python heap each, by line:"
                )
                for row in t["top"]:
                    print(f"    {row['bytes_per_connection']:7d} B  {row['where']}")
        b = result["baseline_memory"]
        print(
            f"baseline server: {b['kb_per_connection']} KB per connection "
            f"({b['connections']} connections)"
        )
    elif mode == "compression":
        print(
            f"{'frame':32s}{'enc':>8s}{'raw B':>8s}{'deflate B':>10s}{'saved':>7s}"
            f"{'compress us':>13s}{'inflate us':>12s}"
        )
        for row in result["frames"]:
            print(
                f"{row['frame']:32s}{row['encoding']:>8s}{row['raw_bytes']:8d}"
                f"{row['deflate_bytes']:10d}{row['saved']:7.0%}{row['encode_us']:13.1f}"
                f"{row['decode_us']:12.1f}"
            )
        print(f"encoding an event (no compression): {result['encode_us']} us")
        for row in result["memory"]:
            print(
                f"memory, compression {row['compression']}: {row['kb_per_connection']} KB per "
                f"connection after hello, {row['kb_per_connection_after_traffic']} KB after one "
                f"event ({row['connections']} connections, negotiated {row['negotiated']})"
            )
        s = result["summary"]
        print(
            f"throughput: off {s['off']['requests_per_s']} req/s (p99 {s['off']['p99_ms']} ms), "
            f"deflate {s['deflate']['requests_per_s']} req/s (p99 {s['deflate']['p99_ms']} ms);"
            f" ratio {s['throughput_ratio_deflate_off']}"
        )


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    modes = main.add_subparsers(
        dest="mode", required=True, metavar="{throughput,scale,compression}"
    )

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--json", action="store_true", help="print one JSON document")
        p.add_argument("--no-pin", action="store_true", help="do not pin processes to CPUs")
        p.add_argument("--dir", help="folder for the SQLite files (default: a temporary one)")
        p.add_argument("--clients", type=int, default=6, help="connections per table")

    def closed(p: argparse.ArgumentParser, tables: int, duration: float, rounds: int) -> None:
        p.add_argument("--tables", type=int, default=tables)
        p.add_argument("--inflight", type=int, default=2, help="requests in flight per table")
        p.add_argument("--warmup", type=float, default=2.0, help="seconds before measuring")
        p.add_argument("--duration", type=float, default=duration, help="seconds measured")
        p.add_argument("--rounds", type=int, default=rounds, help="alternating rounds")

    p = modes.add_parser("throughput", help="(a) rollbridge against the bare baseline")
    common(p)
    closed(p, tables=16, duration=10.0, rounds=3)
    p.add_argument("--profile", action="store_true", help="also sample each server with py-spy")
    p.add_argument("--py-spy", help="the py-spy binary (default: py-spy on PATH)")
    p.add_argument("--cprofile", action="store_true", help="also run rollbridge under cProfile")
    p.add_argument(
        "--mix",
        choices=MIXES,
        default="attack-roll",
        help="the requests: an sr2 attack and a 3d6 roll in turn (the default, and issue "
        "12's goal), or 3d6 rolls only (the pipeline's floor: almost no rules or texts)",
    )
    p.add_argument(
        "--cost-requests", type=int, default=2000, help="requests for the in-process cost breakdown"
    )
    p.add_argument(
        "--variants",
        nargs="*",
        default=[],
        help="also run rollbridge with benchmark-only changes (bench_server_variants"
        ".py): NAME or NAME+NAME",
    )
    p.add_argument("--profile-top", type=int, default=30)
    p.add_argument(
        "--profile-dump",
        help="also write PATH.loop.pstats and PATH.writer.pstats (--cprofile) "
        "and PATH.SERVER.spy.txt, py-spy's raw samples (--profile)",
    )

    p = modes.add_parser("scale", help="(b) many tables and connections at once")
    common(p)
    p.add_argument("--tables", type=int, default=1000)
    p.add_argument(
        "--rate",
        type=float,
        nargs="+",
        default=[1000.0],
        help="requests per second (open loop); several: one after the other",
    )
    p.add_argument("--warmup", type=float, default=3.0)
    p.add_argument("--duration", type=float, default=25.0)
    p.add_argument(
        "--breakdown", type=int, default=600, help="connections to add under tracemalloc (0: none)"
    )
    p.add_argument("--breakdown-top", type=int, default=20)
    p.add_argument(
        "--variants",
        nargs="*",
        default=[],
        help="also measure the memory of rollbridge with these changes",
    )

    p = modes.add_parser("compression", help="permessage-deflate against no compression")
    common(p)
    closed(p, tables=16, duration=6.0, rounds=2)
    p.add_argument("--events", type=int, default=60, help="(attack, roll) pairs captured")
    p.add_argument("--repeats", type=int, default=20, help="repeats of the CPU timings")
    p.add_argument("--memory-tables", type=int, default=200, help="tables for the RSS figures")

    p = modes.add_parser("_costs")  # internal: the in-process breakdown, in its own process
    p.add_argument("--variant")
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--cpu", type=int)
    p.add_argument("--mix", choices=MIXES, default="attack-roll")

    p = modes.add_parser("_serve")  # internal: the server under test
    p.add_argument("--kind", choices=["rollbridge", "baseline"], required=True)
    p.add_argument("--db")
    p.add_argument("--frames")
    p.add_argument("--cpu", type=int)
    p.add_argument("--compression")
    p.add_argument("--variant")
    return main


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.mode == "_serve":
        if args.variant:  # a variant may replace the event loop, which exists only from here
            from bench_server_variants import before_loop

            before_loop(args.variant)
        asyncio.run(serve_main(args))
        return 0
    if args.mode == "_costs":
        pin(args.cpu)
        with tempfile.TemporaryDirectory(prefix="bench-server-costs-") as folder:
            costs = inprocess_costs(make_host(), Path(folder) / "costs.db", args.requests,
                                    args.variant, mix=args.mix)  # fmt: skip
        print(json.dumps(costs))
        return 0
    run = {"throughput": run_throughput, "scale": run_scale, "compression": run_compression}
    return run_and_report(args, run[args.mode], print_report, "bench-server-")


def run_and_report(args: argparse.Namespace, run: Callable[..., Any],
                   report: Callable[[JSON], None], prefix: str) -> int:  # fmt: skip
    """Run ``run(args, workdir)`` in a temporary folder; print its result (with the
    machine and the load average before and after) as JSON or as ``report`` puts it."""
    info = machine()
    workdir = Path(tempfile.mkdtemp(prefix=prefix, dir=args.dir))
    try:
        result = asyncio.run(run(args, workdir))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    result = {"machine": info, "loadavg_after": [round(x, 2) for x in os.getloadavg()], **result}
    if args.json:
        print(json.dumps(result, indent=1, default=str))
    else:
        report(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
