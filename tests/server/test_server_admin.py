"""The admin API on the server's port (issue 16, item 5): with an admin token a
web front or a bot creates, lists and deletes tables and issues and revokes join
tokens; without one nothing is done; every action is logged without a secret."""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any
from urllib.parse import urlencode

import pytest

from rollbridge.tokens import hash_token, new_admin_token
from tests.server.httpclient import raw_answer

from .test_server_http import fetch, samples


@pytest.fixture
async def admin(tables):
    """The seeded server, with an admin token in its store."""
    secret, record = new_admin_token("bot")
    tables.store.add_admin_token(record)
    tables.admin = secret  # type: ignore[attr-defined]
    tables.admin_id = record.id  # type: ignore[attr-defined]
    return tables


async def call(
    world: Any, method: str, path: str, token: str | None = None, locale: str | None = None,
    **parameters: str,
) -> tuple[int, dict[str, Any]]:  # fmt: skip
    """An admin request; the answer's status and JSON body."""
    headers = {}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    if locale is not None:
        headers["Accept-Language"] = locale
    query = f"?{urlencode(parameters)}" if parameters else ""
    status, got, body = await asyncio.to_thread(
        fetch, world.server, path + query, method=method, headers=headers
    )
    assert got["Content-Type"] == "application/json; charset=utf-8"
    return status, json.loads(body)


@pytest.mark.parametrize("token", [None, "rba_guessed", "rbt_a-join-token"])
async def test_without_a_valid_admin_token_nothing_is_done(admin, token):
    if token == "rbt_a-join-token":
        token = admin.tokens["sr2"]["gm"]  # a join token, even a GM's, is no admin token
    before = [t.id for t in admin.store.tables()]
    for method, path in [("POST", "/admin/tables"), ("GET", "/admin/tables"),
                         ("DELETE", "/admin/tables/sr2"), ("DELETE", "/admin/nope")]:  # fmt: skip
        status, body = await call(admin, method, path, token, ruleset="sr2", name="Stolen")
        assert status == 401 and body["code"] == "unauthorized"
    assert [t.id for t in admin.store.tables()] == before


async def test_create_list_join_and_delete_a_table(admin):
    status, made = await call(admin, "POST", "/admin/tables", admin.admin,
                              ruleset="tally", name="Friday run")  # fmt: skip
    assert status == 201
    assert made["name"] == "Friday run" and made["ruleset"] == "tally" and made["seq"] == 0
    assert set(made["tokens"]) == {"gm", "player", "observer"}
    table = made["id"]
    status, listed = await call(admin, "GET", "/admin/tables", admin.admin)
    assert status == 200
    assert [t["id"] for t in listed["tables"]] == ["sr2", "tally", table]
    assert set(listed["tables"][2]) == {"id", "name", "ruleset", "ruleset_version", "epoch", "seq"}
    admin.tokens[table] = made["tokens"]
    gm, welcome = await admin.join(table, "gm")
    assert welcome["type"] == "welcome" and welcome["table"]["name"] == "Friday run"
    assert (await gm.request({"type": "roll", "formula": "1d6"}))["status"] == "done"
    status, body = await call(admin, "DELETE", f"/admin/tables/{table}", admin.admin)
    assert (status, body) == (200, {"deleted": table})
    assert await gm.wait_closed() == 1008  # at once: no periodic check needed
    assert table not in [t.id for t in admin.store.tables()]
    status, body = await call(admin, "DELETE", f"/admin/tables/{table}", admin.admin)
    assert status == 404 and body["code"] == "unknown_table"


async def test_issue_and_revoke_a_join_token_cuts_its_holder_off(make_tables):
    world = await make_tables(token_check_interval=None)  # only the admin API checks
    secret, record = new_admin_token("web")
    world.store.add_admin_token(record)
    status, made = await call(world, "POST", "/admin/tables/sr2/tokens", secret,
                              role="player", name="alice")  # fmt: skip
    assert status == 201 and made["token"].startswith("rbt_")
    assert (made["table"], made["role"], made["name"]) == ("sr2", "player", "alice")
    alice, welcome = await world.join("sr2", "player", token=made["token"])
    assert welcome["role"] == "player" and welcome["name"] == "alice"
    gm, _ = await world.join("sr2", "gm")
    status, listed = await call(world, "GET", "/admin/tables/sr2/tokens", secret)
    assert status == 200 and made["id"] in [t["id"] for t in listed["tokens"]]
    assert all("token" not in t and "hash" not in t for t in listed["tokens"])
    status, body = await call(world, "DELETE", f"/admin/tables/sr2/tokens/{made['id']}", secret)
    assert (status, body) == (200, {"revoked": made["id"], "table": "sr2"})
    assert await alice.wait_closed() == 1008
    assert alice.connection.close_reason == "token revoked"
    assert (await gm.request({"type": "ping"}))["type"] == "pong"
    status, body = await call(world, "DELETE", f"/admin/tables/sr2/tokens/{made['id']}", secret)
    assert status == 404 and body["code"] == "not_found"
    found = samples((await asyncio.to_thread(fetch, world.server, "/metrics"))[2])
    assert found["rollbridge_clients_cut_off_total", (("reason", "revoked"),)] == 1


@pytest.mark.parametrize(
    ("method", "path", "parameters", "status", "code"),
    [
        ("POST", "/admin/tables", {"name": "x"}, 400, "invalid_request"),
        ("POST", "/admin/tables", {"ruleset": "nope", "name": "x"}, 404, "unknown_ruleset"),
        ("POST", "/admin/tables", {"ruleset": "tally", "name": "x", "settings": "{"}, 400,
         "invalid_request"),
        ("POST", "/admin/tables", {"ruleset": "tally", "name": "x",
                                   "settings": '{"approval": 3}'}, 400, "invalid_settings"),
        # valid JSON but no object: was a 500 with a traceback, or a table made anyway
        *(("POST", "/admin/tables", {"ruleset": "tally", "name": "x", "settings": given}, 400,
           "invalid_settings")
          for given in ("[1]", "NaN", "1", '"ab"', '[["approval", true]]', "false", "[]")),
        ("POST", "/admin/tables", {"ruleset": "tally", "name": "x", "settings": "[" * 2000},
         400, "invalid_request"),
        ("POST", "/admin/tables/sr2/tokens", {"role": "king"}, 400, "invalid_request"),
        # names of one line: a line break or an escape could forge a log line
        *(("POST", "/admin/tables", {"ruleset": "tally", "name": name}, 400, "name_control")
          for name in ("a\nb", "esc\x1b[31mred", "nul\x00")),
        ("POST", "/admin/tables", {"ruleset": "tally", "name": "x" * 201}, 400,
         "invalid_request"),
        ("POST", "/admin/tables/sr2/tokens", {"role": "player", "name": "alice\n2026 INFO"},
         400, "name_control"),
        ("POST", "/admin/tables/nope/tokens", {"role": "gm"}, 404, "unknown_table"),
        ("GET", "/admin/tables/nope/tokens", {}, 404, "unknown_table"),
        ("PUT", "/admin/tables", {}, 405, "invalid_request"),  # (a path it has: Allow)
        ("PUT", "/admin/tables/sr2/tokens/x/y", {}, 404, "not_found"),
        ("GET", "/admin/users", {}, 404, "not_found"),
    ],
)  # fmt: skip
async def test_errors_are_json_with_the_protocols_codes(admin, method, path, parameters,
                                                        status, code):  # fmt: skip
    before = (len(admin.store.tables()), len(admin.store.list_tokens("sr2")))
    got, body = await call(admin, method, path, admin.admin, **parameters)
    assert (got, body["code"]) == (status, code)
    assert isinstance(body["message"], str) and body["message"]
    assert (len(admin.store.tables()), len(admin.store.list_tokens("sr2"))) == before


async def test_messages_follow_accept_language(admin):
    _, english = await call(admin, "GET", "/admin/users", admin.admin)
    _, czech = await call(admin, "GET", "/admin/users", admin.admin, locale="cs-CZ,cs;q=0.9")
    assert english["message"] == "the admin API has no GET /admin/users"
    assert czech["code"] == english["code"] and czech["message"] != english["message"]


async def test_a_revoked_admin_token_no_longer_works(admin):
    assert (await call(admin, "GET", "/admin/tables", admin.admin))[0] == 200
    assert admin.store.revoke_admin_token(admin.admin_id)
    assert (await call(admin, "GET", "/admin/tables", admin.admin))[0] == 401
    assert admin.store.find_admin_token(hash_token(admin.admin)) is None


async def test_every_action_is_logged_without_secrets(admin, caplog):
    caplog.set_level(logging.INFO, logger="rollbridge.admin")
    _, made = await call(admin, "POST", "/admin/tables", admin.admin, ruleset="tally", name="Log")
    _, token = await call(admin, "POST", f"/admin/tables/{made['id']}/tokens", admin.admin,
                          role="observer")  # fmt: skip
    await call(admin, "DELETE", f"/admin/tables/{made['id']}/tokens/{token['id']}", admin.admin)
    await call(admin, "DELETE", f"/admin/tables/{made['id']}", admin.admin)
    await call(admin, "GET", "/admin/tables", admin.admin)
    await call(admin, "GET", "/admin/tables", "rba_wrong")
    records = [r for r in caplog.records if r.name == "rollbridge.admin"]
    text = "\n".join(r.getMessage() for r in records)
    assert f"created table {made['id']}" in text and f"deleted table {made['id']}" in text
    assert f"issued observer token {token['id']}" in text and f"revoked token {token['id']}" in text
    assert "listed 2 tables" in text and "no valid admin token" in text
    assert all(admin.admin_id in r.getMessage() for r in records[:4])  # who did it
    assert [getattr(r, "table", None) for r in records[:4]] == [made["id"]] * 4
    secrets = [admin.admin, token["token"], *made["tokens"].values(), "rba_wrong"]
    assert not any(s[4:] in text for s in secrets) and "rba_" not in text and "rbt_" not in text


async def raw(world: Any, head: str, body: bytes = b"") -> tuple[int | None, bytes]:
    """A hand-written HTTP request; the status and body of the answer (None: none)."""
    reader, writer = await asyncio.open_connection(world.server.address, world.server.port)
    writer.write(head.encode("latin-1") + b"\r\n" + body)
    answer = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    if not answer:
        return None, b""
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


async def test_two_authorization_headers_are_no_token_and_a_body_is_refused(admin):
    twice = (f"GET /admin/tables HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {admin.admin}\r\n"
             f"Authorization: Bearer {admin.admin}\r\n")  # fmt: skip
    status, body = await raw(admin, twice)
    assert status == 401 and json.loads(body)["code"] == "unauthorized"
    with_body = (f"POST /admin/tables?ruleset=sr2&name=x HTTP/1.1\r\nHost: x\r\n"
                 f"Authorization: Bearer {admin.admin}\r\nContent-Length: 2\r\n")  # fmt: skip
    status, body = await raw(admin, with_body, b"{}")
    # websockets reads no body: answered 400 (tests/server/test_nginx_proxy.py says why)
    assert status == 400 and json.loads(body)["details"] == {"reason": "request_body"}
    assert [t.id for t in admin.store.tables()] == ["sr2", "tally"]


async def test_a_token_misplaced_in_the_path_or_query_is_not_echoed(admin, debug_log):
    """A client that put a token where it does not belong (the path, a parameter)
    gets an error that quotes the request, but not the token; nor does the log hold
    it, percent-encoded or not."""
    token = admin.tokens["sr2"]["player"]
    encoded = token.replace("_", "%5F", 1)
    status, body = await call(admin, "GET", f"/admin/{token}", admin.admin)
    assert (status, body["code"]) == (404, "not_found") and token not in json.dumps(body)
    status, body = await call(admin, "POST", "/admin/tables/sr2/tokens", admin.admin, role=token)
    assert status == 400 and token not in json.dumps(body)
    assert (await call(admin, "GET", f"/admin/{encoded}", None))[0] == 401
    secret_part = token.split("_", 1)[1]
    logged = debug_log.getvalue()
    assert "/admin/rbt%5F" in logged  # the request was logged, its token cut out
    assert secret_part not in logged and admin.admin.split("_", 1)[1] not in logged
    # the answers that issue tokens still carry them
    status, made = await call(admin, "POST", "/admin/tables/sr2/tokens", admin.admin, role="gm")
    assert status == 201 and made["token"].startswith("rbt_") and len(made["token"]) > 20


def test_cutting_tokens_keeps_words_that_only_look_like_one_and_cuts_encoded_ones():
    from rollbridge.server.logs import cut_tokens

    assert cut_tokens('{"table": "herba_garden", "ruleset": "verba_rules"}') == (
        '{"table": "herba_garden", "ruleset": "verba_rules"}'
    )
    assert cut_tokens("GET /admin/rbt%5FAbCd%5FSECRETtail-xyz HTTP/1.1") == (
        "GET /admin/rbt%5F… HTTP/1.1"
    )
    assert cut_tokens('"token": "rbt_abc_DEF-1"') == '"token": "rbt_…"'
    # encoded twice (a URL built from an encoded one): the same cut
    assert cut_tokens("GET /admin/rbt%255FAbCd%255FSECRET%252Dtail HTTP/1.1") == (
        "GET /admin/rbt%255F… HTTP/1.1"
    )
    # a message that shows the form of a token keeps its one ellipsis (every 401
    # answer read "Bearer rba_……": found by red-teaming)
    assert cut_tokens("Authorization: Bearer rba_…") == "Authorization: Bearer rba_…"
    assert cut_tokens(cut_tokens('"rbt_abc"')) == '"rbt_…"'
    token = "rbt_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0U1v"
    for before in ("%2F", "a%3D", "%20", "%22", "\\n", "x"):
        assert cut_tokens(before + token) == before + "rbt_…", before


async def test_a_wrong_admin_token_in_a_loop_logs_one_warning(admin, caplog) -> None:
    caplog.set_level(logging.INFO, logger="rollbridge.admin")
    answers = [await call(admin, "GET", "/admin/tables", f"rba_wrong{n}") for n in range(50)]
    assert all(status == 401 for status, _ in answers)  # every one refused
    warned = [r for r in caplog.records if "no valid admin token" in r.getMessage()]
    assert len(warned) == 1, [r.getMessage() for r in warned]
    assert "0 more refused since the last such line" in warned[0].getMessage()


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("/admin/tables?ruleset=sr2&name=%FF", "name"),
        ("/admin/tables?ruleset=sr2&name=Friday%C3%28", "name"),
        ("/admin/tables?ruleset=sr2&name=x&settings=%7B%22locale%22%3A%22%ED%A0%80%22%7D",
         "settings"),
        ("/admin/tables/sr2/tokens?role=player&name=al%E9", "name"),
    ],
)  # fmt: skip
async def test_a_parameter_that_is_not_utf8_is_refused_by_name(admin, path, field):
    """Percent-escapes that are no UTF-8 were taken with U+FFFD in their stead: a
    table or a token was stored with a name the client never sent (found by
    tests/hostile/test_fuzz_http.py). Now 400 ``invalid_request`` naming the
    parameter, and nothing made."""
    tables, tokens = list(admin.store.tables()), admin.store.list_tokens("sr2")
    headers = {"Authorization": f"Bearer {admin.admin}"}
    status, _, body = await asyncio.to_thread(
        fetch, admin.server, path, method="POST", headers=headers
    )
    answer = json.loads(body)
    assert (status, answer["code"], answer["details"]) == (400, "invalid_request", {"field": field})
    assert "not valid Unicode" in answer["message"]
    assert list(admin.store.tables()) == tables and admin.store.list_tokens("sr2") == tokens


#: Every route of the port that reads a segment of its path (core/server/http.py's
#: docstring: the admin API's six, the export, the web view's two pages), ``{}`` where
#: the segment goes; the others match their path whole (/metrics, /healthz, /readyz,
#: /, /favicon.ico) or only letters and digits (/static/...: 404).
SEGMENT_ROUTES = [
    ("POST", "/admin/{}?ruleset=sr2&name=x"),
    ("GET", "/admin/{}"),
    ("DELETE", "/admin/tables/{}"),
    ("GET", "/admin/tables/{}/tokens"),
    ("POST", "/admin/tables/{}/tokens?role=player"),
    ("DELETE", "/admin/tables/sr2/tokens/{}"),
    ("DELETE", "/admin/tables/{}/tokens/abc"),
    ("GET", "/tables/{}/export?format=jsonl"),
    ("GET", "/tables/{}"),
    ("GET", "/tables/{}/overlay"),
]


def test_every_route_with_a_segment_is_tried():
    """:data:`SEGMENT_ROUTES` holds every route the docstrings of the admin API and
    of the port's HTTP side list with an ID in its path, each ID in turn."""
    import re

    from rollbridge.server import admin as admin_api
    from rollbridge.server import http

    documented = set()
    for doc in (admin_api.__doc__ or "", http.__doc__ or ""):
        for method, paths in re.findall(
            r"^\s+(GET|POST|DELETE)\s+(/[^\s,]+(?:, /[^\s,]+)*)", doc, re.M
        ):
            for path in paths.split(", "):
                path = path.partition("?")[0].replace("TOKEN_ID", "ID")
                documented |= {(method, path)} if "ID" in path else set()
    tried = {
        (method, re.sub(r"\{\}|sr2|abc", "ID", route.partition("?")[0]))
        for method, route in SEGMENT_ROUTES
    }
    assert len(documented) == 7 and documented <= tried, documented - tried


#: Percent-escapes read leniently before: U+FFFD for bytes that are no UTF-8 (a 404
#: naming U+FFFD), the escape as it was for a lone % or %zz, a NUL looked up.
BAD_SEGMENTS = ["%FF", "%C3%28", "%", "%zz", "sr2%", "%00", "%0d%0a", "s%7Fr2", "%ED%A0%80"]


@pytest.mark.parametrize("segment", BAD_SEGMENTS)
@pytest.mark.parametrize(("method", "route"), SEGMENT_ROUTES)
async def test_a_path_segment_with_a_bad_escape_is_refused_by_name(admin, method, route, segment):
    """A path segment (a table id, a token id) whose percent-escapes are no UTF-8, no
    escape at all (a lone %) or a control character was decoded leniently: 404
    ``unknown_table`` naming U+FFFD, a table looked up that nobody named (found
    reading the routes as a hostile client, 5 December). Now 400 ``invalid_request``
    in the request's language, naming the segment as sent, on every route; nothing
    changed."""
    tables, tokens = list(admin.store.tables()), admin.store.list_tokens("sr2")
    token = admin.tokens["sr2"]["gm"] if route.startswith("/tables") else admin.admin
    target = route.format(segment)
    request = (f"{method} {target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
               "Accept-Language: de\r\n\r\n").encode()  # fmt: skip
    status, headers, body = await asyncio.to_thread(raw_answer, admin.server.port, request)
    assert (status, headers["content-type"]) == (400, "application/json; charset=utf-8"), body
    answer = json.loads(body)
    assert answer["code"] == "invalid_request"
    assert answer["details"] == {"field": "path", "segment": segment}
    assert f"'{segment}'" in answer["message"] and "Segment" in answer["message"]
    assert "\ufffd" not in body.decode("utf-8")
    assert list(admin.store.tables()) == tables and admin.store.list_tokens("sr2") == tokens


@pytest.mark.parametrize(
    "target",
    ["/admin/tables/sr2%2Dx/tokens", "/tables/sr2%2Dx/export?format=jsonl", "/tables/%73r2"],
)
async def test_a_good_escape_in_a_path_segment_is_still_read(admin, target):
    """Strict is not refusing escapes: ``%2D`` is ``-`` and ``%73`` ``s`` as before."""
    token = admin.tokens["sr2"]["gm"] if target.startswith("/tables") else admin.admin
    request = f"GET {target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\r\n"
    status, _, body = await asyncio.to_thread(raw_answer, admin.server.port, request.encode())
    if target == "/tables/%73r2":
        assert status == 200 and body.startswith(b"<!doctype html>")
    else:  # no table sr2-x: looked up by its decoded id
        assert (status, json.loads(body)["details"]) == (404, {"table": "sr2-x"})


@pytest.mark.parametrize(
    ("query", "field", "words"),
    [
        ("=%FF", "query", "'=%FF'"),  # was details.field "" ("": not valid Unicode)
        ("=x", "query", "'=x'"),  # was taken and ignored
        ("ruleset=sr2&name=x&=", "query", "'='"),
        ("ruleset=sr2&name=%C3%28", "name", "name:"),
        # a name whose bytes are no UTF-8 is named as sent (it was "na\ufffdme")
        ("ruleset=sr2&na%FFme=x", "na%FFme", "na%FFme:"),
        # given twice: the last one counted, which a proxy reading the first would
        # not see (it was taken); so too as %-escaped and as sent
        ("ruleset=sr2&name=x&name=y", "name", "'name' more than once"),
        ("ruleset=sr2&name=x&na%6De=y", "name", "'name' more than once"),
    ],
)
async def test_a_parameter_without_a_name_or_not_utf8_is_refused(admin, query, field, words):
    """A value without a name (``?=%FF``) was refused naming the field ``""``, or
    (``?=x``) taken. Now each is 400 ``invalid_request`` with a ``details.field`` that
    says which: ``query`` for a parameter without a name, else the parameter's name
    (as sent when the name itself is no UTF-8); nothing made."""
    tables = list(admin.store.tables())
    request = (f"POST /admin/tables?{query} HTTP/1.1\r\nHost: x\r\n"
               f"Authorization: Bearer {admin.admin}\r\n\r\n")  # fmt: skip
    status, _, body = await asyncio.to_thread(raw_answer, admin.server.port, request.encode())
    answer = json.loads(body)
    assert (status, answer["code"], answer["details"]) == (400, "invalid_request", {"field": field})
    assert words in answer["message"]
    assert list(admin.store.tables()) == tables


@pytest.mark.parametrize(
    ("query", "name"),
    [("name=100%", "100%"), ("name=a%zz", "a%zz"), ("name=100%25%2", "100%%2"),
     ("name=%%41", "%A"), ("name=50%+off", "50% off"), ("na%me=x&name=y%", "y%")],
)  # fmt: skip
async def test_a_percent_that_begins_no_escape_in_a_query_is_a_percent(admin, query, name):
    """``?name=100%`` was refused (400, "a % that is not followed by two hexadecimal
    digits"), where a browser, and the WHATWG URL standard, keep such a ``%`` as it is.
    Now the query is read so: the table is named ``100%``. (A path's segments stay
    strict: tests/export, tests/web.)"""
    request = (f"POST /admin/tables?ruleset=sr2&{query} HTTP/1.1\r\nHost: x\r\n"
               f"Authorization: Bearer {admin.admin}\r\n\r\n")  # fmt: skip
    status, _, body = await asyncio.to_thread(raw_answer, admin.server.port, request.encode())
    made = json.loads(body)
    assert (status, made["name"]) == (201, name), made
    assert [t.name for t in admin.store.tables() if t.id == made["id"]] == [name]


@pytest.mark.parametrize(
    ("settings", "words"),
    [("{bad", "settings: not valid JSON (at line 1, column 2)"),
     ('{"a":\n  nope}', "settings: not valid JSON (at line 2, column 3)"),
     ("[" * 2000, "settings: JSON nested too deep, or a number too long")],
)  # fmt: skip
async def test_settings_that_are_no_json_are_refused_naming_the_field_and_the_place(
    admin, settings, words
):
    """The refusal of ``settings`` that are no JSON carried the parser's English words
    ("Expecting property name enclosed in double quotes") in every language, and no
    ``details.field``. Now it says where the JSON stops, in the request's language,
    and names the field; nothing made."""
    tables = list(admin.store.tables())
    status, answer = await call(admin, "POST", "/admin/tables", admin.admin,
                                ruleset="tally", name="x", settings=settings)  # fmt: skip
    assert (status, answer["code"], answer["details"]) == (
        400, "invalid_request", {"field": "settings"})  # fmt: skip
    assert answer["message"] == words
    _, german = await call(admin, "POST", "/admin/tables", admin.admin, "de",
                           ruleset="tally", name="x", settings="{bad")  # fmt: skip
    assert german["message"] == "settings: kein gültiges JSON (in Zeile 1, Spalte 2)"
    assert list(admin.store.tables()) == tables


async def test_head_of_an_admin_get_route_is_answered_as_its_get_without_content(admin):
    """``HEAD /admin/tables`` with a valid admin token was 404 ("the admin API has no
    HEAD /admin/tables") while every other GET route of the port answers HEAD as its
    GET. Now the same status and headers as the GET, nothing after the head; the
    token still needed."""
    port, bearer = admin.server.port, f"Authorization: Bearer {admin.admin}"
    for path in ("/admin/tables", "/admin/tables/", "/admin/tables/sr2/tokens",
                 "/admin/tables/nope/tokens"):  # fmt: skip
        for token in (bearer, "Authorization: Bearer rba_guessed"):
            head = f"HEAD {path} HTTP/1.1\r\nHost: x\r\n{token}\r\n\r\n".encode()
            got = f"GET {path} HTTP/1.1\r\nHost: x\r\n{token}\r\n\r\n".encode()
            status, fields, content = await asyncio.to_thread(raw_answer, port, head)
            expected, expected_fields, body = await asyncio.to_thread(raw_answer, port, got)
            assert (status, content) == (expected, b""), (path, token, status, content)
            assert expected == (200 if token == bearer and "nope" not in path else
                                404 if token == bearer else 401), (path, body)  # fmt: skip
            assert fields["content-length"] == str(len(body)), path
            assert fields["content-type"] == expected_fields["content-type"], path


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [("PUT", "/admin/tables", "GET, HEAD, POST, OPTIONS"),
     ("DELETE", "/admin/tables", "GET, HEAD, POST, OPTIONS"),
     ("GET", "/admin/tables/sr2", "DELETE, OPTIONS"),
     ("PATCH", "/admin/tables/sr2/tokens", "GET, HEAD, POST, OPTIONS"),
     ("POST", "/admin/tables/sr2/tokens/abc", "DELETE, OPTIONS")],
)  # fmt: skip
async def test_another_method_at_an_admin_path_is_405_with_allow(admin, method, path, allowed):
    """``PUT /admin/tables`` was 404 "the admin API has no PUT /admin/tables", though
    the path is there (and its OPTIONS names its methods). Now 405 ``invalid_request``
    naming the method, with ``Allow`` (RFC 9110: a 405 carries it), in the request's
    language, after the token check as before; nothing is done."""
    before = (len(admin.store.tables()), len(admin.store.list_tokens("sr2")))
    headers = {"Authorization": f"Bearer {admin.admin}", "Accept-Language": "de"}
    status, got, body = await asyncio.to_thread(
        fetch, admin.server, path, method=method, headers=headers
    )
    answer = json.loads(body)
    assert (status, got.get("Allow"), answer["code"]) == (405, allowed, "invalid_request")
    assert answer["details"] == {"method": method} and "nur" in answer["message"], answer
    assert (len(admin.store.tables()), len(admin.store.list_tokens("sr2"))) == before
    unauthorized, got, _ = await asyncio.to_thread(fetch, admin.server, path, method=method)
    assert (unauthorized, got.get("Allow")) == (401, None)


async def test_a_long_path_no_route_answers_is_quoted_cut_short(admin):
    """A path of thousands of characters that no route answers was quoted whole in
    the 404, its ``details`` and the log line (up to the 8 KiB of a request line): now
    its first 200 characters and an ellipsis."""
    path = "/admin/" + "x" * 7000
    status, body = await call(admin, "GET", path, admin.admin)
    assert (status, body["code"]) == (404, "not_found")
    assert body["details"] == {"path": path[:200] + "…"} and len(body["message"]) < 300


@pytest.mark.parametrize(
    ("sent", "character"),
    [("%0A", "U+000A"), ("%7F", "U+007F"), ("%C2%85", "U+0085"), ("a%0Ab", "U+000A"),
     ("%E2%80%A8", "U+2028"), ("x%E2%80%AEy", "U+202E"), ("+%09+", "U+0009")],
)  # fmt: skip
@pytest.mark.parametrize(
    "route", ["/admin/tables?ruleset=sr2&", "/admin/tables/sr2/tokens?role=player&"]
)
@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
async def test_a_name_with_a_control_character_is_refused_with_its_own_code(
    admin, sent, character, route, locale
):
    """``?name=%0A`` (a line break, a DEL, a NEL alone) was refused as a missing name,
    the blank stripped before the name was checked — and a token's so named was made
    with the role's name; ``a%0Ab`` as a name that is no name (``invalid_request``).
    Now each is 400 ``name_control`` naming the character, as the CLI refuses it
    (rollbridge.names), in the request's language; nothing made."""
    tables, tokens = list(admin.store.tables()), admin.store.list_tokens("sr2")
    request = (f"POST {route}name={sent} HTTP/1.1\r\nHost: x\r\nAccept-Language: {locale}\r\n"
               f"Authorization: Bearer {admin.admin}\r\n\r\n")  # fmt: skip
    status, _, body = await asyncio.to_thread(raw_answer, admin.server.port, request.encode())
    answer = json.loads(body)
    assert (status, answer["code"]) == (400, "name_control"), answer
    assert answer["details"] == {"field": "name", "character": character}
    assert answer["message"].startswith("name: ") and character in answer["message"], answer
    words = {"en": "control characters", "cs": "řídicí znaky", "de": "Steuerzeichen",
             "ru": "управляющих символов"}  # fmt: skip
    assert words[locale] in answer["message"], answer
    assert list(admin.store.tables()) == tables and admin.store.list_tokens("sr2") == tokens


@pytest.mark.parametrize("sent", ["", "+", "%20%20", "%E3%80%80"])
async def test_a_name_of_only_spaces_is_still_missing(admin, sent):
    """A blank name is a missing one (a table's: 400 ``invalid_request``, the
    parameter missing; a token's: the role's name), as before."""
    request = (f"POST /admin/tables?ruleset=sr2&name={sent} HTTP/1.1\r\nHost: x\r\n"
               f"Authorization: Bearer {admin.admin}\r\n\r\n")  # fmt: skip
    status, _, body = await asyncio.to_thread(raw_answer, admin.server.port, request.encode())
    answer = json.loads(body)
    assert (status, answer["code"], answer["details"]) == (
        400,
        "invalid_request",
        {"field": "name"},
    )
    assert "the parameter name is missing" in answer["message"]
    request = (f"POST /admin/tables/sr2/tokens?role=player&name={sent} HTTP/1.1\r\nHost: x\r\n"
               f"Authorization: Bearer {admin.admin}\r\n\r\n")  # fmt: skip
    status, _, body = await asyncio.to_thread(raw_answer, admin.server.port, request.encode())
    assert (status, json.loads(body)["name"]) == (201, "player")


async def _posted(admin, target: str) -> tuple[int, dict]:
    """``POST target`` with the admin token, sent as it is: the status and JSON body."""
    request = (f"POST {target} HTTP/1.1\r\nHost: x\r\n"
               f"Authorization: Bearer {admin.admin}\r\n\r\n")  # fmt: skip
    status, _, body = await asyncio.to_thread(raw_answer, admin.server.port, request.encode())
    return status, json.loads(body)


@pytest.mark.parametrize(
    ("route", "sent", "status", "code", "said"),
    [
        ("/admin/tables?name=x&ruleset=", "%0A", 404, "unknown_ruleset", "no ruleset '\\n'"),
        ("/admin/tables?name=x&ruleset=", "%09%0B", 404, "unknown_ruleset", "'\\t\\x0b'"),
        ("/admin/tables/sr2/tokens?role=", "%0A", 400, "invalid_request", "not '\\n'"),
        ("/admin/tables/sr2/tokens?role=", "%C2%85", 400, "invalid_request", "not '\\x85'"),
        # the line and paragraph separators: controls as the log and terminal see them
        # (rollbridge.visible), though not of Unicode's category Cc; they strip away too
        ("/admin/tables?name=x&ruleset=", "%E2%80%A8", 404, "unknown_ruleset", "'\\u2028'"),
        ("/admin/tables/sr2/tokens?role=", "%E2%80%A9", 400, "invalid_request", "'\\u2029'"),
        # a control character anywhere: the value was stripped of those around it, so
        # ?ruleset=%0Asr2 made a table of sr2 and ?role=%0Agm a GM's token
        ("/admin/tables?name=x&ruleset=", "%0Asr2", 404, "unknown_ruleset", "no ruleset '\\nsr2'"),
        ("/admin/tables?name=x&ruleset=", "tally%09", 404, "unknown_ruleset", "'tally\\t'"),
        ("/admin/tables?name=x&ruleset=", "+sr2%0D+", 404, "unknown_ruleset", "' sr2\\r '"),
        ("/admin/tables?name=x&ruleset=", "%E2%80%A8sr2", 404, "unknown_ruleset", "'\\u2028sr2'"),
        ("/admin/tables?name=x&ruleset=", "sr2%C2%85", 404, "unknown_ruleset", "'sr2\\x85'"),
        ("/admin/tables/sr2/tokens?role=", "%0Agm", 400, "invalid_request", "not '\\ngm'"),
        ("/admin/tables/sr2/tokens?role=", "player%09", 400, "invalid_request", "'player\\t'"),
        ("/admin/tables/sr2/tokens?role=", "%0B%0Cobserver", 400, "invalid_request",
         "'\\x0b\\x0cobserver'"),
        ("/admin/tables/sr2/tokens?role=", "gm%E2%80%A9", 400, "invalid_request", "'gm\\u2029'"),
    ],
)  # fmt: skip
async def test_a_ruleset_or_role_of_control_characters_is_named_not_missing(
    admin, route, sent, status, code, said
):
    """``?ruleset=%0A`` and ``?role=%0A`` were refused as missing parameters, as
    blanks are, and ``?ruleset=%0Asr2`` taken for ``sr2``: the value is refused as
    what it is, whole, named with its escapes; nothing made."""
    tables, tokens = list(admin.store.tables()), admin.store.list_tokens("sr2")
    answered, answer = await _posted(admin, f"{route}{sent}")
    assert (answered, answer["code"]) == (status, code), answer
    assert said in answer["message"] and "missing" not in answer["message"], answer
    assert list(admin.store.tables()) == tables and admin.store.list_tokens("sr2") == tokens


async def test_the_spaces_around_a_ruleset_role_or_name_are_stripped(admin):
    """Spaces (``+``, ``%20``, U+3000) around a value are no part of it, as before."""
    status, made = await _posted(admin, "/admin/tables?name=+Friday%20&ruleset=%E3%80%80tally+")
    assert (status, made["ruleset"], made["name"]) == (201, "tally", "Friday"), made
    status, made = await _posted(admin, "/admin/tables/sr2/tokens?role=+gm%20&name=%20Ana+")
    assert (status, made["role"], made["name"]) == (201, "gm", "Ana"), made


@pytest.mark.parametrize("sent", ["", "+", "%20%20", "%E3%80%80"])
async def test_a_ruleset_or_role_of_spaces_is_still_missing(admin, sent):
    """Spaces alone (and an empty value) stay a missing parameter."""
    for route, field in (("/admin/tables?name=x&ruleset=", "ruleset"),
                         ("/admin/tables/sr2/tokens?role=", "role")):  # fmt: skip
        status, answer = await _posted(admin, f"{route}{sent}")
        assert (status, answer["code"], answer["details"]) == (
            400,
            "invalid_request",
            {"field": field},
        ), answer
        assert f"the parameter {field} is missing" in answer["message"]


async def test_an_older_tables_name_is_answered_without_raw_controls(admin):
    """A table named before names were checked (2026-12-03) keeps its name; ``GET
    /admin/tables`` answered it with DEL, its C1 controls and U+2028 as they were
    (JSON lets them stand), to a ``curl`` printing on a terminal and a script that
    splits lines: they are ``\\u`` escapes now, as in the frames and every ``--json``."""
    import sqlite3

    name = "Night\x9b2J\x85x\u2028y\x7f"
    status, made = await call(admin, "POST", "/admin/tables", admin.admin,
                              ruleset="tally", name="Night")  # fmt: skip
    assert status == 201
    with sqlite3.connect(admin.path) as connection:  # as an older rollbridge took it
        connection.execute("UPDATE tables SET name = ? WHERE id = ?", (name, made["id"]))
    request = (f"GET /admin/tables HTTP/1.1\r\nHost: x\r\n"
               f"Authorization: Bearer {admin.admin}\r\n\r\n")  # fmt: skip
    status, _, body = await asyncio.to_thread(raw_answer, admin.server.port, request.encode())
    text = body.decode("utf-8")
    assert status == 200 and "\\u009b2J\\u0085x\\u2028y\\u007f" in text, text
    assert not any(c in text for c in "\x9b\x85\u2028\x7f"), repr(text)
    assert [t["name"] for t in json.loads(text)["tables"] if t["id"] == made["id"]] == [name]
