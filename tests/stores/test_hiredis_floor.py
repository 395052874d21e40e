"""redis-py parses Redis's replies with hiredis, in C, only from the hiredis version it
names itself (``redis[hiredis]``'s requirement: 3.2 for redis-py 8.2, the floor
``pyproject.toml`` names); an older hiredis is passed over without a word
(``redis.utils.HIREDIS_AVAILABLE`` false) for redis-py's own parser in Python. When
the floor of redis-py went up to 8.2, ``pyproject.toml`` still allowed hiredis 2.0,
so an install keeping a hiredis of 2.0 to 3.1 parsed every reply in Python, while
the comment there and docs/redis.md say hiredis parses them, and the lowest
versions' run (docs/operations.md, "The libraries it needs") passed hiredis 2.0
only because it was never used. These read the installed redis-py's own metadata
and what it made of the installed hiredis."""

from __future__ import annotations

import pathlib
import tomllib
from importlib import metadata

import redis.utils
from packaging.requirements import Requirement
from packaging.version import Version

PYPROJECT = pathlib.Path(__file__).resolve().parents[2] / "pyproject.toml"


def _lowest(requirement: Requirement) -> Version:
    """The lowest version ``requirement`` allows (its ``>=``)."""
    (floor,) = (s.version for s in requirement.specifier if s.operator == ">=")
    return Version(floor)


def test_the_hiredis_floor_is_one_the_installed_redis_py_uses():
    declared = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["dependencies"]
    ours = next(r for r in map(Requirement, declared) if r.name == "hiredis")
    theirs = next(
        r
        for r in map(Requirement, metadata.requires("redis") or ())
        if r.name == "hiredis" and r.marker is not None and r.marker.evaluate({"extra": "hiredis"})
    )
    assert _lowest(ours) >= _lowest(theirs), (str(ours), str(theirs))


def test_the_installed_hiredis_parses_the_replies():
    assert redis.utils.HIREDIS_AVAILABLE, metadata.version("hiredis")
