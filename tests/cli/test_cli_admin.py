"""``rollbridge admin-token`` (issue 16, item 5): a token shown once and stored
hashed; listed without secrets; revoked by id."""

from __future__ import annotations

import json

from rollbridge.cli import main
from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.tokens import hash_token


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_make_list_and_revoke(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "en")
    db = str(tmp_path / "rollbridge.db")
    code, out, _ = run(capsys, "admin-token", "--db", db, "--name", "web front")
    assert code == 0
    head, token = out.splitlines()
    token = token.strip()
    assert token.startswith("rba_") and len(token) > 40
    assert "(web front), shown once" in head and "Authorization: Bearer" in head
    with SQLiteStore(db) as store:
        (record,) = store.list_admin_tokens()
        assert store.find_admin_token(hash_token(token)) == record
    assert record.id in head and record.name == "web front"
    assert token.encode() not in (tmp_path / "rollbridge.db").read_bytes()

    code, out, _ = run(capsys, "admin-token", "--db", db, "--list")
    assert (code, out) == (0, f"{record.id}  web front\n")
    code, out, _ = run(capsys, "admin-token", "--db", db, "--list", "--json")
    listed = json.loads(out)["admin_tokens"]
    assert [(t["id"], t["name"]) for t in listed] == [(record.id, "web front")]
    assert token not in out

    code, out, _ = run(capsys, "admin-token", "--db", db, "--revoke", record.id)
    assert (code, out) == (0, f"revoked admin token {record.id}\n")
    code, out, _ = run(capsys, "admin-token", "--db", db, "--list")
    assert out == "no admin tokens\n"
    code, _, err = run(capsys, "admin-token", "--db", db, "--revoke", record.id)
    assert code == 1 and err.startswith("rollbridge: error: not_found: ") and err.count("\n") == 1


def test_json_shows_the_new_token_once(tmp_path, capsys):
    db = str(tmp_path / "rollbridge.db")
    code, out, _ = run(capsys, "admin-token", "--db", db, "--json")
    made = json.loads(out)
    assert code == 0 and made["token"].startswith("rba_") and made["name"] == "admin"
    assert set(made) == {"token", "id", "name", "created"}


def test_texts_in_the_environments_language(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "de")
    SQLiteStore(tmp_path / "r.db").close()
    code, out, _ = run(capsys, "admin-token", "--db", str(tmp_path / "r.db"), "--list")
    assert code == 0 and out != "no admin tokens\n" and out.strip()
