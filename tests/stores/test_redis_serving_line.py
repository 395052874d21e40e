"""The line ``serve --redis`` prints once it listens names the Redis as the operator
gave it: ``(Redis at URL, database N)``, the URL's password as ``***``. It said
``(db redis HOST:PORT/N)``, which reads as neither a URL nor a database, and the same
in every language. A real ``redis-server`` with a password, and a real ``serve``."""

from __future__ import annotations

from redis import Redis

from tests.cli.test_serve_options import ENV, serve_printed


def test_the_serving_line_names_the_url_without_its_password_and_the_database(redis_factory):
    redis = redis_factory()
    client = Redis(port=redis.port)
    client.config_set("requirepass", "s3cret-pw")  # as an operator sets it
    client.close()
    url = f"redis://:s3cret-pw@127.0.0.1:{redis.port}/2"
    lines = serve_printed(["--redis", url, "--no-demo"], last="rollbridge serving")
    (line,) = [line for line in lines if line.startswith("rollbridge serving")]
    assert line.endswith(
        f" (Redis at redis://:***@127.0.0.1:{redis.port}/2, database 2); Ctrl-C stops\n"
    ), line
    assert "s3cret-pw" not in "".join(lines)
    # the database of the query, in the environment's variable, in the reader's language
    given = f"redis://127.0.0.1:{redis.port}?password=s3cret-pw&db=3"
    env = {**ENV, "ROLLBRIDGE_REDIS": given, "LANGUAGE": "de"}
    lines = serve_printed(["--no-demo"], last="rollbridge", env=env)
    said = "".join(lines)
    assert f"(Redis unter redis://127.0.0.1:{redis.port}?password=***&db=3, Datenbank 3)" in said
    assert "s3cret-pw" not in said and "(db redis" not in said and "Redis at" not in said
