"""Errors in the client's language (issue 14): typical refusals through the offline
service render in cs, de and ru with their placeholders filled, English stays the
reference, and the core catalogue is complete."""

from __future__ import annotations

from pathlib import Path

import pytest

from rollbridge import catalogs
from rollbridge.engine.model import Principal
from rollbridge.exceptions import RollbridgeError
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.memory import MemoryStore

ROOT = Path(__file__).resolve().parent.parent
GM = Principal("gm", "gm", "gm-1")
OBSERVER = Principal("observer", "observer", "observer-1")

UNKNOWN_ACTOR = {
    "type": "resolve",
    "action": "success_test",
    "actor": "nobody",
    "params": {"dice": 2, "tn": 4},
}
SCHEMA = {"type": "resolve", "action": "success_test", "params": {"dice": -1, "tn": 4}}
NOTATION = {"type": "roll", "formula": "3d"}

#: (request, who, code, {locale: the exact message}).
CASES = [
    (
        UNKNOWN_ACTOR,
        GM,
        "unknown_actor",
        {
            "en": "no actor 'nobody' at this table",
            "cs": "u tohoto stolu není postava 'nobody'",
            "de": "an diesem Tisch gibt es keine Figur 'nobody'",
            "ru": "за этим столом нет персонажа 'nobody'",
        },
    ),
    (
        SCHEMA,
        GM,
        "invalid_params",
        {
            "en": "params.dice: must be ≥ 0, got -1",
            "cs": "params.dice: musí být ≥ 0, ne -1",
            "de": "params.dice: muss ≥ 0 sein, nicht -1",
            "ru": "params.dice: должно быть ≥ 0, а не -1",
        },
    ),
    (
        NOTATION,
        GM,
        "invalid_notation",
        {
            "en": "invalid dice formula '3d': expected the number of faces after 'd' (as in 3d6) "
            "(at character 3)",
            "cs": "neplatný vzorec kostek '3d': za 'd' se čeká počet stěn (jako v 3d6) "
            "(na znaku 3)",
            "de": "ungültige Würfelformel '3d': nach 'd' wird die Anzahl der Seiten erwartet "
            "(wie in 3d6) (bei Zeichen 3)",
            "ru": "недопустимая формула костей '3d': после 'd' ожидается число граней (как в 3d6) "
            "(символ 3)",
        },
    ),
    (
        {"type": "roll", "formula": "2d6"},
        OBSERVER,
        "forbidden",
        {
            "en": "'roll' needs the player role; you are observer",
            "cs": "'roll' vyžaduje roli player; vaše role je observer",
            "de": "'roll' braucht die Rolle player; Ihre Rolle ist observer",
            "ru": "'roll' требует роли player; ваша роль — observer",
        },
    ),
]


@pytest.fixture(scope="module")
def service() -> TableService:
    made = TableService(MemoryStore(), PluginHost())
    made.create_table("Locales", "sr2", table_id="locales")
    return made


def refusal(service: TableService, message: dict, who: Principal, locale: str) -> RollbridgeError:
    with pytest.raises(RollbridgeError) as refused:
        service.handle("locales", {**message, "id": f"req-{locale}"}, who, locale=locale)
    return refused.value


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
@pytest.mark.parametrize(("message", "who", "code", "expected"), CASES)
def test_a_refusal_reads_in_the_askers_language(service, message, who, code, expected, locale):
    error = refusal(service, message, who, locale)
    assert error.code == code
    assert error.render(locale) == expected[locale]
    assert error.message == expected["en"]  # English stays the reference
    assert error.to_dict(locale)["message"] == expected[locale]


@pytest.mark.parametrize("locale", ["cs", "de", "ru"])
def test_a_translated_message_keeps_its_field_path_and_values(service, locale):
    message = {**SCHEMA, "params": {"dice": 2, "tn": 4, "bogus": 1}}
    rendered = refusal(service, message, GM, locale).render(locale)
    assert rendered.startswith("params.bogus: ")
    assert "dice, label, pool, tn, wound_modifier" in rendered
    assert "known" not in rendered and "{" not in rendered


@pytest.mark.parametrize(
    ("locale", "expected"),
    [
        ("cs", "vzorec kostek '1000d6': 1000 kostek v jednom členu; povoleno je nejvýš 999"),
        ("de", "Würfelformel '1000d6': 1000 Würfel in einem Term; erlaubt sind höchstens 999"),
        ("ru", "формула костей '1000d6': 1000 костей в одном члене; допускается не более 999"),
    ],
)
def test_a_dice_limit_names_its_numbers(service, locale, expected):
    error = refusal(service, {"type": "roll", "formula": "1000d6"}, GM, locale)
    assert error.code == "dice_limit"
    assert error.render(locale).startswith(expected)


def test_plural_messages_choose_the_form_of_the_locale():
    from rollbridge.cli.render import SUCCESSES

    forms = {n: SUCCESSES(count=n) for n in (1, 2, 5, 21)}
    assert [forms[n].render("cs") for n in (1, 2, 5)] == ["1 úspěch", "2 úspěchy", "5 úspěchů"]
    assert [forms[n].render("ru") for n in (1, 2, 5, 21)] == [
        "1 успех", "2 успеха", "5 успехов", "21 успех"
    ]  # fmt: skip
    assert [forms[n].render("de") for n in (1, 2)] == ["1 Erfolg", "2 Erfolge"]
    assert [forms[n].render("en") for n in (1, 2)] == ["1 success", "2 successes"]


def test_the_core_catalogue_is_complete(monkeypatch):
    monkeypatch.chdir(ROOT)
    assert catalogs.check([Path("core"), Path("adapters")], "rollbridge", ["cs", "de", "ru"]) == []
