"""``rollbridge connect``'s ``actions`` says what a player must type (review plugins-22):
it listed each action's parameter names only (``attack: …  [weapon, code, …]``), so a
player learned neither a parameter's type, nor the values an ``enum`` allows, nor its
range, default or whether it is required. Each parameter now reads so, in the
terminal's language, with the ruleset's words for it (sr2's labels and choices: SR-6
to SR-11's attack). A real ``rollbridge connect`` against the tests' server."""

from __future__ import annotations

from dataclasses import replace

import pytest

from rollbridge.cli.action_words import action_lines
from tests.cli.test_cli_reconnect import Terminal
from tests.server.conftest import make_tables  # noqa: F401  (a fixture)

#: The attack's heading, its damage_type and its rounds, in each language.
LINES = {
    "en": (
        "  attack — Attack: SR-6 to SR-11: attack test, resistance test, staging and "
        "damage.  [actor=ID required; 1 target]",
        "      damage_type (Damage type): text; one of physical (Physical), stun (Stun); optional",
        "      rounds (Rounds fired): whole number; from 1 to 100; default 1; optional",
    ),
    "de": (
        "  attack — Angriff: SR-6 bis SR-11: Angriffsprobe, Widerstandsprobe, "
        "Schadensstufen und Schaden.  [actor=ID erforderlich; 1 Ziel]",
        "      damage_type (Schadensart): Text; eines von physical (Körperlich), stun "
        "(Geistig); optional",
        "      rounds (Anzahl Schüsse): ganze Zahl; von 1 bis 100; Vorgabe 1; optional",
    ),
    "cs": (
        "  attack — Útok: SR-6 až SR-11: hod na útok, hod na odolání, posun úrovně a "
        "poškození.  [actor=ID povinný; 1 cíl]",
        "      damage_type (Typ poškození): text; jedno z: physical (Zranění), stun "
        "(Omráčení); nepovinný",
        "      rounds (Počet nábojů): celé číslo; od 1 do 100; výchozí 1; nepovinný",
    ),
    "ru": (
        "  attack — Атака: SR-6 — SR-11: проверка атаки, проверка сопротивления, смещение "
        "уровня и урон.  [actor=ID обязателен; 1 цель]",
        "      damage_type (Тип урона): текст; одно из: physical (Физический урон), stun "
        "(Оглушение); необязательный",
        "      rounds (Число патронов): целое число; от 1 до 100; по умолчанию 1; необязательный",
    ),
}


async def actions_printed(terminal: Terminal) -> list[str]:
    """The lines ``terminal`` printed for ``actions`` (and the first of ``help``'s after
    them), raw; the terminal stopped then."""
    try:
        await terminal.until("help")
        first = len(terminal.lines)
        await terminal.type("actions")
        await terminal.type("help")  # its first line ends what actions printed
        await terminal.until("2d6+3 | roll FORMULA")
    finally:
        await terminal.stop()
    return terminal.lines[first:]


@pytest.mark.parametrize("locale", sorted(LINES))
async def test_actions_says_each_parameters_type_values_range_and_default(
    make_tables,  # noqa: F811
    locale,
):
    world = await make_tables()
    player = await Terminal.start(
        f"{world.server.url}tables/sr2", world.tokens["sr2"]["player"], "--locale", locale
    )
    printed = [line.rstrip("\n") for line in await actions_printed(player)]
    heading, damage_type, rounds = LINES[locale]
    at = printed.index(heading)  # the attack's lines follow its heading
    attack = printed[at : at + 30]
    assert damage_type in attack and rounds in attack, "\n".join(printed)
    assert not any(line.endswith("rounds, recoil_compensation]") for line in printed)


def test_required_parameters_ranges_and_targets_read_as_the_schema_says():
    """A parameter the schema requires says so; an open range, a length, a list of
    targets and a parameterless GM action read as their schema and spec say."""
    actions = {
        "heal": {
            "label": "Heal", "summary": "Mend wounds.", "actor": "none",
            "min_targets": 1, "max_targets": None, "gm_only": True,
            "params": {"type": "object", "required": ["amount"], "properties": {
                "amount": {"type": "integer", "minimum": 1},
                "note": {"type": ["string", "null"], "maxLength": 1, "default": None},
            }},
            "labels": {}, "hints": {"amount": "Hit points back."}, "choices": {},
        },
        "rest": {"summary": "", "actor": "optional", "max_targets": 0, "params": {}},
    }  # fmt: skip
    assert action_lines(actions, "en") == [
        "  heal — Heal: Mend wounds.  [1 target or more; GM only]",
        "      amount: whole number; at least 1; required",
        "          Hit points back.",
        "      note: text / null; at most 1 character; default null; optional",
        "  rest  [actor=ID optional]",
        "      no parameters",
    ]


#: A third-party ruleset's words that would forge lines and command the terminal: a
#: label with a line break that reads as another action, a hint retitling the window,
#: an enum value clearing the screen.
FORGED = "  heal — Heal: Mend wounds.  [1 target; GM only]"


async def test_a_rulesets_hostile_words_reach_the_terminal_inert(make_tables, tally, monkeypatch):  # noqa: F811
    """Review rev-22p: ``_print`` escapes control characters but for line breaks, and
    the actions' words reached it as the server sent them: a label holding a newline
    printed a line of its own, one that read as another action (a third-party
    ruleset's words, or its translations, are the server's data). Every line is made
    visible whole now, escape sequences shown as ``\\x1b``."""
    hit = tally.actions["hit"]
    hostile = replace(
        hit,
        label=f"Hit\n{FORGED}",
        params={"type": "object", "properties": {
            "bonus": {"type": "integer", "minimum": 0, "default": 0},
            "mode": {"type": "string", "enum": ["plain", "\x1b[2Jwiped"]},
        }},
        hints={"bonus": "\x1b]0;owned\x07added\r\nto the roll"},
    )  # fmt: skip
    monkeypatch.setattr(tally, "actions", {**tally.actions, "hit": hostile})
    world = await make_tables()
    player = await Terminal.player(world)
    printed = "".join(await actions_printed(player))
    assert "\x1b" not in printed and "\x07" not in printed and "\r" not in printed, printed
    lines = printed.splitlines()
    assert not any(line.startswith(FORGED) for line in lines), lines
    assert f"  hit — Hit\\n{FORGED}: Roll 1d6 + bonus damage against one target.  " in printed
    assert "one of plain, \\x1b[2Jwiped" in printed, printed
    assert "          \\x1b]0;owned\\x07added\\r\\nto the roll" in lines, lines


def test_lists_objects_lengths_and_choices_the_rules_do_not_bind_read_as_the_schema_says():
    """Review rev-22p: a list parameter read "list (JSON)" alone (bandits' modifiers:
    not what an item is, nor how many), an object's keys were not named, a shortest
    length was left out, and a ``choicesFrom`` read "one the actor's sheet offers"
    where its ``only`` is not true — the rules take another value there too
    (docs/plugins.md, "Choices from the sheet")."""
    actions = {
        "shoot": {
            "summary": "", "actor": "required", "max_targets": 0,
            "params": {"type": "object", "properties": {
                "gun": {"type": "string", "minLength": 2, "maxLength": 9,
                        "choicesFrom": {"sheet": "guns"}},
                "knife": {"type": "string", "choicesFrom": {"state": "knives", "only": True}},
                "mods": {"type": "array", "minItems": 1, "maxItems": 3, "items": {
                    "type": ["integer", "object"], "minimum": -2, "maximum": 2,
                    "properties": {"label": {"type": "string"}, "value": {"type": "integer"}},
                    "required": ["value"],
                }},
                "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
            }},
        },
    }  # fmt: skip
    assert action_lines(actions, "en") == [
        "  shoot  [actor=ID required]",
        "      gun: text; one the actor's sheet offers (guns), or another value; "
        "at least 2 characters; at most 9 characters; optional",
        "      knife: text; one the actor's state offers (knives); optional",
        "      mods: list (JSON); each item: whole number / object (JSON), from -2 to 2, "
        "keys label, value (required); at least 1 item; at most 3 items; optional",
        "      tags: list (JSON); each item: text, one of a, b; optional",
    ]
    assert action_lines(actions, "ru")[3] == (
        "      mods: список (JSON); каждый элемент: целое число / объект (JSON), от -2 до 2, "
        "ключи label, value (обязательный); не меньше 1 элемента; не больше 3 элементов; "
        "необязательный"
    )


@pytest.mark.parametrize(
    ("locale", "line"),
    [
        ("en", "      modifiers (Modifiers): list (JSON); each item: whole number / object "
               "(JSON), from -20 to 20, keys label, value (required); at most 20 items; "
               "default []; optional"),
        ("cs", "      modifiers (Modifikátory): seznam (JSON); každá položka: celé číslo / "
               "objekt (JSON), od -20 do 20, klíče label, value (povinný); nejvýše 20 položek; "
               "výchozí []; nepovinný"),
        ("de", "      modifiers (Modifikatoren): Liste (JSON); jeder Eintrag: ganze Zahl / "
               "Objekt (JSON), von -20 bis 20, Schlüssel label, value (erforderlich); "
               "höchstens 20 Einträge; Vorgabe []; optional"),
    ],
)  # fmt: skip
def test_bandits_modifiers_say_what_each_item_is(locale, line):
    """bandits' ``move`` takes modifiers as numbers or ``{label, value}`` (BD-1): what a
    player types there, in each language, from the welcome's words for it."""
    from rollbridge.host import PluginHost

    host = PluginHost({}, environ={})
    actions = host.rulesets["bandits"].describe(locale)["actions"]
    assert line in action_lines(actions, locale)


def test_keys_and_parameters_a_schema_leaves_open_read_as_it_takes_them():
    """Review rev-22p: an object whose keys one chooses (bandits' ``kept_wounds``: each
    bandit's id, a slot 1–3, BD-11) read "object (JSON)" alone, and an action whose
    ``params`` take parameters under any name (``additionalProperties``) read "no
    parameters" — the opposite of what it takes."""
    actions = {
        "free": {"params": {"type": "object", "additionalProperties": True}},
        "mixed": {"params": {"type": "object", "properties": {
            "tags": {"type": "object", "properties": {"main": {"type": "string"}},
                     "additionalProperties": {"type": "string", "maxLength": 4}},
        }, "additionalProperties": {"type": "integer", "minimum": 0}}},
    }  # fmt: skip
    assert action_lines(actions, "en") == [
        "  free",
        "      other parameters: any value",
        "  mixed",
        "      tags: object (JSON); keys main; other keys, each: text, at most 4 characters; "
        "optional",
        "      other parameters: whole number, at least 0",
    ]
    from rollbridge.host import PluginHost

    bandits = PluginHost({}, environ={}).rulesets["bandits"]
    said = action_lines(bandits.describe("de")["actions"], "de")
    assert (
        "      kept_wounds (Behaltene Wunden): Objekt (JSON); beliebige Schlüssel, jeweils: "
        "ganze Zahl, von 1 bis 3; Vorgabe {}; optional"
    ) in said, said


#: A long enum's first values and the count of the rest, and a text's pattern, in
#: each language (the values and the regular expression as typed).
LONG_AND_PATTERNED = {
    "en": ("one of s0, s1, s2, s3, s4, s5, s6, s7, and 32 more values",
           "matching the regular expression ^[A-Z]{2}-[0-9]{3}$"),
    "de": ("eines von s0, s1, s2, s3, s4, s5, s6, s7, und 32 weitere Werte",
           "passend zum regulären Ausdruck ^[A-Z]{2}-[0-9]{3}$"),
    "cs": ("jedno z: s0, s1, s2, s3, s4, s5, s6, s7, a 32 dalších hodnot",
           "odpovídající regulárnímu výrazu ^[A-Z]{2}-[0-9]{3}$"),
    "ru": ("одно из: s0, s1, s2, s3, s4, s5, s6, s7, и ещё 32 значения",
           "соответствует регулярному выражению ^[A-Z]{2}-[0-9]{3}$"),
}  # fmt: skip


@pytest.mark.parametrize("locale", sorted(LONG_AND_PATTERNED))
async def test_a_long_enum_is_cut_short_and_a_pattern_is_shown(
    make_tables,  # noqa: F811
    tally,
    monkeypatch,
    locale,
):
    """Review plugins-22's closing note: a text parameter's ``pattern`` was not shown
    (a player learned what the server took only from its refusal), and an ``enum`` of
    40 values printed whole, one line the width of several screens. The pattern reads
    as the regular expression, labelled; an enum past 8 values as its first 8 and how
    many more, in the terminal's language."""
    hit = tally.actions["hit"]
    wide = replace(
        hit,
        params={"type": "object", "properties": {
            "spell": {"type": "string", "enum": [f"s{index}" for index in range(40)]},
            "code": {"type": "string", "pattern": "^[A-Z]{2}-[0-9]{3}$"},
        }},
    )  # fmt: skip
    monkeypatch.setattr(tally, "actions", {**tally.actions, "hit": wide})
    world = await make_tables()
    player = await Terminal.player(world, "--locale", locale)
    printed = [line.rstrip("\n") for line in await actions_printed(player)]
    spell = next(line for line in printed if line.startswith("      spell: "))
    code = next(line for line in printed if line.startswith("      code: "))
    enum, pattern = LONG_AND_PATTERNED[locale]
    assert enum in spell and "s8" not in spell, spell
    assert pattern in code, code
