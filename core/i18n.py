"""Catalogues: every domain's messages in every language it ships.

A *domain* is one set of messages: ``rollbridge`` for the core (error messages,
the CLI, the terminal client, the protocol's human texts) and one per ruleset
plugin (its id). Each is a gettext domain whose catalogues live in a folder of
its own package, ``<package>/locale/<lang>/LC_MESSAGES/<domain>.po`` (the
translations, kept in the repository) and ``.mo`` (compiled, shipped in the
wheel): :class:`rollbridge.text.Messages` registers the folder when it is given
one (``Messages("sr2", catalogs=Path(__file__).with_name("locale"))``).

A message is looked up by its context (the message's key within its domain) and
its English template (the gettext ``msgid``): English is the reference, and a
message a catalogue lacks, or whose translation names other placeholders than
the English one, reads in English, never as its id.

The catalogues are made with Babel (extraction, CLDR plural rules in the
``Plural-Forms`` header, compilation: :mod:`rollbridge.cli.catalogs`); reading
them needs only the standard library's :mod:`gettext`, so a server or a CLI
call does not pay for importing Babel.

Locales are language codes (``cs``, ``de``, ``ru``, ``en``); :func:`negotiate`
maps what clients and environments say (``cs-CZ``, ``de_AT.UTF-8``, ``RU``) to
one of them.
"""

from __future__ import annotations

import gettext
import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path

__all__ = [
    "DECIMAL_SEPARATORS",
    "DEFAULT_LOCALE",
    "GROUP_SEPARATORS",
    "LOCALES",
    "PERCENT_SIGNS",
    "catalogs_of",
    "environment_locale",
    "forget",
    "known_locales",
    "language_of",
    "locales_of",
    "negotiate",
    "number",
    "percent",
    "percents",
    "register",
    "translation",
    "writes_numbers_otherwise",
]

log = logging.getLogger("rollbridge.i18n")

#: The reference language every message is declared in.
DEFAULT_LOCALE = "en"
#: The languages rollbridge itself speaks (its core catalogue and the built-in rulesets).
LOCALES: tuple[str, ...] = ("en", "cs", "de", "ru")
#: How each language separates a number's groups of digits (CLDR's symbol, as Babel
#: gives it): a count a message writes ``{limit:,}`` reads "1,000,000" in English,
#: "1.000.000" in German and "1 000 000" in Czech and Russian (no-break spaces), where
#: a comma would read as a decimal point. A language not listed keeps the comma.
GROUP_SEPARATORS: dict[str, str] = {"en": ",", "cs": "\u00a0", "de": ".", "ru": "\u00a0"}
#: How each language writes a decimal point (CLDR's symbol, as Babel gives it): 0.5
#: reads "0,5" in Czech, German and Russian. A language not listed keeps the point.
DECIMAL_SEPARATORS: dict[str, str] = {"en": ".", "cs": ",", "de": ",", "ru": ","}
#: What follows a percentage in each language (CLDR's percent pattern: "50%" in
#: English, "50 %" with a no-break space in Czech, German and Russian).
PERCENT_SIGNS: dict[str, str] = {"en": "%", "cs": "\u00a0%", "de": "\u00a0%", "ru": "\u00a0%"}
#: For each language that writes numbers otherwise than English: the point and the
#: comma of a number Python formatted, turned into that language's symbols at once.
_NUMBER_SYMBOLS: dict[str, dict[int, str]] = {
    language: str.maketrans({".": DECIMAL_SEPARATORS[language], ",": GROUP_SEPARATORS[language]})
    for language in GROUP_SEPARATORS
    if (DECIMAL_SEPARATORS[language], GROUP_SEPARATORS[language]) != (".", ",")
}

_folders: dict[str, Path] = {}
_translations: dict[tuple[str, str], gettext.NullTranslations] = {}
_known: set[str] | None = None
#: The catalogue of a locale none is shipped for: every lookup reads English.
_UNTRANSLATED = gettext.NullTranslations()


def language_of(locale: str) -> str:
    """The language of a locale code: ``de`` of ``de-AT`` or ``de_AT.UTF-8``."""
    return locale.split("-", 1)[0].split("_", 1)[0].split(".", 1)[0]


def number(value: float | int, spec: str = "", locale: str = DEFAULT_LOCALE) -> str:
    """``value`` written as ``format(value, spec)`` writes it, with the decimal point
    and the digit-group separators of ``locale``'s language: ``number(1234.5, ",.1f",
    "de")`` is "1.234,5", ``number(0.5, locale="cs")`` "0,5"."""
    written = format(value, spec)
    symbols = _NUMBER_SYMBOLS.get(language_of(locale))
    return written if symbols is None else written.translate(symbols)


def writes_numbers_otherwise(locale: str) -> bool:
    """Whether ``locale``'s language writes a decimal point or a digit-group
    separator otherwise than English does."""
    return language_of(locale) in _NUMBER_SYMBOLS


def percent(value: float, spec: str = ".1f", locale: str = DEFAULT_LOCALE) -> str:
    """A share (0.5 for half) as a percentage in ``locale``'s language, its number
    written with ``spec``: ``percent(0.138889, ".4f", "de")`` is "13,8889 %"."""
    return percents(locale)(value, spec)


def percents(locale: str = DEFAULT_LOCALE) -> Callable[[float, str], str]:
    """:func:`percent` of ``locale`` as a function of the value and the spec, the
    language looked up once: for a table of a million percentages."""
    language = language_of(locale)
    sign = PERCENT_SIGNS.get(language, "%")
    symbols = _NUMBER_SYMBOLS.get(language)
    if symbols is None:
        return lambda value, spec: format(value * 100, spec) + sign
    return lambda value, spec: format(value * 100, spec).translate(symbols) + sign


def register(domain: str, folder: Path) -> None:
    """Where ``domain``'s catalogues are: ``folder/<lang>/LC_MESSAGES/<domain>.mo``.

    Registering again with the same folder does nothing; another folder replaces
    the first (a plugin reloaded from elsewhere) and forgets what was loaded.
    """
    folder = Path(folder)
    if _folders.get(domain) == folder:
        return
    _folders[domain] = folder
    forget(domain)


def forget(domain: str) -> None:
    """Forget ``domain``'s catalogues as loaded and which locales are known: its
    ``.mo`` files were written anew (:func:`rollbridge.catalogs.compile_catalogues`),
    and a locale first compiled now is known from here on (:func:`translation`
    answers a locale no domain had a catalogue of with English, unlooked for)."""
    global _known
    for key in [k for k in _translations if k[0] == domain]:
        del _translations[key]
    _known = None


def catalogs_of(domain: str) -> Path | None:
    """The folder registered for ``domain``, if any."""
    return _folders.get(domain)


def translation(domain: str, locale: str) -> gettext.NullTranslations:
    """``domain``'s compiled catalogue for ``locale`` (loaded once); a catalogue
    that translates nothing when there is none, so every lookup reads English.

    A ``locale`` no registered domain has a catalogue of (:func:`known_locales`) is
    answered so without looking for a file or keeping anything: a locale is a name
    from outside at times (a table's settings in a log given to ``rollbridge
    verify``), and a name such as ``../x`` or one of a thousand digits must neither
    reach the file system nor grow the cache."""
    key = (domain, locale)
    found = _translations.get(key)
    if found is None:
        if locale not in known_locales():
            return _UNTRANSLATED
        found = _load(domain, locale)
        _translations[key] = found
    return found


def _load(domain: str, locale: str) -> gettext.NullTranslations:
    folder = _folders.get(domain)
    if folder is None or locale == DEFAULT_LOCALE:
        return gettext.NullTranslations()
    path = folder / locale / "LC_MESSAGES" / f"{domain}.mo"
    try:
        with path.open("rb") as file:
            return gettext.GNUTranslations(file)
    except FileNotFoundError:
        return gettext.NullTranslations()
    except (OSError, ValueError) as exc:  # a damaged file must not take the server down
        log.error("catalogue %s is unreadable (%s); its messages read in English", path, exc)
        return gettext.NullTranslations()


def holds(catalogue: gettext.NullTranslations, context: str, msgid: str) -> bool:
    """Whether ``catalogue`` has its own translation of ``msgid`` in ``context``
    (singular or plural): gettext's lookups return the English for a missing one,
    which cannot tell "missing" from "translated the same" (``?``, ``OK``)."""
    entries = getattr(catalogue, "_catalog", None)  # GNUTranslations' parsed .mo
    if not entries:
        return False
    key = f"{context}\x04{msgid}"
    return key in entries or (key, 0) in entries


def locales_of(domain: str) -> frozenset[str]:
    """The locales ``domain`` ships a compiled catalogue of, and English."""
    found = {DEFAULT_LOCALE}
    folder = _folders.get(domain)
    if folder is not None and folder.is_dir():
        found.update(
            entry.name
            for entry in folder.iterdir()
            if (entry / "LC_MESSAGES" / f"{domain}.mo").is_file()
        )
    return frozenset(found)


def known_locales() -> frozenset[str]:
    """Every locale some registered domain ships a compiled catalogue of, and English."""
    global _known
    if _known is None:
        _known = set().union(*(locales_of(domain) for domain in _folders), {DEFAULT_LOCALE})
    return frozenset(_known)


def negotiate(requested: str | None) -> str | None:
    """The known locale ``requested`` names, or None.

    Accepts language tags and POSIX locale names in any case: ``cs``, ``cs-CZ``,
    ``cs_CZ.UTF-8``, ``de_AT@euro``; a region falls back to its language
    (``de-AT`` is ``de``). ``C`` and ``POSIX`` name no language (None). Spaces
    around the name are ignored; a control character anywhere (``"\\ncs"``) makes
    it no language's name, so a hello, a table's settings or an export given one is
    answered as for any unknown name, not read as the language around it.
    """
    if not requested or requested.__class__ is not str or not requested.isprintable():
        return None  # isprintable: no control character (nor separator but the space)
    name = requested.split(".", 1)[0].split("@", 1)[0].replace("-", "_").strip(" ")
    if not name or name.upper() in ("C", "POSIX"):
        return None
    known = known_locales()
    language, _, region = name.partition("_")
    candidates = [f"{language.lower()}_{region.upper()}", language.lower()] if region else [
        language.lower()]  # fmt: skip
    for candidate in candidates:
        if candidate in known:
            return candidate
    return None


def environment_locale(environ: Mapping[str, str] | None = None) -> str | None:
    """The language the environment asks for, read as :mod:`gettext` reads it: the
    first of ``LANGUAGE`` (a colon-separated list), ``LC_ALL``, ``LC_MESSAGES`` and
    ``LANG`` that is set decides. None when it names no known locale (``C``, or a
    language rollbridge does not speak: English is used)."""
    environ = os.environ if environ is None else environ
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable)
        if value:
            for entry in value.split(":"):
                chosen = negotiate(entry)
                if chosen is not None:
                    return chosen
            return None
    return None
