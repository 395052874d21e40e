"""The Foundry module's languages (issue 14): lang/en.json, cs.json, de.json and
ru.json hold the same keys with the same placeholders, module.json lists them,
and every key the scripts use is in en.json (and every key there is used).

The texts in use are checked by Node's tests (js/i18n.test.mjs) and the browser
test, both through the stand-in's game.i18n, which records any key it lacks."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.lang_files import (
    KEY,
    check_language_file,
    check_translation,
    check_written_out,
    read_catalog,
    script_text,
)

ROOT = Path(__file__).resolve().parents[2]
MODULE = ROOT / "adapters" / "foundry" / "module"
# the module's own scripts and the shared client its release bundles (scripts/client/)
SCRIPTS = sorted((MODULE / "scripts").rglob("*.mjs")) + sorted(
    (MODULE.parents[1] / "client").glob("*.mjs")
)
LANGUAGES = {"en": "English", "cs": "Čeština", "de": "Deutsch", "ru": "Русский"}


def catalog(lang: str) -> dict[str, object]:
    return read_catalog(MODULE / "lang" / f"{lang}.json")


def used_keys() -> dict[str, list[str]]:
    keys: dict[str, list[str]] = {}
    for path in SCRIPTS:
        for key in KEY.findall(script_text(path)):
            keys.setdefault(key, []).append(str(path.relative_to(ROOT)))
    return keys


def test_module_json_lists_the_four_languages():
    manifest = json.loads((MODULE / "module.json").read_text(encoding="utf-8"))
    entries = manifest["languages"]
    assert [e["lang"] for e in entries] == list(LANGUAGES)
    for entry in entries:
        assert set(entry) == {"lang", "name", "path"}
        assert entry["name"] == LANGUAGES[entry["lang"]]
        assert entry["path"] == f"lang/{entry['lang']}.json"
        assert (MODULE / entry["path"]).is_file()


@pytest.mark.parametrize("lang", list(LANGUAGES))
def test_a_language_file_is_nested_utf8_json_of_texts(lang):
    check_language_file(MODULE / "lang" / f"{lang}.json")


@pytest.mark.parametrize("lang", ["cs", "de", "ru"])
def test_a_translation_has_the_keys_and_placeholders_of_en_json_in_order(lang):
    check_translation(catalog("en"), catalog(lang), lang)


@pytest.mark.parametrize("lang", ["cs", "de", "ru"])
def test_a_translation_is_translated(lang):
    english, other = catalog("en"), catalog(lang)
    # only the module's name stays as it is
    same = {k for k in english if other[k] == english[k]}
    assert same <= {"ROLLBRIDGE.Panel.Title"}, f"{lang}: untranslated {sorted(same)}"
    if lang == "ru":
        cyrillic = re.compile("[а-яё]", re.I)
        # a text of no words (quotes around a placeholder: Card.RollName) has no script
        words = re.compile(r"[^\W\d_]")
        latin_only = [
            k
            for k, v in other.items()
            if k not in same
            and not cyrillic.search(str(v))
            and words.search(re.sub(r"\{\w+\}", "", str(v)))
        ]
        assert latin_only == [], latin_only


def test_every_key_the_scripts_use_is_in_en_json():
    english = catalog("en")
    used = used_keys()
    assert len(used) >= 60, sorted(used)
    missing = {key: files for key, files in used.items() if key not in english}
    assert missing == {}, "keys the scripts use that en.json lacks"


def test_every_key_in_en_json_is_used():
    unused = sorted(set(catalog("en")) - set(used_keys()))
    assert unused == [], "keys no script uses"


def test_keys_are_written_out_in_full():
    check_written_out(SCRIPTS)


def test_no_english_goes_to_the_user_unlocalized():
    """Notifications, chat cards and the settings window get keys or translated
    texts; a literal reaching ui.notifications is only the "rollbridge: " prefix."""
    notify = re.compile(r"""ui\.notifications\??\.\w+\??\.?\(\s*(["'`])(.*?)\1""", re.S)
    for path in SCRIPTS:
        text = script_text(path)
        for _quote, literal in notify.findall(text):
            assert re.fullmatch(r"rollbridge: \$\{.*\}", literal), f"{path.name}: {literal!r}"
        for literal in re.findall(r"""\bnotify\(\s*"\w+",\s*"([^"]*)""", text):
            assert literal.startswith("ROLLBRIDGE."), f"{path.name}: {literal!r}"
        for field, literal in re.findall(r"""\b(name|hint):\s*"([^"]*)""", text):
            assert literal.startswith("ROLLBRIDGE."), f"{path.name}: {field} {literal!r}"
