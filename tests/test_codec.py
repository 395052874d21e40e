"""The one codec (rollbridge.plain): the fast packer writes the reference's bytes.

``msgpack`` is the reference (the design names it); ``ormsgpack``, used for speed
when installed, must produce exactly its bytes for all plain data, and refuse what
is not plain data as the reference does (or more strictly, naming the value).
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import math
import struct
import uuid

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rollbridge import plain
from rollbridge.plain import (
    NotPlain,
    Packed,
    dumps_json,
    ensure_plain,
    pack,
    pack_map,
    reference_pack,
    unpack,
)
from rollbridge.text import Messages, Text

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text()
)
plain_data = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(), inner, max_size=6),
    max_leaves=40,
)


def test_the_fast_codec_is_in_use_when_installed():
    pytest.importorskip("ormsgpack")
    assert plain.CODEC == "ormsgpack"


@settings(max_examples=250, deadline=None)
@given(plain_data)
def test_pack_writes_the_reference_bytes(value):
    assert pack(value) == reference_pack(value) == msgpack.packb(value, use_bin_type=True)
    assert unpack(pack(value)) == msgpack.unpackb(reference_pack(value), raw=False)


@pytest.mark.parametrize(
    ("head", "view"),
    [({}, {"k0": 0}), ({"type": "event"}, {}), ({}, {}), ({"type": "event"}, {"k0": [1]})],
    ids=["empty-head", "empty-view", "both-empty", "neither"],
)
def test_a_frame_with_an_empty_head_or_view_is_the_message_encoded_at_once(head, view):
    from rollbridge.protocol.frames import prefixed

    whole = {**head, **view}
    assert prefixed(head, dumps_json(view), "json") == dumps_json(whole)
    assert prefixed(head, Packed(pack(view)), "msgpack") == reference_pack(whole)


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(), plain_data, max_size=8), st.text(), plain_data)
def test_a_map_of_packed_values_is_the_map_packed_at_once(fields, key, value):
    whole = {**fields, key: value}
    spliced = pack_map({**fields, key: Packed(pack(value))})
    assert spliced == reference_pack(whole)


@settings(max_examples=100, deadline=None)
@given(plain_data)
def test_json_text_is_the_standard_librarys(value):
    assert json.loads(dumps_json(value)) == json.loads(
        json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    )


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (2**64, "64-bit"),
        (-(2**63) - 1, "64-bit"),
        ("\ud800", "Unicode"),
        ({"k": float("nan")}, "finite"),
        ([float("inf")], "finite"),
        ({1: "x"}, "keys must be strings"),
        (object(), "object"),
    ],
    ids=["huge", "very-negative", "surrogate", "nan", "inf", "int-key", "object"],
)
def test_what_is_not_plain_is_refused_naming_it(value, problem):
    with pytest.raises(NotPlain, match=problem):
        pack(value)
    with pytest.raises(NotPlain, match=problem):
        ensure_plain(value)


class Colour(enum.Enum):
    RED = "red"


class Level(enum.IntEnum):
    HIGH = 3


class Name(enum.StrEnum):
    TUKAN = "tukan"


@dataclasses.dataclass
class Point:
    x: int


@pytest.mark.parametrize(
    "value",
    [Colour.RED, datetime.datetime(2026, 12, 3), uuid.UUID(int=7), Point(1)],
    ids=["enum", "datetime", "uuid", "dataclass"],
)
def test_what_the_reference_refuses_the_fast_codec_refuses_too(value):
    """ormsgpack writes these by itself; the reference and ensure_plain refuse them,
    so pack does too — with and without a default (a ruleset's result packed with
    its texts): a ruleset's mistake is refused, not stored as a string."""
    from rollbridge.text import stored

    with pytest.raises(TypeError):
        msgpack.packb(value, use_bin_type=True)
    with pytest.raises(NotPlain):
        ensure_plain({"v": value})
    for default in (None, stored):
        with pytest.raises(NotPlain, match=r"not allowed|cannot be packed"):
            pack({"v": value}, default)


@pytest.mark.parametrize("value", [datetime.datetime(2026, 12, 3), Point(1)])
def test_dumps_json_refuses_datetimes_and_dataclasses(value):
    with pytest.raises(NotPlain):
        dumps_json({"v": value})


def test_subclasses_of_plain_types_pack_as_the_reference_writes_them():
    from collections import namedtuple

    from rollbridge.text import stored

    pair = namedtuple("pair", "a b")
    value = {"level": Level.HIGH, "name": Name.TUKAN, "list": [Level.HIGH], "pair": pair(1, 2)}
    ensure_plain(value)
    assert pack(value) == pack(value, stored) == reference_pack(value)
    assert unpack(pack(value)) == {"level": 3, "name": "tukan", "list": [3], "pair": [1, 2]}


def test_bytes_are_refused_where_values_come_in():
    """msgpack can write bytes (as bin), JSON cannot: values are checked where they
    enter (a request's schema, a ruleset's results), with ensure_plain's walk."""
    with pytest.raises(NotPlain, match="bytes values are not allowed"):
        ensure_plain({"state": [b"raw"]})


@pytest.mark.parametrize(
    "value",
    [
        {"time": 1.5, "then": float("nan")},
        {"mark": "\u02c0", "time": 2.5, "then": float("-inf")},
        [float("inf"), 3.5, "\u02c0"],
        ["\u02c0" * 50, [{"deep": [float("nan")]}], 4.5],
    ],
    ids=["after-a-float", "after-a-marker-in-text", "first", "nested-after-markers"],
)
def test_a_non_finite_float_anywhere_is_refused(value):
    """The check runs from the first float marker (0xcb; also inside the UTF-8 of
    U+02C0–U+02FF): a NaN or infinity after finite floats or such text is found."""
    with pytest.raises(NotPlain, match="finite"):
        pack(value)


#: A message of the tests' own, for texts as a ruleset makes them.
SAMPLE = Messages("codec_tests")("sample", "{who} rolls {n}")
#: A time whose packed float holds the NaN pattern in its mantissa (cb 41 da 3c cb ff f9 ..):
#: such times recur for about a second every few days.
CHANCE_TIME = 1760767999.894


def test_a_value_with_texts_and_the_pattern_by_chance_packs():
    """The pattern can turn up inside an integer or a float's mantissa; the check then
    looks at what was packed (texts in their stored form), not at the value, which
    holds texts that are plain data only through the default."""
    from rollbridge.text import stored

    text = SAMPLE(who="Tukan", n=3)
    chance = int.from_bytes(b"\x00\xcb\x7f\xf8\x00\x00\x00\x01", "big")
    for value in ({"narration": text, "n": chance}, {"narration": text, "at": CHANCE_TIME}):
        packed = pack(value, stored)
        assert unpack(packed) == {**value, "narration": stored(text)}


def test_a_non_finite_float_in_a_text_s_arguments_is_refused_naming_it():
    from rollbridge.text import stored

    text = SAMPLE(who="Tukan", n=float("nan"))
    with pytest.raises(NotPlain, match="finite") as refused:
        pack({"narration": text}, stored)
    assert "narration" in refused.value.where


def test_an_event_at_a_time_with_the_pattern_by_chance_is_stored_and_sent():
    """An sr2 attack (texts in its narration and steps) when the table's clock reads
    such a time: the engine packs its event and views, and the table moves on."""
    from rollbridge.dice import SeededDice
    from rollbridge.engine import Principal
    from rollbridge.host import PluginHost
    from rollbridge.offline import TableService
    from rollbridge.stores import MemoryStore

    gm = Principal("gm", "gm", "tok-gm")
    service = TableService(MemoryStore(), PluginHost(), dice=lambda: SeededDice(3),
                           clock=lambda: CHANCE_TIME)  # fmt: skip
    service.create_table("t", "sr2", table_id="t")
    sheets = {
        "tukan": {"body": 5, "combat_pool": 6,
                  "weapons": [{"name": "Hackler", "code": "7M", "skill": 6}]},
        "guard": {"body": 4, "combat_pool": 4, "armor": {"ballistic": 4, "impact": 2}},
    }  # fmt: skip
    for actor_id, sheet in sheets.items():
        actor = {"id": actor_id, "name": actor_id.title(), "sheet": sheet}
        service.handle("t", {"type": "actor.create", "id": f"c-{actor_id}", "actor": actor}, gm)
    attack = {"type": "resolve", "id": "a1", "action": "attack", "actor": "tukan",
              "targets": ["guard"], "params": {"weapon": "Hackler", "range": "short"}}  # fmt: skip
    reply = service.handle("t", attack, gm)
    assert reply["status"] == "done", reply
    event = service.table("t").history_event(reply["seq"])
    assert event.request == "a1" and event.at == CHANCE_TIME and event.texts


#: Integers and finite floats (times of this decade) whose packed bytes hold the NaN
#: pattern by chance: inside an integer, or in a float's mantissa.
look_alikes = st.builds(
    lambda head, tail: int.from_bytes(bytes(head) + b"\xcb\x7f\xf8" + bytes(tail), "big"),
    st.lists(st.integers(0, 255), min_size=1, max_size=1),
    st.lists(st.integers(0, 255), min_size=4, max_size=4),
) | st.builds(
    lambda at, fill: struct.unpack(
        ">d", (b"\x41\xda" + bytes(fill[:at]) + b"\xcb\xff\xf9" + bytes(fill[at:]))
    )[0],
    st.integers(0, 3),
    st.lists(st.integers(0, 255), min_size=3, max_size=3),
)


def _texts_stored(value):
    from rollbridge.text import Text, stored

    if isinstance(value, Text):
        return stored(value)
    if isinstance(value, dict):
        return {k: _texts_stored(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_texts_stored(v) for v in value]
    return value


@settings(max_examples=150, deadline=None)
@given(
    st.recursive(
        scalars | look_alikes | st.builds(lambda n: SAMPLE(who="Tukan", n=n), scalars),
        lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
        max_leaves=25,
    )
)
def test_plain_data_with_texts_and_look_alikes_packs_as_stored(value):
    """Whatever plain data and texts a ruleset returns, with values whose bytes look
    like a NaN, packs: as the data with each text in its stored form."""
    from rollbridge.text import stored

    assert unpack(pack(value, stored)) == _texts_stored(value)


def test_finite_floats_among_markers_in_text_pass():
    value = {"mark": "\u02c0\u02ff", "time": 1_764_720_000.5, "odds": [0.25, -0.0, 1e300]}
    assert unpack(pack(value)) == value


def test_bytes_packed_beside_the_pattern_by_chance_are_not_refused():
    """A Redis commit's digest packs its events' packed bytes; when an event's bytes
    held the NaN pattern by chance (an event's time: 10 of 2,000,000 random times near
    1.8e9, each packed in an event as a digest holds it, measured by rev29t; a commit's
    other numbers add to it), the fallback ran the whole plain check, which refuses
    bytes, and the commit failed
    (``NotPlain: value[2][0][1]: bytes values are not allowed``, met in CI). Only
    floats are looked at there now; a real NaN beside bytes is still refused."""
    chance = pack({"at": CHANCE_TIME})
    assert b"\xcb\xff\xf9" in chance  # the pattern, inside the time's mantissa
    value = [1, [[12, chance]], "é"]
    assert unpack(pack(value)) == value
    with pytest.raises(NotPlain, match=r"value\[1\]: numbers must be finite"):
        pack([chance, float("nan")])


def test_harmless_bytes_that_look_like_a_nan_are_not_refused():
    # 0xcb 0x7f 0xf8 inside an integer's bytes, not a float
    value = [int.from_bytes(b"\x00\xcb\x7f\xf8\x00\x00\x00\x01", "big"), "é"]
    assert unpack(pack(value)) == value
    assert math.isfinite(1.5) and unpack(pack([1.5]))[0] == 1.5


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(st.text(), plain_data, max_size=20), st.text(), plain_data)
def test_a_frame_made_from_an_encoded_view_is_the_message_encoded_at_once(view, table, tag):
    from rollbridge.protocol.frames import encode_with, prefixed

    view = {k: v for k, v in view.items() if k not in ("type", "table")}
    head = {"type": "event", "table": table}
    assert prefixed(head, Packed(pack(view)), "msgpack") == reference_pack({**head, **view})
    assert json.loads(prefixed(head, dumps_json(view), "json")) == json.loads(
        dumps_json({**head, **view})
    )
    result = {"type": "result", "id": tag if isinstance(tag, str) else "r"}
    assert encode_with(result, "event", Packed(pack(view)), "msgpack") == reference_pack(
        {**result, "event": view}
    )
    assert json.loads(encode_with(result, "event", dumps_json(view), "json")) == {
        **result,
        "event": json.loads(dumps_json(view)),
    }


_NOT_JSON = "a text frame must hold JSON"


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ('{"a" 1}', f"{_NOT_JSON}: it is not, at line 1, column 6"),
        ('{"type": "ping",\n "id": 1,]', f"{_NOT_JSON}: it is not, at line 2, column 10"),
        ("[" * 60_000 + "]" * 60_000, f"{_NOT_JSON}: this is nested too deep"),
        ('{"id": ' + "1" * 5000 + "}", f"{_NOT_JSON} (a number in it may be too long)"),
    ],
    ids=["at", "second-line", "deep", "long-number"],
)
def test_a_text_frame_that_is_no_json_is_refused_in_the_clients_words(text, english):
    """``undecodable`` names where the text stops being JSON, in the client's
    language; the JSON library's own English (which names Python internals, such as
    ``sys.set_int_max_str_digits``) is never sent."""
    from rollbridge.exceptions import UndecodableFrame
    from rollbridge.protocol.frames import decode

    with pytest.raises(UndecodableFrame) as caught:
        decode(text)
    error = caught.value
    assert error.code == "undecodable" and str(error) == english
    rendered = {locale: error.render(locale) for locale in ("cs", "de", "ru")}
    assert len(set(rendered.values())) == 3 and english not in rendered.values()
    for message in (english, *rendered.values()):
        assert "Expecting" not in message and "sys." not in message and "recursion" not in message


@pytest.mark.parametrize(
    ("bad", "problem"),
    [(datetime.date(2026, 1, 1), "date values are not allowed"),
     ({"fight", "will"}, "set values are not allowed"),
     (2**70, "integer out of the 64-bit range"),
     ({3: "x"}, "map keys must be strings"),
     (Text("rollbridge.never_declared_here", {}),
      "'rollbridge.never_declared_here' is not a declared message")],
)  # fmt: skip
def test_what_cannot_be_packed_with_texts_is_named_where_it_stands(bad, problem):
    """A ruleset's result packed with its texts (the ``stored`` hook): the refusal names
    the path of the value and what it is, not only "value: cannot be packed"."""
    from rollbridge.text import stored

    value = {"data": {"outcome": {"ok": [1, {"fine": SAMPLE(who="x", n=1)}, bad]}}}
    with pytest.raises(NotPlain) as refused:
        pack(value, stored)
    assert refused.value.where == "value.data.outcome.ok[2]", refused.value
    assert problem in refused.value.problem, refused.value


def test_a_value_nested_past_any_limit_is_refused_as_such_not_a_recursion_error():
    """The failure path names where a value stands by walking it: a value nested
    deeper than the packer goes (a ruleset's result) is refused, naming its depth."""
    from rollbridge.text import stored

    value: list = []
    for _ in range(5000):
        value = [value]
    with pytest.raises(NotPlain) as refused:
        pack({"data": value}, stored)
    assert "nested more than" in refused.value.problem
