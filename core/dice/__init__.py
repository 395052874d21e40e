"""The dice engine: sources, mechanics, records and the notation parser.

Rulesets import from here::

    from rollbridge.dice import DiceSource, roll_pool, count_successes
"""

from rollbridge.dice.evaluate import RollResult, prepare, roll_formula
from rollbridge.dice.mechanics import (
    best_of,
    count_successes,
    keep,
    reroll,
    roll_compounding,
    roll_die,
    roll_exploding,
    roll_pool,
)
from rollbridge.dice.notation import Formula, parse
from rollbridge.dice.records import DiceGroup, Die
from rollbridge.dice.sources import (
    MAX_RESULTS_PER_REQUEST,
    DiceSource,
    ScriptedDice,
    SecureDice,
    SeededDice,
)

__all__ = [
    "MAX_RESULTS_PER_REQUEST",
    "DiceGroup",
    "DiceSource",
    "Die",
    "Formula",
    "RollResult",
    "ScriptedDice",
    "SecureDice",
    "SeededDice",
    "best_of",
    "count_successes",
    "keep",
    "parse",
    "prepare",
    "reroll",
    "roll_compounding",
    "roll_die",
    "roll_exploding",
    "roll_formula",
    "roll_pool",
]
