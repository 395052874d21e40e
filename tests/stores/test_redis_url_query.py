"""A Redis URL's query as redis-py reads it, checked before anything connects
(docs/redis.md, "The Redis URL"). ``?db=-1`` reached Redis and came back as its own
``DB index is out of range``; ``socket_timeout=-1`` a traceback; ``retry_on_timeout=off``
meant yes; a setting given twice, or a database both after the port and in ``db=``,
counted once without a word. Each is now a ``store_error`` naming the setting and its
value, and what to give; a real ``redis-server`` shows nothing connected to it."""

from __future__ import annotations

import pytest
import redis

from rollbridge.cli import main
from rollbridge.exceptions import StoreError
from rollbridge.stores.redis import RedisStore
from tests.stores.test_redis_url import _refused

pytestmark = pytest.mark.usefixtures("english_without_stores")


def _connections(server) -> int:
    """How many connections the Redis took, ever (the asking one counted)."""
    client = redis.Redis(port=server.port)
    try:
        return int(client.info("stats")["total_connections_received"])
    finally:
        client.close()


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("?db=-1", "the URL's db is '-1', not a database number written in the digits 0 to 9"),
        ("?db=%D9%A1", "'١'\u2069, not a database number"),  # shown isolated: right to left
        ("?db=1_0", "the URL's db is '1_0', not a database number"),
        ("?socket_timeout=-1", "the URL's socket_timeout is '-1', not a number of seconds above 0"),
        ("?socket_connect_timeout=nan", "socket_connect_timeout is 'nan', not a number of seconds"),
        ("?max_connections=0", "the URL's max_connections is '0', not a whole number from 1"),
        ("?health_check_interval=-3", "health_check_interval is '-3', not a whole number of"),
        ("?protocol=7", "the URL's protocol is '7', not 2 or 3"),
        ("?retry_on_timeout=off", "retry_on_timeout is 'off', not one of yes, no, true, false"),
        ("?db=1&db=2", "the URL's query gives db more than once, and redis-py would take"),
        ("/1?db=2", "the URL gives database 1 after the port and database 2 in its query (db=)"),
    ],
)
def test_nonsense_in_the_query_is_refused_before_connecting(capsys, redis_server, query, said):
    url = f"redis://127.0.0.1:{redis_server.port}{query}"
    before = _connections(redis_server)
    err = _refused(capsys, "table", "list", "--redis", url)
    assert f"store_error: cannot open redis://127.0.0.1:{redis_server.port}{query}: " in err
    assert said in err and ("correct it in --redis" in err or "give" in err), err
    assert _connections(redis_server) == before + 1  # only the count's own connection
    with pytest.raises(StoreError) as caught:  # typed, the URL named, in the language
        RedisStore(url)
    assert caught.value.code == "store_error" and caught.value.details["field"] == "redis"
    assert said not in caught.value.render("cs")


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("?ssl_cert_reqs=maybe", "ssl_cert_reqs is 'maybe', not one of none, optional or"),
        ("?ssl_min_version=5", "ssl_min_version is '5', not the number of a TLS version (771"),
        ("?ssl_include_verify_flags=VERIFY_NOPE", "'VERIFY_NOPE', not names of Python's ssl."),
        ("?ssl_exclude_verify_flags=mro", "'mro', not names of Python's ssl.VerifyFlags"),
        ("?retry_on_error=Nope", "retry_on_error is 'Nope', not names of redis-py's errors"),
        ("?retry_on_error=ConnectionError,", "'ConnectionError,', not names of redis-py's"),
        ("?ssl_ciphers=NOPE", "ssl_ciphers is 'NOPE', not a list of ciphers OpenSSL knows"),
        ("?ssl_ca_certs=/nonexistent/ca.pem", "'/nonexistent/ca.pem', not a file on this"),
        ("?ssl_certfile=/", "ssl_certfile is '/', not a file on this machine"),
        ("?ssl_ca_path=/nonexistent", "ssl_ca_path is '/nonexistent', not a folder on this"),
    ],
)
def test_the_tls_settings_and_retry_on_error_are_judged_before_connecting(
    capsys, redis_server, query, said
):
    # redis-py's own English was all an operator read (Invalid SSL Certificate
    # Requirements Flag: maybe; Invalid value for 'retry_on_error' in connection URL.),
    # or a missing file surfaced only once a Redis answered
    url = f"rediss://127.0.0.1:{redis_server.port}/0{query}"
    before = _connections(redis_server)
    err = _refused(capsys, "table", "list", "--redis", url)
    assert f"store_error: cannot open {url}: the URL's " in err, err
    assert said in err and "correct it in --redis (or $ROLLBRIDGE_REDIS)" in err, err
    assert _connections(redis_server) == before + 1  # only the count's own connection
    with pytest.raises(StoreError) as caught:  # typed, in the reader's language
        RedisStore(url)
    assert said not in caught.value.render("de") and query[1:].split("=")[0] in str(caught.value)
    # retry_on_error is judged in a redis:// URL too
    if "retry_on_error" in query:
        plain = f"redis://127.0.0.1:{redis_server.port}/0{query}"
        assert said in _refused(capsys, "table", "list", "--redis", plain)


def test_a_plus_in_ssl_ciphers_read_as_a_space_is_refused_naming_2b(capsys, redis_server):
    """OpenSSL's ``ECDHE+AESGCM`` (the ECDHE ciphers with AES-GCM) written as it is in
    a URL's query is ``ECDHE AESGCM`` to redis-py, which OpenSSL takes as every ECDHE
    cipher and every AES-GCM one, anonymous ones too: it was taken without a word (and
    the refusal of a bad list gave ``ECDHE+AESGCM`` as its example)."""
    url = f"rediss://127.0.0.1:{redis_server.port}/0?ssl_ciphers=ECDHE+AESGCM:ECDHE+CHACHA20"
    before = _connections(redis_server)
    err = _refused(capsys, "table", "list", "--redis", url)
    assert (
        "the URL's ssl_ciphers is 'ECDHE+AESGCM:ECDHE+CHACHA20', whose + a URL's query means "
        "a space: redis-py reads 'ECDHE AESGCM:ECDHE CHACHA20', which OpenSSL takes for other "
        "ciphers (each word alone): write each + as %2B, 'ECDHE%2BAESGCM:ECDHE%2BCHACHA20', in "
        "--redis (or $ROLLBRIDGE_REDIS)"
    ) in err, err
    assert _connections(redis_server) == before + 1  # only the count's own connection
    bad = f"rediss://127.0.0.1:{redis_server.port}/0?ssl_ciphers=NOPE"
    assert "such as ECDHE%2BAESGCM: correct it" in _refused(capsys, "table", "list", "--redis", bad)


def test_the_settings_as_they_should_be_are_taken(capsys, redis_server):
    query = "/1?db=1&socket_timeout=2.5&max_connections=4&retry_on_timeout=no&protocol=2"
    assert main(["table", "list", "--redis", f"redis://127.0.0.1:{redis_server.port}{query}"]) == 0
    assert capsys.readouterr().out == "no tables\n"


def test_a_database_redis_does_not_have_says_so_and_how_many_it_has(capsys, redis_server):
    """A database past the Redis's ``databases`` (16 as it comes) only Redis can tell:
    its ``DB index is out of range`` is said with what it means and what to do."""
    err = _refused(capsys, "table", "list", "--redis", f"redis://127.0.0.1:{redis_server.port}/99")
    assert "this Redis has no database 99 (DB index is out of range)" in err
    assert "give a lower one in --redis (or $ROLLBRIDGE_REDIS), or raise databases" in err


@pytest.mark.parametrize("value", ["no", "false", "yes"])
def test_decode_responses_in_the_query_is_refused_before_it_turns_the_store_into_text(
    capsys, redis_factory, value
):
    """redis-py hands ``decode_responses`` on as the text given, and any text is yes: a
    Redis holding a table was read as UTF-8 text, ``store_error: …: UnicodeDecodeError:
    'utf-8' codec can't decode byte …`` (``no`` and ``false`` too), which named neither
    the setting nor a fix."""
    server = redis_factory()
    url = f"redis://127.0.0.1:{server.port}/0"
    assert main(["table", "create", "--ruleset", "sr2", "--name", "Held", "--redis", url]) == 0
    capsys.readouterr()
    before = _connections(server)
    err = _refused(capsys, "table", "list", "--redis", f"{url}?decode_responses={value}")
    assert f"the URL's query gives decode_responses ('{value}'), which rollbridge" in err, err
    assert "remove it from --redis (or $ROLLBRIDGE_REDIS)" in err and "Unicode" not in err
    assert _connections(server) == before + 1  # only the count's own connection
    assert main(["table", "list", "--redis", url]) == 0  # the store is as it was
    assert "Held" in capsys.readouterr().out


@pytest.mark.parametrize("scheme", ["redis", "unix"])
def test_a_tls_setting_without_tls_names_rediss_not_a_misspelling(
    capsys, redis_server, tmp_path, scheme
):
    """``?ssl_cert_reqs=none`` (a cloud provider's URL, its ``rediss://`` written
    ``redis://``) was ``a setting redis-py does not take …: check its spelling``, though
    it was spelt right: it is a setting of TLS, and the URL speaks none."""
    where = f"127.0.0.1:{redis_server.port}/0" if scheme == "redis" else f"{tmp_path}/r.sock"
    url = f"{scheme}://{where}?ssl_cert_reqs=none"
    err = _refused(capsys, "table", "list", "--redis", url)
    assert (
        f"the URL's query gives ssl_cert_reqs, a setting of TLS, but a {scheme}:// URL speaks"
        " no TLS: give rediss:// in --redis (or $ROLLBRIDGE_REDIS) for a Redis with TLS, or"
        " remove ssl_cert_reqs"
    ) in err, err
    assert "check its spelling" not in err
