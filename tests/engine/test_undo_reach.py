"""Undo reaches as far back as the store's retained log, running or loaded again
(docs/engine.md, "Undo and redo"): a table must not offer an undo its reload
cannot, nor the other way round."""

from __future__ import annotations

from pathlib import Path

import pytest

from rollbridge.dice.sources import SeededDice
from rollbridge.exceptions import NothingToUndo
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.testing import GM

HOST = PluginHost()
RETAIN = 3


def _service(path: Path) -> TableService:
    return TableService(
        SQLiteStore(path, retain=RETAIN), HOST, dice=lambda: SeededDice("reach"), clock=None
    )


def _undo_offered(service: TableService) -> tuple[bool, bool]:
    view = service.table("t").view(gm=True)
    return view["can_undo"], view["can_redo"]


@pytest.mark.parametrize("rolls", [RETAIN - 1, RETAIN])
def test_undo_offered_running_is_undo_offered_loaded_again(tmp_path: Path, rolls: int) -> None:
    path = tmp_path / "t.db"
    running = _service(path)
    running.create_table("t", "sr2", table_id="t")
    sheet = next(iter(HOST.rulesets["sr2"].example_sheets.values()))
    running.handle(
        "t", {"type": "actor.create", "id": "c", "actor": {"name": "A", "sheet": sheet}}, GM
    )
    for n in range(rolls):  # not undoable: they push the creation back in the log
        running.handle("t", {"type": "roll", "id": f"r{n}", "formula": "1d6"}, GM)
    loaded = _service(path)
    # the creation is within the last RETAIN seqs after RETAIN - 1 rolls, not after RETAIN
    assert _undo_offered(running) == _undo_offered(loaded) == (rolls < RETAIN, False)
    for service in (running, loaded):
        if rolls < RETAIN:
            reply = service.handle("t", {"type": "undo", "id": f"u{id(service)}"}, GM)
            assert reply["event"]["data"]["undoes"] == 1
            assert service.table("t").actors == {}
            break  # the other shares the file: it has been undone there
        with pytest.raises(NothingToUndo):
            service.handle("t", {"type": "undo", "id": "u"}, GM)
