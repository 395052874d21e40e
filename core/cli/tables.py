"""``rollbridge table``: create, list, delete tables and manage join tokens.

Works on the same SQLite file as a running server (SQLite's locking keeps
the two consistent). Tokens are shown once, when made; the database keeps
only their hashes, so ``table tokens`` lists them by id and can make new ones.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from rollbridge.cli.render import print_json
from rollbridge.cli.stores import add_store_options, open_store
from rollbridge.exceptions import InvalidRequest, UnknownRequest
from rollbridge.text import Messages

__all__ = ["add_parsers"]

say = Messages("rollbridge")
# Translators: {problem} is the JSON parser's own (English) words.
SETTINGS_JSON = say("cli.table.settings_json", "--settings: not valid JSON ({problem})")
NO_TOKEN = say("cli.table.no_token", "table {table} has no token {token}")


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add ``table`` and its sub-commands."""
    table = commands.add_parser("table", help="create, list and delete tables; manage tokens")
    actions = table.add_subparsers(dest="table_command", metavar="ACTION")
    actions.required = True

    def with_db(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
        add_store_options(parser)
        parser.add_argument("--json", action="store_true", help="print JSON")
        return parser

    create = with_db(actions.add_parser("create", help="create a table and its join tokens"))
    create.add_argument("--ruleset", required=True, help="ruleset id, e.g. sr2")
    create.add_argument("--name", required=True, help="the table's name")
    create.add_argument("--settings", help='table settings as JSON, e.g. {"approval": true}')
    create.set_defaults(handler=_create)

    listing = with_db(actions.add_parser("list", help="list tables"))
    listing.set_defaults(handler=_list)

    tokens = with_db(actions.add_parser("tokens", help="list a table's tokens, or make one"))
    tokens.add_argument("table", help="table id")
    tokens.add_argument("--new", choices=("gm", "player", "observer"), help="make a token")
    tokens.add_argument("--name", help="the new token's name (players: whose actors)")
    tokens.add_argument(
        "--revoke",
        metavar="TOKEN_ID",
        help="revoke a token by its id (a running server disconnects its holder within 5 s)",
    )
    tokens.set_defaults(handler=_tokens)

    delete = with_db(actions.add_parser("delete", help="delete a table and all it holds"))
    delete.add_argument("table", help="table id")
    delete.set_defaults(handler=_delete)


def _store(args: argparse.Namespace) -> Any:
    return open_store(args)  # the store loads only when used


def _create(args: argparse.Namespace) -> int:
    settings = None
    if args.settings:
        try:
            settings = json.loads(args.settings)
        except json.JSONDecodeError as exc:
            raise InvalidRequest(SETTINGS_JSON(problem=exc.msg)) from None
    store = _store(args)
    try:
        from rollbridge.host import PluginHost
        from rollbridge.offline import TableService

        info, tokens = TableService(store, PluginHost()).create_table(
            args.name, args.ruleset, settings=settings
        )
    finally:
        store.close()
    if args.json:
        print_json({"table": info.id, "tokens": tokens})
        return 0
    sys.stdout.write(
        f"table {info.id} ({info.name}, ruleset {info.ruleset} {info.ruleset_version})\n"
    )
    sys.stdout.write("join tokens (shown once):\n")
    for role, token in tokens.items():
        sys.stdout.write(f"  {role:<8} {token}\n")
    return 0


def _list(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        tables = [t.to_dict() for t in store.tables()]
    finally:
        store.close()
    if args.json:
        print_json(
            [
                {k: t[k] for k in ("id", "name", "ruleset", "ruleset_version", "epoch", "seq")}
                for t in tables
            ]
        )
        return 0
    if not tables:
        sys.stdout.write("no tables\n")
    for table in tables:
        sys.stdout.write(
            f"{table['id']}  {table['ruleset']:<10} seq {table['seq']:<6} {table['name']}\n"
        )
    return 0


def _tokens(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        records = store.list_tokens(args.table)
        made = None
        if args.revoke:
            if not store.revoke_token(args.table, args.revoke):
                raise UnknownRequest(NO_TOKEN(table=repr(args.table), token=repr(args.revoke)))
            records = store.list_tokens(args.table)
        if args.new:
            from rollbridge.tokens import new_token

            secret, record = new_token(args.table, args.new, args.name)
            store.add_token(record)
            made = {"token": secret, **record.to_dict()}
            records = store.list_tokens(args.table)
    finally:
        store.close()
    if args.json:
        print_json({"tokens": [r.to_dict() for r in records], "new": made})
        return 0
    for record in records:
        sys.stdout.write(f"{record.id}  {record.role:<8} {record.name}\n")
    if made:
        sys.stdout.write(
            f"new {made['role']} token for {made['name']!r} (shown once):\n  {made['token']}\n"
        )
    return 0


def _delete(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        store.delete_table(args.table)
    finally:
        store.close()
    if args.json:
        print_json({"deleted": args.table})
    else:
        sys.stdout.write(f"deleted table {args.table}\n")
    return 0
