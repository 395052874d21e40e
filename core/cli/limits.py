"""``rollbridge serve``'s limits for a hosted server: one option each, read into a
:class:`~rollbridge.server.limits.Limits` (docs/operations.md, "Limits")."""

from __future__ import annotations

import argparse
import math

from rollbridge.cli.helps import Help, help_locale
from rollbridge.server.addresses import Network, parse_network
from rollbridge.server.limits import Limits
from rollbridge.text import Message, Messages

__all__ = ["add_limit_options", "limits_from"]

say = Messages("rollbridge")
_DEFAULTS = Limits()
#: What a limit's value should have been: by (a whole number?, may it be 0?).
# Translators: the usage errors of serve's limit options; {given} is the value as typed.
_WRONG = {
    (True, True): say("cli.option.whole_from_0", "expected a whole number at least 0, not {given}"),
    (True, False): say("cli.option.whole_above_0", "expected a whole number above 0, not {given}"),
    (False, True): say("cli.option.number_from_0", "expected a number at least 0, not {given}"),
    (False, False): say("cli.option.number_above_0", "expected a number above 0, not {given}"),
}
TOO_FEW = say("cli.option.at_least", "expected at least {least}, not {given}")
NOT_A_NETWORK = say(
    "cli.option.network", "expected an address or a network such as 10.0.0.0/8, not {given}"
)


def _number(kind: type, offable: bool, least: int = 0) -> object:
    """An argparse type: a finite number of ``kind``, ≥ 0 where 0 means no limit
    (``offable``), else > 0 — and, but for that 0, at least ``least``, if given."""

    def parse(text: str) -> int | float | None:
        try:
            value = kind(text)
        except ValueError:
            value = -1
        if not math.isfinite(value) or value < 0 or (value == 0 and not offable):
            # "2.5" is a number, not a whole one
            wrong = _WRONG[kind is int, offable](given=repr(text))
            raise argparse.ArgumentTypeError(wrong.render(help_locale()))
        if value < least and not (offable and value == 0):
            few = TOO_FEW(least=least, given=repr(text))
            raise argparse.ArgumentTypeError(few.render(help_locale()))
        return value or None

    return parse


#: The limits that cannot be turned off (every event has a size; a close and a
#: shutdown always end).
_ALWAYS = frozenset({"max_event_bytes", "close_timeout", "drain_timeout"})

#: Limits below which the server would refuse ordinary play: an sr2 attack's event
#: is about 3 KiB packed, so a mistyped ``--max-event-size 10`` (meant as KiB?)
#: would refuse every request. An HTTP rate below one request in 100 s would have a
#: client told to wait for hours.
_LEAST = {"max_event_bytes": 4096, "http_rate_per_address": 0.01}


def _network(text: str) -> Network:
    """An argparse type: an address or a network of trusted proxies."""
    try:
        return parse_network(text)
    except ValueError:
        said = NOT_A_NETWORK(given=repr(text)).render(help_locale())
        raise argparse.ArgumentTypeError(said) from None


def _shown(value: float | int) -> float | int:
    """A default as its help shows it: 10.0 as 10, 0.5 as 0.5 (written in the help's
    language: 0,5 in Czech)."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def add_limit_options(serve: argparse.ArgumentParser) -> None:
    """Add the limit options to ``serve`` (0 turns a limit off)."""
    group = serve.add_argument_group(
        Help(
            say(
                "cli.help.limits",
                "limits (0 turns one off, but for the event size and the two timeouts; "
                "see docs/operations.md)",
            )
        )
    )
    options: list[tuple[str, str, type, Message]] = [
        ("--hello-timeout", "hello_timeout", float, say("cli.help.limits.hello_timeout",
         "seconds a connection may stay without a hello (close 1008)")),
        ("--max-connections", "max_connections", int, say("cli.help.limits.max_connections",
         "connections open at once on this process, all clients together (close 1013)")),
        ("--max-connections-per-address", "per_address", int, say("cli.help.limits.per_address",
         "connections open at once from one client address, an IPv6 /64 as one; "
         "with --redis on every process together (close 1013)")),
        ("--max-connections-per-token", "per_token", int, say("cli.help.limits.per_token",
         "connections open at once with one join token (error too_many_connections)")),
        ("--rate-per-connection", "rate_per_connection", float, say(
         "cli.help.limits.rate_per_connection",
         "requests per second of one connection, bursts of twice (error rate_limited)")),
        ("--rate-per-table", "rate_per_table", float, say("cli.help.limits.rate_per_table",
         "requests per second at one table, all clients together (error rate_limited)")),
        ("--max-event-size", "max_event_bytes", int, say("cli.help.limits.max_event_size",
         "bytes of the largest event one request may make, at least 4096 (error "
         "event_too_large)")),
        ("--max-actors", "max_actors", int, say("cli.help.limits.max_actors",
         "actors one table holds (error limit_exceeded)")),
        ("--http-rate-per-address", "http_rate_per_address", float, say(
         "cli.help.limits.http_rate_per_address",
         "plain HTTP requests per second from one client address, bursts of ten "
         "times as many, with --redis on every process together; loopback and a "
         "trusted proxy's own not counted (HTTP 429)")),
        ("--wrong-tokens-per-address", "wrong_tokens_per_address", int, say(
         "cli.help.limits.wrong_tokens_per_address",
         "wrong tokens (join, admin, export) one client address may present in 10 "
         "minutes; past them its tokens are refused unchecked (error rate_limited, "
         "HTTP 429)")),
        ("--close-timeout", "close_timeout", float, say("cli.help.limits.close_timeout",
         "seconds a client has to take its close before it is aborted")),
        ("--drain-timeout", "drain_timeout", float, say("cli.help.limits.drain_timeout",
         "seconds serve gives its clients at shutdown before aborting them")),
    ]  # fmt: skip
    group.add_argument(
        "--trusted-proxy",
        dest="limit_trusted_proxies",
        type=_network,
        action="append",
        default=[],
        metavar=Help(say("cli.help.network", "NETWORK")),
        help=Help(
            say(
                "cli.help.serve.trusted_proxy",
                "a reverse proxy in front of the server (an address, or a network such as "
                "10.0.0.0/8; repeat for several): a connection from it counts as the client "
                "its X-Forwarded-For header names (default none: the header is ignored)",
            )
        ),
    )
    # Translators: a limit option's help; {text} says what it limits, {default} is a
    # number or the word of cli.help.limits.none.
    with_default = say("cli.help.limits.default", "{text} (default {default})")
    # Translators: the default of a limit that is off unless given.
    none = say("cli.help.limits.none", "none")()
    for flag, field, kind, text in options:
        default = getattr(_DEFAULTS, field)
        group.add_argument(
            flag,
            dest=f"limit_{field}",
            type=_number(kind, offable=field not in _ALWAYS, least=_LEAST.get(field, 0)),
            default=default,
            metavar="N",
            help=Help(
                with_default, text=text(), default=none if default is None else _shown(default)
            ),
        )


def limits_from(args: argparse.Namespace) -> Limits:
    """The :class:`Limits` the parsed options ask for."""
    values = {
        name[len("limit_") :]: value
        for name, value in vars(args).items()
        if name.startswith("limit_")
    }
    values["trusted_proxies"] = tuple(values.get("trusted_proxies") or ())
    return Limits(**values)
