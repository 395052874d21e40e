"""``rollbridge connect`` reconnecting, where a stand-in for a proxy (a real socket on
127.0.0.1, :class:`~tests.cli.test_cli_connect_answered.StatusProxy`) answers an
HTTP status with a ``Retry-After`` given as an HTTP date, or a redirect that names no
address: the date was not read (the backoff's next wait, said as a proxy's restart),
and the redirect was tried again for 300 s, said as a proxy's restart too. The sleeps
are recorded; the schedule counts attempts."""

from __future__ import annotations

import pytest

from tests.cli.test_cli_connect_answered import StatusProxy
from tests.cli.test_cli_server_killed import _free_port

RESTART = "tried again: a proxy answers so while the server behind it restarts"


async def reconnecting(monkeypatch, proxy: StatusProxy, attempts: int) -> tuple[object, list]:
    """Run the session's reconnect loop against ``proxy`` for ``attempts`` attempts,
    the backoff waiting 0 s; what it returned and the seconds it slept."""
    from rollbridge.cli import terminal
    from rollbridge.cli.reconnect import Schedule
    from rollbridge.cli.waits import waits_from

    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    port = _free_port()
    await proxy.start(port)
    monkeypatch.setattr(terminal.asyncio, "sleep", sleep)
    try:
        ended = await terminal._reconnect(
            f"ws://127.0.0.1:{port}/tables/t", str, {}, terminal._Link(), "en",
            Schedule(attempts=attempts, first=0), waits_from(10, {}), "connection lost",
        )  # fmt: skip
    finally:
        monkeypatch.undo()
        await proxy.stop()
    return ended, slept


@pytest.mark.parametrize(
    ("headers", "waited", "said"),
    [
        # the proxy's own clock: 20 s from its Date to the Retry-After
        (
            "Date: Wed, 21 Oct 2026 07:27:40 GMT\r\nRetry-After: Wed, 21 Oct 2026 07:28:00 GMT\r\n",
            20.0,
            "tried again in 20 s, as its Retry-After asks",
        ),
        # no Date: this machine's clock; years ahead is capped as seconds are
        (
            "Retry-After: Wed, 21 Oct 2099 07:28:00 GMT\r\n",
            60.0,
            "tried again in 60 s, the longest connect waits, though its Retry-After asks for "
            "decades",
        ),
        # a date passed, and a value that is no date: no wait given
        ("Retry-After: Wed, 21 Oct 2015 07:28:00 GMT\r\n", 0.0, RESTART),
        ("Retry-After: Wed, 32 Oct 2026 07:28:00 GMT\r\n", 0.0, RESTART),
    ],
)
async def test_a_retry_after_given_as_an_http_date_is_read(
    monkeypatch, capsys, headers, waited, said
):
    ended, slept = await reconnecting(monkeypatch, StatusProxy([503], headers), attempts=2)
    assert ended is None
    assert slept == [0.0, waited]
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith(
        f"the server answered HTTP 503 where a WebSocket was asked for; {said}"
    ), lines


@pytest.mark.parametrize("status", [301, 302, 307])
async def test_a_redirect_naming_no_address_ends_the_session_at_once(monkeypatch, capsys, status):
    ended, slept = await reconnecting(monkeypatch, StatusProxy([status]), attempts=3)
    assert ended is None
    assert slept == [0.0]  # one attempt
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith(
        f"the server answered HTTP {status}, a redirect that names no address (no Location): "
        "ask whoever runs the server for its WebSocket address"
    ), lines
    assert lines[2:] == ["trying again will not change that; the session ends"], lines
