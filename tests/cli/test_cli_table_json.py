"""``rollbridge table … --json`` names things as the admin API does (docs/operations.md,
"The same from the command line"): every field of the API's answer is in the
command's, under the same name, with the same value; ``table create`` keeps its old
``"table"`` (the id) for the scripts that read it.

The API is a real ``rollbridge serve`` on the same SQLite file, asked over HTTP."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from rollbridge.cli import main
from tests.server.test_server_lifecycle import Serve

pytestmark = pytest.mark.usefixtures("english_without_stores")


def cli(capsys, db: Path, *argv: str) -> Any:
    """The command's JSON (``--db DB --json`` added); it must succeed."""
    code = main([*argv, "--db", str(db), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def api(serve: Serve, token: str, method: str, path: str, **parameters: str) -> Any:
    """The admin API's JSON answer to one request."""
    query = f"?{urlencode(parameters)}" if parameters else ""
    request = urllib.request.Request(
        f"http://127.0.0.1:{serve.port}{path}{query}", method=method,
        headers={"Authorization": f"Bearer {token}"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=20) as answer:
        return json.loads(answer.read())


def same_as_api(from_cli: dict, from_api: dict, *, varying: tuple[str, ...] = ()) -> None:
    """Every field of the API's answer is the command's too, the same value unless it
    is one that differs between two calls (a new table's id, a fresh token)."""
    assert set(from_api) <= set(from_cli), (sorted(from_api), sorted(from_cli))
    for key, value in from_api.items():
        if key not in varying:
            assert from_cli[key] == value, key


def test_table_and_token_commands_answer_in_the_admin_apis_words(capsys, tmp_path):
    db = tmp_path / "t.db"
    admin = cli(capsys, db, "admin-token")["token"]
    serve = Serve(db)
    try:
        # create: the API's fields, and "table" kept (the id, as before)
        made = cli(capsys, db, "table", "create", "--ruleset", "sr2", "--name", "Friday run")
        by_api = api(serve, admin, "POST", "/admin/tables", ruleset="sr2", name="Friday run")
        same_as_api(made, by_api, varying=("id", "tokens"))
        assert made["table"] == made["id"] and made["id"] != by_api["id"]
        assert set(made["tokens"]) == set(by_api["tokens"]) == {"gm", "player", "observer"}
        assert set(made) == set(by_api) | {"table"}
        table = made["id"]
        # list: the API's "tables", item for item (a list, as it always was)
        listed = cli(capsys, db, "table", "list")
        assert listed == api(serve, admin, "GET", "/admin/tables")["tables"]
        # tokens: "tokens" as the API lists them, "new" as it issues one
        tokens = f"/admin/tables/{table}/tokens"
        listed = cli(capsys, db, "table", "tokens", table)
        assert listed["tokens"] == api(serve, admin, "GET", tokens)["tokens"]
        assert listed["new"] is None and set(listed) == {"tokens", "new"}
        issued = cli(capsys, db, "table", "tokens", table, "--new", "player", "--name", "alice")
        issued = issued["new"]
        by_api = api(serve, admin, "POST", tokens, role="player", name="bob")
        same_as_api(issued, by_api, varying=("id", "token", "name", "created"))
        assert set(issued) == set(by_api)
        # revoke: what the API's DELETE answers, beside the tokens left
        revoked = cli(capsys, db, "table", "tokens", table, "--revoke", issued["id"])
        by_api = api(serve, admin, "DELETE", f"{tokens}/{by_api['id']}")
        same_as_api(revoked, by_api, varying=("revoked",))
        assert revoked["revoked"] == issued["id"] and revoked["table"] == table
        assert issued["id"] not in [t["id"] for t in revoked["tokens"]]
        # delete: the same answer
        other = api(serve, admin, "POST", "/admin/tables", ruleset="sr2", name="Other")["id"]
        assert cli(capsys, db, "table", "delete", table) == {"deleted": table}
        assert api(serve, admin, "DELETE", f"/admin/tables/{other}") == {"deleted": other}
    finally:
        assert serve.stop() == 0
        serve.process.communicate(timeout=20)


def test_revoking_a_token_the_table_lacks_is_refused_with_the_admin_apis_code(capsys, tmp_path):
    db = tmp_path / "t.db"
    admin = cli(capsys, db, "admin-token")["token"]
    table = cli(capsys, db, "table", "create", "--ruleset", "sr2", "--name", "Friday run")["id"]
    serve = Serve(db)
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            api(serve, admin, "DELETE", f"/admin/tables/{table}/tokens/0123456789ab")
        by_api = json.loads(refused.value.read())
        assert refused.value.code == 404
    finally:
        assert serve.stop() == 0
        serve.process.communicate(timeout=20)
    argv = ["table", "tokens", table, "--revoke", "0123456789ab", "--db", str(db)]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert err == f"rollbridge: error: {by_api['code']}: {by_api['message']}\n"
    assert by_api["code"] == "not_found"
    # with --json the refusal is the API's JSON, on stdout in place of the answer
    code = main([*argv, "--json"])
    out, err = capsys.readouterr()
    assert code == 1 and err == ""
    assert json.loads(out) == by_api


def test_a_table_the_store_lacks_is_refused_in_the_admin_apis_json(capsys, tmp_path):
    db = tmp_path / "t.db"
    admin = cli(capsys, db, "admin-token")["token"]
    cli(capsys, db, "table", "create", "--ruleset", "sr2", "--name", "Friday run")
    serve = Serve(db)
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            api(serve, admin, "GET", "/admin/tables/nosuch-0123abcd/tokens")
        by_api = json.loads(refused.value.read())
    finally:
        assert serve.stop() == 0
        serve.process.communicate(timeout=20)
    assert by_api["code"] == "unknown_table"
    code = main(["table", "tokens", "nosuch-0123abcd", "--db", str(db), "--json"])
    out, err = capsys.readouterr()
    assert (code, err) == (1, "")
    assert json.loads(out) == by_api
