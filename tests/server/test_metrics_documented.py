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


#: The sentence of docs/operations.md naming the families a fresh server has no sample of.
EMPTY = re.compile(r"On a server that has counted nothing yet, (.+?) are only their", re.DOTALL)
SAMPLE = re.compile(r"^([a-z_]+?)(?:_bucket|_count|_sum)?(?:\{.*\})? \S+$", re.MULTILINE)


async def test_the_families_without_a_sample_on_a_fresh_server_are_the_ones_documented(
    tables,
):
    """The docs named three labelled counters as only their ``# HELP`` and ``# TYPE``
    lines before they count; a fresh server's page has seven such, and no
    ``rollbridge_store_reads_created`` at all (the docs gave it one sample per outcome,
    which it has only once a read is counted). The sentence names exactly them now."""
    status, _headers, body = await get(tables.server, "/metrics")
    assert status == 200
    page = body.decode("utf-8")
    served = dict(TYPE.findall(page))
    sampled = set(SAMPLE.findall(page))
    empty = {name for name in served if name not in sampled}
    text = DOCS.read_text(encoding="utf-8")
    said = EMPTY.search(text)
    assert said, "docs/operations.md does not name the families a fresh server has no sample of"
    assert set(re.findall(r"`(rollbridge_[a-z_]+)`", said.group(1))) == empty
    assert "rollbridge_store_reads_created" not in served
    assert "no family at all before the first read is counted" in " ".join(text.split())
