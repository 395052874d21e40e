"""The catalogue toolchain: extract a domain's messages, update its translations,
compile them, and check them. Built on Babel (a development dependency: the
server reads compiled catalogues with the standard library, :mod:`rollbridge.i18n`).

A domain's sources are package folders (``core`` and ``adapters`` for
``rollbridge``, ``plugins/sr2`` for ``sr2``); its catalogues sit in the first
folder's ``locale``::

    locale/<domain>.pot                      the messages, as extracted (the template)
    locale/<lang>/LC_MESSAGES/<domain>.po    a language's translations (edited by hand)
    locale/<lang>/LC_MESSAGES/<domain>.mo    the same, compiled (shipped in the wheel)

Messages are found where the sources declare them (:class:`rollbridge.text.Messages`
named ``say``): ``say(key, template)`` gives the gettext context ``key`` and the
``msgid`` ``template``; ``say.plural(key, one, other)`` a plural message. A comment
starting ``Translators:`` just above a declaration goes into the catalogues.

``rollbridge catalogs update|check`` (:mod:`rollbridge.cli.catalogs`) runs these.
"""

from __future__ import annotations

import ast
import datetime
import io
import string
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rollbridge.exceptions import InvalidRequest
from rollbridge.text import Messages

__all__ = [
    "KEYWORDS",
    "Problem",
    "check",
    "compile_catalogues",
    "declared_domains",
    "extract",
    "placeholders",
    "update",
]

#: The calls extraction reads: ``say(key, template)`` and ``say.plural(key, one, other)``
#: (Babel's keyword specs: argument 1 is the context, then the msgid and its plural).
KEYWORDS: dict[str, Any] = {"say": ((1, "c"), 2), "plural": ((1, "c"), 2, 3)}
COMMENT_TAGS = ("Translators:",)
#: A fixed creation date: extracting again changes the template only where messages do.
_CREATED = datetime.datetime(2026, 1, 1, tzinfo=datetime.UTC)
_formatter = string.Formatter()

say = Messages("rollbridge")
# Translators: {domain} is the --domain given, {declared} the domains the package's
# sources name in Messages("…"), {where} the file of the first.
OTHER_DOMAIN = say(
    "catalogs.other_domain",
    "the sources declare no messages of the domain {domain}: they declare {declared} "
    "({where}); give --domain with the domain your Messages(...) names",
)


def _babel() -> Any:
    try:
        from babel.messages import catalog, extract, mofile, pofile
    except ImportError:
        raise InvalidRequest(
            "the catalogue tools need Babel: pip install 'rollbridge[test]' (or pip install babel)"
        ) from None
    return catalog, extract, mofile, pofile


def locale_folder(source: Path) -> Path:
    """Where a domain's catalogues are: ``source/locale``."""
    return Path(source) / "locale"


def _po_path(source: Path, domain: str, locale: str) -> Path:
    return locale_folder(source) / locale / "LC_MESSAGES" / f"{domain}.po"


Sources = Path | Sequence[Path]


def _folders(sources: Sources) -> list[Path]:
    return [Path(sources)] if isinstance(sources, str | Path) else [Path(s) for s in sources]


def _skipped(parts: Sequence[str]) -> bool:
    """Whether extraction skips a path with these parts (tests, catalogues, caches)."""
    return "locale" in parts or "tests" in parts or "__pycache__" in parts


def declared_domains(sources: Sources) -> dict[str, Path]:
    """Each domain the Python files under ``sources`` name in a ``Messages("…")`` with
    a literal name, and the first file that does."""
    return _domains(sources)[0]


def _domains(sources: Sources) -> tuple[dict[str, Path], bool]:
    """The literal domains of the ``Messages(...)`` under ``sources`` (each with the
    first file naming it), and whether any ``Messages`` names its domain otherwise
    (``Messages(DOMAIN)``), which no reading of the sources can compare."""
    found: dict[str, Path] = {}
    computed = False
    for source in _folders(sources):
        for path in sorted(Path(source).rglob("*.py")):
            if _skipped(path.relative_to(source).parts):
                continue
            try:
                tree = ast.parse(path.read_bytes())
            except (SyntaxError, ValueError):
                continue  # extraction reports what it cannot read
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                if getattr(node.func, "id", getattr(node.func, "attr", None)) != "Messages":
                    continue
                given = [k.value for k in node.keywords if k.arg == "domain"]
                first = node.args[0] if node.args else given[0] if given else None
                if first is None:
                    continue
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    found.setdefault(first.value, path)
                else:
                    computed = True
    return found, computed


def extract(sources: Sources, domain: str) -> Any:
    """The messages the Python files under ``sources`` (a folder, or several)
    declare, as a Babel catalogue (the template; tests and ``locale`` folders are
    skipped).

    :raises InvalidRequest: when the sources declare ``Messages`` of other domains
        only: a catalogue of ``domain`` would be one no message is looked up in
        (``--domain fate`` for ``Messages("fatelike")``, or the folder's name
        ``rollbridge_fatelike`` taken for the domain). Not when a ``Messages``
        names its domain by a variable: that may be ``domain`` (``Messages(DOMAIN)``
        beside a ``Messages("rollbridge")`` reusing core texts)."""
    declared, computed = _domains(sources)
    if declared and domain not in declared and not computed:
        first = next(iter(declared))
        text = OTHER_DOMAIN(
            domain=repr(domain),
            declared=[repr(d) for d in declared],
            where=str(declared[first]),
        )
        raise InvalidRequest(text, details={"domain": domain, "declared": sorted(declared)})
    catalog, extract_module, _mofile, _pofile = _babel()
    template = catalog.Catalog(domain=domain, charset="utf-8", **_header(domain, "the"))

    def keep(path: str) -> bool:
        return not _skipped(Path(path).parts)

    for source in _folders(sources):
        found = extract_module.extract_from_dir(
            source,
            method_map=[("**.py", "python")],
            keywords=KEYWORDS,
            comment_tags=COMMENT_TAGS,
            strip_comment_tags=True,
            directory_filter=keep,
        )
        for filename, _lineno, message, comments, context in found:
            location = (Path(source.name, filename).as_posix(), None)
            template.add(message, locations=[location], auto_comments=comments, context=context)
    return template


def update(sources: Sources, domain: str, locales: Iterable[str]) -> list[Path]:
    """Extract the messages of ``sources`` into ``locale/<domain>.pot`` (in the
    first folder), merge them into each locale's ``.po`` (new messages untranslated,
    changed ones marked fuzzy, gone ones kept as obsolete) and compile every
    ``.po``. :returns: the files written."""
    catalog, _extract, _mofile, pofile = _babel()
    template = extract(sources, domain)
    source = _folders(sources)[0]
    written = [_write_po(locale_folder(source) / f"{domain}.pot", template)]
    for locale in locales:
        path = _po_path(source, domain, locale)
        if path.is_file():
            with path.open("rb") as file:
                translated = pofile.read_po(file, locale=locale, domain=domain)
        else:
            translated = catalog.Catalog(
                locale=locale, domain=domain, **_header(domain, f"The {locale}")
            )
        translated.update(template, update_creation_date=False)
        written.append(_write_po(path, translated))
    return written + compile_catalogues(source, domain)


def _own_domains() -> frozenset[str]:
    """rollbridge's own domains: the core's and each built-in plugin's."""
    from rollbridge.adapters import DEFAULT_PLUGINS as adapters
    from rollbridge.plugins import DEFAULT_PLUGINS as rulesets

    return frozenset({"rollbridge", *(name.rsplit(".", 1)[-1] for name in rulesets + adapters)})


def _header(domain: str, which: str) -> dict[str, Any]:
    """The header of a new catalogue of ``domain``: rollbridge's for its own domains;
    for another plugin's, its authors and its issue tracker, not rollbridge's (a
    translator reports a mistake to whoever ships the catalogue)."""
    if domain in _own_domains():
        of, guide, (people, tracker) = f"the {domain} domain of rollbridge", "", _ROLLBRIDGE
    else:
        of, guide = f"the {domain} plugin for rollbridge", "rollbridge's "
        people, tracker = f"the {domain} plugin's authors", f"the {domain} plugin's issue tracker"
    return {
        "header_comment": f"# {which} messages of {of}.\n"
        f'# See {guide}docs/plugins.md, "Languages", for how they are made.\n#',
        "project": f"rollbridge-{domain}",
        "version": "1",
        "copyright_holder": people,
        "msgid_bugs_address": tracker,
        "creation_date": _CREATED,
        "revision_date": _CREATED,
        "last_translator": people,
        "language_team": people,
        "fuzzy": False,
    }


#: Who makes rollbridge's own catalogues, and where their mistakes are reported.
_ROLLBRIDGE = ("rollbridge developers", "the rollbridge issue tracker")


def _write_po(path: Path, catalogue: Any) -> Path:
    _catalog, _extract, _mofile, pofile = _babel()
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    pofile.write_po(buffer, catalogue, width=96, include_lineno=False)
    path.write_bytes(buffer.getvalue())
    return path


def _compiled(po: Path, domain: str, locale: str) -> bytes:
    _catalog, _extract, mofile, pofile = _babel()
    with po.open("rb") as file:
        translated = pofile.read_po(file, locale=locale, domain=domain)
    for message in list(translated):
        # Babel writes a plural form left empty as the English: the message would then
        # read in English unrecorded. Left out, it is missing, as an empty singular is.
        if isinstance(message.string, (list, tuple)) and not all(message.string):
            translated.delete(message.id, context=message.context)
    buffer = io.BytesIO()
    mofile.write_mo(buffer, translated, use_fuzzy=False)
    return buffer.getvalue()


def _po_files(source: Path, domain: str) -> list[tuple[str, Path]]:
    folder = locale_folder(source)
    if not folder.is_dir():
        return []
    return sorted(
        (entry.name, entry / "LC_MESSAGES" / f"{domain}.po")
        for entry in folder.iterdir()
        if (entry / "LC_MESSAGES" / f"{domain}.po").is_file()
    )


def compile_catalogues(source: Path, domain: str) -> list[Path]:
    """Compile every locale's ``.po`` of ``domain`` into its ``.mo`` (fuzzy entries
    left out: they read in English). :returns: the files written."""
    written = []
    for locale, po in _po_files(source, domain):
        mo = po.with_suffix(".mo")
        mo.write_bytes(_compiled(po, domain, locale))
        written.append(mo)
    return written


def placeholders(template: str) -> frozenset[str]:
    """The named placeholders of a template (``{name}``, ``{name:spec}``)."""
    try:
        return frozenset(name for _t, name, _s, _c in _formatter.parse(template) if name)
    except ValueError:
        return frozenset({"<unbalanced braces>"})


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a domain's catalogues."""

    locale: str
    context: str | None
    what: str

    def __str__(self) -> str:
        where = f" {self.context}" if self.context else ""
        return f"{self.locale}{where}: {self.what}"


def check(
    sources: Sources, domain: str, locales: Sequence[str], *, complete: bool = True
) -> list[Problem]:
    """What is wrong with ``domain``'s catalogues under ``source``: a message of the
    sources missing from a locale's ``.po`` (or, with ``complete``, untranslated or
    fuzzy there), a translation naming other placeholders than the English, a
    plural translation without the locale's number of forms, an entry the sources
    no longer declare, a context declared with two templates, a ``.mo`` that is not
    the compiled ``.po``. Empty: all is well."""
    _catalog, _extract, _mofile, pofile = _babel()
    template = extract(sources, domain)
    source = _folders(sources)[0]
    problems: list[Problem] = []
    contexts: dict[str | None, Any] = {}
    for message in template:
        if not message.id:
            continue
        if message.context in contexts and contexts[message.context] != message.id:
            problems.append(Problem("en", message.context, "declared with two templates"))
        contexts[message.context] = message.id
        if isinstance(message.id, tuple) and placeholders(message.id[0]) != placeholders(
            message.id[1]
        ):
            problems.append(Problem("en", message.context, "singular and plural differ"))
    for locale in locales:
        po = _po_path(source, domain, locale)
        if not po.is_file():
            problems.append(Problem(locale, None, f"no catalogue {po}"))
            continue
        with po.open("rb") as file:
            translated = pofile.read_po(file, locale=locale, domain=domain)
        problems += _check_locale(template, translated, locale, complete)
        mo = po.with_suffix(".mo")
        if not mo.is_file() or mo.read_bytes() != _compiled(po, domain, locale):
            problems.append(Problem(locale, None, f"{mo.name} is not the compiled {po.name}"))
    return problems


def _check_locale(template: Any, translated: Any, locale: str, complete: bool) -> list[Problem]:
    problems = []
    for message in template:
        if not message.id:
            continue
        ctx = message.context
        entry = translated.get(message.id, context=ctx)
        if entry is None:
            problems.append(Problem(locale, ctx, "missing (run rollbridge catalogs update)"))
            continue
        english = message.id if isinstance(message.id, tuple) else (message.id,)
        wanted = placeholders(english[0]) | placeholders(english[-1])
        forms = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        if isinstance(message.id, tuple) and len(forms) != translated.num_plurals:
            wrong = f"{len(forms)} plural forms, {locale} has {translated.num_plurals}"
            problems.append(Problem(locale, ctx, wrong))
        if complete and (entry.fuzzy or not all(forms)):
            problems.append(Problem(locale, ctx, "fuzzy" if entry.fuzzy else "not translated"))
        for form in forms:
            if form and placeholders(form) != wanted:
                problems.append(Problem(
                    locale, ctx,
                    f"{form!r} names {sorted(placeholders(form))}, the English {sorted(wanted)}",
                ))  # fmt: skip
    known = {(m.id, m.context) for m in template if m.id}
    for entry in translated:
        if entry.id and (entry.id, entry.context) not in known:
            problems.append(Problem(locale, entry.context, "the sources no longer declare it"))
    return problems
