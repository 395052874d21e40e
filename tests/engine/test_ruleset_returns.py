"""What a ruleset returns is checked before it is used (audit finding 3): a resolve
or turn hook returning something other than a ``Resolution`` (None, a dict), or odds
that are not an ``Odds`` of exact fractions, is ``internal`` naming the ruleset and
what it returned (its type only) — it was a raw ``AttributeError`` ("'NoneType' object
has no attribute 'states'", "'float' object has no attribute 'numerator'"), a
traceback from ``rollbridge odds``."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rollbridge.cli import main
from rollbridge.engine import Principal
from rollbridge.exceptions import InternalError
from rollbridge.host import PluginHost
from rollbridge.odds import Odds

from ..conftest import Tally

GM = Principal("gm", "gm", "tok-gm")
HIT = {"type": "resolve", "id": "x", "action": "hit", "targets": ["guard"], "dice": [3]}


@pytest.mark.parametrize(
    ("returned", "name"), [(None, "NoneType"), ({"narration": "hit"}, "dict"), ("hit", "str")]
)
def test_resolve_returning_no_resolution_is_internal_naming_its_type(
    seated, monkeypatch, returned, name
):
    monkeypatch.setattr(Tally, "resolve", lambda self, context, dice: returned)
    with pytest.raises(InternalError) as raised:
        seated.handle("t", HIT, GM)
    assert str(raised.value) == f"ruleset 'tally' returned {name} from resolve, not Resolution"
    assert raised.value.code == "internal"


def test_a_turn_hook_returning_a_dict_is_internal_naming_the_hook(seated, monkeypatch):
    monkeypatch.setattr(Tally, "on_round_start", lambda self, context, dice: {"x": 1},
                        raising=False)  # fmt: skip
    with pytest.raises(InternalError) as raised:
        seated.handle("t", {"type": "encounter.start", "id": "e", "order": ["ana", "guard"]}, GM)
    assert str(raised.value) == (
        "ruleset 'tally' returned dict from on_round_start, not Resolution | None"
    )


FLOATS = Odds({"hit": 0.5, "miss": 0.5})  # type: ignore[dict-item]


@pytest.mark.parametrize(
    ("odds", "message"),
    [
        (FLOATS, "ruleset 'tally' gave the odds of 'hit' as float, not an exact Fraction"),
        (Odds({"hit": Fraction(1)}, truncated=0.0),  # type: ignore[arg-type]
         "ruleset 'tally' gave the odds of truncated as float, not an exact Fraction"),
        ({"hit": Fraction(1)}, "ruleset 'tally' returned dict from odds, not Odds | None"),
    ],
)  # fmt: skip
def test_odds_not_exact_are_internal_naming_the_problem(seated, monkeypatch, odds, message):
    monkeypatch.setattr(Tally, "odds", lambda self, context: odds)
    with pytest.raises(InternalError) as raised:
        seated.handle("t", {"type": "odds", "id": "o", "action": "hit", "targets": ["guard"]}, GM)
    assert str(raised.value) == message


CLI_CASES = {
    "odds": ("odds", lambda self, context: FLOATS,
             "ruleset 'bandits' gave the odds of 'hit' as float, not an exact Fraction"),
    "resolve": ("resolve", lambda self, context, dice: None,
                "ruleset 'bandits' returned NoneType from resolve, not Resolution"),
}  # fmt: skip


@pytest.mark.parametrize("command", sorted(CLI_CASES))
def test_the_cli_prints_one_error_line(capsys, monkeypatch, command):
    method, broken, message = CLI_CASES[command]
    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    monkeypatch.setattr(type(host.rulesets["bandits"]), method, broken)
    code = main([command, "bandits", "move", "--params", '{"stat": "cool"}', "--locale", "en"])
    out, err = capsys.readouterr()
    assert code == 1 and not out
    assert err == f"rollbridge: error: internal: {message}\n"


def test_the_odds_cli_tells_a_rulesets_exception_in_one_line(capsys, monkeypatch):
    """Offline, the author reads what the exception said (one line, no traceback)."""
    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})

    def broken(self, context):
        raise KeyError("odds exploded")

    monkeypatch.setattr(type(host.rulesets["bandits"]), "odds", broken)
    code = main(["odds", "bandits", "move", "--params", '{"stat": "cool"}', "--locale", "en"])
    out, err = capsys.readouterr()
    assert code == 1 and not out
    assert err.splitlines() == [
        "rollbridge: ruleset 'bandits' failed at table 'odds': KeyError: 'odds exploded'",
        "rollbridge: error: internal: ruleset 'bandits' failed",
    ]


def test_the_cli_prints_the_line_itself_whatever_logging_holds(capsys, monkeypatch):
    """The offline CLI shows a ruleset's failure as its own line; the record does not
    also go to handlers configured elsewhere (a stale one on a closed stream printed
    "--- Logging error ---" and a traceback into the command's output)."""
    import io
    import logging

    stream = io.StringIO()
    stale = logging.StreamHandler(stream)
    logging.getLogger().addHandler(stale)
    stream.close()
    try:
        test_the_odds_cli_tells_a_rulesets_exception_in_one_line(capsys, monkeypatch)
    finally:
        logging.getLogger().removeHandler(stale)
    assert not logging.getLogger("rollbridge.engine").handlers  # the CLI's is gone again
    assert logging.getLogger("rollbridge.engine").propagate
