"""What the tests of the language files share (the Foundry module's lang/*.json,
tests/foundry/test_foundry_i18n.py; the web view's webui/lang/*.json,
tests/web/test_web_i18n.py): nested JSON read as flat keys, the keys a script
uses, and the checks every translation passes against en.json."""

from __future__ import annotations

import json
import re
from pathlib import Path

#: What a Localization's format replaces.
PLACEHOLDER = re.compile(r"{[^}]+}")
#: A key written out in a script.
KEY = re.compile(r"""["'`](ROLLBRIDGE(?:\.[A-Za-z0-9_]+)+)["'`]""")


def flatten(tree: dict, prefix: str = "") -> dict[str, object]:
    """A nested language file as {"A.B.C": text}, in the file's order."""
    out: dict[str, object] = {}
    for key, value in tree.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(flatten(value, f"{path}."))
        else:
            out[path] = value
    return out


def read_catalog(path: Path) -> dict[str, object]:
    """A language file's texts by flat key."""
    return flatten(json.loads(path.read_text(encoding="utf-8")))


def script_text(path: Path) -> str:
    """A script without its comments (so a key named in a comment does not count)."""
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)(^|[^:\"'`])//.*$", r"\1", text)


def check_translation(english: dict[str, object], other: dict[str, object], lang: str) -> None:
    """A translation has exactly en.json's keys, in its order, each text with the
    same placeholders."""
    assert sorted(set(english) - set(other)) == [], f"{lang}.json lacks these"
    assert sorted(set(other) - set(english)) == [], f"{lang}.json has keys en.json has not"
    assert list(other) == list(english), f"{lang}.json keeps en.json's order"
    for key, text in english.items():
        wanted = sorted(PLACEHOLDER.findall(str(text)))
        assert sorted(PLACEHOLDER.findall(str(other[key]))) == wanted, f"{lang}: {key}"


def check_written_out(paths: list[Path]) -> None:
    """A key put together at run time could not be checked: every key is a literal."""
    for path in paths:
        text = script_text(path)
        assert not re.search(r"`ROLLBRIDGE\.[^`]*\$\{", text), path
        assert not re.search(r"""["']ROLLBRIDGE\.[A-Za-z0-9_.]*\.["']\s*\+""", text), path


def check_language_file(path: Path) -> None:
    """A language file is UTF-8 JSON nested under ROLLBRIDGE, every text a
    non-blank string without surrounding blanks."""
    data = json.loads(path.read_bytes().decode("utf-8"))
    assert list(data) == ["ROLLBRIDGE"], "every key lives under the project's namespace"
    for key, value in flatten(data).items():
        assert isinstance(value, str) and value.strip(), f"{path.name}: {key}"
        assert value == value.strip(), f"{path.name}: {key} has surrounding blanks"
