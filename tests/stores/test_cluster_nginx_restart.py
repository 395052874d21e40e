"""A rolling restart behind docs/redis.md's nginx block: three real ``serve --redis``
processes, each stopped (SIGTERM) and started again in turn, while requests for 30
tables go through a real nginx configured with the documented block.

With nginx's default (``max_fails=1 fail_timeout=10s``) each process's refused
connections while it restarted put it out of the rotation for 10 s, and restarting
the next within those 10 s put all of them out: nginx answered ``502`` (``no live
upstreams``) to every table while the three processes served (found walking
examples/cluster_night.py: a roll waited up to 11.6 s). The documented block says
``max_fails=0``: a refused connection goes on to the next process, none is put out.
"""

from __future__ import annotations

import re
import subprocess
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.server.test_nginx_proxy import NGINX, free_port, get, wait_listening, wrap
from tests.stores.cluster_harness import Process

DOCS = Path(__file__).resolve().parents[2] / "docs" / "redis.md"
pytestmark = pytest.mark.skipif(NGINX is None, reason="nginx is not installed")


def balancer_block(ports: list[int], listen: int) -> str:
    """docs/redis.md's nginx block for several processes, with ``ports`` for its
    servers (their options kept) and plain HTTP on ``listen``."""
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("**One port per process, behind a load balancer**")
    match = re.search(r"```nginx\n(.*?)```", text[start:], re.S)
    assert match is not None
    block = match.group(1).replace("listen 443 ssl;", f"listen 127.0.0.1:{listen};")
    servers = iter(ports)
    block = re.sub(r"server 10\.0\.0\.\d+:\d+", lambda _m: f"server 127.0.0.1:{next(servers)}",
                   block)  # fmt: skip
    assert next(servers, None) is None, "the block names fewer servers than processes"
    return block


async def test_a_rolling_restart_leaves_every_table_served(redis_factory: Any, tmp_path: Path):
    redis = redis_factory()
    processes = [Process(redis.url, "--log-level", "WARNING") for _ in range(3)]
    listen = free_port()
    conf = wrap(tmp_path, balancer_block([p.port for p in processes], listen))
    nginx = subprocess.Popen([NGINX, "-c", str(conf), "-g", "daemon off;"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
    statuses: list[int] = []
    going = threading.Event()
    going.set()

    def ask_every_table() -> None:  # what the tables' clients ask, all along
        while going.is_set():
            for n in range(30):
                statuses.append(get(f"http://127.0.0.1:{listen}/tables/t{n}")[0])

    asker = threading.Thread(target=ask_every_table)
    try:
        await wait_listening(listen, nginx)
        asker.start()
        for process in processes:  # SIGTERM, started again once it listens
            process.stop()
            process.start()
        going.clear()
        asker.join(timeout=60)
        after = [get(f"http://127.0.0.1:{listen}/tables/t{n}")[0] for n in range(30)]
        assert 502 not in after, after  # every process serves: none is out of nginx's
        assert statuses.count(502) == 0, (statuses.count(502), len(statuses))
        error_log = (tmp_path / "error.log").read_text()
        assert "no live upstreams" not in error_log
    finally:
        going.clear()
        nginx.terminate()
        nginx.wait()
        for process in processes:
            process.stop()
