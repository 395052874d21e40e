"""A Redis that nothing answers at (not started, a mistyped port) is said as such, with
what to check — ``serve --redis`` and every ``table`` command printed redis-py's
"Error 111 connecting to …" and nothing more; a Redis that answers but refuses the
password still says only that."""

from __future__ import annotations

import pytest

from rollbridge.cli import main
from rollbridge.exceptions import StoreError
from rollbridge.stores.redis import RedisStore
from tests.stores.conftest import _free_port


def test_a_redis_nothing_answers_at_says_what_to_check(capsys, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "en")
    url = f"redis://127.0.0.1:{_free_port()}/0"
    assert main(["table", "list", "--redis", url]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"rollbridge: error: store_error: cannot open redis 127.0.0.1:{url[18:]}")
    assert ": nothing answers there (Error 111 connecting to" in err
    assert err.endswith(": start redis-server, or check --redis (or $ROLLBRIDGE_REDIS)\n")
    with pytest.raises(StoreError) as caught:
        RedisStore(url)
    assert "redis-server" in caught.value.render("cs")
    assert "nothing answers" not in caught.value.render("cs")  # said in Czech


def test_a_wrong_password_is_not_said_to_be_nobody_there(redis_server):
    url = redis_server.url.replace("redis://", "redis://nobody:wrong@")
    with pytest.raises(StoreError) as caught:
        RedisStore(url)
    said = caught.value.render("en")
    assert "nothing answers" not in said and "wrong" not in said
    assert "password" in said.lower()
