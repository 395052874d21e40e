"""Which way imports run (../shared/DESIGN.md, "Which way imports run"), over every module.

* plugins import only the contract, the dice engine, the errors and the documented
  plugin helpers (schema, plain data, texts, the hook marker, the odds cache) — and
  their own package;
* the table engine and the dice engine import nothing from plugins, adapters, the
  protocol, the server, a store or the CLI;
* adapters import no store and no server;
* the sans-I/O protocol imports no store implementation, no server and no I/O library;
* no module imports another that imports it back (no cycles), counting imports inside
  functions and leaving out those only for type checkers (``if TYPE_CHECKING:``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = {"core": "rollbridge", "plugins": "rollbridge.plugins", "adapters": "rollbridge.adapters"}

#: What a ruleset plugin may import from rollbridge (besides its own package).
PLUGIN_MAY_IMPORT = {
    "rollbridge",
    "rollbridge.contract",
    "rollbridge.dice",
    "rollbridge.exceptions",
    "rollbridge.hookspecs",
    "rollbridge.odds.cache",  # a ruleset's odds caches, bounded (docs/plugins.md, "Odds")
    "rollbridge.plain",
    "rollbridge.schema",
    "rollbridge.text",
}
#: What the table engine and the dice engine never import.
BELOW_ENGINE_NEVER = (
    "rollbridge.plugins",
    "rollbridge.adapters",
    "rollbridge.protocol",
    "rollbridge.server",
    "rollbridge.stores",
    "rollbridge.offline",
    "rollbridge.cli",
    "rollbridge.host",
    "rollbridge.testing",
)
IO_LIBRARIES = ("websockets", "sqlite3", "redis", "asyncio", "socket")


def module_files() -> Iterator[tuple[str, Path]]:
    for folder, namespace in FOLDERS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = path.relative_to(ROOT / folder).with_suffix("").parts
            if "module" in parts or "node_modules" in parts:
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join((namespace, *parts)), path


MODULES = dict(module_files())


def _type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(name: str, path: Path) -> set[str]:
    """The modules ``name`` imports (resolved to submodules where one is named)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                origin = ".".join(base + ([node.module] if node.module else []))
            else:
                origin = node.module or ""
            for alias in node.names:
                candidate = f"{origin}.{alias.name}"
                found.add(candidate if candidate in MODULES else origin)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}


def _within(module: str, prefixes: tuple[str, ...] | set[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("rollbridge.plugins.")))
def test_plugins_import_only_the_contract_dice_errors_and_helpers(name):
    own = ".".join(name.split(".")[:3])  # rollbridge.plugins.<id>
    wrong = {
        m
        for m in GRAPH[name]
        if m.startswith("rollbridge")
        and not _within(m, (own,))
        and not (m in PLUGIN_MAY_IMPORT or _within(m, ("rollbridge.dice",)))
    }
    wrong |= {m for m in GRAPH[name] if _within(m, IO_LIBRARIES)}
    assert not wrong, f"{name} imports {sorted(wrong)}"


@pytest.mark.parametrize(
    "name", sorted(n for n in MODULES if _within(n, ("rollbridge.engine", "rollbridge.dice")))
)
def test_the_engine_and_the_dice_import_nothing_above_them(name):
    wrong = {m for m in GRAPH[name] if _within(m, BELOW_ENGINE_NEVER) or _within(m, IO_LIBRARIES)}
    assert not wrong, f"{name} imports {sorted(wrong)}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("rollbridge.adapters")))
def test_adapters_import_no_store_and_no_server(name):
    wrong = {
        m
        for m in GRAPH[name]
        if _within(m, ("rollbridge.stores", "rollbridge.server", "sqlite3", "redis"))
    }
    assert not wrong, f"{name} imports {sorted(wrong)}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("rollbridge.protocol")))
def test_the_protocol_does_no_io(name):
    wrong = {
        m
        for m in GRAPH[name]
        if _within(m, ("rollbridge.server", "rollbridge.stores.sqlite", "threading", *IO_LIBRARIES))
    }
    assert not wrong, f"{name} imports {sorted(wrong)}"


def test_no_module_imports_another_that_imports_it_back():
    edges = {n: {m for m in deps if m in MODULES and m != n} for n, deps in GRAPH.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def strongconnect(node: str) -> None:  # Tarjan's strongly connected components
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in edges[node]:
            if other not in index:
                strongconnect(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            strongconnect(node)
    assert not cycles, f"import cycles: {cycles}"


def test_the_checks_see_every_module():
    assert "rollbridge.engine.table" in MODULES and "rollbridge.plugins.sr2.ruleset" in MODULES
    assert "rollbridge.protocol.table" in GRAPH["rollbridge.server.app"] or any(
        m.startswith("rollbridge.protocol") for m in GRAPH["rollbridge.server.app"]
    )
    assert "rollbridge.engine.rolls" in GRAPH["rollbridge.engine.table"]


def test_one_module_holds_the_msgpack_codec():
    """Serialise once, with one codec module (Core issue, item 4): only rollbridge.plain
    imports msgpack (and the faster codecs it may use)."""
    codecs = ("msgpack", "ormsgpack", "orjson")
    users = sorted(n for n, deps in GRAPH.items() if any(_within(m, codecs) for m in deps))
    assert users == ["rollbridge.plain"]
