"""The package ``rollbridge new-plugin`` writes follows docs/plugins.md's advice on a
state schema — no ``default`` and no ``required`` in it, "Supplied states" — which a
newcomer copying the skeleton (author27) found it did not: its wounds carried
``"default": 0``, harmless at 0 and wrong once a newcomer makes a track start
elsewhere (validation fills a default in over the fresh state's value)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from rollbridge.skeleton import write_skeleton


def _nodes(schema: object) -> list[dict]:
    if not isinstance(schema, dict):
        return []
    found = [schema]
    for key in ("properties",):
        for child in (schema.get(key) or {}).values():
            found += _nodes(child)
    return found


def test_the_skeletons_state_schema_has_no_default_and_no_required(tmp_path: Path) -> None:
    write_skeleton("dicey", tmp_path / "dicey")
    package = tmp_path / "dicey"
    sys.path.insert(0, str(package))
    try:
        spec = importlib.util.find_spec("rollbridge_dicey.ruleset")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        schema = module.Dicey.state_schema
        sheet = module.Dicey.example_sheets["Hero"]
        for node in _nodes(schema) + _nodes(module.Dicey().state_schema_for(sheet)):
            assert "default" not in node and "required" not in node, node
    finally:
        sys.path.remove(str(package))
        for name in [n for n in sys.modules if n.startswith("rollbridge_dicey")]:
            del sys.modules[name]
