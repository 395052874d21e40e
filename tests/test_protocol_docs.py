"""docs/protocol.md against the code: every request type, its role and fields, and
every error code a client can be sent.

``rollbridge.engine.requests.REQUESTS`` is the one list of table requests; the
protocol's table is written from it. The error table must name every code of the
exceptions tree that a WebSocket client can receive, and the codes given to single
refusals (``code="not_verifiable"``) in the engine, the contract and the dice.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

import rollbridge.exceptions as exceptions
from rollbridge.engine.requests import REQUESTS

ROOT = Path(__file__).resolve().parents[1]
PROTOCOL = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
ENGINE = (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")
#: The documents with a table of requests, and that table's section.
REQUEST_TABLES = {"protocol.md": (PROTOCOL, "Table requests"), "engine.md": (ENGINE, "Requests")}

#: Codes of the tree no WebSocket client is sent, and why.
NOT_SENT = {
    "error": "the base class: every refusal has a code of its own",
    "conflict": "a base: its uses in a table carry codes of their own (not_verifiable, …)",
    "protocol_error": "a base of the wire's refusals",
    "not_found": "the stores' and the admin API's (docs/operations.md)",
    "unknown_ruleset": "creating a table: the CLI and the admin API (docs/operations.md)",
    "name_control": "a table's or a token's name: the CLI and the admin API (docs/operations.md)",
    "duplicate_registration": "loading plugins, at start-up",
    "plugin_load_failed": "loading plugins, at start-up",
    "adapter_protocol_field": "loading plugins, at start-up (an adapter's event_fields)",
    "plugin_error": "a plugin's declarations, checked at load; at run time a client gets internal",
    "cannot_listen": "serve's start, before any client (docs/operations.md)",
}


def _section(title: str, text: str = PROTOCOL) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end]


def _request_rows(doc: str) -> dict[str, str]:
    """A document's table of table requests: each type (``undo`` / ``redo`` rows
    split) and its row."""
    rows: dict[str, str] = {}
    text, title = REQUEST_TABLES[doc]
    for line in _section(title, text).splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0].startswith("`"):
            for name in re.findall(r"`([a-z.]+)`", cells[0]):
                rows[name] = line
    return rows


@pytest.mark.parametrize("doc", sorted(REQUEST_TABLES))
@pytest.mark.parametrize("name", sorted(REQUESTS))
def test_the_docs_list_every_request_with_its_role_and_fields(doc: str, name: str) -> None:
    rows = _request_rows(doc)
    assert name in rows, f"docs/{doc}'s table of requests has no {name!r}"
    cells = [c.strip() for c in rows[name].strip().strip("|").split("|")]
    request = REQUESTS[name]
    assert cells[1] == request.role, f"{name}: {doc} says {cells[1]}, the code {request.role}"
    for field in request.schema.get("properties") or {}:
        assert f"`{field}" in cells[2], f"{name}: {doc} does not name the field {field!r}"


@pytest.mark.parametrize("doc", sorted(REQUEST_TABLES))
def test_the_docs_list_no_request_the_code_lacks(doc: str) -> None:
    extra = set(_request_rows(doc)) - set(REQUESTS)
    assert not extra, f"docs/{doc} lists requests the engine does not have: {extra}"


def _codes_sent() -> set[str]:
    tree = {
        cls.code
        for cls in vars(exceptions).values()
        if inspect.isclass(cls) and issubclass(cls, exceptions.RollbridgeError)
    }
    single = set()
    for folder in ("engine", "protocol", "server", "dice", "odds", "stats"):
        for path in (ROOT / "core" / folder).glob("*.py"):
            single |= set(re.findall(r'code="([a-z_]+)"', path.read_text(encoding="utf-8")))
    contract = (ROOT / "core" / "contract.py").read_text(encoding="utf-8")
    single |= set(re.findall(r'code="([a-z_]+)"', contract))
    single.discard("bad_dice_key")  # the server refuses to start: docs/operations.md
    single.discard("settings_differ")  # serve --redis refuses to start: docs/redis.md
    return (tree | single) - set(NOT_SENT)


def test_the_error_table_names_every_code_a_client_can_be_sent() -> None:
    table = set(re.findall(r"`([a-z_]+)`", _section("Error codes")))
    missing = sorted(_codes_sent() - table)
    assert not missing, f"docs/protocol.md's error codes lack {missing}"


def test_no_table_refusal_is_sent_with_a_bases_code() -> None:
    """A base left out above (``conflict``: "its uses in a table carry codes of their
    own") is raised only with a code of its own where a client can be sent it: the
    GM's approve of a held request whose action became always secret was answered
    ``conflict``, which the error table does not name (review plugins25)."""
    bases = {
        name
        for name, cls in vars(exceptions).items()
        if inspect.isclass(cls) and getattr(cls, "code", None) in ("conflict", "error")
    }
    bare = []
    for folder in ("engine", "protocol", "server", "dice", "odds", "stats"):
        for path in sorted((ROOT / "core" / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                        and node.func.id in bases
                        and not any(k.arg == "code" for k in node.keywords)):  # fmt: skip
                    bare.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.func.id}")
    assert not bare, bare


def test_the_codes_left_out_are_real_codes() -> None:
    """The list of codes no client is sent names only codes that exist."""
    tree = {
        cls.code
        for cls in vars(exceptions).values()
        if inspect.isclass(cls) and issubclass(cls, exceptions.RollbridgeError)
    }
    assert set(NOT_SENT) <= tree, sorted(set(NOT_SENT) - tree)


def test_every_event_kind_is_documented_and_has_words() -> None:
    """Each kind the engine makes (the Redis follower applies each, so its list is
    complete: tests/stores/test_redis_apply.py) is in docs/protocol.md's list of
    kinds and docs/engine.md's, and has words for the CLI and the exports."""
    from rollbridge.engine.follow import APPLIED_KINDS
    from rollbridge.words import KINDS

    kinds_line = _section("Events").split("- Kinds:", 1)[1].split("\n- ", 1)[0]
    engine_events = _section("Events", ENGINE)
    for kind in APPLIED_KINDS:
        assert f"`{kind}`" in kinds_line, f"docs/protocol.md's kinds lack {kind!r}"
        assert f"`{kind}`" in engine_events, f"docs/engine.md's kinds lack {kind!r}"
        assert kind in KINDS, f"rollbridge.words.KINDS has no words for {kind!r}"
