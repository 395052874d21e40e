"""Scale-out over Redis (issue 13, item 5): the throughput benchmark's request mix
on real ``rollbridge serve`` processes, SQLite against Redis with one and two
processes, and the bare baseline, in one run, interleaved in rounds.

Run from the repository root (``redis-server`` on PATH)::

    python benchmarks/bench_cluster.py                       # 2 rounds x 8 s
    python benchmarks/bench_cluster.py --rounds 3 --duration 10 --json

What runs, each round, one after the other (each configuration's processes are
started for its run and stopped after it; one ``redis-server`` with
``--appendonly yes --appendfsync always`` serves the whole run, a database number
per configuration):

* ``sqlite``: one ``rollbridge serve --db FILE`` (SQLite, ``synchronous=FULL``).
* ``sqlite-2``: two ``serve --db`` processes, each with its own SQLite file (a copy
  of the seeded one) and the clients of every table on one of them (table *i* to
  process *i* mod 2): the tables split by hand over two processes, what an operator
  can do without Redis. Nothing is shared; it shows what running a second process on
  the same core costs by itself, without Redis.
* ``redis-1``: one ``rollbridge serve --redis URL``.
* ``redis-2-affinity``: two ``serve --redis`` processes; all the clients of a
  table connect to the same process, chosen by table (table *i* to process *i*
  mod 2), as a load balancer with table affinity would send them. Each process
  owns half the tables; nothing is forwarded, no event crosses processes.
* ``redis-2-spread``: two ``serve --redis`` processes; the clients of every table
  are spread over both: the GM on one (it sends one heal before the run, so its
  process takes the table's lease: the owner), the player who sends the requests
  on the other, the four receivers two and two. So every attack and roll is
  *forwarded* to the owner (two list round trips through Redis), and every event
  is fanned out to both processes (the follower syncs it from the stored log).
  The worst case a balancer without affinity gives.
* ``baseline``: bench_server.py's bare websockets + msgpack server.

The load generator, the request mix (attack, roll, the GM's heal), the tables
and tokens (sr2, Tukan and a guard), the baseline and the CPU readings are
bench_server.py's, imported. The server limits a load generator would hit (per
address, per token, rates) are turned off with ``serve``'s own options (0).

Figures per run: requests/s, p50/p99 latency (send to result), and the CPU used
in the measurement window by *every* server-side process — each rollbridge
process and ``redis-server``, utime+stime from ``/proc/PID/stat`` — per request;
for ``redis-server`` with its reaped children's (cutime+cstime: the AOF rewrites it
forks as the AOF grows, which ``aof_rewrites`` in the calls counts).
Ratios are same-round ratios (against ``sqlite`` and ``baseline`` of the same
round), their median over rounds. Redis's own ``INFO commandstats`` deltas for
the window (calls per command) show what each request cost Redis.

Pinning (two or more CPUs, unless ``--no-pin``): the load generator on the first
CPU; every server-side process — the rollbridge processes, ``redis-server``, the
baseline — on the last (``taskset``). So each configuration gets the same single
core, and the two-process configurations *share* it: on a two-core machine this
measures what scale-out costs (CPU per request), not how it scales; more cores for
more processes is a projection from these figures (docs/scaling.md). With
``--redis-core own``, ``redis-server`` runs on the load generator's core instead (it
uses ~0.15 of it), as Redis would on a core or machine of its own: the rollbridge
process then shares neither its core's time nor its caches with Redis, and the CPU
per request summed over the processes is still what is compared. With
``--redis-socket`` the processes reach Redis over a Unix socket instead of TCP on
127.0.0.1 (what one machine allows).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import math
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import msgpack

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_server import (
    ADDRESS,
    LoadTable,
    ServerProcess,
    baseline_replies,
    capture_frames,
    closed_loop,
    closed_loop_config,
    drain,
    heal_request,
    join_tables,
    leave_tables,
    log,
    make_host,
    make_load_tables,
    pin,
    print_machine,
    raise_nofile,
    run_and_report,
    seed_sqlite,
    seed_tables,
)

from rollbridge.offline import TableService
from rollbridge.plain import JSON

CONFIGS = ("sqlite", "sqlite-2", "redis-1", "redis-2-affinity", "redis-2-spread", "baseline")
#: Issue 13, item 5: CPU per request (rollbridge processes + redis-server) at most
#: this times one SQLite process's; N processes at least this times N x one's throughput.
GOAL_CPU_RATIO = 1.2
GOAL_SCALING = 0.8
#: `serve`'s limits a load generator on one address with a few tokens would hit.
NO_LIMITS = ("--max-connections-per-address", "0", "--max-connections-per-token", "0",
             "--rate-per-connection", "0", "--rate-per-table", "0")  # fmt: skip
ENV = {**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind((ADDRESS, 0))
        return s.getsockname()[1]


def proc_cpu(pid: int, children: bool = False) -> float:
    """CPU seconds (user + system, every thread) a process used so far; with
    ``children``, also that of its children it has reaped (``redis-server``'s AOF
    rewrites: a forked child each, reaped when it is done)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def taskset(cpu: int | None) -> list[str]:
    return ["taskset", "-c", str(cpu)] if cpu is not None and shutil.which("taskset") else []


async def wait_listening(port: int, process: asyncio.subprocess.Process, what: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            _, writer = await asyncio.open_connection(ADDRESS, port)
            writer.close()
            return
        except OSError:
            if process.returncode is not None:
                break
            await asyncio.sleep(0.05)
    raise RuntimeError(f"{what} did not start on port {port}")


class Child:
    """A server-side process (``rollbridge serve`` or ``redis-server``)."""

    def __init__(self, name: str, process: asyncio.subprocess.Process, port: int) -> None:
        self.name, self.process, self.port = name, process, port

    @classmethod
    async def start(cls, name: str, argv: list[str], port: int, cpu: int | None,
                    log_path: Path) -> Child:  # fmt: skip
        with log_path.open("ab") as err:
            process = await asyncio.create_subprocess_exec(
                *taskset(cpu), *argv, stdin=subprocess.DEVNULL, stdout=err, stderr=err, env=ENV
            )
        await wait_listening(port, process, name)
        return cls(name, process, port)

    @property
    def pid(self) -> int:
        return self.process.pid

    async def stop(self) -> None:
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.process.wait(), 30)
        except TimeoutError:
            self.process.kill()
            await self.process.wait()


def serve_argv(port: int, store: list[str]) -> list[str]:
    return [sys.executable, "-m", "rollbridge", "serve", "--port", str(port), *store,
            "--no-demo", "--log-level", "WARNING", *NO_LIMITS]  # fmt: skip


class Group:
    """The server side of one configuration, as :func:`bench_server.measure` reads
    it: ``cpu_seconds()`` per process (summed into ``server_cpu``); each reading
    also snapshots Redis's ``INFO commandstats`` when there is a Redis."""

    def __init__(self, children: list[Child], redis_child: Child | None,
                 redis_client: Any | None) -> None:  # fmt: skip
        self.children = children
        self.redis_child = redis_child
        self.redis_client = redis_client
        self.stats: list[dict[str, int]] = []

    def cpu_seconds(self) -> JSON:
        out = {child.name: proc_cpu(child.pid) for child in self.children}
        if self.redis_child is not None:
            out["redis"] = proc_cpu(self.redis_child.pid, children=True)
            info = self.redis_client.info("commandstats")
            self.stats.append({k.removeprefix("cmdstat_"): (v["calls"], v["usec"])
                               for k, v in info.items()})  # fmt: skip
            rewrites = self.redis_client.info("persistence")["aof_rewrites"]
            self.stats[-1]["aof_rewrites"] = (rewrites, 0)
        return out

    def redis_calls(self, field: int = 0) -> dict[str, int]:
        """Calls (``field`` 1: microseconds, as Redis times them) per command in the
        measurement window (the last two readings)."""
        if len(self.stats) < 2:
            return {}
        before, after = self.stats[-2], self.stats[-1]
        calls = {k: v[field] - before.get(k, (0, 0))[field] for k, v in after.items()}
        return dict(sorted(((k, v) for k, v in calls.items() if v > 0), key=lambda kv: -kv[1]))


def layout(config: str, tables: list[LoadTable]) -> tuple[Callable[[LoadTable, int], int], str]:
    """Which process (0 or 1) each client connects to, and who owns the table."""
    index = {table.id: n for n, table in enumerate(tables)}
    if config in ("redis-2-affinity", "sqlite-2"):
        return (lambda table, client: index[table.id] % 2), "every client of a table on one"
    if config == "redis-2-spread":
        # client 0 the player, 1 the GM (the owner, after its priming heal), 2..5 receivers
        return (lambda table, client: (index[table.id] + client) % 2), "spread"
    return (lambda table, client: 0), "one process"


async def prime(tables: list[LoadTable]) -> int:
    """The GM of every table sends one heal (a change) before the run, so its process
    takes the table's lease. Returns the requests still unanswered after 30 s."""
    for table in tables:
        table.need_heal = True
        table.request()
    return await drain(tables, timeout=30)


def seed_redis(url: str, count: int, host: Any) -> dict[str, dict[str, str]]:
    from rollbridge.stores.redis import RedisStore

    store = RedisStore(url)
    try:
        return seed_tables(TableService(store, host), (f"t{n:04d}" for n in range(count)))
    finally:
        store.close()


async def run_config(config: str, round_number: int, args: argparse.Namespace, work: Path,
                     setup: JSON) -> JSON:  # fmt: skip
    cpu = setup["server_cpu"]
    children: list[Child] = []
    redis_child = setup["redis"] if config.startswith("redis") else None
    baseline: ServerProcess | None = None
    try:
        if config == "baseline":
            baseline = await ServerProcess.start("baseline", frames=setup["frames"], cpu=cpu)
            group: Any = Group([], None, None)
            group.children = [Child("baseline", baseline.process, baseline.port)]
            ports = [baseline.port]
        else:
            processes = 2 if config.endswith("-2") or config.startswith("redis-2") else 1
            for n in range(processes):
                port = free_port()
                if config == "sqlite":
                    store = ["--db", str(setup["db"])]
                elif config == "sqlite-2":
                    store = ["--db", str(setup["db_copies"][n])]
                else:
                    store = ["--redis", setup["urls"][config]]
                child = await Child.start(f"rollbridge_{n + 1}", serve_argv(port, store), port,
                                          cpu, work / f"{config}.log")  # fmt: skip
                children.append(child)
            group = Group(children, redis_child, setup.get("redis_client"))
            ports = [c.port for c in children]
        sqlite_tokens = config in ("sqlite", "sqlite-2", "baseline")
        tokens = setup["tokens"]["sqlite" if sqlite_tokens else config]
        tables = make_load_tables(tokens, setup["heal"])
        where, arrangement = layout(config, tables)
        await join_tables(lambda t, i: ports[where(t, i)], tables, clients=args.clients)
        unprimed = await prime(tables) if config == "redis-2-spread" else 0
        figures = await closed_loop(group, tables, args.inflight, args.warmup, args.duration)
        await leave_tables(tables)
    finally:
        for child in children:
            await child.stop()
        if baseline is not None:
            await baseline.stop()
    figures = {"config": config, "round": round_number, "processes": len(ports),
               "clients": arrangement, **figures}  # fmt: skip
    if unprimed:
        figures["unprimed"] = unprimed
    figures["cpu_us_per_request"] = (
        round(figures["server_cpu"] / figures["requests_per_s"] * 1e6, 1)
        if figures["requests_per_s"]
        else math.nan
    )
    if redis_child is not None:
        calls = group.redis_calls()
        figures["aof_rewrites"] = calls.pop("aof_rewrites", 0)  # in the window
        # every command (the report prints the first 8): in a short window the poll's
        # and the leases' calls may outnumber the commits'
        figures["redis_calls_per_request"] = {
            k: round(v / figures["requests"], 2) for k, v in calls.items()
        } if figures["requests"] else {}  # fmt: skip
        usec = group.redis_calls(field=1)  # (no aof_rewrites: its second field is 0)
        figures["redis_command_us_per_request"] = {
            k: round(v / figures["requests"], 1) for k, v in list(usec.items())[:12]
        } if figures["requests"] else {}  # fmt: skip
        figures["redis_cpu_us_per_request"] = (
            round(figures["server_cpu_redis"] / figures["requests_per_s"] * 1e6, 1)
            if figures["requests_per_s"]
            else math.nan
        )
    return figures


def median_ratio(runs: list[JSON], config: str, against: str, key: str) -> float:
    ratios = []
    for round_number in {r["round"] for r in runs}:
        mine = [r for r in runs if r["config"] == config and r["round"] == round_number]
        theirs = [r for r in runs if r["config"] == against and r["round"] == round_number]
        if mine and theirs and theirs[0][key] and not math.isnan(theirs[0][key]):
            ratios.append(mine[0][key] / theirs[0][key])
    return round(statistics.median(ratios), 3) if ratios else math.nan


def summarise(runs: list[JSON], configs: list[str]) -> JSON:
    keys = ("requests_per_s", "p50_ms", "p99_ms", "server_cpu", "cpu_us_per_request",
            "loadgen_cpu", "redis_cpu_us_per_request")  # fmt: skip
    servers: JSON = {}
    for config in configs:
        mine = [r for r in runs if r["config"] == config]
        figures = {k: round(statistics.median(r[k] for r in mine), 3)
                   for k in keys if k in mine[0]}  # fmt: skip
        figures["cpu_by_process"] = {
            k.removeprefix("server_cpu_"): round(statistics.median(r[k] for r in mine), 3)
            for k in mine[0] if k.startswith("server_cpu_")
        }  # fmt: skip
        for against in ("sqlite", "baseline"):
            if against in configs and config != against:
                figures[f"throughput_vs_{against}"] = median_ratio(runs, config, against,
                                                                   "requests_per_s")  # fmt: skip
                figures[f"cpu_per_request_vs_{against}"] = median_ratio(
                    runs, config, against, "cpu_us_per_request"
                )
        if config.startswith("redis-2") and "redis-1" in configs:
            figures["throughput_vs_redis_1"] = median_ratio(runs, config, "redis-1",
                                                            "requests_per_s")  # fmt: skip
        if config.startswith("redis-2") and "sqlite-2" in configs:
            # the same two processes on the same core, without Redis: the tables split
            figures["cpu_per_request_vs_sqlite_2"] = median_ratio(
                runs, config, "sqlite-2", "cpu_us_per_request"
            )
        servers[config] = figures
    goals: JSON = {"cpu_ratio_at_most": GOAL_CPU_RATIO}
    for config in configs:
        if config.startswith("redis") and "sqlite" in configs:
            ratio = servers[config]["cpu_per_request_vs_sqlite"]
            goals[f"cpu_{config}"] = {"ratio": ratio, "met": bool(ratio <= GOAL_CPU_RATIO)}
            if "cpu_per_request_vs_sqlite_2" in servers[config]:
                ratio = servers[config]["cpu_per_request_vs_sqlite_2"]
                goals[f"cpu_{config}_vs_sqlite-2"] = {
                    "ratio": ratio, "met": bool(ratio <= GOAL_CPU_RATIO)
                }  # fmt: skip
    return {"servers": servers, "goals": goals}


async def run(args: argparse.Namespace, work: Path) -> JSON:
    import redis

    count = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    mine = sorted(os.sched_getaffinity(0)) if count >= 2 else []
    loadgen_cpu, server_cpu = (None, None) if args.no_pin or count < 2 else (mine[0], mine[-1])
    pin(loadgen_cpu)
    raise_nofile()
    host = make_host()
    frames = await capture_frames(host, rounds=8)
    frames_path = work / "baseline-frames.msgpack"
    frames_path.write_bytes(msgpack.packb(baseline_replies(frames)))
    configs = [c for c in CONFIGS if c in args.configs]
    tokens, _ = seed_sqlite(work / "sqlite.db", args.tables, host)
    copies = [work / f"sqlite-2-{n}.db" for n in (1, 2)]  # same tables and tokens
    for copy in copies:
        shutil.copyfile(work / "sqlite.db", copy)
    setup: JSON = {"server_cpu": server_cpu, "frames": frames_path, "db": work / "sqlite.db",
                   "db_copies": copies,
                   "heal": heal_request(host), "tokens": {"sqlite": tokens},
                   "urls": {}}  # fmt: skip
    redis_port = free_port()
    redis_dir = work / "redis"
    redis_dir.mkdir()
    redis_argv = [args.redis_server, "--port", str(redis_port), "--bind", ADDRESS,
                  "--dir", str(redis_dir), "--appendonly", "yes", "--appendfsync", "always",
                  "--save", "", "--maxmemory-policy", "noeviction"]  # fmt: skip
    socket_path = redis_dir / "redis.sock"
    if args.redis_socket:
        redis_argv += ["--unixsocket", str(socket_path), "--unixsocketperm", "700"]
    redis_cpu = loadgen_cpu if args.redis_core == "own" else server_cpu
    redis_child = await Child.start("redis", redis_argv, redis_port, redis_cpu,
                                    work / "redis.log")  # fmt: skip
    setup["redis"] = redis_child
    client = redis.Redis(host=ADDRESS, port=redis_port)
    setup["redis_client"] = client
    runs: list[JSON] = []
    try:
        version = client.info("server")["redis_version"]
        for n, config in enumerate(c for c in configs if c.startswith("redis")):
            url = (
                f"unix://{socket_path}?db={n + 1}"
                if args.redis_socket
                else f"redis://{ADDRESS}:{redis_port}/{n + 1}"
            )
            setup["urls"][config] = url
            setup["tokens"][config] = seed_redis(url, args.tables, host)
        for round_number in range(1, args.rounds + 1):
            for config in configs:
                figures = await run_config(config, round_number, args, work, setup)
                runs.append(figures)
                server_log = work / f"{config}.log"
                if figures["errors"] and server_log.exists():  # say why, from the servers
                    figures["server_log"] = server_log.read_text(errors="replace")[-3000:]
                    log(f"  errors {figures['errors']}; the servers' log ends:\n"
                        + figures["server_log"])  # fmt: skip
                    server_log.unlink()
                rewrites = figures.get("aof_rewrites")
                rewrites = f"  AOF rewrites {rewrites}" if rewrites else ""
                log(
                    f"  round {round_number} {config:17s} {figures['requests_per_s']:8.1f} req/s"
                    f"  p50 {figures['p50_ms']:6.2f} ms  p99 {figures['p99_ms']:6.2f} ms  "
                    f"cpu {figures['cpu_us_per_request']:6.0f} us/req "
                    f"({', '.join(f'{k[11:]} {v:.2f}' for k, v in figures.items() if k.startswith('server_cpu_'))})"  # noqa: E501
                    f"  loadgen {figures['loadgen_cpu']:.2f}" + rewrites
                )
    finally:
        client.close()
        await redis_child.stop()
    return {
        "mode": "cluster",
        "config": {
            **closed_loop_config(args),
            "configs": configs,
            "pinning": {"loadgen": loadgen_cpu, "servers": server_cpu, "redis": redis_cpu},
            "redis_transport": "unix socket" if args.redis_socket else "tcp",
            "redis_server": version,
        },
        "runs": runs,
        "summary": summarise(runs, configs),
    }


def print_report(result: JSON) -> None:
    print_machine(result, f", redis-server {result['config']['redis_server']}")
    print(
        f"\n{'configuration':17s} {'req/s':>8s} {'p50 ms':>7s} {'p99 ms':>7s} "
        f"{'CPU us/req':>10s} {'Redis us':>8s} {'thr/sqlite':>10s} {'cpu/sqlite':>10s} "
        f"{'thr/base':>8s} {'cpu/base':>8s}  CPU by process (cores)"
    )
    for config, f in result["summary"]["servers"].items():
        print(
            f"{config:17s} {f['requests_per_s']:8.1f} {f['p50_ms']:7.2f} {f['p99_ms']:7.2f} "
            f"{f['cpu_us_per_request']:10.0f} {f.get('redis_cpu_us_per_request', math.nan):8.0f} "
            f"{f.get('throughput_vs_sqlite', math.nan):10.3f} "
            f"{f.get('cpu_per_request_vs_sqlite', math.nan):10.3f} "
            f"{f.get('throughput_vs_baseline', math.nan):8.3f} "
            f"{f.get('cpu_per_request_vs_baseline', math.nan):8.3f}  "
            + ", ".join(f"{k} {v:.2f}" for k, v in f["cpu_by_process"].items())
        )
    print("\nRedis calls per request (last round):")
    last: dict[str, JSON] = {r["config"]: r for r in result["runs"]}
    for config, r in last.items():
        if "redis_calls_per_request" in r:
            print(f"  {config:17s} " + ", ".join(
                f"{k} {v}" for k, v in list(r["redis_calls_per_request"].items())[:8]))  # fmt: skip
    for name, goal in result["summary"]["goals"].items():
        if isinstance(goal, dict):
            against = "two SQLite processes'" if name.endswith("sqlite-2") else "SQLite's"
            print(f"goal {name}: CPU per request {goal['ratio']} x {against} "
                  f"(at most {GOAL_CPU_RATIO}): {'met' if goal['met'] else 'NOT met'}")  # fmt: skip


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--no-pin", action="store_true", help="do not pin processes to CPUs")
    p.add_argument("--dir", help="folder for the files (default: a temporary one)")
    p.add_argument("--tables", type=int, default=16)
    p.add_argument("--clients", type=int, default=6, help="connections per table")
    p.add_argument("--inflight", type=int, default=2, help="requests in flight per table")
    p.add_argument("--warmup", type=float, default=2.0, help="seconds before measuring")
    p.add_argument("--duration", type=float, default=8.0, help="seconds measured")
    p.add_argument("--rounds", type=int, default=2, help="interleaved rounds")
    p.add_argument("--configs", nargs="+", default=list(CONFIGS), choices=CONFIGS)
    p.add_argument("--redis-server", default="redis-server", help="the redis-server binary")
    p.add_argument(
        "--redis-socket",
        action="store_true",
        help="the rollbridge processes reach Redis over a Unix socket, not TCP (one machine)",
    )
    p.add_argument(
        "--redis-core",
        choices=("shared", "own"),
        default="shared",
        help="shared: redis-server on the rollbridge processes' core (the default: every "
        "configuration gets one core); own: on the load generator's core, as Redis runs "
        "on a core or machine of its own in production (no cache or CPU shared with rollbridge)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    return run_and_report(parser().parse_args(argv), run, print_report, "bench-cluster-")


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
