"""The bandits ruleset in Czech, German and Russian (issue 14).

Real resolutions through the engine, with scripted dice, read in each language as a
player of that language writes them (the source's own terms in Russian: раны, Стойко,
Броня, Пробой, статист, неприятность); the counted nouns take the form the locale's
plural rule asks for; what players may not see stays hidden in every language; the
refusals read in every language; the catalogues are complete.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from babel.messages import pofile

from rollbridge.catalogs import check
from rollbridge.exceptions import RuleViolation
from rollbridge.plugins.bandits import BanditsRuleset
from rollbridge.plugins.bandits.messages import (
    EXTRA_OUT,
    NO_FREE_SLOT,
    OVER_FOUR,
    REDUCTION_STEP,
    WOUNDS,
)
from rollbridge.testing import RulesetHarness
from rollbridge.text import untranslated

LOCALES = ("cs", "de", "ru")
PLUGIN = Path(__file__).resolve().parents[3] / "plugins" / "bandits"

ANA = {"stats": {"cool": 2, "steady": 1}, "armour": 1, "pierce": 2, "two_light_weapons": True}
GUARD = {"kind": "extra", "armour": 3, "pierce": 4, "stats": {"hard": 3}}
BOSS = {"kind": "bandit", "armour": 3, "pierce": 4, "stats": {"steady": 2, "hard": 3}}


def table(**settings: Any) -> RulesetHarness:
    """Ana (the players' bandit), Guard (an extra) and Boss (an NPC bandit)."""
    harness = RulesetHarness(BanditsRuleset(), settings={"ruleset": settings})
    harness.add_actor("Ana", ANA, actor_id="ana", player=True)
    harness.add_actor("Guard", GUARD, actor_id="guard")
    harness.add_actor("Boss", BOSS, actor_id="boss")
    return harness


def read(harness: RulesetHarness, locale: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The latest event's data as the GM and as players read it in ``locale``."""
    gm, player = harness.views(locale=locale)
    return gm["data"], player["data"]


# -- real resolutions -------------------------------------------------------------------

#: BD-3 dealing harm: Ana (Pierce 2, +1 Pierce for two light weapons, BD-4) hits Guard
#: (Armour 3, an extra) with 3 + 4: 7 − 3 + 2 + 1 = 7 → 7–9 on the table (BD-5): 2
#: wounds in one hit take an extra out (BD-9). Players do not see Guard's Armour nor the
#: total: they read the table's row.
HARM_DEALT = {
    "cs": {
        "gm": "Ana → Guard: způsobení zranění (hází Ana): 7 → 2 rány; Guard: mimo boj",
        "player": "Ana → Guard: způsobení zranění (hází Ana): 7–9 → 2 rány; Guard: mimo boj",
        "first": "způsobení zranění (BD-3), hází Ana: 7 (2k6 [3, 4]) − ? (Guard: Zbroj) "
        "+ 2 (Ana: Průraz) + 1 (Ana: dvě lehké zbraně, +1 Průraz (BD-4)) → 7–9 v tabulce",
        "table": "tabulka zranění (BD-5): 7–9: 2 rány (statista: zabit, nebo vyřazen)",
        "hit": "2 rány jedním zásahem: mimo boj (BD-9)",
        "dice": "Ana: způsobené zranění",
        "labels": ["2d6", "Guard: Zbroj", "Ana: Průraz", "Ana: dvě lehké zbraně, +1 Průraz (BD-4)"],
    },
    "de": {
        "gm": "Ana verletzt Guard (ausgeteilt, es würfelt Ana): 7 → 2 Wunden; Guard: außer Gefecht",
        "player": "Ana verletzt Guard (ausgeteilt, es würfelt Ana): 7–9 → 2 Wunden; "
        "Guard: außer Gefecht",
        "first": "Schaden austeilen (BD-3), es würfelt Ana: 7 (2W6 [3, 4]) − ? (Guard: "
        "Panzerung) + 2 (Ana: Durchschlag) + 1 (Ana: zwei leichte Waffen, +1 Durchschlag "
        "(BD-4)) → 7–9 in der Tabelle",
        "table": "Schadenstabelle (BD-5): 7–9: 2 Wunden (ein Statist: getötet oder ausgeschaltet)",
        "hit": "2 Wunden mit einem Treffer: außer Gefecht (BD-9)",
        "dice": "Ana: ausgeteilter Schaden",
        "labels": [
            "2d6",
            "Guard: Panzerung",
            "Ana: Durchschlag",
            "Ana: zwei leichte Waffen, +1 Durchschlag (BD-4)",
        ],
    },
    "ru": {
        "gm": "Ana → Guard: нанесение урона (бросает Ana): 7 → 2 раны; Guard: вне боя",
        "player": "Ana → Guard: нанесение урона (бросает Ana): 7–9 → 2 раны; Guard: вне боя",
        "first": "нанесение урона (BD-3), бросает Ana: 7 (2к6 [3, 4]) − ? (Guard: Броня) "
        "+ 2 (Ana: Пробой) + 1 (Ana: парное легкое оружие, +1 к Пробою (BD-4)) → 7–9 по "
        "таблице",
        "table": "таблица урона (BD-5): 7–9: 2 раны (статист убит или вырублен иным способом)",
        "hit": "2 раны за одну атаку: вне боя (BD-9)",
        "dice": "Ana: нанесенный урон",
        "labels": [
            "2d6",
            "Guard: Броня",
            "Ana: Пробой",
            "Ana: парное легкое оружие, +1 к Пробою (BD-4)",
        ],
    },
}


@pytest.mark.parametrize("locale", LOCALES)
def test_BD3_BD5_BD9_harm_dealt_to_an_extra_reads_in_each_language(locale):
    harness = table()
    params = {"direction": "dealt", "attacker_dual_wield": "pierce"}
    harness.resolve("harm", actor="ana", targets=["guard"], params=params, dice=[3, 4])
    gm, player = read(harness, locale)
    said = HARM_DEALT[locale]
    assert gm["narration"] == said["gm"]
    assert player["narration"] == said["player"]
    assert player["steps"] == [said["first"], said["table"], said["hit"]]
    assert player["dice"][0]["label"] == said["dice"]
    # The outcome's labels and reason are texts; the table's row is data, in English.
    assert [term["label"] for term in player["outcome"]["terms"]] == said["labels"]
    assert player["outcome"]["reason"] == said["hit"]
    assert player["outcome"]["table_text"] == "7–9: 2 wounds (an extra: killed or knocked out)"


#: BD-3 taking harm: Boss (Pierce 4) hits Ana, who rolls 5 + 4: 9 − 1 (Steady) − 1
#: (Armour) + 4 = 11 → 10–12, 3 wounds (BD-5) → slot 3, heavily wounded (BD-6), which
#: gives disadvantage on moves (BD-7): the common state says so.
HARM_TAKEN = {
    "cs": (
        "Boss → Ana: utržení zranění (hází Ana): 11 → 3 rány; Ana: těžké zranění (políčko 3)",
        "utržení zranění (BD-3), hází Ana: 9 (2k6 [5, 4]) − 1 (Ana: Odolně) − 1 (Ana: Zbroj) "
        "+ 4 (Boss: Průraz) = 11 (u zranění se na ±4 neomezuje)",
        "3 rány: políčko 3 (těžké zranění) bylo volné a označuje se (BD-6)",
        ["Těžké zranění", "Nevýhoda na tahy"],
        "nevýhoda na hody tahů (těžké zranění)",
        "Políčka zranění",
    ),
    "de": (
        "Boss verletzt Ana (eingesteckt, es würfelt Ana): 11 → 3 Wunden; "
        "Ana: schwer verwundet (Kästchen 3)",
        "Schaden einstecken (BD-3), es würfelt Ana: 9 (2W6 [5, 4]) − 1 (Ana: Standhaft) "
        "− 1 (Ana: Panzerung) + 4 (Boss: Durchschlag) = 11 (beim Schaden keine Begrenzung "
        "auf ±4)",
        "3 Wunden: Kästchen 3 (schwer verwundet) war frei und wird angekreuzt (BD-6)",
        ["Schwer verwundet", "Nachteil bei Spielzügen"],
        "Nachteil bei Spielzugwürfen (schwer verwundet)",
        "Wundkästchen",
    ),
    "ru": (
        "Boss → Ana: получение урона (бросает Ana): 11 → 3 раны; Ana: тяжелое ранение (статус 3)",
        "получение урона (BD-3), бросает Ana: 9 (2к6 [5, 4]) − 1 (Ana: Стойко) − 1 (Ana: "
        "Броня) + 4 (Boss: Пробой) = 11 (для урона без ограничения ±4)",
        "3 раны: статус 3 (тяжелое ранение) был свободен и отмечается (BD-6)",
        ["Тяжелое ранение", "Помеха на ходы"],
        "помеха на броски ходов (тяжелое ранение)",
        "Статусы ранений",
    ),
}


@pytest.mark.parametrize("locale", LOCALES)
def test_BD3_BD6_BD7_harm_taken_and_the_common_state_read_in_each_language(locale):
    harness = table(show_npc_details=True)  # players see Boss's Pierce and the total
    harness.resolve("harm", actor="boss", targets=["ana"], params={"direction": "taken"},
                    dice=[5, 4])  # fmt: skip
    narration, first, hit, conditions, note, track = HARM_TAKEN[locale]
    for data in read(harness, locale):
        assert data["narration"] == narration
        assert data["steps"][0] == first
        assert data["steps"][-1] == hit
    common = harness.actor("ana", gm=False, locale=locale)["common"]
    assert common["conditions"] == conditions
    assert common["modifier_note"] == note
    assert common["tracks"][0]["label"] == track


#: BD-1: Ana rolls with cool (+2) and a situational +1: 5 + 4 + 3 = 12, a full success
#: with the extra result of 12+.
MOVE = {
    "cs": (
        "Ana hraje tah, hod +cool: 12, úplný úspěch (10+), 12+: výsledek navíc",
        [
            "modifikátor: vlastnost cool +2, modifikátor 1 +1 = +3 (v mezích ±4, BD-1)",
            "2k6 [5, 4] → 9",
            "celkem 9 +3 = 12: úplný úspěch (10+), 12+: výsledek navíc (BD-1)",
        ],
        "úplný úspěch (10+)",
    ),
    "de": (
        "Ana würfelt für einen Spielzug mit cool: 12, voller Erfolg (10+), 12+: das Zusatzergebnis",
        [
            "Modifikator: Attribut cool +2, Modifikator 1 +1 = +3 (innerhalb von ±4, BD-1)",
            "2W6 [5, 4] → 9",
            "Summe 9 +3 = 12: voller Erfolg (10+), 12+: das Zusatzergebnis (BD-1)",
        ],
        "voller Erfolg (10+)",
    ),
    "ru": (
        "Ana делает ход, бросок +cool: 12, полный успех (10+), 12+: дополнительный результат",
        [
            "модификатор: характеристика cool +2, модификатор 1 +1 = +3 (в пределах ±4, BD-1)",
            "2к6 [5, 4] → 9",
            "итого 9 +3 = 12: полный успех (10+), 12+: дополнительный результат (BD-1)",
        ],
        "полный успех (10+)",
    ),
}


@pytest.mark.parametrize("locale", LOCALES)
def test_BD1_a_move_reads_in_each_language(locale):
    harness = table()
    harness.resolve("move", actor="ana", params={"stat": "cool", "modifiers": [1]}, dice=[5, 4])
    narration, steps, note = MOVE[locale]
    for data in read(harness, locale):
        assert data["narration"] == narration
        assert data["steps"] == steps
        assert data["dice"][0]["note"] == note


#: BD-2, BD-7: heavily wounded Ana rolls with disadvantage: 6, 6, 1 → the highest
#: dropped → 7, a partial success.
DISADVANTAGE = {
    "cs": ("nevýhoda, těžké zranění (BD-7) (BD-2): 3k6 [6, 6, 1], nejvyšší (6) se nepočítá → 7",
           "Ana hraje tah: 7, částečný úspěch (7–9)"),
    "de": ("Nachteil, schwer verwundet (BD-7) (BD-2): 3W6 [6, 6, 1], der höchste (6) fällt "
           "weg → 7", "Ana würfelt für einen Spielzug: 7, Teilerfolg (7–9)"),
    "ru": ("помеха, тяжелое ранение (BD-7) (BD-2): 3к6 [6, 6, 1], наибольший (6) отброшен → 7",
           "Ana делает ход: 7, ограниченный успех (7–9)"),
}  # fmt: skip


HEAVY = {
    "cs": "těžké zranění (BD-7)",
    "de": "schwer verwundet (BD-7)",
    "ru": "тяжелое ранение (BD-7)",
}


@pytest.mark.parametrize("locale", LOCALES)
def test_BD2_BD7_a_heavily_wounded_move_reads_in_each_language(locale):
    harness = RulesetHarness(BanditsRuleset())
    heavy = {"kind": "bandit", "slots": {"heavily": True}}
    harness.add_actor("Ana", {"kind": "bandit"}, actor_id="ana", player=True, state=heavy)
    harness.resolve("move", actor="ana", params={}, dice=[6, 6, 1])
    step, narration = DISADVANTAGE[locale]
    gm, player = read(harness, locale)
    assert player["steps"][1] == step
    assert player["outcome"]["disadvantage_from"] == [HEAVY[locale]]
    assert player["narration"] == gm["narration"] == narration


def test_every_message_of_those_resolutions_was_translated():
    before = untranslated()
    for locale in LOCALES:
        test_BD3_BD5_BD9_harm_dealt_to_an_extra_reads_in_each_language(locale)
        test_BD1_a_move_reads_in_each_language(locale)
    assert untranslated() - before == frozenset()


# -- counted nouns ----------------------------------------------------------------------

COUNTS = (0, 1, 2, 4, 5, 11, 21, 22, 25)
#: The word for "wound" after each of COUNTS (cs: 1 / 2–4 / other; ru: by the last
#: digits: 1, 21 / 2–4, 22 / 0, 5–20, 25).
WOUND_WORD = {
    "cs": ("ran", "rána", "rány", "rány", "ran", "ran", "ran", "ran", "ran"),
    "ru": ("ран", "рана", "раны", "раны", "ран", "ран", "рана", "раны", "ран"),
    "de": ("Wunden", "Wunde", "Wunden", "Wunden", "Wunden", "Wunden", "Wunden", "Wunden",
           "Wunden"),
}  # fmt: skip


@pytest.mark.parametrize("locale", sorted(WOUND_WORD))
def test_BD5_wounds_take_the_plural_form_of_the_locale(locale):
    said = [WOUNDS(count=n).render(locale) for n in COUNTS]
    assert said == [f"{n} {word}" for n, word in zip(COUNTS, WOUND_WORD[locale], strict=True)]


def test_BD5_the_plural_forms_word_for_word():
    cs = {n: WOUNDS(count=n).render("cs") for n in COUNTS}
    assert (cs[1], cs[2], cs[4], cs[5], cs[21]) == ("1 rána", "2 rány", "4 rány", "5 ran", "21 ran")
    ru = {n: WOUNDS(count=n).render("ru") for n in COUNTS}
    assert (ru[1], ru[2], ru[5], ru[11], ru[21], ru[22], ru[25]) == (
        "1 рана", "2 раны", "5 ран", "11 ран", "21 рана", "22 раны", "25 ран"
    )  # fmt: skip
    assert WOUNDS(count=1).render() == "1 wound" and WOUNDS(count=21).render() == "21 wounds"


@pytest.mark.parametrize("locale", ["cs", "ru"])
@pytest.mark.parametrize("index", range(len(COUNTS)))
def test_BD6_BD9_sentences_with_a_number_of_wounds_agree_with_it(locale, index):
    n, word = COUNTS[index], WOUND_WORD[locale][index]
    assert OVER_FOUR(wounds=n).render(locale).startswith(f"{n} {word}: ")  # BD-6
    assert EXTRA_OUT(wounds=n).render(locale).startswith(f"{n} {word} ")  # BD-9
    assert NO_FREE_SLOT(count=n, taken=[3, 4]).render(locale).startswith(f"{n} {word}, ")
    reduced = REDUCTION_STEP(reduction=1, wounds=n + 1, left=n).render(locale)
    assert reduced.endswith(f"{n + 1} → {n} {word}")


def test_the_english_of_the_counted_sentences():
    assert OVER_FOUR(wounds=5).render() == "5 wounds: more than 4 is death (BD-6)"
    assert EXTRA_OUT(wounds=2).render() == "2 wounds in one hit: out (BD-9)"
    assert REDUCTION_STEP(reduction=1, wounds=2, left=1).render() == "GM reduction −1: 2 → 1 wound"


# -- redaction in every language ----------------------------------------------------------

RULE = re.compile(r"BD-\d+")


def numbers(data: Any) -> set[int]:
    """Every number of a view's data: JSON numbers and those written in its texts
    (rule numbers aside)."""
    text = RULE.sub("", json.dumps(data, ensure_ascii=False))
    return {int(n) for n in re.findall(r"\d+", text)}


SECRET_GUARD = {"kind": "extra", "armour": 5, "pierce": 1}
SECRET_BOSS = {"kind": "bandit", "armour": 1, "pierce": 8, "stats": {"steady": 0}}


def secret_table(reveal: bool) -> RulesetHarness:
    harness = RulesetHarness(BanditsRuleset(), settings={"ruleset": {"show_npc_details": reveal}})
    harness.add_actor("Ana", {"armour": 1, "pierce": 2, "stats": {"steady": 1}}, actor_id="ana",
                      player=True)  # fmt: skip
    harness.add_actor("Guard", SECRET_GUARD, actor_id="guard")
    harness.add_actor("Boss", SECRET_BOSS, actor_id="boss")
    return harness


SCENARIOS = {
    # Ana deals harm to Guard: 4 + 6 = 10 − 5 (Guard's Armour) + 2 = 7 → 7–9: 5 is secret.
    "dealt": ({"actor": "ana", "targets": ["guard"], "params": {"direction": "dealt"}},
              [4, 6], {5}),
    # Boss harms Ana, who rolls 1 + 1 = 2 − 1 − 1 + 8 (Boss's Pierce) = 8 → 7–9: 8 is
    # secret (the Pierce and the total).
    "taken": ({"actor": "boss", "targets": ["ana"], "params": {"direction": "taken"}},
              [1, 1], {8}),
}  # fmt: skip


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
@pytest.mark.parametrize("locale", ("en", *LOCALES))
def test_an_npcs_sheet_numbers_stay_hidden_in_every_language(scenario, locale):
    where, dice, secret = SCENARIOS[scenario]
    hidden = secret_table(reveal=False)
    hidden.resolve("harm", dice=dice, **where)
    gm, player = read(hidden, locale)
    assert secret <= numbers(gm), "the GM reads the NPC's numbers"
    assert not secret & numbers(player), f"players read {secret & numbers(player)} in {locale}"
    shown = secret_table(reveal=True)
    shown.resolve("harm", dice=dice, **where)
    assert secret <= numbers(read(shown, locale)[1]), "show_npc_details shows them"


# -- refusals -----------------------------------------------------------------------------

REFUSALS = {
    # BD-10: a medpack on an unwounded bandit.
    "no_wounds": {
        "en": "this bandit has no wound to heal",
        "cs": "tento bandita nemá žádnou ránu k léčení",
        "de": "dieser Bandit hat keine Wunde zu heilen",
        "ru": "у этого бандита нет ран для лечения",
    },
    # BD-8, Decision D4 with `dying_can_act` off: a dying bandit may not make a move.
    "cannot_act": {
        "en": "Ana is dying and cannot act (BD-8), so cannot make a move",
        "cs": "Ana umírá a nemůže jednat (BD-8), takže nemůže hrát tah",
        "de": "Ana liegt im Sterben und kann nicht handeln (BD-8), also auch keinen "
        "Spielzug machen",
        "ru": "Персонаж Ana умирает и не может действовать (BD-8), а значит, не может сделать ход",
    },
    # BD-4: no two light weapons, no +1 Pierce.
    "no_two_light_weapons": {
        "en": "Boss does not carry two light weapons, so cannot take +1 pierce (BD-4)",
        "cs": "Boss nemá dvě lehké zbraně, takže nemůže vzít +1 Průraz (BD-4)",
        "de": "Boss führt keine zwei leichten Waffen und kann daher nicht +1 Durchschlag "
        "nehmen (BD-4)",
        "ru": "Boss не использует парное легкое оружие, поэтому не может взять +1 к Пробою (BD-4)",
    },
}


def _refusal(code: str) -> RuleViolation:
    harness = table(dying_can_act=False)  # the dying refusal is the table's choice
    dying = {"kind": "bandit", "slots": {"dying": True}, "dying": True}
    harness.add_actor("Ana", {"kind": "bandit"}, actor_id="ana2", player=True, state=dying)
    request = {
        "no_wounds": ("medpack", {"targets": ["ana"], "params": {"n": 1}}),
        "cannot_act": ("move", {"actor": "ana2", "params": {}}),
        "no_two_light_weapons": (
            "harm",
            {"actor": "boss", "targets": ["ana"],
             "params": {"direction": "dealt", "attacker_dual_wield": "pierce"}},
        ),
    }[code]  # fmt: skip
    with pytest.raises(RuleViolation) as caught:
        harness.resolve(request[0], **request[1])
    assert caught.value.code == code
    return caught.value


@pytest.mark.parametrize("code", sorted(REFUSALS))
def test_refusals_read_in_each_language(code):
    refused = _refusal(code)
    assert refused.text is not None, "a refusal is a text"
    assert refused.message == REFUSALS[code]["en"]
    for locale in LOCALES:
        assert refused.render(locale) == REFUSALS[code][locale]
        assert refused.to_dict(locale)["message"] == REFUSALS[code][locale]


# -- the catalogues -----------------------------------------------------------------------


def test_the_catalogues_are_complete_and_compiled():
    assert check(PLUGIN, "bandits", list(LOCALES)) == []


@pytest.mark.parametrize("locale", LOCALES)
def test_the_rulesets_summary_names_the_slots_as_they_are_named(locale):
    """The Czech and Russian summaries listed the four slots in the seed's masculine
    short forms ("lehce, vážně, těžce zraněn, umírá"; "легко, серьезно, тяжело ранен,
    умирает") after the slots became gender-free nouns everywhere else ("těžké
    zranění", "тяжелое ранение", "при смерти"): one slot, two names on one screen.
    The summary lists each slot by its name's first word, the fourth whole."""
    from rollbridge.plugins.bandits.action_texts import RULESET_SUMMARY
    from rollbridge.plugins.bandits.messages import SLOT

    summary = RULESET_SUMMARY().render(locale)
    names = [SLOT[n]().render(locale) for n in (1, 2, 3, 4)]
    for name in names[:3]:
        assert f"{name.split()[0]}," in summary or f"{name.split()[0]} " in summary, (name, summary)
    assert names[3] in summary, (names[3], summary)


def test_the_russian_writes_no_yo_as_the_seed_does():
    """docs/rulesets/bandits.md: the Russian texts write the seed's words as it writes
    them, without ё (серьезно, мертв). The slots read «лёгкое, серьёзное, тяжёлое
    ранение» and the move «действие под огнём» beside «при тяжелом ранении», «парное
    легкое оружие» and «мертв»: one word spelt two ways on one screen
    («тяжёлое ранение», «при тяжелом ранении»)."""
    po = Path(__file__).resolve().parents[3] / "plugins" / "bandits" / "locale" / "ru"
    with (po / "LC_MESSAGES" / "bandits.po").open("rb") as file:
        catalogue = pofile.read_po(file, locale="ru")
    yo = [
        (message.context, string)
        for message in catalogue
        for string in (message.string if isinstance(message.string, tuple) else (message.string,))
        if "ё" in (string or "") or "Ё" in (string or "")
    ]
    assert not yo, yo
