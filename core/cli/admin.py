"""``rollbridge admin-token``: make, list and revoke the server's admin tokens.

An admin token opens the admin API of ``rollbridge serve`` (``/admin/``: tables
and join tokens over HTTP, for a web front or a bot; see docs/operations.md). It
is shown once, when made; the database keeps only its hash. Works on the same
SQLite file as a running server, which reads the tokens at each request: a new
one works at once, a revoked one no longer does.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from rollbridge.cli.helps import Help
from rollbridge.cli.json_option import add_json_option
from rollbridge.cli.locales import add_locale_option
from rollbridge.cli.new_database import database_to_make, warn_made
from rollbridge.cli.render import print_json, utc_time
from rollbridge.cli.stores import add_store_options, open_store
from rollbridge.exceptions import NotFound
from rollbridge.text import Messages
from rollbridge.visible import visible

__all__ = ["add_parsers"]

say = Messages("rollbridge")
# Translators: {id} is the token's public id, {name} its name.
MADE = say(
    "cli.admin.made",
    "admin token {id} ({name}), shown once; send it as 'Authorization: Bearer TOKEN':",
)
NONE = say("cli.admin.none", "no admin tokens")
REVOKED = say("cli.admin.revoked", "revoked admin token {id}")
NO_SUCH = say("cli.admin.no_such", "there is no admin token {id}")


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add ``admin-token``."""
    parser = commands.add_parser(
        "admin-token",
        help=Help(
            say("cli.help.admin", "make (default), list or revoke admin tokens of the admin API")
        ),
    )
    add_store_options(parser)
    parser.add_argument(
        "--name",
        help=Help(
            say("cli.help.admin.name", "a name for the new token, shown in logs (default admin)")
        ),
    )
    parser.add_argument(
        "--list",
        action="store_true",
        help=Help(say("cli.help.admin.list", "list the admin tokens (no secrets)")),
    )
    parser.add_argument(
        "--revoke",
        metavar="ID",
        help=Help(say("cli.help.admin.revoke", "revoke an admin token by its id")),
    )
    add_json_option(parser)
    add_locale_option(parser)
    parser.set_defaults(handler=_admin_token)


def _admin_token(args: argparse.Namespace) -> int:
    from rollbridge.tokens import new_admin_token

    locale = args.locale
    # made first: a name that is no name is refused before a database file is made
    made = None if args.revoke or args.list else new_admin_token(args.name)
    # the store loads only when used; only making a token makes a database file
    # and a list only reads: nothing written to the file (an older schema left as it is)
    reading = bool(args.list and not args.revoke)
    new = database_to_make(args) if made is not None else None
    with open_store(args, create=made is not None, read_only=reading) as store:
        if made is None:
            return _revoke_or_list(args, store, locale)
        secret, record = made
        store.add_admin_token(record)
    if args.json:
        print_json({"token": secret, **record.to_dict()})
    else:
        sys.stdout.write(f"{MADE(id=record.id, name=record.name).render(locale)}\n  {secret}\n")
    if new is not None and os.path.exists(new):
        warn_made(new, locale)
    return 0


def _revoke_or_list(args: argparse.Namespace, store: Any, locale: str) -> int:
    """``admin-token --revoke ID`` or ``--list`` on ``store``."""
    if args.revoke:
        if not store.revoke_admin_token(args.revoke):
            raise NotFound(NO_SUCH(id=repr(args.revoke)), details={"id": args.revoke})
        if args.json:
            print_json({"revoked": args.revoke})
        else:
            sys.stdout.write(REVOKED(id=args.revoke).render(locale) + "\n")
        return 0
    records = [r.to_dict() for r in store.list_admin_tokens()]
    if args.json:
        print_json({"admin_tokens": records})
    elif not records:
        sys.stdout.write(NONE().render(locale) + "\n")
    for record in [] if args.json else records:  # the oldest first
        made = utc_time(record["created"])
        # a name made before names were checked: its controls shown, not obeyed
        sys.stdout.write(f"{record['id']}  {made}  {visible(record['name'])}\n")
    return 0
