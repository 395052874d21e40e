"""What the attempt line of ``rollbridge connect`` says of a proxy's ``Retry-After``
that asks for more than the 60 s it waits, or for nothing: a capped one was said as
"tried again in 60 s, as its Retry-After asks" — the reader could not tell that the
proxy asked for an hour, nor why the server stayed away after it — and a
``Retry-After: 0`` as "tried again in 0 s, as its Retry-After asks" where the
backoff's wait applied. A stand-in proxy answers on a real socket; the sleeps are
recorded, and the schedule counts attempts."""

from __future__ import annotations

import pytest

from tests.cli.test_cli_connect_answered import StatusProxy
from tests.cli.test_cli_connect_answered_more import reconnecting
from tests.cli.test_cli_server_killed import _free_port

HEAD = "the server answered HTTP 503 where a WebSocket was asked for; "


@pytest.mark.parametrize(
    ("retry_after", "said", "waited"),
    [
        ("3600", "tried again in 60 s, the longest connect waits, though its Retry-After "
                 "asks for 3600 s", 60.0),
        ("9" * 400, "tried again in 60 s, the longest connect waits, though its "
                    "Retry-After asks for decades", 60.0),
        ("60", "tried again in 60 s, as its Retry-After asks", 60.0),
        ("0", "tried again: a proxy answers so while the server behind it restarts", 0.0),
    ],
)  # fmt: skip
async def test_the_attempt_line_says_what_the_retry_after_asked(
    monkeypatch, capsys, retry_after, said, waited
):
    proxy = StatusProxy([503], f"Retry-After: {retry_after}\r\n")
    ended, slept = await reconnecting(monkeypatch, proxy, 2)
    assert ended is None
    assert slept == [0.0, waited]
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith(HEAD + said), lines


@pytest.mark.parametrize("locale", ["cs", "de", "ru"])
def test_a_capped_wait_is_said_in_the_readers_language(locale):
    from rollbridge.cli.open_refused import waited_text

    capped = waited_text(3600, 60.0).render(locale)
    assert "60" in capped and "3600" in capped and "Retry-After" in capped
    assert capped != waited_text(3600, 60.0).render("en")


async def test_a_wait_past_the_time_reconnect_for_gives_is_said_cut_short(monkeypatch, capsys):
    """``--reconnect-for 30`` and a ``Retry-After: 60``: the last attempt comes when the
    30 s end, and the line says so (it said "tried again in 60 s, as its Retry-After
    asks"); once they have ended no attempt follows, and the line says none (it said
    "tried again" before the line that the session ends). The clock moves only as
    the session sleeps."""
    from rollbridge.cli import terminal
    from rollbridge.cli.reconnect import Schedule
    from rollbridge.cli.waits import waits_from

    now = [0.0]
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    port = _free_port()
    proxy = await StatusProxy([503], "Retry-After: 60\r\n").start(port)
    monkeypatch.setattr(terminal.asyncio, "sleep", sleep)
    try:
        ended = await terminal._reconnect(
            f"ws://127.0.0.1:{port}/tables/t", str, {}, terminal._Link(), "en",
            Schedule(first=0, within=30, clock=lambda: now[0]), waits_from(10, {}),
            "connection lost",
        )  # fmt: skip
    finally:
        monkeypatch.undo()
        await proxy.stop()
    assert ended is None
    assert slept == [0.0, 30.0]
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith(
        HEAD + "tried again in 30 s, as the time --reconnect-for gives ends, sooner than its "
        "Retry-After asks"
    ), lines
    assert lines[2].endswith(HEAD.removesuffix("; ")), lines
    assert lines[3] == "could not reconnect in 2 attempts within 30 s; the session ends", lines


@pytest.mark.parametrize(
    ("retry_after", "status"), [("30", 503), ("3600", 503), ("0", 503), ("", 502)]
)
async def test_the_last_of_the_attempts_counted_says_no_wait(
    monkeypatch, capsys, retry_after, status
):
    """``--reconnect-attempts 2``: the second attempt is the last, and its line said
    "tried again in 30 s, as its Retry-After asks" (or "tried again") just before the
    line that the session ends — only the time ``--reconnect-for`` gives was held to
    "nothing after the last attempt". The first attempt's line still says the wait."""
    header = f"Retry-After: {retry_after}\r\n" if retry_after else ""
    proxy = StatusProxy([status], header)
    ended, _slept = await reconnecting(monkeypatch, proxy, 2)
    assert ended is None
    lines = capsys.readouterr().out.splitlines()
    answered = f"the server answered HTTP {status} where a WebSocket was asked for"
    assert "tried again" in lines[1], lines
    assert lines[2].endswith(answered), lines
    assert lines[3] == "could not reconnect in 2 attempts; the session ends", lines
