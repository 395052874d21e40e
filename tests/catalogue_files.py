"""A compiled catalogue written for a test: a ruleset's translation as a translator
would ship it (Babel's ``Catalog`` and ``write_mo``, the tools rollbridge's own
catalogues are made with)."""

from __future__ import annotations

from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo


def write_catalogue(
    folder: Path, locale: str, domain: str, entries: dict[str, tuple[str, str]]
) -> Path:
    """Write ``folder/<locale>/LC_MESSAGES/<domain>.mo`` holding ``entries`` (a message
    id, the context of a ``Messages`` call, to its English and its translation) and
    return ``folder``, to be given as ``Messages(domain, catalogs=folder)``."""
    catalogue = Catalog(locale=locale, domain=domain)
    for context, (english, translated) in entries.items():
        catalogue.add(english, translated, context=context)
    (folder / locale / "LC_MESSAGES").mkdir(parents=True, exist_ok=True)
    with (folder / locale / "LC_MESSAGES" / f"{domain}.mo").open("wb") as file:
        write_mo(file, catalogue)
    return folder
