"""What ``serve`` and ``table create`` print for the operator, in the operator's language.

The start-up and status lines of ``serve`` (the demo table's join lines, the
"serving" line, each table's web view, the note on ``--host 0.0.0.0``, the last
"stopped") and ``table create``'s lines (the table, its tokens, its links at
``--public-url``) are catalogue messages rendered in the command's ``--locale``, else
the environment's language (:mod:`rollbridge.cli.locales`). What a script or another
command reads stays as it is in every language: the URLs, the ids, the tokens, the
role names (``gm``, ``player``, ``observer``, the words ``--new`` takes) and
``--json``'s answers. The operator's log (stderr) stays English.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rollbridge.text import Messages
from rollbridge.visible import visible

__all__ = [
    "created_lines",
    "demo_lines",
    "every_address_line",
    "serving_line",
    "serving_redis_line",
    "stopped_line",
    "unloaded_line",
    "web_lines",
]

say = Messages("rollbridge")
# Translators: a warning serve prints after its serving line; {rulesets} lists ruleset
# ids, each with its number of tables in brackets; ruleset_unavailable is an error code
# and "rollbridge rulesets" a command, typed as they are.
UNLOADED = say.plural(
    "cli.serve.unloaded",
    "warning: {count} table's ruleset is not loaded ({rulesets}): its players are refused "
    "(ruleset_unavailable) until it is; rollbridge rulesets lists the loaded ones",
    "warning: {count} tables' rulesets are not loaded ({rulesets}): their players are "
    "refused (ruleset_unavailable) until they are; rollbridge rulesets lists the loaded ones",
)
# Translators: after cli.serve.unloaded on the same line; ROLLBRIDGE_PLUGINS is an
# environment variable, {names} its value as set, quoted.
ONLY_ALLOWED = say(
    "cli.serve.only_allowed", "ROLLBRIDGE_PLUGINS is {names}: only plugins of those names load"
)
# Translators: after cli.serve.unloaded on the same line; ROLLBRIDGE_BLOCK_PLUGINS is an
# environment variable, {names} its value as set, quoted.
BLOCKED = say(
    "cli.serve.blocked",
    "ROLLBRIDGE_BLOCK_PLUGINS is {names}: plugins of those names never load",
)
# Translators: after cli.serve.unloaded on the same line;
# ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD is an environment variable, {value} its value as
# set, quoted; {names} the names of plugins installed as Python packages (pip), which
# it keeps from loading.
NOT_AUTOLOADED = say(
    "cli.serve.not_autoloaded",
    "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD is {value}: the plugins installed as packages "
    "({names}) do not load",
)
# Translators: the first line serve prints about the demo table it has just made; its
# join tokens follow, each shown this once.
DEMO_MADE = say("cli.serve.demo_made", "A demo table was created (shown once; keep the tokens):")
# Translators: the label before the demo table's id (at most 8 characters keeps the
# column the tokens are in).
TABLE_LABEL = say("cli.serve.table_label", "table")
# Translators: {url} is the table's join URL, {token} the GM's token; the command after
# the colon is typed as it is.
DEMO_JOIN = say("cli.serve.demo_join", "Join it:  rollbridge connect {url} --token {token}")
# Translators: {web} is the table's web view; #token=TOKEN is typed as it is, with a
# token in place of TOKEN.
DEMO_OPEN = say(
    "cli.serve.demo_open", "Or open   {web}  and paste a token, or share {web}#token=TOKEN"
)
# Translators: the line serve prints once it listens; {url} where clients connect,
# {db} the database (a file, or a Redis server). Ctrl-C is the key.
SERVING = say.plural(
    "cli.serve.serving",
    "rollbridge serving {count} table on {url} (db {db}); Ctrl-C stops",
    "rollbridge serving {count} tables on {url} (db {db}); Ctrl-C stops",
)
# Translators: as cli.serve.serving, for a serve on Redis; {redis} is the Redis URL as
# given (any password as ***), {database} the number of the Redis database used.
SERVING_REDIS = say.plural(
    "cli.serve.serving_redis",
    "rollbridge serving {count} table on {url} (Redis at {redis}, database {database});"
    " Ctrl-C stops",
    "rollbridge serving {count} tables on {url} (Redis at {redis}, database {database});"
    " Ctrl-C stops",
)
# Translators: one line per table serve serves; {url} its web view, {name} its name.
WEB_VIEW = say("cli.serve.web_view", "web view  {url}  ({name})")
# Translators: after the first tables' web views; {count} tables not shown (never
# fewer than one). "rollbridge table list" is a command, typed as it is.
MORE = say("cli.serve.more", "… and {count} more (rollbridge table list)")
# Translators: as the line before, for a serve given --db or --redis; {options} is
# "--db FILE" or "--redis URL", typed as it is, so that the command lists this
# server's tables.
MORE_OF = say("cli.serve.more_of", "… and {count} more (rollbridge table list {options})")
# Translators: {host} is 0.0.0.0 or ::, which means every address of this machine;
# --public-url URL is an option, typed as it is.
EVERY_ADDRESS = say(
    "cli.serve.every_address",
    "({host} is every address of this machine, not one a browser reaches: give players"
    " its name or address in its place, or start serve with --public-url URL)",
)
# Translators: serve's last line, once it has stopped.
STOPPED = say("cli.serve.stopped", "rollbridge stopped")
# Translators: the first line of table create; {table} the new table's id, {name} its
# name, {ruleset} and {version} its ruleset's id and version.
CREATED = say("cli.table.created", "table {table} ({name}, ruleset {ruleset} {version})")
# Translators: before the new table's join tokens, one per line.
TOKENS_ONCE = say("cli.table.tokens_once", "join tokens (shown once):")
# Translators: {web} is the table's web view; #token=TOKEN is typed as it is, with a
# token in place of TOKEN.
CREATED_WEB = say("cli.table.web_view", "web view  {web}  (a player's link: {web}#token=TOKEN)")
# Translators: {url} is what the Foundry VTT module's "Server URL" setting takes.
CREATED_FOUNDRY = say("cli.table.foundry", "Foundry   {url}  (the module's Server URL)")

#: The width of the labels before the demo table's id, URL and tokens.
LABEL_WIDTH = 8


def _tokens(tokens: Mapping[str, str], indent: str) -> str:
    """One line per join token: its role (as ``--new`` names it) and the token."""
    return "".join(f"{indent}{role:<{LABEL_WIDTH}} {token}\n" for role, token in tokens.items())


def demo_lines(table: str, tokens: Mapping[str, str], url: str, web: str, locale: str) -> str:
    """How to join the demo table just made: its id, join URL (``url``) and tokens
    (shown this once), the ``connect`` command and the web view (``web``)."""
    label = TABLE_LABEL().render(locale)
    return (
        f"{DEMO_MADE().render(locale)}\n"
        f"  {label:<{LABEL_WIDTH}} {table}\n  {'url':<{LABEL_WIDTH}} {url}\n"
        + _tokens(tokens, "  ")
        + f"{DEMO_JOIN(url=url, token=tokens['gm']).render(locale)}\n"
        + f"{DEMO_OPEN(web=web).render(locale)}\n"
    )


def serving_line(count: int, url: str, db: str, locale: str) -> str:
    """The line that says ``serve`` listens: how many tables, where, on which store
    (a file's path, its control characters shown, not obeyed: a folder's name may
    hold an escape sequence or a line break)."""
    return f"{SERVING(count=count, url=url, db=visible(db)).render(locale)}\n"


def serving_redis_line(count: int, url: str, redis: str, database: int, locale: str) -> str:
    """:func:`serving_line` for a ``serve`` on Redis: ``redis`` the URL as given, any
    password in it as ``***`` (:func:`~rollbridge.stores.redis_url.without_password`),
    and the number of the database it uses (the URL's, else 0)."""
    said = SERVING_REDIS(count=count, url=url, redis=visible(redis), database=database)
    return f"{said.render(locale)}\n"


def web_lines(views: Sequence[tuple[str, str]], more: int, locale: str, options: str = "") -> str:
    """One line per table's web view (``views``: its address and its name), and how
    many ``more`` tables there are beyond them, with the ``table list`` command that
    lists them all (``options``: the store options it needs, ``--db FILE`` or
    ``--redis URL``, if any: without them it would list the default database's)."""
    # a name made before names were checked: its controls shown, not obeyed
    lines = [f"  {WEB_VIEW(url=url, name=visible(name)).render(locale)}\n" for url, name in views]
    if more:
        said = MORE_OF(count=more, options=options) if options else MORE(count=more)
        lines.append(f"  {said.render(locale)}\n")
    return "".join(lines)


def unloaded_line(
    missing: Mapping[str, int],
    locale: str,
    *,
    allowed: str | None = None,
    blocked: str | None = None,
    autoload_off: str | None = None,
    installed: Sequence[str] = (),
) -> str:
    """The warning that tables use rulesets not loaded (``missing``: each ruleset's id
    and how many tables use it), naming each plugin control of the server's
    environment that keeps plugins out, as set: ``$ROLLBRIDGE_PLUGINS`` (``allowed``),
    ``$ROLLBRIDGE_BLOCK_PLUGINS`` (``blocked``), and ``$ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD``
    (``autoload_off``) with the ``installed`` plugins it keeps out (said only if there
    are any). A service's environment is not the operator's shell, where ``rollbridge
    rulesets`` lists the ruleset as loaded."""
    rulesets = ", ".join(f"{ruleset} ({count})" for ruleset, count in sorted(missing.items()))
    said = [UNLOADED(count=sum(missing.values()), rulesets=rulesets)]
    if allowed is not None:
        said.append(ONLY_ALLOWED(names=repr(allowed)))
    if blocked is not None:
        said.append(BLOCKED(names=repr(blocked)))
    if autoload_off is not None and installed:
        said.append(NOT_AUTOLOADED(value=repr(autoload_off), names=", ".join(installed)))
    return f"  {'; '.join(text.render(locale) for text in said)}\n"


def every_address_line(host: str, locale: str) -> str:
    """The note that ``host`` (``0.0.0.0``, ``::``) is no address a browser reaches."""
    return f"  {EVERY_ADDRESS(host=host).render(locale)}\n"


def stopped_line(locale: str) -> str:
    """``serve``'s last line."""
    return f"{STOPPED().render(locale)}\n"


def created_lines(
    summary: Mapping[str, object],
    tokens: Mapping[str, str],
    links: Mapping[str, str],
    locale: str,
) -> str:
    """What ``table create`` prints: the table (``summary``: its id, name, ruleset and
    version), its join tokens (shown this once) and, at ``--public-url``, its ``links``
    (``web_view``, ``server_url``)."""
    created = CREATED(
        table=summary["id"],
        name=summary["name"],
        ruleset=summary["ruleset"],
        version=summary["ruleset_version"],
    )
    text = f"{created.render(locale)}\n{TOKENS_ONCE().render(locale)}\n" + _tokens(tokens, "  ")
    if links:
        text += f"{CREATED_WEB(web=links['web_view']).render(locale)}\n"
        text += f"{CREATED_FOUNDRY(url=links['server_url']).render(locale)}\n"
    return text
