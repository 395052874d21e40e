"""``rollbridge table``: create, list, delete tables and manage join tokens.

Works on the same SQLite file as a running server (SQLite's locking keeps
the two consistent). Tokens are shown once, when made; the database keeps
only their hashes, so ``table tokens`` lists them by id and can make new ones.
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from rollbridge import i18n
from rollbridge.cli import shared_help
from rollbridge.cli.columns import aligned
from rollbridge.cli.helps import Help
from rollbridge.cli.json_option import add_json_option
from rollbridge.cli.locales import add_locale_option
from rollbridge.cli.offline import SETTINGS_HELP, offline_host, table_settings
from rollbridge.cli.render import print_json, utc_time
from rollbridge.cli.serve import join_url, public_url, web_url
from rollbridge.cli.startup import created_lines
from rollbridge.cli.stores import add_store_options, open_store
from rollbridge.cli.values import positive
from rollbridge.exceptions import InvalidRequest, NotFound
from rollbridge.system_words import system_reason
from rollbridge.text import Messages
from rollbridge.tokens import JOIN_PREFIX, TokenRecord, hash_token
from rollbridge.visible import visible

__all__ = ["add_parsers"]

say = Messages("rollbridge")
NO_TOKEN = say("cli.table.no_token", "table {table} has no token {token}")
# Translators: --revoke was given a join token itself (never shown: rbt_… stands for it),
# which is not one of the table's; {table} is the table's id.
NO_SUCH_SECRET = say(
    "cli.table.no_secret",
    "table {table} has no such token (rbt_…): one of another table, or revoked already;"
    " the table's tokens, by id: rollbridge table tokens {table}",
)
# Translators: said after `table tokens --revoke`; {token} is the token's id, {role} gm,
# player or observer, {name} its name.
REVOKED = say(
    "cli.table.revoked",
    "revoked token {token} ({role} {name}) of table {table}: a running server"
    " disconnects its holder within 5 s",
)
# Translators: `table list` of a database that holds no table.
NO_TABLES = say("cli.table.none", "no tables")
# Translators: in `table list`, the label before the number (seq) of a table's last
# event: "seq 12"; short, it stands in every line.
SEQ_LABEL = say("cli.table.seq_label", "seq")
# Translators: said after `table tokens --new`, before the token itself on the next
# line; {role} is gm, player or observer (kept as it is), {name} the token's name.
NEW_TOKEN = say("cli.table.new_token", "new {role} token for {name} (shown once):")
# Translators: said after `table delete`; {table} is the table's id.
DELETED = say("cli.table.deleted", "deleted table {table}")
# Translators: {path} is the file of --out; {error} the system's own words.
CANNOT_WRITE = say("cli.table.cannot_write", "--out: cannot write {path}: {error}")
# Translators: {option} is --from or --to; {given} is what was typed.
BAD_MOMENT = say(
    "cli.stats.bad_time",
    "{option}: {given} is not a time (ISO 8601 such as 2026-12-02T19:30, or seconds since 1970)",
)
# Translators: the heading of the whole session's statistics in `table stats`.
STATS_SESSION = say("cli.stats.session", "Session")
# Translators: one line of `table stats` for the session or an actor ({name}); each
# count follows its word, so that no word agrees with a number ("rolls 1").
STATS_LINE = say(
    "cli.stats.line",
    "{name}: rolls {rolls}, successes {successes}, botches {botches}, explosions {explosions}",
)
# Translators: {faces} a die's size (6 for d6), {count} dice shown, {mean} and
# {expected} numbers with two decimals.
STATS_DIE = say.plural(
    "cli.stats.die",
    "d{faces}: {count} die, mean {mean} (expected {expected})",
    "d{faces}: {count} dice, mean {mean} (expected {expected})",
)


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add ``table`` and its sub-commands."""
    table = commands.add_parser(
        "table", help=Help(say("cli.help.table", "create, list and delete tables; manage tokens"))
    )
    actions = table.add_subparsers(dest="table_command", metavar=Help(shared_help.ACTION))
    actions.required = True

    def with_db(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
        add_store_options(parser)
        add_json_option(parser)
        return parser

    create = with_db(
        actions.add_parser(
            "create", help=Help(say("cli.help.table.create", "create a table and its join tokens"))
        )
    )
    create.add_argument("--ruleset", required=True, help=Help(shared_help.RULESET_ID))
    create.add_argument(
        "--name", required=True, help=Help(say("cli.help.table.create.name", "the table's name"))
    )
    create.add_argument(
        "--settings",
        help=Help(
            SETTINGS_HELP,
            more=say("cli.help.table.create.settings", ", as rollbridge resolve takes them")(),
        ),
    )
    create.add_argument(
        "--public-url",
        type=public_url,
        metavar="URL",
        help=Help(
            say(
                "cli.help.table.create.public_url",
                "the address players reach the server at, as serve --public-url takes it"
                " (e.g. https://rb.example.org): prints the table's web view and Foundry's"
                " Server URL",
            )
        ),
    )
    add_locale_option(create)
    create.set_defaults(handler=_create)

    listing = with_db(
        actions.add_parser("list", help=Help(say("cli.help.table.list", "list tables")))
    )
    add_locale_option(listing)
    listing.set_defaults(handler=_list)

    tokens = with_db(
        actions.add_parser(
            "tokens", help=Help(say("cli.help.table.tokens", "list a table's tokens, or make one"))
        )
    )
    tokens.add_argument("table", help=Help(shared_help.TABLE_ID))
    tokens.add_argument(
        "--new",
        choices=("gm", "player", "observer"),
        help=Help(say("cli.help.table.tokens.new", "make a token")),
    )
    tokens.add_argument(
        "--name",
        help=Help(
            say("cli.help.table.tokens.name", "the new token's name (players: whose actors)")
        ),
    )
    tokens.add_argument(
        "--revoke",
        metavar=Help(say("cli.help.token_id", "TOKEN_ID")),
        help=Help(
            say(
                "cli.help.table.tokens.revoke",
                "revoke a token by its id as listed, or by the token itself (rbt_…); a running"
                " server disconnects its holder within 5 s",
            )
        ),
    )
    add_locale_option(tokens)
    tokens.set_defaults(handler=_tokens)

    delete = with_db(
        actions.add_parser(
            "delete", help=Help(say("cli.help.table.delete", "delete a table and all it holds"))
        )
    )
    delete.add_argument("table", help=Help(shared_help.TABLE_ID))
    add_locale_option(delete)
    delete.set_defaults(handler=_delete)

    _add_export(actions)
    _add_stats(actions)


def _store(args: argparse.Namespace, *, create: bool = False, read_only: bool = False) -> Any:
    """The store of ``args``; only ``table create`` makes a database file, and a
    command that only reads writes nothing to it (``read_only``: :func:`open_store`)."""
    return open_store(args, create=create, read_only=read_only)  # loaded only when used


def _create(args: argparse.Namespace) -> int:
    from rollbridge.offline import TableService

    host = offline_host()
    settings = table_settings(args.settings, host.ruleset(args.ruleset))  # before the store
    store = _store(args, create=True)
    try:
        info, tokens = TableService(store, host).create_table(
            args.name, args.ruleset, settings=settings
        )
    finally:
        store.close()
    links = {}
    if args.public_url:  # what to hand the GM: the web view, Foundry's Server URL
        links = {
            "web_view": web_url("", 0, info.id, public=args.public_url),
            "server_url": join_url("", 0, info.id, public=args.public_url),
        }
    if args.json:
        # the admin API's answer (POST /admin/tables), and "table": the id as this
        # command named it before it had the API's fields, kept for the scripts reading
        # it; the links at --public-url, when given
        print_json({**info.summary(), "tokens": tokens, "table": info.id, **links})
        return 0
    sys.stdout.write(created_lines(info.summary(), tokens, links, args.locale))
    return 0


def _list(args: argparse.Namespace) -> int:
    store = _store(args, read_only=True)
    try:
        tables = [t.summary() for t in store.tables()]
    finally:
        store.close()
    if args.json:
        print_json(tables)  # the admin API's "tables" (GET /admin/tables), the list itself
        return 0
    if not tables:
        sys.stdout.write(NO_TABLES().render(args.locale) + "\n")
    label = SEQ_LABEL().render(args.locale)
    # a name made before names were checked: its controls shown, not obeyed
    rows = [[t["id"], t["ruleset"], f"{label} {t['seq']}", visible(t["name"])] for t in tables]
    for line in aligned(rows):
        sys.stdout.write(line + "\n")
    return 0


def _tokens(args: argparse.Namespace) -> int:
    store = _store(args, read_only=not (args.new or args.revoke))  # a list only reads
    try:
        records = store.list_tokens(args.table)
        made = None
        if args.revoke:
            gone = _revoked(store, args.table, args.revoke, records)
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
        # the admin API's words: "tokens" as GET …/tokens, "new" as POST …/tokens
        # answers, "revoked" and "table" as DELETE …/tokens/TOKEN_ID does
        done = {"revoked": gone.id, "table": args.table} if args.revoke else {}
        print_json({"tokens": [r.to_dict() for r in records], "new": made, **done})
        return 0
    for record in records:
        when = utc_time(record.created)
        sys.stdout.write(f"{record.id}  {record.role:<8} {when}  {visible(record.name)}\n")
    if args.revoke:
        said = REVOKED(token=gone.id, role=gone.role, name=repr(gone.name), table=args.table)
        sys.stdout.write(f"{said.render(args.locale)}\n")
    if made:
        said = NEW_TOKEN(role=made["role"], name=repr(made["name"]))
        sys.stdout.write(f"{said.render(args.locale)}\n  {made['token']}\n")
    return 0


def _revoked(store: Any, table: str, given: str, records: list[TokenRecord]) -> TokenRecord:
    """Revoke the token ``given`` names — its id, as ``table tokens`` lists it, or the
    token itself (``rbt_…``: the one an operator holds when a token leaked; never
    repeated in an error) — and return its record."""
    if given.startswith(JOIN_PREFIX):
        record = store.find_token(table, hash_token(given))
        if record is None:
            raise NotFound(NO_SUCH_SECRET(table=table), details={"table": table, "token": "rbt_…"})
    else:
        record = next((r for r in records if r.id == given), None)
    if record is None or not store.revoke_token(table, record.id):
        # as the admin API's DELETE refuses it: no request is named here; a token found
        # by its secret and revoked meanwhile (another process) by its id, never the secret
        named = given if record is None else record.id
        raise NotFound(
            NO_TOKEN(table=repr(table), token=repr(named)),
            details={"table": table, "token": named},
        )
    return record


def _delete(args: argparse.Namespace) -> int:
    store = _store(args)
    try:
        store.delete_table(args.table)
    finally:
        store.close()
    if args.json:
        print_json({"deleted": args.table})
    else:
        sys.stdout.write(DELETED(table=args.table).render(args.locale) + "\n")
    return 0


# -- commands that read a table's retained log: export and stats ------------------------


def _log_command(
    actions: argparse._SubParsersAction, name: str, help: Help
) -> argparse.ArgumentParser:
    """A ``table`` subcommand that reads one table's retained log: the store options,
    the table, ``--retain`` (as ``serve --retain``) and ``--locale``."""
    from rollbridge.stores.base import DEFAULT_RETAIN

    command = actions.add_parser(name, help=help)
    add_store_options(command)
    command.add_argument("table", help=Help(shared_help.TABLE_ID))
    command.add_argument(
        "--retain",
        type=positive,
        default=DEFAULT_RETAIN,
        help=Help(shared_help.RETAIN),
    )
    add_locale_option(command)
    return command


def _read_log(args: argparse.Namespace, since: int = 0) -> Any:
    """The table's retained log (rollbridge.export.SessionLog), the store closed after."""
    from rollbridge.export import read_log
    from rollbridge.host import PluginHost

    store = open_store(args, retain=max(1, args.retain), read_only=True)
    try:
        return read_log(store, args.table, PluginHost().rulesets, since)
    finally:
        store.close()


# -- export: the session log ----------------------------------------------------------


def _add_export(actions: argparse._SubParsersAction) -> None:
    """``table export``: the retained log as an audience sees it (rollbridge.export)."""
    export = _log_command(
        actions,
        "export",
        Help(
            say(
                "cli.help.table.export",
                "write a table's retained event log as JSON Lines or a Markdown report",
            )
        ),
    )
    export.add_argument(
        "--as",
        dest="audience",
        required=True,
        choices=("gm", "player", "observer"),
        help=Help(
            say(
                "cli.help.table.export.as",
                "whose view: the GM's, or what any player (or observer) was sent",
            )
        ),
    )
    export.add_argument(
        "--format",
        required=True,
        choices=("jsonl", "markdown"),
        help=Help(
            say(
                "cli.help.table.export.format",
                "JSON Lines (one event per line, as verify reads it) or a Markdown report",
            )
        ),
    )
    export.add_argument(
        "--since",
        type=int,
        default=0,
        metavar="SEQ",
        help=Help(
            say(
                "cli.help.table.export.since",
                "only the events after this seq (default 0: the whole retained log)",
            )
        ),
    )
    export.add_argument(
        "--out",
        type=Path,
        metavar=Help(say("cli.help.file", "FILE")),
        help=Help(say("cli.help.table.export.out", "write here (default stdout)")),
    )
    export.set_defaults(handler=_export)


def _export(args: argparse.Namespace) -> int:
    from rollbridge.export import check_since, export_chunks

    log = _read_log(args, check_since(args.since))
    chunks = export_chunks(log, args.format, args.audience, args.locale or "en")
    if args.out is None:
        for chunk in chunks:
            sys.stdout.write(chunk)
        return 0
    partial = args.out.with_name(args.out.name + ".part")  # never a half-written FILE
    try:
        with partial.open("w", encoding="utf-8", newline="\n") as out:
            for chunk in chunks:
                out.write(chunk)
        os.replace(partial, args.out)
    except OSError as exc:
        partial.unlink(missing_ok=True)
        raise InvalidRequest(
            CANNOT_WRITE(path=str(args.out), error=system_reason(exc)),
            details={"field": "out"},
        ) from None
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return 0


# -- stats: roll statistics --------------------------------------------------------------


def _add_stats(actions: argparse._SubParsersAction) -> None:
    """``table stats``: roll statistics of the retained log, the GM's (rollbridge.stats)."""
    stats = _log_command(
        actions,
        "stats",
        Help(
            say(
                "cli.help.table.stats",
                "roll statistics of a table's retained log (all of it: the GM's view)",
            )
        ),
    )
    stats.add_argument(
        "--json",
        action="store_true",
        help=Help(say("cli.help.table.stats.json", "the stats reply's body as JSON")),
    )
    stats.add_argument("--actor", help=Help(say("cli.help.table.stats.actor", "only this actor")))
    stats.add_argument(
        "--encounter",
        type=int,
        metavar="SEQ",
        help=Help(say("cli.help.table.stats.encounter", "the encounter started at SEQ")),
    )
    stats.add_argument(
        "--since",
        type=int,
        metavar="SEQ",
        help=Help(say("cli.help.table.stats.since", "from this seq (inclusive)")),
    )
    stats.add_argument(
        "--until",
        type=int,
        metavar="SEQ",
        help=Help(say("cli.help.table.stats.until", "up to this seq (inclusive)")),
    )
    stats.add_argument(
        "--from",
        dest="from_time",
        metavar=Help(shared_help.TIME),
        help=Help(
            say(
                "cli.help.table.stats.from",
                "events executed at or after TIME: ISO 8601 (2026-12-02T19:30, local time "
                "unless it has an offset) or seconds since 1970",
            )
        ),
    )
    stats.add_argument(
        "--to",
        dest="to_time",
        metavar=Help(shared_help.TIME),
        help=Help(say("cli.help.table.stats.to", "... at or before TIME")),
    )
    stats.set_defaults(handler=_stats)


def _stats(args: argparse.Namespace) -> int:
    from rollbridge.stats import check_scope, table_stats

    given = {"actor": args.actor, "encounter": args.encounter}
    given |= {"since": args.since, "until": args.until}
    given |= {name: _moment(name, getattr(args, name)) for name in ("from_time", "to_time")}
    scope = check_scope({name: value for name, value in given.items() if value is not None})
    log = _read_log(args)
    locale = args.locale or "en"
    result = table_stats(log.table, log.events, audience="gm", scope=scope, locale=locale)
    if args.json:
        print_json(result)
        return 0
    stats = result["stats"]
    lines = _stats_lines(STATS_SESSION().render(locale), stats["session"], locale)
    for actor in stats["actors"].values():
        lines += _stats_lines(visible(actor["name"]), actor, locale)  # a control shown
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def _moment(field: str, text: str | None) -> float | None:
    """``--from``/``--to``: ISO 8601 (local time without an offset) or seconds since
    1970, as seconds since 1970.

    :raises InvalidRequest: naming the option, for text that is neither.
    """
    if text is None:
        return None
    try:
        return float(text) if text.replace(".", "", 1).isdigit() else (
            datetime.fromisoformat(text).astimezone().timestamp())  # fmt: skip
    except (ValueError, OverflowError, OSError):
        option = "--from" if field == "from_time" else "--to"
        raise InvalidRequest(BAD_MOMENT(option=option, given=text[:64]),
                             details={"field": field}) from None  # fmt: skip


def _stats_lines(name: str, summary: dict[str, Any], locale: str) -> list[str]:
    """One session's or actor's statistics as the terminal shows them."""
    lines = [STATS_LINE(name=name, **{k: summary[k] for k in (
        "rolls", "successes", "botches", "explosions")}).render(locale)]  # fmt: skip
    for faces, die in summary["dice"].items():
        mean = "-" if die["mean"] is None else i18n.number(die["mean"], ".2f", locale)
        line = STATS_DIE(faces=faces, count=die["count"], mean=mean,
                         expected=i18n.number(die["expected"], ".2f", locale))  # fmt: skip
        lines.append("  " + line.render(locale))
    lines += [f"  {row['label']}: {row['value']}" for row in summary["ruleset"] if row["value"]]
    return lines
