"""The CLI in the chosen language (issue 14): ``--locale``, ``LANG``/``LC_ALL``/
``LANGUAGE``, translated CLI words, ruleset narration and errors."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from rollbridge.cli import main

ROOT = Path(__file__).resolve().parents[2]
SR2_CS = ROOT / "plugins" / "sr2" / "locale" / "cs" / "LC_MESSAGES" / "sr2.mo"
TEST = ["sr2", "success_test", "--params", '{"dice": 3, "tn": 4}', "--dice", "6,2,4,1"]
#: Words of the CLI itself in a success test's lines (head, dice line), per locale.
WORDS = {
    "en": ["#4 resolution by gm", "3d6!! vs 4", "→ 2 successes"],
    "cs": ["#4 vyhodnocení od gm", "3d6!! proti 4", "→ 2 úspěchy"],
    "de": ["#4 Auswertung von gm", "3d6!! gegen 4", "→ 2 Erfolge"],
    "ru": ["#4 результат действия от gm", "3d6!! против 4", "→ 2 успеха"],
}
LOCALE_VARIABLES = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")


@pytest.fixture
def environment(monkeypatch):
    """No locale variable set; the test sets the ones it needs."""
    for variable in LOCALE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    return monkeypatch


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
def test_resolve_prints_the_cli_words_in_the_locale(capsys, environment, locale):
    code, out, err = run(capsys, "resolve", *TEST, "--locale", locale)
    assert code == 0, err
    for words in WORDS[locale]:
        assert words in out


@pytest.mark.parametrize(
    ("locale", "narration"),
    [("cs", "Hod na úspěch"), ("de", "Erfolgsprobe"), ("ru", "Проверка успеха")],
)
def test_resolve_asks_for_the_rulesets_narration_in_the_locale(capsys, environment, locale,
                                                               narration):  # fmt: skip
    if not SR2_CS.is_file():
        pytest.skip("sr2 ships no compiled catalogue yet (plugins/sr2/locale/cs/.../sr2.mo)")
    out = run(capsys, "resolve", *TEST, "--locale", locale)[1]
    english = run(capsys, "resolve", *TEST, "--locale", "en")[1]
    assert narration in out and narration not in english
    assert "Success test" not in out.split("⇒", 1)[1]


def test_json_keeps_its_keys_and_has_its_texts_in_the_locale(capsys, environment):
    if not SR2_CS.is_file():
        pytest.skip("sr2 ships no compiled catalogue yet (plugins/sr2/locale/cs/.../sr2.mo)")
    english = json.loads(run(capsys, "resolve", *TEST, "--json")[1])
    czech = json.loads(run(capsys, "resolve", *TEST, "--json", "--locale", "cs")[1])
    assert czech.keys() == english.keys() and czech["data"].keys() == english["data"].keys()
    assert czech["data"]["narration"] != english["data"]["narration"]
    assert czech["data"]["outcome"]["successes"] == english["data"]["outcome"]["successes"]


def test_without_locale_or_environment_the_cli_speaks_english(capsys, environment):
    assert all(words in run(capsys, "resolve", *TEST)[1] for words in WORDS["en"])


@pytest.mark.parametrize(
    ("variables", "locale"),
    [
        ({"LANG": "de_DE.UTF-8"}, "de"),
        ({"LANG": "de_DE.UTF-8", "LC_ALL": "ru_RU.UTF-8"}, "ru"),  # LC_ALL wins over LANG
        ({"LANG": "de_DE.UTF-8", "LC_MESSAGES": "cs_CZ.UTF-8"}, "cs"),
        ({"LANGUAGE": "pl:cs:de", "LANG": "de_DE.UTF-8"}, "cs"),  # the first known of the list
        ({"LANG": "C"}, "en"),
        ({"LC_ALL": "C.UTF-8", "LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "pl_PL.UTF-8"}, "en"),  # a language rollbridge does not speak
    ],
)
def test_the_environment_chooses_the_language(capsys, environment, variables, locale):
    for variable, value in variables.items():
        environment.setenv(variable, value)
    out = run(capsys, "resolve", *TEST)[1]
    assert WORDS[locale][0] in out


def test_locale_wins_over_the_environment(capsys, environment):
    environment.setenv("LC_ALL", "ru_RU.UTF-8")
    assert WORDS["de"][0] in run(capsys, "resolve", *TEST, "--locale", "de")[1]
    assert WORDS["cs"][0] in run(capsys, "resolve", *TEST, "--locale", "cs_CZ.UTF-8")[1]


def test_an_unknown_locale_fails_cleanly(capsys, environment):
    code, out, err = run(capsys, "resolve", *TEST, "--locale", "xx")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("rollbridge: error: invalid_request: --locale")
    assert "'xx'" in err and all(known in err for known in ("cs", "de", "en", "ru"))


@pytest.mark.parametrize(
    ("locale", "message"),
    [
        ("en", "ruleset 'sr2' has no action 'nope' (actions: "),
        ("cs", "sada pravidel 'sr2' nemá akci 'nope' (akce: "),
        ("de", "das Regelwerk 'sr2' hat keine Aktion 'nope' (Aktionen: "),
        ("ru", "в наборе правил 'sr2' нет действия 'nope' (действия: "),
    ],
)
def test_an_error_prints_in_the_locale(capsys, environment, locale, message):
    code, _out, err = run(capsys, "resolve", "sr2", "nope", "--locale", locale)
    assert code == 1 and err.count("\n") == 1
    assert err.startswith(f"rollbridge: error: unknown_action: {message}")


def test_the_clis_own_errors_print_in_the_environments_language(capsys, environment):
    environment.setenv("LANG", "de_DE.UTF-8")
    code, _out, err = run(capsys, "roll", "1d6", "--dice", "a")
    assert (
        code == 1
        and err == "rollbridge: error: invalid_request: --dice: 'a' ist keine ganze Zahl\n"
    )
    code, _out, err = run(capsys, "resolve", *TEST[:2], "--params", "{bad")
    assert code == 1 and "--params: kein gültiges JSON (" in err


def test_roll_plugins_and_rulesets_take_the_locale(capsys, environment):
    out = run(capsys, "roll", "3d6cs>=4", "--dice", "6,5,1", "--locale", "ru")[1]
    assert "3d6cs>=4 против 4: [6*, 5*, 1] → 2 успеха" in out
    assert "sr2 0.1.0 (builtin): Regelwerk sr2" in run(capsys, "plugins", "--locale", "de")[1]
    out = run(capsys, "rulesets", "sr2", "--locale", "cs")[1]
    assert "  heal (jen PJ): " in out and "      příklad: --params '" in out


def test_a_pending_request_says_so_in_the_locale(capsys, environment):
    code, out, _ = run(
        capsys, "resolve", *TEST[:4], "--as", "player", "--settings", '{"approval": true}',
        "--locale", "de",
    )  # fmt: skip
    assert code == 0
    assert out == "pending: wartet auf die Freigabe des Spielleiters (Tischeinstellung approval)\n"


# -- connect and the terminal client ---------------------------------------------------


def test_connects_own_errors_print_in_the_locale(capsys, environment):
    environment.delenv("ROLLBRIDGE_TOKEN", raising=False)
    code, _out, err = run(capsys, "connect", "ws://127.0.0.1:1/tables/t", "--locale", "cs")
    assert code == 1
    assert err == (
        "rollbridge: error: invalid_request: zadejte přístupový token stolu pomocí --token "
        "nebo ROLLBRIDGE_TOKEN\n"
    )
    code, _out, err = run(capsys, "connect", "ftp://x/tables/t", "--token", "t", "--locale", "ru")
    assert "URL должен начинаться с ws:// или wss:// (или с http:// или https:// " in err
    assert "а не с 'ftp://'" in err


def test_the_terminal_client_speaks_the_locale():
    from rollbridge.cli import terminal
    from rollbridge.exceptions import InvalidRequest

    assert terminal.HELP().render("de").startswith("Befehle:\n  2d6+3 | roll FORMULA ")
    assert terminal.HELP().render("en") == terminal.HELP().render().replace("{{", "{")
    assert terminal._closed_text(1008, "Token widerrufen", "de") == (
        "Verbindung geschlossen (1008: Token widerrufen)"
    )
    assert terminal._closed_text(None, None, "ru") == "соединение закрыто (без кода)"
    with pytest.raises(InvalidRequest) as refused:
        terminal.parse_command("frobnicate", "r1")
    assert refused.value.render("cs") == "neznámý příkaz 'frobnicate'; napište help"
    assert refused.value.message == "unknown command 'frobnicate'; type help"


class _FakeConnection:
    """Just enough of a websockets client connection for one session."""

    close_code = 1000
    close_reason = ""

    def __init__(self, welcome: dict) -> None:
        self.sent: list[dict] = []
        self._welcome = welcome

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        return False

    async def send(self, frame):
        self.sent.append(json.loads(frame))

    async def recv(self):
        return json.dumps(self._welcome)

    def __aiter__(self):
        return self

    async def __anext__(self):
        await asyncio.sleep(0.05)
        raise StopAsyncIteration


def test_connect_sends_its_locale_in_the_hello_and_prints_in_it(capsys, environment,
                                                                 monkeypatch):  # fmt: skip
    from rollbridge.cli import terminal

    welcome = {
        "type": "welcome",
        "role": "gm",
        "name": "GM",
        "seq": 3,
        "ruleset": {"actions": {}},
        "table": {"id": "t", "name": "Stůl", "ruleset": "sr2", "actors": []},
    }
    fake = _FakeConnection(welcome)

    async def connect(url, **options):
        return fake

    monkeypatch.setattr(terminal, "connect", connect)
    monkeypatch.setattr("sys.stdin", iter(["quit\n"]))
    code = main(["connect", "ws://127.0.0.1:1/tables/t", "--token", "secret", "--locale", "cs"])
    out = capsys.readouterr().out
    assert code == 0
    hello = fake.sent[0]
    assert hello["type"] == "hello" and hello["locale"] == "cs"
    assert "připojeno ke stolu Stůl [t] jako gm (GM); pravidla sr2; událost 3" in out
    assert "příkazy vypíše help" in out
