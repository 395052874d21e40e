"""Names of tables and tokens (rollbridge.names): one line of text, at most 200
characters; a line break or an escape sequence could forge a log line."""

from __future__ import annotations

import pytest

from rollbridge.exceptions import InvalidRequest
from rollbridge.host import PluginHost
from rollbridge.names import MAX_NAME, check_name
from rollbridge.offline import TableService
from rollbridge.stores.memory import MemoryStore
from rollbridge.tokens import new_token


@pytest.mark.parametrize(
    "name",
    ["Pátek u Tukana", "Freitag 🎲", "Пятница", "x" * MAX_NAME, "Rodina 👨\u200d👩\u200d👧",
     "علی\u200cرضا", "Pride 🏳️\u200d🌈", "한국", "⠓⠑⠇⠇⠕\u2800⠺⠕⠗⠇⠙", "שלום עליכם",
     "\u200fעברית 3", "देवनागरी", "क्\u200dष", "مرحبا\u200e 5", "\u0600"],
)  # fmt: skip
def test_a_name_of_one_line_is_taken(name):
    assert check_name(name) == name


@pytest.mark.parametrize(
    "name", ["", "   ", "x" * (MAX_NAME + 1), "\u200b", "\u200d", " \u2060 ",
             "\ufeff", "a\ud800b", "\u3164", "\u2800\u2800", "\u115f\u1160", " \uffa0 ",
             "\u034f", "\u17b4\u17b5", "\ufe0f", "\u180b", "\U000e0100", "\u034f \ufe0f",
             "\u2800\u034f", " \ufff9", "\U00013430 \u200b"],
)  # fmt: skip
def test_a_name_that_is_no_line_is_refused_naming_its_field(name):
    with pytest.raises(InvalidRequest) as refused:
        check_name(name, "name")
    assert refused.value.details == {"field": "name"}
    assert "1 to 200 characters" in str(refused.value)


@pytest.mark.parametrize(
    ("name", "character"),
    [("a\nb", "U+000A"), ("a\rb", "U+000D"), ("esc\x1b[31m", "U+001B"), ("nul\x00", "U+0000"),
     ("del\x7f", "U+007F"), ("\x85", "U+0085"), ("a\u2028b", "U+2028"), ("p\u2029", "U+2029"),
     ("bidi\u202eevil", "U+202E"), ("iso\u2066late", "U+2066"), ("x" * 300 + "\n", "U+000A")],
)  # fmt: skip
def test_a_name_with_a_control_character_is_refused_with_its_own_code(name, character):
    """A control character (C0, C1, DEL), a line separator or a bidirectional control
    was refused as any name that is no name; now with its own code, naming the
    character (the admin API, which strips blanks, checks them first: a name of a
    line break alone is no missing name)."""
    with pytest.raises(InvalidRequest) as refused:
        check_name(name, "name")
    assert refused.value.code == "name_control"
    assert refused.value.details == {"field": "name", "character": character}
    assert str(refused.value).startswith("name: ") and character in str(refused.value)


def test_tables_and_tokens_take_no_such_name():
    service = TableService(MemoryStore(), PluginHost())
    with pytest.raises(InvalidRequest):
        service.create_table("night\n2026-12-03 INFO forged", "sr2")
    assert service.store.tables() == []
    with pytest.raises(InvalidRequest):
        new_token("t", "player", "alice\x1b[2J")
    assert new_token("t", "player", "Alice")[1].name == "Alice"
    # a player whose name has a joiner (Persian ZWNJ) can have a token for their actor
    assert new_token("t", "player", "علی\u200cرضا")[1].name == "علی\u200cرضا"


@pytest.mark.parametrize(
    "options",
    [["--name", "a\nb"], ["--name", "x", "--settings", "[" * 5000],
     ["--name", "x", "--settings", "1" + "0" * 5000], ["--name", "x", "--settings", "[1]"]],
)  # fmt: skip
def test_the_cli_refuses_bad_names_and_settings_without_a_traceback(tmp_path, capsys, options):
    from rollbridge.cli import main

    code = main(["table", "create", "--db", str(tmp_path / "t.db"), "--ruleset", "sr2", *options])
    err = capsys.readouterr().err
    assert code != 0 and "Traceback" not in err and "rollbridge: error:" in err
    assert any(code in err for code in ("invalid_request", "invalid_settings", "name_control")), err


@pytest.mark.parametrize(
    "option",
    [["resolve", "wilddie", "trait", "--settings"], ["odds", "wilddie", "trait", "--params"]],
)
def test_offline_json_options_refuse_deep_or_long_json_without_a_traceback(capsys, option):
    from rollbridge.cli import main

    for given in ("[" * 5000, "1" + "0" * 5000):
        code = main([*option, given])
        err = capsys.readouterr().err
        assert code != 0 and "Traceback" not in err and "invalid_request" in err, err
        assert "nests too deep or a number in it is too long" in err
        assert "at character" not in err  # no position it does not know


def test_names_and_request_ids_refuse_the_same_characters_as_before_one_list():
    """Since names, request ids and plain's bidi check share one list
    (visible.NOT_IN_NAMES, 598451c), a name refuses a character for ``name_control``
    exactly where it did before — a control (Unicode's Cc), a line or paragraph
    separator (Zl, Zp) or a bidirectional control — and a request id the same: every
    code point but the surrogates, checked."""
    import unicodedata

    from rollbridge.engine.requests import valid_id
    from rollbridge.plain import has_bidi_control

    bidi = {*range(0x202A, 0x202F), *range(0x2066, 0x206A)}
    for point in range(0x110000):
        char = chr(point)
        if unicodedata.category(char) == "Cs":
            continue
        refused = unicodedata.category(char) in ("Cc", "Zl", "Zp") or point in bidi
        try:
            check_name(f"a{char}b")
        except InvalidRequest as exc:
            assert refused and exc.code == "name_control", hex(point)
        else:
            assert not refused, hex(point)
        assert valid_id(f"a{char}b") is not refused, hex(point)
        assert has_bidi_control(char) is (point in bidi), hex(point)
