"""The techlevel odds hook: exact against icepool, and against the real resolver.

icepool builds each damage roll independently of rollbridge (TL-1: a total below
0 counts as 0), and the test's own reading of the rules turns it into boxes
(TL-4's table, TL-6 immunity) and into what the layer struck takes (TL-3, TL-5
excess lost, TL-7 shock and lethal KSK, TL-8 GSK and its carry into KSK, TL-10
sections). An exploding die (``1d6x``) matches rollbridge at depth 10 as icepool's
``explode(depth=11)`` on every total below 11 × faces; the rest is ``truncated``
(docs/dice.md, "Exact odds"). A seeded chi-square check then resolves a hit
20,000 times and compares where the results land with the computed odds.
"""

from __future__ import annotations

import copy
import math
from fractions import Fraction
from typing import Any

import pytest

from rollbridge import ActionContext, Actor
from rollbridge.dice import SeededDice
from rollbridge.exceptions import InvalidParams, NotationError, UnknownAction
from rollbridge.odds import Odds
from rollbridge.schema import validate

from .conftest import armour, shield

icepool = pytest.importorskip("icepool")

DEPTH = 10  # rollbridge's default explosion depth
CUT = 10**6  # a total that stands for "cut off by the depth"
SEED = 31
ROLLS = 20_000


def roll_die(expression: str):
    """The icepool law of a weapon's roll: ``NdF`` (``x``: exploding) ``±c``."""
    rest, constant = expression, 0
    for sign in "+-":
        if sign in rest:
            rest, tail = rest.split(sign)
            constant = int(tail) * (1 if sign == "+" else -1)
    count, faces_text = rest.split("d")
    explode = faces_text.endswith("x")
    faces = int(faces_text.rstrip("x"))
    one = icepool.d(faces)
    if explode:
        limit = (DEPTH + 1) * faces
        one = one.explode(depth=DEPTH + 1).map(lambda t: t if t < limit else CUT)
    total = one
    for _ in range(int(count or 1) - 1):
        total = total + one
    return total.map(lambda t: CUT if t >= CUT else max(0, t + constant))  # TL-1


def tl_boxes(roll: int, weapon: int, layer: int) -> int:
    """TL-4, read from the rules' table."""
    return roll * (weapon - layer + 1) if weapon >= layer else roll // (layer - weapon + 1)


def expected_odds(expression: str, taken) -> tuple[dict[str, Fraction], Fraction]:
    """(outcomes, truncated): each roll's outcome by ``taken(roll)``."""
    law = roll_die(expression)
    outcomes: dict[str, Fraction] = {}
    truncated = Fraction(0)
    for roll, weight in law.items():
        p = Fraction(weight, law.denominator())
        if roll == CUT:
            truncated += p
            continue
        name = taken(roll)
        outcomes[name] = outcomes.get(name, Fraction(0)) + p
    return outcomes, truncated


def object_taken(layer: str, free: int):
    """TL-5: an item or vehicle section takes its free boxes at most."""
    return lambda boxes: f"{layer} {min(boxes, free)}"


def body_taken(lethal: int, shock: int, shock_damage: bool):
    """TL-7: shock crosses free KSK only; lethal crosses free then turns shock lethal."""

    def taken(boxes: int) -> str:
        free = 10 - lethal - shock
        crossed = min(boxes, free)
        converted = 0 if shock_damage else min(boxes - crossed, shock)
        return f"body {crossed}" + (f"+{converted} lethal" if converted else "")

    return taken


def mind_taken(gsk: int, lethal: int, shock: int, carry: bool):
    """TL-8: GSK at TL 1; the excess carries into KSK as lethal (or is lost)."""
    into_body = body_taken(lethal, shock, False)

    def taken(boxes: int) -> str:
        crossed = min(boxes, 10 - gsk)
        excess = boxes - crossed
        body = into_body(excess) if carry and excess else "body 0"
        return f"mind {crossed}" + ("" if body == "body 0" else f", {body}")

    return taken


def hit_context(tl, target: Actor, params: dict[str, Any], **settings: Any) -> ActionContext:
    checked = validate(tl.rs.actions["hit"].params, params)
    return ActionContext("hit", checked, None, (target,), tl.settings(**settings))


def hit_odds(tl, target: Actor, params: dict[str, Any], **settings: Any) -> Odds:
    odds = tl.rs.odds(hit_context(tl, target, params, **settings))
    assert isinstance(odds, Odds)
    return odds


def with_state(tl, target: Actor, **changes: Any) -> Actor:
    """``target`` with parts of its state changed (``armour_crossed=3``, ``ksk=…``)."""
    state = copy.deepcopy(dict(target.state))
    for key, value in changes.items():
        if key.endswith("_crossed"):
            state[key[: -len("_crossed")]]["crossed"] = value
        else:
            state[key] = value
    return Actor(target.id, target.name, target.sheet, tl.rs.validate_state(target.sheet, state))


EXPRESSIONS = ["1d6", "2d6", "1d4-2", "1d6+1", "3d4", "1d6x"]


@pytest.mark.parametrize("expression", EXPRESSIONS)
@pytest.mark.parametrize("weapon", [1, 2, 3, 5])
@pytest.mark.parametrize(("layer_tl", "boxes", "crossed"), [(1, 10, 0), (2, 20, 7), (5, 20, 19)])
def test_armour_odds_equal_icepool(tl, expression, weapon, layer_tl, boxes, crossed):
    # TL-3: the armour is the outermost layer; TL-4, TL-5 on its free boxes
    target = with_state(
        tl, tl.actor(worn=[armour(boxes=boxes, tl=layer_tl)]), armour_crossed=crossed
    )
    odds = hit_odds(tl, target, {"dice": expression, "tl": weapon})
    free = boxes - crossed
    outcomes, truncated = expected_odds(
        expression, lambda r: object_taken("armour", free)(tl_boxes(r, weapon, layer_tl))
    )
    assert odds.outcomes == outcomes
    assert odds.truncated == truncated
    assert sum(odds.outcomes.values()) + odds.truncated == 1


@pytest.mark.parametrize("expression", EXPRESSIONS)
@pytest.mark.parametrize("weapon", [1, 3, 5])
@pytest.mark.parametrize("body_tl", [1, 3])
@pytest.mark.parametrize(("lethal", "shock"), [(0, 0), (2, 3), (6, 4)])
@pytest.mark.parametrize("damage_type", ["kinetic", "shock"])
def test_body_odds_equal_icepool(tl, expression, weapon, body_tl, lethal, shock, damage_type):
    # TL-2: no armour, the body's 10 KSK at its TL; TL-7 shock and lethal
    target = with_state(tl, tl.actor(body_tl=body_tl), ksk={"lethal": lethal, "shock": shock})
    params = {"dice": expression, "tl": weapon, "type": damage_type}
    odds = hit_odds(tl, target, params)
    taken = body_taken(lethal, shock, damage_type == "shock")
    outcomes, truncated = expected_odds(expression, lambda r: taken(tl_boxes(r, weapon, body_tl)))
    assert odds.outcomes == outcomes and odds.truncated == truncated


@pytest.mark.parametrize("expression", ["1d6", "2d6", "3d4", "1d6x"])
@pytest.mark.parametrize("weapon", [1, 2, 4])
@pytest.mark.parametrize("gsk", [0, 6])
@pytest.mark.parametrize("carry", [True, False])
def test_mental_odds_equal_icepool(tl, make_armour, expression, weapon, gsk, carry):
    # TL-8: mental damage skips the armour and strikes GSK at TL 1
    target = with_state(
        tl, tl.actor(worn=[make_armour(tl=5)]), gsk=gsk, ksk={"lethal": 1, "shock": 2}
    )
    params = {"dice": expression, "tl": weapon, "type": "mental"}
    odds = hit_odds(tl, target, params, mental_excess_to_body=carry)
    taken = mind_taken(gsk, 1, 2, carry)
    outcomes, truncated = expected_odds(expression, lambda r: taken(tl_boxes(r, weapon, 1)))
    assert odds.outcomes == outcomes and odds.truncated == truncated


def rider(tl, sections=({"name": "front"}, {"name": "rear"})):
    return tl.actor(
        worn=[armour(tl=1)],
        vehicles=[{"name": "Tank", "tl": 3, "sections": list(sections)}],
        mounted="Tank",
    )


@pytest.mark.parametrize("expression", ["1d6", "2d6", "1d6x"])
@pytest.mark.parametrize("weapon", [2, 5])
@pytest.mark.parametrize(
    ("section", "front_crossed", "free"),
    [(None, 0, 20), (None, 20, 20), ("front", 15, 5), ("rear", 15, 20), ("front", 20, 0)],
)
def test_vehicle_odds_equal_icepool(tl, expression, weapon, section, front_crossed, free):
    # TL-10: the named section, or the first intact one; excess lost in that section;
    # a named section already destroyed takes nothing (the odds failed on it)
    target = rider(tl)
    state = copy.deepcopy(dict(target.state))
    state["vehicle"]["sections"][0]["crossed"] = front_crossed
    target = Actor("t", "T", target.sheet, tl.rs.validate_state(target.sheet, state))
    params = {"dice": expression, "tl": weapon, "section": section}
    odds = hit_odds(tl, target, params)
    outcomes, truncated = expected_odds(
        expression, lambda r: object_taken("vehicle", free)(tl_boxes(r, weapon, 3))
    )
    assert odds.outcomes == outcomes and odds.truncated == truncated


def test_outer_layers_first_and_immunity(tl):
    # TL-3: the energy shield before the armour; TL-6: immune to fire → 0 boxes
    target = tl.actor(worn=[shield(boxes=12, tl=2, immune=["fire"]), armour(tl=1)])
    odds = hit_odds(tl, target, {"dice": "2d6", "tl": 3, "type": "fire"})
    assert odds.outcomes == {"shield 0": 1}
    kinetic = hit_odds(tl, target, {"dice": "2d6", "tl": 3})
    outcomes, _ = expected_odds("2d6", lambda r: object_taken("shield", 12)(tl_boxes(r, 3, 2)))
    assert kinetic.outcomes == outcomes


def test_acceptance_example_revolver_on_power_armour(tl):
    # TL-4, example 1: 1d6 TL2 on TL5 armour: /4, so 4-6 cross 1 box, 1-3 none
    target = tl.actor(worn=[armour("Power armour", boxes=20, tl=5)])
    odds = hit_odds(tl, target, {"dice": "1d6", "tl": 2})
    assert odds.outcomes == {"armour 0": Fraction(1, 2), "armour 1": Fraction(1, 2)}
    assert odds.label("armour 1") == "Armour: 1 box"


def test_a_given_roll_is_one_certain_outcome(tl):
    # TL-1: a total rolled at the table draws no dice: its odds are certain
    target = tl.actor(worn=[armour(tl=1)])
    odds = hit_odds(tl, target, {"dice": "1d6", "tl": 4, "roll": 3})
    assert odds.outcomes == {"armour 10": 1} and odds.totals is None
    assert odds.label("armour 10") == "Armour: 10 boxes, destroyed"


def test_labels_read_in_each_language(tl):
    target = with_state(tl, tl.actor(), ksk={"lethal": 0, "shock": 8})
    odds = hit_odds(tl, target, {"dice": "2d6", "tl": 1})
    assert odds.label("body 2+3 lethal") == "Body (KSK): 2 boxes, and 3 shock boxes made lethal"
    mental = hit_odds(tl, tl.actor(), {"dice": "2d6", "tl": 2, "type": "mental"})
    assert mental.label("mind 10, body 4") == "Mind (GSK): 10 boxes; Body (KSK): 4 boxes"
    on_tank = hit_odds(tl, rider(tl), {"dice": "1d6", "tl": 5, "roll": 20})
    assert on_tank.label("vehicle 20") == "Vehicle, section front: 20 boxes, destroyed"
    for locale in ("cs", "de", "ru"):
        for result in (odds, mental, on_tank):
            for name in result.outcomes:
                label = result.label(name, locale)
                assert label != result.label(name, "en")
                for word in ("box", "lethal", "destroyed", "section", "Body", "Mind"):
                    assert word not in label, (locale, label)


def test_odds_refuse_as_the_resolver_does(tl):
    target = tl.actor()
    for params, error in [
        ({"dice": "2d", "tl": 1}, NotationError),
        ({"dice": "1d6", "tl": 1, "section": "front"}, InvalidParams),
    ]:
        ctx = hit_context(tl, target, params)
        with pytest.raises(error) as asked:
            tl.rs.odds(ctx)
        with pytest.raises(error) as resolved:
            tl.rs.resolve(ctx, SeededDice(1))
        assert asked.value.code == resolved.value.code
        assert asked.value.details == resolved.value.details
    on_tank = rider(tl)
    ctx = hit_context(tl, on_tank, {"dice": "1d6", "tl": 1, "section": "turret"})
    with pytest.raises(InvalidParams) as asked:
        tl.rs.odds(ctx)
    with pytest.raises(InvalidParams) as resolved:
        tl.rs.resolve(ctx, SeededDice(1))
    assert asked.value.code == resolved.value.code
    with pytest.raises(UnknownAction):
        tl.rs.odds(ActionContext("fly", {}, None, (target,), tl.settings()))


def test_actions_without_dice_have_no_odds(tl):
    actor = tl.actor(carried=[armour()])
    ctx = ActionContext("don", {"name": "Armour", "on": "self", "item": None}, actor, (), {})
    assert tl.rs.odds(ctx) is None


def test_odds_change_nothing_and_draw_no_dice(tl, monkeypatch):
    from rollbridge.dice import DiceSource

    def no_dice(*args, **kwargs):
        raise AssertionError("odds drew a die")

    monkeypatch.setattr(DiceSource, "roll", no_dice)
    target = rider(tl)
    before = copy.deepcopy(target)
    hit_odds(tl, target, {"dice": "2d6x", "tl": 4})
    hit_odds(tl, target, {"dice": "2d6", "tl": 4, "type": "mental"})
    assert target == before


# -- the real resolver lands where the odds say --------------------------------


def _critical_001(dof: int) -> float:
    """The chi-square 0.999 quantile (Wilson–Hilferty; well under 1% off here)."""
    z = 3.090232306167813
    return dof * (1 - 2 / (9 * dof) + z * math.sqrt(2 / (9 * dof))) ** 3


def resolved_name(outcome: dict[str, Any]) -> str:
    """The outcome name of a resolution, read from its outcome (GM's view)."""
    layer, crossed = outcome["layer"], outcome["crossed"]
    if layer == "mind":
        body = outcome["mind"]["body"]
        if not body or not (body["crossed"] or body["converted"]):
            return f"mind {crossed}"
        extra = f"+{body['converted']} lethal" if body["converted"] else ""
        return f"mind {crossed}, body {body['crossed']}{extra}"
    if layer == "body" and outcome["converted"]:
        return f"body {crossed}+{outcome['converted']} lethal"
    return f"{layer} {crossed}"


@pytest.mark.parametrize(
    ("params", "target_of"),
    [
        ({"dice": "2d6", "tl": 3}, lambda tl: tl.actor(worn=[armour(boxes=20, tl=2)])),
        ({"dice": "1d6+1", "tl": 2, "type": "mental"}, lambda tl: tl.actor()),
    ],
)
def test_seeded_hits_match_the_odds(tl, params, target_of):
    target = target_of(tl)
    ctx = hit_context(tl, target, params)
    odds = tl.rs.odds(ctx)
    assert isinstance(odds, Odds)
    # merge outcomes under 5 expected rolls into their neighbour below
    names = list(odds.outcomes)
    band: dict[str, str] = {}
    current = names[0]
    mass = Fraction(0)
    for name in names:
        if mass * ROLLS >= 5:
            current, mass = name, Fraction(0)
        band[name] = current
        mass += odds.outcomes[name]
    bands = sorted(set(band.values()), key=names.index)
    probability = dict.fromkeys(bands, Fraction(0))
    for name, p in odds.outcomes.items():
        probability[band[name]] += p
    source = SeededDice(SEED, limit=10**9)
    observed = dict.fromkeys(bands, 0)
    for _ in range(ROLLS):
        outcome = tl.rs.resolve(ctx, source).outcome
        observed[band[resolved_name(outcome)]] += 1
    expected = [float(probability[n]) * ROLLS for n in bands]
    assert min(expected) >= 5 and len(bands) >= 3
    statistic = sum((observed[n] - e) ** 2 / e for n, e in zip(bands, expected, strict=True))
    dof = len(bands) - 1
    try:
        from scipy.stats import chi2
    except ImportError:
        assert statistic < _critical_001(dof)
    else:
        assert chi2.sf(statistic, dof) > 0.001
