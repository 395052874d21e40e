"""The settings in a Redis URL's query (``?db=1&socket_timeout=5``), checked before
anything connects: one job, refusing what redis-py would take without a word.

redis-py (:func:`redis.connection.parse_url`) reads each query setting it knows with
``int``, ``float`` or its own yes-or-no reading, and takes whatever that gives:
``db=-1`` reached Redis, whose own ``DB index is out of range`` was all the operator
read; ``socket_timeout=-1`` or ``nan`` failed only at connecting, with a traceback;
``retry_on_timeout=off`` meant *yes* (only ``0``, ``F``, ``FALSE``, ``N`` and ``NO``
are no); a setting given twice counted once, the first; a database in the path and
another in ``db=`` was the query's. Each of these is refused here, naming the setting
and its value. So are ``decode_responses``, which redis-py hands on as the text given
(``no`` too is yes) though this store reads Redis's answers as bytes, and a TLS
setting (``ssl_cert_reqs``, …) in a URL that speaks no TLS, which redis-py refused as
a setting it does not take. In a ``rediss://`` URL the TLS settings are judged too, and
so is ``retry_on_error`` in any: redis-py's own English (``Invalid SSL Certificate
Requirements Flag: maybe``, ``Invalid value for 'retry_on_error' in connection URL.``)
was all an operator read, or a missing certificate file surfaced only once Redis
answered. A setting redis-py does not know is left to it
(:data:`~rollbridge.stores.redis_url.UNKNOWN_SETTING` says it at the first ``PING``).
"""

from __future__ import annotations

import inspect
import math
import os
import re
import ssl
from collections.abc import Callable
from urllib.parse import parse_qs, unquote

import redis

from rollbridge.text import Messages, Text

__all__ = ["WHOLE_NUMBER", "query_problem"]

say = Messages("rollbridge")
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {setting} a setting of the URL's query (db, socket_timeout, …) and {value} its value
# as given, quoted, both as they are; {expected} one of the phrases below; {option}
# where the URL is given.
BAD_VALUE = say(
    "redis.query.bad_value",
    "the URL's {setting} is {value}, not {expected}: correct it in {option}",
)
# Translators: {setting} a setting of the URL's query, as it is; redis-py is a name;
# {option} where the URL is given.
TWICE = say(
    "redis.query.twice",
    "the URL's query gives {setting} more than once, and redis-py would take the first"
    " only: give it once in {option}",
)
# Translators: {path} the database after the port, {query} the one of db= in the query;
# redis-py is a name; {option} where the URL is given.
TWO_DATABASES = say(
    "redis.query.two_databases",
    "the URL gives database {path} after the port and database {query} in its query"
    " (db=), and redis-py would use the query's only: give one in {option}",
)
# Translators: why a Redis server cannot be used, after "cannot open {path}: "; {value}
# the value given, quoted; decode_responses, no, false and redis-py stay as they are;
# {option} where the URL is given.
DECODED = say(
    "redis.query.decoded",
    "the URL's query gives decode_responses ({value}), which rollbridge cannot work with:"
    " it reads Redis's answers as bytes itself, and redis-py takes any value of it in a"
    " URL, no and false too, as yes: remove it from {option}",
)
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {setting} a TLS setting of the URL's query (ssl_cert_reqs, …) and {scheme} the URL's
# scheme (redis://, unix://), as they are; rediss:// and TLS stay as they are; {option}
# where the URL is given.
TLS_SETTING = say(
    "redis.query.tls_setting",
    "the URL's query gives {setting}, a setting of TLS, but a {scheme} URL speaks no TLS:"
    " give rediss:// in {option} for a Redis with TLS, or remove {setting}",
)
# Translators: what the URL's db= should be, put for {expected} above.
A_DATABASE = say(
    "redis.query.a_database",
    "a database number written in the digits 0 to 9 (0 to 15 on a Redis as it comes)",
)
# Translators: what a timeout of the URL should be, put for {expected} above.
SECONDS = say("redis.query.seconds", "a number of seconds above 0")
# Translators: what a count of the URL should be (max_connections, …), for {expected}.
FROM_ONE = say("redis.query.from_one", "a whole number from 1")
# Translators: what health_check_interval should be, put for {expected} above.
FROM_ZERO = say("redis.query.from_zero", "a whole number of seconds from 0")
# Translators: what protocol= should be (the versions of Redis's protocol), for {expected}.
PROTOCOL = say("redis.query.protocol", "2 or 3")
# Translators: what a yes-or-no setting should be, put for {expected} above; the words
# are what redis-py reads, and stay as they are.
YES_OR_NO = say("redis.query.yes_or_no", "one of yes, no, true, false, y, n, t, f, 1 or 0")
# Translators: what ssl_cert_reqs should be, put for {expected} above; the words stay.
CERT_REQS = say("redis.query.cert_reqs", "one of none, optional or required")
# Translators: what ssl_min_version should be, put for {expected} above: Python's
# numbers of the TLS versions; TLS stays.
TLS_VERSION = say(
    "redis.query.tls_version", "the number of a TLS version (771 for TLS 1.2, 772 for TLS 1.3)"
)
# Translators: what ssl_include_verify_flags should be, for {expected} above; the names
# are Python's and stay as they are.
VERIFY_FLAGS = say(
    "redis.query.verify_flags",
    "names of Python's ssl.VerifyFlags separated by commas, such as VERIFY_X509_STRICT",
)
# Translators: what retry_on_error should be, for {expected} above; the names are
# redis-py's and stay as they are.
REDIS_ERRORS = say(
    "redis.query.redis_errors",
    "names of redis-py's errors separated by commas, such as ConnectionError,TimeoutError",
)
# Translators: what ssl_ciphers should be, for {expected} above; OpenSSL is a name;
# ECDHE%2BAESGCM is ECDHE+AESGCM as a URL's query writes it, and stays as it is.
CIPHERS = say("redis.query.ciphers", "a list of ciphers OpenSSL knows, such as ECDHE%2BAESGCM")
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# ssl_ciphers, redis-py and OpenSSL stay as they are; {given} the value as written in
# the URL, {read} as redis-py reads it (each + a space), {written} with each + as %2B,
# all quoted; {option} where the URL is given.
PLUS_IS_SPACE = say(
    "redis.query.plus_is_space",
    "the URL's ssl_ciphers is {given}, whose + a URL's query means a space: redis-py reads "
    "{read}, which OpenSSL takes for other ciphers (each word alone): write each + as %2B, "
    "{written}, in {option}",
)
# Translators: what ssl_certfile, ssl_keyfile or ssl_ca_certs should be, for {expected}.
A_FILE = say("redis.query.a_file", "a file on this machine")
# Translators: what ssl_ca_path should be, for {expected} above.
A_FOLDER = say("redis.query.a_folder", "a folder on this machine")

#: A whole number written in the digits 0 to 9, a plus sign before it taken as
#: ``int`` takes it (``int`` also takes ``-1``, ``1_0``, `` 1 `` and other scripts'
#: digits, which redis-py passed on): a database number after the port, and the
#: query's numbers.
WHOLE_NUMBER = re.compile(r"\+?[0-9]+")
#: The words redis-py reads as no, and those that mean yes (it takes any other as yes).
_NO = {"0", "F", "FALSE", "N", "NO"}
_YES = {"1", "T", "TRUE", "Y", "YES"}
#: The TLS settings redis-py's TLS connection takes (``ssl_cert_reqs``, ``ssl_ca_certs``,
#: …): a ``redis://`` or ``unix://`` connection refuses each as a setting it does not
#: know, though it is no misspelling.
_TLS_SETTINGS = frozenset(
    name for name in inspect.signature(redis.SSLConnection).parameters if name.startswith("ssl_")
)


def _whole(least: int) -> Callable[[str], bool]:
    return lambda value: bool(WHOLE_NUMBER.fullmatch(value)) and int(value) >= least


def _names(value: str) -> list[str]:
    """A list of names as redis-py reads one: ``A,B`` or ``[A, B]``."""
    return [name.strip() for name in value.replace("[", "").replace("]", "").split(",")]


def _redis_errors(value: str) -> bool:
    found = [getattr(redis.exceptions, name, None) if name else None for name in _names(value)]
    return all(isinstance(error, type) and issubclass(error, Exception) for error in found)


def _verify_flags(value: str) -> bool:
    return all(name in ssl.VerifyFlags.__members__ for name in _names(value))


def _ciphers(value: str) -> bool:
    try:
        ssl.create_default_context().set_ciphers(value)
    except ssl.SSLError:
        return False
    return True


def _plus_in_ciphers(query: str) -> str | None:
    """The ``ssl_ciphers`` of ``query`` as written, if a ``+`` is in it (OpenSSL's
    "and": ``ECDHE+AESGCM``), which a URL's query, and so redis-py, reads as a space
    (OpenSSL's "or": ``ECDHE AESGCM`` lets every ECDHE cipher and every AES-GCM one,
    anonymous ones too); else None."""
    for pair in query.split("&"):
        name, _, value = pair.partition("=")
        if unquote(name.replace("+", " ")) == "ssl_ciphers" and "+" in value:
            return value
    return None


#: The numbers of the TLS versions (``ssl.TLSVersion``) a ``ssl_min_version`` may give:
#: -2 and -1 too (``MINIMUM_SUPPORTED``, ``MAXIMUM_SUPPORTED``: the newest version
#: only), which redis-py takes as Python does.
_TLS_VERSIONS = {int(version) for version in ssl.TLSVersion}
#: A whole number, as ``int`` reads ``ssl_min_version`` (a sign before it).
_SIGNED_WHOLE = re.compile(r"[+-]?[0-9]+")


def _seconds(value: str) -> bool:
    try:
        number = float(value)
    except ValueError:
        return False
    return math.isfinite(number) and number > 0


#: The settings checked, each with its test and what it should be.
_CHECKS: dict[str, tuple[Callable[[str], bool], Text]] = {
    "db": (_whole(0), A_DATABASE()),
    "socket_timeout": (_seconds, SECONDS()),
    "socket_connect_timeout": (_seconds, SECONDS()),
    "timeout": (_seconds, SECONDS()),
    "socket_read_size": (_whole(1), FROM_ONE()),
    "max_connections": (_whole(1), FROM_ONE()),
    "health_check_interval": (_whole(0), FROM_ZERO()),
    "protocol": (lambda value: value.strip("+") in ("2", "3"), PROTOCOL()),
    **{
        name: (lambda value: value.upper() in _NO | _YES, YES_OR_NO())
        for name in (
            "socket_keepalive",
            "retry_on_timeout",
            "ssl_check_hostname",
            "ssl_validate_ocsp",
            "ssl_validate_ocsp_stapled",
            "legacy_responses",
        )
    },
    "retry_on_error": (_redis_errors, REDIS_ERRORS()),
    # the TLS settings, of a rediss:// URL (any other refuses them, as below)
    "ssl_cert_reqs": (lambda value: value in ("none", "optional", "required"), CERT_REQS()),
    "ssl_min_version": (
        lambda value: bool(_SIGNED_WHOLE.fullmatch(value)) and int(value) in _TLS_VERSIONS,
        TLS_VERSION(),
    ),
    "ssl_include_verify_flags": (_verify_flags, VERIFY_FLAGS()),
    "ssl_exclude_verify_flags": (_verify_flags, VERIFY_FLAGS()),
    "ssl_ciphers": (_ciphers, CIPHERS()),
    "ssl_certfile": (os.path.isfile, A_FILE()),
    "ssl_keyfile": (os.path.isfile, A_FILE()),
    "ssl_ca_certs": (os.path.isfile, A_FILE()),
    "ssl_ca_path": (os.path.isdir, A_FOLDER()),
}


def query_problem(query: str, path: str, option: Text | str, scheme: str = "redis") -> Text | None:
    """What is wrong with a Redis URL's ``query`` (as redis-py reads it: blank values
    skipped), given its ``path`` (the database after the port, for a ``redis://`` or
    ``rediss://`` URL; else empty) and its ``scheme`` (``redis``, ``rediss`` or
    ``unix``), or None. Only the settings of :data:`_CHECKS`, ``decode_responses`` and
    the TLS settings are looked at: a password's value is never named.

    :param option: where the URL was given, for the message."""
    settings = parse_qs(query)
    plus = _plus_in_ciphers(query)
    if plus is not None and scheme == "rediss":
        return PLUS_IS_SPACE(
            given=repr(plus),
            read=repr(plus.replace("+", " ")),
            written=repr(plus.replace("+", "%2B")),
            option=option,
        )
    for name, values in settings.items():
        if name == "decode_responses":
            return DECODED(value=repr(values[0]), option=option)
        if name in _TLS_SETTINGS and scheme != "rediss":
            return TLS_SETTING(setting=name, scheme=f"{scheme}://", option=option)
        if name not in _CHECKS:
            continue
        if len(values) > 1:
            return TWICE(setting=name, option=option)
        check, expected = _CHECKS[name]
        if not check(values[0]):
            return BAD_VALUE(setting=name, value=repr(values[0]), expected=expected, option=option)
    database = unquote(path).strip("/")
    given = settings.get("db", [None])[0]
    if given is not None and WHOLE_NUMBER.fullmatch(database) and int(database) != int(given):
        return TWO_DATABASES(path=database, query=given, option=option)
    return None
