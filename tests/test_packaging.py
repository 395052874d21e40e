"""The built wheel holds every module of the tree (DESIGN.md's packaging trap)."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
ROOTS = {"core": "rollbridge", "plugins": "rollbridge/plugins", "adapters": "rollbridge/adapters"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(out),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    (built,) = out.glob("rollbridge-*.whl")
    return zipfile.ZipFile(built)


def tree_modules() -> set[str]:
    expected = set()
    for folder, prefix in ROOTS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = path.relative_to(ROOT / folder).parts
            if "node_modules" in parts or "__pycache__" in parts:
                continue
            expected.add(f"{prefix}/{'/'.join(parts)}")
    return expected


def test_the_wheel_holds_every_module(wheel):
    names = set(wheel.namelist())
    missing = sorted(tree_modules() - names)
    assert not missing, f"modules missing from the wheel: {missing}"


def test_the_wheel_holds_package_data(wheel):
    assert "rollbridge/py.typed" in wheel.namelist()


def tree_catalogues() -> dict[str, pathlib.Path]:
    """Every compiled catalogue of the tree, by the name the wheel gives it."""
    return {
        f"{package}/{path.relative_to(ROOT / folder).as_posix()}": path
        for folder, package in ROOTS.items()
        for path in (ROOT / folder).rglob("locale/*/LC_MESSAGES/*.mo")
    }


def test_the_wheel_holds_every_compiled_catalogue(wheel):
    """Issue 14: the compiled catalogues (core and every ruleset plugin) ship in the wheel,
    byte for byte, and a plugin's own catalogues sit inside the plugin's package."""
    catalogues = tree_catalogues()
    assert "rollbridge/locale/cs/LC_MESSAGES/rollbridge.mo" in catalogues
    missing = sorted(set(catalogues) - set(wheel.namelist()))
    assert not missing, f"catalogues missing from the wheel: {missing}"
    for name, path in catalogues.items():
        assert wheel.read(name) == path.read_bytes(), f"{name} differs from {path}"


def test_the_wheel_declares_the_cli_and_the_pytest_plugin(wheel):
    (entry_points,) = [n for n in wheel.namelist() if n.endswith("entry_points.txt")]
    text = wheel.read(entry_points).decode()
    assert "rollbridge = rollbridge.cli:main" in text
    assert "[pytest11]" in text and "rollbridge = rollbridge.testing" in text


def test_the_wheel_holds_the_web_view(wheel):
    """The web view's pages, modules and stylesheets, and the shared client they
    load, ship in the wheel (rollbridge serve serves them from there)."""
    from rollbridge.server.web_view import CLIENT_FILES, WEB_FILES

    names = set(wheel.namelist())
    wanted = {f"rollbridge/server/webui/{name}" for name in WEB_FILES}
    wanted |= {f"rollbridge/adapters/client/{name}" for name in CLIENT_FILES}
    assert not sorted(wanted - names), sorted(wanted - names)
