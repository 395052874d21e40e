"""The operator's Redis URL (:mod:`rollbridge.stores.redis`): one job, saying what
is wrong with it without ever printing a password.

``--redis`` and ``$ROLLBRIDGE_REDIS`` are typed by hand, often with a password in
them. This module hides that password in anything printed (:func:`without_password`),
refuses a database that is no number before redis-py quietly takes database 0 for it
(:func:`check_database`), and turns redis-py's refusals at the first ``PING`` into
a line that names the problem and its fix (:func:`why_not_opened`); a URL that names
a replica is said with its fix when a write is refused (:data:`READ_ONLY`).
"""

from __future__ import annotations

import re
import socket
import ssl
from collections.abc import Iterator
from typing import Any
from urllib.parse import parse_qs, unquote, unquote_plus, urlsplit, urlunsplit

import redis

from rollbridge.exceptions import StoreError
from rollbridge.stores.base import CANNOT_OPEN, NO_REDIS
from rollbridge.stores.redis_query import WHOLE_NUMBER, query_problem
from rollbridge.text import Messages, Text

__all__ = [
    "MIGRATE_OPTION",
    "OPTION_OR_ENV",
    "READ_ONLY",
    "UNKNOWN_SETTING",
    "address_of",
    "check_database",
    "safe_error",
    "server_of",
    "tls_refused",
    "why_not_opened",
    "without_password",
]

say = Messages("rollbridge")
# Translators: where the operator gives the Redis URL, put for {option} in the messages
# below (serve and the table commands; migrate's is its own --to); --redis and
# $ROLLBRIDGE_REDIS stay as they are.
OPTION_OR_ENV = say("redis.option_or_env", "--redis (or $ROLLBRIDGE_REDIS)")
#: What ``rollbridge migrate`` puts for ``{option}``: it reads no environment variable.
MIGRATE_OPTION = "--to"
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {database} is what the URL has after HOST:PORT/; {option} where the URL is given
# (--redis (or $ROLLBRIDGE_REDIS), or --to); redis://, HOST, PORT and N stay as they are.
DATABASE_NOT_A_NUMBER = say(
    "redis.database_not_a_number",
    "the database after the port, {database}, is not a number written in the digits 0 to 9:"
    " give redis://HOST:PORT/N, N a database number (0 to 15 on a Redis as it comes), in"
    " {option}",
)
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {option} where the URL is given; /, ?, #, %2F, %3F, %23, @ and HOST stay as they are.
PASSWORD_CUT = say(
    "redis.password_cut",
    "the URL has an @ after the end of its host part: a /, ? or # in the password ends"
    " it there; write them as %2F, %3F and %23 in {option}",
)
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {option} where the URL is given; redis://, PASSWORD, USER, HOST, PORT and N stay as
# they are.
NEEDS_PASSWORD = say(
    "redis.needs_password",
    "Redis asks for a password and the URL gives none: give it in {option} as"
    " redis://:PASSWORD@HOST:PORT/N, or redis://USER:PASSWORD@HOST:PORT/N for a user of"
    " Redis's ACL",
)
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {error} is Redis's own words; {option} where the URL is given.
WRONG_PASSWORD = say(
    "redis.wrong_password",
    "Redis refused the user name or password of the URL ({error}): check them in {option};"
    " they are not printed",
)
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {error} is redis-py's own words; {option} where the URL is given; 6379 is Redis's
# usual port.
NOT_REDIS = say(
    "redis.not_redis",
    "what answers there is not Redis ({error}): check the port in {option}; Redis listens"
    " on 6379 unless told otherwise",
)

# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {error} is redis-py's own words, naming the setting; {option} where the URL is given;
# ?, db=, password= and socket_timeout= stay as they are.
UNKNOWN_SETTING = say(
    "redis.unknown_setting",
    "the URL's query, after its ?, gives a setting redis-py does not take ({error}):"
    " check its spelling in {option}; db=, password= and socket_timeout= are some it takes",
)

# Translators: {where} names the Redis server ("redis HOST:PORT/N"); {error} is Redis's
# own words; {option} where the URL is given.
READ_ONLY = say(
    "redis.read_only",
    "{where} is a read-only replica: nothing was written ({error}); point {option} at its primary",
)
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {error} is redis-py's own words; {option} where the URL is given; rediss://,
# redis://, TLS and tls-port stay as they are.
TLS_UNANSWERED = say(
    "redis.tls_unanswered",
    "the TLS handshake got no answer ({error}): the URL's rediss:// speaks TLS, which a"
    " Redis without a tls-port does not answer; give redis:// in {option} for a Redis"
    " without TLS, or check its port",
)
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {error} is redis-py's own words; {option} where the URL is given; rediss://,
# redis://, TLS and tls-port stay as they are. What answered the TLS handshake (a
# Redis without TLS answers it with an error of its own) spoke no TLS.
TLS_NOT_TLS = say(
    "redis.tls_not_tls",
    "the TLS handshake was answered, but not in TLS ({error}): the URL's rediss:// speaks"
    " TLS, and a Redis without a tls-port answers it with an error of its own; give"
    " redis:// in {option} for a Redis without TLS, or check its port",
)
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {error} is redis-py's own words; {option} where the URL is given; TLS,
# tls-auth-clients, ?ssl_certfile=FILE&ssl_keyfile=FILE and FILE stay as they are.
TLS_REFUSED = say(
    "redis.tls_refused",
    "the Redis there speaks TLS, but refused this connection ({error}): a Redis that asks"
    " for a client certificate (its tls-auth-clients, yes unless told otherwise) refuses"
    " one that gives none, or one it does not trust; give the certificate and its key in"
    " {option} as ?ssl_certfile=FILE&ssl_keyfile=FILE (a TLS proxy whose Redis is down"
    " drops connections too)",
)
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {database} the database number of the URL; {error} is Redis's own words; {option}
# where the URL is given; databases and redis.conf stay as they are.
NO_SUCH_DATABASE = say(
    "redis.no_such_database",
    "this Redis has no database {database} ({error}): it has as many as its setting"
    " databases says, 16 unless told otherwise, numbered from 0; give a lower one in"
    " {option}, or raise databases in redis.conf",
)
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {error} is redis-py's own words; {option} where the URL is given; rediss://,
# redis://, TLS and tls-port stay as they are.
TLS_ONLY = say(
    "redis.tls_only",
    "the connection was taken and then dropped unanswered ({error}): a Redis that takes"
    " TLS only (its tls-port) drops a redis:// connection; give rediss:// in {option} for"
    " TLS, or check the port",
)
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {error} is redis-py's own words; {option} where the URL is given; TLS,
# ?ssl_ca_certs=FILE and FILE stay as they are.
TLS_CERTIFICATE = say(
    "redis.tls_certificate",
    "the Redis there speaks TLS, but its certificate was not accepted ({error}): give the"
    " file of the CA that signed it in {option} as ?ssl_ca_certs=FILE, and a host name the"
    " certificate is made out to",
)
# Translators: why a Redis server cannot be used, after "cannot open {path}: ";
# {error} is redis-py's own words; {option} where the URL is given.
DROPPED = say(
    "redis.dropped",
    "the connection was taken and then dropped unanswered ({error}), which a Redis does"
    " not do to this URL: what listens there (a proxy or load balancer whose Redis is"
    " down, a firewall) closes it; check that Redis runs behind it, or the port in {option}",
)

#: A query's ``key=value`` pair, wherever it is: a value ends at ``&`` or ``#`` only,
#: as :func:`urllib.parse.parse_qs` (which redis-py uses) ends it; ``;`` is no end.
_QUERY_PAIR = re.compile(r"([?&])([^&#=]*)=([^&#]*)")
#: Everything up to the last ``@`` of a URL, the scheme kept.
_BEFORE_AT = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:/*)?.*@", re.DOTALL)


def without_password(url: str) -> str:
    """``url`` with any password replaced by ``***`` (for messages and logs): the
    one before the ``@`` and the query's ``password=`` (redis-py takes that too).

    A URL whose every ``@`` is not within the part a URL's user and password are read
    from — a mistyped scheme (``redis//:PW@HOST``, ``redis:/:PW@HOST``, which redis-py
    refuses), a ``?`` or ``#`` in the password not written as ``%3F`` or ``%23`` — has
    everything before its last ``@`` hidden, the scheme kept: such a URL was printed
    whole, or the password's end was."""
    try:
        url = _QUERY_PAIR.sub(_hide_password_pair, url)  # first: a value may hold an @
        parts = urlsplit(url)
        if parts.password is None or url.count("@") != parts.netloc.count("@"):
            return _BEFORE_AT.sub(r"\1***@", url) if "@" in url else url
        host = parts.hostname or ""
        host = f"[{host}]" if ":" in host else host  # an IPv6 address
        port = f":{parts.port}" if parts.port else ""
        user = f"{parts.username}:***@" if parts.username else ":***@"
        netloc = f"{user}{host}{port}"
        return urlunsplit(parts._replace(netloc=netloc))
    except ValueError:
        return "(an unreadable Redis URL)"


def _hide_password_pair(pair: re.Match[str]) -> str:
    """A query's pair with its value hidden if its key is ``password`` as redis-py
    reads it (``%70assword`` too: :func:`~urllib.parse.parse_qs` decodes keys)."""
    if unquote_plus(pair[2]).lower() != "password":
        return pair[0]
    return f"{pair[1]}{pair[2]}=***"


def safe_error(text: str, url: str) -> str:
    """redis-py's refusal of ``url`` (``text``) with any quoted piece of what
    :func:`without_password` hides replaced by ``***``: its ``Port could not be cast
    to integer value as 'PW'`` quotes a password cut short by a ``?`` in it."""
    shown = without_password(url)

    def hide(quoted: re.Match[str]) -> str:
        return "'***'" if quoted[1] and quoted[1] not in shown else quoted[0]

    return re.sub(r"'([^']*)'", hide, text)


def server_of(kwargs: dict[str, Any]) -> str:
    """The server a client's ``connection_kwargs`` name, as the lines of a running
    server say it, never with the password: ``HOST:PORT/N`` (an IPv6 address in
    brackets; the port redis-py uses, 6379, where the URL gives none) or a socket's
    ``PATH/N``."""
    where = kwargs.get("path")
    if not where:
        host = str(kwargs.get("host") or "localhost")
        host = f"[{host}]" if ":" in host else host
        where = f"{host}:{kwargs.get('port') or 6379}"
    return f"{where}/{kwargs.get('db') or 0}"


def address_of(kwargs: dict[str, Any]) -> tuple[str, int, float] | None:
    """The host, port and connect timeout a client's ``connection_kwargs`` name, for
    :func:`why_not_opened`'s ``address``; ``None`` for a socket's path."""
    if kwargs.get("path"):
        return None
    timeout = kwargs.get("socket_connect_timeout") or kwargs.get("socket_timeout") or 5.0
    host = str(kwargs.get("host") or "localhost")
    return host, int(kwargs.get("port") or 6379), float(timeout)


def check_database(url: str, option: Text | str | None = None) -> None:
    """Refuse a ``redis://`` or ``rediss://`` URL whose path is no database number,
    or whose password a ``/``, ``?`` or ``#`` in it cut short (an ``@`` after the host),
    and any Redis URL whose query redis-py would take without a word though it makes
    no sense (:func:`~rollbridge.stores.redis_query.query_problem`: ``?db=-1``, a
    timeout of ``-1``, a setting given twice).

    redis-py reads ``/1x`` or ``/abc`` as no database at all and uses database 0:
    an operator who meant database 1 was served another store's tables. A number
    with a plus sign (``/+1``) is taken, as redis-py takes it: database 1.

    :param option: where the URL was given, for the message (default
        :data:`OPTION_OR_ENV`).
    :raises StoreError: the path after the port is not a whole number written in
        the digits 0 to 9, or the query is refused (``details["field"]`` ``redis``)."""
    option = option or OPTION_OR_ENV()
    try:
        parts = urlsplit(url)
    except ValueError:
        return  # redis-py says what it cannot read
    details = {"url": without_password(url), "field": "redis"}
    if parts.scheme not in ("redis", "rediss") or not parts.netloc:
        # a socket's path (an @ may be in it), or no host (redis-py refuses it)
        if parts.scheme == "unix" and (why := query_problem(parts.query, "", option, "unix")):
            raise StoreError(CANNOT_OPEN(path=without_password(url), error=why), details=details)
        return
    rest = "@" in parts.path or "@" in parts.fragment or _at_in_a_key(parts.query)
    if rest and "@" not in parts.netloc:
        # a password cut short by a / ? or # in it: what follows is no database,
        # and naming it would print the rest of the password
        raise StoreError(
            CANNOT_OPEN(path=without_password(url), error=PASSWORD_CUT(option=option)),
            details=details,
        )
    # db=-1, a setting twice, decode_responses, ssl_cert_reqs without TLS, …
    if why := query_problem(parts.query, parts.path, option, parts.scheme):
        raise StoreError(CANNOT_OPEN(path=without_password(url), error=why), details=details)
    if "db" in parse_qs(parts.query):
        return  # the query's db= is the database (redis-py's reading: a key of its own,
        # not blank); "db=" anywhere in the query (?db= blank, a password with db= in
        # it) let a path that is no number through, and redis-py took database 0
    database = unquote(parts.path).strip("/")
    if database and not WHOLE_NUMBER.fullmatch(database):
        why = DATABASE_NOT_A_NUMBER(database=database, option=option)
        raise StoreError(CANNOT_OPEN(path=without_password(url), error=why), details=details)


def _at_in_a_key(query: str) -> bool:
    """Whether an ``@`` of ``query`` is outside its values (as ``parse_qs`` reads
    them): ``?password=a@b`` is a password, ``?b@HOST:6379/0`` a password's end."""
    return any("@" in pair.partition("=")[0] for pair in query.split("&"))


def why_not_opened(
    exc: redis.RedisError,
    password: bool,
    *,
    tls: bool = False,
    option: Text | str | None = None,
    address: tuple[str, int, float] | None = None,
    database: int = 0,
) -> Text | str:
    """What a refusal of the first ``PING`` means for the operator: nobody there,
    a password missing or refused, TLS on one side only, a TLS certificate not
    accepted, a connection dropped by something that is no Redis, or something there
    that does not speak Redis; else Redis's own words.

    :param password: whether the URL gives a password or a user name (else a
        refused one was none at all).
    :param tls: whether the URL asks for TLS (``rediss://``).
    :param option: where the URL was given (default :data:`OPTION_OR_ENV`).
    :param address: the host, port and connect timeout of the URL: a ``redis://``
        connection dropped unanswered is named a TLS-only Redis only when a TLS
        handshake there is answered (without it, never).
    :param database: the URL's database number (Redis refuses one it does not have)."""
    option = option or OPTION_OR_ENV()
    if isinstance(exc, redis.AuthenticationError):  # NOAUTH too; a ConnectionError: first
        if password:
            return WRONG_PASSWORD(error=str(exc), option=option)
        return NEEDS_PASSWORD(option=option)
    if type(exc) in (redis.ConnectionError, redis.TimeoutError):
        return _why_not_connected(exc, tls, option, address)
    if isinstance(exc, redis.InvalidResponse):
        return NOT_REDIS(error=str(exc), option=option)
    if isinstance(exc, redis.ResponseError) and "DB index is out of range" in str(exc):
        return NO_SUCH_DATABASE(database=database, error=str(exc), option=option)
    return str(exc)


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from or during, in turn."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def _why_not_connected(
    exc: redis.RedisError,
    tls: bool,
    option: Text | str,
    address: tuple[str, int, float] | None,
) -> Text:
    """:func:`why_not_opened` for a connection refused, dropped or unanswered.

    A certificate not verified (a wrong CA, a host it is not made out to) is a TLS
    Redis answering, not one without TLS: it was said as "the TLS handshake got no
    answer … give redis://", which would send the operator to drop TLS. So is a TLS
    Redis that asks for a client certificate (Redis's ``tls-auth-clients``, on unless
    told otherwise) and gets none: it refuses the TLS 1.2 handshake with a TLS alert
    (said as "answered, but not in TLS … give redis://"), and drops a TLS 1.3
    connection once the handshake is done (said as no Redis there). A connection
    dropped at once, whichever the scheme, is what a proxy with no Redis behind it
    does too: TLS is named only when a TLS handshake there is answered."""
    if tls and _certificate_refused(exc):
        return TLS_CERTIFICATE(error=str(exc), option=option)
    if tls and _tls_alert(exc):  # TLS 1.2: the handshake refused, in TLS
        return TLS_REFUSED(error=str(exc), option=option)
    if tls and _dropped_after_connecting(exc):  # a Redis without TLS leaves it unanswered
        if address is not None and _answers_tls(*address):  # TLS 1.3: after the handshake
            return TLS_REFUSED(error=str(exc), option=option)
        return DROPPED(error=str(exc), option=option)
    if tls and _answered_without_tls(exc):
        return TLS_NOT_TLS(error=str(exc), option=option)
    if tls and _handshake_failed(exc):
        return TLS_UNANSWERED(error=str(exc), option=option)
    if not tls and _dropped_after_connecting(exc):
        if address is not None and _answers_tls(*address):
            return TLS_ONLY(error=str(exc), option=option)
        return DROPPED(error=str(exc), option=option)
    return NO_REDIS(error=str(exc), option=option)


def tls_refused(exc: BaseException) -> bool:
    """Whether a connection's TLS handshake was answered in TLS and failed: a
    certificate this side did not accept (expired, of another CA, made out to another
    host), or a TLS alert (the other side refused this one's, or its lack of one)."""
    return _certificate_refused(exc) or _tls_alert(exc)


def _certificate_refused(exc: BaseException) -> bool:
    """Whether a ``rediss://`` connection's TLS handshake was answered with a
    certificate this side did not accept."""
    return any(isinstance(cause, ssl.SSLCertVerificationError) for cause in _causes(exc))


def _answers_tls(host: str, port: int, timeout: float) -> bool:
    """Whether a TLS handshake at ``host:port`` is answered as TLS: completed (the
    certificate not checked: only whether TLS is spoken), or refused with a TLS
    alert (a Redis that asks for a client certificate). A connection reset, closed
    or unanswered is no TLS."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with (
            socket.create_connection((host, port), timeout=timeout) as plain,
            context.wrap_socket(plain, server_hostname=host or None),
        ):
            return True
    except ssl.SSLError as exc:
        return "ALERT" in str(exc).upper() and not isinstance(exc, ssl.SSLEOFError)
    except OSError:
        return False


def _tls_alert(exc: BaseException) -> bool:
    """Whether a ``rediss://`` connection's TLS handshake was refused with a TLS alert
    (OpenSSL's "sslv3 alert handshake failure", "tlsv1 alert unknown ca"): the other
    side speaks TLS."""
    return any(
        isinstance(cause, ssl.SSLError) and "ALERT" in str(cause).upper() for cause in _causes(exc)
    )


def _answered_without_tls(exc: BaseException) -> bool:
    """Whether a ``rediss://`` connection's TLS handshake was answered with what is no
    TLS record (OpenSSL's "wrong version number", "packet length too long"): a Redis
    without TLS that read the handshake as a command and answered ``-ERR …`` (one
    that waits for more, as Redis 7.0 does at the handshake's first zero byte, leaves
    it unanswered). A certificate refused, a TLS alert, a close or a timeout is none
    of these."""
    other = ssl.SSLCertVerificationError | ssl.SSLEOFError | ssl.SSLZeroReturnError
    return not _tls_alert(exc) and any(
        isinstance(cause, ssl.SSLError) and not isinstance(cause, other) for cause in _causes(exc)
    )


def _handshake_failed(exc: BaseException) -> bool:
    """Whether a ``rediss://`` connection failed in its TLS handshake (the TCP
    connection was made): a Redis without TLS leaves the handshake unanswered until
    the connect timeout; another server may answer it with what is no TLS record."""
    for cause in _causes(exc):
        if isinstance(cause, ssl.SSLError) or "handshake" in str(cause):
            return True
    return False


def _dropped_after_connecting(exc: BaseException) -> bool:
    """Whether a connection was made and then reset or closed at its first command
    or its TLS handshake: what a Redis that takes TLS only does with a ``redis://``
    connection, and a proxy with no Redis behind it with any. (One left unanswered is
    said as nothing there.) A close during the TLS handshake reads as an EOF
    (``SSLEOFError``) or, on a busy machine, as the TLS connection closed
    (``SSLZeroReturnError``, "Error 6": CI, load 12)."""
    dropped = ConnectionResetError | ssl.SSLEOFError | ssl.SSLZeroReturnError
    if any(isinstance(cause, dropped) for cause in _causes(exc)):
        return True
    return str(exc).startswith("Connection closed by server")
