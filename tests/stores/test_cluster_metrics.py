"""What ``/metrics`` of each ``rollbridge serve --redis`` process says about the
cluster (docs/operations.md, "Metrics and health"): the tables whose lease it holds,
and the changes it sent on to another process — what tells an operator whether the
balancer keeps a table's clients on one process (docs/redis.md: spread clients cost
about ten times the CPU). Real redis-server, real processes, real clients."""

from __future__ import annotations

import re
import urllib.request
from typing import Any

from tests.stores.cluster_harness import Cluster, Player
from tests.stores.test_cluster import until


def scrape(port: int) -> dict[str, float]:
    """A process's samples, by name and labels as the text format writes them."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as answer:
        text = answer.read().decode()
    return {
        match[1]: float(match[2]) for match in re.finditer(r"^(rollbridge_\S+) (\S+)$", text, re.M)
    }


async def run_by_a(cluster: Cluster) -> list[Player]:
    """A client on each of two processes; A's change makes A run the table, B's is
    forwarded to A and answered."""
    on_a, on_b = await cluster.joined(0, 1)
    reply = await on_a.ask({"type": "roll", "id": "a", "formula": "1d6"})
    assert reply["type"] == "result" and cluster.owner() is cluster.processes[0], reply
    reply = await on_b.ask({"type": "roll", "id": "b1", "formula": "1d6"})
    assert reply["type"] == "result", reply  # run by A
    return [on_a, on_b]


def forwarded(process: Any) -> dict[str, float]:
    """A process's ``rollbridge_forwarded_total``, by label."""
    prefix = "rollbridge_forwarded_total"
    return {k: v for k, v in scrape(process.port).items() if k.startswith(prefix)}


async def b_runs_it(cluster: Cluster, on_b: Player) -> dict[str, float]:
    """B's next change, once A no longer runs the table: B runs it; B's counts."""
    reply = await on_b.ask({"type": "roll", "id": "b2", "formula": "1d6"})
    assert reply["type"] == "result" and cluster.owner() is cluster.processes[1], reply
    return forwarded(cluster.processes[1])


def test_each_process_says_what_it_owns_and_what_it_forwarded(redis_factory):
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)
    ports = [p.port for p in cluster.processes]

    async def play() -> None:
        on_a, on_b = await cluster.joined(0, 1)
        # A's first change finds the table run by nobody: A takes it
        reply = await on_a.ask({"type": "roll", "id": "a", "formula": "1d6"})
        assert reply["type"] == "result", reply
        assert cluster.owner() is cluster.processes[0]
        for i in range(3):  # B's changes go to A, which runs the table
            reply = await on_b.ask({"type": "roll", "id": f"b{i}", "formula": "1d6"})
            assert reply["type"] == "result" and reply["seq"] == i + 2, reply
        a, b = scrape(ports[0]), scrape(ports[1])
        assert a["rollbridge_tables_owned"] == 1 and b["rollbridge_tables_owned"] == 0
        # a first load is no take-over: nobody ran the table (it was counted one)
        assert a['rollbridge_forwarded_total{outcome="loaded"}'] == 1
        assert 'rollbridge_forwarded_total{outcome="taken_over"}' not in a
        assert 'rollbridge_forwarded_total{outcome="answered"}' not in a
        assert b['rollbridge_forwarded_total{outcome="answered"}'] == 3
        assert 'rollbridge_forwarded_total{outcome="taken_over"}' not in b
        for player in (on_a, on_b):
            await player.close()

    cluster.run(play)


def test_a_table_taken_from_a_process_gone_counts_apart_from_a_first_load(redis_factory):
    """``taken_over`` counted every table's first change too, so it grew on a healthy
    cluster and said nothing of processes lost: a lease found free after a process
    was seen running the table (its owner killed) is ``taken_over``, a first load is
    ``loaded`` (docs/operations.md's metrics table)."""
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)
    a_process = cluster.processes[0]

    async def play() -> None:
        on_a, on_b = await run_by_a(cluster)
        a_process.kill()  # no lease given up: B takes the table once it lapses
        await on_a.close()
        assert await b_runs_it(cluster, on_b) == {
            'rollbridge_forwarded_total{outcome="answered"}': 1,
            'rollbridge_forwarded_total{outcome="taken_over"}': 1,
        }
        await on_b.close()

    cluster.run(play)


def test_a_table_its_runner_let_go_as_it_stopped_is_loaded_one_killed_taken_over(
    redis_factory,
):
    """Three processes. The owner stopped with SIGTERM (``systemctl restart``: its
    leases given up, its claim deleted) is no process lost: the next process to run
    the table counts ``loaded``, though it had forwarded changes to the owner (it
    counted ``taken_over``, so a rolling restart grew the count that says processes
    are lost on every process a table's clients were spread over). The next owner
    killed (its claim left behind) is: the third counts ``taken_over``
    (docs/operations.md's metrics table)."""
    redis = redis_factory()
    cluster = Cluster(redis.url, 3)
    a_process, b_process, c_process = cluster.processes

    async def play() -> None:
        on_a, on_b, on_c = await cluster.joined(0, 1, 2)
        reply = await on_a.ask({"type": "roll", "id": "a", "formula": "1d6"})
        assert reply["type"] == "result" and cluster.owner() is a_process, reply
        for player, rid in ((on_b, "b1"), (on_c, "c1")):
            reply = await player.ask({"type": "roll", "id": rid, "formula": "1d6"})
            assert reply["type"] == "result", reply  # run by A
        await on_a.close()
        a_process.stop()  # SIGTERM: the lease given up, the claim deleted
        reply = await on_b.ask({"type": "roll", "id": "b2", "formula": "1d6"})
        assert reply["type"] == "result" and cluster.owner() is b_process, reply
        assert forwarded(b_process) == {
            'rollbridge_forwarded_total{outcome="answered"}': 1,
            'rollbridge_forwarded_total{outcome="loaded"}': 1,
        }
        reply = await on_c.ask({"type": "roll", "id": "c2", "formula": "1d6"})
        assert reply["type"] == "result", reply  # run by B
        b_process.kill()  # no goodbye: C takes the table once its lease lapses
        await on_b.close()
        reply = await on_c.ask({"type": "roll", "id": "c3", "formula": "1d6"})
        assert reply["type"] == "result" and cluster.owner() is c_process, reply
        assert forwarded(c_process) == {
            'rollbridge_forwarded_total{outcome="answered"}': 2,
            'rollbridge_forwarded_total{outcome="taken_over"}': 1,
        }
        await on_c.close()

    cluster.run(play)


def test_a_table_its_live_runner_let_go_unused_is_loaded_not_taken_over(redis_factory):
    """The owner, alive, lets a table go that nobody at it uses (its own client gone,
    nothing running, for 4 leases) while a client of another process is still at
    it: that process's next change takes the table — no process was lost, yet it
    counted ``taken_over`` (the count that says processes are lost grew on a healthy
    cluster whose clients paused). The owner notes the lease let go
    (``rb:{T}:let_go``), and the next change counts ``loaded``
    (docs/operations.md's metrics table)."""
    redis = redis_factory()
    cluster = Cluster(redis.url, 2)
    a_process = cluster.processes[0]

    async def play() -> None:
        on_a, on_b = await run_by_a(cluster)
        await on_a.close()  # A's own client leaves; B's stays, idle
        await until(lambda: not a_process.owns(cluster.table), what="A letting the table go")
        assert a_process.process is not None and a_process.process.poll() is None  # alive
        assert await b_runs_it(cluster, on_b) == {
            'rollbridge_forwarded_total{outcome="answered"}': 1,
            'rollbridge_forwarded_total{outcome="loaded"}': 1,
        }
        await on_b.close()

    cluster.run(play)
