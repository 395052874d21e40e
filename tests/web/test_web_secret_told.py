"""Secrets on the web view, in real headless Chromium against a real server
(browser/secret_told.mjs, one case per test).

- An action the ruleset always keeps secret (``ActionSpec(secret=True)``,
  tests/plugins/listener.py's ``listen``; docs/plugins.md, "Secret actions"): the GM's
  form showed an unchecked *secret* box for it, as if the GM could make it open; it is
  checked, cannot be unchecked, and says why, in cs/de/ru/en. A player who asks it
  heard its placeholder as *secret (GM only)* and then the reply's *only the GM sees
  it* (twice); the placeholder is the request's own and is no longer told.
- At a table whose GM approves players' requests first, another player's request
  reaches a player's page as the same ``hidden`` placeholder as a secret, and was
  heard as *secret (GM only)* whenever another player asked. A request is not a
  secret: it is told, and its log entry says, that it may be either — the GM's secret
  roll, the same placeholder, is heard so too (web25 told neither: rev25w) —; once
  the answer is seen, the entry says it was a request, and where the answer is.

Needs what tests/web/test_web_browser.py needs; skipped without chromium.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest

from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from rollbridge.tokens import new_token
from tests.plugins.listener import Listener
from tests.server.conftest import TEST_LIMITS
from tests.web.conftest import GM, WebWorld, host_of, serving
from tests.web.test_web_away import said
from tests.web.test_web_browser import CHROMIUM
from tests.web.test_web_phone import run_case

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(), reason=f"no {CHROMIUM}")


def seed_listening(
    path: Path, *, heroes: tuple[str, ...] = ("player",)
) -> dict[str, dict[str, str]]:
    """Two tables of :class:`Listener` in the store at ``path``, each with the Hero of
    ``heroes`` (the player's) and the NPC Bandit: ``secret``, and ``asking``, whose GM
    approves players' requests first and which has a second player's token (``bob``);
    their tokens."""
    host = host_of("listener", Listener())
    tokens: dict[str, dict[str, str]] = {}
    with SQLiteStore(path) as seed:
        service = TableService(seed, host)
        sheets = Listener.example_sheets
        for table in ("secret", "asking"):
            _, tokens[table] = service.create_table(f"Listening ({table})", "listener",
                                                    table_id=table)  # fmt: skip
            for index, (name, controllers) in enumerate([("Hero", list(heroes)), ("Bandit", [])]):
                actor = {"id": name.lower(), "name": name, "sheet": dict(sheets[name]),
                         "controllers": controllers}  # fmt: skip
                create = {"type": "actor.create", "id": f"c{index}", "actor": actor}
                service.handle(table, create, GM)
        approval = {"type": "settings", "id": "a", "settings": {"approval": True}}
        service.handle("asking", approval, GM)
        tokens["asking"]["bob"], record = new_token("asking", "player", "bob")
        seed.add_token(record)
    return tokens


@pytest.fixture
async def secret_world(tmp_path) -> AsyncIterator[WebWorld]:
    """A server over the two tables of :func:`seed_listening`."""
    path = tmp_path / "web.db"
    tokens = seed_listening(path)
    async with serving(path, host_of("listener", Listener()), tokens) as world:
        yield world


async def test_an_always_secret_action_is_checked_on_the_gms_form_and_told_once(secret_world):
    result = await run_case(secret_world, "always", script="secret_told.mjs")
    for lang, forms in result["gm"].items():
        # always secret: checked, not to be unchecked, and why, in the page's language
        listen = forms["listen"]
        assert listen["checked"] is True and listen["disabled"] is True, (lang, listen)
        # a stop of the keyboard, so that a screen reader's user tabbing through the
        # form hears it checked and why (disabled, Tab went past it: rev25w), and
        # pressed (Space, a click) it stays checked
        assert listen["reached"] is True, (lang, listen)
        assert listen["label"] == said(lang, "Field.Secret"), (lang, listen)
        assert listen["described"] == said(lang, "Field.AlwaysSecret"), (lang, listen)
        assert listen["visible"] is True, (lang, listen)
        # an action the GM may make secret or not: the box as before
        test = forms["test"]
        assert test["checked"] is False and test["disabled"] is False, (lang, test)
        assert test["described"] == "" and test["reached"] is True, (lang, test)
    player = result["player"]
    # the reply says it once, on the message line (a status a screen reader reads);
    # the placeholder of the player's own action is not told besides
    assert player["message"] == said("en", "Message.Secret"), player
    assert player["status"] == said("en", "Message.Secret"), player
    assert "kind-hidden" in " ".join(player["kinds"]), player
    assert not [line for line in player["told"] if said("en", "Kind.Hidden") in line], player


async def test_another_players_request_waiting_is_not_heard_as_a_secret(secret_world):
    result = await run_case(secret_world, "another", script="secret_told.mjs")
    waiting = result["waiting"]
    # Bob's roll waits for the GM: Alice's page tells it as her log says it, a secret or
    # a request waiting (it was "geheim (nur Spielleiter)"; then nothing, and the GM's
    # secret roll, which every log shows, was never heard)
    assert waiting["told"] == [said("de", "Log.HiddenOrAsked")], waiting
    assert waiting["kind"] == said("de", "Log.HiddenOrAsked"), waiting
    assert result["approve"]["status"] == "done", result["approve"]
    # approved: the roll is told, as any roll, and no secret
    told = result["approved"]["told"]
    assert len(told) == 2 and "Bobs Wurf" in told[1], told
    assert not [line for line in told if said("de", "Kind.Hidden") in line], told
    # and the placeholder says it was a request, and where its answer is: on Alice's
    # page, and on a Czech observer's that read it from the log from before
    pending, answer = f"p{waiting['seq']}", str(result["approved"]["seq"])
    assert result["approve"]["approved"] == pending, result["approve"]
    answered = said("de", "Log.AskedAnswered", pending=pending, seq=answer)
    assert result["approved"]["kind"] == answered, result["approved"]
    answered = said("cs", "Log.AskedAnswered", pending=pending, seq=answer)
    assert result["observer"]["kind"] == answered, result["observer"]
    # the GM's secret roll, the same placeholder on the wire: Alice hears it as her log
    # shows it (web25 told it not at all: a fact of the table a screen reader never
    # heard, there in every page's log; rev25w)
    secret = result["secret"]
    assert secret["told"][len(told) :] == [said("de", "Log.HiddenOrAsked")], secret
    assert secret["kind"] == said("de", "Log.HiddenOrAsked"), secret


async def test_the_gms_secret_box_stays_checked_when_the_form_is_built_anew(secret_world):
    """The action form's *secret* box had no name, so a form built anew (an actor added
    at the table) came back with it unchecked, and the GM's next press was made in the
    open; it stays checked."""
    result = await run_case(secret_world, "kept", script="secret_told.mjs")
    assert result["added"]["status"] == "done", result
    assert result["before"] is True and result["rebuilt"] is True, result
    assert result["after"] is True, result


async def test_the_gms_secret_box_stays_checked_when_the_language_changes(secret_world):
    """A language chosen loads the page anew, keeping what was typed in the forms
    (kept.mjs): the action form's *secret* box, named ``rollbridge:secret``, was left
    out of what is kept (no parameter's name has a colon), so it came back unchecked
    in German and the GM's next press was made in the open; it stays checked, as the
    roll form's box does."""
    result = await run_case(secret_world, "language", script="secret_told.mjs")
    assert result["action"] == "test", result
    assert result["roll"] is True, result
    assert result["after"] is True, result


async def test_an_actions_form_is_kept_when_another_action_is_chosen_and_back(secret_world):
    """Another action chosen and then this one again built its form anew, empty: the
    target chosen was gone and the GM's *secret* box unchecked, so the next press went
    out in the open. Each action's form keeps what was typed while the page lives."""
    result = await run_case(secret_world, "switched", script="secret_told.mjs")
    assert result["back"] == {"secret": True, "target": "bandit"}, result


async def test_the_gms_secret_box_stays_checked_across_a_reload(secret_world):
    """The browser's own reload keeps what was typed in the forms (kept.mjs, at the
    page's pagehide) — the form shown, and each other action's as typed: a box checked
    on an action not shown when the page reloaded came back unchecked when that action
    was chosen again after it, and the GM's next press went out in the open."""
    result = await run_case(secret_world, "reloaded", script="secret_told.mjs")
    assert result["shown"] == {"secret": True, "target": "bandit", "roll": True}, result
    assert result["other"] == {"secret": True, "target": "bandit"}, result


async def test_a_players_own_request_approved_in_secret_is_linked_to_its_event(secret_world):
    """At a table whose GM approves players' requests first, a player's ``listen``
    (always secret) approved by the GM reached the player's page as a ``hidden``
    placeholder naming nothing: the log showed the request *no longer waiting* and a
    placeholder, not which was theirs. The page asks the server again (``repeat``:
    ``{"status": "secret", "seq": N}``) and the two entries name each other, in the
    page's language, across a reload too."""
    result = await run_case(secret_world, "mine", script="secret_told.mjs")
    pending, seq = result["pending"], result["seq"]
    assert isinstance(seq, int) and seq > int(pending[1:]), result
    linked = {
        "mine": said("cs", "Log.MineSecret", seq=str(seq)),
        "hidden": said("cs", "Log.MineHidden", pending=pending),
    }
    for when in ("live", "reloaded"):
        shown = result[when]
        assert {k: shown[k] for k in linked} == linked, (when, shown)
    assert result["live"]["status"] == said("cs", "Message.Secret"), result["live"]


async def test_a_busy_tables_placeholders_resend_a_players_secret_requests_within_bounds(
    secret_world,
):
    """Each ``hidden`` placeholder that comes while a player's secret requests wait makes
    the page send them again (``repeat``), every frame counted against the connection's
    rate and the table's (docs/protocol.md, "Limits"). At a busy approval table — the GM
    rolling 30 secret rolls as fast as the replies come, a player with three ``listen``
    waiting — the page sends each at most once a placeholder (the same id is not sent
    again while it waits for its answer: adapters/client/connection.mjs), none of the
    page's frames nor the GM's rolls is refused for a rate, the three still wait, and the
    GM's approval of one afterwards is still linked to its event (rev26w measured 6
    resends for the 30 placeholders: two rounds)."""
    rolls, asks = 30, 3
    extra = {"RB_ROLLS": str(rolls), "RB_ASKS": str(asks)}
    result = await run_case(secret_world, "busy", script="secret_told.mjs", extra=extra)
    assert result["gm"] == {"refused": [], "rolled": rolls}, result["gm"]
    assert result["refused"] == [], result["refused"]
    assert result["waiting"] == [True] * asks, result
    assert 0 < result["repeats"] <= asks * rolls, result["repeats"]
    assert result["linked"] == said("cs", "Log.MineSecret", seq=str(result["seq"])), result


async def test_a_crowded_tables_resends_fit_its_rate(tmp_path):
    """Each page sent every secret request of its again at each placeholder: at a table
    of 8 players with 8 requests waiting each (the most the server holds), 64 frames a
    placeholder against the table's 50 a second, bursts of 100 (docs/protocol.md,
    "Limits") — two placeholders emptied it, the pages' resends and the GM's own next
    request refused ``rate_limited``. Here the same, scaled down: two players with 8
    ``listen`` waiting each at a table of 5 requests a second (bursts of 10) sent 16
    frames at one GM's secret roll. A page sends 2 at once, then one each half second:
    nothing of the pages' nor the GM's next roll is refused, and the GM's approval of
    one of them afterwards is still linked to its event."""
    path = tmp_path / "web.db"
    tokens = seed_listening(path, heroes=("player", "bob"))
    limits = replace(TEST_LIMITS, rate_per_table=5.0)
    async with serving(path, host_of("listener", Listener()), tokens, limits=limits) as world:
        result = await run_case(world, "crowded", script="secret_told.mjs")
    assert result["asked"] == [8, 8], result
    assert result["gm"] == {"first": "ok", "second": "ok"}, result["gm"]
    assert result["refused"] == {"player": [], "bob": []}, result["refused"]
    # each request sent again at most once a placeholder (the two rolls' and the
    # approval's), none of them left out
    for who, counts in result["repeats"].items():
        assert len(counts) == 8 and max(counts.values()) <= 3, (who, counts)
    assert result["linked"] == said("cs", "Log.MineSecret", seq=str(result["seq"])), result


async def refused_case(tmp_path, case: str, extra: dict[str, str] | None = None) -> dict:
    """Run ``case`` of secret_told.mjs at a listening table of 1 request a second (bursts
    of 2) over a SQLite file in ``tmp_path``; its result, the GM's approval made."""
    path = tmp_path / "web.db"
    tokens = seed_listening(path)
    limits = replace(TEST_LIMITS, rate_per_table=1.0)
    async with serving(path, host_of("listener", Listener()), tokens, limits=limits) as world:
        result = await run_case(world, case, script="secret_told.mjs", extra=extra)
    assert result["flood"]["status"] == "done", result["flood"]
    return result


async def test_a_secret_requests_resend_refused_for_now_still_waits(tmp_path):
    """A player's always-secret request waiting for the GM is sent again (``repeat``) at
    each placeholder, to link the GM's approval in secret to its event. A resend the
    table refused ``rate_limited`` past the connection's five retries (nothing was done
    there) was taken for an answer: the entry said *no longer waiting*, the refusal
    beside the form, and the approval was never linked. Here the GM approves it from a
    socket that keeps a table of 1 request a second (bursts of 2) busy meanwhile: the
    entry still waits while refused, and once the table has room the page sends it
    again, unasked, and links the approval to its event."""
    result = await refused_case(tmp_path, "refused")
    assert result["refusals"] >= 6, result
    assert result["during"]["waits"] is True, result["during"]
    assert result["during"]["kind"] != said("cs", "Log.MineDone"), result["during"]
    pending = said("cs", "Message.Pending", pending=result["pending"])
    assert result["during"]["status"] == pending, result["during"]
    assert result["stopped"]["refused"] > 0, result["stopped"]
    linked = {"waits": False, "kind": said("cs", "Log.MineSecret", seq=str(result["seq"])),
              "hidden": said("cs", "Log.MineHidden", pending=result["pending"])}  # fmt: skip
    assert result["after"] == linked, result["after"]


async def test_a_long_refusal_ends_the_pages_resends(tmp_path):
    """A resend refused for now is sent again, at the page's pace, only so often: each
    of its frames counts against the table's rate, and a page that sent it again at
    once after each refusal kept a busy table busy for as long as it was refused (one
    frame each retry, without end: eight such pages of eight requests each filled a
    table's rate of 50 a second by themselves). Here the table of 1 request a second
    is kept busy until the page has been refused its bound — the first resend and
    LATER_TRIES more, each with the connection's five retries — and nothing more
    comes from the page; its entry still waits; once the table has room, the GM's next
    placeholder makes it due again and the approval is linked to its event."""
    later_tries, frames_each = 3, 1 + 5  # table.mjs's LATER_TRIES; connection.mjs's BUSY_RETRIES
    bound = (1 + later_tries) * frames_each
    result = await refused_case(tmp_path, "refusedLong", {"RB_BOUND": str(bound)})
    assert result["refusals"] == bound, result
    assert result["resends"] == bound, result
    assert result["waits"] is True, result
    linked = {"waits": False, "kind": said("cs", "Log.MineSecret", seq=str(result["seq"]))}
    assert result["after"] == linked, result["after"]


async def test_a_request_asked_again_at_the_join_and_refused_for_now_is_asked_again(tmp_path):
    """A page loaded anew asks what became of its requests waiting for the GM
    (``repeat``, as it joins). One refused for now past the connection's five retries
    stayed *waiting* until the next join, though the GM had answered it: the page sent
    it again only at a placeholder, and the answer was already in. Here the GM approves
    a player's ``listen`` while a socket keeps a table of 1 request a second busy, the
    player's phone reloads, and its question is refused five times over; the socket
    stopped, the page asks again by itself and links the approval to its event."""
    result = await refused_case(tmp_path, "refusedReload")
    assert result["refusals"] >= 6, result
    assert result["during"] == {"waits": True}, result["during"]
    linked = {"waits": False, "kind": said("cs", "Log.MineSecret", seq=str(result["seq"]))}
    assert result["after"] == linked, result["after"]


async def test_a_join_asks_its_waiting_requests_at_the_pages_pace(secret_world):
    """A page that joins asks what became of each of its requests waiting for the GM
    (``repeat``). It asked them all in the join's breath, outside the pace of its other
    resends (two at once, then one each half second): a phone with 8 requests waiting
    sent 8 frames at once, and 8 such phones back after a restart sent 64 against the
    table's rate. Here a phone with 8 ``listen`` waiting reloads: each is asked once,
    and by the page's own clock no second holds more than 2 + 2 of them (a count of
    frames in each window, none of it a time the test waits for)."""
    asks, burst, per_second = 8, 2, 2  # table.mjs's RESEND_BURST, 1 s / RESEND_MS
    extra = {"RB_ASKS": str(asks)}
    result = await run_case(secret_world, "joinPaced", script="secret_told.mjs", extra=extra)
    assert result["asked"] == asks, result
    assert result["waiting"] == [True] * asks, result
    times = sorted(result["times"])
    assert len(times) == asks, times
    # the most frames sent in any window under a second, from each frame on
    most = max(sum(1 for t in times if start <= t < start + 999) for start in times)
    assert most <= burst + per_second, times


async def test_a_join_again_while_the_joins_questions_wait_asks_each_once(secret_world):
    """The questions a join asks wait their turn at the page's pace (askAtJoin). A page
    that joined again meanwhile (a drop answered with a snapshot) queued its new join's
    questions behind those of the join before — the same session's, so kept — and
    asked each request waiting twice: twice the frames against the table's rate, the
    very burst the pace was for. Here the second join comes while 6 of 8 still wait
    (the page's pace timers held, then let go a turn at a time): each is asked once."""
    asks = 8
    extra = {"RB_ASKS": str(asks)}
    result = await run_case(secret_world, "joinTwice", script="secret_told.mjs", extra=extra)
    assert result["first"] == 2, result
    assert result["held"] == 0, result
    again = result["again"]
    twice = sorted({id for id in again if again.count(id) > 1})
    assert len(set(again)) == asks and not twice, (len(again), twice)
