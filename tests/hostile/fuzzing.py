"""A property-based fuzzer of the wire protocol against a real ``rollbridge serve``.

:func:`start_world` starts ``rollbridge serve`` (SQLite, a real port) in a
subprocess with one table per ruleset — the four built-ins and the example plugin
``hitpoints`` (found through an entry point written for it) — and one more table
whose client only ever rolls (the witness). Each fuzzed table has a GM and a player,
each joined once over JSON and once over msgpack; :class:`World` sends them requests
built by :func:`requests` from the documented message kinds and each ruleset's
action schemas, mostly well formed and then mutated (wrong types, numbers at and past
their bounds, NaN, deep nesting, odd Unicode and lone surrogates, unknown fields,
wrong and foreign ids), and :meth:`World.check` asserts what every request must get:

- exactly one answer, a result or an error whose ``code`` is documented
  (docs/protocol.md and the rulesets' docs), never ``internal``;
- a refused request changes nothing: the GM's ``state`` (the table and its seq) is
  the same after it as before;
- nothing it sent makes a traceback or an ERROR line in the server's log;
- the witness's plain roll at another table is still answered.

tests/hostile/test_fuzz.py runs it; ``ROLLBRIDGE_FUZZ_EXAMPLES`` sets how many
examples (docs/operations.md, "Hostile input").
"""

from __future__ import annotations

import contextlib
import importlib
import json
import math
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import msgpack
from hypothesis import HealthCheck, Phase, seed, settings
from hypothesis import strategies as st
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "hitpoints"
RULESETS = ("sr2", "techlevel", "bandits", "wilddie", "hitpoints")
#: Every request type of docs/protocol.md, and a few that are not.
TYPES = (
    "hello",
    "ping",
    "roll",
    "draw",
    "resolve",
    "state",
    "odds",
    "stats",
    "actor.create",
    "actor.update",
    "actor.remove",
    "adjust",
    "undo",
    "redo",
    "settings",
    "encounter.start",
    "encounter.next",
    "encounter.reorder",
    "encounter.end",
    "approve",
    "reject",
    "dice.reveal",
    "foundry.roll",
    "foundry.resolve",
    "welcome",
    "event",
    "",
    "ROLL",
    "roll ",
)
W = TypeVar("W", bound="World")
#: The most actors the fuzzer lets a table reach (so its ``state`` stays small).
MOST_ACTORS = 40


def fuzzed(default: int, shrink: bool = False) -> Callable[[Any], Any]:
    """The Hypothesis settings of the fuzzers: ``ROLLBRIDGE_FUZZ_EXAMPLES`` examples
    (else ``default``), derandomized (the same every run, no example database)
    unless ``ROLLBRIDGE_FUZZ_SEED`` names another seed, no deadline; no shrinking
    unless ``shrink`` (a server's state makes it slow)."""
    chosen = os.environ.get("ROLLBRIDGE_FUZZ_SEED")
    phases = (Phase.explicit, Phase.generate, *((Phase.shrink,) if shrink else ()))

    def decorate(test: Any) -> Any:
        configured = settings(
            max_examples=int(os.environ.get("ROLLBRIDGE_FUZZ_EXAMPLES", str(default))),
            derandomize=chosen is None,
            database=None,
            deadline=None,
            phases=phases,
            suppress_health_check=list(HealthCheck),
        )
        return configured(seed(int(chosen or 0))(test))

    return decorate


def check_logs(*logs: Path) -> None:
    """No traceback in any of ``logs`` (read once the servers stopped)."""
    for log in logs:
        text = log.read_text(encoding="utf-8", errors="replace")
        assert "Traceback" not in text, text[-4000:]


def documented_codes() -> set[str]:
    """The error codes docs/protocol.md's table lists, and every code the rulesets'
    docs name (a refusal of the rules has the ruleset's own code)."""
    protocol = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    table = protocol.split("## Error codes", 1)[1].split("\n## ", 1)[0]
    codes = {
        code
        for line in table.splitlines()
        if line.startswith("| `")
        for code in re.findall(r"`([a-z_]+)`", line.split("|")[1])
    }
    for path in [*(ROOT / "docs" / "rulesets").glob("*.md"), EXAMPLE / "README.md"]:
        codes |= set(re.findall(r"`([a-z][a-z_]+)`", path.read_text(encoding="utf-8")))
    return codes


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _site(folder: Path) -> Path:
    """A folder whose dist-info makes ``rollbridge_hitpoints`` an entry point of the
    group ``rollbridge``, as ``pip install examples/hitpoints`` would."""
    info = folder / "rollbridge_hitpoints-1.0.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: rollbridge-hitpoints\nVersion: 1.0.0\n"
    )
    (info / "entry_points.txt").write_text("[rollbridge]\nhitpoints = rollbridge_hitpoints\n")
    # the package beside it, not its folder on the path (a build of it there may
    # have left an egg-info that names the entry point a second time)
    (folder / "rollbridge_hitpoints").symlink_to(EXAMPLE / "rollbridge_hitpoints")
    return folder


def example_sheets() -> dict[str, dict[str, dict[str, Any]]]:
    """Each ruleset's example sheets, by ruleset id and actor name."""
    if str(EXAMPLE) not in sys.path:
        sys.path.insert(0, str(EXAMPLE))
    from rollbridge.host import PluginHost

    hitpoints = importlib.import_module("rollbridge_hitpoints")
    host = PluginHost({"hitpoints": hitpoints}, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    return {rid: dict(host.rulesets[rid].example_sheets) for rid in RULESETS}


# -- frames ---------------------------------------------------------------------


class Raw(bytes):
    """A frame sent as it is (garbage)."""


def encode(message: Any, kind: str) -> str | bytes:
    """``message`` as a JSON text frame or a msgpack binary frame. Lone surrogates
    go out as ``\\udXXX`` escapes in JSON and as ill-formed UTF-8 in msgpack; what
    msgpack cannot carry (an integer past 64 bits) goes as JSON; bytes go as JSON
    text."""
    if isinstance(message, Raw):
        return bytes(message) if kind == "msgpack" else message.decode("utf-8", "replace")
    if kind == "msgpack":
        try:
            return msgpack.Packer(unicode_errors="surrogatepass").pack(message)
        except (OverflowError, TypeError, ValueError):
            pass
    return json.dumps(message, default=lambda b: b.decode("latin-1"))


def decode(frame: str | bytes) -> dict[str, Any]:
    """A frame the server sent."""
    if isinstance(frame, bytes):
        return msgpack.unpackb(frame, strict_map_key=False)
    return json.loads(frame)


# -- the server and its clients -------------------------------------------------


class Client:
    """One WebSocket connection, joined to a table (or not) in ``kind`` frames."""

    def __init__(self, world: World, table: str | None, role: str | None, kind: str) -> None:
        self.world, self.table, self.role, self.kind = world, table, role, kind
        self._stack = contextlib.ExitStack()
        self.ws: ClientConnection = self._stack.enter_context(
            # no keepalive pings: their payload draws on `random`, under Hypothesis
            connect(world.url, max_size=2**24, open_timeout=20, ping_interval=None)
        )
        #: ids of requests waiting for the GM's approval: their results may come later
        self.pending: set[Any] = set()
        self.welcome: dict[str, Any] = {}
        if table is not None and role is not None:
            hello = self.world.hello(table, role.removesuffix("-foundry"))
            if role.endswith("-foundry"):
                hello["dialect"] = "foundry"
            self.welcome = self.ask(hello)
            assert self.welcome["type"] == "welcome", self.welcome

    def send(self, message: Any, kind: str | None = None) -> None:
        """Send one frame."""
        self.ws.send(encode(message, kind or self.kind))

    def receive(self, timeout: float = 30) -> dict[str, Any]:
        """The next frame."""
        return decode(self.ws.recv(timeout))

    def answers(self, timeout: float = 30) -> list[dict[str, Any]]:
        """Every frame but events up to the first answer, then every frame but events
        up to the pong of a ping sent after it: the answer first, then any other
        answer that came."""
        found = [frame for frame in self._until(lambda f: f.get("type") != "event", timeout)]
        probe = self.world.fresh_id("probe")
        self.send({"type": "ping", "id": probe})
        # a pong, or before a hello ``unauthorized``
        more = self._until(lambda f: f.get("id") == probe, timeout)
        return found + more[:-1]

    def _until(self, stop: Any, timeout: float) -> list[dict[str, Any]]:
        seen: list[dict[str, Any]] = []
        while True:
            frame = self.receive(timeout)
            if frame.get("type") == "event":
                continue
            late = frame.get("type") == "result" and frame.get("status") != "pending"
            if late and frame.get("id") in self.pending:
                continue  # an approved or rejected request's late result
            seen.append(frame)
            if stop(frame):
                return seen

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        """Send a request and return its answer."""
        self.send(message)
        while True:
            frame = self.receive()
            if frame.get("type") != "event" and frame.get("id") == message.get("id"):
                return frame

    def close(self) -> None:
        """Close the connection."""
        self._stack.close()


@dataclass
class World:
    """A served file with a table per ruleset, their tokens and clients."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path
    tables: dict[str, str]  # ruleset → table id
    tokens: dict[str, dict[str, str]]  # table id → role → token
    sheets: dict[str, dict[str, dict[str, Any]]]
    codes: set[str]
    clients: dict[tuple[str, str, str], Client] = field(default_factory=dict)
    actors: dict[str, list[str]] = field(default_factory=dict)  # table → ids seen
    counter: int = 0
    log_read: int = 0
    requests: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)
    witness: Client | None = None

    @property
    def names(self) -> dict[str, list[str]]:
        """Every string of each ruleset's example sheets (weapons, traits, stats...)."""
        return {rid: sorted(_strings(sheets)) for rid, sheets in self.sheets.items()}

    def __repr__(self) -> str:
        return f"World(port={self.port}, log={self.log})"

    @property
    def url(self) -> str:
        """The server's WebSocket URL."""
        return f"ws://127.0.0.1:{self.port}/"

    def fresh_id(self, prefix: str = "f") -> str:
        """A request id never used before."""
        self.counter += 1
        return f"{prefix}{self.counter}-{time.monotonic_ns()}"

    def hello(self, table: str, role: str) -> dict[str, Any]:
        """A ``hello`` to ``table`` with its ``role`` token."""
        token = self.tokens[table][role]
        return {"type": "hello", "id": self.fresh_id("h"), "table": table, "token": token}

    def client(self, table: str, role: str, kind: str) -> Client:
        """The joined client of ``table``, ``role`` and ``kind`` (joined again if the
        server closed it)."""
        key = (table, role, kind)
        found = self.clients.get(key)
        if found is None or found.ws.close_code is not None:
            found = self.clients[key] = Client(self, table, role, kind)
        return found

    def state(self, table: str) -> dict[str, Any]:
        """The table as its GM sees it (its seq included)."""
        reply = self.client(table, "gm", "json").ask({"type": "state", "id": self.fresh_id("s")})
        assert reply["type"] == "result", reply
        self.actors[table] = [actor["id"] for actor in reply["table"]["actors"]]
        return reply["table"]

    def trim(self, table: str) -> dict[str, Any]:
        """The table's state, after its GM removed actors past :data:`MOST_ACTORS`
        (the newest), so that its ``state`` stays small."""
        state = self.state(table)
        gm = self.client(table, "gm", "json")
        for actor in (
            state["actors"][MOST_ACTORS // 2 :] if len(state["actors"]) >= MOST_ACTORS else []
        ):
            reply = gm.ask({"type": "actor.remove", "id": self.fresh_id(), "actor": actor["id"]})
            assert reply["type"] == "result", reply
        return self.state(table)

    def new_log(self) -> str:
        """What the server logged since the last call."""
        with self.log.open("rb") as source:
            source.seek(self.log_read)
            text = source.read()
        self.log_read += len(text)
        return text.decode("utf-8", "replace")

    def check_log(self, what: Any) -> None:
        """No traceback and no ERROR line since the last check."""
        text = self.new_log()
        bad = [line for line in text.splitlines() if "Traceback" in line or " ERROR " in line]
        assert not bad, f"the server logged, after {what!r}:\n{text[-6000:]}"

    def check_witness(self) -> None:
        """A plain roll at the witness's table is answered."""
        if self.witness is None or self.witness.ws.close_code is not None:
            self.witness = Client(self, self.tables["witness"], "player", "json")
        reply = self.witness.ask({"type": "roll", "id": self.fresh_id("w"), "formula": "1d6"})
        assert reply["type"] == "result" and reply["status"] == "done", reply

    def check(self, table: str, who: str, message: Any, kind: str) -> dict[str, Any]:
        """Send ``message`` as ``who`` (``gm``, ``player`` or ``fresh``: a new
        connection that has not joined) in ``kind`` frames and check the answer."""
        self.requests += 1
        name = message.get("type") if isinstance(message, dict) else "raw"
        name = name if isinstance(name, str) and name in TYPES else "other"
        self.kinds[name] = self.kinds.get(name, 0) + 1
        before = self.state(table)
        client = Client(self, None, None, kind) if who == "fresh" else self.client(table, who, kind)
        frame = encode(message, kind)
        kind = "msgpack" if isinstance(frame, bytes) else "json"  # as it went
        try:
            client.ws.send(frame)
            try:
                answers = client.answers()
            except ConnectionClosed as closed:
                answers = []
                size = len(frame if isinstance(frame, bytes) else frame.encode("utf-8", "replace"))
                assert _may_close(message, closed, size), (message, closed)
        finally:
            if who == "fresh":
                client.close()
        assert len(answers) <= 1, f"more than one answer to {message!r}: {answers!r}"
        answer = answers[0] if answers else {"type": "closed"}
        if answer.get("type") == "error":
            assert answer.get("code") in self.codes, answer
            assert answer.get("code") != "internal", (message, answer)
            assert isinstance(answer.get("message"), str) and answer["message"], answer
            _check_id(message, answer, kind)
            after = self.state(table)
            assert after == before, f"{message!r} was refused ({answer!r}) but changed the table"
        elif answer.get("type") == "result":
            _check_id(message, answer, kind)
            if answer.get("status") == "pending":
                client.pending.add(answer["id"])
        if name in os.environ.get("ROLLBRIDGE_FUZZ_SHOW", "").split(",") and name:
            print("SHOW", who, repr(message)[:300], "->", repr(answer)[:300])
        self.check_log(message)
        said = answer.get("code") or answer.get("status") or answer.get("type")
        self.outcomes[f"{name}:{said}"] = self.outcomes.get(f"{name}:{said}", 0) + 1
        return answer

    def stop(self) -> None:
        """Close every client and stop the server."""
        for client in [*self.clients.values(), self.witness]:
            if client is not None:
                with contextlib.suppress(Exception):
                    client.close()
        from tests.conftest import stop_process

        stop_process(self.process)


def _strings(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {*value, *(s for v in value.values() for s in _strings(v))}
    if isinstance(value, list):
        return {s for v in value for s in _strings(v)}
    return set()


def _check_id(message: Any, answer: dict[str, Any], kind: str) -> None:
    if not isinstance(message, dict):
        return
    sent = message.get("id")
    if answer.get("code") == "undecodable":  # ill-formed UTF-8 in msgpack: no id read
        assert answer.get("id") is None, (message, answer)
        return
    if isinstance(sent, bytes) and kind == "json":
        sent = sent.decode("latin-1")  # as encode() sent it
    if isinstance(sent, str) and kind == "json":
        sent = json.loads(json.dumps(sent))  # a pair of escaped surrogates is one character
    good = (
        isinstance(sent, str)
        and 1 <= len(sent) <= 64
        and _valid(sent)
        and _NOT_IN_ID.search(sent) is None
    ) or (isinstance(sent, int) and not isinstance(sent, bool) and -(2**63) <= sent < 2**63)
    if good and all(isinstance(key, str) and _valid(key) for key in message):
        assert answer.get("id") == sent, (message, answer)
    elif not good:
        assert answer.get("id") is None, (message, answer)


#: What a request id may not hold (docs/protocol.md, "Requests"): the C0 and C1
#: controls, DEL, the line and paragraph separators and the bidirectional controls;
#: an id holding one is answered with id null, as one of the wrong type is.
_NOT_IN_ID = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _valid(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _may_close(message: Any, closed: ConnectionClosed, size: int) -> bool:
    """A connection may be closed after a ``hello`` (refused: 1008, or 1013), and
    after a frame larger than 64 KiB (1009)."""
    code = closed.rcvd.code if closed.rcvd is not None else None
    if code == 1009:
        return size > 64 * 1024
    return isinstance(message, dict) and message.get("type") == "hello" and code in (1008, 1013)


def fuzz_env(folder: Path) -> dict[str, str]:
    """The environment of the fuzzed server and its CLI: the built-in rulesets and
    the example plugin ``hitpoints`` (an entry point in ``folder/site``), Foundry's
    adapter."""
    site = _site(folder / "site")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]),
        "ROLLBRIDGE_PLUGINS": ",".join([*RULESETS, "foundry"]),
    }
    env.pop("ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD", None)
    return env


def make_tables(
    env: dict[str, str], store: list[str]
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """A table per ruleset and the witness's (sr2), made by ``rollbridge table
    create`` in ``store`` (``["--db", PATH]`` or ``["--redis", URL]``): their ids by
    ruleset, and each one's tokens by role."""
    tables: dict[str, str] = {}
    tokens: dict[str, dict[str, str]] = {}
    for ruleset in (*RULESETS, "witness"):
        made = subprocess.run(
            [sys.executable, "-m", "rollbridge", "table", "create",
             "--ruleset", "sr2" if ruleset == "witness" else ruleset,
             "--name", f"fuzz {ruleset}", "--json", *store],
            capture_output=True, text=True, check=True, env=env, timeout=60,
        )  # fmt: skip
        created = json.loads(made.stdout)
        tables[ruleset] = created["table"]
        tokens[created["table"]] = created["tokens"]
    return tables, tokens


def serve(
    log: Path, env: dict[str, str], store: list[str], options: tuple[str, ...] = ()
) -> tuple[subprocess.Popen[bytes], int]:
    """``rollbridge serve`` on ``store``, without the limits that would refuse a
    fuzzer's pace, its output in ``log``, listening: the process and its port."""
    port = _free_port()
    with log.open("w") as sink:
        process = subprocess.Popen(
            [sys.executable, "-m", "rollbridge", "serve", "--port", str(port), *store,
             "--no-demo", "--rate-per-connection", "0", "--rate-per-table", "0",
             "--max-connections-per-token", "0", "--http-rate-per-address", "0", *options],
            stdout=sink, stderr=subprocess.STDOUT, env=env,
        )  # fmt: skip
    deadline = time.monotonic() + 30
    while "listening on" not in log.read_text(errors="replace"):
        if process.poll() is not None or time.monotonic() > deadline:
            from tests.conftest import stop_process

            stop_process(process)
            raise AssertionError("server did not start:\n" + log.read_text(errors="replace"))
        time.sleep(0.05)
    return process, port


def populate(world: World) -> None:
    """Each fuzzed table's example actors, created by its GM (the first controlled
    by the player)."""
    for ruleset in RULESETS:
        table = world.tables[ruleset]
        gm = world.client(table, "gm", "json")
        for index, (name, sheet) in enumerate(world.sheets[ruleset].items()):
            actor = {
                "id": f"a{index}",
                "name": name,
                "sheet": sheet,
                "controllers": ["player"] if index == 0 else [],
            }
            reply = gm.ask({"type": "actor.create", "id": world.fresh_id(), "actor": actor})
            assert reply["type"] == "result", reply
        world.state(table)
    world.check_log("setup")


def populated(world: W) -> W:
    """``world`` after :func:`populate` (stopped if that failed)."""
    try:
        populate(world)
    except BaseException:
        world.stop()
        raise
    return world


def start_world(folder: Path, options: tuple[str, ...] = ()) -> World:
    """``rollbridge serve`` over a fresh file in ``folder``: a table per ruleset (its
    example actors created, the first controlled by the player) and the witness's;
    ``options`` go to ``serve`` after the fuzzer's own."""
    env = fuzz_env(folder)
    store = ["--db", str(folder / "fuzz.db")]
    tables, tokens = make_tables(env, store)
    log = folder / "serve.log"
    process, port = serve(log, env, store, options)
    return populated(
        World(process, port, log, tables, tokens, example_sheets(), documented_codes())
    )


# -- what is sent ----------------------------------------------------------------

ODD_TEXTS = (
    "",
    " ",
    "\ud800",
    "a\udfffb",
    "\udbff\udc00",
    "\u202e62",
    "\u2066x",
    "\u200f",
    "\x00",
    "\n\r\t",
    "\ufeff",
    "\U0001f3b2" * 10,
    "x" * 65,
    "x" * 300,
    "%s%d{0}",
    "${jndi:x}",
    "../../etc/passwd",
    "<script>",
    "NaN",
    "-1",
    "1e999",
    "Ana",
    "a0",
    "\u0301\u0301",
    "\uffff",
    "\U0010ffff",
)
ODD_INTS = (
    0,
    -1,
    1,
    2,
    7,
    2**31,
    2**53 + 1,
    2**63 - 1,
    2**63,
    2**64 - 1,
    2**64,
    -(2**63),
    -(2**63) - 1,
    10**30,
    -(10**30),
)
ODD_FLOATS = (math.nan, math.inf, -math.inf, 1e308, -0.0, 0.5, 2.0, 1e-320)


def _deep(depth: int, leaf: Any, as_list: bool) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value] if as_list else {"n": value}
    return value


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from(ODD_INTS),
    st.integers(),
    st.sampled_from(ODD_FLOATS),
    st.floats(),
    st.sampled_from(ODD_TEXTS),
    st.integers(1000, 6000).map(lambda n: "\u00e4" * n),
    st.text(max_size=20),
    st.binary(max_size=8),
)
hostile = st.one_of(
    scalars,
    st.builds(_deep, st.integers(28, 40), scalars, st.booleans()),
    st.lists(scalars, max_size=4),
    st.dictionaries(st.sampled_from(("x", "id", "type", "\ud800", "")), scalars, max_size=3),
)


def texts(most: int = 40) -> st.SearchStrategy[str]:
    """Mostly plain text, sometimes odd."""
    return st.one_of(st.text(max_size=most), st.sampled_from(ODD_TEXTS))


def from_schema(
    schema: Any, names: list[str], depth: int = 0, clean: bool = False
) -> st.SearchStrategy[Any]:
    """Values of a JSON schema (the subset the rulesets use): with ``clean`` within
    it, else at and around its edges; ``names`` are strings worth trying (weapons,
    traits, stats...)."""
    if not isinstance(schema, dict) or depth > 6:
        return st.none() if clean else hostile
    if "enum" in schema:
        if clean:
            return st.sampled_from(schema["enum"])
        return st.sampled_from(schema["enum"]) | st.sampled_from(("", "X", "physical ", "d7"))
    kinds = schema.get("type")
    if isinstance(kinds, list):
        return st.one_of(
            *(from_schema({**schema, "type": kind}, names, depth, clean) for kind in kinds)
        )
    if kinds == "integer":
        low, high = schema.get("minimum", -(2**31)), schema.get("maximum", 2**31)
        if clean:
            return st.integers(low, min(high, low + 12)) | st.sampled_from((low, high))
        return st.one_of(
            st.integers(low, high),
            st.sampled_from((low, high, low - 1, high + 1, (low + high) // 2)),
        )
    if kinds == "number":
        return st.floats(schema.get("minimum"), schema.get("maximum"), allow_nan=not clean)
    if kinds == "boolean":
        return st.booleans()
    if kinds == "null":
        return st.none()
    if kinds == "string":
        most = schema.get("maxLength", 40)
        if clean:
            if "pattern" in schema:
                return st.from_regex(schema["pattern"], fullmatch=True).filter(
                    lambda text: len(text) <= most
                )
            short = st.text("abcdefgh 1d6+", min_size=schema.get("minLength", 0), max_size=8)
            return pick(names).filter(lambda text: len(text) <= most) | short
        options = [pick(names), texts(min(most + 1, 90))]
        if "pattern" in schema:
            options.append(st.from_regex(schema["pattern"], fullmatch=True))
        if "maxLength" in schema:
            options.append(st.just("y" * (most + 1)))
        return st.one_of(*options)
    if kinds == "array":
        items = from_schema(schema.get("items", {}), names, depth + 1, clean)
        most = min(schema.get("maxItems", 4), 3)
        return st.lists(items, max_size=most if clean else most + 2)
    if kinds == "object" or "properties" in schema:
        properties = schema.get("properties", {})
        required = set(schema.get("required", ()))
        fields = {
            key: from_schema(sub, names, depth + 1, clean)
            for key, sub in sorted(properties.items())
        }
        extra = schema.get("additionalProperties")
        return st.builds(
            _object,
            st.fixed_dictionaries(
                {k: v for k, v in fields.items() if k in required},
                optional={k: v for k, v in fields.items() if k not in required},
            ),
            st.dictionaries(pick(names), from_schema(extra, names, depth + 1, clean), max_size=2)
            if isinstance(extra, dict)
            else st.just({}),
        )
    return st.none() if clean else hostile


def _object(fixed: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    return {**extra, **fixed}


def _mutate(value: Any, data: st.DataObject) -> Any:
    """``value`` with one part replaced by something hostile, removed, or an unknown
    field added."""
    if isinstance(value, dict) and value and not chance(data, 8):
        key = data.draw(st.sampled_from(sorted(value, key=repr)))
        how = data.draw(st.sampled_from(("replace", "remove", "add", "descend")))
        copy = dict(value)
        if how == "replace":
            copy[key] = data.draw(hostile)
        elif how == "remove":
            del copy[key]
        elif how == "add":
            copy[data.draw(st.sampled_from(("zz", "unknown", "__proto__", "\ud800x")))] = data.draw(
                hostile
            )
        else:
            copy[key] = _mutate(copy[key], data)
        return copy
    if isinstance(value, list) and value and not chance(data, 4):
        copy = list(value)
        index = data.draw(st.integers(0, len(copy) - 1))
        copy[index] = _mutate(copy[index], data)
        return copy
    return data.draw(hostile)


@dataclass
class Place:
    """What a request may name: the table's actors, other tables', its actions."""

    actors: list[str]
    foreign: list[str]
    actions: dict[str, Any]
    names: list[str]
    sheets: list[dict[str, Any]]
    seq: int
    pending: list[Any] = field(default_factory=list)
    #: the ruleset's ``sheet_schema``, ``state_schema`` and ``settings_schema``
    schemas: dict[str, Any] = field(default_factory=dict)


def place_of(world: World, ruleset: str) -> Place:
    """What a request to ``ruleset``'s table may name, as its GM sees it now (after
    :meth:`World.trim`)."""
    table = world.tables[ruleset]
    state = world.trim(table)
    foreign = [a for t, ids in world.actors.items() if t != table for a in ids]
    welcome = world.client(table, "gm", "json").welcome
    return Place(
        actors=[actor["id"] for actor in state["actors"]],
        foreign=foreign,
        actions=welcome["ruleset"]["actions"],
        names=sorted({*world.names[ruleset], *(a["id"] for a in state["actors"])}),
        sheets=list(world.sheets[ruleset].values()),
        seq=state["seq"],
        pending=[p.get("pending", p.get("id")) for p in state.get("pending", [])],
        schemas=welcome["ruleset"],
    )


def fuzz_example(
    world: World, data: st.DataObject, before: Callable[[], None] | None = None
) -> None:
    """One example: a ruleset's table drawn, one to three requests to it sent and
    checked (``before`` each one, if given), then the witness's roll."""
    ruleset = data.draw(st.sampled_from(RULESETS))
    table = world.tables[ruleset]
    for who, message, kind in frames(data, world, place_of(world, ruleset), table):
        if before is not None:
            before()
        world.check(table, who, message, kind)
    world.check_witness()


def chance(data: st.DataObject, n: int) -> bool:
    """True about once in ``n`` draws (an inner value: Hypothesis favours the ends)."""
    return data.draw(st.integers(0, n - 1)) == n // 2


def pick(values: list[Any]) -> st.SearchStrategy[Any]:
    """One of ``values``, drawn the same way however many there are (the server's
    state decides them, and a strategy whose shape changed with it would be flaky)."""
    return st.integers(0, 2**16).map(lambda index: values[index % len(values)])


def request(data: st.DataObject, place: Place, kind: str) -> dict[str, Any]:
    """A well-formed-looking request of message type ``kind``."""
    actor_ids = place.actors or ["a0"]
    actor = st.one_of(
        pick(actor_ids),
        pick(actor_ids),
        pick(actor_ids),
        pick(place.foreign or ["zz"]),
        st.sampled_from(("nobody", "", "A0", "a0 ", "\ud800")),
    )
    actors = st.lists(actor, max_size=4) | st.lists(pick(actor_ids), max_size=3).map(
        lambda ids: ids + ids[:1]
    )
    formula = st.one_of(
        st.sampled_from(
            (
                "1d6",
                "2d6+1",
                "4d6kh3",
                "6d6!!",
                "999d6",
                "1000d6",
                "d%",
                "1d0",
                "0d6",
                "2d6/0",
                "1d6x>1",
                "999d6x>1",
                "(((1d6)))",
                "1d6" * 40,
                "9" * 30 + "d6",
                "1d" + "9" * 30,
                "3d6 # label",
                "1d20+5[fire]",
                "2d6cs>=5",
                "1d6r<6",
                "{1d6,1d8}kh",
                "1d6+9223372036854775807",
                "-9223372036854775808d6",
                "1d6*1e308",
                "99999999999*99999999999*99999999999",
                "8d2500",
                "1d2x",
                "1d1!",
                "10d10!!>1",
            )
        )
        | texts(60)
    )
    dice = st.lists(st.one_of(st.integers(-2, 30), st.sampled_from(ODD_INTS)), max_size=6)
    known = st.sampled_from(sorted(place.actions) or ["x"])
    action = known | known | known | st.sampled_from(("nope", "", "ATTACK"))
    if kind == "roll":
        fields = {
            "actor": actor,
            "secret": st.booleans(),
            "requester_sees": st.booleans(),
            "dice": dice,
            "label": texts(),
        }
        base = data.draw(st.fixed_dictionaries({"formula": formula}, optional=fields))
    elif kind == "draw":
        base = data.draw(
            st.fixed_dictionaries(
                {
                    "faces": st.sampled_from((2, 4, 6, 20, 100, 0, 1, 1000, 2**40)),
                    "number": st.sampled_from((1, 2, 999, 1000, 0, -1)),
                },
                optional={"actor": actor, "secret": st.booleans(), "label": texts()},
            )
        )
    elif kind in ("resolve", "odds"):
        name = data.draw(action if chance(data, 8) else known)
        spec = place.actions.get(name, {})
        clean = not chance(data, 3)
        params = from_schema(spec.get("params", {}), place.names, clean=clean)
        low, high = spec.get("min_targets", 0), spec.get("max_targets")
        high = min(len(actor_ids), 3 if high is None else high)
        targets = st.lists(pick(actor_ids), min_size=min(low, high), max_size=high, unique=True)
        optional = {"actor": actor, "targets": actors}
        if chance(data, 8):
            optional["params"] = params
        if not chance(data, 6):  # as the action's spec asks: an actor or none, its targets
            del optional["targets"]
            optional.pop("actor")
            base_fields = {"targets": targets}
            if spec.get("actor") == "required" or (
                spec.get("actor") == "optional" and data.draw(st.booleans())
            ):
                base_fields["actor"] = pick(actor_ids)
        else:
            base_fields = {}
        if kind == "resolve":
            optional |= {"secret": st.booleans(), "requester_sees": st.booleans()}
        else:
            optional |= {
                "assume": st.dictionaries(
                    actor,
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "sheet": st.sampled_from(place.sheets) | hostile,
                            "state": st.just({}) | hostile,
                        },
                    ),
                    max_size=2,
                )
            }
        required = {"action": st.just(name), **base_fields}
        if "params" not in optional:
            required["params"] = params
        base = data.draw(st.fixed_dictionaries(required, optional=optional))
        if kind == "resolve" and chance(data, 6):
            base["dice"] = data.draw(dice)
        if kind == "odds" and chance(data, 5):
            base = {"formula": data.draw(formula)}
    elif kind == "state":
        seqs = st.sampled_from((0, 1, place.seq, place.seq - 1, place.seq + 1, -1, 2**63))
        base = data.draw(st.fixed_dictionaries({}, optional={"at": seqs | st.integers()}))
    elif kind == "stats":
        number = st.sampled_from((0, 1, place.seq, -1, 2**63, 1.5)) | st.integers()
        base = data.draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "actor": actor,
                    "encounter": number,
                    "since": number,
                    "until": number,
                    "from_time": number | st.floats(),
                    "to_time": number | st.floats(),
                },
            )
        )
    elif kind in ("actor.create", "actor.update"):
        schemas = place.schemas
        sheet = st.one_of(
            st.sampled_from(place.sheets) if place.sheets else st.just({}),
            from_schema(schemas.get("sheet_schema"), place.names, clean=True),
            from_schema(schemas.get("sheet_schema"), place.names),
        )
        state = st.one_of(
            st.just({}),
            st.dictionaries(texts(10), hostile, max_size=2),
            from_schema(schemas.get("state_schema"), place.names, clean=True),
            from_schema(schemas.get("state_schema"), place.names),
        )
        name = st.text(st.characters(codec="utf-8"), min_size=1, max_size=30)
        controller = st.sampled_from(("player", "gm", "x"))
        fields = {
            "name": name | name | texts(),
            "sheet": sheet,
            "state": state,
            "controllers": st.lists(controller, max_size=2, unique=True)
            | st.lists(controller | texts(), max_size=3),
        }
        if kind == "actor.create":
            body = data.draw(
                st.fixed_dictionaries(
                    {"name": fields["name"], "sheet": sheet},
                    optional={"id": actor, **{k: fields[k] for k in ("state", "controllers")}},
                )
            )
            base = {"actor": body}
        else:
            base = data.draw(st.fixed_dictionaries({"actor": actor}, optional=fields))
    elif kind == "actor.remove":
        base = {"actor": data.draw(actor)}
    elif kind == "adjust":
        base = {
            "actor": data.draw(actor),
            "track": data.draw(
                st.sampled_from(("physical", "stun", "body", "mind", "hp", "wounds", "harm", "x"))
            ),
            "delta": data.draw(st.integers(-5, 5) | st.sampled_from(ODD_INTS)),
        }
    elif kind in ("undo", "redo"):
        seqs = st.sampled_from((place.seq, place.seq - 1, 0, -1, 2**63))
        base = data.draw(st.fixed_dictionaries({}, optional={"seq": seqs}))
    elif kind == "settings":
        settings = st.fixed_dictionaries(
            {},
            optional={
                "approval": st.booleans(),
                "player_dice": st.booleans(),
                "verifiable": st.booleans(),
                "locale": st.sampled_from(("cs", "de", "ru", "en", "tlh", "")),
                "ruleset": st.dictionaries(texts(20), scalars, max_size=2)
                | from_schema(place.schemas.get("settings_schema"), place.names, clean=True),
            },
        )
        base = {"settings": data.draw(settings)}
    elif kind in ("encounter.start", "encounter.reorder"):
        unique = st.lists(pick(actor_ids), min_size=1, max_size=4, unique=True)
        base = {"order": data.draw(unique | unique | actors)}
        if kind == "encounter.start":
            base |= data.draw(st.fixed_dictionaries({}, optional={"dice": dice}))
    elif kind == "encounter.next":
        base = data.draw(st.fixed_dictionaries({}, optional={"dice": dice, "order": actors}))
    elif kind in ("approve", "reject"):
        pending = (
            pick(place.pending or ["p1"])
            | st.sampled_from(("p1", "p2", "p0", "", "x"))
            | st.integers(-1, 3)
        )
        base = data.draw(
            st.fixed_dictionaries({"request": pending}, optional={"dice": dice, "reason": texts()})
        )
    elif kind in ("foundry.roll", "foundry.resolve"):
        base = foundry(data, place, kind, actor, formula, dice)
    else:  # encounter.end, dice.reveal, ping and the unknown
        base = data.draw(st.dictionaries(st.sampled_from(("x", "actor")), scalars, max_size=2))
    return base


def foundry(
    data: st.DataObject,
    place: Place,
    kind: str,
    actor: st.SearchStrategy[Any],
    formula: st.SearchStrategy[str],
    dice: st.SearchStrategy[list[int]],
) -> dict[str, Any]:
    """A ``foundry.roll`` or ``foundry.resolve`` of the Foundry dialect
    (docs/foundry.md): a Roll JSON with its terms and results, a speaker."""
    result = st.fixed_dictionaries(
        {"result": st.integers(-1, 21) | st.sampled_from((1e308, 2.5, 2**64, True, None, "3"))},
        optional={"active": st.booleans()},
    )
    term = st.one_of(
        st.fixed_dictionaries(
            {
                "class": st.sampled_from(("Die", "Coin", "FateDie", "PoolTerm", "X")),
                "number": st.integers(0, 5),
                "faces": st.sampled_from((6, 20, 0, -1)),
            },
            optional={"results": st.lists(result, max_size=4) | hostile, "modifiers": hostile},
        ),
        st.fixed_dictionaries(
            {"class": st.sampled_from(("OperatorTerm", "NumericTerm", "StringTerm"))},
            optional={"operator": st.just("+"), "number": scalars},
        ),
        st.sampled_from(("+", "2d6")),
    )
    roll = st.fixed_dictionaries(
        {"class": st.just("Roll"), "formula": formula},
        optional={
            "terms": st.lists(term, max_size=4) | hostile,
            "evaluated": st.booleans() | scalars,
            "total": scalars,
            "dice": hostile,
        },
    )
    speaker = st.fixed_dictionaries(
        {}, optional={"actor": actor, "token": texts(), "scene": texts(), "alias": texts()}
    )
    common = {
        "speaker": speaker | hostile,
        "actor": actor | st.none(),
        "rollMode": st.sampled_from(("publicroll", "gmroll", "blindroll", "selfroll", "x")),
        "requester_sees": st.booleans(),
        "secret": st.booleans(),
    }
    if kind == "foundry.roll":
        fields = {
            "flavor": texts(),
            "source": st.sampled_from(("server", "foundry", "auto", "x")),
        }
        return data.draw(st.fixed_dictionaries({"roll": roll}, optional=common | fields))
    name = data.draw(st.sampled_from(sorted(place.actions) or ["x"]))
    target = pick(place.actors or ["a0"]) | st.fixed_dictionaries(
        {}, optional={"actor": actor, "token": texts(), "rollbridge": actor}
    )
    fields = {
        "targets": st.lists(target, max_size=3),
        "params": from_schema(
            place.actions.get(name, {}).get("params", {}), place.names, clean=True
        ),
        "dice": dice,
        "roll": roll,
    }
    return data.draw(st.fixed_dictionaries({"action": st.just(name)}, optional=common | fields))


def ids(data: st.DataObject, world: World) -> Any:
    """A request id: mostly fresh, sometimes odd (or missing)."""
    if not chance(data, 10):
        return world.fresh_id(data.draw(st.sampled_from(("r", "\u00e9", "1"))))
    return data.draw(
        st.sampled_from(
            (
                None,
                "",
                "x" * 65,
                "\ud800",
                1.5,
                math.nan,
                2**64,
                -(2**63) - 1,
                True,
                [],
                {},
                "MISSING",
            )
        )
        | st.integers(-(2**63), 2**64 - 1)
    )


def frames(
    data: st.DataObject, world: World, place: Place, table: str
) -> Iterator[tuple[str, Any, str]]:
    """One example: a few ``(who, message, kind)`` to send."""
    for _ in range(data.draw(st.integers(1, 3))):
        who = data.draw(st.sampled_from(("gm", "player", "gm-foundry", "player-foundry")))
        kind = data.draw(st.sampled_from(("json", "msgpack")))
        if chance(data, 40):
            yield who, Raw(data.draw(st.binary(max_size=40))), kind
            continue
        name = data.draw(st.sampled_from(TYPES))
        if chance(data, 10) or (name == "hello" and not chance(data, 5)):
            who = "fresh"  # a connection that has not joined (a hello's, mostly)
        if name == "hello":
            message = world.hello(table, data.draw(st.sampled_from(("gm", "player", "observer"))))
            message |= data.draw(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "resume": st.fixed_dictionaries(
                            {
                                "epoch": st.sampled_from((1, 0, -1, 2**53, 2**63)),
                                "seq": st.sampled_from((0, place.seq, place.seq + 5, -1, 2**63)),
                            }
                        )
                        | hostile,
                        "dialect": st.sampled_from(("rollbridge", "foundry", "x", "")) | hostile,
                        "client": texts(),
                        "results": st.sampled_from(("full", "brief", "x")),
                        "locale": st.sampled_from(("cs", "de-AT", "ru_RU.UTF-8", "tlh", "x" * 99))
                        | texts(),
                    },
                )
            )
            if chance(data, 4):
                message["token"] = data.draw(
                    st.sampled_from([*world.tokens[world.tables["witness"]].values(), "rbt_x"])
                    | hostile
                )
            if chance(data, 4):
                message["table"] = data.draw(st.sampled_from(list(world.tables.values())) | hostile)
        else:
            message = {"type": name, **request(data, place, name)}
        message["id"] = ids(data, world)
        if message["id"] == "MISSING":
            del message["id"]
        if chance(data, 3):
            message = _mutate(message, data)
        yield who, message, kind
