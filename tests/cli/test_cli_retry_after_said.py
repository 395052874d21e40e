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
