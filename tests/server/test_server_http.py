"""HTTP on the WebSocket port (issue 16, item 6): /metrics in Prometheus' text
format, /healthz, /readyz; and a log with no token in it, as text or JSON lines,
at DEBUG too."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from rollbridge.server.logs import JsonFormatter, SafeLog, redact
from rollbridge.server.web_view import NOTHING_HERE
from tests.server.httpclient import fetch, get, raw_answer


def samples(body: bytes) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of a /metrics page, by name and labels."""
    found = {}
    for family in text_string_to_metric_families(body.decode("utf-8")):
        for sample in family.samples:
            found[sample.name, tuple(sorted(sample.labels.items()))] = sample.value
    return found


async def test_bytes_sent_counts_a_json_frames_utf_8_not_its_characters(tables):
    """rollbridge_bytes_sent_total is bytes on the wire: a Russian JSON client's
    frames are mostly two-byte letters (it counted characters before)."""
    before = samples((await get(tables.server, "/metrics"))[2])["rollbridge_bytes_sent_total", ()]
    russian, _ = await tables.join("sr2", "gm", locale="ru")
    for _ in range(2):
        assert (await russian.request({"type": "roll", "formula": "1d6", "label": "Бросок"}))[
            "status"
        ] == "done"
    await russian.request({"type": "ping"})
    found = samples((await get(tables.server, "/metrics"))[2])
    texts = [frame for frame in russian.frames if isinstance(frame, str)]
    assert texts and any(not frame.isascii() for frame in texts)
    utf_8 = sum(len(frame.encode()) for frame in texts)
    assert found["rollbridge_bytes_sent_total", ()] - before == utf_8 > sum(map(len, texts))


async def test_bytes_sent_counts_a_msgpack_frames_length(tables):
    """A binary frame's bytes are its length: counted as such where frames are
    handed over (``Client.enqueue`` takes the length of bytes itself, not through
    ``payload_size``: docs/performance.md, "The loop's glue, 7 December
    (evening)"), every frame of a msgpack client's, the welcome included."""
    metrics = "/metrics"
    before = samples((await get(tables.server, metrics))[2])["rollbridge_bytes_sent_total", ()]
    gm, _ = await tables.join("sr2", "gm", binary=True)
    for _ in range(2):
        assert (await gm.request({"type": "roll", "formula": "1d6"}))["status"] == "done"
    found = samples((await get(tables.server, metrics))[2])
    assert gm.frames and all(isinstance(frame, bytes) for frame in gm.frames)
    assert found["rollbridge_bytes_sent_total", ()] - before == sum(map(len, gm.frames))


async def test_healthz_and_readyz_answer(tables):
    status, headers, body = await get(tables.server, "/healthz")
    assert (status, body) == (200, b"ok\n")
    assert headers["Content-Type"].startswith("text/plain")
    status, _, body = await get(tables.server, "/readyz")
    assert (status, body) == (200, b"ready\n")


async def test_readyz_is_503_when_the_store_fails_or_the_server_stops(tables, monkeypatch):
    def broken() -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(tables.store, "ping", broken)
    status, _, body = await get(tables.server, "/readyz")
    assert status == 503 and b"the store failed: OSError" in body
    assert (await get(tables.server, "/healthz"))[0] == 200  # up, only not ready
    monkeypatch.undo()
    tables.server.stopping = True
    status, _, body = await get(tables.server, "/readyz")
    assert status == 503 and b"stopping" in body
    tables.server.stopping = False


async def test_metrics_count_connections_requests_errors_commits_and_bytes(tables):
    gm, _ = await tables.join("tally", "gm")
    player, _ = await tables.join("sr2", "player", binary=True)
    for _ in range(3):
        assert (await gm.request({"type": "roll", "formula": "1d6"}))["status"] == "done"
    assert (await gm.request({"type": "adjust", "actor": "nobody", "track": "hp", "delta": 1}))[
        "code"
    ] == "unknown_actor"
    assert (await player.request({"type": "ping"}))["type"] == "pong"
    status, headers, body = await get(tables.server, "/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain; version=")
    found = samples(body)
    assert found["rollbridge_connections", ()] == 2
    assert found["rollbridge_open_tables", ()] == 2
    assert found["rollbridge_pending_commits", ()] == 0
    assert found["rollbridge_requests_total", (("outcome", "done"), ("type", "roll"))] == 3
    assert found["rollbridge_requests_total", (("outcome", "done"), ("type", "hello"))] == 2
    assert found["rollbridge_requests_total", (("outcome", "done"), ("type", "ping"))] == 1
    assert found["rollbridge_requests_total", (("outcome", "error"), ("type", "adjust"))] == 1
    assert found["rollbridge_errors_total", (("code", "unknown_actor"),)] == 1
    assert found["rollbridge_commit_seconds_count", ()] >= 1
    assert found["rollbridge_commit_group_size_sum", ()] == 3  # every roll, in some groups
    assert found["rollbridge_bytes_sent_total", ()] >= sum(len(f) for f in gm.frames)
    await gm.close()
    await player.close()
    await asyncio.sleep(0.05)
    found = samples((await get(tables.server, "/metrics"))[2])
    assert found["rollbridge_connections", ()] == 0


async def test_a_refused_hello_is_an_error_and_a_cut_off(tables):
    peer, welcome = await tables.join("sr2", "gm", token="rbt_wrong")
    assert welcome["code"] == "unauthorized"
    assert await peer.wait_closed() == 1008
    found = samples((await get(tables.server, "/metrics"))[2])
    assert found["rollbridge_requests_total", (("outcome", "error"), ("type", "hello"))] == 1
    assert found["rollbridge_errors_total", (("code", "unauthorized"),)] == 1
    assert found["rollbridge_clients_cut_off_total", (("reason", "unauthorized"),)] == 1


async def test_two_servers_count_apart(make_tables):
    one, two = await make_tables(), await make_tables()
    gm, _ = await one.join("tally", "gm")
    await gm.request({"type": "roll", "formula": "1d6"})
    first = samples((await get(one.server, "/metrics"))[2])
    second = samples((await get(two.server, "/metrics"))[2])
    assert first["rollbridge_connections", ()] == 1
    assert second["rollbridge_connections", ()] == 0
    assert ("rollbridge_requests_total", (("outcome", "done"), ("type", "roll"))) not in second


async def test_other_paths_still_open_websockets(tables):
    from websockets.asyncio.client import connect

    url = f"ws://{tables.server.address}:{tables.server.port}/tables/sr2"
    async with connect(url) as connection:
        hello = {"type": "hello", "id": 1, "table": "sr2", "token": tables.tokens["sr2"]["gm"]}
        await connection.send(json.dumps(hello))
        assert json.loads(await connection.recv())["type"] == "welcome"
    # plain HTTP: the table's web view (docs/web.md); any other path: a typed 404 in
    # the request's language (it was websockets' plain English 426)
    assert (await get(tables.server, "/tables/sr2"))[0] == 200
    status, _, body = await get(tables.server, "/somewhere/else", headers={"Accept-Language": "cs"})
    refusal = json.loads(body)
    assert (status, refusal["code"]) == (404, "not_found"), body
    assert "/somewhere/else" in refusal["message"] and "426" not in refusal["message"]
    assert refusal["message"] != NOTHING_HERE(path="'/somewhere/else'").render("en")
    assert (await get(tables.server, "/metrics", method="POST"))[0] == 405


# -- logs ----------------------------------------------------------------------------------


async def test_at_debug_the_log_holds_no_token_nor_a_start_of_one(tables, debug_log):
    from websockets.asyncio.client import connect

    json_peer, _ = await tables.join("sr2", "gm")
    msgpack_peer, _ = await tables.join("tally", "player", binary=True)
    async with connect(tables.server.url) as raw:  # the token last: its end is logged
        await raw.send(json.dumps({"type": "hello", "id": 7, "table": "sr2",
                                   "token": tables.tokens["sr2"]["observer"]}))  # fmt: skip
        assert json.loads(await raw.recv())["type"] == "welcome"
    await json_peer.request({"type": "roll", "formula": "1d6"})
    await msgpack_peer.request({"type": "ping"})
    refused = {"type": "adjust", "id": "bad-1", "actor": "nobody", "track": "stun", "delta": 1}
    assert (await json_peer.request(refused))["code"] == "unknown_actor"
    await get(tables.server, "/admin/tables", headers={"Authorization": "Bearer rba_s3cret-xyz"})
    await get(tables.server, "/admin/tables", headers={"Authorization": "Basic c2VjcmV0"})
    text = debug_log.getvalue()
    lines = [json.loads(line) for line in text.splitlines()]
    assert any(line["logger"].startswith("websockets") for line in lines)  # DEBUG frames
    assert any("joined table" in line["message"] for line in lines)
    (line,) = [line for line in lines if line.get("request") == "bad-1"]
    assert (line["table"], line["code"], line["level"]) == ("sr2", "unknown_actor", "DEBUG")
    for role_tokens in tables.tokens.values():
        for token in role_tokens.values():
            secret = token[4:]
            for start in range(len(secret) - 5):  # no six characters of it, anywhere
                assert secret[start : start + 6] not in text
                # websockets logs a frame's last 8 bytes in hex: a hello whose token ends
                # it would show 6 (JSON, before '"}') or 8 of its bytes; 5 is enough to
                # catch that, where 3 random bytes also turned up in other frames' hex
                # (a ping id's "0-2", about once in 30 runs)
                assert " ".join(f"{b:02x}" for b in secret[start : start + 5].encode()) not in text
    assert "s3cret" not in text and "c2VjcmV0" not in text
    assert "not shown: it holds a token" in text  # the hello frames were logged, held back
    for line in lines:
        assert set(line) <= {"time", "level", "logger", "message", "request", "table", "code",
                             "exception", "stack"}  # fmt: skip


def test_redact_cuts_text_hex_and_authorization():
    assert redact('"token": "rbt_AbC-d_9"}') == '"token": "rbt_…"}'
    assert redact("token rba_xyz done") == "token rba_… done"
    assert redact("a4 72 62 74 5f 41 42 43 ... 7d") == "a4 72 62 74 5f… ... 7d"
    assert redact("< Authorization: Bearer abc") == "< Authorization: …"
    assert redact("nothing here") == "nothing here"


def record(message: str, **extra: Any) -> logging.LogRecord:
    made = logging.LogRecord("rollbridge.protocol", logging.ERROR, __file__, 1, message, (), None)
    for name, value in extra.items():
        setattr(made, name, value)
    return made


def test_json_lines_carry_request_table_and_code_and_a_redacted_traceback():
    try:
        raise ValueError("bad token rbt_leaked")
    except ValueError:
        import sys

        failing = record("request %r failed", request="r7", table="sr2", code="internal")
        failing.args, failing.exc_info = ("r7",), sys.exc_info()
    SafeLog().filter(failing)
    line = json.loads(JsonFormatter().format(failing))
    assert line["message"] == "request 'r7' failed"
    assert (line["request"], line["table"], line["code"]) == ("r7", "sr2", "internal")
    assert line["level"] == "ERROR" and line["logger"] == "rollbridge.protocol"
    assert "ValueError: bad token rbt_…" in line["exception"] and "leaked" not in line["exception"]
    assert line["time"].endswith("+00:00")
    plain = json.loads(JsonFormatter().format(record("no extras")))
    assert set(plain) == {"time", "level", "logger", "message"}


def test_the_text_format_redacts_the_traceback_too():
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(message)s"))
    handler.addFilter(SafeLog())
    logger = logging.getLogger("rollbridge.test-text-format")
    logger.addHandler(handler)
    try:
        try:
            raise RuntimeError("rba_adminsecret")
        except RuntimeError:
            logger.exception("failed with rbt_joinsecret")
    finally:
        logger.removeHandler(handler)
    assert "secret" not in stream.getvalue() and "rba_…" in stream.getvalue()


def test_serve_writes_json_lines_and_answers_http(tmp_path):
    """The real command: ``--log-format json`` at DEBUG, /healthz on its port, and
    every line of its log one JSON object."""
    import os
    import re
    import signal
    import subprocess
    import sys

    command = [sys.executable, "-m", "rollbridge", "serve", "--db", str(tmp_path / "r.db"),
               "--port", "0", "--log-format", "json", "--log-level", "DEBUG"]  # fmt: skip
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        for line in child.stderr:  # until it listens
            lines.append(json.loads(line))
            found = re.search(r"listening on ws://([\d.]+):(\d+)/", lines[-1]["message"])
            if found:
                break
        assert found, lines
        server = type("Address", (), {"address": found[1], "port": int(found[2])})
        assert fetch(server, "/healthz")[:1] == (200,)
        child.send_signal(signal.SIGINT)
        out, rest = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            os.kill(child.pid, signal.SIGKILL)
    assert child.returncode == 0 and "rbt_" in out  # the demo table's tokens, on stdout
    lines += [json.loads(line) for line in rest.splitlines()]
    assert {"INFO", "DEBUG"} <= {line["level"] for line in lines}
    assert "rbt_" not in rest  # nor in the log


async def test_a_client_too_far_behind_is_counted_as_cut_off(make_tables):
    from websockets.asyncio.client import connect

    world = await make_tables(buffer_limit=64 * 1024)
    ws = await connect(world.server.url, max_size=2**24)
    await ws.send(json.dumps({"type": "hello", "id": 1, "table": "sr2",
                              "token": world.tokens["sr2"]["gm"]}))  # fmt: skip
    while "sr2" not in world.server.tables.open:
        await asyncio.sleep(0.02)
    ws.transport.pause_reading()  # it asks and never reads
    session = world.server.tables.open["sr2"]
    for n in range(5000):
        await ws.send(json.dumps({"type": "state", "id": f"s{n}"}))
        await asyncio.sleep(0)
        if not session.members:
            break
    found = samples((await get(world.server, "/metrics"))[2])
    assert found["rollbridge_clients_cut_off_total", (("reason", "behind"),)] == 1
    assert found["rollbridge_bytes_sent_total", ()] > 64 * 1024
    ws.transport.abort()


#: Every GET route of the port but the admin API's (core/server/http.py's docstring).
GET_ROUTES = ["/metrics", "/healthz", "/readyz", "/", "/favicon.ico", "/tables/sr2",
              "/tables/sr2/overlay", "/tables/sr2/export?format=jsonl",
              "/static/web/table.mjs", "/static/client/protocol.mjs"]  # fmt: skip


async def test_another_method_than_get_on_a_get_route_is_a_typed_refusal(tables):
    """``POST /tables/ID/export``, ``OPTIONS /readyz``... were websockets' own 405 in
    plain English ("Failed to open a WebSocket connection: unsupported HTTP method"),
    no code to act on (found reading the routes as a hostile client, 5 December):
    now 405 ``invalid_request`` in JSON, ``Allow: GET, HEAD, OPTIONS`` (RFC 9110: a
    405 names what the path takes; an ``OPTIONS`` is answered since), naming the
    method, in the request's language. Nothing is done."""
    for path in GET_ROUTES:
        for method in ("POST", "DELETE", "PUT", "PATCH"):
            status, headers, body = await get(tables.server, path, method=method,
                                              headers={"Accept-Language": "de"})  # fmt: skip
            assert (status, headers.get("Allow")) == (405, "GET, HEAD, OPTIONS"), (method, path)
            answer = json.loads(body)
            assert answer["code"] == "invalid_request", (method, path, answer)
            assert answer["details"] == {"method": method}
            assert f"'{method}'" in answer["message"] and "nur" in answer["message"], answer


def _options(port: int, path: str, *headers: str) -> tuple[int, dict[str, str], bytes]:
    """An ``OPTIONS`` of ``path`` as a raw request (its answer read whole)."""
    lines = "".join(f"{line}\r\n" for line in ("Host: x", *headers))
    return raw_answer(port, f"OPTIONS {path} HTTP/1.1\r\n{lines}\r\n".encode())


async def test_options_of_a_route_is_204_with_the_methods_it_takes(tables):
    """``OPTIONS`` (HAProxy's default health check, a client asking what a path takes)
    was 405 everywhere — a probe saw the server down. Now a path a route takes is
    ``204 No Content`` with ``Allow`` naming its methods (RFC 9110 §9.3.7), without a
    body, a Content-Length (none in a 204) or a CORS header; the admin API's paths
    their own methods, without a token (it tells what the docs tell). What the GET
    refuses by the path alone is refused alike; a path no route takes is 404."""
    port = tables.server.port
    expected = {path.partition("?")[0]: "GET, HEAD, OPTIONS"
                for path in GET_ROUTES if path != "/favicon.ico"}  # fmt: skip
    expected.update({
        "/healthz/": "GET, HEAD, OPTIONS",
        "/tables/": "GET, HEAD, OPTIONS",
        "/tables/no-such-table/export": "GET, HEAD, OPTIONS",  # (no store read)
        "/admin/tables": "GET, HEAD, POST, OPTIONS",
        "/admin/tables/": "GET, HEAD, POST, OPTIONS",
        "/admin/tables/sr2": "DELETE, OPTIONS",
        "/admin/tables/sr2/tokens": "GET, HEAD, POST, OPTIONS",
        "/admin/tables/sr2/tokens/abc": "DELETE, OPTIONS",
    })  # fmt: skip
    for path, allowed in expected.items():
        status, fields, content = await asyncio.to_thread(_options, port, path)
        assert (status, fields.get("allow"), content) == (204, allowed, b""), (path, fields)
        assert "content-length" not in fields and "content-type" not in fields, path
        assert not [name for name in fields if name.startswith("access-control-")], path
    # with an Upgrade header it is no handshake (only a GET is): answered the same
    upgraded = await asyncio.to_thread(_options, port, "/tables/sr2", "Upgrade: websocket")
    assert upgraded[:2] == (204, {**upgraded[1], "allow": "GET, HEAD, OPTIONS"})
    refused = {"/nothing": (404, "not_found"), "/favicon.ico": (404, "not_found"),
               "/static/web/nope.mjs": (404, "not_found"), "/admin": (404, "not_found"),
               "/admin/users": (404, "not_found"),
               "/admin/tables/sr2/players": (404, "not_found"),
               "/tables/%FF": (400, "invalid_request"),
               "/tables/%FF/export": (400, "invalid_request"),
               "/admin/tables/%FF": (400, "invalid_request")}  # fmt: skip
    for path, (status, code) in refused.items():
        got, fields, content = await asyncio.to_thread(_options, port, path, "Accept-Language: cs")
        assert (got, json.loads(content)["code"]) == (status, code), (path, content)
        assert "allow" not in fields, path


async def test_options_of_the_asterisk_is_about_the_server_in_general(tables):
    """``OPTIONS *`` (RFC 9110 §9.3.7: the asterisk form asks about the server in
    general, not a resource) was 404 ``not_found``, as a path no route takes
    (websockets' reader passes the target ``*`` on as it is). Now 204 with ``Allow``
    naming every method the server takes somewhere — the admin API's ``POST`` and
    ``DELETE`` too —, no body, no Content-Length, no CORS header, no token needed;
    and any other method with the target ``*`` (a handshake too) is 400
    ``invalid_request`` naming the method, in the request's language."""
    port = tables.server.port
    for version in ("HTTP/1.1", "HTTP/1.0"):
        request = f"OPTIONS * {version}\r\nHost: x\r\n\r\n".encode()
        status, fields, content = await asyncio.to_thread(raw_answer, port, request)
        assert (status, content) == (204, b""), (version, fields, content)
        assert fields["allow"] == "GET, HEAD, POST, DELETE, OPTIONS", fields
        assert "content-length" not in fields and "content-type" not in fields
        assert not [name for name in fields if name.startswith("access-control-")]
    handshake = ("Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13",
                 "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==")  # fmt: skip
    for method, headers in [("GET", ()), ("POST", ()), ("DELETE", ()), ("PUT", ()),
                            ("GET", handshake), ("HEAD", ())]:  # fmt: skip
        lines = "".join(f"{line}\r\n" for line in ("Host: x", "Accept-Language: de", *headers))
        request = f"{method} * HTTP/1.1\r\n{lines}\r\n".encode()
        status, fields, content = await asyncio.to_thread(raw_answer, port, request)
        assert (status, fields["content-type"]) == (400, "application/json; charset=utf-8"), (
            method, headers, content)  # fmt: skip
        assert "allow" not in fields, method
        if method == "HEAD":  # its head only, as every answer to a HEAD
            assert content == b"" and int(fields["content-length"]) > 0
            continue
        answer = json.loads(content)
        assert answer["code"] == "invalid_request", answer
        assert answer["details"] == {"target": "*", "method": method}
        assert f"'{method}'" in answer["message"] and "OPTIONS" in answer["message"], answer
        assert "nur" in answer["message"], answer  # in German
    # docs/operations.md says so, with the methods the server takes
    from rollbridge.server.http import SERVER_METHODS

    operations = (Path(__file__).resolve().parents[2] / "docs" / "operations.md").read_text("utf-8")
    said = " ".join(operations.split())
    assert "`OPTIONS *`" in said and f"`Allow: {SERVER_METHODS}`" in said


async def test_another_method_with_an_upgrade_header_is_no_handshake(tables):
    """``POST /tables/ID`` with ``Upgrade: websocket`` was served the table's page
    (200, for a POST): the web view took any request with that header for a
    handshake, and no route for one, and the fallback served the path. Only a GET
    asks for a handshake: another method is refused as without the header."""
    request = (b"POST /tables/sr2 HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
               b"Connection: Upgrade\r\n\r\n")  # fmt: skip
    status, fields, content = await asyncio.to_thread(raw_answer, tables.server.port, request)
    assert (status, fields.get("allow")) == (405, "GET, HEAD, OPTIONS"), content
    assert json.loads(content)["details"] == {"method": "POST"}


async def test_head_of_a_get_route_is_answered_as_its_get_without_content(tables):
    """A monitoring probe's ``HEAD /healthz`` (uptime checkers send HEAD; RFC 9110: a
    general-purpose server supports GET and HEAD) was 405 — the probe saw the server
    down — and its 405 carried a JSON body, which no answer to a HEAD may (review,
    5 December). Now every GET route answers HEAD with its GET's status and headers
    (Content-Length too) and nothing after the head; a refusal too (a HEAD of an
    export without a token, of an admin path)."""
    port = tables.server.port
    for path in [*GET_ROUTES, "/tables/sr2/export", "/admin/tables", "/static/web/nope.mjs"]:
        request = f"HEAD {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
        status, fields, content = await asyncio.to_thread(raw_answer, port, request)
        got_status, got_headers, got_body = await get(tables.server, path)
        assert (status, content) == (got_status, b""), (path, status, content)
        assert fields["content-type"] == got_headers["Content-Type"], path
        if path != "/metrics":  # (its counts moved between the two requests)
            assert fields["content-length"] == str(len(got_body)), path
    for path in ("/healthz", "/readyz"):
        assert (await get(tables.server, path, method="HEAD"))[:1] == (200,)
    # a path no route answers: its typed 404, the JSON reason dropped too
    request = b"HEAD /nothing HTTP/1.1\r\nHost: x\r\n\r\n"
    status, fields, content = await asyncio.to_thread(raw_answer, port, request)
    assert (status, content) == (404, b"") and int(fields["content-length"]) > 0


async def test_a_trailing_slash_names_the_same_path(tables):
    """``/healthz/`` (a probe configured with a slash), ``/tables/ID/export/`` (a
    script's URL built with one) were 426 "missing Connection header" — taken for a
    WebSocket handshake — while the admin API and the web view's pages took a
    trailing slash (review, 5 December): now the same answer as without it."""
    token = tables.tokens["sr2"]["gm"]
    for path in ("/healthz", "/readyz", "/metrics", "/tables/sr2/export"):
        query = "?format=jsonl" if path.endswith("export") else ""
        plain = await get(tables.server, path + query, token=token)
        slashed = await get(tables.server, path + "/" + query, token=token)
        assert (slashed[0], slashed[1]["Content-Type"]) == (200, plain[1]["Content-Type"]), path
        if path != "/metrics":  # (its counts moved between the two requests)
            assert slashed[2] == plain[2], path


async def test_a_path_the_web_view_does_not_serve_is_a_typed_404(tables):
    """The web view answered a path it does not serve (``/static/../``, an unlisted
    name) with ``not found`` in plain English: now 404 ``not_found`` in JSON naming
    the path, in the request's language, as the port's other refusals."""
    for path in ("/static/web/nope.mjs", "/static/%2e%2e/x", "/static/client/lang/x.json"):
        status, headers, body = await get(tables.server, path, headers={"Accept-Language": "cs"})
        assert status == 404 and headers["Content-Type"] == "application/json; charset=utf-8"
        answer = json.loads(body)
        assert answer["code"] == "not_found" and answer["details"] == {"path": path}
        assert repr(path) in answer["message"] and "adrese" in answer["message"], answer


async def test_http_1_0_is_answered_and_only_a_handshake_needs_1_1(tables):
    """docs/operations.md said websockets answered HTTP/1.1 only (505 otherwise), so an
    operator would have told HAProxy's check (HTTP/1.0 by default) to use 1.1, or
    expected 505 of another version: a request in HTTP/1.0 is answered as in HTTP/1.1
    (HAProxy's default ``OPTIONS /``: 204), only a handshake in HTTP/1.0 is 505, and
    another version is 400 ``invalid_http`` in JSON. The docs now say so."""
    port = tables.server.port
    status, fields, body = await asyncio.to_thread(raw_answer, port, b"OPTIONS / HTTP/1.0\r\n\r\n")
    assert (status, fields.get("allow"), body) == (204, "GET, HEAD, OPTIONS", b"")
    status, _, body = await asyncio.to_thread(raw_answer, port, b"GET /healthz HTTP/1.0\r\n\r\n")
    assert (status, body) == (200, b"ok\n")
    handshake = (b"GET /tables/sr2 HTTP/1.0\r\nHost: x\r\nUpgrade: websocket\r\n"
                 b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                 b"Sec-WebSocket-Version: 13\r\n\r\n")  # fmt: skip
    assert (await asyncio.to_thread(raw_answer, port, handshake))[0] == 505
    status, _, body = await asyncio.to_thread(raw_answer, port, b"GET /healthz HTTP/2\r\n\r\n")
    assert (status, json.loads(body)["details"]) == (400, {"reason": "invalid_http"})
    operations = (Path(__file__).resolve().parents[2] / "docs" / "operations.md").read_text("utf-8")
    assert "HTTP/1.1 only (505" not in operations and "505 for an\n  HTTP version" not in operations
    assert "`OPTIONS /\nHTTP/1.0`: 204" in operations
