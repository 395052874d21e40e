"""Why a text is not JSON, in the reader's language (:mod:`rollbridge.json_words`): a
Czech, German or Russian user met Python's English ("Expecting property name enclosed
in double quotes") inside a sentence in their own language — `--params` of
`resolve`, `connect`'s `json {...}` (there the whole line was Python's), a log given
to `verify` — and `--params` counted the character from 0 where a dice formula's
error counts from 1."""

from __future__ import annotations

import json

import pytest

from rollbridge import json_words
from rollbridge.cli import main
from rollbridge.cli.terminal import parse_command
from rollbridge.exceptions import InvalidRequest
from rollbridge.json_words import json_reason
from rollbridge.text import Text, render

#: A text that is not JSON for each reason Python's decoder gives, with the start of
#: what it says.
BROKEN = {
    "Expecting value": "",
    "Expecting property name enclosed in double quotes": "{dice",
    "Expecting ':' delimiter": '{"dice" 2}',
    "Expecting ',' delimiter": '{"dice": 2 "tn": 4}',
    "Unterminated string starting at": '{"dice',
    "Invalid control character": '"a\tb"',
    "Invalid \\uXXXX escape": '"\\u12"',
    "Invalid \\escape": '"\\x"',
    "Extra data": "{} {}",
}

#: The single quotes a shell user writes, and what each language says of them.
SINGLE_QUOTES = {
    "cs": "--params: neplatný JSON (čeká se název vlastnosti ve dvojitých uvozovkách na znaku 2)",
    "de": "--params: kein gültiges JSON (Eigenschaftsname in doppelten Anführungszeichen "
    "erwartet bei Zeichen 2)",
    "ru": "--params: недопустимый JSON (ожидается имя свойства в двойных кавычках, символ 2)",
}


def decode_error(text: str) -> json.JSONDecodeError:
    with pytest.raises(json.JSONDecodeError) as caught:
        json.loads(text)
    return caught.value


@pytest.mark.parametrize(("said", "text"), sorted(BROKEN.items()))
def test_every_reason_of_the_decoder_is_a_declared_message(said, text):
    exc = decode_error(text)
    assert exc.msg.startswith(said)
    reason = json_reason(exc)
    assert isinstance(reason, Text), exc.msg
    english = render(reason, locale="en")
    assert exc.msg.startswith(english), (english, exc.msg)  # English reads as Python's
    for locale in ("cs", "de", "ru"):
        assert render(reason, locale=locale) != english, (locale, english)


def test_a_reason_of_a_later_python_keeps_its_own_words():
    exc = json.JSONDecodeError("Something new", "x", 0)
    assert json_reason(exc) == "Something new"
    assert all(start for start, _ in json_words._BY_START)


@pytest.mark.parametrize("locale", sorted(SINGLE_QUOTES))
def test_params_say_why_in_the_users_language_counting_from_one(locale, capsys):
    code = main(["resolve", "sr2", "success_test", "--params", "{'dice': 2}", "--locale", locale])
    assert code == 1
    line = capsys.readouterr().err
    assert line == f"rollbridge: error: invalid_request: {SINGLE_QUOTES[locale]}\n"


def test_params_in_english_read_as_python_says_it(capsys):
    assert main(["resolve", "sr2", "success_test", "--params", "{dice", "--locale", "en"]) == 1
    assert capsys.readouterr().err == (
        "rollbridge: error: invalid_request: --params: not valid JSON (Expecting property "
        "name enclosed in double quotes at character 2)\n"
    )


@pytest.mark.parametrize("locale", sorted(SINGLE_QUOTES))
def test_connects_json_command_is_refused_in_the_users_language(locale):
    with pytest.raises(InvalidRequest) as caught:
        parse_command("json {bad", "r1")
    said = caught.value.render(locale)
    assert said.startswith("json: ") and said.endswith(" 2)"), said
    assert "Expecting" not in said and "char" not in said


@pytest.mark.parametrize(
    ("locale", "said"),
    [("cs", "řádek 2 není JSON: neukončený řetězec"),
     ("de", "nicht abgeschlossene Zeichenkette"),
     ("ru", "строка 2 — не JSON: незакрытая строка")],
)  # fmt: skip
def test_verify_says_why_a_line_is_not_json_in_the_users_language(locale, said, tmp_path, capsys):
    log = tmp_path / "log.jsonl"
    log.write_text('{"seq": 1}\n{"seq": "2\n', encoding="utf-8")
    assert main(["verify", str(log), "--locale", locale]) == 2
    err = capsys.readouterr().err
    assert said in err and "Unterminated" not in err, err


@pytest.mark.parametrize("text", ["\ufeff", '\ufeff{"dice": 2}'])
def test_a_byte_order_mark_is_named_in_the_users_language(text, capsys):
    """A text that starts with a byte order mark (a lone one too) was refused in
    Python's English with advice to the programmer ("decode using utf-8-sig")."""
    reason = json_reason(decode_error(text))
    assert isinstance(reason, Text)
    assert render(reason, locale="en") == "Unexpected UTF-8 BOM"
    for locale in ("cs", "de", "ru"):
        assert main(["resolve", "sr2", "success_test", "--params", text, "--locale", locale]) == 1
        err = capsys.readouterr().err
        assert "BOM" in err and "Unexpected" not in err and "utf-8-sig" not in err, err


@pytest.mark.parametrize(
    ("locale", "said"),
    [("cs", "řádek 1 není JSON: číslo má víc než 4300 číslic"),
     ("de", "eine Zahl hat mehr als 4300 Ziffern"),
     ("ru", "строка 1 — не JSON: в числе больше 4300 цифр")],
)  # fmt: skip
def test_verify_names_a_number_too_long_in_the_users_language(locale, said, tmp_path, capsys):
    """A log line with a number of more digits than Python reads was named in
    Python's English ("Exceeds the limit ... for integer string conversion")."""
    log = tmp_path / "log.jsonl"
    log.write_text('{"seq": ' + "1" * 5000 + "}\n", encoding="utf-8")
    assert main(["verify", str(log), "--locale", locale]) == 2
    err = capsys.readouterr().err
    assert said in err and "Exceeds" not in err, err
