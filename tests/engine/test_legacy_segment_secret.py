"""The segment 9a8b894 left open (no nonce, no GM stream) after an upgrade: a secret
roll the new server made in it was drawn from the public stream, so the reveal that
docs/operations.md ("Upgrading") asks the GM for let every player recompute it —
the very thing the GM stream exists to prevent (docs/dice.md; found by the review
of the upgrade work). Such a roll is now refused (``dice_segment_public_only``)
until the GM's reveal opens a segment with a GM stream; then it is rolled there,
and no revealed seed a player sees gives its dice."""

from __future__ import annotations

import pytest

from rollbridge.dice.verifiable import DiceKey, next_die, stream
from rollbridge.engine.model import Principal
from rollbridge.exceptions import Conflict
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.upgrade_files import old_file

GM = Principal("gm", "gm", "upgrade-gm")


def test_a_secret_roll_in_the_first_schemes_segment_stays_secret_after_its_reveal(tmp_path):
    old = old_file("9a8b894", tmp_path)
    table_id = old.tables["sr2"]["table"]
    with SQLiteStore(old.path) as store:
        service = TableService(store, PluginHost(), dice_key=DiceKey.for_store(store))
        # 20 dice: a revealed seed giving these by chance is 6**-20 (with 3d6 it was
        # 1 in 216 a seed, and the test failed now and then)
        secret_roll = {"type": "roll", "id": "s1", "formula": "20d6", "secret": True}
        seq = service.table(table_id).info.seq
        with pytest.raises(Conflict) as refused:
            service.handle(table_id, secret_roll, GM)
        assert refused.value.code == "dice_segment_public_only"
        assert service.table(table_id).info.seq == seq  # nothing changed
        public = service.handle(table_id, {"type": "roll", "id": "p1", "formula": "1d6"}, GM)
        assert public["status"] == "done"  # a public roll goes on in it
        service.handle(table_id, {"type": "dice.reveal", "id": "r1"}, GM)
        secret = service.handle(table_id, {**secret_roll, "id": "s2"}, GM)["event"]
        service.handle(table_id, {"type": "dice.reveal", "id": "r2"}, GM)
        table = service.table(table_id)
        players = [table.view_event(e, gm=False) for e in store.events_after(table_id, 0)]
    assert next(v for v in players if v["seq"] == secret["seq"])["kind"] == "hidden"
    revealed = [v["data"]["seed"] for v in players if v["kind"] == "dice.revealed"]
    rolled = [value for _faces, value in secret["data"]["draws"]["dice"]]
    for seed in revealed:  # what a player can do with each seed revealed to it
        words = stream(bytes.fromhex(seed), table_id, table.info.epoch, secret["seq"], 0)
        assert [next_die(words, 6) for _ in rolled] != rolled, "the secret roll is recomputed"
