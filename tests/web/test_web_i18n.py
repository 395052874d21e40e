"""The web view's own words (issue 17 follow-up): core/server/webui/lang/en.json,
cs.json, de.json and ru.json hold the same keys in the same order with the same
placeholders, every key the pages use is in them (the modules' keys, the HTML's
``data-i18n`` keys, and the keys of the shared client's modules the pages load),
and every key in them is used. Mirrors tests/foundry/test_foundry_i18n.py.

The browser test reads a Czech page's words (tests/web/test_web_browser.py); the
one here reads a ruleset's own words on a Czech and a German player's action form
(browser/words.mjs): the action's name, its parameters' names and help and its
enum's values as sr2 translates them."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rollbridge.plugins.sr2 import SR2Ruleset
from rollbridge.server.web_view import WEB_FILES
from tests import lang_files
from tests.web.test_web_browser import CHROMIUM, requirements, run_script

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
    """Every key the pages use: literals in the modules, data-i18n (a text) and
    data-i18n-label (an accessible name) in the pages."""
    keys: dict[str, list[str]] = {}
    for path in MODULES:
        for key in lang_files.KEY.findall(lang_files.script_text(path)):
            keys.setdefault(key, []).append(path.name)
    for path in PAGES:
        for key in re.findall(r'data-i18n(?:-label)?="([^"]+)"', path.read_text(encoding="utf-8")):
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


def test_the_first_loading_words_are_the_language_files():
    """loading.mjs says "loading…" before the files are fetched, from a map of its
    own: each language's words are the files' ROLLBRIDGE.Web.Connection.Loading."""
    text = (WEBUI / "loading.mjs").read_text(encoding="utf-8")
    (body,) = re.findall(r"const LOADING = \{([^}]*)\};", text)
    words = dict(re.findall(r'(\w+): "([^"]*)"', body))
    assert words == {lang: catalog(lang)["ROLLBRIDGE.Web.Connection.Loading"] for lang in LANGUAGES}
    assert 'data-i18n="ROLLBRIDGE.Web.Connection.Loading"' in (WEBUI / "table.html").read_text(
        encoding="utf-8"
    )
    for name, key in (("LANGUAGE", "Page.Language"), ("TITLE", "Page.Title")):  # first paint
        (body,) = re.findall(rf"const {name} = \{{([^}}]*)\}};", text)
        words = dict(re.findall(r'(\w+): "([^"]*)"', body))
        assert words == {lang: catalog(lang)[f"ROLLBRIDGE.Web.{key}"] for lang in LANGUAGES}
    (body,) = re.findall(r"const FAILED = \{([^}]*)\};", text)  # a file that did not load
    words = dict(re.findall(r'(\w+): "([^"]*)"', body))
    assert words == {
        lang: catalog(lang)["ROLLBRIDGE.Web.Connection.LoadFailed"] for lang in LANGUAGES
    }


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


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")
async def test_a_players_action_form_reads_in_the_players_language(web_world):
    """A Czech and a German player choose sr2's attack: the action list, the
    form's summary and button, every field's name and help and the range's
    choices are sr2's own words in their language (the welcome's ``label``,
    ``labels``, ``hints``, ``choices``), not the parameter keys and the schema's
    English descriptions."""
    missing = requirements()
    if missing:
        pytest.fail("the web view's browser tests need: " + "; ".join(missing))
    env = {
        "RB_BASE": web_world.base,
        "RB_TOKENS": json.dumps(web_world.tokens),
        "RB_CHROMIUM": CHROMIUM,
        "RB_LOCALES": "cs-CZ,de-DE",
        "RB_ACTION": "attack",
    }
    secrets = [token for table in web_world.tokens.values() for token in table.values()]
    result = await run_script("words.mjs", env, secrets)
    assert result["trouble"] == {"errors": [], "dialogs": []}
    cs, de = result["pages"]["cs-CZ"], result["pages"]["de-DE"]
    assert (cs["lang"], de["lang"]) == ("cs", "de")

    # the action list and the button name the action; the summary is translated
    assert {"attack": "Útok", "success_test": "Hod na úspěch"}.items() <= dict(
        cs["actions"]
    ).items()
    assert {"attack": "Angriff", "success_test": "Erfolgsprobe"}.items() <= dict(
        de["actions"]
    ).items()
    assert cs["button"] == "Útok" and de["button"] == "Angriff"
    assert cs["summary"].startswith("SR-6 až SR-11: hod na útok")
    assert de["summary"].startswith("SR-6 bis SR-11: Angriffsprobe")

    # the fields: their names and help, and an enum's values, in the reader's words
    assert cs["fields"]["range"]["label"] == "Vzdálenost"
    assert cs["fields"]["range"]["hint"] == "Jak daleko je cíl: určuje základní CČ (SR-8)."
    assert cs["fields"]["range"]["options"][1:] == [
        ["short", "Krátká (CČ 4)"], ["medium", "Střední (CČ 5)"],
        ["long", "Dlouhá (CČ 6)"], ["extreme", "Extrémní (CČ 9)"],
    ]  # fmt: skip
    assert cs["fields"]["weapon"]["label"] == "Zbraň"
    # the weapon is chosen from Tukan's sheet (choicesFrom), "(default)" in Czech
    assert cs["fields"]["weapon"]["options"] == [
        ["", "(výchozí)"], ["Hackler", "Hackler"], ["Stun baton", "Stun baton"],
    ]  # fmt: skip
    assert cs["fields"]["armor_type"]["options"][1:] == [
        ["ballistic", "Balistický"], ["impact", "Nárazový"],
    ]  # fmt: skip
    assert de["fields"]["range"]["label"] == "Reichweite"
    assert de["fields"]["range"]["hint"] == (
        "Wie weit das Ziel entfernt ist: bestimmt den Basis-MW (SR-8)."
    )
    assert de["fields"]["range"]["options"][1:] == [
        ["short", "Kurz (MW 4)"], ["medium", "Mittel (MW 5)"],
        ["long", "Weit (MW 6)"], ["extreme", "Extrem (MW 9)"],
    ]  # fmt: skip
    assert de["fields"]["damage_type"]["options"][1:] == [
        ["physical", "Körperlich"], ["stun", "Geistig"],
    ]  # fmt: skip

    # every field of the form, as sr2 describes the action in that language, none
    # of them the parameter's key or the schema's English description
    ruleset = SR2Ruleset()
    schema = ruleset.actions["attack"].params["properties"]
    for page, locale in ((cs, "cs"), (de, "de")):
        spec = ruleset.describe(locale)["actions"]["attack"]
        assert set(page["fields"]) == set(schema)
        for name, field in page["fields"].items():
            assert field["label"] == spec["labels"][name] != name, (locale, name)
            assert field["hint"] == spec["hints"][name], (locale, name)
            assert field["hint"] != schema[name].get("description"), (locale, name)
            if field["options"] is not None and "choicesFrom" not in schema[name]:
                assert dict(field["options"][1:]) == spec["choices"][name], (locale, name)
