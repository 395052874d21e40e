"""``rollbridge connect``: an interactive terminal client, and a live view of a table.

It joins a table, prints its state and every event as it arrives, and takes
typed commands (``help`` lists them). Reading commands from a pipe works too:
at the end of input it waits for the replies to what it sent, then leaves. This
module parses the command line; the client itself (the connection and the typed
commands) is :mod:`rollbridge.cli.terminal`, loaded only when it runs. The client
sends its ``--locale`` (else the environment's language) in its ``hello``, so the
server's texts and errors arrive in it, and prints its own words in it too. A close
the server (or the network) may come back from — 1013 (try again later), 1001 (the
server stopping), a connection lost without a close, … — does not end it, nor does a
gap in the events' numbers: it reconnects with backoff and resumes from the last event
it printed (:mod:`rollbridge.cli.reconnect`; docs/protocol.md, "rollbridge connect
after a close"). ``--reconnect-for`` (or ``--reconnect-attempts``) and
``ROLLBRIDGE_RECONNECT_DELAY`` set how long and how soon; ``--answer-timeout`` how
long the answers to what it sent are waited for once its input has ended, and
``ROLLBRIDGE_WELCOME_TIMEOUT`` how long each connection's welcome
(:mod:`rollbridge.cli.waits`).
"""

from __future__ import annotations

import argparse
import os
from urllib.parse import parse_qs, unquote, urlparse

from rollbridge.cli.helps import Help
from rollbridge.cli.locales import add_locale_option
from rollbridge.cli.reconnect import (
    DELAY_ENV,
    FIRST_DELAY,
    RECONNECT_FOR,
    attempts_option,
    schedule_from,
)
from rollbridge.cli.waits import (
    ANSWER_WAIT,
    MOST_ANSWER_WAIT,
    answer_timeout_option,
    waits_from,
)
from rollbridge.exceptions import InvalidRequest
from rollbridge.text import Messages

__all__ = ["add_parsers"]

say = Messages("rollbridge")
# Translators: {scheme} is the URL's scheme as given, quoted.
SCHEME = say(
    "cli.connect.scheme",
    "the URL must start with ws:// or wss:// (or the web view's http:// or https://), not {scheme}",
)
# Translators: {url} is what was given, quoted.
NO_SCHEME = say(
    "cli.connect.no_scheme",
    "give the whole URL, as serve prints it: ws://HOST:PORT/tables/ID (given: {url})",
)
NO_TABLE = say("cli.connect.no_table", "no table: use a URL ending in /tables/ID or give --table")
NO_TOKEN = say(
    "cli.connect.no_token", "give the table's join token with --token or ROLLBRIDGE_TOKEN"
)


def add_parsers(commands: argparse._SubParsersAction) -> None:
    """Add ``connect``."""
    parser = commands.add_parser(
        "connect",
        help=Help(say("cli.help.connect", "join a table from the terminal and watch it live")),
    )
    parser.add_argument(
        "url",
        help=Help(
            say(
                "cli.help.connect.url",
                "ws://HOST:PORT/tables/TABLE (as `serve` prints it); a web view's "
                "http:// or https:// address, or its share link with #token=…, does too",
            )
        ),
    )
    parser.add_argument(
        "--token",
        help=Help(
            say(
                "cli.help.connect.token",
                "a join token of the table (or set ROLLBRIDGE_TOKEN, which other users of "
                "the machine cannot read in the process list)",
            )
        ),
    )
    parser.add_argument(
        "--table",
        help=Help(say("cli.help.connect.table", "table id, if the URL does not end in /tables/ID")),
    )
    parser.add_argument(
        "--msgpack",
        action="store_true",
        help=Help(say("cli.help.connect.msgpack", "use binary msgpack frames")),
    )
    # one or the other: both given, the attempts won and the time was silently not used
    reconnecting = parser.add_mutually_exclusive_group()
    reconnecting.add_argument(
        "--reconnect-for",
        type=answer_timeout_option,
        default=None,
        metavar=Help(say("cli.help.seconds", "SECONDS")),
        help=Help(
            # Translators: {default}, {most} and {first} are numbers of seconds, {env} an
            # environment variable; --reconnect-attempts is an option, typed as it is.
            say(
                "cli.help.connect.reconnect_for",
                "after a close the server may come back from (a restart, a network or "
                "Redis outage), keep trying to reconnect this long before the session "
                "ends (default {default:g}, 0 to {most:g}; 0: never); the first attempt "
                "after {first:g} s (or ${env}), each next one waits twice as long, up to "
                "8 s, and each failed one is said",
            ),
            default=RECONNECT_FOR,
            most=MOST_ANSWER_WAIT,
            first=FIRST_DELAY,
            env=DELAY_ENV,
        ),
    )
    reconnecting.add_argument(
        "--reconnect-attempts",
        type=attempts_option,
        default=None,
        metavar="N",
        help=Help(
            say(
                "cli.help.connect.reconnect_attempts_instead",
                "count attempts instead: try this many times (0 to 100; 0: never) "
                "before the session ends, however long they take (not with "
                "--reconnect-for)",
            ),
        ),
    )
    parser.add_argument(
        "--answer-timeout",
        type=answer_timeout_option,
        default=ANSWER_WAIT,
        metavar=Help(say("cli.help.seconds", "SECONDS")),
        help=Help(
            # Translators: {default} and {most} are numbers of seconds.
            say(
                "cli.help.connect.answer_timeout",
                "once the input has ended (or quit was typed), wait this long for the "
                "answers to what was sent (default {default:g}, 0 to {most:g}); a request "
                "still unanswered then ends the session with status 1",
            ),
            default=ANSWER_WAIT,
            most=MOST_ANSWER_WAIT,
        ),
    )
    add_locale_option(parser)
    parser.set_defaults(handler=_connect)


#: The web view's address of a table is its WebSocket address too (one port, one path).
_WEB_SCHEMES = {"http": "ws", "https": "wss"}


def _table_from(url: str, table: str | None) -> tuple[str, str, str | None]:
    """The WebSocket URL to connect to (a web view's ``http(s)://`` one turned into
    ``ws(s)://``, the overlay's ``/tables/ID/overlay`` into its table's), the table's
    id (``--table``, else the URL's ``/tables/ID``) and the token a web view's share
    link carries (``#token=…``), if any."""
    if "://" not in url:
        raise InvalidRequest(NO_SCHEME(url=repr(url)))
    parsed = urlparse(url)
    shared = parse_qs(parsed.fragment).get("token", [None])[0]
    if parsed.scheme in _WEB_SCHEMES:
        parsed = parsed._replace(scheme=_WEB_SCHEMES[parsed.scheme])
    parsed = parsed._replace(fragment="")  # the token goes in the hello, not the URL
    url = parsed.geturl()
    if parsed.scheme not in ("ws", "wss"):
        raise InvalidRequest(SCHEME(scheme=repr(parsed.scheme + "://")))
    parts = [p for p in parsed.path.split("/") if p]
    if len(parts) >= 3 and parts[-3] == "tables" and parts[-1] == "overlay":
        parts = parts[:-1]  # the stream overlay's link (docs/web.md): its table's
        parsed = parsed._replace(path="/" + "/".join(parts))
        url = parsed.geturl()
    if table is None and len(parts) >= 2 and parts[-2] == "tables":
        table = unquote(parts[-1])  # the web view's address quotes it
    if not table:
        raise InvalidRequest(NO_TABLE())
    return url, table, shared


def _connect(args: argparse.Namespace) -> int:
    url, table, shared = _table_from(args.url, args.table)
    # given for this URL (--token, the link's own) before the shell's, set for any table
    token = args.token or shared or os.environ.get("ROLLBRIDGE_TOKEN")
    if not token:
        raise InvalidRequest(NO_TOKEN())
    within = RECONNECT_FOR if args.reconnect_for is None else args.reconnect_for
    schedule = schedule_from(args.reconnect_attempts, os.environ, within)
    waits = waits_from(args.answer_timeout, os.environ)
    from rollbridge.cli.terminal import run  # websockets and asyncio load only here

    return run(
        url,
        table,
        token,
        binary=args.msgpack,
        locale=args.locale,
        schedule=schedule,
        waits=waits,
    )
