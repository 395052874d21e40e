"""techlevel in Czech, German and Russian (localisation issue): real resolutions read in
each language, counted nouns decline by the CLDR plural rules, redaction holds in every
locale, refusals are texts, and the catalogues are complete.

The expected strings are hand-checked translations (see the glossary in
``docs/rulesets/techlevel.md``); the English of every text is unchanged and is what the
other test files quote.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rollbridge import catalogs
from rollbridge.exceptions import RuleViolation
from rollbridge.plugins.techlevel import TechLevel
from rollbridge.plugins.techlevel import messages as m
from rollbridge.testing import RulesetHarness

PLUGIN = Path(__file__).resolve().parents[3] / "plugins" / "techlevel"
LOCALES = ("cs", "de", "ru")
ANA = {"body_tl": 2}
#: An NPC whose details are distinctive: the armour's name, TL4 and immunity, and a
#: hit by a TL2 weapon gives the factor /3 (TL-4) — none of it for players' eyes.
GUARD = {
    "body_tl": 1,
    "worn": [{"name": "Mirrorplate", "kind": "armour", "boxes": 20, "tl": 4, "immune": ["plasma"]}],
}
SECRETS = ("Mirrorplate", "plasma", "/3", "TL4", '"tl": 4', "×", "⌊")
WYRM = {
    "body_tl": 3,
    "carried": [{"name": "Rune buckler", "kind": "shield", "boxes": 7, "tl": 5}],
    "worn": [{"name": "Hide", "kind": "armour", "boxes": 10, "tl": 2}],
}


def table(**settings: Any) -> RulesetHarness:
    harness = RulesetHarness(TechLevel(), settings={"ruleset": settings})
    harness.add_actor("Ana", ANA, actor_id="ana", player=True)
    harness.add_actor("Guard", GUARD, actor_id="guard")
    harness.add_actor("Wyrm", WYRM, actor_id="wyrm")
    return harness


def revolver_hit(harness: RulesetHarness) -> None:
    """TL-4: a revolver 1d6 TL2 rolls 6 against armour TL4: ⌊6 / 3⌋ = 2 boxes."""
    params = {"weapon": "Revolver", "dice": "1d6", "tl": 2}
    harness.resolve("hit", actor="ana", targets=["guard"], params=params, dice=[6])


# -- 1. real resolutions, read in each language ---------------------------------------

HIT_GM = {
    "cs": (
        "Ana zasahuje cíl Guard: 6 na 1d6 TL2 → zbroj 'Mirrorplate', /3, 2 políčka přeškrtnuta",
        "zbraň TL2 proti TL4: /3 → ⌊6 / 3⌋ = 2 políčka (TL-4)",
        "Mirrorplate: přeškrtnuto 2, nyní 2 z 20; ztraceno 0, dovnitř nepronikne nic (TL-5)",
    ),
    "de": (
        "Ana trifft Guard: 6 auf 1d6 TL2 → Rüstung 'Mirrorplate', /3, 2 Kästchen gestrichen",
        "Waffe TL2 gegen TL4: /3 → ⌊6 / 3⌋ = 2 Kästchen (TL-4)",
        "Mirrorplate: 2 gestrichen, jetzt 2 von 20; 0 verloren, nichts geht nach innen "
        "durch (TL-5)",
    ),
    "ru": (
        "Ana попадает по цели Guard: 6 на 1d6 TL2 → броня 'Mirrorplate', /3, 2 клетки зачёркнуты",
        "оружие TL2 против TL4: /3 → ⌊6 / 3⌋ = 2 клетки (TL-4)",
        "Mirrorplate: зачёркнуто 2, теперь 2 из 20; потеряно 0, внутрь ничего не проходит (TL-5)",
    ),
}
HIT_PLAYERS = {
    "cs": [
        "poškození 1d6 [6] = 6 (TL2)",
        "zasažená vrstva: zbroj je nejvrchnější přítomná a neporušená vrstva (energetický "
        "štít vozidla chybí, zbroj vozidla chybí, vozidlo chybí, energetický štít chybí) (TL-3)",
        "zbroj: TL a imunity jsou skryté (TL-4, TL-6)",
        "Zbroj: přeškrtnuto 2, nyní 2 z 20; dovnitř nepronikne nic (TL-5)",
    ],
    "de": [
        "Schaden 1d6 [6] = 6 (TL2)",
        "getroffene Schicht: Rüstung ist die äußerste vorhandene und intakte Schicht (kein "
        "Fahrzeug-Energieschild, keine Fahrzeugrüstung, kein Fahrzeug, kein Energieschild) "
        "(TL-3)",
        "Rüstung: TL und Immunitäten sind verborgen (TL-4, TL-6)",
        "Rüstung: 2 gestrichen, jetzt 2 von 20; nichts geht nach innen durch (TL-5)",
    ],
    "ru": [
        "урон 1d6 [6] = 6 (TL2)",
        "поражённый слой: броня — самый внешний из имеющихся целых слоёв (энергощита "
        "транспорта нет, брони транспорта нет, транспорта нет, энергощита нет) (TL-3)",
        "броня: TL и иммунитеты скрыты (TL-4, TL-6)",
        "Броня: зачёркнуто 2, теперь 2 из 20; внутрь ничего не проходит (TL-5)",
    ],
}
HIT_PLAYERS_NARRATION = {
    "cs": "Ana zasahuje cíl Guard: 6 na 1d6 TL2 → zbroj, 2 políčka přeškrtnuta",
    "de": "Ana trifft Guard: 6 auf 1d6 TL2 → Rüstung, 2 Kästchen gestrichen",
    "ru": "Ana попадает по цели Guard: 6 на 1d6 TL2 → броня, 2 клетки зачёркнуты",
}
HIT_DICE_LABEL = {"cs": "Poškození 1d6 TL2", "de": "Schaden 1d6 TL2", "ru": "Урон 1d6 TL2"}


@pytest.mark.parametrize("locale", LOCALES)
def test_a_hit_on_armour_reads_in_each_language(locale):
    """TL-3 (the outermost layer present), TL-4 (⌊6 / 3⌋ = 2), TL-5 (nothing passes)."""
    harness = table()
    revolver_hit(harness)
    gm, players = harness.views(locale=locale)
    narration, tl_step, item_step = HIT_GM[locale]
    assert gm["data"]["narration"] == narration
    assert gm["data"]["steps"][2:] == [tl_step, item_step]
    assert players["data"]["narration"] == HIT_PLAYERS_NARRATION[locale]
    assert players["data"]["steps"] == HIT_PLAYERS[locale]
    assert [g["label"] for g in players["data"]["dice"]] == [HIT_DICE_LABEL[locale]]
    english, _ = harness.views()
    assert english["data"]["narration"] == (
        "Ana hits Guard: 6 on 1d6 TL2 → armour 'Mirrorplate', /3, 2 boxes crossed"
    )


DON = {
    "cs": (
        "Wyrm si nasazuje na vrstvu „energetický štít“: Rune buckler",
        "vrstva „energetický štít“ byla volná: nově na ní Rune buckler, přeškrtnuto 0 z 7 "
        "políček, TL5 (TL-9)",
        "Wyrm si nasazuje na vrstvu „energetický štít“: předmět",
        "vrstva „energetický štít“ byla volná: nově na ní předmět, přeškrtnuto 0 z 7 políček "
        "(TL-9)",
    ),
    "de": (
        "Wyrm legt an: Rune buckler (Energieschild)",
        "Schicht „Energieschild“ war leer: dort jetzt Rune buckler, 0 von 7 Kästchen "
        "gestrichen, TL5 (TL-9)",
        "Wyrm legt an: ein Gegenstand (Energieschild)",
        "Schicht „Energieschild“ war leer: dort jetzt ein Gegenstand, 0 von 7 Kästchen "
        "gestrichen (TL-9)",
    ),
    "ru": (
        "Wyrm надевает: Rune buckler (энергощит)",
        "слой «энергощит» был свободен: теперь там Rune buckler, зачёркнуто 0 из 7 клеток, "
        "TL5 (TL-9)",
        "Wyrm надевает: предмет (энергощит)",
        "слой «энергощит» был свободен: теперь там предмет, зачёркнуто 0 из 7 клеток (TL-9)",
    ),
}


@pytest.mark.parametrize("locale", LOCALES)
def test_donning_a_carried_shield_reads_in_each_language(locale):
    """TL-9: an item goes on its empty layer; players of an NPC read "an item", no TL."""
    harness = table()
    harness.resolve("don", actor="wyrm", params={"name": "Rune buckler"})
    gm, players = harness.views(locale=locale)
    gm_narration, gm_step, player_narration, player_step = DON[locale]
    assert (gm["data"]["narration"], gm["data"]["steps"]) == (gm_narration, [gm_step])
    assert (players["data"]["narration"], players["data"]["steps"]) == (
        player_narration,
        [player_step],
    )


MENTAL = {
    "cs": "Ana zasahuje cíl Ana: 6 na 1d6 TL3 → mysl (GSK), ×3, 10 políček přeškrtnuto, "
    "přebytek 8 do KSK; Ana – stav: mimo boj",
    "de": "Ana trifft Ana: 6 auf 1d6 TL3 → Geist (GSK), ×3, 10 Kästchen gestrichen, "
    "8 Überschuss in die KSK; Ana ist kampfunfähig",
    "ru": "Ana попадает по цели Ana: 6 на 1d6 TL3 → разум (GSK), ×3, 10 клеток зачёркнуто, "
    "избыток 8 в KSK; Ana — состояние: вне боя",
}
MENTAL_CARRY = {
    "cs": "přebytek GSK 8 přechází do KSK jako smrtelné (TL-8): přeškrtnuto 8, šoku změněno "
    "na smrtelné 0, ztraceno 0",
    "de": "8 überzählige GSK als tödlich in die KSK übertragen (TL-8): 8 gestrichen, "
    "0 Schock zu tödlich, 0 verloren",
    "ru": "избыток GSK (8) переходит в KSK как смертельный урон (TL-8): зачёркнуто 8, "
    "шока стало смертельным 0, потеряно 0",
}
#: The common state after that hit: the mind's track and the conditions (TL-8).
MENTAL_COMMON = {
    "cs": ("Mysl (GSK)", ["V bezvědomí (mysl)", "Zranění 8"]),
    "de": ("Geist (GSK)", ["Bewusstlos (Geist)", "Verwundet 8"]),
    "ru": ("Разум (GSK)", ["Без сознания (разум)", "Ранения 8"]),
}


@pytest.mark.parametrize("locale", LOCALES)
def test_a_mental_hit_carries_its_excess_into_ksk_in_each_language(locale):
    """TL-8: 6 × 3 = 18 GSK boxes; 10 fill the GSK, the 8 beyond go into KSK as lethal."""
    harness = table()
    params = {"dice": "1d6", "tl": 3, "type": "mental"}
    harness.resolve("hit", actor="ana", targets=["ana"], params=params, dice=[6])
    gm, players = harness.views(locale=locale)
    assert gm["data"]["narration"] == players["data"]["narration"] == MENTAL[locale]
    assert gm["data"]["steps"][-1] == MENTAL_CARRY[locale]
    common = harness.actor("ana", gm=False, locale=locale)["common"]
    mind, conditions = MENTAL_COMMON[locale]
    assert [t["label"] for t in common["tracks"]][-1] == mind
    assert common["conditions"] == conditions


# -- 2. counted nouns by the CLDR plural rules ----------------------------------------

COUNTS = (0, 1, 2, 4, 5, 11, 21, 22, 25)
#: cs: 1 políčko, 2–4 políčka, else políček; ru: 1, 21 клетка, 2–4, 22 клетки, else клеток.
BOXES_CROSSED = {
    "cs": [
        "0 políček přeškrtnuto",
        "1 políčko přeškrtnuto",
        "2 políčka přeškrtnuta",
        "4 políčka přeškrtnuta",
        "5 políček přeškrtnuto",
        "11 políček přeškrtnuto",
        "21 políček přeškrtnuto",
        "22 políček přeškrtnuto",
        "25 políček přeškrtnuto",
    ],
    "ru": [
        "0 клеток зачёркнуто",
        "1 клетка зачёркнута",
        "2 клетки зачёркнуты",
        "4 клетки зачёркнуты",
        "5 клеток зачёркнуто",
        "11 клеток зачёркнуто",
        "21 клетка зачёркнута",
        "22 клетки зачёркнуты",
        "25 клеток зачёркнуто",
    ],
}
#: What a word takes after each count, per message and locale (the rest of the text fixed).
WORDS = {
    ("repair", "cs"): [
        "opraveno {} políček", "opraveno {} políčko", "opravena {} políčka", "opravena {} políčka",
        "opraveno {} políček", "opraveno {} políček", "opraveno {} políček",
        "opraveno {} políček", "opraveno {} políček",
    ],
    ("repair", "ru"): [
        "отремонтировано {} клеток", "отремонтирована {} клетка", "отремонтированы {} клетки",
        "отремонтированы {} клетки", "отремонтировано {} клеток", "отремонтировано {} клеток",
        "отремонтирована {} клетка", "отремонтированы {} клетки", "отремонтировано {} клеток",
    ],
    ("sections", "cs"): [
        "{} sekcí", "{} sekce", "{} sekce", "{} sekce", "{} sekcí", "{} sekcí", "{} sekcí",
        "{} sekcí", "{} sekcí",
    ],
    ("sections", "ru"): [
        "{} секций", "{} секция", "{} секции", "{} секции", "{} секций", "{} секций",
        "{} секция", "{} секции", "{} секций",
    ],
    ("dismount", "cs"): [
        "s {} přeškrtnutými políčky", "s {} přeškrtnutým políčkem",
        "s {} přeškrtnutými políčky", "s {} přeškrtnutými políčky",
        "s {} přeškrtnutými políčky", "s {} přeškrtnutými políčky",
        "s {} přeškrtnutými políčky", "s {} přeškrtnutými políčky",
        "s {} přeškrtnutými políčky",
    ],
    ("dismount", "ru"): [
        "с {} зачёркнутыми клетками", "с {} зачёркнутой клеткой", "с {} зачёркнутыми клетками",
        "с {} зачёркнутыми клетками", "с {} зачёркнутыми клетками",
        "с {} зачёркнутыми клетками", "с {} зачёркнутой клеткой",
        "с {} зачёркнутыми клетками", "с {} зачёркнутыми клетками",
    ],
}  # fmt: skip


@pytest.mark.parametrize("locale", ["cs", "ru"])
def test_boxes_crossed_decline_by_count(locale):
    """TL-4, TL-5: the boxes a hit crossed, at every kind of count."""
    said = [m.BOXES_CROSSED(count=n).render(locale) for n in COUNTS]
    assert said == BOXES_CROSSED[locale]


@pytest.mark.parametrize("locale", ["cs", "ru"])
def test_other_counted_nouns_decline_by_count(locale):
    """Repaired boxes, a vehicle's sections (TL-10), boxes crossed when dismounting."""
    for n, repair, sections, dismount in zip(
        COUNTS,
        WORDS["repair", locale],
        WORDS["sections", locale],
        WORDS["dismount", locale],
        strict=True,
    ):
        assert m.REPAIRED_STEP(item="X", count=n).render(locale) == f"X: {repair.format(n)}"
        mounted = m.MOUNTED(vehicle="V", sections=n, crossed=0, boxes=20, wearing="")
        assert f"V: {sections.format(n)}," in mounted.render(locale)
        left = m.LEAVES_THE_STACK(vehicle="V", crossed=n, destroyed="", kept=m.KEPT)
        assert dismount.format(n) in left.render(locale)


def test_german_and_english_have_two_forms():
    assert m.BOXES_CROSSED(count=1).render("de") == "1 Kästchen gestrichen"
    assert m.BOXES_CROSSED(count=21).render("de") == "21 Kästchen gestrichen"
    assert m.BOXES_CROSSED(count=1).render() == "1 box crossed"
    assert m.BOXES_CROSSED(count=21).render() == "21 boxes crossed"
    # English says "box" for one, as it reads
    assert m.REPAIRED(target="T", item="I", count=1).render() == "T's I: 1 box repaired"


# -- 3. redaction in every locale ------------------------------------------------------


def _players_see(harness: RulesetHarness, locale: str) -> str:
    _gm, players = harness.views(locale=locale)
    guard = harness.actor("guard", gm=False, locale=locale)
    return json.dumps([players, guard], ensure_ascii=False)


@pytest.mark.parametrize("locale", ("en", *LOCALES))
def test_players_never_read_the_npcs_details_in_any_locale(locale):
    harness = table()
    revolver_hit(harness)
    seen = _players_see(harness, locale)
    assert [secret for secret in SECRETS if secret in seen] == []
    gm, _players = harness.views(locale=locale)
    told = json.dumps(gm, ensure_ascii=False)
    assert "Mirrorplate" in told and "/3" in told and "TL4" in told


@pytest.mark.parametrize("locale", ("en", *LOCALES))
def test_the_reveal_setting_shows_them_in_every_locale(locale):
    harness = table(show_npc_details=True)
    revolver_hit(harness)
    seen = _players_see(harness, locale)
    for secret in ("Mirrorplate", "plasma", "/3", "TL4", '"tl": 4'):
        assert secret in seen, secret


# -- 4. refusals -----------------------------------------------------------------------

OCCUPIED = {
    "en": "cannot put on 'Rune buckler': the energy shield already holds 'Aegis'; items do "
    "not stack or replace each other, take it off first (TL-9)",
    "cs": "nelze nasadit předmět 'Rune buckler': na vrstvě „energetický štít“ už je 'Aegis'; "
    "předměty se nesčítají ani nenahrazují, nejdřív předmět sundejte (TL-9)",
    "de": "'Rune buckler' kann nicht angelegt werden: auf der Schicht „Energieschild“ ist "
    "bereits 'Aegis'; Gegenstände addieren sich nicht und ersetzen einander nicht, erst "
    "ablegen (TL-9)",
    "ru": "нельзя надеть предмет 'Rune buckler': на слое «энергощит» уже 'Aegis'; предметы не "
    "складываются и не заменяют друг друга, сначала снимите предмет (TL-9)",
}
NOT_MOUNTED = {
    "en": "Ana is not mounted",
    "cs": "Ana nesedí na vozidle ani na jízdním zvířeti",
    "de": "Ana sitzt auf keinem Fahrzeug oder Reittier",
    "ru": "Ana не в транспорте и не верхом",
}


def test_a_second_item_on_a_layer_is_refused_in_each_language():
    """TL-9 (acceptance example 4): no stacking, no swapping; the refusal is a text."""
    harness = table()
    aegis = {"name": "Aegis", "kind": "shield", "boxes": 10, "tl": 3}
    harness.resolve("don", actor="wyrm", params={"item": aegis})
    with pytest.raises(RuleViolation) as refused:
        harness.resolve("don", actor="wyrm", params={"name": "Rune buckler"})
    assert refused.value.code == "layer_occupied"
    assert refused.value.text is not None
    assert str(refused.value) == OCCUPIED["en"]
    for locale, said in OCCUPIED.items():
        assert refused.value.render(locale) == said
        assert refused.value.to_dict(locale)["message"] == said


def test_dismounting_on_foot_is_refused_in_each_language():
    harness = table()
    with pytest.raises(RuleViolation) as refused:
        harness.resolve("dismount", actor="ana", params={})
    assert refused.value.code == "not_mounted"
    for locale, said in NOT_MOUNTED.items():
        assert refused.value.render(locale) == said


#: Boarding a vehicle, a second mount refused, and mounting a horse, for the GM: German
#: wrote the name where an article must stand ("steigt in Jeep ein", "steigt auf
#: Warhorse", "sitzt bereits auf Jeep"); it names the kind, as Czech and Russian do.
RIDING = {
    "cs": (
        "Ana nastupuje do vozidla „Jeep“",
        "Wyrm nasedá na jízdní zvíře „Warhorse“",
        "Ana už sedí na vozidle nebo jízdním zvířeti: 'Jeep'; nejdřív sesedněte",
    ),
    "de": (
        "Ana steigt in das Fahrzeug „Jeep“ ein",
        "Wyrm steigt auf das Reittier „Warhorse“",
        "Ana sitzt bereits auf einem Fahrzeug oder Reittier: 'Jeep'; erst absteigen",
    ),
    "ru": (
        "Ana садится в транспорт «Jeep»",
        "Wyrm садится на ездовое животное «Warhorse»",
        "Ana уже верхом или в транспорте: 'Jeep'; сначала сойдите",
    ),
}


@pytest.mark.parametrize("locale", LOCALES)
def test_boarding_and_mounting_read_in_each_language(locale):
    boards, mounts, already = RIDING[locale]
    harness = table()
    jeep = {"name": "Jeep", "tl": 3, "sections": [{"name": "front"}]}
    harness.resolve("mount", actor="ana", params={"vehicle": jeep})
    assert harness.views(locale=locale)[0]["data"]["narration"] == boards
    with pytest.raises(RuleViolation) as refused:
        harness.resolve("mount", actor="ana", params={"vehicle": jeep})
    assert refused.value.code == "already_mounted"
    assert refused.value.render(locale) == already
    horse = {"name": "Warhorse", "kind": "mount", "tl": 1}
    harness.resolve("mount", actor="wyrm", params={"vehicle": horse})
    assert harness.views(locale=locale)[0]["data"]["narration"] == mounts


# -- 5. the catalogues -----------------------------------------------------------------


def test_the_catalogues_are_complete():
    assert catalogs.check(PLUGIN, "techlevel", list(LOCALES)) == []
