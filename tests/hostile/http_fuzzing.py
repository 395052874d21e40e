"""A property-based fuzzer of the HTTP side of a real ``rollbridge serve``.

The server is :func:`tests.hostile.fuzzing.start_world`'s (SQLite, a table per
ruleset and the witness's), with an admin token made for it (``rollbridge
admin-token``) — or (:func:`start_http_cluster`) the two ``serve --redis``
processes of :func:`tests.hostile.cluster_fuzzing.start_cluster` on a real
redis-server the test starts, each request sent to the process the example drew
(:attr:`HttpWorld.side`). :func:`requests` builds raw HTTP requests to every path the port
answers — the admin API, the session-log export, the web view and its static files,
``/``, ``/healthz``, ``/readyz``, ``/metrics`` — and to paths it does not: hostile
methods, paths (encoded slashes, ``..``, invalid percent-escapes, invalid UTF-8,
control characters, thousands of characters), query strings (repeated, missing and
empty parameters; ``settings`` that is JSON but not an object, nested thousands of
levels deep, numbers past 64 bits; ``since`` far past a seq), headers (no, wrong,
other tables', other roles' and malformed tokens; odd ``Accept-Language``,
``Content-Type``, ``Upgrade``), and bodies. :meth:`HttpWorld.check` sends each on a
socket of its own and asserts:

- one response, with a status the docs give (docs/operations.md and
  docs/protocol.md; never a 500), whatever was sent (what is no HTTP at all:
  400 ``invalid_http``);
- a JSON error has a ``code`` of docs/operations.md's table of the HTTP side's
  error codes (:func:`http_codes`: that table's, no other word of the docs), with a
  status the table gives it, and a non-empty ``message``; an answer to a ``HEAD``
  has nothing after its head (RFC 9110), whatever its status;
- a table or a token made (201) has the name sent, never one with U+FFFD for
  bytes that are not UTF-8;
- a refused request (4xx, 5xx) changes nothing: every table, its seq and its
  tokens are as they were; over Redis, the admin API of each process lists the same
  (they share the store);
- no traceback and no ERROR line in the server's log (either process's);
- the witness's roll at another table is still answered (on each process).

Each run is bounded in count (``ROLLBRIDGE_FUZZ_EXAMPLES``) and in time
(``ROLLBRIDGE_FUZZ_SECONDS``: past it, the examples left send nothing, and the run
says how many; each exchange has its own timeout, a guard against a hang).

tests/hostile/test_fuzz_http.py runs it; ``ROLLBRIDGE_FUZZ_EXAMPLES`` sets how many
examples (docs/operations.md, "Hostile input").
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote

from hypothesis import strategies as st

from tests.hostile.cluster_fuzzing import start_cluster
from tests.hostile.fuzzing import ODD_INTS, ODD_TEXTS, ROOT, World, chance, pick, start_world

#: Every status the HTTP side documents (docs/operations.md: the admin API, the
#: export, the web view, health, 429 past a rate, 204 to an OPTIONS), 101 to a
#: WebSocket handshake, and websockets' own refusals (426: an upgrade to WebSocket it
#: cannot take, 414 and 431: a request line or a header line past 8 KiB, 505: a
#: handshake in HTTP/1.0).
STATUSES = {101, 200, 201, 204, 400, 401, 403, 404, 405, 409, 413, 414, 426, 429, 431, 503,
            505}  # fmt: skip
METHODS = ("GET", "POST", "DELETE")
ODD_METHODS = ("PUT", "PATCH", "HEAD", "OPTIONS", "TRACE", "CONNECT", "get", "G\u00c9T", "",
               "GET GET", "X" * 300)  # fmt: skip
LOCALES = ("cs", "de-AT,de;q=0.9", "ru", "en", "*", "", "x" * 500, "de;q=nan", "\u00e9",
           ";;;,,,", "cs-CZ, tlh;q=2")  # fmt: skip
#: The query parameters the routes read, and a few they do not.
PARAMETERS = ("ruleset", "name", "settings", "role", "format", "since", "locale", "as", "token",
              "x", "")  # fmt: skip
#: Values worth trying in any parameter.
WORDS = ("sr2", "bandits", "wilddie", "techlevel", "hitpoints", "nope", "gm", "player",
         "observer", "GM", "jsonl", "markdown", "json", "0", "-1", "1", "de", "tlh")  # fmt: skip
#: Names of tables and tokens that are fine (a name made is checked against the one sent).
NAMES = ("Friday", "Пятница у Маши", "Pátek", "  padded  ", "x" * 200, "a/b?c=d&e", "Ωmega 🎲",
         "O'Brien \"Bob\"", "%41", "+plus+")  # fmt: skip
#: Hostile path segments, as sent (some already percent-encoded, some not encodable).
SEGMENTS = ("", ".", "..", "%2e%2e", "%2F", "%2f..%2f", "%00", "%ff", "%C3%28", "%", "%zz",
            "%25", "a/b", "x" * 3000, "\u00e9", "%E2%80%AE", "rbt_" + "A" * 43, "rba_x",
            "%0d%0aSet-Cookie:x", "NaN", "-1", "9" * 40, "tokens", "export", "overlay",
            "lang", "web.js", "index.html", "..%2f..%2fetc%2fpasswd", ";", "?", "#")  # fmt: skip


def _snapshot_tables(tables: list[dict[str, Any]]) -> list[Any]:
    return sorted(json.dumps(table, sort_keys=True) for table in tables)


@dataclass
class Answer:
    """An HTTP response as read off the socket (``status`` 0: none came)."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body)


def exchange(port: int, raw: bytes, timeout: float = 30) -> Answer:
    """Send ``raw`` on a new connection and read what comes back until it closes
    (the timeout guards against a hang; a response the server keeps open is read
    by its Content-Length)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as sock:
        with contextlib.suppress(OSError):  # it answered and closed before taking it all
            sock.sendall(raw)
        received = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            received += chunk
            head, found, body = received.partition(b"\r\n\r\n")
            if found and received.startswith(b"HTTP/1.1 101 "):
                break  # a WebSocket: what follows is the protocol's
            if found:
                length = _header(head, b"content-length")
                if length is not None and len(body) >= int(length):
                    break
    head, _, body = received.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    if not lines[0].startswith(b"HTTP/1.1 "):
        return Answer(0, {}, received)
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        headers[name.decode("latin-1").lower()] = value.strip().decode("latin-1")
    return Answer(int(lines[0].split()[1]), headers, body)


def _header(head: bytes, name: bytes) -> bytes | None:
    for line in head.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name:
            return value.strip()
    return None


@dataclass
class HttpWorld:
    """The served world, its admin token, and what was sent."""

    world: World
    admin: str
    #: the HTTP side's error codes and the statuses of each (:func:`http_codes`)
    codes: dict[str, set[int]] = field(default_factory=dict, repr=False)
    requests: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    created: list[str] = field(default_factory=list)
    #: what got past the token check and did its work: tables and tokens made (201,
    #: whose name is checked), exports answered (200), tables deleted (200)
    reached: dict[str, int] = field(default_factory=dict)
    #: the well-formed requests sent (:func:`_well_formed`), by kind: ``table``,
    #: ``token``, ``export``, ``delete``
    sent: dict[str, int] = field(default_factory=dict)
    #: the kind of well-formed request the example drew, None: a hostile one
    drawn: str | None = None
    #: the process the next request goes to (an index of :attr:`ports`)
    side: int = 0
    #: the processes requests were sent to
    sides_fuzzed: set[int] = field(default_factory=set)
    #: when (``time.monotonic()``) the examples left stop sending; None: never
    until: float | None = None
    #: examples that sent nothing, past :attr:`until`
    late: int = 0

    @property
    def port(self) -> int:
        """The port of the process chosen (:attr:`side`)."""
        return self.ports[self.side]

    @property
    def ports(self) -> list[int]:
        """Every process's port: the world's, and over Redis the other process's."""
        other = getattr(self.world, "other", None)
        return [self.world.port, *([other[1]] if other is not None else [])]

    def out_of_time(self) -> bool:
        """Whether the run's time is up (then the example is counted in :attr:`late`).
        Asked once the example's request is drawn: an example that drew less than
        another with the same start is flaky to Hypothesis."""
        late = self.until is not None and time.monotonic() > self.until
        self.late += late
        return late

    def admin_get(self, path: str, port: int | None = None) -> Any:
        """A GET of the admin API with the admin token (to ``port``, else the first
        process's): its JSON."""
        raw = (f"GET {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {self.admin}\r\n"
               "Connection: close\r\n\r\n").encode()  # fmt: skip
        answer = exchange(self.ports[0] if port is None else port, raw)
        assert answer.status == 200, answer
        return answer.json()

    def snapshot(self) -> Any:
        """Every table (its seq included) and every table's tokens, as every process's
        admin API lists them (asserted the same on each)."""
        seen = []
        for port in self.ports:
            tables = self.admin_get("/admin/tables", port)["tables"]
            tokens = {
                table["id"]: self.admin_get(
                    f"/admin/tables/{quote(table['id'], safe='')}/tokens", port
                )
                for table in tables
            }
            seen.append((_snapshot_tables(tables), tokens))
        assert all(found == seen[0] for found in seen), f"the processes list apart: {seen!r}"
        return seen[0]

    def trim(self) -> None:
        """Delete the tables the fuzzer created past a few (the snapshot stays small)."""
        tables = self.admin_get("/admin/tables")["tables"]
        keep = set(self.world.tables.values())
        extra = [table["id"] for table in tables if table["id"] not in keep]
        for table in extra[4:]:
            raw = (f"DELETE /admin/tables/{quote(table, safe='')} HTTP/1.1\r\nHost: x\r\n"
                   f"Authorization: Bearer {self.admin}\r\n\r\n").encode()  # fmt: skip
            assert exchange(self.port, raw).status == 200

    def check(self, raw: bytes) -> Answer:
        """Send ``raw`` and assert the properties of the module's docstring."""
        self.requests += 1
        self.sides_fuzzed.add(self.side)
        if self.drawn is not None:
            self.sent[self.drawn] = self.sent.get(self.drawn, 0) + 1
        before = self.snapshot()
        answer = exchange(self.port, raw)
        shown = raw[:600]
        assert answer.status in STATUSES, (shown, answer)
        kind = answer.headers.get("content-type", "")
        if raw.startswith(b"HEAD ") and answer.status:  # a head only: nothing to read
            assert answer.body == b"", (shown, answer)
            kind = ""
        if answer.status >= 400 and kind.startswith("application/json"):
            body = answer.json()
            assert isinstance(body, dict) and body.get("code") in self.codes, (shown, body)
            assert answer.status in self.codes[body["code"]], (shown, answer.status, body)
            assert body["code"] != "internal", (shown, body)
            assert isinstance(body.get("message"), str) and body["message"], (shown, body)
        self.world.check_log(shown)
        if answer.status == 201:  # made: with the name as sent (its bytes UTF-8)
            made, sent = answer.json(), _sent_parameters(raw)
            assert sent is not None, f"{shown!r}: a parameter not UTF-8 was taken: {made!r}"
            if sent.get("name", "").strip():  # (a token's blank name is no name: its role's)
                assert made["name"] == sent["name"].strip(), (shown, made)
            if "tokens" in made:
                self.created.append(made["id"])
        if answer.status >= 400:
            after = self.snapshot()
            assert after == before, f"{shown!r} was refused ({answer!r}) but changed a table"
        target = raw.split(b" ", 2)[1].partition(b"?")[0] if raw.count(b" ") >= 2 else b""
        done = None
        if answer.status == 201:
            done = "made"
        elif answer.status == 200 and raw.startswith(b"GET /tables/"):
            done = "exported" if target.endswith(b"/export") else None
        elif answer.status == 200 and raw.startswith(b"DELETE /admin/tables/"):
            done = "deleted"
            with contextlib.suppress(ValueError):  # a table the fuzzer made, gone
                self.created.remove(answer.json().get("deleted"))
        if done is not None:
            self.reached[done] = self.reached.get(done, 0) + 1
        code = ""
        if kind.startswith("application/json") and answer.status >= 400:
            code = ":" + answer.json()["code"]
        said = f"{answer.status}{code}"
        self.outcomes[said] = self.outcomes.get(said, 0) + 1
        self.world.check_witness()
        return answer


def _sent_parameters(raw: bytes) -> dict[str, str] | None:
    """The query parameters of ``raw``'s request line, as UTF-8 (None: they are not)."""
    target = raw.split(b"\r\n", 1)[0].split(b" ")[1].decode("latin-1")
    try:
        return dict(parse_qsl(target.partition("?")[2], keep_blank_values=True, errors="strict"))
    except UnicodeDecodeError:
        return None


#: What the fuzzed servers are started with: no limit on wrong tokens.
OPTIONS = ("--wrong-tokens-per-address", "0")


def start_http_world(folder: Path) -> HttpWorld:
    """:func:`start_world` with no limit on wrong tokens, and an admin token."""
    return _with_admin(start_world(folder, OPTIONS), ["--db", str(folder / "fuzz.db")])


def start_http_cluster(folder: Path) -> HttpWorld:
    """:func:`start_cluster` (a redis-server the test starts, two ``serve --redis``
    processes) with no limit on wrong tokens, and an admin token in its Redis."""
    world = start_cluster(folder, OPTIONS)
    assert world.redis is not None
    return _with_admin(world, ["--redis", world.redis.url])


def _with_admin(world: World, store: list[str]) -> HttpWorld:
    """``world`` with an admin token made in ``store``; a world whose token was not
    made is stopped, not left running past the test."""
    try:
        made = subprocess.run(
            [sys.executable, "-m", "rollbridge", "admin-token", *store,
             "--name", "fuzz", "--json"],
            capture_output=True, text=True, check=True, timeout=60,
            env={**os.environ, "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"},
        )  # fmt: skip
        return HttpWorld(world, json.loads(made.stdout)["token"], http_codes())
    except BaseException:  # the server is stopped, not left running past the test
        world.stop()
        raise


def http_codes() -> dict[str, set[int]]:
    """docs/operations.md's table of the HTTP side's error codes: each code and the
    statuses it is answered with — the only codes an HTTP error may have (not every
    word of the docs in backquotes: an undocumented code must fail the run)."""
    operations = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    table = operations.split("### The HTTP side's error codes", 1)[1].split("\n#", 1)[0]
    codes: dict[str, set[int]] = {}
    for line in table.splitlines():
        cells = line.split("|")
        if line.startswith("| `") and len(cells) > 3:
            code = re.fullmatch(r"\s*`([a-z_]+)`\s*", cells[1])
            assert code is not None, f"not a code: {cells[1]!r}"
            codes[code.group(1)] = {int(status) for status in re.findall(r"\d{3}", cells[2])}
    assert codes, "docs/operations.md has no table of the HTTP side's error codes"
    return codes


# -- what is sent ------------------------------------------------------------------


def _encode(value: Any) -> str:
    """A query value: percent-encoded text (lone surrogates as their UTF-8
    bytes would be, had they any), or as it is."""
    return quote(str(value).encode("utf-8", "surrogatepass"), safe="")


def _settings(data: st.DataObject) -> str:
    """A ``settings`` parameter: JSON that is and is not an object."""
    depth = data.draw(st.sampled_from((2, 40, 1000, 100_000)))
    choices = (
        '{"approval": true}',
        '{"verifiable": true, "locale": "de"}',
        "[]",
        "null",
        "1e999",
        "9" * 5000,
        '"x"',
        "{",
        '{"approval": 1e999}',
        '{"ruleset": {"x": ' + "9" * 400 + "}}",
        '{"locale": "\\ud800"}',
        "[" * depth + "]" * depth,
        '{"a":' * depth + "1" + "}" * depth,
        '{"approval": true, "approval": false}',
        "NaN",
        '{"__proto__": {}}',
    )
    return data.draw(st.sampled_from(choices))


def _query(data: st.DataObject, hw: HttpWorld) -> str:
    names = PARAMETERS
    words = WORDS
    values = st.one_of(
        st.sampled_from(words),
        st.sampled_from(ODD_INTS).map(str),
        st.sampled_from(ODD_TEXTS),
        st.text(max_size=20),
    )
    parts = []
    for _ in range(data.draw(st.integers(0, 4))):
        name = data.draw(st.sampled_from(names))
        value = _settings(data) if name == "settings" else data.draw(values)
        raw = data.draw(st.sampled_from(("encoded", "encoded", "raw", "bare")))
        if raw == "encoded":
            parts.append(f"{name}={_encode(value)}")
        elif raw == "raw":
            parts.append(f"{name}={value}")
        else:
            parts.append(name)
    return "&".join(parts)


def _path(data: st.DataObject, hw: HttpWorld) -> str:
    # not the witness's table: a DELETE of it with the admin token is answered as it
    # should be (seed 4242 drew one), and the witness could join no more
    seeded = [table for ruleset, table in hw.world.tables.items() if ruleset != "witness"]
    tables = seeded + hw.created[-2:]
    table = data.draw(pick(tables) | pick(tables) | st.sampled_from(SEGMENTS))
    table = quote(table, safe="%") if data.draw(st.booleans()) else table
    token_ids = ["0" * 12, "9b1c0e2f6a3d"]
    segment = st.sampled_from(SEGMENTS)
    templates = (
        "/admin/tables",
        "/admin/tables",
        "/admin/tables/{t}/tokens",
        "/tables/{t}/export",
        "/admin/tables/{t}",
        "/admin/tables/{t}/tokens",
        "/admin/tables/{t}/tokens/{k}",
        "/admin",
        "/admin/",
        "/admin//tables",
        "/admin/tables/{t}/{s}",
        "/tables/{t}",
        "/tables/{t}/",
        "/tables/{t}/overlay",
        "/tables/{t}/export",
        "/tables/{t}/export/{s}",
        "/static/web/{s}",
        "/static/client/{s}",
        "/static/web/lang/{s}.json",
        "/static/{s}",
        "/",
        "//",
        "/favicon.ico",
        "/metrics",
        "/healthz",
        "/readyz",
        "/{s}",
        "/metrics/{s}",
        "*",
        "http://x/admin/tables",
        "{s}",
    )
    template = data.draw(st.sampled_from(templates))
    path = template.format(t=table, k=data.draw(st.sampled_from(token_ids) | segment),
                           s=data.draw(segment))  # fmt: skip
    fitting = _fitting(data, template)
    if fitting and not chance(data, 4):
        path += "?" + fitting + ("&" + _query(data, hw) if chance(data, 4) else "")
    elif chance(data, 2):
        path += "?" + _query(data, hw)
    return path


def _fitting(data: st.DataObject, template: str) -> str:
    """The parameters a route asks for (mostly right), for ``template``."""
    name = _encode(data.draw(st.text(max_size=12) | st.sampled_from(ODD_TEXTS)))
    if chance(data, 4):  # percent-escapes that are no UTF-8
        name += data.draw(st.sampled_from(("%FF", "%C3%28", "%ED%A0%80", "%F4%90%80%80", "%80")))
    if template == "/admin/tables":
        ruleset = data.draw(st.sampled_from(("sr2", "bandits", "wilddie", "hitpoints", "nope")))
        query = f"ruleset={ruleset}&name={name}"
        if chance(data, 3):
            query += "&settings=" + _encode(_settings(data))
        return query
    if template == "/admin/tables/{t}/tokens":
        role = data.draw(st.sampled_from(("gm", "player", "observer", "GM", "")))
        return f"role={role}&name={name}"
    if template == "/tables/{t}/export":
        found = ["format=" + data.draw(st.sampled_from(("jsonl", "markdown", "csv")))]
        if chance(data, 2):
            since = data.draw(st.sampled_from((0, 1, 5, -1, 2**63, 10**30, "1.5", "x")))
            found.append(f"since={since}")
        if chance(data, 3):
            found.append("as=" + data.draw(st.sampled_from(("gm", "player", "observer", "x"))))
        if chance(data, 3):
            found.append("locale=" + data.draw(st.sampled_from(LOCALES)))
        return "&".join(found)
    return ""


def _authorization(data: st.DataObject, hw: HttpWorld, path: str) -> list[str]:
    tokens = [token for table in hw.world.tokens.values() for token in table.values()]
    bearer = st.one_of(
        st.just(hw.admin),
        st.just(hw.admin),
        pick(tokens),
        st.just(hw.admin[:-1] + ("A" if hw.admin[-1] != "A" else "B")),
        st.sampled_from(("rba_", "rbt_", "", " ", "rba_" + "x" * 5000, "\u00e9", "null")),
    )
    if data.draw(st.integers(0, 2)):  # mostly the token the path asks for
        token = hw.admin if path.startswith("/admin") else data.draw(pick(tokens))
        return [f"Authorization: Bearer {token}"]
    token = data.draw(bearer)
    scheme = data.draw(st.sampled_from(("Bearer", "Bearer", "bearer", "Basic", "Bearer  ", "")))
    headers = [f"Authorization: {scheme} {token}"]
    if chance(data, 10):
        headers.append(headers[0])  # twice
    if chance(data, 5):
        return []
    return headers


def _well_formed(data: st.DataObject, hw: HttpWorld) -> bytes:
    """A request a route takes past its token check: a table or a token made (its
    name hostile text, now and then with percent-escapes that are no UTF-8, its
    ``settings`` hostile JSON), a table's export with one of its tokens, a table the
    fuzzer made deleted. (The hostile requests of :func:`requests` rarely get past
    the token, the method and the parameters at once: in 60 of them, none did.)"""
    tables = list(hw.world.tables.values())
    # (what is drawn may not depend on what the server holds: Hypothesis replays the
    # draws of an example and calls a different count of them flaky)
    what = data.draw(st.sampled_from(("table", "token", "table", "export", "delete")))
    hw.drawn = what
    if what == "export":
        table = data.draw(st.sampled_from(tables))
        role = data.draw(st.sampled_from(sorted(hw.world.tokens[table])))
        token = hw.world.tokens[table][role]
        query = "format=" + data.draw(st.sampled_from(("jsonl", "markdown")))
        for name, values in (("since", ("0", "1", "5", "99999")), ("as", ("player", "observer")),
                             ("locale", ("cs", "de", "ru", "en", "de-AT"))):  # fmt: skip
            if data.draw(st.booleans()):
                query += f"&{name}={data.draw(st.sampled_from(values))}"
        target = f"/tables/{quote(table, safe='')}/export?{query}"
        method = "GET"
        if export_refusable(role, query):
            # (seed 2912 drew one export alone, since=99999, and failed the run)
            hw.drawn = "export_refusable"
    else:
        token = hw.admin
        plain = data.draw(st.booleans())  # a name that is fine, else _fitting's hostile one
        name = _encode(data.draw(st.sampled_from(NAMES)))
        if what == "table":
            ruleset = data.draw(st.sampled_from(("sr2", "bandits", "wilddie", "techlevel")))
            query = f"ruleset={ruleset}&name={name}" if plain else _fitting(data, "/admin/tables")
            method, target = "POST", f"/admin/tables?{query}"
        elif what == "token":
            table = quote(data.draw(st.sampled_from(tables)), safe="")
            role = data.draw(st.sampled_from(("gm", "player", "observer")))
            query = (f"role={role}&name={name}" if plain
                     else _fitting(data, "/admin/tables/{t}/tokens"))  # fmt: skip
            method, target = "POST", f"/admin/tables/{table}/tokens?{query}"
        else:
            made = hw.created[-1] if hw.created else "fuzz-none-made-yet"  # (else 404)
            method, target = "DELETE", f"/admin/tables/{quote(made, safe='')}"
    head = (f"{method} {target} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Authorization: Bearer {token}\r\nConnection: close\r\n\r\n")  # fmt: skip
    return head.encode("utf-8", "surrogatepass")


_RANK = {"observer": 0, "player": 1, "gm": 2}  # (core/server/export_http.py's)


def export_refusable(role: str, query: str) -> bool:
    """Whether an export asked with ``query`` by a token of ``role`` may rightly be
    refused: a view above the token's role (``as=``, forbidden), or a ``since``
    other than 0 (past the table's seq: invalid_request; the fuzzer's draws may not
    depend on the seq the server holds). A view at or below the role, since 0 or
    none, must be answered: refused, it still fails a run (as ``export``)."""
    parameters = dict(part.partition("=")[::2] for part in query.split("&"))
    asked = parameters.get("as")
    if asked is not None and _RANK.get(asked, 3) > _RANK.get(role, -1):
        return True
    return parameters.get("since", "0") != "0"


def unreached(hw: HttpWorld) -> set[str]:
    """What the well-formed requests sent should have reached and did not: a table or
    a token made where one was asked for, an export answered where one was. (Seed
    57721 drew no export in 200 examples: an export was asked of it none the less.)"""
    wanted = set()
    if hw.sent.get("table") or hw.sent.get("token"):
        wanted.add("made")
    if hw.sent.get("export"):  # (not "export_refusable": one the server may refuse)
        wanted.add("exported")
    return wanted - set(hw.reached)


def requests(data: st.DataObject, hw: HttpWorld) -> bytes:
    """One raw HTTP request (about one in two :func:`_well_formed`)."""
    hw.drawn = None
    if chance(data, 2):
        return _well_formed(data, hw)
    if chance(data, 30):  # no HTTP at all
        return data.draw(st.binary(max_size=200)) + b"\r\n\r\n"
    path = _path(data, hw)
    method = "GET"
    if chance(data, 10):
        method = data.draw(st.sampled_from(ODD_METHODS))
    elif path.startswith("/admin") or chance(data, 5):
        method = data.draw(st.sampled_from(METHODS))
    version = "HTTP/1.1"
    if chance(data, 15):
        version = data.draw(st.sampled_from(("HTTP/1.0", "HTTP/2", "HTTP/1.1x", "http/1.1")))
    headers = ["Host: 127.0.0.1"] if not chance(data, 10) else []
    if path.startswith(("/admin", "/tables")) or chance(data, 4):
        headers += _authorization(data, hw, path)
    if chance(data, 2):
        headers.append(f"Accept-Language: {data.draw(st.sampled_from(LOCALES))}")
    if chance(data, 5):
        headers += ["Upgrade: websocket", "Connection: Upgrade"]
        if chance(data, 2):
            headers += ["Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13"]
    if chance(data, 8):
        headers.append(data.draw(st.sampled_from((
            "X-Forwarded-For: 1.2.3.4", "Forwarded: for=\"[::1]\"", "X: \u00e9",
            "Content-Type: application/json", "Content-Type: text/plain; charset=latin-1",
            "Cookie: " + "c" * 9000, "Expect: 100-continue", "Range: bytes=0-1",
        ))))  # fmt: skip
    body = b""
    if chance(data, 6):
        body = data.draw(st.sampled_from((
            b"{}", b"[]", b"null", b'{"ruleset": "sr2", "name": "x"}', b"\xff\xfe",
            b"[" * 5000, b"9" * 5000, b"ruleset=sr2&name=x",
        )))  # fmt: skip
        # (a body no header announces is the next request's first bytes: not sent)
        how = data.draw(st.sampled_from(("length", "chunked", "wrong")))
        if how == "length":
            headers.append(f"Content-Length: {len(body)}")
        elif how == "chunked":
            headers.append("Transfer-Encoding: chunked")
            body = f"{len(body):x}\r\n".encode() + body + b"\r\n0\r\n\r\n"
        elif how == "wrong":
            headers.append(data.draw(st.sampled_from(("Content-Length: -1",
                                                      "Content-Length: 99999999999999999999",
                                                      "Content-Length: x"))))  # fmt: skip
    headers.append("Connection: close")
    head = f"{method} {path} {version}\r\n" + "".join(h + "\r\n" for h in headers) + "\r\n"
    raw = head.encode("utf-8", "surrogatepass")
    if chance(data, 12):  # a byte that is no UTF-8 in the request line or a header
        at = data.draw(st.integers(0, len(raw) - 5))
        raw = raw[:at] + data.draw(st.sampled_from((b"\xff", b"\x00", b"\x7f", b"\n"))) + raw[at:]
    return raw + body
