"""The web view's own words (issue 17 follow-up): core/server/webui/lang/en.json,
cs.json, de.json and ru.json hold the same keys in the same order with the same
placeholders, every key the pages use is in them (the modules' keys, the HTML's
``data-i18n`` keys, and the keys of the shared client's modules the pages load),
and every key in them is used. Mirrors tests/foundry/test_foundry_i18n.py.

The browser test reads a Czech page's words (tests/web/test_web_browser.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rollbridge.server.web_view import WEB_FILES
from tests import lang_files

ROOT = Path(__file__).resolve().parents[2]
WEBUI = ROOT / "core" / "server" / "webui"
LANGUAGES = ("en", "cs", "de", "ru")
#: The shared client's modules whose texts reach the page (url.mjs's settings
#: checks are the Foundry module's: the page only uses its redact).
CLIENT = [ROOT / "adapters" / "client" / n for n in ("connection.mjs", "protocol.mjs", "i18n.mjs")]
MODULES = sorted(WEBUI.glob("*.mjs")) + CLIENT
PAGES = sorted(WEBUI.glob("*.html"))
PLURAL_FORMS = ("one", "few", "many", "other")


def catalog(lang: str) -> dict[str, object]:
    return lang_files.read_catalog(WEBUI / "lang" / f"{lang}.json")


def used_keys() -> dict[str, list[str]]:
    """Every key the pages use: literals in the modules, data-i18n in the pages."""
    keys: dict[str, list[str]] = {}
    for path in MODULES:
        for key in lang_files.KEY.findall(lang_files.script_text(path)):
            keys.setdefault(key, []).append(path.name)
    for path in PAGES:
        for key in re.findall(r'data-i18n="([^"]+)"', path.read_text(encoding="utf-8")):
            keys.setdefault(key, []).append(path.name)
    return keys


def leaves(key: str, english: dict[str, object]) -> list[str]:
    """The texts a used key stands for: itself, or a counted text's plural forms."""
    if key in english:
        return [key]
    forms = [f"{key}.{form}" for form in PLURAL_FORMS]
    return forms if all(form in english for form in forms) else [key]


def test_the_languages_are_served_files():
    assert {f"lang/{lang}.json" for lang in LANGUAGES} <= set(WEB_FILES)
    texts = (WEBUI / "texts.mjs").read_text(encoding="utf-8")
    assert 'LANGUAGES = ["en", "cs", "de", "ru"]' in texts


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_language_file_has_the_keys_and_placeholders_of_en_json(lang):
    """Nested UTF-8 JSON of non-blank texts; a translation with en.json's keys in
    its order and each text's placeholders."""
    lang_files.check_language_file(WEBUI / "lang" / f"{lang}.json")
    if lang != "en":
        lang_files.check_translation(catalog("en"), catalog(lang), lang)


@pytest.mark.parametrize("lang", ["cs", "de", "ru"])
def test_a_translation_is_translated(lang):
    english, other = catalog("en"), catalog(lang)
    # texts of placeholders and signs only may stay as they are
    bare_en = {k: lang_files.PLACEHOLDER.sub("", str(v)) for k, v in english.items()}
    worded = {k for k, v in bare_en.items() if re.search(r"[A-Za-z]", v)}
    same = {k for k in worded if other[k] == english[k]}
    assert same <= {"ROLLBRIDGE.Web.Stats.Span"}, f"{lang}: untranslated {sorted(same)}"
    if lang == "ru":
        cyrillic = re.compile("[а-яё]", re.I)
        bare = {k: lang_files.PLACEHOLDER.sub("", str(v)) for k, v in other.items()}
        words = [k for k, v in bare.items() if re.search(r"[A-Za-z]{3}", v)]
        latin_only = [k for k in words if not cyrillic.search(bare[k])]
        # seq: the protocol's own word
        latin_only = [k for k in latin_only if k != "ROLLBRIDGE.Web.Stats.Span"]
        assert latin_only == [], latin_only


def test_every_key_the_pages_use_is_in_the_language_files():
    english = catalog("en")
    used = used_keys()
    assert len(used) >= 80, sorted(used)
    missing = {key: files for key, files in used.items() if leaves(key, english)[0] not in english}
    assert missing == {}, "keys the pages use that en.json lacks"


def test_every_key_in_the_language_files_is_used():
    used = {leaf for key in used_keys() for leaf in leaves(key, catalog("en"))}
    assert sorted(set(catalog("en")) - used) == [], "keys no page uses"


def test_keys_are_written_out_in_full():
    lang_files.check_written_out(MODULES)


def test_no_english_left_in_the_pages_markup():
    """Every word of the static markup has a key: an element with text of its own
    carries data-i18n (the brand name and signs aside)."""
    for path in PAGES:
        html = path.read_text(encoding="utf-8")
        body = re.sub(r"<(script|style)\b.*?</\1>", "", html, flags=re.S)
        for tag, attributes, text in re.findall(r"<(\w+)([^>]*)>([^<]+)<", body):
            if re.search(r"[A-Za-z]{2}", text) and text.strip() != "rollbridge":
                assert "data-i18n=" in attributes, f"{path.name}: <{tag}> {text.strip()!r}"


def test_no_english_sentence_left_in_the_modules():
    """The view's modules put no English word on the page: what they hand to el(),
    say(), button(), field() or a text node is a key's text, a name or a code."""
    literal = r"""["'`]([^"'`]*[A-Za-z]{2}[^"'`]*)["'`]"""
    sinks = [
        re.compile(r"""\b(?:el|html)\(\s*"\w+",\s*"[^"]*",\s*""" + literal),  # el(tag, class, TEXT)
        re.compile(r"""\bsvg\(\s*"\w+",\s*\{[^{}]*\},\s*""" + literal),  # svg(tag, {…}, TEXT)
        re.compile(r"""\b(?:say|button|field|createTextNode)\(\s*""" + literal),  # TEXT first
        re.compile(r"""\.(?:textContent|title|placeholder)\s*=\s*""" + literal),
    ]
    for path in sorted(WEBUI.glob("*.mjs")):
        text = lang_files.script_text(path)
        found = [w for sink in sinks for w in sink.findall(text) if not w.startswith("ROLLBRIDGE.")]
        # a name filled in (${…}), dice notation (2d6+1, 4d6kh3), the brand: no words
        bare = [re.sub(r"\$\{[^}]*\}?|rollbridge", "", w) for w in found]
        words = [w for w, b in zip(found, bare, strict=True) if re.search(r"[A-Za-z]{3}", b)]
        assert words == [], f"{path.name}: {words}"
