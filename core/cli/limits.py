"""``rollbridge serve``'s limits for a hosted server: one option each, read into a
:class:`~rollbridge.server.limits.Limits` (docs/operations.md, "Limits")."""

from __future__ import annotations

import argparse
import math

from rollbridge.server.addresses import Network, parse_network
from rollbridge.server.limits import Limits

__all__ = ["add_limit_options", "limits_from"]

_DEFAULTS = Limits()


def _number(kind: type, offable: bool, least: int = 0) -> object:
    """An argparse type: a finite number of ``kind``, ≥ 0 where 0 means no limit
    (``offable``), else > 0 — and, but for that 0, at least ``least``, if given."""

    def parse(text: str) -> int | float | None:
        try:
            value = kind(text)
        except ValueError:
            value = -1
        if not math.isfinite(value) or value < 0 or (value == 0 and not offable):
            floor = "at least 0" if offable else "above 0"
            number = "a whole number" if kind is int else "a number"  # "2.5" is a number
            raise argparse.ArgumentTypeError(f"expected {number} {floor}, not {text!r}")
        if value < least and not (offable and value == 0):
            raise argparse.ArgumentTypeError(f"expected at least {least}, not {text!r}")
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
        raise argparse.ArgumentTypeError(
            f"expected an address or a network such as 10.0.0.0/8, not {text!r}"
        ) from None


def _shown(value: object) -> str:
    return "none" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def add_limit_options(serve: argparse.ArgumentParser) -> None:
    """Add the limit options to ``serve`` (0 turns a limit off)."""
    group = serve.add_argument_group(
        "limits (0 turns one off, but for the event size and the two timeouts; "
        "see docs/operations.md)"
    )
    options: list[tuple[str, str, type, str]] = [
        ("--hello-timeout", "hello_timeout", float,
         "seconds a connection may stay without a hello (close 1008)"),
        ("--max-connections", "max_connections", int,
         "connections open at once on this process, all clients together (close 1013)"),
        ("--max-connections-per-address", "per_address", int,
         "connections open at once from one client address, an IPv6 /64 as one; "
         "with --redis on every process together (close 1013)"),
        ("--max-connections-per-token", "per_token", int,
         "connections open at once with one join token (error too_many_connections)"),
        ("--rate-per-connection", "rate_per_connection", float,
         "requests per second of one connection, bursts of twice (error rate_limited)"),
        ("--rate-per-table", "rate_per_table", float,
         "requests per second at one table, all clients together (error rate_limited)"),
        ("--max-event-size", "max_event_bytes", int,
         "bytes of the largest event one request may make, at least 4096 (error "
         "event_too_large)"),
        ("--max-actors", "max_actors", int,
         "actors one table holds (error limit_exceeded)"),
        ("--http-rate-per-address", "http_rate_per_address", float,
         "plain HTTP requests per second from one client address, bursts of ten "
         "times as many, with --redis on every process together; loopback and a "
         "trusted proxy's own not counted (HTTP 429)"),
        ("--wrong-tokens-per-address", "wrong_tokens_per_address", int,
         "wrong tokens (join, admin, export) one client address may present in 10 "
         "minutes; past them its tokens are refused unchecked (error rate_limited, "
         "HTTP 429)"),
        ("--close-timeout", "close_timeout", float,
         "seconds a client has to take its close before it is aborted"),
        ("--drain-timeout", "drain_timeout", float,
         "seconds serve gives its clients at shutdown before aborting them"),
    ]  # fmt: skip
    group.add_argument(
        "--trusted-proxy",
        dest="limit_trusted_proxies",
        type=_network,
        action="append",
        default=[],
        metavar="NETWORK",
        help="a reverse proxy in front of the server (an address, or a network such as "
        "10.0.0.0/8; repeat for several): a connection from it counts as the client "
        "its X-Forwarded-For header names (default none: the header is ignored)",
    )
    for flag, field, kind, text in options:
        default = getattr(_DEFAULTS, field)
        group.add_argument(
            flag,
            dest=f"limit_{field}",
            type=_number(kind, offable=field not in _ALWAYS, least=_LEAST.get(field, 0)),
            default=default,
            metavar="N",
            help=f"{text} (default {_shown(default)})",
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
