"""Join tokens say when they were made (SQLite schema 5; Redis records since then).

An operator who gave a table's tokens out over several weeks saw only id, role and
name in ``table tokens``: two tokens named ``alice`` (one made to replace the other)
could not be told apart before revoking one. Admin tokens had their time already.
A token made before rollbridge kept the time reads ``created: null`` (``-`` in the
list), and the file or Redis is not rewritten to invent one.
"""

from __future__ import annotations

import json
import time

from rollbridge.cli import main
from rollbridge.engine import TableInfo
from rollbridge.plain import pack
from rollbridge.stores.redis import RedisStore
from rollbridge.tokens import new_token
from tests.upgrade_files import old_file


def test_an_old_files_tokens_have_no_time_and_new_ones_do(tmp_path, capsys):
    old = old_file("d7d3229", tmp_path)  # schema 4: no time on its join tokens
    table = old.tables["sr2"]["table"]
    db = ["--db", str(old.path)]
    assert main(["table", "tokens", table, *db, "--json"]) == 0
    before = json.loads(capsys.readouterr().out)["tokens"]
    assert before and all(t["created"] is None for t in before)
    made_after = time.time()
    assert main(["table", "tokens", table, *db, "--new", "player", "--name", "alice",
                 "--json"]) == 0  # fmt: skip
    new = json.loads(capsys.readouterr().out)["new"]
    assert made_after <= new["created"] <= time.time()
    assert main(["table", "tokens", table, *db]) == 0
    lines = capsys.readouterr().out.splitlines()
    by_id = {line.split()[0]: line for line in lines if line.strip()}
    shown = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(new["created"]))
    assert by_id[new["id"]].split()[1:] == ["player", *shown.split(), "alice"]
    for token in before:
        assert by_id[token["id"]].split()[1:] == [token["role"], "-", *token["name"].split()]


def test_a_redis_token_record_written_before_reads_without_a_time(redis_server, redis_prefix):
    store = RedisStore(redis_server.url, prefix=redis_prefix)
    try:
        _, gm = new_token("t", "gm")
        store.create_table(TableInfo("t", "T", "tally", "1.2.0"), [gm])
        assert store.list_tokens("t") == [gm] and gm.created is not None
        old = {"id": gm.id, "role": gm.role, "name": gm.name, "hash": gm.hash}  # no created
        store.client.hset(store.keys.table("t").tokens, gm.id, pack(old))
        (listed,) = store.list_tokens("t")
        assert listed.created is None and listed.to_dict()["created"] is None
        assert store.find_token("t", gm.hash) == listed
    finally:
        store.close()
