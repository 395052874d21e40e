"""The settings every ``rollbridge serve --redis`` process on one Redis must share
(docs/redis.md, "Settings every process shares"): real redis-server, real processes.

Found in an outage drill: a third process started by another operator with
``--retain 5`` (or ``--max-actors 1``) joined silently, and every table it came to own
kept 5 events (its commits trim the log) or refused a second actor — depending on
which process held the table at the time.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time

import pytest
import redis as redis_py

from tests.stores.cluster_harness import ENV, Process, free_port, make_table

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def serve_once(url: str, *extra: str) -> subprocess.CompletedProcess:
    """``serve --redis URL``: its exit and output once it exits (refused) or listens
    (then it is stopped with SIGTERM)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "rollbridge", "serve", "--port", str(port),
         "--redis", url, "--no-demo", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while process.poll() is None and time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break  # it serves
        except OSError:
            time.sleep(0.05)
    if process.poll() is None:
        process.terminate()
    out, err = process.communicate(timeout=30)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def test_a_process_with_another_retain_or_limit_is_refused_before_it_listens(redis_factory):
    redis = redis_factory()
    make_table(redis.url)
    first = Process(redis.url, lease_ms=60_000)  # default --retain 1000, --max-actors 1000
    try:
        refused = serve_once(redis.url, "--retain", "5")
        assert refused.returncode == 1, refused
        assert "Traceback" not in refused.stderr, refused.stderr
        assert refused.stderr.startswith("rollbridge: error: settings_differ: "), refused.stderr
        assert "--retain 1000 there, 5 here" in refused.stderr, refused.stderr
        assert "listening" not in refused.stderr + refused.stdout

        refused = serve_once(redis.url, "--max-actors", "1", "--max-event-size", "8192")
        assert refused.returncode == 1, refused
        assert "--max-actors 1000 there, 1 here" in refused.stderr, refused.stderr
        assert "--max-event-size 131072 there, 8192 here" in refused.stderr, refused.stderr

        # the same settings (another lease, other per-process limits) are let in
        second = Process(redis.url, "--rate-per-connection", "5", lease_ms=600)
        second.stop()
    finally:
        logs = first.stop()
    assert "Traceback" not in logs, logs
    # a process that stopped took its settings with it: new ones may start now
    changed = Process(redis.url, "--retain", "5", lease_ms=600)
    assert "Traceback" not in changed.stop()


def test_a_killed_process_s_settings_lapse_after_three_of_its_leases(redis_factory):
    redis = redis_factory()
    killed = Process(redis.url, lease_ms=600)
    killed.kill()  # no goodbye: its claim stays until it lapses (3 × 0.6 s)
    client = redis_py.Redis.from_url(redis.url)
    try:
        assert client.hlen("rb:processes") == 1
        tries = 0
        while True:  # refused while the claim lasts, then let in
            tries += 1
            outcome = serve_once(redis.url, "--retain", "5", "--lease-ms", "600")
            if "settings_differ" not in outcome.stderr:
                break
            assert tries < 20, outcome.stderr
            time.sleep(0.5)
        assert "Traceback" not in outcome.stderr, outcome.stderr
        assert "listening on" in outcome.stderr, outcome.stderr  # it served, then stopped
        assert client.hlen("rb:processes") == 0  # and took its own claim with it
    finally:
        client.close()


def _claims(client: redis_py.Redis) -> dict[str, str]:
    """The claims in ``rb:processes``: process id -> ``UNTIL|SETTINGS``."""
    return {k.decode(): v.decode() for k, v in client.hgetall("rb:processes").items()}


def _until(client: redis_py.Redis, settings: str, test) -> dict[str, str]:
    """Read the claims until ``test`` holds of them (each process renews its own
    every 0.2 s): the claims then. Counted reads, not a measured time."""
    for _ in range(600):
        claims = _claims(client)
        if test(claims):
            return claims
        time.sleep(0.05)
    raise AssertionError(f"{settings}: {claims}")


def test_a_paused_process_and_one_started_meanwhile_with_other_settings_both_say_so(
    redis_factory,
):
    """A process paused (SIGSTOP) for longer than its claim lasts: a process with
    other settings starts meanwhile. Once the first goes on, both are live with other
    settings: each logs the WARNING, both claims stay in Redis, and a third process
    is refused whichever of the two settings it has. (Before, the paused one's
    renewal found the other and wrote nothing: the other never knew, and a third
    with its settings was let in.)"""
    redis = redis_factory()
    client = redis_py.Redis.from_url(redis.url)
    paused = Process(redis.url, lease_ms=600)
    started = None
    try:
        paused.signal(signal.SIGSTOP)
        _until(client, "the paused claim lapses", lambda claims: not claims)
        started = Process(redis.url, "--retain", "5", lease_ms=600)
        paused.signal(signal.SIGCONT)
        both = _until(client, "both claims", lambda claims: len(claims) == 2)
        theirs = next(node for node, value in both.items() if '"retain":5' in value)
        # a renewal of the one started meanwhile, made while the other's claim is there
        _until(client, "a renewal", lambda claims: claims.get(theirs) not in (None, both[theirs]))
        for extra in ((), ("--retain", "5")):
            refused = serve_once(redis.url, "--lease-ms", "600", *extra)
            assert refused.returncode == 1, refused
            assert "settings_differ" in refused.stderr, refused.stderr
    finally:
        logs = [started.stop() if started else "", paused.stop()]
        client.close()
    for log in logs:
        assert "Traceback" not in log, log
        assert log.count("runs with other settings than this one") == 1, log


def test_a_process_that_cannot_listen_leaves_no_claim(redis_factory):
    """``serve --redis`` whose port another program holds exits 1 (``cannot_listen``)
    and takes its claim with it: a process started next with other values is not
    refused by one that never served. Before, its claim stayed for three leases
    (``settings_differ`` naming a process that did not run)."""
    redis = redis_factory()
    client = redis_py.Redis.from_url(redis.url)
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "rollbridge", "serve", "--port", str(port),
             "--redis", redis.url, "--no-demo", "--lease-ms", "60000"],
            capture_output=True, text=True, env=ENV, timeout=60,
        )  # fmt: skip
        assert done.returncode == 1 and "cannot_listen" in done.stderr, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
        assert client.hlen("rb:processes") == 0
    finally:
        holder.close()
        client.close()
    started = serve_once(redis.url, "--retain", "5")
    assert "settings_differ" not in started.stderr and "listening on" in started.stderr
