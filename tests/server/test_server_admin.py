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
        *(("POST", "/admin/tables", {"ruleset": "tally", "name": name}, 400, "invalid_request")
          for name in ("a\nb", "esc\x1b[31mred", "nul\x00", "x" * 201)),
        ("POST", "/admin/tables/sr2/tokens", {"role": "player", "name": "alice\n2026 INFO"},
         400, "invalid_request"),
        ("POST", "/admin/tables/nope/tokens", {"role": "gm"}, 404, "unknown_table"),
        ("GET", "/admin/tables/nope/tokens", {}, 404, "unknown_table"),
        ("PUT", "/admin/tables", {}, 404, "not_found"),
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
