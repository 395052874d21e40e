"""The epoch of the log rows ``rollbridge migrate --from redis://…`` moves back to a
SQLite file (docs/redis.md, "Moving tables back to SQLite"), on a real redis-server
and a real file.

Left by the last session as a question: moved back, every log row carries the table's
epoch now, not the epoch its event was committed in. Kept so, on purpose: Redis keeps
no epoch per event (``rb:{T}:log`` holds the packed events by seq), only the record of
the epochs a table ran through where a fence or a restore wrote one (its meta's
``epochs``), which moves with the meta unchanged. The file reads ``log.epoch`` in two
places: the table's head (the last row's: the epoch now) and a restore of a backup
(``SQLiteStore.finish_restore``), which takes the meta's record where it ends at the
table's epoch and the rows' epochs only where there is none. This test holds both:
a table Redis fenced to a new epoch goes back with its rows at the new epoch and its
record whole, and a restore of the moved file tells the epoch before the fence too —
read from the rows it would not know it.
"""

from __future__ import annotations

import sqlite3

from rollbridge.engine.epochs import shown
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.sqlite import SQLiteStore
from tests.stores.test_migrate import GM, RETAIN, run
from tests.stores.test_migrate_back import back, on_redis  # noqa: F401 (a fixture)


def test_moved_back_rows_carry_the_epoch_now_and_a_restore_reads_the_record(
    on_redis,  # noqa: F811
    tmp_path,
):
    _played, url = on_redis
    with RedisStore(url) as store:
        service = TableService(store, PluginHost())
        for n in range(3):  # events of the epoch before the fence
            service.handle("other", {"type": "roll", "id": f"r{n}", "formula": "1d6"}, GM)
        before = store.load("other")[0].info
        assert store.fence("other", before.epoch, before.seq + 1).moved  # seq S+1 lost
        fenced = store.load("other")[0]
    assert fenced.info.epoch != before.epoch
    record = shown(fenced.meta().get("epochs"), fenced.info.epoch)
    assert record is not None and [r["epoch"] for r in record] == [
        before.epoch,
        fenced.info.epoch,
    ]
    db = tmp_path / "back.db"
    assert back(url, db)[0] == 0
    with sqlite3.connect(db) as plain:
        epochs = {e for (e,) in plain.execute("SELECT epoch FROM log WHERE \"table\" = 'other'")}
    # the events were committed before the fence, under the epoch before: the rows
    # carry the epoch now (Redis keeps none per event)
    assert epochs == {fenced.info.epoch}
    with SQLiteStore(db, retain=RETAIN) as store:
        moved = store.load("other")[0]
        assert moved.info.epoch == fenced.info.epoch  # the head: the epoch now
        assert shown(moved.meta().get("epochs"), moved.info.epoch) == record  # moved whole
    backup = tmp_path / "restored.db"
    assert run("backup", "--db", str(db), str(backup))[0] == 0  # rollbridge backup
    with SQLiteStore(backup, retain=RETAIN) as store:
        assert store.finish_restore() is not None  # as serve does on a restored backup
        restored = store.load("other")[0]
    told = shown(restored.meta().get("epochs"), restored.info.epoch)
    # the record before the fence, then the restore's new epoch: not the rows' one epoch
    assert told is not None
    assert [r["epoch"] for r in told] == [before.epoch, fenced.info.epoch, restored.info.epoch]
    assert told[1] == record[1] and told[2]["from"] == fenced.info.seq
