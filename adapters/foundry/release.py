"""Build the Foundry module's release: ``rollbridge-foundry-<version>.zip`` and the
``module.json`` manifest Foundry installs from, with the package's version.

.. code-block:: text

    python -m rollbridge.adapters.foundry.release --out dist/foundry \\
        --base-url https://example.org/rollbridge/foundry/0.1.0

The zip holds the module's files with ``module.json`` at its root (Foundry's
installer unpacks it into ``Data/modules/rollbridge``), and in ``scripts/client/``
the shared browser client (``adapters/client/``: the protocol client every
rollbridge browser client shares, kept in one place and bundled here, because Foundry
loads a module's scripts only from the module's own folder). The manifest beside it
is the same ``module.json``. ``version`` is ``rollbridge.__version__``; with
``--base-url`` the manifest's ``manifest`` and ``download`` point at
``<base>/module.json`` and ``<base>/rollbridge-foundry-<version>.zip``
(``--manifest-url`` and ``--download-url`` set them one by one). The build is
reproducible: the same tree gives the same bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import zipfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from rollbridge import __version__
from rollbridge.exceptions import InvalidRequest
from rollbridge.system_words import system_reason
from rollbridge.text import Messages

__all__ = [
    "CLIENT_DIR",
    "CLIENT_IN_MODULE",
    "MODULE_DIR",
    "build_release",
    "holds_other_files",
    "manifest_for",
    "referenced_files",
    "run",
    "write_unpacked",
]

#: The module's files (shipped as package data of rollbridge.adapters.foundry).
MODULE_DIR = Path(__file__).resolve().parent / "module"
#: The shared browser client (package data of rollbridge.adapters).
CLIENT_DIR = Path(__file__).resolve().parents[1] / "client"
#: Where the release puts the shared client inside the module.
CLIENT_IN_MODULE = "scripts/client"
_SKIP_PARTS = {"node_modules", "__pycache__", ".DS_Store"}

say = Messages("rollbridge")
# Translators: {option} is --out or --unpacked; {error} the system's words for it.
CANNOT_WRITE = say("cli.release.cannot_write", "{option}: cannot write {path}: {error}")
# Translators: {option} is --out or --unpacked, given an empty path ("").
EMPTY = say("cli.release.empty", "{option}: the path is empty; give a folder")
# Translators: {path} is the folder given after --unpacked.
NOT_EMPTY = say(
    "cli.release.not_empty",
    "--unpacked: {path} holds other files; give an empty or new folder (or one "
    "--unpacked wrote before)",
)
_FIXED_TIME = (2020, 1, 1, 0, 0, 0)


def module_files(module_dir: Path = MODULE_DIR) -> list[Path]:
    """Every file of the module, sorted, without build or editor leftovers."""
    files = []
    for path in sorted(module_dir.rglob("*")):
        parts = path.relative_to(module_dir).parts
        if not path.is_file() or any(p in _SKIP_PARTS or p.startswith(".") for p in parts):
            continue
        files.append(path)
    return files


def release_files(
    module_dir: Path = MODULE_DIR, client_dir: Path = CLIENT_DIR
) -> list[tuple[Path, str]]:
    """Every file of the released module (but its ``module.json``) with its path
    in the module: the module's own, then the shared client's under
    :data:`CLIENT_IN_MODULE`."""
    own = [
        (p, p.relative_to(module_dir).as_posix())
        for p in module_files(module_dir)
        if p.name != "module.json" or p.parent != module_dir
    ]
    clash = [name for _, name in own if name.startswith(f"{CLIENT_IN_MODULE}/")]
    if clash:
        raise FileExistsError(f"the module's own files are where the shared client goes: {clash}")
    shared = [
        (p, f"{CLIENT_IN_MODULE}/{p.relative_to(client_dir).as_posix()}")
        for p in module_files(client_dir)
    ]
    return own + shared


def manifest_for(
    source: dict[str, Any],
    *,
    version: str = __version__,
    manifest_url: str | None = None,
    download_url: str | None = None,
) -> dict[str, Any]:
    """The release manifest: the module's own with the version and URLs set."""
    manifest = dict(source)
    manifest["version"] = version
    if manifest_url is not None:
        manifest["manifest"] = manifest_url
    if download_url is not None:
        manifest["download"] = download_url
    return manifest


def referenced_files(manifest: dict[str, Any]) -> list[str]:
    """The paths module.json names (scripts, styles, languages, licence, readme)."""
    paths: list[str] = []
    for key in ("esmodules", "scripts", "styles"):
        paths.extend(manifest.get(key) or ())
    paths.extend(lang["path"] for lang in manifest.get("languages") or ())
    for key in ("license", "readme"):
        if manifest.get(key):
            paths.append(manifest[key])
    return paths


def _check(manifest: dict[str, Any], names: Iterable[str]) -> None:
    present = set(names)
    missing = [p for p in referenced_files(manifest) if p not in present]
    if missing:
        raise FileNotFoundError(f"module.json names files the module does not have: {missing}")


def zip_name(version: str = __version__) -> str:
    return f"rollbridge-foundry-{version}.zip"


def build_release(
    out_dir: Path | str,
    *,
    version: str = __version__,
    base_url: str | None = None,
    manifest_url: str | None = None,
    download_url: str | None = None,
    module_dir: Path = MODULE_DIR,
) -> Path:
    """Write the zip and its manifest into ``out_dir``; return the zip's path.

    :raises FileNotFoundError: when module.json names a file that is not there.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    name = zip_name(version)
    if base_url:
        base = base_url.rstrip("/")
        manifest_url = manifest_url or f"{base}/module.json"
        download_url = download_url or f"{base}/{name}"
    source = json.loads((module_dir / "module.json").read_text(encoding="utf-8"))
    manifest = manifest_for(
        source, version=version, manifest_url=manifest_url, download_url=download_url
    )
    files = release_files(module_dir)
    _check(manifest, [arcname for _, arcname in files])
    text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
    target = out / name
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        _add(archive, "module.json", text.encode("utf-8"))
        for path, arcname in files:
            _add(archive, arcname, path.read_bytes())
    (out / "module.json").write_text(text, encoding="utf-8")
    return target


def write_unpacked(target: Path | str, module_dir: Path = MODULE_DIR) -> Path:
    """The module as Foundry loads it, unpacked into ``target`` (for development:
    point Foundry's ``Data/modules/rollbridge`` at it). Files are written afresh;
    ``target`` must be empty or a folder this function wrote before."""
    out = Path(target)
    marker = out / ".rollbridge-unpacked"
    if holds_other_files(out):
        raise FileExistsError(f"{out} holds other files; give an empty or new folder")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    marker.write_text("written by rollbridge foundry-release --unpacked\n", encoding="utf-8")
    shutil.copy2(module_dir / "module.json", out / "module.json")
    for path, arcname in release_files(module_dir):
        (out / arcname).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, out / arcname)
    return out


def holds_other_files(target: Path | str) -> bool:
    """Whether ``target`` is a folder holding files :func:`write_unpacked` did not
    write there (which it refuses to replace).

    :raises OSError: ``target`` is a file, or a folder that cannot be read."""
    out = Path(target)
    return out.exists() and any(out.iterdir()) and not (out / ".rollbridge-unpacked").exists()


def _add(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    info = zipfile.ZipInfo(name, date_time=_FIXED_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    archive.writestr(info, data)


def run(args: argparse.Namespace, *, shown: Callable[[str], str] = str) -> int:
    """Build the release the parsed options ask for; print the two paths (or,
    with ``--unpacked``, the folder), each as ``shown`` makes it (the command line
    passes one that escapes a path's control characters).

    :raises InvalidRequest: the folder's path is empty, the folder cannot be written
        (the system's words), or ``--unpacked`` names a folder holding other files.
    :raises OSError: the module's own files are missing or misplaced (a broken
        checkout or install): not the folder's fault, so not said to be."""
    unpacked = args.unpacked is not None  # "" too: not a zip in the default folder
    option, given = ("--unpacked", args.unpacked) if unpacked else ("--out", args.out)
    field = option.removeprefix("--")
    if not given:  # Path("") is the current folder: an unset shell variable, likely
        raise InvalidRequest(EMPTY(option=option), details={"field": field})
    try:
        if unpacked:
            if holds_other_files(given):
                raise InvalidRequest(NOT_EMPTY(path=given), details={"field": field})
            sys.stdout.write(f"{shown(str(write_unpacked(given)))}\n")
            return 0
        path = build_release(
            given,
            base_url=args.base_url,
            manifest_url=args.manifest_url,
            download_url=args.download_url,
            module_dir=MODULE_DIR,
        )
    except OSError as exc:
        if not _about(exc, given):
            raise
        error = system_reason(exc)
        said = CANNOT_WRITE(option=option, path=given, error=error)
        raise InvalidRequest(said, details={"field": field}) from None
    sys.stdout.write(f"{shown(str(path))}\n{shown(str(path.parent / 'module.json'))}\n")
    return 0


def _about(exc: OSError, given: str) -> bool:
    """Whether ``exc`` is the system's refusal to write ``given``: it names that
    folder, a file in it or a folder on its way, or no file (a full disk). Not an
    error of the release's own (no errno: a file module.json names is missing), nor
    one naming a file of the module it reads."""
    if exc.errno is None:
        return False
    if exc.filename is None:
        return True
    named, folder = Path(os.path.abspath(exc.filename)), Path(os.path.abspath(given))
    return named == folder or folder in named.parents or named in folder.parents


if __name__ == "__main__":  # run as a script: the command line's face of it
    # (rollbridge.cli.release), which importing this module, the adapter's build
    # code, never loads
    import importlib

    raise SystemExit(importlib.import_module("rollbridge.cli.release").main())
