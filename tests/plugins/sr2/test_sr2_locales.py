"""sr2 in Czech, German and Russian: real resolutions through the engine read as a
native player writes them (hand-checked strings, each client in its own language),
the counted nouns decline (cs and ru have three forms), redaction holds in every
language, refusals are translated, and the catalogues are complete.

The notation stays the same in every language (docs/rulesets/sr2.md, "Glossary"):
damage codes and their letters (``10S``, ``S->D``: the English edition's L, M, S, D,
where the Czech seed writes V for Serious and S for Deadly), rule numbers (``SR-9``),
actor names and ids, parameter names and values in refusals.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from rollbridge import catalogs
from rollbridge.exceptions import RuleViolation
from rollbridge.plugins.sr2 import SR2Ruleset, refusals
from rollbridge.plugins.sr2 import messages as said
from rollbridge.testing import GM, RulesetHarness
from rollbridge.text import untranslated

ROOT = Path(__file__).resolve().parents[3]
LOCALES = ("cs", "de", "ru")

TUKAN = {
    "body": 5,
    "combat_pool": 6,
    "weapons": [{"name": "Hackler", "code": "7M", "skill": 7, "recoil_compensation": 3}],
}
GUARD_A = {"body": 4, "combat_pool": 3, "armor": {"ballistic": 4}}
GUARD_B = {"body": 4, "combat_pool": 3, "armor": {"ballistic": 5}}


def table(guard: dict[str, Any], settings: dict[str, Any] | None = None) -> RulesetHarness:
    harness = RulesetHarness(SR2Ruleset(), settings={"ruleset": settings or {}})
    harness.add_actor("Tukan", TUKAN, actor_id="tukan", player=True)
    harness.add_actor("Guard", guard, actor_id="guard")
    return harness


def read(harness: RulesetHarness, locale: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The latest event's data as the GM and as players read it in ``locale``."""
    gm, players = harness.views(locale=locale)
    return gm["data"], players["data"]


# -- acceptance example 1 (Tukan A): 10S, armour 4, 7 vs 2 -> D + 1 overflow -----------


@pytest.fixture
def tukan_a() -> RulesetHarness:
    """SR-6: Hackler 7M fired 3 rounds is 10S; SR-8: 8 dice at TN 4, 7 successes;
    SR-9: Body 4 at TN 10 - 4 = 6, 2 successes; SR-10: net +5 stages S to D plus one
    overflow, one spare success; SR-13: dying."""
    harness = table(GUARD_A)
    harness.resolve(
        "attack",
        actor="tukan",
        targets=["guard"],
        params={"weapon": "Hackler", "rounds": 3, "range": "short", "attacker_pool": 1},
        dice=[5] * 7 + [1] + [6, 2, 6, 3, 1, 4],
    )
    return harness


TUKAN_A = {
    "cs": {
        "narration": "Tukan zasahuje cíl Guard zbraní Hackler (10S, 7 úspěchů): "
        "Smrtelné, 1 bod overdamage; Guard: umírající.",
        "players": "Tukan zasahuje cíl Guard zbraní Hackler (10S, 7 úspěchů): "
        "Smrtelné; Guard: umírající.",
        "steps": [
            "Kód 10S = 7M, vystřeleny 3 náboje: síla +3, úroveň +1 "
            "(o jednu za každé 3 náboje, nejvýš D) (SR-6)",
            "CČ útoku 4 = krátká vzdálenost 4 + zpětný ráz (3 náboje, kompenzace 3) 0 "
            "+ postih za zranění 0 + okolnosti 0 (SR-7, SR-8)",
            "Útok: dovednost 7 + rezerva 1 = 8 kostek proti CČ 4: "
            "[5, 5, 5, 5, 5, 5, 5, 1] -> 7 úspěchů",
            "CČ odolání 6 = síla 10 - balistický pancíř 4 + postih za zranění 0 (SR-9)",
            "Odolání: Tělo 4 + rezerva 0 = 4 kostky proti CČ 6: [6+2=8, 6+3=9, 1, 4] -> 2 úspěchy",
            "Čisté úspěchy 7 - 2 = +5 -> o 2 stupně výš (SR-10), 1 úspěch navíc nic neposune",
            "Posun úrovně: S->D, D->+1 overdamage",
            "Poškození: Smrtelné (D) = 10 čtverečků + 1 bod overdamage, monitor zranění "
            "(SR-5, SR-11)",
            "Proškrtnuté čtverečky: zranění 0 -> 10, overdamage 0 -> 1; stav: umírající (SR-13)",
        ],
        "players_steps": {
            4: "CČ odolání skryté: síla 10 - balistický pancíř (skryto) + postih za zranění 0 "
            "(SR-9)",
            5: "Odolání: 4 kostky proti skrytému CČ: [6+2=8, 6+3=9, 1, 4] -> 2 úspěchy",
            9: "Úrovně zranění teď: Smrtelné zranění; stav: umírající (SR-12, SR-13)",
        },
        "dice": [
            ("Hod na útok (Tukan)", "dovednost 7 + rezerva 1"),
            ("Hod na odolání (Guard)", "Tělo 4 + rezerva 0"),
        ],
        "conditions": ["Zranění: Smrtelné", "Bezvědomí", "Umírání"],
        "note": "+3 CČ, −3 iniciativa",
        "labels": ["Omráčení", "Zranění", "Overdamage"],
    },
    "de": {
        "narration": "Tukan trifft Guard mit Hackler (10S, 7 Erfolge): "
        "Tödlich, 1 überzähliges Kästchen; Guard ist im Sterben.",
        "players": "Tukan trifft Guard mit Hackler (10S, 7 Erfolge): "
        "Tödlich; Guard ist im Sterben.",
        "steps": [
            "Code 10S = 7M mit 3 Schuss: Powerniveau +3, Schadensniveau +1 "
            "(eine Stufe je 3 Schuss, höchstens D) (SR-6)",
            "Angriffs-MW 4 = kurze Reichweite 4 + Rückstoß (3 Schuss, Kompensation 3) 0 "
            "+ Verletzungsmodifikator 0 + Situation 0 (SR-7, SR-8)",
            "Angriff: Fertigkeit 7 + Pool 1 = 8 Würfel gegen MW 4: "
            "[5, 5, 5, 5, 5, 5, 5, 1] -> 7 Erfolge",
            "Widerstands-MW 6 = Powerniveau 10 - Ballistische Panzerung 4 "
            "+ Verletzungsmodifikator 0 (SR-9)",
            "Widerstand: Konstitution 4 + Pool 0 = 4 Würfel gegen MW 6: "
            "[6+2=8, 6+3=9, 1, 4] -> 2 Erfolge",
            "Nettoerfolge 7 - 2 = +5 -> 2 Stufen höher (SR-10), 1 übriger Erfolg verschiebt nichts",
            "Schadensstufen: S->D, D->+1 überzählig",
            "Schaden: Tödlich (D) = 10 Kästchen + 1 überzähliges Kästchen (körperlich) "
            "(SR-5, SR-11)",
            "Angekreuzte Kästchen: körperlich 0 -> 10, überzählig 0 -> 1; Status: im Sterben "
            "(SR-13)",
        ],
        "players_steps": {
            4: "Widerstands-MW verdeckt: Powerniveau 10 - Ballistische Panzerung (verdeckt) "
            "+ Verletzungsmodifikator 0 (SR-9)",
            5: "Widerstand: 4 Würfel gegen einen verdeckten MW: [6+2=8, 6+3=9, 1, 4] -> 2 Erfolge",
            9: "Verletzungsstufen jetzt: Tödlich (körperlich); Status: im Sterben (SR-12, SR-13)",
        },
        "dice": [
            ("Angriffsprobe (Tukan)", "Fertigkeit 7 + Pool 1"),
            ("Widerstandsprobe (Guard)", "Konstitution 4 + Pool 0"),
        ],
        "conditions": ["Körperlich: Tödlich", "Bewusstlos", "Im Sterben"],
        "note": "+3 MW, −3 Initiative",
        "labels": ["Geistig", "Körperlich", "Überzählig"],
    },
    "ru": {
        "narration": "Tukan попадает по цели Guard, оружие: Hackler (10S, 7 успехов): "
        "Смертельное, 1 клетка избыточного урона; Guard: при смерти.",
        "players": "Tukan попадает по цели Guard, оружие: Hackler (10S, 7 успехов): "
        "Смертельное; Guard: при смерти.",
        "steps": [
            "Код 10S = 7M, выпущено 3 патрона: мощность +3, уровень +1 "
            "(на один за каждые 3 патрона, не выше D) (SR-6)",
            "ЦЧ атаки 4 = короткая дистанция 4 + отдача (3 патрона, компенсация 3) 0 "
            "+ штраф за ранения 0 + обстоятельства 0 (SR-7, SR-8)",
            "Атака: навык 7 + пул 1 = 8 кубиков против ЦЧ 4: [5, 5, 5, 5, 5, 5, 5, 1] -> 7 успехов",
            "ЦЧ сопротивления 6 = мощность 10 - баллистическая броня 4 + штраф за ранения 0 (SR-9)",
            "Сопротивление: Телосложение 4 + пул 0 = 4 кубика против ЦЧ 6: "
            "[6+2=8, 6+3=9, 1, 4] -> 2 успеха",
            "Чистые успехи 7 - 2 = +5 -> на 2 ступени выше (SR-10), "
            "1 лишний успех ничего не сдвигает",
            "Смещение уровня: S->D, D->+1 избыточный",
            "Урон: Смертельное (D) = 10 клеток + 1 клетка избыточного урона, "
            "монитор: физический урон (SR-5, SR-11)",
            "Зачёркнуто клеток: физический урон 0 -> 10, избыточный урон 0 -> 1; "
            "статус: при смерти (SR-13)",
        ],
        "players_steps": {
            4: "ЦЧ сопротивления скрыто: мощность 10 - баллистическая броня (скрыто) "
            "+ штраф за ранения 0 (SR-9)",
            5: "Сопротивление: 4 кубика против скрытого ЦЧ: [6+2=8, 6+3=9, 1, 4] -> 2 успеха",
            9: "Уровни ранений теперь: Смертельное ранение; статус: при смерти (SR-12, SR-13)",
        },
        "dice": [
            ("Проверка атаки (Tukan)", "навык 7 + пул 1"),
            ("Проверка сопротивления (Guard)", "Телосложение 4 + пул 0"),
        ],
        "conditions": ["Физический урон: Смертельное", "Без сознания", "При смерти"],
        "note": "+3 к ЦЧ, −3 к инициативе",
        "labels": ["Оглушение", "Физический урон", "Избыточный урон"],
    },
}


@pytest.mark.parametrize("locale", LOCALES)
def test_acceptance_1_reads_in_each_language(tukan_a, locale):
    """Acceptance example 1 (SR-6 to SR-13) for the GM and for players: the players'
    view differs exactly where the guard's armour, TN and boxes are (its sheet and
    details, hidden by default)."""
    expected = TUKAN_A[locale]
    gm, players = read(tukan_a, locale)
    assert gm["narration"] == expected["narration"]
    assert gm["steps"] == expected["steps"]
    assert [(g["label"], g["note"]) for g in gm["dice"]] == expected["dice"]
    assert players["narration"] == expected["players"]
    wanted = list(expected["steps"])
    for index, step in expected["players_steps"].items():
        wanted[index - 1] = step
    assert players["steps"] == wanted
    assert players["dice"][0]["note"] == expected["dice"][0][1]
    assert "note" not in players["dice"][1]  # Body 4 + pool 0: the guard's sheet


@pytest.mark.parametrize("locale", LOCALES)
def test_common_state_reads_in_each_language(tukan_a, locale):
    """SR-11 to SR-13: the dying guard's conditions, its wound modifier's note and, for
    the GM, the labels of its three rows of boxes."""
    expected = TUKAN_A[locale]
    seen = tukan_a.actor("guard", gm=False, locale=locale)["common"]
    assert seen["conditions"] == expected["conditions"]
    assert seen["modifier_note"] == expected["note"]
    assert seen["tracks"] == []  # players do not see an NPC's boxes by default
    full = tukan_a.actor("guard", gm=True, locale=locale)["common"]
    assert [t["label"] for t in full["tracks"]] == expected["labels"]
    assert [t["value"] for t in full["tracks"]] == [0, 10, 1]


# -- acceptance example 2 (Tukan B): 10S, armour 5, 5 vs 7 -> M, 3 boxes ---------------

TUKAN_B = {
    "cs": (
        "Tukan zasahuje cíl Guard zbraní Hackler (10S, 5 úspěchů): Mírné; Guard: oslabení.",
        [
            "Útok: dovednost 7 + rezerva 0 = 7 kostek proti CČ 4: [5, 5, 5, 5, 5, 1, 2] "
            "-> 5 úspěchů",
            "CČ odolání 5 = síla 10 - balistický pancíř 5 + postih za zranění 0 (SR-9)",
            "Odolání: Tělo 4 + rezerva 3 = 7 kostek proti CČ 5: [5, 5, 5, 5, 5, 5, 5] -> 7 úspěchů",
            "Čisté úspěchy 5 - 7 = -2 -> o 1 stupeň níž (SR-10)",
            "Posun úrovně: S->M",
            "Poškození: Mírné (M) = 3 čtverečky, monitor zranění (SR-5, SR-11)",
            "Proškrtnuté čtverečky: zranění 0 -> 3; stav: oslabení (SR-13)",
        ],
        ["Zranění: Mírné"],
    ),
    "de": (
        "Tukan trifft Guard mit Hackler (10S, 5 Erfolge): Mittel; Guard ist beeinträchtigt.",
        [
            "Angriff: Fertigkeit 7 + Pool 0 = 7 Würfel gegen MW 4: [5, 5, 5, 5, 5, 1, 2] "
            "-> 5 Erfolge",
            "Widerstands-MW 5 = Powerniveau 10 - Ballistische Panzerung 5 "
            "+ Verletzungsmodifikator 0 (SR-9)",
            "Widerstand: Konstitution 4 + Pool 3 = 7 Würfel gegen MW 5: "
            "[5, 5, 5, 5, 5, 5, 5] -> 7 Erfolge",
            "Nettoerfolge 5 - 7 = -2 -> 1 Stufe niedriger (SR-10)",
            "Schadensstufen: S->M",
            "Schaden: Mittel (M) = 3 Kästchen (körperlich) (SR-5, SR-11)",
            "Angekreuzte Kästchen: körperlich 0 -> 3; Status: beeinträchtigt (SR-13)",
        ],
        ["Körperlich: Mittel"],
    ),
    "ru": (
        "Tukan попадает по цели Guard, оружие: Hackler (10S, 5 успехов): "
        "Среднее; Guard: с ранениями.",
        [
            "Атака: навык 7 + пул 0 = 7 кубиков против ЦЧ 4: [5, 5, 5, 5, 5, 1, 2] -> 5 успехов",
            "ЦЧ сопротивления 5 = мощность 10 - баллистическая броня 5 + штраф за ранения 0 (SR-9)",
            "Сопротивление: Телосложение 4 + пул 3 = 7 кубиков против ЦЧ 5: "
            "[5, 5, 5, 5, 5, 5, 5] -> 7 успехов",
            "Чистые успехи 5 - 7 = -2 -> на 1 ступень ниже (SR-10)",
            "Смещение уровня: S->M",
            "Урон: Среднее (M) = 3 клетки, монитор: физический урон (SR-5, SR-11)",
            "Зачёркнуто клеток: физический урон 0 -> 3; статус: с ранениями (SR-13)",
        ],
        ["Физический урон: Среднее"],
    ),
}


@pytest.mark.parametrize("locale", LOCALES)
def test_acceptance_2_reads_in_each_language(locale):
    """Acceptance example 2: 7 attack dice at TN 4 give 5 successes; Body 4 + 3 pool
    dice at TN 10 - 5 = 5 give 7 (SR-9); net -2 stages S down to M (SR-10): 3 boxes
    (SR-5), Moderate, +2 TN (SR-12)."""
    harness = table(GUARD_B)
    harness.resolve(
        "attack",
        actor="tukan",
        targets=["guard"],
        params={"weapon": "Hackler", "rounds": 3, "range": "short", "defender_pool": 3},
        dice=[5, 5, 5, 5, 5, 1, 2] + [5] * 7,
    )
    narration, steps, conditions = TUKAN_B[locale]
    gm, players = read(harness, locale)
    assert gm["narration"] == players["narration"] == narration
    assert gm["steps"][2:] == steps
    assert harness.actor("guard", gm=False, locale=locale)["common"]["conditions"] == conditions


SUCCESS_TEST = {
    "cs": (
        "Tukan: Hod na úspěch, 5 kostek proti CČ 5: 2 úspěchy.",
        "Hod na úspěch: 5 kostek proti CČ 5: [1, 2, 5, 6+3=9, 4] -> 2 úspěchy",
        "Tukan: Death roll, 2 kostky proti CČ 3: kritický neúspěch.",
    ),
    "de": (
        "Tukan: Erfolgsprobe, 5 Würfel gegen MW 5: 2 Erfolge.",
        "Erfolgsprobe: 5 Würfel gegen MW 5: [1, 2, 5, 6+3=9, 4] -> 2 Erfolge",
        "Tukan: Death roll, 2 Würfel gegen MW 3: Patzer.",
    ),
    "ru": (
        "Tukan: Проверка успеха, 5 кубиков против ЦЧ 5: 2 успеха.",
        "Проверка успеха: 5 кубиков против ЦЧ 5: [1, 2, 5, 6+3=9, 4] -> 2 успеха",
        "Tukan: Death roll, 2 кубика против ЦЧ 3: критический провал.",
    ),
}


@pytest.mark.parametrize("locale", LOCALES)
def test_success_test_reads_in_each_language(locale):
    """SR-16 with SR-1 (6 then 3 is 9) and SR-3 (every die a 1: botch). The default
    label is translated; a label the player typed (``Death roll``) stays as typed."""
    harness = table(GUARD_A)
    harness.resolve(
        "success_test", actor="tukan", params={"dice": 5, "tn": 5}, dice=[1, 2, 5, 6, 3, 4]
    )
    narration, line, botch = SUCCESS_TEST[locale]
    gm, players = read(harness, locale)
    assert gm["narration"] == players["narration"] == narration
    assert gm["steps"] == [line]
    assert gm["dice"][0]["label"] == narration.split(": ")[1].split(",")[0]
    harness.resolve(
        "success_test",
        actor="tukan",
        params={"dice": 2, "tn": 3, "label": "Death roll"},
        dice=[1, 1],
    )
    assert read(harness, locale)[1]["narration"] == botch


# -- counted nouns: three forms in Czech and Russian -----------------------------------

COUNTS = (0, 1, 2, 4, 5, 11, 21, 22, 25)
#: The form each count takes: cs one (1), few (2-4), other; ru one (1, 21), few (2-4,
#: 22), many (0, 5-20, 25).
CS_FORM = {0: 2, 1: 0, 2: 1, 4: 1, 5: 2, 11: 2, 21: 2, 22: 2, 25: 2}
RU_FORM = {0: 2, 1: 0, 2: 1, 4: 1, 5: 2, 11: 2, 21: 0, 22: 1, 25: 2}

NOUNS = {
    "successes": (
        lambda n: said.SUCCESSES(count=n),
        ("{} úspěch", "{} úspěchy", "{} úspěchů"),
        ("{} успех", "{} успеха", "{} успехов"),
    ),
    "dice": (
        lambda n: said.DICE(count=n),
        ("{} kostka", "{} kostky", "{} kostek"),
        ("{} кубик", "{} кубика", "{} кубиков"),
    ),
    "boxes": (
        lambda n: said.DAMAGE_STEP(
            level=said.LEVELS["D"](),
            letter="D",
            boxes=n,
            overflow="",
            monitor=said.TRACKS["physical"](),
        ),
        (
            "Poškození: Smrtelné (D) = {} čtvereček, monitor zranění (SR-5, SR-11)",
            "Poškození: Smrtelné (D) = {} čtverečky, monitor zranění (SR-5, SR-11)",
            "Poškození: Smrtelné (D) = {} čtverečků, monitor zranění (SR-5, SR-11)",
        ),
        (
            "Урон: Смертельное (D) = {} клетка, монитор: физический урон (SR-5, SR-11)",
            "Урон: Смертельное (D) = {} клетки, монитор: физический урон (SR-5, SR-11)",
            "Урон: Смертельное (D) = {} клеток, монитор: физический урон (SR-5, SR-11)",
        ),
    ),
    "boxes lost": (
        lambda n: said.BOXES_LOST(count=n),
        ("; {} čtvereček propadá", "; {} čtverečky propadají", "; {} čtverečků propadá"),
        ("; {} клетка пропадает", "; {} клетки пропадают", "; {} клеток пропадает"),
    ),
    "boxes healed": (
        lambda n: said.HEALS(
            target="Guard",
            count=n,
            monitor=said.TRACKS["stun"](),
            status=said.STATUSES["ok"](),
        ),
        (
            "Guard se zotaví o {} čtvereček (omráčení): v pořádku.",
            "Guard se zotaví o {} čtverečky (omráčení): v pořádku.",
            "Guard se zotaví o {} čtverečků (omráčení): v pořádku.",
        ),
        (
            "Guard восстанавливает {} клетку (оглушение): в порядке.",
            "Guard восстанавливает {} клетки (оглушение): в порядке.",
            "Guard восстанавливает {} клеток (оглушение): в порядке.",
        ),
    ),
    "overflow": (
        lambda n: said.DAMAGE_TAKEN_OVERFLOW(count=n),
        (", {} bod overdamage", ", {} body overdamage", ", {} bodů overdamage"),
        (
            ", {} клетка избыточного урона",
            ", {} клетки избыточного урона",
            ", {} клеток избыточного урона",
        ),
    ),
    "rounds": (
        lambda n: said.RECOIL(rounds=n, compensation=1),
        (
            "zpětný ráz ({} náboj, kompenzace 1)",
            "zpětný ráz ({} náboje, kompenzace 1)",
            "zpětný ráz ({} nábojů, kompenzace 1)",
        ),
        (
            "отдача ({} патрон, компенсация 1)",
            "отдача ({} патрона, компенсация 1)",
            "отдача ({} патронов, компенсация 1)",
        ),
    ),
    "steps": (
        lambda n: said.NET_UP(count=n),
        ("o {} stupeň výš", "o {} stupně výš", "o {} stupňů výš"),
        ("на {} ступень выше", "на {} ступени выше", "на {} ступеней выше"),
    ),
    "Combat Pool dice": (
        lambda n: refusals.POOL_NOT_LEFT(actor="Tukan", role=refusals.ROLES["tester"](), asked=n),
        (
            "Tukan (házející) už v tomto kole nemá {} kostku bojové rezervy",
            "Tukan (házející) už v tomto kole nemá {} kostky bojové rezervy",
            "Tukan (házející) už v tomto kole nemá {} kostek bojové rezervy",
        ),
        (
            "Tukan (бросающий) не может взять {} кубик боевого пула: "
            "в этом раунде столько не осталось",
            "Tukan (бросающий) не может взять {} кубика боевого пула: "
            "в этом раунде столько не осталось",
            "Tukan (бросающий) не может взять {} кубиков боевого пула: "
            "в этом раунде столько не осталось",
        ),
    ),
}


@pytest.mark.parametrize("noun", list(NOUNS))
def test_counted_nouns_decline_in_czech_and_russian(noun):
    """Every count takes its language's form; English keeps its one wording."""
    make, czech, russian = NOUNS[noun]
    for n in COUNTS:
        text = make(n)
        assert text.render("cs") == czech[CS_FORM[n]].format(n), (noun, n)
        assert text.render("ru") == russian[RU_FORM[n]].format(n), (noun, n)


def test_the_brief_s_examples_of_plural_forms():
    """The words the issue names, with the ruleset's successes and dice beside them."""
    cs = [said.SUCCESSES(count=n).render("cs") for n in (1, 2, 4, 5, 21)]
    assert cs == ["1 úspěch", "2 úspěchy", "4 úspěchy", "5 úspěchů", "21 úspěchů"]
    ru = [said.DICE(count=n).render("ru") for n in (1, 2, 5, 11, 21, 22, 25)]
    assert ru == [
        "1 кубик",
        "2 кубика",
        "5 кубиков",
        "11 кубиков",
        "21 кубик",
        "22 кубика",
        "25 кубиков",
    ]
    de = [said.SUCCESSES(count=n).render("de") for n in (0, 1, 2)]
    assert de == ["0 Erfolge", "1 Erfolg", "2 Erfolge"]
    assert [said.SUCCESSES(count=n).render() for n in (1, 2)] == ["1 success", "2 successes"]
    assert [said.DICE(count=n).render() for n in (1, 2)] == ["1 die", "2 dice"]


# -- redaction in every language ----------------------------------------------------------

#: An NPC whose sheet numbers no other value of these resolutions takes.
OGRE = {
    "body": 47,
    "combat_pool": 71,
    "armor": {"ballistic": 83, "impact": 91},
    "weapons": [{"name": "Rifle", "code": "9M", "skill": 59, "recoil_compensation": 67}],
}
#: The sheet numbers, and the resistance TN built from them (7 - 83 = -76).
SECRET = {47, 71, 83, 91, 59, 67, 76}


def numbers(value: Any) -> set[int]:
    """Every whole number written anywhere in ``value``'s JSON."""
    return {int(n) for n in re.findall(r"\d+", json.dumps(value, ensure_ascii=False))}


def _ogre_table(settings: dict[str, Any]) -> RulesetHarness:
    harness = table(OGRE, settings)
    # Tukan's short shot: 7 dice at TN 4; the ogre resists with Body 47 + pool 2 = 49
    # dice at TN 7 - 83, floored to 2 (SR-2, SR-9): no damage.
    harness.resolve(
        "attack",
        actor="tukan",
        targets=["guard"],
        params={"weapon": "Hackler", "range": "short", "defender_pool": 2},
        dice=[5] * 56,
    )
    return harness


@pytest.mark.parametrize("locale", LOCALES)
def test_players_never_read_an_npc_s_numbers_in_any_language(locale):
    harness = _ogre_table({})
    gm, players = read(harness, locale)
    assert not numbers(players) & SECRET, sorted(numbers(players) & SECRET)
    assert not numbers(harness.actor("guard", gm=False, locale=locale)) & SECRET
    assert {47, 83, 76} <= numbers(gm)  # the GM reads them


@pytest.mark.parametrize("locale", LOCALES)
def test_the_reveal_setting_shows_them_in_every_language(locale):
    harness = _ogre_table({"show_npc_sheet": True, "show_npc_details": True})
    _gm, players = read(harness, locale)
    assert {47, 83, 76} <= numbers(players)
    assert {47, 71, 83} <= numbers(harness.actor("guard", gm=False, locale=locale))


# -- refusals ----------------------------------------------------------------------------

REFUSED_POOL = {
    "en": "Tukan (attacker) has 6 Combat Pool dice left this turn and cannot spend 9",
    "cs": "Tukan (útočník) má v tomto kole už jen 6 kostek bojové rezervy a nemůže jich utratit 9",
    "de": "Tukan (Angreifer) hat in dieser Kampfrunde nur noch 6 Kampfpoolwürfel und kann "
    "nicht 9 ausgeben",
    "ru": "Tukan (атакующий): в боевом пуле на этот раунд 6 кубиков, потратить 9 нельзя",
}
REFUSED_DEAD = {
    "en": "Guard is dead",
    "cs": "Guard je po smrti",
    "de": "Guard ist tot",
    "ru": "Guard: персонаж мёртв",
}


def test_refusals_read_in_each_language():
    """SR-14: more Combat Pool than is left is refused; SR-13: the dead are not
    stabilised. English stays what it was (``str`` and ``message``)."""
    harness = table(GUARD_A, {})
    dead_state = {"stun": 0, "physical": 10, "overflow": 3, "pool": 0, "stabilised": False}
    harness.add_actor("Corpse", {"body": 2}, actor_id="corpse", state=dead_state)
    params = {"weapon": "Hackler", "range": "short", "attacker_pool": 9}
    with pytest.raises(RuleViolation) as pool:
        harness.resolve("attack", actor="tukan", targets=["guard"], params=params)
    with pytest.raises(RuleViolation) as dead:
        harness.resolve("stabilise", targets=["corpse"])
    assert pool.value.code == "pool_exhausted" and dead.value.code == "actor_dead"
    assert str(pool.value) == pool.value.message == REFUSED_POOL["en"]
    assert str(dead.value) == "Corpse is dead"
    for locale in ("en", *LOCALES):
        assert pool.value.render(locale) == REFUSED_POOL[locale]
        assert dead.value.render(locale) == REFUSED_DEAD[locale].replace("Guard", "Corpse")


def test_a_bad_damage_code_is_refused_in_each_language(kit):
    """SR-4: the letters are the English edition's in every language; the Czech refusal
    says how the seed's letters map."""
    from rollbridge.exceptions import InvalidParams

    target = kit.actor("t")
    with pytest.raises(InvalidParams) as caught:
        kit.resolve("damage", {"code": "7V", "attack_successes": 0}, targets=[target])
    assert caught.value.message == (
        "params.code: unknown damage level 'V' in '7V'; "
        "use L, M, S or D (Light, Moderate, Serious, Deadly)"
    )
    assert caught.value.render("cs") == (
        "params.code: neznámá úroveň poškození 'V' v '7V'; použijte L, M, S nebo D "
        "(lehké, mírné, vážné, smrtelné: české V se píše S, české S se píše D)"
    )
    assert caught.value.render("de").startswith("params.code: unbekanntes Schadensniveau 'V'")
    assert caught.value.render("ru").startswith("params.code: неизвестный уровень урона 'V'")


# -- the catalogues ----------------------------------------------------------------------


def test_catalogues_are_complete():
    """``rollbridge catalogs check plugins/sr2``: nothing untranslated or fuzzy, the
    placeholders and plural forms right, the .mo files compiled from the .po."""
    assert catalogs.check(ROOT / "plugins" / "sr2", "sr2", list(LOCALES)) == []


def test_no_sr2_message_falls_back_to_english(tukan_a):
    """Everything sr2 says in these resolutions has a translation in each language."""
    before = untranslated()
    for locale in LOCALES:
        read(tukan_a, locale)
        tukan_a.actor("guard", gm=False, locale=locale)
        tukan_a.actor("guard", gm=True, locale=locale)
    missing = sorted(key for key in untranslated() - before if key[0].startswith("sr2."))
    assert not missing


def test_each_client_reads_the_reply_in_its_own_language():
    """The same table, two requests in two languages: each reply reads in its asker's."""
    harness = table(GUARD_A)
    body = {"type": "resolve", "action": "new_turn", "params": {}, "targets": []}
    german = harness.service.handle(harness.table_id, {**body, "id": "r1"}, GM, locale="de")
    czech = harness.service.handle(harness.table_id, {**body, "id": "r2"}, GM, locale="cs")
    assert german["event"]["data"]["narration"] == (
        "Neue Kampfrunde: jeder Kampfpool ist wieder voll."
    )
    assert czech["event"]["data"]["steps"] == ["Nové bojové kolo (SR-14): Tukan 6, Guard 3"]
