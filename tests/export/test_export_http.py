"""``GET /tables/ID/export`` on a real server: the token's role decides the audience,
the token travels in the Authorization header only and never reaches the log; every
refusal is JSON with its stable code (401, 403, 404, 400)."""

from __future__ import annotations

import json
import logging

import pytest

from rollbridge.export.log import NO_FORMAT
from rollbridge.stores.base import UNKNOWN_TABLE
from rollbridge.tokens import new_token
from tests.server.httpclient import get


def error_of(status_body: tuple[int, dict, bytes]) -> tuple[int, str]:
    status, headers, body = status_body
    assert headers["Content-Type"] == "application/json; charset=utf-8"
    return status, json.loads(body)["code"]


async def test_markdown_and_jsonl_for_a_token_holder(tables):
    gm, _ = await tables.join("sr2", "gm")
    await gm.request({"type": "roll", "formula": "5d6+777", "label": "secret plan", "secret": True})
    await gm.request({"type": "roll", "formula": "2d6", "label": "open"})
    player = tables.tokens["sr2"]["player"]
    status, headers, body = await get(tables.server, "/tables/sr2/export?format=markdown",
                                      token=player)  # fmt: skip
    assert status == 200
    assert headers["Content-Type"] == "text/markdown; charset=utf-8"
    assert headers["Content-Disposition"] == 'attachment; filename="sr2-player.md"'
    assert headers["X-Content-Type-Options"] == "nosniff"
    text = body.decode("utf-8")
    assert text.startswith("# Session log: Shadowrun night\n") and "Seen as: a player" in text
    assert "Roll (open): 2d6 [" in text and "secret plan" not in text and "777" not in text
    status, headers, body = await get(tables.server, "/tables/sr2/export?format=jsonl&since=2",
                                      token=tables.tokens["sr2"]["gm"])  # fmt: skip
    assert status == 200 and headers["Content-Type"] == "application/x-ndjson"
    assert headers["Content-Disposition"] == 'attachment; filename="sr2-gm.jsonl"'
    welcome, *lines = [json.loads(line) for line in body.decode("utf-8").splitlines()]
    assert (welcome["type"], welcome["seq"]) == ("welcome", 2)
    assert [e["seq"] for e in lines] == [3, 4]
    assert lines[0]["data"]["label"] == "secret plan" and lines[0]["gm_only"] is True


async def test_the_role_decides_and_as_only_lowers_it(tables):
    gm, player = tables.tokens["sr2"]["gm"], tables.tokens["sr2"]["player"]
    observer = tables.tokens["sr2"]["observer"]
    as_player = await get(tables.server, "/tables/sr2/export?format=jsonl&as=player", token=gm)
    by_player = await get(tables.server, "/tables/sr2/export?format=jsonl", token=player)
    by_gm = await get(tables.server, "/tables/sr2/export?format=jsonl", token=gm)
    assert as_player[0] == by_player[0] == 200 and as_player[2] == by_player[2]
    assert by_gm[2] != by_player[2]  # Guard A's sheet is the GM's
    assert as_player[1]["Content-Disposition"].endswith('-player.jsonl"')
    for token, asked in ((player, "gm"), (observer, "player"), (observer, "gm")):
        answer = await get(tables.server, f"/tables/sr2/export?format=jsonl&as={asked}",
                           token=token)  # fmt: skip
        assert error_of(answer) == (403, "forbidden")
        role = "player" if token == player else "observer"
        message = json.loads(answer[2])["message"]
        assert message == f"as: a token of role {role} cannot export the {asked} view"


async def test_a_missing_wrong_or_revoked_token_is_401(tables):
    path = "/tables/sr2/export?format=jsonl"
    answer = await get(tables.server, path)
    assert error_of(answer) == (401, "unauthorized") and answer[1]["WWW-Authenticate"] == "Bearer"
    wrong, _ = new_token("sr2", "gm")
    assert error_of(await get(tables.server, path, token=wrong)) == (401, "unauthorized")
    other = tables.tokens["tally"]["gm"]  # a token of another table
    assert error_of(await get(tables.server, path, token=other)) == (401, "unauthorized")
    basic = await get(tables.server, path, headers={"Authorization": "Basic dXNlcjpwdw=="})
    assert error_of(basic) == (401, "unauthorized")
    player = tables.tokens["sr2"]["player"]
    assert (await get(tables.server, path, token=player))[0] == 200
    record = next(r for r in tables.store.list_tokens("sr2") if r.role == "player")
    assert tables.store.revoke_token("sr2", record.id)
    assert error_of(await get(tables.server, path, token=player)) == (401, "unauthorized")


async def test_an_unknown_table_is_404(tables):
    answer = await get(tables.server, "/tables/nope/export?format=jsonl",
                       token=tables.tokens["sr2"]["gm"])  # fmt: skip
    assert error_of(answer) == (404, "unknown_table")


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("format=html", "format"),
        ("", "format"),
        ("format=jsonl&since=-1", "since"),
        ("format=jsonl&since=abc", "since"),
        ("format=jsonl&since=99", "since"),
        ("format=jsonl&as=admin", "as"),
        ("format=markdown&locale=xx", "locale"),
        ("format=jsonl&token=rbt_x", "token"),
    ],
)
async def test_bad_parameters_are_400(tables, query, field):
    answer = await get(tables.server, f"/tables/sr2/export?{query}",
                       token=tables.tokens["sr2"]["gm"])  # fmt: skip
    assert error_of(answer) == (400, "invalid_request")
    assert json.loads(answer[2])["details"] == {"field": field}


async def test_refusals_speak_the_requests_language(tables):
    path, token = "/tables/nope/export?format=jsonl", tables.tokens["sr2"]["gm"]
    german = await get(tables.server, path, token=token, headers={"Accept-Language": "de"})
    asked = await get(tables.server, path + "&locale=de", token=token)
    english = await get(tables.server, path, token=token)
    expected = UNKNOWN_TABLE(table="'nope'")
    assert expected.render("de") != expected.render("en")  # the catalogue has it in German
    assert json.loads(german[2])["message"] == expected.render("de")
    assert json.loads(asked[2])["message"] == expected.render("de")
    assert json.loads(english[2])["message"] == expected.render("en")


async def test_the_token_never_reaches_the_log(tables, debug_log):
    token = tables.tokens["sr2"]["player"]
    record = next(r for r in tables.store.list_tokens("sr2") if r.role == "player")
    ok = await get(tables.server, "/tables/sr2/export?format=markdown", token=token)
    refused = await get(tables.server, "/tables/sr2/export?format=jsonl&as=gm", token=token)
    assert ok[0] == 200 and refused[0] == 403
    written = debug_log.getvalue()
    lines = [json.loads(line) for line in written.splitlines()]
    assert any(line["logger"].startswith("websockets") for line in lines)  # DEBUG is on
    exported = [line for line in lines if line["logger"] == "rollbridge.export"]
    assert any(record.id in line["message"] and "as player" in line["message"]
               for line in exported)  # fmt: skip
    assert token not in written and token[4:20] not in written


async def test_the_export_logger_never_holds_the_token_itself(tables, caplog):
    caplog.set_level(logging.DEBUG, logger="rollbridge.export")
    token = tables.tokens["sr2"]["gm"]
    for query in ("format=jsonl", "format=nope", "format=jsonl&since=x"):
        await get(tables.server, f"/tables/sr2/export?{query}", token=token)
    await get(tables.server, "/tables/nope/export?format=jsonl", token=token)
    records = [r for r in caplog.records if r.name == "rollbridge.export"]
    assert len(records) == 4
    assert all(token not in r.getMessage() and token[4:20] not in str(r.args) for r in records)


async def test_too_large_is_413_and_a_failing_store_503(tables, monkeypatch):
    from rollbridge.exceptions import StoreError
    from rollbridge.server import export_http

    token = tables.tokens["sr2"]["gm"]
    path = "/tables/sr2/export?format=markdown"
    monkeypatch.setattr(export_http, "MAX_EXPORT_BYTES", 200)
    answer = await get(tables.server, path, token=token)
    assert error_of(answer) == (413, "limit_exceeded")
    assert json.loads(answer[2])["details"] == {"limit": 200}

    def broken(*_args):
        raise StoreError("cannot read /srv/secret/rollbridge.db")

    monkeypatch.setattr(tables.store, "find_token", broken)
    answer = await get(tables.server, path, token=token)
    assert error_of(answer) == (503, "store_error")
    assert "/srv/secret" not in answer[2].decode("utf-8")


async def test_exports_past_the_limit_are_busy_and_leave_a_reader_for_joins(tables, monkeypatch):
    """An export holds one of the server's two store-reading threads for seconds;
    exports past MAX_EXPORTS are refused at once (503 ``busy``, ``Retry-After``), so
    joins, admin calls and ``/readyz`` always find a reader (they waited, and after
    10 s were cut off without an answer)."""
    import asyncio
    import threading

    from rollbridge.server.export_http import MAX_EXPORTS, ExportRoute

    release, started = threading.Event(), threading.Event()
    export = ExportRoute._export

    def slow(self, *args):
        started.set()
        release.wait(10)
        return export(self, *args)

    monkeypatch.setattr(ExportRoute, "_export", slow)
    token = tables.tokens["sr2"]["gm"]
    path = "/tables/sr2/export?format=markdown"
    running = [asyncio.create_task(get(tables.server, path, token=token))
               for _ in range(MAX_EXPORTS)]  # fmt: skip
    await asyncio.to_thread(started.wait, 5)
    await asyncio.sleep(0.1)
    try:
        status, headers, body = await get(tables.server, path, token=token)
        assert (status, json.loads(body)["code"]) == (503, "busy")
        assert headers["Retry-After"] == "2"
        assert json.loads(body)["details"] == {"running": MAX_EXPORTS, "limit": MAX_EXPORTS}
        ready = await get(tables.server, "/readyz")
        assert ready[0] == 200
        _peer, welcome = await asyncio.wait_for(tables.join("sr2", "player"), 5)
        assert welcome["type"] == "welcome"
    finally:
        release.set()
    assert all(status == 200 for status, _, _ in await asyncio.gather(*running))
    assert (await get(tables.server, path, token=token))[0] == 200  # free again


async def test_a_token_misplaced_in_the_query_is_neither_echoed_nor_taken(tables):
    token = tables.tokens["sr2"]["player"]
    for query in (f"format={token}", f"format=jsonl&as={token}", f"format=jsonl&Token={token}"):
        status, _headers, body = await get(tables.server, f"/tables/sr2/export?{query}",
                                           token=token)  # fmt: skip
        assert status == 400 and token.split("_", 1)[1] not in body.decode("utf-8"), query
    answer = await get(tables.server, f"/tables/sr2/export?format=jsonl&Token={token}",
                       token=token)  # fmt: skip
    assert json.loads(answer[2])["details"] == {"field": "token"}


async def test_an_export_counts_until_its_thread_ends_or_until_given_up_unstarted():
    """websockets cancels an answer that outlives its handshake timeout (10 s), and a
    client may leave. An export whose thread is reading counts until the thread is
    done (a second one let in then found no reader free); one still waiting for a
    thread never runs, and is counted out at once (else the count leaked for good)."""
    import asyncio
    import threading
    import types
    from concurrent.futures import ThreadPoolExecutor

    from rollbridge.server.export_http import ExportRoute, _Job

    release = threading.Event()
    with ThreadPoolExecutor(1) as reader:
        metrics = types.SimpleNamespace(store_read=lambda outcome: None)
        server = types.SimpleNamespace(
            _loop=asyncio.get_running_loop(), _reader=reader, metrics=metrics
        )
        route = ExportRoute(server)  # type: ignore[arg-type]
        ran: list[str] = []

        def export(name: str) -> tuple[str, str, str]:
            ran.append(name)
            release.wait(10)
            return "gm", "", "id"

        route._export = export  # type: ignore[method-assign]
        reading = asyncio.ensure_future(_Job(route).run("first"))
        await asyncio.sleep(0.05)
        waiting = asyncio.ensure_future(_Job(route).run("second"))  # no thread free
        await asyncio.sleep(0.05)
        assert route.running == 2
        waiting.cancel()
        reading.cancel()  # given up; its thread still reads
        await asyncio.sleep(0.05)
        assert route.running == 1
        release.set()
        for _ in range(100):
            if route.running == 0:
                break
            await asyncio.sleep(0.01)
        assert route.running == 0 and ran == ["first"]
    server._reader = None  # stopped: in_reader refuses, and the job is counted out
    with pytest.raises(RuntimeError):
        await _Job(route).run("late")
    assert route.running == 0


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("format=jsonl&locale=de%FF", "locale"),
        ("format=jsonl%C3%28", "format"),
        ("format=jsonl&x%FF=1", "x%FF"),  # a name as sent (it was "x\ufffd")
        ("format=jsonl&as=player%ED%A0%80", "as"),
    ],
)
async def test_a_parameter_that_is_not_utf8_is_refused_by_name(tables, query, field):
    """The export read its query with U+FFFD for percent-escapes that are no UTF-8
    (a parameter it ignores was ignored, a locale negotiated from what was left), as
    the admin API did before it refused them (review of the fuzzers, 5 December):
    now 400 ``invalid_request`` naming the parameter, as the admin API's — a name
    that is itself so as it was sent (``x%FF``), never with U+FFFD in its stead."""
    answer = await get(tables.server, f"/tables/sr2/export?{query}",
                       token=tables.tokens["sr2"]["gm"])  # fmt: skip
    assert error_of(answer) == (400, "invalid_request")
    body = json.loads(answer[2])
    assert body["details"] == {"field": field} and "not valid Unicode" in body["message"]


async def test_a_percent_that_begins_no_escape_in_the_query_is_a_percent(tables):
    """A query value with a ``%`` not followed by two hexadecimal digits (``?x=100%``,
    a parameter the export does not read) was refused 400: browsers and the WHATWG
    URL standard keep such a ``%`` as it is, and so does the export now; a table id
    with one stays refused (a path segment is read strictly)."""
    token = tables.tokens["sr2"]["gm"]
    answer = await get(tables.server, "/tables/sr2/export?format=jsonl&x=100%&y=a%zz",
                       token=token)  # fmt: skip
    plain = await get(tables.server, "/tables/sr2/export?format=jsonl", token=token)
    assert answer[0] == 200 and answer[2] == plain[2]
    refused = await get(tables.server, "/tables/sr%/export?format=jsonl", token=token)
    assert error_of(refused) == (400, "invalid_request")
    assert json.loads(refused[2])["details"] == {"field": "path", "segment": "sr%"}


async def test_a_token_given_twice_in_the_query_is_told_it_belongs_in_the_header(tables):
    """A token in the query is refused saying the token goes in the header and a new
    one is due if it was shared; given twice, it was refused as any parameter given
    twice ("the query gives the parameter 'token' more than once"): the advice that it
    leaked was lost, and the client that sent it once got it only then."""
    from rollbridge.server.export_http import IN_URL

    token = tables.tokens["sr2"]["player"]
    for query in ("format=jsonl&token=rbt_x&token=rbt_y", "format=jsonl&Token=rbt_x&Token=rbt_x"):
        answer = await get(tables.server, f"/tables/sr2/export?{query}", token=token)
        assert error_of(answer) == (400, "invalid_request"), query
        said = json.loads(answer[2])
        assert said["details"] == {"field": "token"} and said["message"] == IN_URL().render("en")


@pytest.mark.parametrize(
    "query",
    ["format=jsonl%0A", "format=%09jsonl", "format=jsonl&since=1%0A", "format=jsonl&as=+player",
     "format=jsonl&as=player%E2%80%A8", "format=jsonl&locale=%0Ade", "format=jsonl&locale=de%09",
     "format=jsonl&locale=de%C2%85", "format=jsonl&locale=de_DE%0D.UTF-8"],
)  # fmt: skip
async def test_a_parameter_with_a_control_character_is_refused_as_sent(tables, query):
    """A parameter with a control character anywhere is refused, named: ``locale`` was
    read by ``negotiate``, which strips what is around a name, so ``%0Ade`` was German.
    ``format``, ``since`` and ``as`` are taken exactly as sent, spaces and all."""
    answer = await get(tables.server, f"/tables/sr2/export?{query}",
                       token=tables.tokens["sr2"]["gm"])  # fmt: skip
    assert error_of(answer) == (400, "invalid_request"), answer
    field = query.rpartition("&")[2].partition("=")[0]
    assert json.loads(answer[2])["details"] == {"field": field}


async def test_an_export_without_a_format_says_to_add_one(tables):
    """Before, an address without ``format`` (a link copied without its query) was
    refused as "format: must be jsonl or markdown, not ''", quoting a value nobody
    gave; it now says the parameter is missing and what to add. An empty one is
    still quoted."""
    token = tables.tokens["sr2"]["player"]
    for path, locale in (("/tables/sr2/export", "en"), ("/tables/sr2/export?locale=ru", "ru")):
        status, _, body = await get(tables.server, path, token=token)
        refusal = json.loads(body)
        assert (status, refusal["code"], refusal["details"]) == (
            400, "invalid_request", {"field": "format"})  # fmt: skip
        assert refusal["message"] == NO_FORMAT().render(locale)
    assert NO_FORMAT().render("en") == (
        "format: missing; add format=jsonl (the log, which rollbridge verify checks) or "
        "format=markdown (a session report) to the address"
    )
    _, _, body = await get(tables.server, "/tables/sr2/export?format=", token=token)
    assert json.loads(body)["message"] == "format: must be jsonl or markdown, not ''"
