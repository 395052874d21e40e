"""The Foundry module's release (issue 8, item 4): the zip and its manifest, with
the package's version, every file module.json names, every import resolvable."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path, PurePosixPath

import pytest

import rollbridge
from rollbridge.adapters.foundry.release import (
    CLIENT_DIR,
    MODULE_DIR,
    build_release,
    referenced_files,
    write_unpacked,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def release(tmp_path) -> tuple[Path, dict, zipfile.ZipFile]:
    path = build_release(tmp_path, base_url="https://example.org/rb/")
    manifest = json.loads((tmp_path / "module.json").read_text(encoding="utf-8"))
    return path, manifest, zipfile.ZipFile(path)


def test_the_zip_and_manifest_carry_the_packages_version(release):
    path, manifest, archive = release
    assert path.name == f"rollbridge-foundry-{rollbridge.__version__}.zip"
    assert manifest["version"] == rollbridge.__version__
    assert json.loads(archive.read("module.json")) == manifest
    assert manifest["manifest"] == "https://example.org/rb/module.json"
    assert manifest["download"] == f"https://example.org/rb/{path.name}"


def test_the_manifest_is_a_foundry_v12_v13_module(release):
    _, manifest, _ = release
    assert manifest["id"] == "rollbridge"
    assert manifest["compatibility"] == {"minimum": "12", "verified": "13"}
    assert manifest["esmodules"] == ["scripts/rollbridge.mjs"]
    assert manifest["socket"] is True
    assert manifest["languages"] == [
        {"lang": "en", "name": "English", "path": "lang/en.json"},
        {"lang": "cs", "name": "Čeština", "path": "lang/cs.json"},
        {"lang": "de", "name": "Deutsch", "path": "lang/de.json"},
        {"lang": "ru", "name": "Русский", "path": "lang/ru.json"},
    ]
    assert manifest["title"] and manifest["description"] and manifest["authors"]


def test_every_file_the_manifest_names_is_in_the_zip(release):
    _, manifest, archive = release
    names = set(archive.namelist())
    referenced = referenced_files(manifest)
    assert {"scripts/rollbridge.mjs", "styles/rollbridge.css", "lang/en.json", "LICENSE"} <= set(
        referenced
    )
    assert set(referenced) <= names
    for lang in ("en", "cs", "de", "ru"):
        json.loads(archive.read(f"lang/{lang}.json").decode("utf-8"))


def test_every_module_import_resolves_inside_the_zip(release):
    _, _, archive = release
    names = set(archive.namelist())
    scripts = [n for n in names if n.endswith(".mjs")]
    assert len(scripts) >= 8
    for name in scripts:
        text = archive.read(name).decode()
        for target in re.findall(r'from\s+"(\.[^"]+)"', text):
            resolved = str(PurePosixPath(name).parent / target)
            parts = []
            for part in resolved.split("/"):
                if part == "..":
                    parts.pop()
                elif part != ".":
                    parts.append(part)
            assert "/".join(parts) in names, f"{name} imports {target}"


def _tree(folder):
    return {
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.is_file() and "node_modules" not in p.parts and not p.name.startswith(".")
    }


def test_the_zip_holds_the_whole_module_and_the_shared_client_and_nothing_else(release):
    _, _, archive = release
    expected = _tree(MODULE_DIR) | {f"scripts/client/{name}" for name in _tree(CLIENT_DIR)}
    assert {"scripts/client/connection.mjs", "scripts/client/protocol.mjs"} <= expected
    assert set(archive.namelist()) == expected
    # the bundled client is the shared one, byte for byte (one source, no copy kept)
    for name in _tree(CLIENT_DIR):
        assert archive.read(f"scripts/client/{name}") == (CLIENT_DIR / name).read_bytes()


def test_the_unpacked_module_is_the_zip_unpacked(release, tmp_path):
    _, _, archive = release
    folder = write_unpacked(tmp_path / "rollbridge")
    assert _tree(folder) == set(archive.namelist())
    for name in archive.namelist():
        if name != "module.json":
            assert (folder / name).read_bytes() == archive.read(name), name
    write_unpacked(folder)  # again over its own output: allowed
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        write_unpacked(other)
    assert (other / "notes.txt").read_text() == "mine"


def test_the_build_is_reproducible(tmp_path):
    one = build_release(tmp_path / "one").read_bytes()
    two = build_release(tmp_path / "two").read_bytes()
    assert one == two
    manifest = json.loads((tmp_path / "one" / "module.json").read_text(encoding="utf-8"))
    assert manifest["manifest"] == "" and manifest["download"] == ""


def test_a_manifest_naming_a_missing_file_is_refused(tmp_path):
    module = tmp_path / "module"
    module.mkdir()
    (module / "module.json").write_text(json.dumps({"id": "x", "esmodules": ["gone.mjs"]}))
    with pytest.raises(FileNotFoundError, match=r"gone\.mjs"):
        build_release(tmp_path / "out", module_dir=module)


def test_the_command(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "rollbridge.adapters.foundry.release", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    zip_path = Path(run.stdout.splitlines()[0])
    assert zip_path.exists() and zip_path.parent == tmp_path
    assert (tmp_path / "module.json").exists()


def test_the_wheel_ships_the_module(tmp_path):
    """The module's files are package data of rollbridge.adapters.foundry, so the
    release command works from an installed wheel too (pyproject.toml's
    [tool.setuptools.package-data])."""
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(tmp_path), str(ROOT)],
        check=True, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    (wheel,) = tmp_path.glob("rollbridge-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    prefix = "rollbridge/adapters/foundry/module/"
    shipped = {n[len(prefix) :] for n in names if n.startswith(prefix)}
    expected = {
        p.relative_to(MODULE_DIR).as_posix()
        for p in MODULE_DIR.rglob("*")
        if p.is_file() and "node_modules" not in p.parts and not p.name.startswith(".")
    }
    missing = sorted(expected - shipped)
    assert not missing, f"the wheel lacks the Foundry module's files: {missing}"
    client = {n.rsplit("/", 1)[1] for n in names if n.startswith("rollbridge/adapters/client/")}
    assert client == {p.name for p in CLIENT_DIR.glob("*.mjs")}, client
