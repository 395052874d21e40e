"""``rollbridge connect`` rides out an outage longer than five attempts: by default it
tries for 300 s (``--reconnect-for``), saying each failed attempt, where it gave up
after five (about 15 s with the default waits, well before a server or a Redis it
waits for is back from a restart). ``--reconnect-attempts N`` still counts attempts
instead. A real ``rollbridge serve`` process, killed and started again only after the
client has failed more attempts than it once made, and a real ``connect`` process;
the schedule's own clock is injected where its time is what is tested."""

from __future__ import annotations

import pytest

from rollbridge.cli.reconnect import RECONNECT_FOR, Schedule
from tests.cli.test_cli_reconnect import Terminal
from tests.cli.test_cli_server_killed import _serve, quit_and_stop, serving_a_table


async def _watching(url: str, token: str, *args: str) -> Terminal:
    """``rollbridge connect`` of ``url`` (``args`` after it), its first wait short, so
    that the attempts a test waits for come soon."""
    return await Terminal.start(url, token, *args, ROLLBRIDGE_RECONNECT_DELAY="0.05")


async def _killed(server, terminal: Terminal, lost: str) -> str:
    """``server`` killed while ``terminal`` watches: the line that says the connection
    was lost (the first holding ``lost``)."""
    server.kill()
    await server.wait()
    return await terminal.until(lost)


async def test_connect_waits_out_a_restart_longer_than_five_attempts(tmp_path):
    db = tmp_path / "restart.db"
    made, port, server, url = await serving_a_table(db, "Restart")
    terminal = await _watching(url, made["tokens"]["gm"])
    try:
        await terminal.until("type help")
        await terminal.type("1d1+10")
        await terminal.until("#1 roll by gm")
        lost = await _killed(server, terminal, "connection ")
        assert lost.rstrip().endswith("reconnecting (for up to 300 s)"), lost
        # more attempts failed than the five the session made before it ended
        failed = await terminal.until("reconnecting, attempt 7: cannot connect")
        assert "could not reconnect" not in failed
        server = await _serve(db, port)
        await terminal.until("resumed after #1")
        await terminal.type("1d1+20")
        await terminal.until("#2 roll by gm")
    finally:
        status, out = await quit_and_stop(terminal, server)
    assert status == 0, out
    assert out.count("joined Restart") == 2 and "could not reconnect" not in out, out


class _Clock:
    """The schedule's clock, moved by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_the_attempts_go_on_for_the_time_given_and_then_say_how_many_failed():
    clock = _Clock()
    schedule = Schedule(within=60, clock=clock)
    began = clock()
    assert not schedule.spent(0, None) and not schedule.spent(40, began)
    clock.now += 59.5
    assert not schedule.spent(41, began)
    assert schedule.heading(1001, "", 41, began, "en").endswith("(for up to 1 s)")
    clock.now += 0.5
    assert schedule.spent(42, began)
    said = schedule.gave_up(42, "en")
    assert said == "could not reconnect in 42 attempts within 60 s; the session ends"
    assert "60" in schedule.gave_up(42, "de") and "42" in schedule.gave_up(42, "ru")
    # counted instead, as --reconnect-attempts asks, however long they take
    counted = Schedule(attempts=3, within=1, clock=clock)
    clock.now += 3600
    assert not counted.spent(2, began) and counted.spent(3, began)
    assert counted.gave_up(3, "en") == "could not reconnect in 3 attempts; the session ends"
    # 0 of either: never
    assert not Schedule(within=0).reconnects() and not Schedule(attempts=0).reconnects()
    assert Schedule().within == RECONNECT_FOR == 300


async def test_each_failed_attempt_is_said_in_the_players_language(tmp_path):
    """The minutes of an outage are a line per attempt, each in the session's
    language: the system's reason too, not asyncio's English ``[Errno 111] Connect
    call failed ('127.0.0.1', PORT)``, which every attempt said to a Czech player."""
    db = tmp_path / "cs.db"
    made, _port, server, url = await serving_a_table(db, "Stůl")
    terminal = await _watching(url, made["tokens"]["gm"], "--locale", "cs")
    try:
        await terminal.until("help")
        lost = await _killed(server, terminal, "spojení ")
        assert lost.rstrip().endswith("připojuji se znovu (nejvýše 300 s)"), lost
        failed = await terminal.until("nové připojení, pokus 2: ")
        assert (
            failed.rstrip()
            == f"nové připojení, pokus 2: nelze se připojit k {url}: Spojení odmítnuto"
        )
    finally:
        status, out = await quit_and_stop(terminal, server)
    assert status == 0 and "Connect call failed" not in out and "Errno" not in out, out


def test_the_last_wait_ends_at_the_limit_not_a_wait_past_it():
    # 59 s of a 60 s outage gone, the next wait drawn as 8 s: the attempt is made at
    # the limit, 1 s on, not 7 s after the time the session was told to try for
    clock = _Clock()
    schedule = Schedule(first=8, within=60, clock=clock)
    began = clock()
    clock.now += 59
    assert schedule.wait(5, began, draw=lambda: 1.0) == 1.0
    # a refused hello's retry_after is cut the same way
    assert schedule.wait(5, began, at_least=30, draw=lambda: 0.0) == 1.0
    # early in the outage the wait is the backoff's, or the retry_after if longer
    clock.now = began + 10
    assert schedule.wait(5, began, draw=lambda: 1.0) == 8.0
    assert schedule.wait(5, began, at_least=30, draw=lambda: 0.0) == 30.0
    # counted attempts wait the whole backoff, however long the outage has gone on
    counted = Schedule(attempts=3, first=8, within=60, clock=clock)
    clock.now = began + 3600
    assert counted.wait(2, began, draw=lambda: 1.0) == 8.0


def test_a_time_and_a_count_of_attempts_together_are_refused(capsys, monkeypatch):
    # both given, the attempts counted and the time was silently not used: now the
    # pair is a usage error (status 2), in the language asked for, and nothing is
    # connected to
    from rollbridge.cli import main

    monkeypatch.setenv("ROLLBRIDGE_TOKEN", "t")
    url = "ws://127.0.0.1:1/tables/t"  # nothing listens there: never reached
    for locale, said in (
        ("en", "argument --reconnect-attempts: not allowed with argument --reconnect-for"),
        ("de", "--reconnect-attempts: nicht zusammen mit dem Argument --reconnect-for erlaubt"),
    ):
        with pytest.raises(SystemExit) as usage:
            main(["connect", url, "--reconnect-for", "600", "--reconnect-attempts", "3",
                  "--locale", locale])  # fmt: skip
        assert usage.value.code == 2
        err = capsys.readouterr().err
        assert said in err, err
        assert "cannot connect" not in err


async def test_the_session_waits_no_further_than_the_limit(monkeypatch, capsys):
    # the terminal's own loop, not only the schedule, cuts its wait: with the
    # terminal's sleep put back to the whole backoff, every test above still passed.
    # A first wait of 30 s (ROLLBRIDGE_RECONNECT_DELAY=30: 15 to 30 s, drawn) in an
    # outage tried for 10 s is waited 10 s, the one attempt made then, at the limit,
    # and the session ends. The sleeps are recorded, moving the schedule's clock; the
    # attempt is a real one, to a port nothing listens on.
    from rollbridge.cli import terminal
    from rollbridge.cli.waits import waits_from
    from tests.cli.test_cli_server_killed import _free_port

    clock = _Clock()
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)
        clock.now += seconds

    monkeypatch.setattr(terminal.asyncio, "sleep", sleep)
    schedule = Schedule(first=30, within=10, clock=clock)
    url = f"ws://127.0.0.1:{_free_port()}/tables/t"
    link = terminal._Link()
    ended = await terminal._reconnect(
        url, str, {}, link, "en", schedule, waits_from(10, {}), "connection lost"
    )
    assert ended is None and link.strikes == 1
    assert slept == [10.0]
    assert "reconnecting, attempt 1: cannot connect" in capsys.readouterr().out
