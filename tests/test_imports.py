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

An import is any of: ``import a.b``, ``from a import b``, a module reached through the
attributes of a package an import bound (``import rollbridge`` then
``rollbridge.stores.sqlite.X``; ``import rollbridge as rb``, ``from rollbridge import
stores``, likewise), and ``importlib.import_module("a.b")`` or ``__import__("a.b")``
with a literal name (a relative one resolved in a literal package or ``__package__``;
``import_module`` under the name ``import … as`` gave it too). What a module's
``if __name__ == "__main__":`` block (either way round) imports is the script's, run as
a program: it is held to the module's rules but is no edge of the cycle check (no
module imports a ``__main__``; the module it names loads this one as itself).
"""

from __future__ import annotations

import ast
import sys
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


def _main_block(node: ast.If) -> bool:
    """Whether ``node`` is ``if __name__ == "__main__":`` (either way round)."""
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.comparators) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    named = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    main = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(named) == 1 and len(main) == 1


def _dotted(node: ast.AST) -> str | None:
    """``a.b.c`` of an attribute chain on a name, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _string_import(node: ast.Call, loaders: set[str], package: str) -> str | None:
    """The literal name of ``importlib.import_module("x")`` or ``__import__("x")``
    (``loaders``: the names that call may go by in this module); a relative one
    (``import_module(".sqlite", "rollbridge.stores")``, or with ``__package__``)
    resolved."""
    called = _dotted(node.func)
    if called not in loaders:
        return None
    if not (node.args and isinstance(node.args[0], ast.Constant)):
        return None
    name = node.args[0].value
    if not isinstance(name, str) or not name.startswith("."):
        return name if isinstance(name, str) else None
    given = [k.value for k in node.keywords if k.arg == "package"] + node.args[1:2]
    base = None
    if given and isinstance(given[0], ast.Constant) and isinstance(given[0].value, str):
        base = given[0].value
    elif given and isinstance(given[0], ast.Name) and given[0].id == "__package__":
        base = package
    if base is None:
        return None
    rest = name.lstrip(".")
    parts = base.split(".")
    parts = parts[: len(parts) - (len(name) - len(rest)) + 1]
    return ".".join(parts + ([rest] if rest else []))


def _loaders(nodes: list[ast.AST]) -> set[str]:
    """The names ``importlib.import_module`` and ``__import__`` go by: also as
    ``from importlib import import_module as load`` or ``import importlib as il``
    bound them."""
    names = {"importlib.import_module", "import_module", "__import__"}
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update(f"{a.asname}.import_module" for a in node.names
                         if a.name == "importlib" and a.asname)  # fmt: skip
        elif isinstance(node, ast.ImportFrom) and node.module == "importlib" and not node.level:
            names.update(a.asname for a in node.names if a.name == "import_module" and a.asname)
    return names


def _deepest_module(dotted: str) -> str | None:
    """The longest prefix of ``dotted`` that is one of the project's modules."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in MODULES:
            return candidate
    return None


def _parts(tree: ast.AST, script: bool) -> Iterator[ast.AST]:
    """The nodes of one part of a module: the module's own (``script`` false), or what
    its ``if __name__ == "__main__":`` blocks run (``script`` true) — the type
    checkers' ``if TYPE_CHECKING:`` blocks left out of both."""

    def visit(node: ast.AST, in_main: bool) -> Iterator[ast.AST]:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                yield from visit(child, in_main)
            return
        if isinstance(node, ast.If) and _main_block(node):
            for child in node.body:
                yield from visit(child, True)
            for child in node.orelse:
                yield from visit(child, in_main)
            return
        if in_main == script:
            yield node
        for child in ast.iter_child_nodes(node):
            yield from visit(child, in_main)

    yield from visit(tree, False)


def _origin(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from … import`` names, a relative one resolved in ``package``."""
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _bindings(nodes: list[ast.AST], package: str) -> dict[str, str]:
    """The names those nodes bind to a module: ``import a.b`` binds ``a`` to ``a``,
    ``import a.b as x`` ``x`` to ``a.b``, and ``from a import b`` (a module) ``b`` to
    ``a.b`` — wherever in the file the import stands (a function above it may use it)."""
    bound: dict[str, str] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    bound[top] = top
        elif isinstance(node, ast.ImportFrom):
            origin = _origin(node, package)
            for alias in node.names:
                if f"{origin}.{alias.name}" in MODULES:
                    bound[alias.asname or alias.name] = f"{origin}.{alias.name}"
    return bound


def imports_of(name: str, path: Path, *, script: bool = False) -> set[str]:
    """The modules ``name`` imports (resolved to submodules where one is named);
    with ``script``, those its ``if __name__ == "__main__":`` blocks import instead
    (a module-level import is in reach of that block's code too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    nodes = list(_parts(tree, script))
    bound = _bindings(list(_parts(tree, False)), package) if script else {}
    bound.update(_bindings(nodes, package))
    loaders = _loaders(list(_parts(tree, False)) + (nodes if script else []))
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            dotted = _dotted(node)
            head, _, rest = (dotted or "").partition(".")
            if head in bound:  # a module reached through a bound package's attributes
                reached = _deepest_module(f"{bound[head]}.{rest}" if rest else bound[head])
                if reached:
                    found.add(reached)
        elif isinstance(node, ast.Call) and (named := _string_import(node, loaders, package)):
            found.add(_deepest_module(named) or named)
        elif isinstance(node, ast.ImportFrom):
            origin = _origin(node, package)
            for alias in node.names:
                candidate = f"{origin}.{alias.name}"
                found.add(candidate if candidate in MODULES else origin)
    return found


GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}
#: What each module's ``__main__`` block imports (only modules that have one).
SCRIPTS = {n: deps for n, p in MODULES.items() if (deps := imports_of(n, p, script=True))}
#: Both: what running or importing a module may load. The rules are checked on this.
LOADS = {n: GRAPH[n] | SCRIPTS.get(n, set()) for n in MODULES}


def _within(module: str, prefixes: tuple[str, ...] | set[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def plugin_breaks(loads: set[str], own: str) -> set[str]:
    """What of ``loads`` (a plugin module's imports, its ``__main__`` block's
    included) breaks the plugins' rule: rollbridge beyond the contract, the dice, the
    errors and the helpers, or an I/O library. ``own``: the plugin's package."""
    wrong = {
        m
        for m in loads
        if m.startswith("rollbridge")
        and not _within(m, (own,))
        and not (m in PLUGIN_MAY_IMPORT or _within(m, ("rollbridge.dice",)))
    }
    return wrong | {m for m in loads if _within(m, IO_LIBRARIES)}


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("rollbridge.plugins.")))
def test_plugins_import_only_the_contract_dice_errors_and_helpers(name):
    own = ".".join(name.split(".")[:3])  # rollbridge.plugins.<id>
    wrong = plugin_breaks(LOADS[name], own)
    assert not wrong, f"{name} imports {sorted(wrong)}"


EXAMPLE_PLUGIN_FILES = sorted((ROOT / "examples").glob("*/rollbridge_*/**/*.py"))


def example_module(path: Path) -> str:
    """The module name of an example plugin's file (``rollbridge_hitpoints.ruleset``;
    a package's ``__init__.py`` named as the package)."""
    parts = path.relative_to(ROOT / "examples").with_suffix("").parts[1:]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def example_loads(path: Path) -> set[str]:
    """What an example plugin's file loads, imported or run (its ``__main__`` block)."""
    name = example_module(path)
    return imports_of(name, path) | imports_of(name, path, script=True)


@pytest.mark.parametrize("path", EXAMPLE_PLUGIN_FILES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_the_example_plugins_import_only_what_a_plugin_may(path):
    """The examples third-party authors copy keep the plugins' rule too, the same
    rule: I/O libraries and a ``__main__`` block's imports included."""
    own = path.relative_to(ROOT / "examples").parts[1]  # rollbridge_<id>
    wrong = plugin_breaks(example_loads(path), own)
    assert not wrong, f"{path.name} imports {sorted(wrong)}"


def test_the_example_plugins_are_checked():
    assert any(p.name == "ruleset.py" for p in EXAMPLE_PLUGIN_FILES)


@pytest.mark.parametrize(
    "name", sorted(n for n in MODULES if _within(n, ("rollbridge.engine", "rollbridge.dice")))
)
def test_the_engine_and_the_dice_import_nothing_above_them(name):
    wrong = {m for m in LOADS[name] if _within(m, BELOW_ENGINE_NEVER) or _within(m, IO_LIBRARIES)}
    assert not wrong, f"{name} imports {sorted(wrong)}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("rollbridge.adapters")))
def test_adapters_import_no_store_and_no_server(name):
    wrong = {
        m
        for m in LOADS[name]
        if _within(m, ("rollbridge.stores", "rollbridge.server", "sqlite3", "redis"))
    }
    assert not wrong, f"{name} imports {sorted(wrong)}"
    # the adapter itself takes nothing of the command line; a ``__main__`` block (the
    # release script's) is the command line's face of it and may
    cli = {m for m in GRAPH[name] if _within(m, ("rollbridge.cli",))}
    assert not cli, f"{name} imports {sorted(cli)}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("rollbridge.protocol")))
def test_the_protocol_does_no_io(name):
    wrong = {
        m
        for m in LOADS[name]
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
    users = sorted(n for n, deps in LOADS.items() if any(_within(m, codecs) for m in deps))
    assert users == ["rollbridge.plain"]


def test_the_checks_see_bare_string_and_script_imports(tmp_path):
    """The forms a module can load another by without ``from … import``: each is seen,
    and a ``__main__`` block's imports are the script's, not the module's."""
    source = tmp_path / "probe.py"
    source.write_text(
        "import importlib\n"
        "import rollbridge\n"
        "import rollbridge.dice as dice\n"
        "def later():\n"
        "    return rollbridge.stores.sqlite.SQLiteStore, dice\n"
        "def other():\n"
        "    return importlib.import_module('rollbridge.server.app'), __import__('redis')\n"
        "if __name__ == '__main__':\n"
        "    importlib.import_module('rollbridge.cli.release')\n"
        "if '__main__' == __name__:\n"
        "    import rollbridge.cli.serve\n",
        encoding="utf-8",
    )
    module = imports_of("rollbridge.adapters.probe", source)
    assert {
        "rollbridge.stores.sqlite",
        "rollbridge.server.app",
        "redis",
        "rollbridge.dice",
    } <= module
    assert "rollbridge.cli.release" not in module
    assert "rollbridge.cli.serve" not in module
    assert imports_of("rollbridge.adapters.probe", source, script=True) == {
        "rollbridge.cli.release",
        "rollbridge.cli.serve",
    }
    assert "rollbridge.cli.release" in SCRIPTS["rollbridge.adapters.foundry.release"]


def test_the_checks_see_a_package_reached_through_an_alias_or_a_from_import(tmp_path):
    """A package bound by ``import … as`` or ``from … import`` reaches its submodules
    through its attributes as a bare ``import`` does; a function above the import
    uses it too (the names are bound before any call)."""
    source = tmp_path / "probe.py"
    source.write_text(
        "def first():\n"
        "    return rollbridge.server.app\n"
        "import rollbridge\n"
        "import rollbridge as rb\n"
        "from rollbridge import stores\n"
        "from rollbridge import cli as command_line\n"
        "def later():\n"
        "    return rb.stores.sqlite.SQLiteStore, stores.redis.RedisStore, command_line.serve\n",
        encoding="utf-8",
    )
    module = imports_of("rollbridge.plugins.probe", source)
    assert {
        "rollbridge.server.app",
        "rollbridge.stores.sqlite",
        "rollbridge.stores.redis",
        "rollbridge.cli.serve",
    } <= module


def test_an_example_plugin_is_held_to_the_whole_plugins_rule(tmp_path, monkeypatch):
    """The example's rule is the plugins' own: an I/O library, and what its
    ``__main__`` block imports, break it as they break a built-in plugin's."""
    package = tmp_path / "examples" / "probe" / "rollbridge_probe"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from .ruleset import Probe\n", encoding="utf-8")
    ruleset = package / "ruleset.py"
    ruleset.write_text(
        "import sqlite3\n"
        "from rollbridge.text import Messages\n"
        "class Probe:\n"
        "    pass\n"
        "if __name__ == '__main__':\n"
        "    from rollbridge.stores.sqlite import SQLiteStore\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert example_module(package / "__init__.py") == "rollbridge_probe"
    assert example_module(ruleset) == "rollbridge_probe.ruleset"
    assert plugin_breaks(example_loads(ruleset), "rollbridge_probe") == {
        "sqlite3",
        "rollbridge.stores.sqlite",
    }
    assert plugin_breaks(example_loads(package / "__init__.py"), "rollbridge_probe") == set()


def test_the_checks_see_a_renamed_or_relative_string_import(tmp_path):
    """``import_module`` under another name, and a relative name resolved in the
    package given (a literal, or ``__package__``)."""
    source = tmp_path / "probe.py"
    source.write_text(
        "import importlib as il\n"
        "from importlib import import_module as load\n"
        "def later():\n"
        "    load('rollbridge.server.app')\n"
        "    il.import_module('.sqlite', 'rollbridge.stores')\n"
        "    return il.import_module('..redis', package=__package__)\n",
        encoding="utf-8",
    )
    module = imports_of("rollbridge.stores.memory.probe", source)
    assert {
        "rollbridge.server.app",
        "rollbridge.stores.sqlite",
        "rollbridge.stores.redis",
    } <= module
