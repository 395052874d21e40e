"""The line that ends a Redis outage in ``serve``'s log — ``the store works again,
after 5 s: 258 requests were refused meanwhile (none of them acknowledged; their
senders were told store_error)`` — counts the requests refused, as
``rollbridge_errors_total{code="store_error"}`` does. In an operator's walk (three
``serve --redis`` behind nginx, 200 tables, Redis restarted) each process said 410,
356 and 469 where its players had been told store_error 258, 242 and 282 times: every
try of the cluster to load a table again while Redis was away, refusing nobody,
was counted as a refused request (and so was each read of a table's stored log as
the process began to follow it, its lease gone — it keeps its tables through an
outage now). A real redis-server killed and started again under a real ``serve
--redis``; the count is read from its JSON log."""

from __future__ import annotations

import asyncio
import re
import time

from tests.server.storage_harness import Seat, Serve, make_table

ROLL = {"type": "roll", "formula": "1d6"}
TABLES = 3


async def until(check, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.1)


async def test_the_works_again_line_counts_the_requests_refused_and_no_reload(
    redis_factory, tmp_path
):
    server = redis_factory()
    made = [make_table("--redis", server.url) for _ in range(TABLES)]
    served = Serve(tmp_path / "serve.log", "--redis", server.url, "--lease-ms", "1500")
    try:
        seats = [(await Seat.take(served.port, table, tokens["gm"]))[0] for table, tokens in made]
        for seat in seats:
            assert (await seat.ask(ROLL))["type"] == "result"
        server.kill()

        def renewals_failed() -> bool:
            return any(line["message"].startswith("renewing the leases")
                       for line in served.lines())  # fmt: skip

        # the process keeps its tables while Redis is away (before 7 December it lost
        # each lease after one and read the stored log to follow it: those reads were
        # counted too); its renewals fail, though no client asks anything meanwhile
        await until(renewals_failed, "the renewals of the leases failing")
        refused = [await seat.ask(ROLL, timeout=60) for seat in seats]
        assert {r.get("code") for r in refused} == {"store_error"}, refused
        server.start()
        deadline = time.monotonic() + 30
        while (after := await seats[0].ask(ROLL, timeout=60))["type"] != "result":
            assert after["code"] == "store_error" and time.monotonic() < deadline, after
            refused.append(after)
            await asyncio.sleep(0.2)

        def said() -> list[str]:
            return [line["message"] for line in served.lines()
                    if line["message"].startswith("the store works again")]  # fmt: skip

        await until(lambda: said(), "the line that the store works again")
        (line,) = said()
        count = re.search(r"(\d+) requests? (was|were) refused meanwhile", line)
        assert count is not None, line
        assert int(count.group(1)) == len(refused), (line, len(refused))
        for seat in seats:
            await seat.connection.close()
    finally:
        served.stop()
