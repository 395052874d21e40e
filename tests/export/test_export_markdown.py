"""The session log as a Markdown report: every die with its explosions, the
narration, the steps, the state changes, undo and redo, approvals; in the reader's
language; no markup or HTML from a name; written a piece at a time."""

from __future__ import annotations

import json
import re
import types
from datetime import UTC, datetime

from rollbridge.dice.sources import SeededDice
from rollbridge.export import export_chunks, read_log
from rollbridge.export.dicetext import dice_text, die_text
from rollbridge.export.markdown import KINDS, SEEN_AS, UNDOES, render_event
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore

from .conftest import GM, NIGHT_START, NIGHT_TICK, PLAYER


def report(night, audience: str, locale: str = "en") -> str:
    with night.store() as store:
        log = read_log(store, "sr2", night.host.rulesets)
    return "".join(export_chunks(log, "markdown", audience, locale))


def gm_view(night, seq: int) -> dict:
    with night.store() as store:
        log = read_log(store, "sr2", night.host.rulesets)
    return next(json.loads(f) for f in log.frames("gm") if json.loads(f)["seq"] == seq)


def test_die_and_dice_text():
    assert die_text({"faces": 6, "rolls": [6, 6, 3], "value": 15, "tags": ["compounded"]}) == (
        "6!→6!→3 (15)"
    )
    assert die_text({"faces": 6, "rolls": [1], "value": 1, "kept": False}) == "~~1~~"
    assert die_text({"faces": 6, "rolls": [5], "value": 5, "tags": ["success"]}) == "**5**"
    dice = [  # 6 and 5 exploded (x>4): 6 added a 5 that exploded again into 2; 5 added 1
        {"faces": 6, "rolls": [6], "value": 6, "tags": ["exploded"]},
        {"faces": 6, "rolls": [3], "value": 3},
        {"faces": 6, "rolls": [5], "value": 5, "tags": ["exploded"]},
        {"faces": 6, "rolls": [5], "value": 5, "tags": ["explosion", "exploded"]},
        {"faces": 6, "rolls": [1], "value": 1, "tags": ["explosion"]},
        {"faces": 6, "rolls": [2], "value": 2, "tags": ["explosion"]},
    ]
    assert dice_text(dice) == "[6!→5!→2, 3, 5!→1]"


def test_the_roll_shows_every_die_and_its_explosions(night):
    text = report(night, "player")
    # supplied dice 6, 4, 2, 6, 1 for 3d6x+2: the first 6 exploded into 6, then into 1
    assert "- Roll (boom): 3d6x [6!→6!→1, 4, 2] + 2 = 21" in text
    assert "- with dice supplied by the requester" in text


def test_the_resolution_has_its_narration_dice_and_steps(night):
    attack = gm_view(night, night.seqs["attack"])
    text = report(night, "gm")
    section = text.split(f"## #{attack['seq']} · resolution · player")[1].split("\n## ")[0]
    data = attack["data"]
    assert f"- Narration: {data['narration']}" in section
    assert "- Tukan: Attack against Guard A" in section  # the ruleset's word for it
    for number, step in enumerate(data["steps"], 1):
        assert f"  {number}. {step}" in section
    for group in data["dice"]:
        assert f"- Dice: {group['label']}" in section
        assert dice_text(group["dice"]) in section
    guard = next(a for a in attack["actors"] if a["id"] == "guard-a")
    physical = next(t for t in guard["common"]["tracks"] if t["key"] == "physical")
    assert f"Physical {physical['value']}/{physical['max']}" in section


def test_an_action_is_named_in_the_reports_language(night):
    """An action is named by the ruleset's word for it in the report's language, not
    by its id ("Tukan: attack proti Guard A" in a Czech report, found playing)."""
    words = {"cs": "Útok proti", "de": "Angriff gegen", "ru": "Атака против"}
    for locale, word in words.items():
        for audience in ("gm", "player"):
            text = report(night, audience, locale)
            assert f"- Tukan: {word} Guard A" in text, (locale, audience)


def at(seq: int) -> str:
    """When the night's clock says event ``seq`` was executed, as the report shows it
    (one reading per event, in seq order)."""
    moment = datetime.fromtimestamp(NIGHT_START + NIGHT_TICK * (seq - 1), UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def test_undo_and_redo_and_the_secret_as_such(night):
    gm, player = report(night, "gm"), report(night, "player")
    adjust, undo, redo = (night.seqs[k] for k in ("adjust", "undo", "redo"))
    for text in (gm, player):
        assert f"## #{undo} · undo · gm · {at(undo)}\n\n- Undoes #{adjust} (adjusted)" in text
        assert f"## #{redo} · redo · gm · {at(redo)}\n\n- Redoes #{adjust} (adjusted)" in text
    secret = night.seqs["secret"]
    assert (
        f"## #{secret} · roll · gm · GM only · {at(secret)}\n\n- Roll (ambush check): 17d6 [" in gm
    )
    assert f"## #{secret} · hidden\n\n- *(a GM-only event)*" in player
    assert "ambush" not in player and "48611" not in player
    assert "- Guard A: physical +4" in gm and "physical +4" not in player
    assert "Seen as: the GM" in gm and "Seen as: a player" in player


def test_approvals_as_such(tmp_path):
    from rollbridge.host import PluginHost

    host = PluginHost()
    with SQLiteStore(tmp_path / "a.db") as store:
        service = TableService(store, host, dice=lambda: SeededDice(1))
        service.create_table("Approvals", "sr2", table_id="ap")
        service.handle("ap", {"type": "settings", "id": "s", "settings": {"approval": True}}, GM)
        first = service.handle("ap", {"type": "roll", "id": "r1", "formula": "2d6"}, PLAYER)
        service.handle("ap", {"type": "approve", "id": "ok", "request": first["pending"]}, GM)
        second = service.handle("ap", {"type": "roll", "id": "r2", "formula": "3d6"}, PLAYER)
        service.handle("ap", {"type": "reject", "id": "no", "request": second["pending"],
                              "reason": "not now"}, GM)  # fmt: skip
        log = read_log(store, "ap", host.rulesets)
    gm = "".join(export_chunks(log, "markdown", "gm"))
    player = "".join(export_chunks(log, "markdown", "player"))
    p1, p2 = first["pending"], second["pending"]
    assert f"- player asks for approval of roll 2d6 (request {p1})" in gm
    assert f"approved by gm (request {p1})" in gm and f"approved by gm (request {p1})" in player
    assert f"- Rejected: roll of player (request {p2})\n- Reason: not now" in player
    assert "asks for approval" not in player  # the request itself is the GM's


def test_names_and_texts_are_never_markup(tmp_path):
    from rollbridge.host import PluginHost

    host = PluginHost()
    evil = "<img src=x onerror=alert(1)> *loud* [x](javascript:alert(1))"
    with SQLiteStore(tmp_path / "x.db") as store:
        service = TableService(store, host)
        service.create_table("<b>night</b>", "sr2", table_id="x")
        sheet = dict(host.rulesets["sr2"].example_sheets["Tukan"])
        actor = {"id": "evil", "name": evil, "sheet": sheet, "controllers": ["player"]}
        service.handle("x", {"type": "actor.create", "id": "c", "actor": actor}, GM)
        service.handle("x", {"type": "roll", "id": "r", "formula": "1d6", "label": evil}, GM)
        log = read_log(store, "x", host.rulesets)
    text = "".join(export_chunks(log, "markdown", "player"))
    assert "<img" not in text and "<b>" not in text
    assert not re.search(r"(?<!\\)\]\(", text)  # no link: every "](" is escaped
    assert "&lt;img src=x onerror=alert(1)> \\*loud\\* [x\\](javascript:alert(1))" in text
    assert "# Session log: &lt;b>night&lt;/b>" in text


def test_the_report_speaks_the_readers_language(night):
    text = report(night, "gm", "de")
    roll, undo = KINDS["roll"]().render("de"), UNDOES(seq=night.seqs["adjust"], kind=KINDS[
        "adjusted"]().render("de")).render("de")  # fmt: skip
    assert roll != "roll"  # the catalogue has it in German
    assert f"· {roll} ·" in text
    assert undo in text
    assert SEEN_AS(audience="x").render("de").split("x")[0] in text


def test_the_report_is_written_a_piece_at_a_time(night):
    with night.store() as store:
        log = read_log(store, "sr2", night.host.rulesets)
    pieces = export_chunks(log, "markdown", "gm")
    assert isinstance(pieces, types.GeneratorType)
    chunks = list(pieces)
    assert len(chunks) == 1 + len(log.events)  # the head, then one per event
    assert chunks[0].startswith("# Session log: Friday night\n")
    assert all(c.startswith(f"\n## #{e.seq} ") for c, e in zip(chunks[1:], log.events, strict=True))


def test_a_new_turn_order_shows_the_order_and_whose_turn_it_stays():
    event = {"seq": 9, "kind": "encounter.reordered",
             "data": {"order": ["b", "a"], "round": 2, "turn": 1, "actor": "a"}}  # fmt: skip
    text = render_event(event, {"a": "Ana", "b": "Bo"}, "de")
    assert "## #9 · Zugreihenfolge geändert" in text
    assert "Bo, Ana" in text and "Ana" in text.splitlines()[-1]


def test_an_approval_asked_for_names_its_action_by_the_rulesets_word():
    fields = {"action": "attack", "actor": "a"}
    request = {"type": "resolve", "who": {"name": "bob"}, "fields": fields}
    event = {"seq": 4, "kind": "approval.requested", "data": {"pending": "p1", "request": request}}
    text = render_event(event, {"a": "Ana"}, "de", {"attack": "Angriff"})
    assert "bob bittet um Freigabe von resolve Angriff (Ana) (Anfrage p1)" in text
    assert "resolve attack" in render_event(event, {"a": "Ana"}, "de")  # no words: the id


def test_an_action_nobody_took_names_no_one_with_a_dash():
    """A success test with no actor (or a GM's trap on a target) read "— : Success test"
    in every language, a dash where a name stands; it reads as the other lines do."""
    alone = {"seq": 2, "kind": "resolution", "data": {"action": "success_test"}}
    aimed = {"seq": 3, "kind": "resolution", "data": {"action": "trap", "targets": ["a"]}}
    said = {
        "en": ("- Action: Success test", "- Action: trap against Ana"),
        "cs": ("- Akce: Hod na úspěch", "- Akce: trap proti Ana"),
        "de": ("- Aktion: Erfolgsprobe", "- Aktion: trap gegen Ana"),
        "ru": ("- Действие: Проверка успеха", "- Действие: trap против Ana"),
    }
    words = {"en": "Success test", "cs": "Hod na úspěch", "de": "Erfolgsprobe",
             "ru": "Проверка успеха"}  # fmt: skip
    for locale, (first, second) in said.items():
        text = render_event(alone, {}, locale, {"success_test": words[locale]})
        assert first in text.splitlines() and "—" not in text, text
        assert second in render_event(aimed, {"a": "Ana"}, locale).splitlines()
