"""``rollbridge table tokens TABLE --revoke``: it says what it revoked, and takes the
token itself (``rbt_…``, what an operator holds when a token leaked) as well as its
id, without ever repeating a token in its answer or its error."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from rollbridge.cli import main
from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.tokens import hash_token
from tests.cli.test_cli_tables import run
from tests.server.test_server_lifecycle import Serve

pytestmark = pytest.mark.usefixtures("english_without_stores")


@pytest.fixture
def made(tmp_path: Path, capsys) -> tuple[Path, dict]:
    """A table of an sr2 game and its tokens, made with the CLI."""
    db = tmp_path / "rollbridge.db"
    code, out, _ = run(capsys, "table", "create", "--db", str(db), "--ruleset", "sr2",
                       "--name", "Friday", "--json")  # fmt: skip
    assert code == 0
    return db, json.loads(out)


def token_ids(db: Path, table: str) -> dict[str, str]:
    with SQLiteStore(db) as store:
        return {record.id: record.name for record in store.list_tokens(table)}


def test_a_revoke_says_which_token_it_revoked(made, capsys):
    """It printed the tokens left and nothing else: an operator could not tell the
    revoke from a listing."""
    db, info = made
    table = info["id"]
    player = next(i for i, name in token_ids(db, table).items() if name == "player")
    code, out, _ = run(capsys, "table", "tokens", table, "--db", str(db), "--revoke", player)
    assert code == 0
    said = out.splitlines()[-1]
    assert said == (
        f"revoked token {player} (player 'player') of table {table}: a running server"
        " disconnects its holder within 5 s"
    )
    assert player not in token_ids(db, table)


def test_the_token_itself_revokes_it_and_is_never_repeated(made, capsys):
    """``--revoke rbt_…`` was ``not_found: table … has no token 'rbt_…'``, the secret
    printed back; now the token is found by its hash and revoked, and the answer names
    its id."""
    db, info = made
    table, secret = info["id"], info["tokens"]["player"]
    with SQLiteStore(db) as store:
        record = store.find_token(table, hash_token(secret))
    assert record is not None
    code, out, err = run(capsys, "table", "tokens", table, "--db", str(db), "--revoke", secret)
    assert code == 0 and secret not in out + err
    assert f"revoked token {record.id} (player 'player')" in out
    with SQLiteStore(db) as store:
        assert store.find_token(table, hash_token(secret)) is None
    # with --json: the id, as the admin API's DELETE answers
    observer = info["tokens"]["observer"]
    with SQLiteStore(db) as store:
        record = store.find_token(table, hash_token(observer))
    code, out, _ = run(capsys, "table", "tokens", table, "--db", str(db), "--json",
                       "--revoke", observer)  # fmt: skip
    assert code == 0 and observer not in out
    assert json.loads(out)["revoked"] == record.id


def test_a_token_the_table_lacks_is_refused_without_repeating_it(made, capsys):
    db, info = made
    table, secret = info["id"], info["tokens"]["gm"]
    before = token_ids(db, table)
    run(capsys, "table", "tokens", table, "--db", str(db), "--revoke", secret)
    for argv in ([], ["--json"]):  # revoked already: refused, with or without --json
        code, out, err = run(capsys, "table", "tokens", table, "--db", str(db), *argv,
                             "--revoke", secret)  # fmt: skip
        assert code == 1 and secret not in out + err
        said = json.loads(out) if argv else None
        if said:
            assert said["code"] == "not_found"
            assert said["details"] == {"table": table, "token": "rbt_…"}
        else:
            assert err.startswith(f"rollbridge: error: not_found: table {table} has no such")
            listing = f"the table's tokens, by id: rollbridge table tokens {table}"
            assert err.rstrip().endswith(listing)
    assert len(token_ids(db, table)) == len(before) - 1  # only the one revoked at first


def test_a_holder_is_disconnected_when_its_token_is_revoked_by_itself(made):
    """With a real ``rollbridge serve`` on the file: the player's connection is closed
    with 1008 once the operator revokes the token it joined with, by the token."""
    db, info = made
    table, secret = info["id"], info["tokens"]["player"]
    server = Serve(db, "--no-demo")

    async def watch() -> int | None:
        async with connect(f"ws://127.0.0.1:{server.port}/tables/{table}") as ws:
            await ws.send(json.dumps({"type": "hello", "id": "h", "table": table,
                                      "token": secret}))  # fmt: skip
            assert json.loads(await ws.recv())["type"] == "welcome"
            code = await asyncio.to_thread(
                main, ["table", "tokens", table, "--db", str(db), "--revoke", secret]
            )
            assert code == 0
            try:
                while True:
                    await asyncio.wait_for(ws.recv(), timeout=30)
            except ConnectionClosed as closed:
                return closed.rcvd.code if closed.rcvd else None

    try:
        assert asyncio.run(watch()) == 1008
    finally:
        server.stop()


def test_a_token_revoked_by_another_process_meanwhile_is_not_repeated(made, capsys, monkeypatch):
    """Found by its hash, then revoked by another process (a second operator, the
    admin API) before this one's revoke: the refusal named the token as given, the
    secret printed back. It names the token's id."""
    db, info = made
    table, secret = info["id"], info["tokens"]["player"]
    real = SQLiteStore.revoke_token

    def revoked_meanwhile(store, table_id, token_id):
        real(store, table_id, token_id)  # the other process's revoke, just before
        return real(store, table_id, token_id)

    monkeypatch.setattr(SQLiteStore, "revoke_token", revoked_meanwhile)
    for argv in ([], ["--json"]):
        code, out, err = run(capsys, "table", "tokens", table, "--db", str(db), *argv,
                             "--revoke", secret)  # fmt: skip
        assert code == 1 and secret not in out + err, out + err
        assert "not_found" in out + err
