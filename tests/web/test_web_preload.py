"""Each page preloads exactly the modules its scripts import, so none waits a round trip.

A browser finds a module's imports only when the module has arrived; on a phone's
slow line each level of imports costs a round trip. A page therefore names every
module its scripts import, directly or not, as ``<link rel="modulepreload">``, and the
browser fetches them all at once. This test reads the import graph from the files the
server sends (``/static/web/`` is ``core/server/webui``, ``/static/client/`` is
``adapters/client``) and holds each page's list equal to it: a module added to the
graph and not to the page, or left on the page after the graph lost it, fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STATIC = {"web": ROOT / "core" / "server" / "webui", "client": ROOT / "adapters" / "client"}
PAGES = ["table.html", "overlay.html"]

_IMPORT = re.compile(r'^\s*import\s[^;]*?from\s+"([^"]+)"|^\s*import\s+"([^"]+)"', re.M | re.S)
_SCRIPT = re.compile(r'<script type="module" src="(/static/[^"]+)"></script>')
_PRELOAD = re.compile(r'<link rel="modulepreload" href="(/static/[^"]+)">')


def _file(url: str) -> Path:
    """The file the server sends for a ``/static/<web|client>/NAME`` address."""
    _, _, folder, name = url.split("/", 3)
    return STATIC[folder] / name


def _imports(url: str) -> set[str]:
    """The static imports of the module at ``url``, as addresses."""
    base = url.rsplit("/", 1)[0]
    found = set()
    for match in _IMPORT.finditer(_file(url).read_text(encoding="utf-8")):
        target = match.group(1) or match.group(2)
        parts = (base + "/" + target).split("/")
        resolved: list[str] = []
        for part in parts:
            if part == "..":
                resolved.pop()
            elif part not in (".", ""):
                resolved.append(part)
        found.add("/" + "/".join(resolved))
    return found


def _closure(entries: list[str]) -> set[str]:
    """Every module the entry scripts import, directly or through others."""
    seen: set[str] = set()
    todo = list(entries)
    while todo:
        for imported in _imports(todo.pop()):
            if imported not in seen:
                seen.add(imported)
                todo.append(imported)
    return seen - set(entries)


def page_modules(page: str) -> set[str]:
    """Every module a page of ``webui`` runs: its module scripts and all they import."""
    entries = _SCRIPT.findall((STATIC["web"] / page).read_text(encoding="utf-8"))
    return set(entries) | _closure(entries)


@pytest.mark.parametrize("page", PAGES)
def test_a_page_preloads_every_module_its_scripts_import(page: str) -> None:
    html = (STATIC["web"] / page).read_text(encoding="utf-8")
    entries = _SCRIPT.findall(html)
    assert entries, f"{page} has no module script"
    preloaded = _PRELOAD.findall(html)
    assert len(preloaded) == len(set(preloaded)), f"{page} preloads a module twice"
    assert set(preloaded) == _closure(entries), (
        f"{page}: missing {sorted(_closure(entries) - set(preloaded))}, "
        f"not imported {sorted(set(preloaded) - _closure(entries))}"
    )


def test_the_import_reader_follows_relative_paths() -> None:
    """The reader itself: render.mjs imports the shared client's i18n.mjs by ``../client/``."""
    assert "/static/client/i18n.mjs" in _imports("/static/web/render.mjs")
