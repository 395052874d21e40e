"""docs/operations.md's table of metrics is what ``/metrics`` serves: every metric it
names is there with the type it says, and every family the page has is in the
docs — prometheus-client's ``…_created`` families too, which the page served
without a word on what they are (an operator scraping it met three metrics the docs
did not name)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.server.httpclient import get

DOCS = Path(__file__).resolve().parents[2] / "docs" / "operations.md"
#: A row of the metrics table: `name` | type |.
ROW = re.compile(r"^\| `(rollbridge_[a-z_]+)` \| (gauge|counter|histogram) \|", re.MULTILINE)
TYPE = re.compile(r"^# TYPE (\S+) (\S+)$", re.MULTILINE)


async def test_every_metric_served_is_documented_and_every_documented_one_served(tables):
    player, _ = await tables.join("sr2", "gm")
    assert (await player.request({"type": "roll", "formula": "1d6"}))["status"] == "done"
    status, _headers, body = await get(tables.server, "/metrics")
    assert status == 200
    served = dict(TYPE.findall(body.decode("utf-8")))
    text = DOCS.read_text(encoding="utf-8")
    documented = dict(ROW.findall(text))
    assert documented, "no metrics table found in docs/operations.md"
    for name, kind in documented.items():
        assert served.get(name) == kind, (name, kind, served.get(name))
    created = {name for name in served if name.endswith("_created")}
    assert created, "prometheus-client serves no _created family any more: update the docs"
    for name in created:
        assert f"`{name}`" in text, f"{name} is served but docs/operations.md does not name it"
    assert set(served) - created == set(documented)
