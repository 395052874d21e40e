"""The top bar: held at the top of the screen on a phone and a laptop (web.css,
topbar.mjs), so the connection's word — here "offline" — is in view down at the forms
and deep in the log (it scrolled away with the page); one line with Reconnect in every
language; and what the keyboard's focus reaches comes to rest under the bar, never
behind it (WCAG 2.4.11). Upright (360×740) and turned (740×360), in German and
Russian (and Czech, English; a laptop). Real Chromium against a real server
(browser/topbar.mjs)."""

from __future__ import annotations

import json

from tests.web.test_web_browser import CHROMIUM, pytestmark  # noqa: F401
from tests.web.test_web_phone import run_case

OFFLINE = {
    "de": "offline: kein Netz",
    "ru": "нет сети",
    "deTurned": "offline: kein Netz",
    "ruTurned": "нет сети",
}


async def test_the_bar_stays_in_view_and_covers_nothing_focused(web_world):
    result = await run_case(web_world, "bar", "topbar.mjs")
    for name in OFFLINE:
        for where in ("formula", "log", "stats", "labelBack", "logBack", "end"):
            got = result[name][where]
            assert got, (name, where)  # reached by Tab
            bar, status, said = got["bar"], got["status"], (name, where, got)
            # the bar and its word on screen, at the top, wherever the page is
            assert bar["top"] == 0 and 0 <= status["top"] < status["bottom"] <= bar["bottom"], said
            assert status["text"] == OFFLINE[name], said
            assert got["wide"] <= (740 if name.endswith("Turned") else 360), said
            if where != "end":  # the focused element rests under the bar, in view
                focus = got["focus"]
                assert focus["top"] >= bar["bottom"], said
                assert focus["top"] < got["screen"] and focus["hit"], said
        end = result[name]["end"]
        # the page was scrolled: down at the forms, the bar is still there
        assert end["scrolled"] > 0, result[name]
        # it takes at most a quarter of the screen
        assert end["bar"]["height"] * 4 <= end["screen"], result[name]


async def test_every_stop_of_the_keyboard_rests_in_view(web_world):
    """Tab alone from the table's heading through the whole page, a player's and the
    GM's, on a Czech phone upright and a Russian one turned: every control is reached
    (the page's end comes), and each one focused is on screen, not under the bar, and
    not under anything else."""
    result = await run_case(web_world, "walk", "topbar.mjs")
    for name in ("csUpright", "ruTurned"):
        for role in ("player", "gm"):
            got = result[f"{name}-{role}"]
            assert got["count"] > 10, (name, role, got)
            assert got["wrong"] == [], (name, role, got)


async def test_cs_de_ru_on_a_phone_upright_turned_and_a_laptop(web_world):
    """Offline (the bar's longest: its word and the Reconnect button), in Czech, German
    and Russian, at 360×740, 740×360 and 1366×768: every stop of the keyboard rests on
    screen, under nothing (the bar nor another element); scrolled to the page's end,
    the connection's word is on screen, the bar held at the top (on a phone a quarter
    of the screen at most; on a laptop as well, three columns: it was in the page's
    flow and scrolled away)."""
    result = await run_case(web_world, "grid", "topbar.mjs")
    for locale in ("cs", "de", "ru"):
        for size in ("upright", "turned", "laptop"):
            got = result[f"{locale}-{size}"]
            said = (locale, size, got)
            assert got["count"] > 10 and got["wrong"] == [], said
            end = got["end"]
            assert got["sticky"] == "sticky", said
            assert got["end"]["wide"] <= {"upright": 360, "turned": 740, "laptop": 1366}[size]
            assert end["scrolled"] > 0, said
            assert end["bar"]["top"] == 0 and end["bar"]["height"] * 4 <= end["screen"], said
            status = end["status"]
            assert 0 <= status["top"] < status["bottom"] <= end["bar"]["bottom"], said


async def test_the_bar_is_one_line_with_reconnect_in_every_language(web_world):
    """Offline, Reconnect shown, in Czech, German, Russian and English: the bar is one
    line (the table's name cut short where the room is needed; who the viewer is,
    Leave and the language on a line under it, which scrolls away) at 360×740 and
    740×360, at most 60 px (a German phone's was three lines, 139 px; a Czech and a
    Russian one's two, 89 px), Reconnect whole in it and on screen at the page's top
    and scrolled to its end; on a 1366×768 laptop one line as well, held at the top too
    (it was in the page's flow and scrolled away: its log scrolls in its own panel)."""
    result = await run_case(web_world, "compact", "topbar.mjs")
    for locale in ("cs", "de", "ru", "en"):
        for size in ("upright", "turned", "laptop"):
            got = result[f"{locale}-{size}"]
            for where in ("top", "end"):
                bar, said = got[where], (locale, size, where, got)
                assert bar["lines"] == 1 and bar["height"] <= 60, said
                assert bar["parts"] == ["title", "status", "reconnect"], said
                assert bar["wide"] <= {"upright": 360, "turned": 740, "laptop": 1366}[size], said
                assert bar["reconnect"] is True and bar["top"] == 0, said
            assert got["end"]["scrolled"] > 0, got


#: A table's name written right to left (Hebrew: "The great Friday night in Seattle's
#: lower city"), longer than a phone's bar.
RTL_NAME = "ליל שישי הגדול בעיר התחתית של סיאטל"


async def test_a_name_written_right_to_left_is_cut_at_its_end(web_world):
    """A table named right to left, longer than a phone's bar (offline: Reconnect
    shown, German): the name is cut short at its end, its first letter drawn in the
    heading (upright and at 200 % zoom; turned it is whole). The heading took the
    page's direction (left to right): the name's start, drawn at its right end, was
    cut off, its end read."""
    from rollbridge.host import PluginHost
    from rollbridge.offline import TableService

    _, tokens = TableService(web_world.store, PluginHost()).create_table(
        RTL_NAME, "sr2", table_id="rtl"
    )
    extra = {"RB_RTL": json.dumps({"table": "rtl", "token": tokens["player"]})}
    result = await run_case(web_world, "rtl", "topbar.mjs", extra)
    for size in ("upright", "turned", "zoomed"):
        got = result[size]
        assert got["text"].startswith(RTL_NAME), got
        assert got["first"], (size, got)  # its start is read, cut or whole
        assert got["cut"] == (size != "turned"), (size, got)
        assert got["height"] <= 60 and got["wide"] <= got["screen"], (size, got)


#: A player's token named at length (by the GM: whose phone it is).
LONG_TOKEN = "Anna – Tukans Spielerin, das Telefon im Wohnzimmer, Freitagsrunde"


async def test_a_long_token_name_on_a_laptop_stays_on_the_bar(web_world):
    """A player whose token has a long name, German, on a laptop (1366 and 1024 px
    wide): who the viewer is, Leave and the language stay within the bar's height,
    over nothing of the page's main content, each of them clickable."""
    from rollbridge.tokens import new_token

    secret, record = new_token("web", "player", name=LONG_TOKEN)
    web_world.store.add_token(record)
    extra = {"RB_TOOLS": json.dumps({"table": "web", "token": secret})}
    result = await run_case(web_world, "tools", "topbar.mjs", extra)
    for size in ("wide", "narrow"):
        got = result[size]
        assert LONG_TOKEN in got["role"], got
        assert got["tools"]["bottom"] <= got["bar"]["bottom"] + 1, (size, got)
        assert got["main"]["top"] >= got["tools"]["bottom"], (size, got)
        assert all(got["shown"]) and got["wide"] <= got["screen"], (size, got)


#: The name of who the viewer is, Leave and the language (an ``aside``: a landmark).
TOOLS_NAMES = {
    "cs": "Vy u tohoto stolu",
    "de": "Sie an diesem Tisch",
    "ru": "Вы за этим столом",
    "en": "You at this table",
}


async def test_the_viewers_place_is_a_named_landmark_and_a_long_name_reads_whole(web_world):
    """Who the viewer is, Leave and the language are an ``aside`` — a complementary
    landmark, which a screen reader lists among the page's landmarks — named in the
    page's language (it had no name: *complementary* alone); and a token's long name,
    cut with an ellipsis on a laptop's bar, is read whole: its tooltip (the title, on
    hover) and its text in the accessibility tree are the whole name. On a 360×740
    phone it wraps whole on screen, on a 1366×768 laptop it is cut; cs, de, ru, en.
    Cut, it is a button, a stop of the keyboard, and its whole is shown under the bar
    while it has the focus or once pressed (web25: a sighted keyboard user could not
    read it, nor a touch screen's); Escape hides it, the focus kept, and pressed again
    (Enter, a click) it hides with the focus still on it (rev25w: nothing hid it while
    focused, WCAG 1.4.13)."""
    from rollbridge.tokens import new_token

    secret, record = new_token("web", "player", name=LONG_TOKEN)
    web_world.store.add_token(record)
    extra = {"RB_TOOLS": json.dumps({"table": "web", "token": secret})}
    result = await run_case(web_world, "named", "topbar.mjs", extra)
    for locale, name in TOOLS_NAMES.items():
        for size in ("upright", "laptop"):
            got = result[f"{locale}-{size}"]
            said = (locale, size, got)
            assert got["label"] == name, said
            assert got["tree"].startswith(f'- complementary "{name}"'), said
            assert LONG_TOKEN in got["text"] and got["title"] == got["text"], said
            assert got["hovered"] == got["text"], said
            # the accessibility tree holds the whole name, not what the bar shows of it
            assert got["text"] in got["tree"], said
            assert got["cut"] == (size == "laptop") and got["onScreen"], said
            # cut, it is a stop of the keyboard, and focused its whole is shown under the
            # bar, whole and on screen, over the page (a sighted keyboard user could not
            # read it: the whole was its tooltip, on hover); whole, it is no stop
            assert got["stop"] == got["cut"], said
            if got["cut"]:
                focused = got["focused"]
                assert got["reached"] is True, said
                assert focused["shown"] and focused["text"] == got["text"], said
                assert focused["whole"] and focused["onScreen"] and focused["over"], said
                assert focused["underBar"] and focused["hidden"] == "true", said
                assert focused["barHeight"] <= 60 and focused["toolsInBar"], said
                assert got["axe"] == [], said
                # a button: pressed, the whole stays shown (a touch screen has no hover)
                assert f'button "{got["text"]}"' in got["tree"], said
                assert got["clicked"] == {"whole": True, "expanded": "true"}, said
                assert got["clickedAgain"] == {"whole": False, "expanded": "false"}, said
                # Escape hides what covers the page, the focus kept (WCAG 1.4.13: it
                # showed while focused, nothing dismissed it); a press, by the keyboard
                # or a click, shows or hides it with the focus still there (it showed
                # whatever was pressed while focused)
                keys = got["keys"]
                hidden = {"whole": False, "expanded": "false", "focused": "role"}
                shown = {"whole": True, "expanded": "true", "focused": "role"}
                assert keys["tabbed"]["whole"] and keys["tabbed"]["focused"] == "role", said
                assert keys["escape"] == hidden, said
                assert keys["enter"] == shown and keys["enterAgain"] == hidden, said
                assert keys["click"] == shown and keys["clickAgain"] == hidden, said
                assert keys["away"]["whole"] and keys["away"]["focused"] != "role", said
                assert not keys["awayEscape"]["whole"], said
                assert keys["awayEscape"]["expanded"] == "false", said


async def test_a_laptops_bar_is_held_over_nothing_read_or_typed(web_world):
    """A Czech GM on a 1366×768 laptop, a long evening's log, offline: scrolled to the
    page's end the bar is at the screen's top saying so (it scrolled away: its top at
    −321 px and more), who the viewer is, Leave and the language within it; the log's
    panel is held under it, the log's latest line under the bar and hit by a click
    there; Tab to the roll form's formula and Shift+Tab back to the log rest under the
    bar; and the log's End key, from the page's end, scrolls the log, not the window."""
    result = await run_case(web_world, "held", "topbar.mjs")
    for where in ("end", "formula", "formulaBack"):
        got = result[where]
        assert got, where  # reached by Tab
        bar, said = got["bar"], (where, got)
        assert bar["top"] == 0 and got["status"] == "offline: bez sítě", said
        assert got["tools"]["top"] >= 0 and got["tools"]["bottom"] <= bar["bottom"] + 1, said
        assert got["panel"]["top"] >= bar["bottom"], said
        assert got["latest"]["top"] >= bar["bottom"] and got["latest"]["hit"], said
        assert got["panel"]["bottom"] <= got["screen"], said
    assert result["end"]["scrolled"] == result["end"]["max"] > 0, result["end"]
    for where, what in (("formula", "formula"), ("formulaBack", "log")):
        focus = result[where]["focus"]
        assert focus["what"] == what and focus["hit"], result[where]
        assert result[where]["bar"]["bottom"] <= focus["top"] < result[where]["screen"], result[
            where
        ]
    before, after = result["keys"]["before"], result["keys"]["after"]
    assert after["logTop"] > before["logTop"] == 0, result["keys"]
    assert after["scrolled"] == before["scrolled"] == before["max"], result["keys"]


#: A German table's long name (the bar's longest line on a laptop).
LONG_NAME = "Der große Freitagabend in der Unterstadt von Seattle — Schattenläufer, dritter Teil"


async def test_laptops_keyboard_forward_and_back_rests_under_nothing_held(web_world):
    """A German and a Russian GM with requests waiting, and a player, at 1366×768,
    1280×720, a window 500 px high and 200 % zoom (683×384), and at a table of a long
    name at 1280×720 and 1366×500: Tab through the whole page and Shift+Tab back (what
    lies above comes into view from above), every stop rests on screen under neither
    the held bar nor the viewer's tools held beside it on a laptop, nor under anything
    else; on a laptop the jump to the waiting requests is on screen at the page's top
    and whole under the bar down the page, and pressed it brings the first Approve into
    view under the bar."""
    from rollbridge.engine import Principal
    from rollbridge.host import PluginHost
    from rollbridge.offline import TableService

    host, gm = PluginHost(), Principal("gm", "gm", "setup")
    service = TableService(web_world.store, host)
    _, tokens = service.create_table(LONG_NAME, "sr2", table_id="long")
    service.handle("long", {"type": "settings", "id": "s", "settings": {"approval": True}}, gm)
    sheet = dict(host.rulesets["sr2"].example_sheets["Tukan"])
    actor = {"id": "tukan", "name": "Tukan", "sheet": sheet, "controllers": ["player"]}
    service.handle("long", {"type": "actor.create", "id": "a", "actor": actor}, gm)
    long = {"table": "long", "gm": tokens["gm"], "player": tokens["player"]}
    web_world.tokens["long"] = {"gm": tokens["gm"], "player": tokens["player"]}
    result = await run_case(web_world, "laptops", "topbar.mjs", {"RB_LONG": json.dumps(long)})
    for size in ("1366", "1280", "500", "zoom", "long1280", "long500"):
        for locale in ("de", "ru"):
            for role in ("gm", "player"):
                got = result[f"{size}-{locale}-{role}"]
                said = (size, locale, role, got)
                assert got["count"] > 20 and got["back"] > 10 and got["wrong"] == [], said
                if role == "gm":
                    top, end = got["jumpTop"], got["jumpEnd"]
                    if size != "zoom":  # three columns: the log's panel held under the bar
                        # scrolled down, whole on screen under the bar; at the page's top
                        # in view (500 px high: its lower 11 px under the screen's edge,
                        # as before the bar was held: the panel's place in the page)
                        assert got["bar"] <= end["top"] and end["bottom"] <= end["screen"], said
                        assert 0 <= top["top"] < top["screen"] - 20, said
                    approve = got["approve"]
                    assert approve["barBottom"] <= approve["top"] < approve["screen"], said
                    assert approve["hit"], said
