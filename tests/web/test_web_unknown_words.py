"""Words the page had none for, in the log of a player's phone in cs, de, ru and en,
in real Chromium against a real server over a real SQLite file
(browser/unknown_words.mjs):

- a ruleset's own die tag (:data:`INVENTED`, a tag no ruleset of rollbridge's uses)
  was read to a screen reader, and shown on hover, as its code alone (*7, glimmer,
  success*); it is now *marked glimmer* in the page's language;
- an actor the page never saw — removed before the page joined, its creation
  further back than the log the page loads from before it joined — was named by its
  id (*Lookout — scout — 2d6 …*, the removal's line *scout*); it is now *an actor* in
  the page's language.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from rollbridge.dice.sources import SeededDice
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.plugins.rollunder import RollUnder
from tests.web.conftest import GM, SEED, add_cast, host_of, serving
from tests.web.test_web_away import said
from tests.web.test_web_browser import CHROMIUM, pytestmark  # noqa: F401
from tests.web.test_web_phone import run_case

#: The die tag no page has words for.
INVENTED = "glimmer"
#: Events between the removed actor's creation and its last events: more than the
#: latest 200 the page loads from before it joined (webui/history.mjs, HISTORY_EVENTS).
FILLER = 200


class Marked(RollUnder):
    """RollUnder, its die tagged :data:`INVENTED` and ``success``: a ruleset with a die
    tag of its own."""

    id = "marked"
    name = "Marked dice (test fixture)"

    def resolve(self, context, dice):
        resolution = super().resolve(context, dice)
        group = resolution.dice[0]
        die = group.dice[0].tagged(INVENTED, "success")
        return replace(resolution, dice=[replace(group, dice=(die,))])


def seed_marks(path: Path, rook_last: bool = False) -> tuple[dict[str, str], dict[str, int]]:
    """The table ``marks`` of :class:`Marked` at ``path``: the player's Hero, the NPCs
    Bandit, Scout and Rook; :data:`FILLER` rolls of the GM's, then Rook's roll, Rook's
    state updated (the event carries its view, its name), Rook renamed *Rook the Bold*
    and removed, Scout's
    roll, Scout removed, and Hero's action against Bandit (``rook_last``: Rook's steps
    alone, its roll the table's last). Its tokens, and the seqs of the steps after the
    filler."""
    host = host_of("marked", Marked())
    seqs: dict[str, int] = {}
    with SQLiteStore(path) as store:
        service = TableService(store, host)
        _, tokens = service.create_table("Marked dice", "marked", table_id="marks")
        cast = [("hero", "Hero", "Hero", ["player"]), ("bandit", "Bandit", "Bandit", []),
                ("scout", "Scout", "Bandit", []), ("rook", "Rook", "Bandit", [])]  # fmt: skip
        add_cast(service, "marks", cast, Marked.example_sheets)
        for index in range(FILLER):
            roll = {"type": "roll", "id": f"fill-{index}", "formula": "1d6"}
            service.handle("marks", roll, GM, SeededDice(index))
        steps = {
            "rook_rolled": {"type": "roll", "id": "rook-roll", "formula": "2d6", "actor": "rook",
                            "label": "Sneak"},
            "rook_updated": {"type": "actor.update", "id": "rook-hurt", "actor": "rook",
                             "state": {"wounds": 1}},
            "rook_renamed": {"type": "actor.update", "id": "rook-named", "actor": "rook",
                             "name": "Rook the Bold"},
            "rook_removed": {"type": "actor.remove", "id": "rook-gone", "actor": "rook"},
            "rolled": {"type": "roll", "id": "scout-roll", "formula": "2d6", "actor": "scout",
                       "label": "Lookout"},
            "removed": {"type": "actor.remove", "id": "scout-gone", "actor": "scout"},
            "acted": {"type": "resolve", "id": "hero-acts", "action": "test", "actor": "hero",
                      "targets": ["bandit"]},
        }  # fmt: skip
        if rook_last:
            steps = {name: step for name, step in steps.items() if name.startswith("rook_")}
        for name, request in steps.items():
            seqs[name] = service.handle("marks", request, GM, SeededDice(SEED))["seq"]
    return tokens, seqs


async def _words_walked(tmp_path) -> dict:
    """What unknown_words.mjs read of the marked table's page, in each language."""
    path = tmp_path / "web.db"
    tokens, seqs = seed_marks(path)
    async with serving(path, host_of("marked", Marked()), {"marks": tokens}) as world:
        extra = {"RB_SEQS": json.dumps(seqs)}
        return await run_case(world, "words", script="unknown_words.mjs", extra=extra)


async def test_an_invented_die_tag_and_an_unseen_actor_are_said_in_words(tmp_path):
    result = await _words_walked(tmp_path)
    for lang in ("cs", "de", "ru", "en"):
        shown = result[lang]
        (die,) = shown["dice"]
        tags = f"{said(lang, 'Dice.Marked', code=INVENTED)}, {said(lang, 'Dice.Tag.success')}"
        assert shown["said"] == [said(lang, "Dice.Said", die=die, tags=tags)], (lang, shown)
        assert shown["title"] == said(lang, "Dice.Said", die="d10", tags=tags), (lang, shown)
        someone = said(lang, "Actor.Unknown")
        assert shown["removed"] == someone, (lang, shown)
        assert shown["rolled"].startswith(f"Lookout — {someone} — 2d6"), (lang, shown)
        # the actor's id nowhere in what the page shows
        assert "scout" not in shown["text"].lower(), (lang, shown)


async def test_an_actor_named_further_on_in_the_log_from_before_is_named_in_its_earlier_lines(
    tmp_path,
):
    """Rook, created further back than the log a player's page loads from before it
    joined, rolls, has its state updated and is removed in it: the update's event carries
    Rook's view, its name, one line below its roll — and the roll's line read *an
    actor* (its lines were rendered each as it was noted). The page notes the names of
    all of the log from before first, the latest first: the roll's line names Rook, in
    each language — as it was named then (the update's *Rook*, not the later rename's
    *Rook the Bold*); Scout, named nowhere in it, is still *an actor*."""
    result = await _words_walked(tmp_path)
    for lang in ("cs", "de", "ru", "en"):
        summaries = result[lang]["summaries"]
        assert summaries["rook_rolled"].startswith("Sneak — Rook — 2d6"), (lang, summaries)
        assert summaries["rook_updated"] == "Rook", (lang, summaries)
        # the name it had then: the nearest view after the roll, not the last one
        assert summaries["rook_renamed"] == "Rook the Bold", (lang, summaries)
        assert summaries["rook_removed"] == "Rook the Bold", (lang, summaries)
        assert summaries["removed"] == said(lang, "Actor.Unknown"), (lang, summaries)


async def test_the_overlay_names_the_actor_of_the_latest_roll_a_later_event_names(tmp_path):
    """The overlay opened after Rook rolled, had its state updated and was removed
    (Rook's creation further back than the log it loads): the latest roll, Rook's, was
    shown as *an actor*'s (the overlay noted no name of its log from before; the
    update's event carries Rook's). It is Rook's."""
    path = tmp_path / "web.db"
    tokens, seqs = seed_marks(path, rook_last=True)
    async with serving(path, host_of("marked", Marked()), {"marks": tokens}) as world:
        extra = {"RB_SEQS": json.dumps(seqs)}
        result = await run_case(world, "overlay", script="unknown_words.mjs", extra=extra)
    assert result["who"] == "Rook — Sneak", result  # as named then: renamed later
