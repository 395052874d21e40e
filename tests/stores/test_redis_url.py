"""An operator's mistakes in ``--redis`` (or ``$ROLLBRIDGE_REDIS``), each said with
its fix and never with the password (found moving a SQLite server to two ``serve
--redis`` processes, docs/redis.md "Serving from Redis"): a mistyped scheme printed
the whole URL, password and all; a database that is no number (``/1x``) was quietly
database 0; a Redis that asks for a password said ``HELLO must be called with the
client already authenticated …``; a port where something else answers said
``Protocol error, got "H" as reply type byte``. Real ``redis-server`` processes and
a real HTTP server; no fakes."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import redis

from rollbridge.cli import main
from rollbridge.exceptions import StoreError
from rollbridge.stores.redis import RedisStore
from rollbridge.stores.redis_url import without_password

SECRET = "s3cretPW"


pytestmark = pytest.mark.usefixtures("english_without_stores")


def _refused(capsys, *args: str) -> str:
    """What a command that must fail printed (stderr); it exits 1, no traceback."""
    assert main(list(args)) == 1
    err = capsys.readouterr().err
    assert err.startswith("rollbridge: error: ") and "Traceback" not in err
    return err


@pytest.mark.parametrize(
    "url",
    [
        f"redis//:{SECRET}@127.0.0.1:6379/0",  # the scheme's colon left out
        f"redis:/:{SECRET}@127.0.0.1:6379/0",  # one slash
        f"redis:{SECRET}@127.0.0.1:6379/0",  # no slash, no colon before the password
        f"http://{SECRET}@127.0.0.1:6379/0",  # another scheme, the password as a user
    ],
)
def test_a_password_in_a_mistyped_url_is_never_printed(capsys, monkeypatch, tmp_path, url):
    err = _refused(capsys, "table", "list", "--redis", url)
    assert SECRET not in err and "127.0.0.1:6379/0" in err
    assert "Redis URL must specify one of the following schemes" in err
    with pytest.raises(StoreError) as caught:
        RedisStore(url)
    assert SECRET not in caught.value.render("en") and SECRET not in str(caught.value.details)
    # backup names the URL of $ROLLBRIDGE_REDIS when it refuses to copy a Redis
    monkeypatch.setenv("ROLLBRIDGE_REDIS", url)
    err = _refused(capsys, "backup", str(tmp_path / "copy.db"))
    assert "redis_backup" in err and SECRET not in err
    assert not (tmp_path / "copy.db").exists()


def test_what_is_printed_of_a_url_keeps_what_names_the_server():
    assert without_password(f"redis://:{SECRET}@10.0.0.5:6379/2") == "redis://:***@10.0.0.5:6379/2"
    assert without_password(f"redis//:{SECRET}@10.0.0.5:6379/2") == "***@10.0.0.5:6379/2"
    assert without_password(f"redis:/{SECRET}@h/0?db=1") == "redis:/***@h/0?db=1"
    assert without_password(f"unix:///run/redis.sock?password={SECRET}") == (
        "unix:///run/redis.sock?password=***"
    )
    assert without_password("redis://10.0.0.5:6379/0") == "redis://10.0.0.5:6379/0"
    # a ? or # in the password, not escaped: urlsplit ends the password there
    assert without_password(f"redis://:pa?{SECRET}@h:1/0") == "redis://***@h:1/0"
    assert without_password(f"redis://:pa#{SECRET}@h:1/0") == "redis://***@h:1/0"
    assert without_password(f"redis://u:pa@{SECRET}@h:1/0?db=2") == "redis://u:***@h:1/0?db=2"
    assert without_password(f"redis://h:1/0?db=1&password={SECRET}") == (
        "redis://h:1/0?db=1&password=***"
    )


@pytest.mark.parametrize("database", ["1x", "one", "1/2", "-1"])
def test_a_database_that_is_no_number_is_refused_and_nothing_written(
    capsys, redis_factory, database
):
    server = redis_factory()
    url = f"redis://127.0.0.1:{server.port}/{database}"
    err = _refused(capsys, "table", "create", "--ruleset", "bandits", "--name", "X", "--redis", url)
    said = f"store_error: cannot open {url}: the database after the port, {database}, is not"
    assert f"{said} a number" in err
    assert "give redis://HOST:PORT/N" in err
    with pytest.raises(StoreError) as caught:
        RedisStore(url)
    german = caught.value.render("de")
    assert "redis://HOST:PORT/N" in german and "is not a number" not in german
    admin = redis.Redis(port=server.port)
    try:  # before, the table was made in database 0
        assert admin.dbsize() == 0
    finally:
        admin.close()
    # a number is taken as before, a path of one slash or none too
    for fine in ("3", "", "/"):
        RedisStore(f"redis://127.0.0.1:{server.port}/{fine}").close()


def test_a_redis_that_asks_for_a_password_says_how_to_give_it(capsys, redis_factory):
    server = redis_factory()
    admin = redis.Redis(port=server.port)
    admin.config_set("requirepass", SECRET)
    admin.close()
    plain = server.url
    err = _refused(capsys, "table", "list", "--redis", plain)
    assert err == (
        f"rollbridge: error: store_error: cannot open redis 127.0.0.1:{server.port}/0: Redis asks"
        " for a password and the URL gives none: give it in --redis (or $ROLLBRIDGE_REDIS) as"
        " redis://:PASSWORD@HOST:PORT/N, or redis://USER:PASSWORD@HOST:PORT/N for a user of"
        " Redis's ACL\n"
    )
    for wrong in ("redis://:notit@", "redis://default:notit@", "redis://bob@"):
        err = _refused(capsys, "table", "list", "--redis", plain.replace("redis://", wrong))
        assert "Redis refused the user name or password of the URL (" in err
        assert err.endswith("check them in --redis (or $ROLLBRIDGE_REDIS); they are not printed\n")
        assert "notit" not in err and "bob" not in err
    with pytest.raises(StoreError) as caught:
        RedisStore(plain)
    assert "PASSWORD@HOST" in caught.value.render("cs")
    assert "asks for a password" not in caught.value.render("cs")  # said in Czech
    assert main(["table", "list", "--redis", plain.replace("redis://", f"redis://:{SECRET}@")]) == 0
    assert capsys.readouterr().out == "no tables\n"


class _Page(BaseHTTPRequestHandler):
    """Any request: a 400, as a web server answers a Redis command."""

    def handle_one_request(self) -> None:
        self.wfile.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        self.close_connection = True

    def log_message(self, *args: object) -> None:
        pass


def test_a_port_where_another_server_answers_is_not_called_redis(capsys):
    web = ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=web.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"redis://127.0.0.1:{web.server_address[1]}/0"
        err = _refused(capsys, "table", "list", "--redis", url)
    finally:
        web.shutdown()
        web.server_close()
    where = f"cannot open redis 127.0.0.1:{web.server_address[1]}/0"
    assert f"{where}: what answers there is not Redis (" in err
    assert err.endswith(
        "check the port in --redis (or $ROLLBRIDGE_REDIS); Redis listens on 6379"
        " unless told otherwise\n"
    )


def test_a_password_changed_while_serving_is_said_as_such_not_as_redis_gone(redis_factory):
    """An operator sets (or rotates) ``requirepass`` while the processes serve: their
    next new connection is refused. That was said as ``… does not answer: … start it,
    or check the network (AuthenticationError: …)``, reason ``unreachable``."""
    server = redis_factory()
    store = RedisStore(server.url)
    admin = redis.Redis(port=server.port)
    try:
        admin.config_set("requirepass", SECRET)
        store.client.connection_pool.disconnect()  # the next call opens a new connection
        with pytest.raises(StoreError) as refused:
            store.ping()
        said = refused.value.render("en")
        assert refused.value.details == {"reason": "refused_password"}
        assert said.startswith(f"redis 127.0.0.1:{server.port}/0 refuses the password (or user)")
        assert "start every process again with the new one in --redis" in said
        assert "does not answer" not in said and SECRET not in said
    finally:
        admin.execute_command("AUTH", SECRET)
        admin.config_set("requirepass", "")
        admin.close()
        store.close()
    assert refused.value.__class__.__name__ == "StoreUnavailable"  # refused as a whole


def test_a_url_that_names_a_replica_is_refused_with_where_to_point_it(capsys, redis_factory):
    """``serve`` and ``table create`` against a replica said only ``… is a read-only
    replica: nothing was written``, without what to do."""
    primary, replica = redis_factory(), redis_factory()
    admin = redis.Redis(port=replica.port)
    try:
        admin.replicaof("127.0.0.1", primary.port)  # read-only from now on
        url = replica.url
        err = _refused(capsys, "table", "create", "--ruleset", "bandits", "--name", "X",
                       "--redis", url)  # fmt: skip
        assert err.startswith(
            f"rollbridge: error: store_error: redis 127.0.0.1:{replica.port}/0 is a read-only"
            " replica: nothing was written ("
        )
        assert err.endswith("); point --redis (or $ROLLBRIDGE_REDIS) at its primary\n")
        err = _refused(capsys, "table", "create", "--ruleset", "bandits", "--name", "X",
                       "--redis", url, "--locale", "de")  # fmt: skip
        assert "--redis" in err and "at its primary" not in err  # said in German
    finally:
        admin.replicaof("NO", "ONE")
        admin.close()


@pytest.mark.parametrize(
    "url",
    [
        f"redis://127.0.0.1:6379/0?password=ab;{SECRET}",  # parse_qs ends a value at & only
        f"redis://127.0.0.1:6379/0?password=ab@{SECRET}",  # an @ in the query's password
        f"redis://127.0.0.1:6379/0?%70assword={SECRET}",  # parse_qs decodes the key
        f"unix:///tmp/redis.sock?db=0&password=x;{SECRET}",
    ],
)
def test_a_query_password_redis_reads_is_hidden_whole(url):
    from redis.connection import parse_url

    assert SECRET in parse_url(url)["password"]  # what redis-py would send as AUTH
    shown = without_password(url)
    assert SECRET not in shown and "***" in shown


@pytest.mark.parametrize("cut", ["/", "?", "#"])
def test_a_password_cut_short_by_a_slash_question_mark_or_hash_is_named_not_printed(capsys, cut):
    # redis-py reads the password's first half as a port (or takes database 0 for
    # the rest): the refusal quoted a half of the password (the database "cd@…", or
    # "Port could not be cast to integer value as 'ab'")
    url = f"redis://:ab{SECRET}{cut}{SECRET}cd@127.0.0.1:6379/0"
    with pytest.raises(StoreError) as caught:
        RedisStore(url)
    said = caught.value.render("en") + str(caught.value.details)
    assert SECRET not in said and "%2F, %3F and %23" in said
    err = _refused(capsys, "table", "list", "--redis", url)
    assert SECRET not in err and "%2F, %3F and %23" in err


def test_redis_py_s_own_refusal_never_quotes_a_piece_of_the_password():
    url = f"redis://:{SECRET}?x=1@127.0.0.1:6379/0"  # no @ outside a query's value
    with pytest.raises(StoreError) as caught:
        RedisStore(url)
    said = caught.value.render("en") + str(caught.value.details)
    assert SECRET not in said and "Port could not be cast to integer value as '***'" in said


def test_a_password_with_an_at_in_the_query_is_still_accepted():
    # not a password cut short: redis-py sends a@b, and so the URL is not refused
    from rollbridge.stores.redis_url import check_database

    check_database("redis://127.0.0.1:6379/0?password=a@b")
    check_database("redis://:pw@127.0.0.1:6379/0#x@y")  # a fragment after a whole password


@pytest.mark.parametrize(
    ("url", "where"),
    [
        ("redis://nothing.invalid/0", "redis nothing.invalid:6379/0"),  # it said ":None"
        ("redis://[::1]:1/2", "redis [::1]:1/2"),  # it said "::1:1/2"
        (f"redis://:{SECRET}@[::1]:1/2", "redis [::1]:1/2"),
    ],
)
def test_the_server_is_named_with_the_port_redis_py_uses_and_an_ipv6_host_bracketed(url, where):
    with pytest.raises(StoreError) as caught:
        RedisStore(url)  # nothing answers at either
    said = caught.value.render("en")
    assert said.startswith(f"cannot open {where}: nothing answers there (")
    assert SECRET not in said


def test_a_setting_of_the_query_redis_py_does_not_take_is_named_without_a_traceback(
    capsys, redis_factory
):
    # redis-py hands a query's unknown key to its connection: a TypeError at the first
    # PING, printed as a traceback by every command
    server = redis_factory()
    url = server.url.replace("redis://", f"redis://:{SECRET}@") + "?timeout=5"
    err = _refused(capsys, "table", "list", "--redis", url)
    assert err.startswith(
        f"rollbridge: error: store_error: cannot open redis 127.0.0.1:{server.port}/0:"
        " the URL's query, after its ?, gives a setting redis-py does not take ("
    )
    assert "'timeout'" in err and SECRET not in err
    with pytest.raises(StoreError) as caught:
        RedisStore(url)
    assert "socket_timeout=" in caught.value.render("en")


def test_a_database_with_a_plus_sign_is_the_database_redis_py_reads(capsys, redis_factory):
    """``/+1`` was refused as "not a number", though redis-py reads it as database 1
    (``int("+1")``): it is taken, as redis-py takes it, and the table is made there."""
    server = redis_factory()
    url = f"redis://127.0.0.1:{server.port}/+1"
    assert main(["table", "create", "--ruleset", "bandits", "--name", "X", "--redis", url]) == 0
    capsys.readouterr()
    store = RedisStore(url)
    try:
        assert store.where == f"redis 127.0.0.1:{server.port}/1"
    finally:
        store.close()
    admin = redis.Redis(port=server.port)
    try:
        assert admin.dbsize() == 0  # nothing in database 0
        assert admin.execute_command("SELECT", 1) and admin.dbsize() > 0
    finally:
        admin.close()
    # a number in other digits, or with a sign that is no plus, is still refused
    for database in ("1_0", "-1", " 1"):
        with pytest.raises(StoreError) as caught:
            RedisStore(f"redis://127.0.0.1:{server.port}/{database}")
        assert "is not a number written in the digits 0 to 9" in caught.value.render("en")


def test_a_query_that_only_holds_db_somewhere_does_not_let_a_bad_database_through(
    capsys, redis_factory
):
    """A ``db=`` anywhere in the query let a database that is no number through, as
    if the query gave the database: ``?db=`` left blank, or a query password with
    ``db=`` in it. redis-py takes a query's ``db`` only as a key of its own with a
    value, else reads the path, and a path that is no number as database 0: the
    table was made there. Such a path is refused, and nothing is written."""
    server = redis_factory()
    for query in ("?db=", "?client_name=adb=1"):
        url = f"redis://127.0.0.1:{server.port}/1x{query}"
        err = _refused(
            capsys, "table", "create", "--ruleset", "bandits", "--name", "X", "--redis", url
        )
        assert "the database after the port, 1x, is not a number" in err, err
    admin = redis.Redis(port=server.port)
    try:
        assert admin.dbsize() == 0  # nothing in database 0
    finally:
        admin.close()
    # a query's own db= is still the database, whatever the path
    url = f"redis://127.0.0.1:{server.port}/?db=2"
    assert main(["table", "create", "--ruleset", "bandits", "--name", "X", "--redis", url]) == 0


def test_migrate_names_its_own_option_not_the_environment_it_does_not_read(
    capsys, monkeypatch, tmp_path, redis_factory
):
    """``migrate`` reads no ``$ROLLBRIDGE_REDIS`` (docs/redis.md), yet its refusals
    said "check --redis (or $ROLLBRIDGE_REDIS)": an operator who exported it, to mend
    the URL, changed what migrate never read. They name ``--to``."""
    source = tmp_path / "t.db"
    made = ["table", "create", "--ruleset", "bandits", "--name", "X", "--db", str(source)]
    assert main(made) == 0
    server = redis_factory()
    admin = redis.Redis(port=server.port)
    admin.config_set("requirepass", SECRET)
    admin.close()
    monkeypatch.setenv("ROLLBRIDGE_REDIS", f"redis://:{SECRET}@127.0.0.1:{server.port}/0")
    capsys.readouterr()
    for url, said in (
        (server.url, "give it in --to as redis://:PASSWORD@HOST:PORT/N"),
        (server.url.replace("redis://", "redis://:notit@"), "check them in --to; they are"),
        (f"redis://127.0.0.1:{server.port}/1x", "in --to\n"),
    ):
        err = _refused(capsys, "migrate", "--from", str(source), "--to", url)
        assert said in err and "ROLLBRIDGE_REDIS" not in err, err
    port = server.port
    server.stop()
    err = _refused(capsys, "migrate", "--from", str(source), "--to", f"redis://127.0.0.1:{port}/0")
    assert err.endswith("start redis-server, or check --to\n"), err
    err = _refused(capsys, "migrate", "--from", str(source), "--to", f"redis://127.0.0.1:{port}/0",
                   "--locale", "de")  # fmt: skip
    assert err.endswith("prüfen Sie --to\n"), err
    # serve and the table commands, which read it, still say so
    err = _refused(capsys, "table", "list", "--redis", f"redis://127.0.0.1:{port}/0")
    assert err.endswith("check --redis (or $ROLLBRIDGE_REDIS)\n"), err
