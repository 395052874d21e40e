"""Issue 14: catalogues behind the text renderer (rollbridge.i18n, rollbridge.catalogs).

A throwaway domain is built with the real toolchain (Babel extraction from a source
file, .po files, compilation) in a temporary folder, then rendered through
:mod:`rollbridge.text` as a ruleset's texts are.
"""

from __future__ import annotations

import itertools
import logging
from pathlib import Path

import pytest
from babel.messages import pofile

from rollbridge import catalogs, i18n
from rollbridge.exceptions import InvalidRequest, RuleViolation
from rollbridge.text import Messages, Private, render, untranslated

_domains = itertools.count()

SOURCE = """
from rollbridge.text import Messages

say = Messages("{domain}")
# Translators: a greeting at the table.
HELLO = say("hello", "Hello, {{name}}!")
WOUNDS = say.plural("wounds", "{{count}} wound", "{{count}} wounds")
LEFT_OUT = say("left_out", "Nobody translates me")
"""

TRANSLATIONS = {
    "cs": {
        "hello": "Ahoj, {name}!",
        "wounds": ("{count} rána", "{count} rány", "{count} ran"),
    },
    "ru": {
        "hello": "Привет, {name}!",
        "wounds": ("{count} рана", "{count} раны", "{count} ран"),
    },
    "de": {
        "hello": "Hallo, {name}!",
        "wounds": ("{count} Wunde", "{count} Wunden"),
    },
}


def fill(po: Path, locale: str, strings: dict) -> None:
    """Write translations into a .po file as a translator would."""
    with po.open("rb") as file:
        catalogue = pofile.read_po(file, locale=locale)
    for message in catalogue:
        if message.context in strings:
            message.string = strings[message.context]
    with po.open("wb") as file:
        pofile.write_po(file, catalogue, include_lineno=False)


@pytest.fixture
def domain(tmp_path: Path):
    """A domain with its source, .pot, cs/ru/de .po filled in and .mo compiled."""
    name = f"i18ntest{next(_domains)}"
    source = tmp_path / name
    source.mkdir()
    (source / "messages.py").write_text(SOURCE.format(domain=name), encoding="utf-8")
    catalogs.update(source, name, ["cs", "ru", "de"])
    for locale, strings in TRANSLATIONS.items():
        fill(source / "locale" / locale / "LC_MESSAGES" / f"{name}.po", locale, strings)
    catalogs.compile_catalogues(source, name)
    say = Messages(name, catalogs=source / "locale")
    messages = {
        "hello": say("hello", "Hello, {name}!"),
        "wounds": say.plural("wounds", "{count} wound", "{count} wounds"),
        "left_out": say("left_out", "Nobody translates me"),
    }
    yield name, source, messages
    # forget its catalogues: a language only it ships (a test's "pl") would stay among
    # the known ones and be chosen by later tests' LANGUAGE lists
    i18n.register(name, source / "forgotten")


class TestNegotiate:
    @pytest.mark.parametrize(
        ("asked", "chosen"),
        [
            ("cs", "cs"),
            ("cs-CZ", "cs"),
            ("cs_CZ.UTF-8", "cs"),
            ("DE", "de"),
            ("de-AT", "de"),
            ("de_DE@euro", "de"),
            ("ru_RU.KOI8-R", "ru"),
            ("en-GB", "en"),
            ("pl", None),
            ("C", None),
            ("POSIX", None),
            ("", None),
            (None, None),
            ("x" * 40, None),
            (" cs ", "cs"),
            ("\ncs", None),  # a control character anywhere: no language's name
            ("cs\t", None),
            ("de\r\n", None),
            ("\x85ru", None),
            ("de_DE\r.UTF-8", None),
            ("cs.UTF-8\n", None),
        ],
    )
    def test_language_tags_and_posix_names(self, asked, chosen):
        assert i18n.negotiate(asked) == chosen

    def test_a_non_string_names_no_locale(self):
        assert i18n.negotiate(7) is None  # type: ignore[arg-type]

    def test_the_built_in_languages_are_known(self):
        assert set(i18n.LOCALES) <= i18n.known_locales()


class TestEnvironment:
    @pytest.mark.parametrize(
        ("environ", "chosen"),
        [
            ({"LANG": "de_DE.UTF-8"}, "de"),
            ({"LANG": "de_DE.UTF-8", "LC_ALL": "cs_CZ.UTF-8"}, "cs"),
            ({"LANG": "de_DE.UTF-8", "LC_MESSAGES": "ru_RU.UTF-8"}, "ru"),
            ({"LANGUAGE": "pl:ru:de", "LANG": "cs_CZ.UTF-8"}, "ru"),
            ({"LANG": "C.UTF-8"}, None),
            ({"LC_ALL": "C", "LANG": "de_DE.UTF-8"}, None),
            ({"LANG": "pl_PL.UTF-8"}, None),
            ({}, None),
        ],
    )
    def test_read_as_gettext_reads_it(self, environ, chosen):
        assert i18n.environment_locale(environ) == chosen


class TestCatalogues:
    def test_a_translated_message_renders_in_each_locale(self, domain):
        _name, _source, messages = domain
        text = messages["hello"](name="Tukan")
        assert render(text, locale="cs") == "Ahoj, Tukan!"
        assert render(text, locale="ru") == "Привет, Tukan!"
        assert render(text, locale="de") == "Hallo, Tukan!"
        assert render(text, locale="en") == "Hello, Tukan!"
        assert str(text) == "Hello, Tukan!"

    @pytest.mark.parametrize(
        ("count", "cs", "ru"),
        [
            (0, "0 ran", "0 ран"),
            (1, "1 rána", "1 рана"),
            (2, "2 rány", "2 раны"),
            (4, "4 rány", "4 раны"),
            (5, "5 ran", "5 ран"),
            (11, "11 ran", "11 ран"),
            (21, "21 ran", "21 рана"),
            (22, "22 ran", "22 раны"),
            (25, "25 ran", "25 ран"),
        ],
    )
    def test_plural_forms_follow_the_cldr_rules(self, domain, count, cs, ru):
        _name, _source, messages = domain
        text = messages["wounds"](count=count)
        assert render(text, locale="cs") == cs
        assert render(text, locale="ru") == ru
        assert render(text, locale="de") == f"{count} {'Wunde' if count == 1 else 'Wunden'}"
        assert render(text, locale="en") == f"{count} {'wound' if count == 1 else 'wounds'}"

    def test_a_hidden_count_reads_as_the_general_plural(self, domain):
        _name, _source, messages = domain
        text = messages["wounds"](count=Private(1, of="npc"))
        # "(hidden)" is the core catalogue's word, here in Czech
        assert render(text, locale="cs", hides=lambda actor, aspect: True) == "(skryto) ran"
        assert render(text, locale="cs") == "1 rána"

    def test_a_missing_translation_falls_back_to_english_and_is_recorded(self, domain):
        name, _source, messages = domain
        assert render(messages["left_out"](), locale="cs") == "Nobody translates me"
        assert (f"{name}.left_out", "cs") in untranslated()
        render(messages["hello"](name="x"), locale="cs")
        assert (f"{name}.hello", "cs") not in untranslated()

    def test_a_plural_left_empty_reads_english_and_is_recorded(self, domain):
        """A compiled catalogue keeps a plural whose forms were left empty (the .po's
        ``msgstr[0] ""``): it is as missing as an absent message, and recorded so."""
        name, source, _messages = domain
        po = source / "locale" / "cs" / "LC_MESSAGES" / f"{name}.po"
        fill(po, "cs", {"wounds": ("", "", "")})
        catalogs.compile_catalogues(source, name)
        i18n.register(name, source / "other")  # forget what was loaded ...
        say = Messages(name, catalogs=source / "locale")  # ... and load it again
        wounds = say.plural("wounds", "{count} wound", "{count} wounds")
        assert render(wounds(count=3), locale="cs") == "3 wounds"
        assert (f"{name}.wounds", "cs") in untranslated()

    def test_a_locale_without_a_catalogue_reads_english(self, domain):
        _name, _source, messages = domain
        assert render(messages["hello"](name="Tukan"), locale="pl") == "Hello, Tukan!"

    def test_a_translation_naming_another_placeholder_reads_english(self, domain, caplog):
        name, source, _messages = domain
        po = source / "locale" / "de" / "LC_MESSAGES" / f"{name}.po"
        fill(po, "de", {"hello": "Hallo, {nom}!"})
        catalogs.compile_catalogues(source, name)
        i18n.register(name, source / "other")  # forget what was loaded ...
        say = Messages(name, catalogs=source / "locale")  # ... and load it again
        hello = say("hello", "Hello, {name}!")
        with caplog.at_level(logging.WARNING, logger="rollbridge.text"):
            assert render(hello(name="Tukan"), locale="de") == "Hello, Tukan!"
        assert "does not fit" in caplog.text
        problems = catalogs.check(source, name, ["de"], complete=False)
        assert any("names ['nom']" in str(p) for p in problems), problems

    def test_a_damaged_catalogue_reads_english(self, domain, caplog):
        name, source, _messages = domain
        (source / "locale" / "cs" / "LC_MESSAGES" / f"{name}.mo").write_bytes(b"not a catalogue")
        i18n.register(name, source / "other")
        say = Messages(name, catalogs=source / "locale")
        with caplog.at_level(logging.ERROR, logger="rollbridge.i18n"):
            text = say("hello", "Hello, {name}!")(name="Tukan")
            assert render(text, locale="cs") == "Hello, Tukan!"
        assert "unreadable" in caplog.text

    def test_errors_carry_texts_and_render_per_locale(self, domain):
        _name, _source, messages = domain
        error = RuleViolation(messages["hello"](name="Tukan"), code="greeted")
        assert error.message == str(error) == "Hello, Tukan!"
        assert error.render("cs") == "Ahoj, Tukan!"
        assert error.to_dict("ru") == {"code": "greeted", "message": "Привет, Tukan!"}
        plain = InvalidRequest("only English")
        assert plain.text is None and plain.render("cs") == "only English"


class TestToolchain:
    def test_extraction_reads_contexts_templates_plurals_and_comments(self, domain):
        name, source, _messages = domain
        template = catalogs.extract(source, name)
        found = {m.context: m for m in template if m.id}
        assert found["hello"].id == "Hello, {name}!"
        assert found["hello"].auto_comments == ["a greeting at the table."]
        assert found["wounds"].id == ("{count} wound", "{count} wounds")
        assert (source / "locale" / f"{name}.pot").is_file()

    def test_the_po_headers_carry_the_cldr_plural_rules(self, domain):
        name, source, _messages = domain
        for locale, forms in (("cs", 3), ("ru", 3), ("de", 2)):
            with (source / "locale" / locale / "LC_MESSAGES" / f"{name}.po").open("rb") as file:
                assert pofile.read_po(file).num_plurals == forms

    def test_check_lists_what_is_missing_and_what_is_stale(self, domain):
        name, source, _messages = domain
        problems = [str(p) for p in catalogs.check(source, name, ["cs", "ru", "de"])]
        assert problems == [
            "cs left_out: not translated",
            "ru left_out: not translated",
            "de left_out: not translated",
        ]
        assert catalogs.check(source, name, ["cs"], complete=False) == []
        mo = source / "locale" / "cs" / "LC_MESSAGES" / f"{name}.mo"
        mo.write_bytes(mo.read_bytes() + b"x")
        assert any("is not the compiled" in str(p) for p in catalogs.check(source, name, ["cs"]))

    def test_a_changed_english_template_makes_the_translation_fuzzy(self, domain):
        name, source, _messages = domain
        path = source / "messages.py"
        path.write_text(path.read_text().replace("Hello, {{name}}!", "Hi, {{name}}!")
                        .replace("Hello, {name}!", "Hi, {name}!"))  # fmt: skip
        catalogs.update(source, name, ["cs"])
        problems = [str(p) for p in catalogs.check(source, name, ["cs"])]
        assert "cs hello: fuzzy" in problems
        assert "cs hello: the sources no longer declare it" not in problems

    def test_a_new_language_starts_empty_and_is_reported(self, domain):
        name, source, _messages = domain
        catalogs.update(source, name, ["pl"])
        problems = [str(p) for p in catalogs.check(source, name, ["pl"])]
        assert "pl hello: not translated" in problems
        assert "pl wounds: not translated" in problems


def test_a_right_to_left_argument_is_isolated_from_the_line_around_it():
    """A name or label holding right-to-left text (Hebrew, Arabic, an RLM) is rendered
    between FSI and PDI: "Dodge" + RLM before "3 + 1d100" showed "Dodge1 + 3d100".
    Other text reads exactly as given."""
    say = Messages("i18n_tests")
    line = say("rtl_line", "{who} rolls {label}: 3 + 1d100")
    assert (
        render(line(who="Ana", label="Dodge\u200f"))
        == "Ana rolls \u2068Dodge\u200f\u2069: 3 + 1d100"
    )
    assert render(line(who="\u05e9\u05dc\u05d5\u05dd", label="x")).startswith("\u2068\u05e9")
    assert render(line(who="Пятница", label="Pátek")) == "Пятница rolls Pátek: 3 + 1d100"


def test_each_language_groups_digits_as_cldr_says():
    """The separators rollbridge writes are Babel's (CLDR's) for every language it
    speaks: a comma in Czech, German or Russian reads as a decimal point."""
    from babel.numbers import get_group_symbol

    assert set(i18n.GROUP_SEPARATORS) == set(i18n.LOCALES)
    for locale, separator in i18n.GROUP_SEPARATORS.items():
        assert separator == get_group_symbol(locale), locale


@pytest.mark.parametrize(
    ("locale", "limit"),
    [("en", "1,000,000"), ("de", "1.000.000"), ("cs", "1\u00a0000\u00a0000"),
     ("ru", "1\u00a0000\u00a0000")],
)  # fmt: skip
def test_a_grouped_count_reads_in_the_language_of_its_reader(locale, limit):
    from rollbridge.dice.notation import FACES_LIMIT

    text = render(FACES_LIMIT(faces=1_000_001, limit=1_000_000), locale=locale)
    assert limit in text, text
    assert "1000001" in text  # a count written without a spec stays as it is


def test_only_a_grouping_spec_changes_with_the_language():
    say = Messages("i18n_tests")
    line = say("grouping_specs", "{gain:+d} of {most:,} ({plain}, {signed:+,})")
    shown = line(gain=5, most=12000, plain=12000, signed=-12000)
    assert render(shown, locale="en") == "+5 of 12,000 (12000, -12,000)"
    # untranslated here: the English template, with the German separator
    assert render(shown, locale="de") == "+5 of 12.000 (12000, -12.000)"


@pytest.mark.parametrize("locale", ["../../../../tmp/x", "1" * 400, "xx", "cs/../de", ""])
def test_a_locale_no_catalogue_has_reads_no_file_and_keeps_nothing(locale, monkeypatch, caplog):
    """A locale is a name from outside at times (a table's settings in a log given to
    ``rollbridge verify``: its fuzzer found a locale of 400 digits that made the
    catalogue loader log "File name too long"): one no registered domain ships a
    catalogue of is English, no file looked for, nothing cached for it."""
    from rollbridge import text
    from rollbridge.engine.requests import BAD_ID

    assert BAD_ID().render("cs") != BAD_ID().render("en")  # the core's catalogues are there
    opened: list[Path] = []
    real_open = Path.open

    def watched(self: Path, *args, **kwargs):
        opened.append(self)
        return real_open(self, *args, **kwargs)

    monkeypatch.setattr(Path, "open", watched)
    cached = (len(i18n._translations), len(text._templates))
    caplog.set_level(logging.DEBUG, logger="rollbridge")
    assert BAD_ID().render(locale) == BAD_ID().render("en")
    assert i18n.translation("rollbridge", locale).gettext("x") == "x"
    assert opened == [] and not caplog.records, (opened, caplog.records)
    assert (len(i18n._translations), len(text._templates)) == cached
    noted = {(id_, seen) for id_, seen in text.untranslated() if seen == locale}
    assert noted == ({(BAD_ID.id, locale)} if locale == "xx" else set())  # a language's name


@pytest.fixture
def registry(monkeypatch):
    """The catalogues' registry as it was, after the test: a test's domains gone."""
    for name in ("_folders", "_translations"):
        monkeypatch.setattr(i18n, name, dict(getattr(i18n, name)))
    monkeypatch.setattr(i18n, "_known", None)


def _plugin(tmp_path: Path, domain: str) -> Path:
    """A plugin's package declaring ``<domain>.said``, "{name} acts"."""
    package = tmp_path / domain
    package.mkdir()
    (package / "messages.py").write_text(
        f'say = Messages("{domain}")\nSAID = say("said", "{{name}} acts")\n'
    )
    return package


def _translate_and_compile(package: Path, domain: str, locale: str, translated: str) -> None:
    """``said`` translated in ``locale``'s .po (made if need be), compiled in this process."""
    if not (package / "locale" / locale).is_dir():
        catalogs.update(package, domain, [locale])
    po = package / "locale" / locale / "LC_MESSAGES" / f"{domain}.po"
    with po.open("rb") as file:
        catalogue = pofile.read_po(file, locale=locale)
    catalogue.get("{name} acts", context="said").string = translated
    with po.open("wb") as file:
        pofile.write_po(file, catalogue)
    catalogs.compile_catalogues(package, domain)


def test_a_locale_compiled_after_the_known_ones_were_counted_is_read(tmp_path, registry):
    """A locale none of the registered domains had a catalogue of reads English
    unlooked for; a plugin's catalogue of such a locale compiled in this process
    (``catalogs.update``, as a plugin's tests make theirs) is read from then on, and
    the locale is known to :func:`~rollbridge.i18n.negotiate`: the known locales,
    counted before, were not counted again, so Polish read English for good."""
    package = _plugin(tmp_path, "authorlate")
    said = Messages("authorlate", catalogs=package / "locale")("said", "{name} acts")
    assert said(name="Ana").render("pl") == "Ana acts"  # no Polish catalogue yet
    assert i18n.negotiate("pl_PL") is None
    _translate_and_compile(package, "authorlate", "pl", "{name} działa")
    assert said(name="Ana").render("pl") == "Ana działa"
    assert i18n.negotiate("pl_PL") == "pl"


def test_a_catalogue_given_after_a_text_of_its_domain_was_rendered_is_read(tmp_path, registry):
    """A domain's texts rendered before its catalogues are given (a ``Messages``
    naming the folder after another declared the messages and one was shown) read
    the catalogues from then on, as i18n.register says it forgets what was loaded:
    the template taken for (message, locale) was kept, English for good. So does a
    catalogue compiled again in this process."""
    package = _plugin(tmp_path, "authorafter")
    _translate_and_compile(package, "authorafter", "de", "{name} handelt")
    said = Messages("authorafter")("said", "{name} acts")
    assert said(name="Ana").render("de") == "Ana acts"  # no catalogue given yet
    Messages("authorafter", catalogs=package / "locale")
    assert said(name="Ana").render("de") == "Ana handelt"
    _translate_and_compile(package, "authorafter", "de", "{name} tut es")
    assert said(name="Ana").render("de") == "Ana tut es"


def test_a_text_rendered_before_its_catalogue_was_given_reads_it_after(tmp_path, registry):
    """A text keeps its renderings (rulesets reuse their texts): one rendered before
    its domain's catalogue was given, or compiled again, kept reading what it had read
    (English), though its domain's catalogues were forgotten (``text.forget``). It
    reads the catalogue from then on, nested in another text too; a rendering kept
    from before is made anew once, then kept again."""
    from rollbridge import text

    package = _plugin(tmp_path, "authorkept")
    _translate_and_compile(package, "authorkept", "de", "{name} handelt")
    say = Messages("authorkept")
    said = say("said", "{name} acts")
    outer = say("outer", "[{inner}]")
    kept = said(name="Ana")
    around = outer(inner=kept)
    assert (kept.render("de"), around.render("de")) == ("Ana acts", "[Ana acts]")
    Messages("authorkept", catalogs=package / "locale")  # forgets what was read of it
    assert kept.render("de") == "Ana handelt"
    assert outer(inner=kept).render("de") == "[Ana handelt]"
    _translate_and_compile(package, "authorkept", "de", "{name} tut es")  # forgets again
    assert render(outer(inner=kept), locale="de") == "[Ana tut es]"
    assert kept.render("de") == "Ana tut es" and kept.render("en") == "Ana acts"
    assert kept.render("de") == "Ana tut es"  # kept again, and read so
    assert kept._rendered[("de", text._generation)] == "Ana tut es"


def test_untranslated_keeps_a_bounded_number_of_locales_without_a_catalogue(monkeypatch):
    """Each locale written as a language's name that no catalogue is shipped for is
    noted among ``untranslated()`` (a catalogue's tests name "fr" so): a log given to
    ``rollbridge verify`` with thousands of tables' locales grew it without end. It
    keeps the :data:`~rollbridge.text.MAX_UNCATALOGUED` pairs rendered last, a pair
    rendered again counted as new; the pairs of locales a catalogue is shipped for
    (as many as the messages and catalogues) are all kept."""
    from rollbridge import text
    from rollbridge.engine.requests import BAD_ID

    monkeypatch.setattr(text, "_uncatalogued", {}, raising=False)  # (none kept before)
    most = 1024  # text.MAX_UNCATALOGUED
    names = [f"q{a}{b}{c}" for a in "abcdefghijkl" for b in "abcdefghijklmnopq"
             for c in "abcdefghijklmnopq"]  # fmt: skip
    assert len(names) == len(set(names)) > 3 * most
    before = untranslated()
    for name in names:
        assert BAD_ID().render(name) == BAD_ID().render("en")
    noted = untranslated() - before
    assert noted == {(BAD_ID.id, name) for name in names[-most:]}
    assert most == text.MAX_UNCATALOGUED
    BAD_ID().render(names[-most])  # the oldest kept, rendered again: now the newest
    BAD_ID().render("qzzz")
    noted = untranslated() - before
    assert len(noted) == len(text._uncatalogued) == most
    assert {(BAD_ID.id, names[-most]), (BAD_ID.id, "qzzz")} <= noted
    assert (BAD_ID.id, names[-most + 1]) not in noted  # the oldest then
