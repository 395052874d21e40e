"""Soak: does a long-running server give back what its clients took?

Run from the repository root::

    python benchmarks/bench_soak.py                         # 200 tables, 8 cycles
    python benchmarks/bench_soak.py --tables 50 --cycles 4  # a quicker look
    python benchmarks/bench_soak.py --trace                 # + tracemalloc: what grew, where
    python benchmarks/bench_soak.py --cli                   # a real `rollbridge serve` child
    python benchmarks/bench_soak.py --json                  # one JSON document on stdout
    python benchmarks/bench_soak.py flood --refused 300     # what refused connections leave
    python benchmarks/bench_soak.py --redis --tables 80 --retain 5  # two `serve --redis`

A server hosts hundreds of groups for weeks: every connection, table load, read,
refusal and HTTP request must leave nothing behind once it is over. The soak
churns a real server on a real SQLite file (seeded tables of every built-in
ruleset; seeded dice) for ``--cycles`` cycles. In each cycle, for every table:

* a GM (a third of them in the Foundry dialect) and a player join with their
  tokens (``hello``; msgpack or JSON, the GM in cs, de, ru or en); the player
  sends its ruleset's two actions (sr2 ``attack`` and ``success_test``,
  techlevel ``hit`` and ``recover``, bandits ``harm`` and ``move``, wilddie
  ``attack`` and ``trait``), a ``roll``, ``odds`` of notation and of an action,
  ``stats``; the GM ``undo``, ``state``, ``state`` with ``at`` (a log read), an
  approval (``settings``, the player's roll ``pending``, ``approve``) and an
  encounter of one turn;
* refused requests: an undecodable frame, an unknown type, bad parameters; an
  observer that sends 60 ``ping`` at once (the connection's rate: ``rate_limited``);
* the player sends a request and drops its TCP connection at once (no close),
  then comes back with ``resume`` from the seq it saw, and later closes with a
  ``state`` ``at`` still out;
* HTTP: the web view, a static file, the session-log export with the GM's token;

and, per cycle: ``--rotate`` tables (20) deleted and as many made over the admin
API, each seated by its GM, with a player token issued, joined and revoked (the
server cuts it off); ``--strays`` connections (40) that never join (some close,
some ``ping``, some say ``hello`` with a wrong token, some with a right one and
drop at once, the rest are cut off by the server's ``--hello-timeout``, 2 s
here); ``/metrics``, ``/readyz``, ``/healthz``. ``--resident`` tables (20) keep
an observer connected all along: they never leave memory.

After each cycle, when every client but the residents is gone
(``rollbridge_connections`` and ``rollbridge_open_tables`` back to the residents
on ``/metrics``) and ``--settle`` seconds (6: the close timeout) have passed,
the server is sampled: RSS, open file descriptors (``/proc/PID/fd``), threads,
log lines written by level and logger; and, unless ``--cli``, from inside the
server process: asyncio tasks, objects by type (after a full collection, frozen
objects included), glibc's heap in use and held free (``malloc_info``), and the
sizes of the server's per-table and per-connection structures. The first
``--warmup`` cycles (2) fill caches and are not counted; growth per cycle is
the least-squares slope over the rest. ``--trace`` diffs tracemalloc snapshots
from the warm-up's end to the last cycle; ``--holders TYPE`` says what refers
to the objects of a type (a debugging aid); ``--retain`` sets the events kept
per table (the logs stop growing); ``--trim`` also samples RSS after
``malloc_trim(0)``. ``flood`` sends ``--refused`` hellos with a wrong token and
samples at once: what the server still holds of connections it refused.

A wait for the server to be quiet that passes 10 s (:data:`STALL_REPORT`) writes to
stderr, every 10 s until it ends (at 60 s), the gauges and what the server holds
(:func:`diagnose`: each connection and table with its state, the tasks and where
they wait); ``--keep`` keeps the work folder (the servers' logs) and says where.

The server runs in a child process (``bench_soak.py _serve``, a
:class:`rollbridge.server.Server` with ``manage_gc``, its log as ``rollbridge
serve --log-format json`` writes it), so the load generator's own objects are
never counted. ``--cli`` runs ``rollbridge serve`` itself instead (no view
inside: /proc and /metrics only). Figures: docs/performance.md, "Soak".

Every process the soak starts ends with it: SIGTERM (``kill``, a test's timeout)
cancels the soak, whose ``finally`` blocks stop its servers and its redis-server and
remove its folder (exit status 143); killed outright (SIGKILL), each child gets
SIGTERM from the kernel as its parent dies (``PR_SET_PDEATHSIG``).

``--redis`` soaks ``serve --redis`` instead (:func:`soak_redis`): a
``redis-server`` of its own (durable, on a free port of 127.0.0.1, stopped at the
end), two :class:`rollbridge.server.cluster.ClusterServer` children on it, each
table's GM on one and its player on the other, so that one side's changes are
forwarded to the lease owner; the sides swap every cycle, and the leases move as
idle tables give theirs up (``--lease-ms``, 1,000 here); each resident table has an
observer on both processes (one owns it for good, the other follows it); process B
is killed (``--restart``) after the middle cycle and started again. Each sample
covers both processes (as above, plus the cluster's own structures: leases,
forwards waiting and counted, parked replies) and Redis: ``INFO memory``, the keys
by kind with the elements they hold and their ``MEMORY USAGE``, keys of a table not
in the index, pub/sub channels and subscribers, connections. Figures:
docs/performance.md, "Soak", "Over Redis".
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import zlib
from collections import Counter
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import msgpack
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_server import _BufferedStore, machine, make_host, raise_nofile

from rollbridge.engine import Principal
from rollbridge.offline import TableService
from rollbridge.plain import JSON
from rollbridge.stores import SQLiteStore
from rollbridge.stores.redis_keys import RedisKeys
from rollbridge.tokens import new_admin_token

ADDRESS = "127.0.0.1"
GM = Principal("gm", "gm", "soak-setup")
#: The seconds a connection may stay without ``hello`` on the soak's server.
HELLO_TIMEOUT = 2.0
#: A claim of settings this close to its end is not asked for its mark (set a moment
#: before the claim, the mark ends a moment before it).
CLAIM_MARGIN_MS = 50
LOCALES = ("en", "cs", "de", "ru")
#: Per ruleset: (the player's actor, its example sheet), (the NPC, its sheet), and
#: the player's two actions (the first is undone by the GM, and asked odds of).
RULESETS: dict[str, JSON] = {
    "sr2": {
        "actors": (("tukan", "Tukan"), ("guard", "Guard A")),
        "actions": (
            {"action": "attack", "targets": ["guard"],
             "params": {"weapon": "Hackler", "range": "short"}},
            {"action": "success_test", "params": {"dice": 4, "tn": 5}},
        ),
    },
    "techlevel": {
        "actors": (("ana", "Ana"), ("guard", "Guard")),
        "actions": (
            {"action": "hit", "targets": ["guard"],
             "params": {"weapon": "Revolver", "dice": "1d6", "tl": 2, "type": "kinetic"}},
            {"action": "recover", "params": {}},
        ),
    },
    "bandits": {
        "actors": (("ana", "Ana"), ("guard", "Guard")),
        "actions": (
            {"action": "harm", "targets": ["guard"], "params": {"direction": "dealt"}},
            {"action": "move", "params": {"move": "act under fire", "stat": "cool"}},
        ),
    },
    "wilddie": {
        "actors": (("ana", "Ana"), ("guard", "Guard")),
        "actions": (
            {"action": "attack", "targets": ["guard"],
             "params": {"mode": "ranged", "range": "medium", "size": "normal"}},
            {"action": "trait", "params": {"trait": "notice", "difficulty": 4}},
        ),
    },
}  # fmt: skip
ORDER = tuple(RULESETS)
#: Structures of the server that hold something per table or per connection.
STRUCTURES = (
    "clients", "sockets", "per_address", "open_tables", "per_token", "table_buckets",
    "loading", "waking", "dropped", "outbox_sizes", "writer_pending", "writer_poisoned",
    "websockets_handlers",
)  # fmt: skip
#: And those of a ``serve --redis`` process (:class:`rollbridge.server.cluster.ClusterServer`).
CLUSTER_STRUCTURES = (
    "owned", "renewed", "used", "waiting", "counted", "cluster_tasks", "loops", "parked",
    "forwards_out", "redis_pool_connections",
)  # fmt: skip


#: Object types of the server's own (and websockets') whose count the report follows.
SERVER_TYPES = (
    "Client", "Connection", "Member", "TableProtocol", "Table", "Event", "Delivery",
    "ServerConnection", "_Writing", "_Asker", "_Item", "Persist", "Reply", "Task",
    "TimerHandle", "Future",
)  # fmt: skip


# -- seeding -----------------------------------------------------------------------


def seed(path: Path | str, count: int) -> tuple[dict[str, JSON], str]:
    """``count`` tables, the rulesets in turn, each with the player's character and
    an NPC (their ruleset and tokens by table id), and an admin token; in the SQLite
    file ``path``, or in the Redis of a ``redis://`` URL."""
    host = make_host()
    store = open_store(path)
    try:
        buffered = _BufferedStore(store)
        service = TableService(buffered, host)  # type: ignore[arg-type]
        tables: dict[str, JSON] = {}
        for n in range(count):
            ruleset = ORDER[n % len(ORDER)]
            table_id = f"soak-{n:04d}"
            _, tokens = service.create_table(f"Soak {n}", ruleset, table_id=table_id)
            sheets = host.rulesets[ruleset].example_sheets
            for index, (actor_id, name) in enumerate(RULESETS[ruleset]["actors"]):
                actor = {"id": actor_id, "name": name, "sheet": dict(sheets[name]),
                         "controllers": ["player"] if index == 0 else []}  # fmt: skip
                service.handle(table_id, {"type": "actor.create", "id": f"seed{index}",
                                          "actor": actor}, GM)  # fmt: skip
            tables[table_id] = {"ruleset": ruleset, "tokens": tokens, "npc": actor}
        buffered.flush()
        secret, record = new_admin_token("soak")
        store.add_admin_token(record)
    finally:
        store.close()
    return tables, secret


def actors_of(ruleset: str) -> list[JSON]:
    """The two actors of a table of ``ruleset``: the player's, and the NPC."""
    sheets = make_host().rulesets[ruleset].example_sheets
    return [
        {
            "id": actor_id,
            "name": name,
            "sheet": dict(sheets[name]),
            "controllers": ["player"] if index == 0 else [],
        }
        for index, (actor_id, name) in enumerate(RULESETS[ruleset]["actors"])
    ]


def open_store(where: Path | str, retain: int = 1000, writer: str | None = None) -> Any:
    """The SQLite store of a file, or the Redis store of a ``redis://`` URL."""
    if str(where).startswith("redis://"):
        from rollbridge.stores.redis import RedisStore

        return RedisStore(str(where), retain=retain, writer=writer)
    return SQLiteStore(where, retain=retain)


# -- the server under test (child process) --------------------------------------------


def _proc_figures(pid: int | str = "self") -> JSON:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    fields = {line.split(":")[0]: line.split(":", 1)[1].split() for line in status}
    return {
        "rss_kb": int(fields["VmRSS"][0]),
        "fds": len(os.listdir(f"/proc/{pid}/fd")),
        "threads": int(fields["Threads"][0]),
    }


def _malloc() -> JSON:
    """glibc's heap, every arena (``malloc_info``): bytes handed out and bytes kept
    free, which tells RSS held by live allocations (Python's, SQLite's) from RSS
    held free (fragmentation); {} on another C library."""
    import ctypes
    import re

    try:
        libc = ctypes.CDLL(None)
        libc.fopen.restype = ctypes.c_void_p
        libc.fopen.argtypes = (ctypes.c_char_p, ctypes.c_char_p)
        libc.malloc_info.argtypes = (ctypes.c_int, ctypes.c_void_p)
        libc.fclose.argtypes = (ctypes.c_void_p,)
    except (OSError, AttributeError):
        return {}
    with tempfile.NamedTemporaryFile(prefix="soak-malloc-") as file:
        handle = libc.fopen(file.name.encode(), b"w")
        if not handle:
            return {}
        libc.malloc_info(0, handle)
        libc.fclose(handle)
        text = Path(file.name).read_text()
    tail = text[text.rindex("</heap>") :]  # the totals over every arena
    found = re.findall(r'<(total|system) type="(\w+)"(?: count="\d+")? size="(\d+)"', tail)
    sizes = {f"{tag} {kind}": int(size) for tag, kind, size in found}
    free = sizes.get("total fast", 0) + sizes.get("total rest", 0)
    held = sizes.get("system current", 0)
    return {"malloc_used_kb": (held - free + sizes.get("total mmap", 0)) // 1024,
            "malloc_free_kb": free // 1024}  # fmt: skip


def _holders(name: str, limit: int) -> JSON:
    """What refers to the objects of type ``name``: chains of referrer types, three
    deep, counted (a debugging aid: which structure keeps them)."""
    found = [o for o in gc.get_objects() if type(o).__name__ == name][-limit:]
    chains: Counter[str] = Counter()
    ignore = {id(found)}

    def label(o: Any) -> str:
        if isinstance(o, dict):
            return "dict(" + ",".join(map(str, itertools.islice(o, 4)))[:80] + ")"
        if callable(o) and hasattr(o, "__qualname__"):
            return f"{type(o).__name__} {o.__qualname__}"
        return type(o).__name__

    def walk(o: Any, path: tuple[str, ...]) -> None:
        if len(path) == 3:
            chains[" <- ".join(path)] += 1
            return
        referrers = [r for r in gc.get_referrers(o) if id(r) not in ignore
                     and not isinstance(r, type(sys._getframe()))]  # fmt: skip
        ignore.add(id(referrers))
        if not referrers:
            chains[" <- ".join(path)] += 1
        for r in referrers[:3]:
            walk(r, (*path, label(r)))

    for o in found:
        walk(o, (name,))
    return dict(chains.most_common(12))


def structures(server: Any) -> JSON:
    """The sizes of the server's per-table and per-connection structures."""
    tables = server.tables
    writer = server.writer
    listening = server._server
    return {
        "clients": len(server.clients),
        "sockets": server.sockets,
        "per_address": len(server.per_address),
        "open_tables": len(tables.open),
        "per_token": len(tables.per_token),
        "table_buckets": len(tables.buckets),
        "loading": len(tables._loading),
        "waking": len(tables._waking),
        "dropped": len(tables._dropped),
        "outbox_sizes": len(server.outbox._sizes),
        "writer_pending": writer.pending if writer is not None else 0,
        "writer_poisoned": len(writer._poisoned) if writer is not None else 0,
        "websockets_handlers": len(getattr(listening, "handlers", ())),
        **(cluster_structures(server) if hasattr(server, "ownership") else {}),
    }


def cluster_structures(server: Any) -> JSON:
    """What a ``serve --redis`` process holds per table, lease and forward."""
    protocols = [p for p in server.tables.open.values() if hasattr(p, "parked")]
    pool = server.redis.connection_pool if server.redis is not None else None
    return {
        "owned": len(server.ownership.owned),
        "renewed": len(server._renewed),
        "used": len(server._used),
        "waiting": len(server._waiting),
        "counted": len(server._counted),
        "cluster_tasks": len(server._tasks),
        "loops": sum(not task.done() for task in server._loops),
        "parked": sum(len(p.parked) for p in protocols),
        "forwards_out": sum(p.forwards_out for p in protocols),
        "redis_pool_connections": len(getattr(pool, "_connections", ())),
    }


#: The state of a table in memory that :func:`diagnose` reports (what keeps it there).
TABLE_STATE = (
    "members", "_attached", "_writes", "_holding", "_reading", "_asked_reads", "_held",
    "broken", "syncing", "again", "forwards_out", "parked", "wanted", "durable_seq",
)  # fmt: skip


def diagnose(server: Any) -> JSON:
    """What a server holds right now: each connection and each table in memory with
    its state (a cluster's: owned here or not, forwards out, replies parked), the
    forwards waiting for an answer, and the tasks with where each waits. What
    :func:`quiet` reports when a server stays busy long after every client has gone
    (a debugging aid: it found the Redis soak's stall, docs/performance.md)."""
    clients = []
    for client in list(server.clients):
        protocol = client.protocol
        clients.append({
            "state": client.connection.state.name, "closing": client.closing,
            "forwarding": client.forwarding, "table": getattr(protocol.table, "id", None),
            "member": protocol.member.principal.label() if protocol.member else None,
            "closed": protocol.closed, "tasks": len(client._tasks),
        })  # fmt: skip
    owned = getattr(getattr(server, "ownership", None), "owned", frozenset())
    tables = {}
    for table_id, table in list(server.tables.open.items()):
        state = {name: getattr(table, name) for name in TABLE_STATE if hasattr(table, name)}
        tables[table_id] = {
            **{k: len(v) if hasattr(v, "__len__") else v for k, v in state.items()},
            "idle": table.idle, "owned": table_id in owned, "seq": table.table.info.seq,
        }  # fmt: skip
    tasks = []
    for task in asyncio.all_tasks():
        where = [f"{Path(f.f_code.co_filename).name}:{f.f_lineno} {f.f_code.co_name}"
                 for f in task.get_stack(limit=12)]  # fmt: skip
        tasks.append({"name": _task_name(task), "stack": where})
    return {"clients": clients, "tables": tables, "owned": sorted(owned),
            "forwards_waiting": len(getattr(server, "_waiting", ())), "tasks": tasks}  # fmt: skip


def _timers(loop: asyncio.AbstractEventLoop) -> JSON:
    """The event loop's scheduled callbacks: how many, how many of them cancelled (a
    cancelled one stays until its time comes, or a clean-up), and the seconds to the
    latest: what bounds them."""
    scheduled = list(getattr(loop, "_scheduled", ()))
    now = loop.time()
    latest = max((h.when() - now for h in scheduled), default=0.0)
    cancelled = sum(h.cancelled() for h in scheduled)
    return {"scheduled": len(scheduled), "cancelled": cancelled, "latest_s": round(latest, 1)}


def _task_name(task: asyncio.Task) -> str:
    coroutine = task.get_coro()
    return getattr(coroutine, "__qualname__", type(coroutine).__name__)


async def serve_main(args: argparse.Namespace) -> None:
    """The child: a server as ``rollbridge serve`` runs it, answering commands (JSON
    lines on stdin) about itself."""
    from rollbridge.dice import SeededDice
    from rollbridge.server import Server
    from rollbridge.server.limits import Limits
    from rollbridge.server.logs import configure

    configure("INFO", "json")
    raise_nofile()
    draws = itertools.count()
    seeds = "soak" if args.node == "a" else f"soak-{args.node}"
    options: JSON = {
        "address": ADDRESS,
        "port": 0,
        # seeded dice; process B of --redis draws its own seeds
        "dice": lambda: SeededDice(f"{seeds}:{next(draws)}"),
        "manage_gc": True,
        # the defaults, less the connections per address (every client is on
        # 127.0.0.1) and a short hello timeout, so the soak sees it cut clients off
        "limits": Limits(per_address=None, hello_timeout=HELLO_TIMEOUT),
    }
    if args.db.startswith("redis://"):  # one of the processes of `serve --redis`
        from rollbridge.cli.stores import process_id
        from rollbridge.server.cluster import ClusterServer

        store = open_store(args.db, args.retain, writer=process_id())
        server: Server = ClusterServer(store, make_host(), redis_url=args.db,
                                       lease_ms=args.lease_ms, **options)  # fmt: skip
    else:
        server = Server(SQLiteStore(args.db, retain=args.retain), make_host(), **options)
    await server.start()
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=2**24)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)

    def answer(message: JSON) -> None:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()

    answer({"ready": True, "port": server.port, "pid": os.getpid()})
    base: Any = None
    while line := await reader.readline():
        command = json.loads(line)
        name = command["cmd"]
        if name == "sample":
            # frozen objects (the server's collector manager) are neither collected
            # nor listed by gc: a full pass as the manager makes one
            gc.unfreeze()
            gc.collect()
            types = Counter(type(o).__name__ for o in gc.get_objects())
            tasks = Counter(_task_name(t) for t in asyncio.all_tasks())
            figures = _proc_figures()
            if command.get("trim"):  # what of the RSS glibc holds free and can give back
                import ctypes

                ctypes.CDLL(None).malloc_trim(0)
                figures["rss_trimmed_kb"] = _proc_figures()["rss_kb"]
            answer({**figures, "tasks": sum(tasks.values()), "task_names": tasks,
                    "timers": _timers(loop), "objects": sum(types.values()), "types": types,
                    "blocks": sys.getallocatedblocks(), **_malloc(),
                    "structures": structures(server)})  # fmt: skip
            gc.freeze()
        elif name == "trace_start":
            import tracemalloc

            gc.unfreeze()
            gc.collect()
            gc.freeze()
            tracemalloc.start(command.get("frames", 8))
            base = tracemalloc.take_snapshot()
            answer({"tracing": True})
        elif name == "trace_diff":
            import tracemalloc

            gc.unfreeze()
            gc.collect()
            gc.freeze()
            snapshot = tracemalloc.take_snapshot()
            diff = snapshot.compare_to(base, "traceback")
            top = []
            for stat in diff[: command.get("top", 10)]:
                top.append({"size_diff": stat.size_diff, "count_diff": stat.count_diff,
                            "traceback": stat.traceback.format()[-16:]})  # fmt: skip
            answer({"top": top})
        elif name == "diagnose":
            answer(diagnose(server))
        elif name == "holders":
            gc.unfreeze()
            gc.collect()
            answer(_holders(command["type"], command.get("limit", 200)))
            gc.freeze()
        elif name == "stop":
            break
    await server.stop()
    answer({"stopped": True})


def _die_with_parent() -> Any:
    """What the server child runs before the server: a SIGTERM asked for when the
    soak's process ends (Linux's parent-death signal), so a soak killed outright —
    kill -9, a test's timeout — leaves no server behind. (A ``_serve`` child also
    stops at the end of its stdin; ``rollbridge serve`` reads none, and ran on for
    good.) The C library is looked up here, before the fork: the child only calls."""
    import ctypes

    prctl = ctypes.CDLL(None, use_errno=True).prctl
    parent = os.getpid()

    def ask() -> None:
        prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        if os.getppid() != parent:  # the soak ended before the signal was asked for
            os.kill(os.getpid(), signal.SIGTERM)

    return ask


class ServerChild:
    """The parent's handle on the server: a ``_serve`` child, or ``rollbridge serve``."""

    def __init__(self, process: asyncio.subprocess.Process, port: int, log: Path) -> None:
        self.process = process
        self.pid = process.pid
        self.port = port
        self.log = log
        self.inside = True

    @classmethod
    async def start(cls, db: Path | str, log: Path, cli: bool, retain: int,
                    extra: tuple[str, ...] = ()) -> ServerChild:  # fmt: skip
        stderr = log.open("ab")
        tied = _die_with_parent()
        if cli:
            port = _free_port()
            argv = [
                sys.executable, "-m", "rollbridge", "serve", "--db", str(db), "--host", ADDRESS,
                "--port", str(port), "--no-demo", "--log-format", "json",
                "--max-connections-per-address", "0", "--hello-timeout", str(HELLO_TIMEOUT),
                "--retain", str(retain),
            ]  # fmt: skip
            process = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
                stderr=stderr, preexec_fn=tied,
            )  # fmt: skip
            child = cls(process, port, log)
            child.inside = False
            try:
                await child._wait_listening()
            except BaseException:  # slow to start, or interrupted: not left running
                await child.stop()
                raise
            return child
        argv = [sys.executable, str(Path(__file__).resolve()), "_serve", "--db", str(db),
                "--retain", str(retain), *extra]  # fmt: skip
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=stderr, limit=2**24, preexec_fn=tied,
        )  # fmt: skip
        try:
            line = await asyncio.wait_for(process.stdout.readline(), 60)  # type: ignore[union-attr]
        except BaseException:  # slow to start, or interrupted: not left running
            if process.returncode is None:
                process.kill()
            await process.wait()
            raise
        if not line:
            raise RuntimeError(f"the server did not start (exit {await process.wait()})")
        return cls(process, json.loads(line)["port"], log)

    async def _wait_listening(self) -> None:
        for _ in range(300):
            with contextlib.suppress(OSError):
                await http_get(self.port, "/healthz")
                return
            if self.process.returncode is not None:
                break
            await asyncio.sleep(0.1)
        raise RuntimeError(f"rollbridge serve did not start (see {self.log})")

    async def call(self, cmd: str, **fields: Any) -> JSON:
        self.process.stdin.write((json.dumps({"cmd": cmd, **fields}) + "\n").encode())  # type: ignore[union-attr]
        line = await self.process.stdout.readline()  # type: ignore[union-attr]
        if not line:
            raise RuntimeError("the server exited")
        return json.loads(line)

    async def sample(self, trim: bool = False) -> JSON:
        if self.inside:
            return await self.call("sample", trim=trim)
        return _proc_figures(self.pid)

    async def kill(self) -> None:
        """SIGKILL: no goodbye (its leases run out, its lists expire)."""
        self.process.kill()
        await self.process.wait()

    async def stop(self) -> None:
        if self.inside:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.call("stop"), 60)
            with contextlib.suppress(Exception):
                self.process.stdin.close()  # type: ignore[union-attr]
        elif self.process.returncode is None:
            self.process.terminate()
        await _ended(self.process, 60)


async def _ended(process: asyncio.subprocess.Process, timeout: float) -> None:
    """Wait for a child that was asked to end; killed after ``timeout`` seconds."""
    try:
        await asyncio.wait_for(process.wait(), timeout)
    except TimeoutError:
        process.kill()
        await process.wait()


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind((ADDRESS, 0))
        return sock.getsockname()[1]


# -- clients ----------------------------------------------------------------------


async def http_get(port: int, path: str, headers: dict[str, str] | None = None,
                   method: str = "GET") -> tuple[int, bytes]:  # fmt: skip
    """A plain HTTP/1.1 request without a body; (status, body)."""
    reader, writer = await asyncio.open_connection(ADDRESS, port)
    try:
        lines = [f"{method} {path} HTTP/1.1", f"Host: {ADDRESS}:{port}", "Connection: close"]
        lines += [f"{name}: {value}" for name, value in (headers or {}).items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        data = await asyncio.wait_for(reader.read(), 30)
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


async def metric_values(port: int) -> dict[str, float]:
    """The unlabelled samples of ``/metrics``."""
    _, body = await http_get(port, "/metrics")
    values = {}
    for line in body.decode().splitlines():
        if line and not line.startswith("#") and "{" not in line:
            name, _, value = line.partition(" ")
            values[name] = float(value)
    return values


class Tally:
    """What the load generator saw: replies by outcome, and what went wrong."""

    def __init__(self) -> None:
        self.outcomes: Counter[str] = Counter()
        self.http: Counter[str] = Counter()

    def reply(self, request: str, message: JSON) -> None:
        kind = message.get("type")
        outcome = f"error {message.get('code')}" if kind == "error" else str(kind)
        self.outcomes[f"{request}: {outcome}"] += 1


class Peer:
    """A protocol client over websockets: replies by id, the last seq seen."""

    def __init__(self, connection: ClientConnection, binary: bool, tally: Tally) -> None:
        self.connection = connection
        self.binary = binary
        self.tally = tally
        self.replies: dict[Any, JSON] = {}
        self.arrived = asyncio.Event()
        self.epoch: int | None = None
        self.seq = 0
        self.counter = itertools.count()
        #: The type of each request sent and not yet answered, by id.
        self.kinds: dict[Any, str] = {}
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, port: int, tally: Tally, binary: bool = False) -> Peer:
        connection = await connect(f"ws://{ADDRESS}:{port}/", max_size=2**22, open_timeout=30)
        return cls(connection, binary, tally)

    async def _read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for frame in self.connection:
                message = msgpack.unpackb(frame) if isinstance(frame, bytes) else json.loads(frame)
                kind = message.get("type")
                if kind == "event":
                    self.epoch, self.seq = message["epoch"], message["seq"]
                elif kind in ("welcome", "result", "error", "pong"):
                    if kind == "welcome":
                        self.epoch, self.seq = message["epoch"], message["seq"]
                    self.replies[message.get("id")] = message
                    self.tally.reply(self.kinds.pop(message.get("id"), "?"), message)
                self.arrived.set()
        self.arrived.set()

    async def send(self, message: JSON) -> Any:
        request_id = message.get("id") or f"{id(self):x}-{next(self.counter)}"
        message = {**message, "id": request_id}
        self.kinds[request_id] = str(message.get("type"))
        await self.connection.send(msgpack.packb(message) if self.binary else json.dumps(message))
        return request_id

    async def reply(self, request_id: Any, timeout: float = 30) -> JSON | None:
        async def wait() -> JSON | None:
            while request_id not in self.replies:
                if self.reader.done():
                    return None
                self.arrived.clear()
                await self.arrived.wait()
            return self.replies.pop(request_id)

        return await asyncio.wait_for(wait(), timeout)

    async def request(self, message: JSON) -> JSON | None:
        return await self.reply(await self.send(message))

    def abort(self) -> None:
        """Drop the TCP connection without a close frame."""
        self.connection.transport.abort()

    async def close(self) -> None:
        await self.connection.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.reader, 10)


async def join(port: int, table_id: str, token: str, tally: Tally, *, binary: bool = False,
               locale: str | None = None, resume: JSON | None = None,
               dialect: str | None = None) -> Peer:  # fmt: skip
    peer = await Peer.open(port, tally, binary)
    hello: JSON = {"type": "hello", "table": table_id, "token": token}
    if dialect is not None:
        hello["dialect"] = dialect
    if locale is not None:
        hello["locale"] = locale
    if resume is not None:
        hello["resume"] = resume
    welcome = await peer.request(hello)
    if welcome is None or welcome.get("type") != "welcome":
        raise RuntimeError(f"hello at {table_id} refused: {welcome}")
    return peer


async def play_table(port: int | tuple[int, int], table_id: str, table: JSON, cycle: int,
                     tally: Tally) -> None:  # fmt: skip
    """One table's churn in one cycle (see the module docstring). ``port``: one server's,
    or two: the GM, the observer and HTTP on the first, the player on the second (so
    that, with ``serve --redis``, one of them is forwarded to the other's process)."""
    port, player_port = port if isinstance(port, tuple) else (port, port)
    tokens, spec = table["tokens"], RULESETS[table["ruleset"]]
    pc = spec["actors"][0][0]
    number = zlib.crc32(table_id.encode())
    binary = (number + cycle) % 2 == 0
    locale = LOCALES[(number + cycle) % len(LOCALES)]
    dialect = "foundry" if number % 3 == 0 else None  # a Foundry module's GM
    gm = await join(
        port, table_id, tokens["gm"], tally, binary=binary, locale=locale, dialect=dialect
    )
    player = await join(player_port, table_id, tokens["player"], tally, binary=not binary)
    first, second = ({"type": "resolve", "actor": pc, **action} for action in spec["actions"])
    answer = await player.request(first)
    if answer is not None and answer.get("code") == "unknown_actor":  # the NPC was removed
        await gm.request({"type": "actor.create", "actor": table["npc"]})
        answer = await player.request(first)
    if answer is not None and isinstance(answer.get("seq"), int):
        # the GM takes that action back, naming it: a miss changes nothing and is no
        # change to undo, so a bare undo would take the one before (the NPC's
        # creation); named, it is refused not_latest
        await gm.request({"type": "undo", "seq": answer["seq"]})
    await player.request(second)
    await player.request({"type": "roll", "formula": "2d6+1", "actor": pc})
    await player.request({"type": "odds", "formula": "3d6"})
    await player.request({"type": "odds", **{k: v for k, v in first.items() if k != "type"}})
    await player.request({"type": "stats"})
    await gm.request({"type": "state"})
    await gm.request({"type": "state", "at": max(1, gm.seq - 2)})
    # an approval, and an encounter of a round
    await gm.request({"type": "settings", "settings": {"approval": True}})
    held = await player.request({"type": "roll", "formula": "1d6", "actor": pc})
    if held is not None and held.get("status") == "pending":
        await gm.request({"type": "approve", "request": held["pending"]})
    await gm.request({"type": "settings", "settings": {"approval": False}})
    await gm.request({"type": "encounter.start", "order": [a[0] for a in spec["actors"]]})
    await gm.request({"type": "encounter.next"})
    await gm.request({"type": "encounter.end"})
    # refused: an undecodable frame, an unknown type, parameters that fail the schema
    await player.connection.send("{not json")
    await player.request({"type": "no.such.request"})
    await player.request({"type": "resolve", "actor": pc, "action": spec["actions"][0]["action"],
                          "params": {"no_such_parameter": 1}})  # fmt: skip
    # a dropped connection with a request out, then its resume from the seq it saw
    seen = {"epoch": player.epoch, "seq": player.seq}
    await player.send({"type": "roll", "formula": "3d6", "actor": pc})
    player.abort()
    await gm.request({"type": "roll", "formula": "1d20", "secret": True})
    back = await join(player_port, table_id, tokens["player"], tally, binary=binary,
                      resume=seen)  # fmt: skip
    # the connection's rate: 60 pings at once, some refused
    observer = await join(port, table_id, tokens["observer"], tally, binary=True)
    pings = [await observer.send({"type": "ping"}) for _ in range(60)]
    for ping in pings:
        await observer.reply(ping)
    await observer.close()
    # HTTP on the same port
    for route, path, headers in (
        ("page", f"/tables/{table_id}", None),
        ("static", "/static/web/table.mjs", None),
        ("export", f"/tables/{table_id}/export?format=jsonl",
         {"Authorization": f"Bearer {tokens['gm']}"}),
    ):  # fmt: skip
        status, _ = await http_get(port, path, headers)
        tally.http[f"{route} {status}"] += 1
    await back.request({"type": "state"})
    await back.send({"type": "state", "at": 1})  # closed with a read of the log still out
    for peer in (back, gm, player):
        await peer.close()


async def rotate(port: int, tables: dict[str, JSON], admin: str, count: int, cycle: int,
                 tally: Tally, keep: list[str], deleted: int = 0) -> None:  # fmt: skip
    """Tables come and go: the ``count`` oldest are deleted and as many made (the
    admin API), each new one seated by its GM; on each, a player token is issued,
    joins, and is revoked (the server cuts its connection off). ``deleted``: how many
    of the ``count`` were deleted already (by :func:`delete_in_play`)."""
    bearer = {"Authorization": f"Bearer {admin}"}
    for table_id in [t for t in tables if t not in keep][: count - deleted]:
        status, _ = await http_get(port, f"/admin/tables/{table_id}", bearer, "DELETE")
        tally.http[f"admin delete {status}"] += 1
        del tables[table_id]
    for n in range(count):
        ruleset = ORDER[(cycle + n) % len(ORDER)]
        status, body = await http_get(
            port, f"/admin/tables?ruleset={ruleset}&name=Rotated%20{cycle}-{n}", bearer, "POST"
        )
        tally.http[f"admin create {status}"] += 1
        made = json.loads(body)
        table_id, tokens = made["id"], made["tokens"]
        gm = await join(port, table_id, tokens["gm"], tally)
        pc, npc = actors_of(ruleset)
        for actor in (pc, npc):
            await gm.request({"type": "actor.create", "actor": actor})
        status, body = await http_get(
            port, f"/admin/tables/{table_id}/tokens?role=player&name=guest", bearer, "POST"
        )
        tally.http[f"admin token {status}"] += 1
        guest = json.loads(body)
        visitor = await join(port, table_id, guest["token"], tally)
        status, _ = await http_get(
            port, f"/admin/tables/{table_id}/tokens/{guest['id']}", bearer, "DELETE"
        )
        tally.http[f"admin revoke {status}"] += 1
        await asyncio.wait_for(visitor.reader, 30)  # cut off by the server
        await gm.close()
        tables[table_id] = {"ruleset": ruleset, "tokens": tokens, "npc": npc}


async def strays(port: int, count: int, tally: Tally, tokens: tuple[str, str] | None) -> None:
    """Connections that never join: some close, some wait to be cut off (the hello
    timeout), some ``ping`` first, some say ``hello`` with a wrong token, some say it
    with a right one (``tokens``: a table and a token) and drop the connection at once."""

    async def one(n: int) -> None:
        peer = await Peer.open(port, tally, binary=n % 2 == 0)
        if n % 4 == 0:
            await peer.request({"type": "ping"})
            await peer.close()
        elif n % 4 == 1:
            await peer.request({"type": "hello", "table": "soak-0000", "token": "rbt_wrong"})
            await peer.close()
        elif n % 4 == 2 and tokens is not None and n % 8 == 2:  # gone while its hello is answered
            await peer.send({"type": "hello", "table": tokens[0], "token": tokens[1]})
            peer.abort()
        elif n % 4 == 2:
            await peer.close()
        else:  # silent until the server closes it
            await asyncio.wait_for(peer.reader, HELLO_TIMEOUT + 20)

    await asyncio.gather(*(one(n) for n in range(count)))


#: Seconds :func:`quiet` waits before it says what the server still holds (and again
#: every as many seconds).
STALL_REPORT = 10.0


async def quiet(port: int, residents: int = 0, timeout: float = 60.0,
                child: ServerChild | None = None, name: str = "the server") -> JSON:  # fmt: skip
    """Wait until no connection is open and no table is loaded but the residents';
    the gauges then. Past :data:`STALL_REPORT` seconds (and again every as many),
    the gauges are written to stderr, with what ``child`` holds, if it can say
    (:func:`diagnose`): what a stall waits for."""
    deadline = time.monotonic() + timeout
    report = time.monotonic() + STALL_REPORT
    while True:
        values = await metric_values(port)
        figures = {
            "connections": values.get("rollbridge_connections", -1),
            "open_tables": values.get("rollbridge_open_tables", -1),
        }
        if all(v == residents for v in figures.values()) or time.monotonic() > deadline:
            return figures
        if time.monotonic() > report:
            report = time.monotonic() + STALL_REPORT
            held = await child.call("diagnose") if child is not None and child.inside else {}
            print(f"still waiting for {name} to be quiet (residents {residents}): {figures}\n"
                  f"{json.dumps(held, indent=1)}", file=sys.stderr, flush=True)  # fmt: skip
        await asyncio.sleep(0.2)


def _log_lines(path: Path) -> Counter[str]:
    """Lines of the server's JSON log by level and logger."""
    counts: Counter[str] = Counter()
    with path.open("rb") as file:
        for raw in file:
            try:
                line = json.loads(raw)
            except ValueError:
                counts["(not json)"] += 1
                continue
            counts[f"{line.get('level')} {line.get('logger')}"] += 1
    return counts


# -- the run ----------------------------------------------------------------------


def slope(values: list[float]) -> float:
    """The least-squares slope of ``values`` against their index (0 for fewer than 2)."""
    n = len(values)
    if n < 2:
        return 0.0
    mean_x, mean_y = (n - 1) / 2, sum(values) / n
    num = sum((x - mean_x) * (y - mean_y) for x, y in enumerate(values))
    return num / sum((x - mean_x) ** 2 for x in range(n))


def config_of(args: argparse.Namespace, server: str, seeded: float, **more: Any) -> JSON:
    """A run's settings, as its report gives them."""
    names = ("tables", "cycles", "warmup", "strays", "rotate", "resident", "retain",
             "concurrency")  # fmt: skip
    return {**{name: getattr(args, name) for name in names}, **more, "server": server,
            "seed_s": round(seeded, 1)}  # fmt: skip


async def soak(args: argparse.Namespace, workdir: Path) -> JSON:
    raise_nofile()
    db, log = workdir / "soak.db", workdir / "server.log"
    started = time.perf_counter()
    tables, admin = seed(db, args.tables)
    seeded = time.perf_counter() - started
    server = await ServerChild.start(db, log, args.cli, args.retain)
    tally = Tally()
    samples: list[JSON] = []
    traced: JSON | None = None
    residents: list[Peer] = []
    try:
        await quiet(server.port, child=server)
        # observers that stay all along: their tables never leave memory
        resident = list(tables)[-args.resident :] if args.resident else []
        for table_id in resident:
            token = tables[table_id]["tokens"]["observer"]
            residents.append(await join(server.port, table_id, token, tally))
        await quiet(server.port, len(residents), child=server)
        before = await server.sample()
        samples.append({"cycle": 0, "seconds": 0.0, **before, "log": {}})
        _say(args, f"before: {_line(before)}")
        log_seen: Counter[str] = _log_lines(log)
        semaphore = asyncio.Semaphore(args.concurrency)

        async def bounded(table_id: str, cycle: int) -> None:
            async with semaphore:
                await play_table(server.port, table_id, tables[table_id], cycle, tally)

        for cycle in range(1, args.cycles + 1):
            _stop_if_terminated()
            if args.trace and cycle == args.warmup + 1 and server.inside:
                await server.call("trace_start")
            start = time.perf_counter()
            await rotate(server.port, tables, admin, args.rotate, cycle, tally, resident)
            first = next(iter(tables))
            await asyncio.gather(
                strays(server.port, args.strays, tally, (first, tables[first]["tokens"]["player"])),
                *(bounded(table_id, cycle) for table_id in tables),
            )
            for path in ("/metrics", "/readyz", "/healthz"):
                status, _ = await http_get(server.port, path)
                tally.http[f"{path} {status}"] += 1
            gauges = await quiet(server.port, len(residents), child=server)
            seconds = time.perf_counter() - start
            # what is let go after a set time (a closed client's abort timer, the
            # close timeout) is not a leak: sampled once that time has passed
            await asyncio.sleep(args.settle)
            sample = await server.sample(args.trim)
            lines = _log_lines(log)
            sample.update(cycle=cycle, seconds=round(seconds, 1), gauges=gauges,
                          log=dict(lines - log_seen))  # fmt: skip
            log_seen = lines
            samples.append(sample)
            _say(args, f"cycle {cycle}: {seconds:.1f} s, {_line(sample)}")
        if args.trace and server.inside:
            traced = await server.call("trace_diff", top=args.trace_top)
        for name in args.holders if server.inside else ():
            holders = await server.call("holders", type=name)
            _say(args, f"holders of {name}: {json.dumps(holders, indent=1)}")
        for peer in residents:
            await peer.close()
    finally:
        await server.stop()
    return {
        "config": config_of(
            args, "rollbridge serve" if args.cli else "Server (child process)", seeded
        ),
        "samples": samples,
        "growth": growth(samples, args.warmup),
        "replies": dict(tally.outcomes.most_common()),
        "http": dict(tally.http),
        "trace": traced,
    }


# -- serve --redis: two processes on one redis-server --------------------------------


async def delete_in_play(ports: tuple[int, int], table_id: str, table: JSON, admin: str,
                         tally: Tally) -> None:  # fmt: skip
    """A table deleted while it is played on two processes: its GM on the first
    (whose roll takes the lease there), its player on the second sending rolls (each
    forwarded to the first) before, while and after the first's admin API deletes
    it; both are cut off (1008, the table gone)."""
    tokens = table["tokens"]
    gm = await join(ports[0], table_id, tokens["gm"], tally)
    await gm.request({"type": "roll", "formula": "1d6"})
    player = await join(ports[1], table_id, tokens["player"], tally)
    for _ in range(3):
        await player.send({"type": "roll", "formula": "1d6"})
    bearer = {"Authorization": f"Bearer {admin}"}
    status, _ = await http_get(ports[0], f"/admin/tables/{table_id}", bearer, "DELETE")
    tally.http[f"admin delete in play {status}"] += 1
    with contextlib.suppress(ConnectionClosed):
        for _ in range(3):
            await player.send({"type": "roll", "formula": "1d6"})
        await asyncio.sleep(0.2)
        for _ in range(3):
            await player.send({"type": "roll", "formula": "1d6"})
    await asyncio.wait_for(player.reader, 30)  # cut off once its process sees it gone
    await asyncio.wait_for(gm.reader, 30)


class RedisChild:
    """A ``redis-server`` of the soak's own (durable, as ``serve`` requires), on a free
    port of 127.0.0.1 in the work folder; stopped at the end."""

    def __init__(self, process: asyncio.subprocess.Process, port: int) -> None:
        import redis

        self.process, self.port = process, port
        self.url = f"redis://{ADDRESS}:{port}/0"
        self.client = redis.Redis(host=ADDRESS, port=port)

    @classmethod
    async def start(cls, folder: Path) -> RedisChild:
        folder.mkdir()
        port = _free_port()
        argv = [shutil.which("redis-server") or "/usr/bin/redis-server", "--port", str(port),
                "--bind", ADDRESS, "--dir", str(folder), "--appendonly", "yes",
                "--appendfsync", "always", "--save", "", "--maxmemory-policy", "noeviction",
                "--logfile", str(folder / "redis.log")]  # fmt: skip
        # tied to the soak like the servers: a soak killed outright (kill -9) left its
        # redis-server running for good, on a folder nobody would remove
        process = await asyncio.create_subprocess_exec(
            *argv, stdout=asyncio.subprocess.DEVNULL, preexec_fn=_die_with_parent()
        )
        child = cls(process, port)
        try:
            for _ in range(200):
                with contextlib.suppress(Exception):
                    if child.client.ping():
                        return child
                await asyncio.sleep(0.05)
        except BaseException:  # interrupted: not left running
            await child.stop()
            raise
        await child.stop()
        raise RuntimeError("redis-server did not start")

    def sample(self, prefix: str = "rb:") -> JSON:
        """Redis's memory, its keys by kind with the elements they hold, keys of tables
        that are not in the table index, channels and subscribers, connections."""
        client = self.client
        memory = client.info("memory")
        keys = [k.decode() for k in client.scan_iter(count=1000)]
        kinds: Counter[str] = Counter()
        kind_of: list[str] = []
        tables_seen = set()
        for key in keys:
            rest = key.removeprefix(prefix)
            if rest.startswith("{"):
                table_id, _, kind = rest[1:].partition("}:")
                tables_seen.add(table_id)
            elif rest.startswith("node:"):
                kind = "node:" + rest.rsplit(":", 1)[-1]
            else:
                kind = rest
            kinds[kind] += 1
            kind_of.append(kind)
        sizes = {"string": None, "hash": "hlen", "zset": "zcard", "list": "llen", "set": "scard",
                 "stream": "xlen"}  # fmt: skip
        with client.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.type(key)
            types = [t.decode() for t in pipe.execute()]
        with client.pipeline(transaction=False) as pipe:
            measured = [(kind, kt) for kind, kt in zip(kind_of, types, strict=True)]
            for key, (_, kt) in zip(keys, measured, strict=True):
                getattr(pipe, sizes.get(kt) or "exists")(key)
            lengths = pipe.execute()
        with client.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.memory_usage(key, samples=0)
            usage = pipe.execute()
        elements: Counter[str] = Counter()
        kind_kb: Counter[str] = Counter()
        for (kind, _), length, used in zip(measured, lengths, usage, strict=True):
            elements[kind] += int(length)
            kind_kb[kind] += int(used or 0)
        indexed = {t.decode() for t in client.zrange(f"{prefix}tables", 0, -1)}
        # the subscriptions and the leases read at one instant (MULTI): a process
        # either runs a table it holds (its lease) or follows it (its channel), and a
        # lease lost under load leaves both processes following until the next write
        # takes it again, so the two are only comparable when read together. Which
        # leases and channels there are is read in that MULTI too, by name (each
        # table's owner key and channel), not taken from the scan above: a lease taken
        # or a channel followed since the scan counts
        named_by = RedisKeys(prefix)
        known = [named_by.table(t) for t in sorted(tables_seen | indexed)]
        # and the processes' claims of their settings with their lease protocol marks:
        # a process marks itself just before each claim, both lasting three leases, so
        # every claim live at that instant has its mark (a process starved past three
        # leases has lost both: CI's load)
        with client.pipeline(transaction=True) as pipe:
            pipe.time()
            pipe.hgetall(f"{prefix}processes")
            pipe.keys(f"{prefix}node:*:lease_protocol")
            pipe.pubsub_channels()
            if known:
                pipe.pubsub_numsub(*(k.channel for k in known))
                pipe.exists(*(k.owner for k in known))
            read = pipe.execute()
        (seconds, micros), claims, marks = read[0], read[1], read[2]
        now_ms = seconds * 1000 + micros // 1000
        marked = {m.decode().removeprefix(f"{prefix}node:").rsplit(":", 1)[0] for m in marks}
        # (a claim's value: "UNTIL|settings"; one about to lapse may already have lost
        # its mark, set a moment before it: left out)
        live = {n.decode() for n, v in claims.items()
                if int(v.split(b"|", 1)[0] or 0) > now_ms + CLAIM_MARGIN_MS}  # fmt: skip
        read = read[3:]
        channels = read[0]
        subscribers: list[tuple[bytes, int]] = read[1] if known else []
        leases = read[2] if known else 0
        named = {name for name, _ in subscribers}
        others = [c for c in channels if c not in named]  # no known table's channel
        if others:
            subscribers += client.pubsub_numsub(*others)
        return {
            "used_memory_kb": memory["used_memory"] // 1024,
            "rss_kb": memory["used_memory_rss"] // 1024,
            "dbsize": client.dbsize(),
            "keys": dict(sorted(kinds.items())),
            "elements": dict(sorted(elements.items())),
            "kind_kb": {kind: round(n / 1024, 1) for kind, n in sorted(kind_kb.items())},
            "orphan_tables": len(tables_seen - indexed),
            "channels": len(channels),
            "subscribers": sum(n for _, n in subscribers),
            "leases": leases,
            "claims_unmarked": sorted(live - marked),
            "claims_live": len(live),
            "connections": len(client.client_list()),
        }

    async def stop(self) -> None:
        self.client.close()
        if self.process.returncode is None:
            self.process.terminate()
        await _ended(self.process, 30)


async def soak_redis(args: argparse.Namespace, workdir: Path) -> JSON:
    """The soak over ``serve --redis``: two processes on one ``redis-server``; the GM
    of each table on one process and its player on the other (their changes are
    forwarded to the lease owner), the sides swapped each cycle (the leases, released
    by idle tables, move); the ``--resident`` tables have an observer on each process
    all along (one process owns each for good, the other follows it); process B
    killed (``--restart kill``) or stopped and started again after the cycle in the
    middle (its residents join again). Both processes and Redis are sampled."""
    raise_nofile()
    redis_child = await RedisChild.start(workdir / "redis")
    url = redis_child.url
    extra = ("--lease-ms", str(args.lease_ms))
    logs = [workdir / "server-a.log", workdir / "server-b.log"]

    async def start(n: int) -> ServerChild:
        return await ServerChild.start(url, logs[n], False, args.retain,
                                       (*extra, "--node", "ab"[n]))  # fmt: skip

    servers: list[ServerChild] = []
    tally = Tally()
    samples: list[JSON] = []
    residents: list[list[Peer]] = [[], []]
    # B restarted in the middle of the counted cycles, with cycles left to count after
    # its own warm-up
    restart_at = (args.cycles + args.warmup) // 2 if args.restart != "none" else 0
    restarted = 0
    try:  # from here on, whatever happens (SIGTERM too), the children are stopped
        started = time.perf_counter()
        tables, admin = seed(url, args.tables)
        seeded = time.perf_counter() - started
        servers.append(await start(0))
        servers.append(await start(1))
        resident = list(tables)[-args.resident :] if args.resident else []

        async def seat(n: int) -> None:
            """An observer of each resident table on process ``n``, all along: one of
            the two processes owns the table for good, the other follows it."""
            for table_id in resident:
                token = tables[table_id]["tokens"]["observer"]
                residents[n].append(await join(servers[n].port, table_id, token, tally))

        await seat(0)
        await seat(1)

        async def settled() -> list[JSON]:
            return [await quiet(s.port, len(resident), child=s, name=f"process {'AB'[n]}")
                    for n, s in enumerate(servers)]  # fmt: skip

        async def sample(cycle: int, seconds: float, gauges: Any, seen: list[Counter[str]]) -> None:
            entry: JSON = {"cycle": cycle, "seconds": round(seconds, 1), "gauges": gauges}
            for n, server in enumerate(servers):
                figures = await server.sample(args.trim)
                lines = _log_lines(logs[n])
                figures["log"], seen[n] = dict(lines - seen[n]), lines
                entry["ab"[n]] = figures
            entry["redis"] = redis_child.sample()
            samples.append(entry)
            _say(args, f"cycle {cycle}: {seconds:.1f} s")
            for n in range(2):
                _say(args, f"  {'AB'[n]}: {_line(entry['ab'[n]])}")
            _say(args, f"  redis: {_redis_line(entry['redis'])}")

        seen: list[Counter[str]] = [Counter(), Counter()]
        await sample(0, 0.0, await settled(), seen)
        semaphore = asyncio.Semaphore(args.concurrency)
        ports = [server.port for server in servers]

        async def bounded(n: int, table_id: str, cycle: int) -> None:
            side = (n + cycle) % 2  # the GM's process; the player is on the other
            async with semaphore:
                await play_table((ports[side], ports[1 - side]), table_id, tables[table_id],
                                 cycle, tally)  # fmt: skip

        for cycle in range(1, args.cycles + 1):
            _stop_if_terminated()
            start_time = time.perf_counter()
            side = cycle % 2
            doomed = [t for t in tables if t not in resident][: min(1, args.rotate)]
            for table_id in doomed:  # the first of the tables rotated out, deleted in play
                await delete_in_play((ports[side], ports[1 - side]), table_id,
                                     tables.pop(table_id), admin, tally)  # fmt: skip
            await rotate(ports[side], tables, admin, args.rotate, cycle, tally, resident,
                         len(doomed))  # fmt: skip
            first = next(iter(tables))
            token = (first, tables[first]["tokens"]["player"])
            await asyncio.gather(
                strays(ports[0], args.strays // 2, tally, token),
                strays(ports[1], args.strays - args.strays // 2, tally, token),
                *(bounded(n, table_id, cycle) for n, table_id in enumerate(tables)),
            )
            for port in ports:
                for path in ("/metrics", "/readyz", "/healthz"):
                    status, _ = await http_get(port, path)
                    tally.http[f"{path} {status}"] += 1
            gauges = await settled()
            seconds = time.perf_counter() - start_time
            await asyncio.sleep(args.settle)
            if cycle == restart_at:  # B goes (killed: its leases run out) and comes back
                if args.restart == "kill":
                    await servers[1].kill()
                else:
                    await servers[1].stop()
                residents[1] = []
                servers[1] = await start(1)
                ports[1] = servers[1].port
                await seat(1)
                restarted = cycle
                gauges = await settled()
                await asyncio.sleep(args.settle)
            await sample(cycle, seconds, gauges, seen)
        for name in args.holders:
            for server in servers:
                holders = await server.call("holders", type=name)
                _say(args, f"holders of {name}: {json.dumps(holders, indent=1)}")
        for peer in residents[0] + residents[1]:
            await peer.close()
    finally:
        for server in servers:
            await server.stop()
        await redis_child.stop()
    counted = [s for s in samples if s["cycle"] > args.warmup]
    # B restarted: counted after its own warm-up (the restart cycle's sample is of a
    # fresh process)
    after_restart = (
        [s for s in counted if s["cycle"] >= restarted + args.warmup] if restarted else counted
    )
    return {
        "config": config_of(
            args,
            "2 ClusterServer child processes, one redis-server",
            seeded,
            lease_ms=args.lease_ms,
            restart=f"{args.restart} B after cycle {restarted}" if restarted else "none",
        ),
        "samples": samples,
        "growth": {
            "a": growth([{**s["a"], "cycle": s["cycle"]} for s in counted], 0),
            "b": growth([{**s["b"], "cycle": s["cycle"]} for s in after_restart], 0),
            "redis": {
                key: round(slope([s["redis"][key] for s in counted]), 1)
                for key in ("used_memory_kb", "dbsize", "channels", "subscribers", "connections")
            },
            "redis_elements": {
                kind: round(slope([s["redis"]["elements"].get(kind, 0) for s in counted]), 1)
                for kind in counted[-1]["redis"]["elements"]
            }
            if counted
            else {},
        },
        "replies": dict(tally.outcomes.most_common()),
        "http": dict(tally.http),
        "trace": None,
    }


def _redis_line(sample: JSON) -> str:
    return (f"used {sample['used_memory_kb'] / 1024:.1f} MiB, keys {sample['dbsize']}, "
            f"orphan tables {sample['orphan_tables']}, channels {sample['channels']}, "
            f"subscribers {sample['subscribers']}, connections {sample['connections']}, "
            f"node lists {[k for k in sample['keys'] if k.startswith('node:')]}, "
            f"elements {sample['elements']}")  # fmt: skip


def print_redis_report(result: JSON) -> None:
    info = result["machine"]
    print(f"machine: {info['cpus']} CPUs, Python {info['python']}; load {info['loadavg']}")
    print("config: " + ", ".join(f"{k}={v}" for k, v in result["config"].items()))
    print(
        "cycle  seconds | A: RSS MiB  malloc  fds thr tasks timers objects | B: RSS MiB  "
        "malloc  fds thr tasks timers objects | Redis: used MiB  keys  chan  subs  conns"
    )
    for s in result["samples"]:
        row = f"{s['cycle']:>5}  {s['seconds']:>7}"
        for n in "ab":
            p = s[n]
            row += (f" | {p['rss_kb'] / 1024:>10.1f}  {p.get('malloc_used_kb', 0) / 1024:>6.1f}  "
                    f"{p['fds']:>3} {p['threads']:>3} {p.get('tasks', '-'):>5} "
                    f"{p.get('timers', {}).get('scheduled', '-'):>6} "
                    f"{p.get('objects', '-'):>7}")  # fmt: skip
        r = s["redis"]
        row += (f" | {r['used_memory_kb'] / 1024:>15.1f}  {r['dbsize']:>4}  {r['channels']:>4}  "
                f"{r['subscribers']:>4}  {r['connections']:>5}")  # fmt: skip
        print(row)
    for name in ("a", "b"):
        g = result["growth"][name]
        print(f"growth per cycle, {name.upper()}: " + ", ".join(
            f"{k} {v}" for k, v in g.items() if not isinstance(v, dict)))  # fmt: skip
        for key in ("types_growing", "server_types_more", "structures_end"):
            if key in g:
                print(f"  {key}: {g[key]}")
    print(f"growth per cycle, Redis: {result['growth']['redis']}")
    print(f"  elements: {result['growth']['redis_elements']}")
    last = result["samples"][-1]
    print(f"Redis at the end: keys {last['redis']['keys']}")
    print(f"  elements {last['redis']['elements']}, orphan tables "
          f"{last['redis']['orphan_tables']}")  # fmt: skip
    print(f"  KiB by kind {last['redis']['kind_kb']}")
    print("  elements by cycle: " + "; ".join(
        f"{s['cycle']}: replies {s['redis']['elements'].get('replies', 0)} log "
        f"{s['redis']['elements'].get('log', 0)}" for s in result["samples"]))  # fmt: skip
    print(f"timers at the end: A {last['a'].get('timers')}, B {last['b'].get('timers')}")
    print(f"log lines of the last cycle: A {last['a']['log']}, B {last['b']['log']}")
    print(f"replies: {result['replies']}")
    print(f"http: {result['http']}")


async def flood(args: argparse.Namespace, workdir: Path) -> JSON:
    """``--refused`` connections that say ``hello`` with a token that opens nothing
    (the server closes each, 1008), 50 at a time; the server sampled at once after
    the last has gone: what it still holds of them."""
    seed(workdir / "soak.db", 1)
    server = await ServerChild.start(workdir / "soak.db", workdir / "server.log", False,
                                     args.retain)  # fmt: skip
    tally = Tally()
    semaphore = asyncio.Semaphore(50)

    async def refused(n: int) -> None:
        async with semaphore:
            peer = await Peer.open(server.port, tally)
            await peer.request({"type": "hello", "table": "soak-0000", "token": "rbt_wrong"})
            await asyncio.wait_for(peer.reader, 30)

    try:
        before = await server.sample()
        await asyncio.gather(*(refused(n) for n in range(args.refused)))
        gauges = await quiet(server.port, child=server)
        after = await server.sample()
    finally:
        await server.stop()
    figures = {}
    for name, sample in (("before", before), ("after", after)):
        figures[name] = {"Client objects": sample["types"].get("Client", 0),
                         "ServerConnection objects": sample["types"].get("ServerConnection", 0),
                         "malloc_used_kb": sample.get("malloc_used_kb"),
                         "rss_kb": sample["rss_kb"]}  # fmt: skip
    return {"config": {"refused": args.refused}, "gauges": gauges, "replies": dict(tally.outcomes),
            **figures}  # fmt: skip


def growth(samples: list[JSON], warmup: int) -> JSON:
    """Per cycle, after the warm-up: the slope of each figure, the structures'
    sizes at the end, and the object types whose count grew in every cycle."""
    counted = [s for s in samples if s["cycle"] > warmup] or samples[-1:]
    out: JSON = {}
    for key in (
        "rss_kb",
        "malloc_used_kb",
        "malloc_free_kb",
        "fds",
        "threads",
        "tasks",
        "objects",
        "blocks",
    ):
        if key in counted[0]:
            out[key] = round(slope([s[key] for s in counted]), 1)
    if "types" in counted[0]:
        steady = []
        for name in counted[-1]["types"]:
            series = [s["types"].get(name, 0) for s in counted]
            if len(series) > 1 and all(b > a for a, b in itertools.pairwise(series)):
                steady.append((name, round(slope(series), 1)))
        out["types_growing"] = dict(sorted(steady, key=lambda t: -t[1])[:15])
        # the server's own objects (and websockets'): how many more than after the warm-up
        first, last = counted[0]["types"], counted[-1]["types"]
        out["server_types_more"] = {
            name: last.get(name, 0) - first.get(name, 0)
            for name in SERVER_TYPES
            if last.get(name, 0) != first.get(name, 0)
        }
        out["structures_end"] = counted[-1]["structures"]
    return out


def _line(sample: JSON) -> str:
    parts = [f"RSS {sample['rss_kb'] / 1024:.1f} MiB", f"fds {sample['fds']}",
             f"malloc used {sample.get('malloc_used_kb', 0) / 1024:.1f} MiB",
             f"threads {sample['threads']}"]  # fmt: skip
    if "tasks" in sample:
        parts += [f"tasks {sample['tasks']}", f"objects {sample['objects']}",
                  f"Client objects {sample['types'].get('Client', 0)}"]  # fmt: skip
        held = {k: v for k, v in sample["structures"].items() if v}
        parts.append(f"held {held or 'nothing'}")
    if sample.get("log"):
        parts.append(f"log lines {sum(sample['log'].values())}")
    return ", ".join(parts)


def _say(args: argparse.Namespace, text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def print_report(result: JSON) -> None:
    info = result["machine"]
    print(f"machine: {info['cpus']} CPUs, Python {info['python']}, websockets "
          f"{info['websockets']}, SQLite {info['sqlite']}; load {info['loadavg']}")  # fmt: skip
    print("config: " + ", ".join(f"{k}={v}" for k, v in result["config"].items()))
    print("cycle  seconds  RSS MiB  trimmed  malloc MiB  fds  threads  tasks  objects  log lines")
    for s in result["samples"]:
        trimmed = f"{s['rss_trimmed_kb'] / 1024:.1f}" if "rss_trimmed_kb" in s else "-"
        used = f"{s['malloc_used_kb'] / 1024:.1f}" if "malloc_used_kb" in s else "-"
        print(f"{s['cycle']:>5}  {s['seconds']:>7}  {s['rss_kb'] / 1024:>7.1f}  {trimmed:>7}  "
              f"{used:>10}  {s['fds']:>3}  {s['threads']:>7}  {s.get('tasks', '-'):>5}  "
              f"{s.get('objects', '-'):>7}  {sum(s['log'].values()):>9}")  # fmt: skip
    print("growth per cycle after the warm-up: "
          + ", ".join(f"{k} {v}" for k, v in result["growth"].items()
                      if not isinstance(v, dict)))  # fmt: skip
    for key in ("types_growing", "server_types_more", "structures_end"):
        if key in result["growth"]:
            print(f"{key}: {result['growth'][key]}")
    last = result["samples"][-1]
    print(f"log lines of the last cycle: {last['log']}")
    print(f"replies: {result['replies']}")
    print(f"http: {result['http']}")
    if result.get("trace"):
        print("tracemalloc, after the warm-up to the end (largest growth first):")
        for stat in result["trace"]["top"]:
            print(f"  {stat['size_diff']:+} B, {stat['count_diff']:+} blocks")
            for line in stat["traceback"][-6:]:
                print(f"      {line}")


def parser() -> argparse.ArgumentParser:
    main = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    main.add_argument("--tables", type=int, default=200)
    main.add_argument("--cycles", type=int, default=8)
    main.add_argument("--warmup", type=int, default=2, help="cycles not counted in the growth")
    main.add_argument("--strays", type=int, default=40, help="connections per cycle without hello")
    main.add_argument(
        "--rotate",
        type=int,
        default=20,
        help="tables deleted and made anew per cycle (the admin API)",
    )
    main.add_argument(
        "--resident",
        type=int,
        default=20,
        help="tables with an observer connected all along (never unloaded)",
    )
    main.add_argument(
        "--settle",
        type=float,
        default=6.0,
        help="seconds waited after the clients left, before each sample",
    )
    main.add_argument(
        "--retain",
        type=int,
        default=1000,
        help="events kept per table (serve --retain): a log that stops growing",
    )
    main.add_argument(
        "--trim", action="store_true", help="also RSS after malloc_trim(0): what glibc held free"
    )
    main.add_argument("--concurrency", type=int, default=16, help="tables played at once")
    main.add_argument("--cli", action="store_true", help="run `rollbridge serve` (no inside view)")
    main.add_argument("--trace", action="store_true", help="tracemalloc from the warm-up's end")
    main.add_argument("--trace-top", type=int, default=8)
    main.add_argument(
        "--holders",
        action="append",
        default=[],
        metavar="TYPE",
        help="at the end, what refers to the objects of TYPE (a debugging aid)",
    )
    main.add_argument("--json", action="store_true")
    main.add_argument("--dir", default=None, help="where the temporary folder goes")
    main.add_argument(
        "--keep", action="store_true", help="keep the temporary folder (the servers' logs)"
    )
    main.add_argument(
        "--refused", type=int, default=300, help="flood: connections refused at their hello"
    )
    main.add_argument(
        "--redis",
        action="store_true",
        help="two `serve --redis` processes on a redis-server of the soak's own",
    )
    main.add_argument("--lease-ms", type=int, default=1000, help="--redis: the lease's length")
    main.add_argument(
        "--restart",
        choices=("kill", "stop", "none"),
        default="kill",
        help="--redis: process B killed (or stopped) and started again mid-run",
    )
    main.add_argument("mode", nargs="?", default="soak", choices=("soak", "flood", "_serve"))
    main.add_argument("--db", default=None, help=argparse.SUPPRESS)
    main.add_argument("--node", default="a", help=argparse.SUPPRESS)
    return main


#: Set by the first SIGTERM the soak's loop gets (:func:`_until_terminated`).
_TERMINATED: list[int] = []


def _stop_if_terminated() -> None:
    """Cancel the soak at a cycle's start once a SIGTERM came: the job's cancellation
    can be lost — Python 3.11's ``asyncio.wait_for`` returns its result and drops a
    cancel that lands as the awaited reply arrives — and the soak then cycled on
    until the test's 120 s ran out (seen in CI, and once alone)."""
    if _TERMINATED:
        raise asyncio.CancelledError


def _terminated(signum: int, _frame: Any) -> None:
    """SIGTERM outside the event loop: raised as :class:`SystemExit`, so that the
    ``finally`` blocks run (the soak's folder is removed)."""
    raise SystemExit(128 + signum)


async def _until_terminated(job: Coroutine[Any, Any, JSON]) -> JSON:
    """Run ``job``; a SIGTERM (a test's timeout, ``kill``) cancels it, once, so that
    its ``finally`` blocks stop the processes it started (the servers, the
    redis-server) before the soak exits (:class:`SystemExit`, status 143). Killed
    outright (SIGKILL) it cannot: then each child's parent-death signal
    (:func:`_die_with_parent`) ends it."""
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    signalled = _TERMINATED

    def terminate() -> None:
        if not signalled:  # a second SIGTERM does not cut the clean-up short
            signalled.append(signal.SIGTERM)
            task.cancel()

    loop.add_signal_handler(signal.SIGTERM, terminate)
    try:
        return await job
    except asyncio.CancelledError:
        if signalled:
            raise SystemExit(128 + signal.SIGTERM) from None
        raise
    finally:
        loop.remove_signal_handler(signal.SIGTERM)  # (which restores the default)
        signal.signal(signal.SIGTERM, _terminated)


def main(argv: list[str] | None = None) -> JSON | None:
    args = parser().parse_args(argv)
    if args.mode == "_serve":
        asyncio.run(serve_main(args))
        return None
    signal.signal(signal.SIGTERM, _terminated)
    info = machine()
    workdir = Path(tempfile.mkdtemp(prefix="bench-soak-", dir=args.dir))
    try:
        run = flood if args.mode == "flood" else soak_redis if args.redis else soak
        result = asyncio.run(_until_terminated(run(args, workdir)))
    finally:
        if args.keep:
            print(f"kept {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    result = {"machine": info, **result}
    if args.json or args.mode == "flood":
        print(json.dumps(result, indent=1, default=str))
    elif args.redis:
        print_redis_report(result)
    else:
        print_report(result)
    return result


if __name__ == "__main__":
    main()
