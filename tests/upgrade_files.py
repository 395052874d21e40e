"""Database files written by older rollbridge versions, for the upgrade tests.

Each is a short game of every ruleset that the version itself played through its own
CLI and server (``tests/fixtures/upgrade/README.md`` says which commit and how):
``<commit>.db.gz`` (the SQLite file, gzipped), ``<commit>.db.dice-key`` (its dice key,
for versions with verifiable dice) and ``<commit>.json`` (per table: its id and join
tokens, its seq, the actors the old server showed at its latest seq, the requests it
answered with their seqs, and the actors it held at each seq).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures" / "upgrade"

#: Oldest first: the schema-v2 live server (English texts in events), texts as data
#: (append-only log, v3), localisation, the hosted service (v4), verifiable dice (the
#: first scheme, without nonce or GM stream), encounter.reorder, the last before
#: removals recorded the actor's place, and the last of schema 5 (every log row with
#: the table's whole info and meta).
VERSIONS = ("9e19e5f", "279420a", "74f6d37", "7848585", "9a8b894", "0818fc3", "d7d3229",
            "598451c")  # fmt: skip


@dataclass
class OldFile:
    """One old version's file, copied out to be opened (the fixture stays as it is)."""

    commit: str
    path: Path
    meta: dict[str, Any]

    @property
    def tables(self) -> dict[str, dict[str, Any]]:
        """By ruleset: ``table`` (its id), ``tokens``, ``seq``, ``actors``,
        ``requests``, ``actor_ids_at``."""
        return self.meta["tables"]

    @property
    def places_recorded(self) -> bool:
        """Whether its removals recorded the actor's place (every version after
        ``d7d3229``): its earlier states' actor order is exact, not a guess."""
        return VERSIONS.index(self.commit) > VERSIONS.index("d7d3229")

    @property
    def verifiable(self) -> bool:
        """Whether its tables have verifiable dice (an open segment each)."""
        return bool(self.meta["features"]["verifiable"])


def old_file(commit: str, folder: Path, name: str = "rollbridge.db") -> OldFile:
    """The file ``commit`` wrote, as ``folder/name`` (with its dice key beside it)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    with gzip.open(FIXTURES / f"{commit}.db.gz", "rb") as packed, open(path, "wb") as out:
        shutil.copyfileobj(packed, out)
    key = FIXTURES / f"{commit}.db.dice-key"
    if key.exists():
        shutil.copyfile(key, f"{path}.dice-key")
        os.chmod(f"{path}.dice-key", 0o600)
    meta = json.loads((FIXTURES / f"{commit}.json").read_text())
    return OldFile(commit, path, meta)
