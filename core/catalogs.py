"""The catalogue toolchain: extract a domain's messages, update its translations,
compile them, and check them. Built on Babel (a development dependency: the
server reads compiled catalogues with the standard library, :mod:`rollbridge.i18n`).

A domain's sources are package folders (``core`` and ``adapters`` for
``rollbridge``, ``plugins/sr2`` for ``sr2``); its catalogues sit in the first
folder's ``locale``::

    locale/<domain>.pot                      the messages, as extracted (the template)
    locale/<lang>/LC_MESSAGES/<domain>.po    a language's translations (edited by hand)
    locale/<lang>/LC_MESSAGES/<domain>.mo    the same, compiled (shipped in the wheel)

Messages are found where the sources declare them (a
:class:`rollbridge.text.Messages`, named ``say`` or any other name):
``say(key, template)`` gives the gettext context ``key`` and the ``msgid``
``template``; ``say.plural(key, one, other)`` a plural message. Each goes to the
catalogue of its ``Messages``' domain where the sources show it (:func:`extract`).
A comment starting ``Translators:`` just above a declaration goes into the
catalogues.

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
from typing import Any, TypeGuard

from rollbridge.exceptions import InvalidRequest
from rollbridge.text import Messages, forget

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
    """Each domain the Python files under ``sources`` name in a ``Messages(...)`` —
    with a literal name, or a constant of the sources (``DOMAIN = "fate"``;
    ``Messages(DOMAIN)``) — and the first file that does."""
    return _read(sources).domains


@dataclass
class _Declared:
    """What the sources say of their messages' domains (:func:`_read`)."""

    #: Each domain a ``Messages(...)`` names, with the first file naming it.
    domains: dict[str, Path]
    #: Whether a ``Messages(...)`` names its domain in a way no reading can tell
    #: (an expression, a name bound to no string of the sources).
    unknown: bool
    #: Each message call whose ``Messages`` is known, by its place as Babel gives it
    #: (folder, file relative to it, a line from its "(" to its first argument's):
    #: the domain, or None when unknown.
    calls: dict[tuple[Path, str, int], str | None]
    #: The names ``Messages`` are bound to (``say``, ``core``): calls extraction reads.
    names: set[str]


@dataclass
class _Module:
    """One source file: its tree, its module name within its folder, its bindings."""

    folder: Path
    path: Path
    tree: ast.Module
    dotted: str
    strings: dict[str, str]
    messages: dict[str, str | None]


def _read(sources: Sources) -> _Declared:
    """Read the sources for the domain of each ``Messages`` and each message call:
    ``say = Messages("fate")`` or ``Messages(DOMAIN)`` with ``DOMAIN = "fate"`` in
    the file or imported from another of the sources; a call ``say(...)`` or
    ``say.plural(...)`` of a ``say`` bound in the file or imported from another."""
    modules = [module for source in _folders(sources) for module in _modules(source)]
    by_name = {module.dotted: module for module in modules}
    found: dict[str, Path] = {}
    unknown = False
    for module in modules:  # strings first: a Messages may name an imported one
        _bind(module, by_name, "strings")
    for module in modules:
        for node in ast.walk(module.tree):
            if _is_messages(node):  # any Messages(...), bound to a name or not
                domain = _domain_of(node, module)
                if domain is None:
                    unknown = True
                else:
                    found.setdefault(domain, module.path)
            if isinstance(node, ast.Assign | ast.AnnAssign) and _is_messages(node.value):
                bound = _domain_of(node.value, module)
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if isinstance(target, ast.Name):
                        module.messages[target.id] = bound
    while True:  # until nothing more is bound: an alias of an imported alias, …
        bound = sum(len(module.messages) for module in modules)
        for module in modules:
            _aliases(module)
            _bind(module, by_name, "messages")
        if sum(len(module.messages) for module in modules) == bound:
            break
    calls: dict[tuple[Path, str, int], str | None] = {}
    names: set[str] = set()
    for module in modules:
        names |= module.messages.keys()
        where = module.path.relative_to(module.folder).as_posix()
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Call) and node.args:
                name = _called(node.func)
                if name is not None and name in module.messages:
                    # Babel names a call by the line of the first thing after its
                    # "(": its first argument's, or a comment's above that
                    first = node.args[0].lineno
                    for line in range(node.func.end_lineno or first, first + 1):
                        calls[(module.folder, where, line)] = module.messages[name]
    return _Declared(found, unknown, calls, names)


def _modules(source: Path) -> list[_Module]:
    """The readable Python files under ``source`` (tests and catalogues skipped)."""
    found = []
    for path in sorted(Path(source).rglob("*.py")):
        relative = path.relative_to(source)
        if _skipped(relative.parts):
            continue
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            continue  # extraction reports what it cannot read
        parts = list(relative.with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        dotted = ".".join([Path(source).name, *parts])
        strings = {
            target.id: node.value.value
            for node in tree.body
            if isinstance(node, ast.Assign | ast.AnnAssign)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Name)
        }
        found.append(_Module(Path(source), path, tree, dotted, strings, {}))
    return found


def _bind(module: _Module, by_name: dict[str, _Module], kind: str) -> None:
    """Add to ``module``'s ``strings`` (or ``messages``) the ones it imports from
    another module of the sources (``from .messages import DOMAIN, say``)."""
    own: dict[str, Any] = getattr(module, kind)
    for node in module.tree.body:
        if not isinstance(node, ast.ImportFrom):
            continue
        other = _imported(module, node, by_name)
        if other is None:
            continue
        for alias in node.names:
            given: dict[str, Any] = getattr(other, kind)
            if alias.name in given:
                own.setdefault(alias.asname or alias.name, given[alias.name])


def _aliases(module: _Module) -> None:
    """Add to ``module``'s ``messages`` each name bound to another one that is
    (``_ = say``, ``speak: Messages = say``), in the file's order."""
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and isinstance(node.value, ast.Name):
            if node.value.id not in module.messages:
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    module.messages.setdefault(target.id, module.messages[node.value.id])


def _imported(module: _Module, node: ast.ImportFrom, by_name: dict[str, _Module]) -> Any:
    """The module of the sources an ``import from`` reads: a relative import from
    the importing file's package; an absolute one matched by its ending
    (``rollbridge.plugins.sr2.messages`` is ``sr2/messages.py`` of ``plugins/sr2``)."""
    if node.level:
        package = module.dotted.split(".")
        if module.path.name != "__init__.py":
            package.pop()
        package = package[: len(package) - (node.level - 1)] if node.level > 1 else package
        return by_name.get(".".join([*package, *filter(None, [node.module])]))
    wanted = node.module or ""
    for dotted, other in by_name.items():  # named with the folder: wilddie.messages
        if wanted == dotted or wanted.endswith("." + dotted):
            return other
    for dotted, other in by_name.items():  # a folder named otherwise (core: rollbridge)
        inner = dotted.partition(".")[2]
        if inner and (wanted == inner or wanted.endswith("." + inner)):
            return other
    return None


def _is_messages(node: Any) -> TypeGuard[ast.Call]:
    """Whether ``node`` is a call ``Messages(...)`` (or ``text.Messages(...)``)."""
    return isinstance(node, ast.Call) and _called(node.func) == "Messages"


def _called(func: ast.expr) -> str | None:
    """The name a call reads: ``say`` of ``say(...)`` and of ``say.plural(...)``,
    ``Messages`` of ``text.Messages(...)``."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        if func.attr == "plural" and isinstance(func.value, ast.Name):
            return func.value.id
        return func.attr if func.attr == "Messages" else None
    return None


def _domain_of(call: ast.Call, module: _Module) -> str | None:
    """The domain a ``Messages(...)`` names (positional or ``domain=``): a literal, or
    a name bound to a string in its file or imported into it; None if unknown."""
    given = [k.value for k in call.keywords if k.arg == "domain"]
    first = call.args[0] if call.args else given[0] if given else None
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    if isinstance(first, ast.Name):
        return module.strings.get(first.id)
    return None


def extract(sources: Sources, domain: str) -> Any:
    """The messages of ``domain`` the Python files under ``sources`` (a folder, or
    several) declare, as a Babel catalogue (the template; tests and ``locale``
    folders are skipped).

    A call is left out when the sources show it belongs to another domain: its
    ``say`` (any name bound to a ``Messages``, in its file or imported from another
    of the sources) names another, by a literal or a constant of the sources. A
    call whose ``Messages`` the sources do not show (imported from elsewhere, a
    domain computed) is kept, as is a ``.plural(...)`` of anything.

    :raises InvalidRequest: when the sources declare ``Messages`` of other domains
        only: a catalogue of ``domain`` would be one no message is looked up in
        (``--domain fate`` for ``Messages("fatelike")`` or for ``DOMAIN =
        "fatelike"; Messages(DOMAIN)``, or the folder's name
        ``rollbridge_fatelike`` taken for the domain). Not when a ``Messages``
        names its domain in a way no reading can tell: that may be ``domain``."""
    declared = _read(sources)
    if declared.domains and domain not in declared.domains and not declared.unknown:
        first = next(iter(declared.domains))
        text = OTHER_DOMAIN(
            domain=repr(domain),
            declared=[repr(d) for d in declared.domains],
            where=str(declared.domains[first]),
        )
        raise InvalidRequest(text, details={"domain": domain, "declared": sorted(declared.domains)})
    catalog, extract_module, _mofile, _pofile = _babel()
    template = catalog.Catalog(domain=domain, charset="utf-8", **_header(domain, "the"))
    # Calls by another name bound to a Messages (``core(...)``) are taken only where
    # the sources show that binding: elsewhere the name may be anything.
    others = {name: KEYWORDS["say"] for name in sorted(declared.names - KEYWORDS.keys())}

    def keep(path: str) -> bool:
        return not _skipped(Path(path).parts)

    for source in _folders(sources):
        for keywords, shown_only in ((KEYWORDS, False), (others, True)):
            if not keywords:
                continue
            found = extract_module.extract_from_dir(
                source,
                method_map=[("**.py", "python")],
                keywords=keywords,
                comment_tags=COMMENT_TAGS,
                strip_comment_tags=True,
                directory_filter=keep,
            )
            for filename, lineno, message, comments, context in found:
                place = (source, Path(filename).as_posix(), lineno)
                if shown_only and place not in declared.calls:
                    continue
                of = declared.calls.get(place)
                if of is not None and of != domain:
                    continue  # a message of another domain the sources declare
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
    forget(domain)  # what was read of them, and a locale compiled for the first time
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
