"""The session log as each audience sees it (issue 17, item 4): the protocol's own
views — a GM secret roll and an NPC's hidden numbers in the GM's export, never in a
player's or an observer's — and ``since``."""

from __future__ import annotations

import json

import pytest

from rollbridge.engine.views import Audience
from rollbridge.exceptions import InvalidRequest, UnknownTable
from rollbridge.export import export_chunks, read_log

#: Guard A's own numbers (sr2's example sheet: body 4, armour 4/2; Tukan's is 5, 3/1)
#: and the GM's adjustment of its Physical track by 4.
GUARD_NUMBERS = ('"ballistic":4', '"impact":2', '"body":4', '"delta":4')


def guard_numbers(gm_lines: list[str]) -> set[str]:
    """Guard A's numbers as the GM's export shows them: its sheet's, the adjustment,
    and every Physical box count its state had (Tukan's stays 0)."""
    found = set(GUARD_NUMBERS)
    for line in gm_lines:
        for actor in json.loads(line).get("actors", ()):
            if actor["id"] == "guard-a" and actor["state"]["physical"]:
                found.add(f'"physical":{actor["state"]["physical"]}')
    return found


def export_lines(night, audience: str, since: int = 0, locale: str = "en") -> list[str]:
    """The export's event lines, after its opening ``welcome`` (checked here)."""
    with night.store() as store:
        log = read_log(store, "sr2", night.host.rulesets, since)
    lines = "".join(export_chunks(log, "jsonl", audience, locale)).splitlines()
    if lines:
        welcome = json.loads(lines[0])
        assert (welcome["type"], welcome["role"], welcome["seq"]) == ("welcome", audience, since)
    return lines[1:]


def test_an_export_opens_with_the_table_as_it_stood_before_its_first_event(night):
    """Its ``welcome`` names the ruleset, the settings and the actors as they were
    before the first event exported, which ``rollbridge verify`` resolves again on."""
    for since in (0, night.seqs["attack"]):
        with night.store() as store:
            log = read_log(store, "sr2", night.host.rulesets, since)
        first = json.loads(next(iter(export_chunks(log, "jsonl", "gm"))))
        table = first["table"]
        assert (first["type"], first["seq"], table["seq"]) == ("welcome", since, since)
        assert (table["ruleset"], table["ruleset_version"]) == ("sr2", "1.1.0")
        assert len(table["actors"]) == (0 if since == 0 else 2)


def test_every_retained_event_in_seq_order_for_every_audience(night):
    with night.store() as store:
        latest = store.tables()[0].seq
    for audience in ("gm", "player", "observer"):
        lines = export_lines(night, audience)
        events = [json.loads(line) for line in lines]
        assert [e["seq"] for e in events] == list(range(1, latest + 1))
        assert all(e["type"] == "event" and e["table"] == "sr2" for e in events)


def test_the_gm_export_holds_the_secret_roll_and_the_players_only_its_placeholder(night):
    secret = night.seqs["secret"]
    gm = {json.loads(line)["seq"]: json.loads(line) for line in export_lines(night, "gm")}
    assert gm[secret]["data"]["formula"] == "17d6 + 48611"
    assert gm[secret]["data"]["label"] == "ambush check" and gm[secret]["gm_only"] is True
    for audience in ("player", "observer"):
        lines = export_lines(night, audience)
        seen = {json.loads(line)["seq"]: json.loads(line) for line in lines}
        assert seen[secret] == {"type": "event", "table": "sr2", "kind": "hidden",
                                "epoch": 1, "seq": secret}  # fmt: skip
        text = "\n".join(lines)
        assert "17d6" not in text and "48611" not in text and "ambush" not in text


def test_no_line_of_the_player_export_holds_the_npcs_hidden_numbers(night):
    gm_lines = export_lines(night, "gm")
    numbers = guard_numbers(gm_lines)
    assert len(numbers) > len(GUARD_NUMBERS)  # its Physical track changed
    for number in numbers:  # the check could fail: the GM's export has each of them
        assert number in "\n".join(gm_lines), number
    for audience in ("player", "observer"):
        for line in export_lines(night, audience):
            for number in numbers:
                assert number not in line, (audience, number, line[:200])
            for actor in json.loads(line).get("actors", ()):
                if actor["id"] == "guard-a":
                    assert actor["limited"] is True
                    assert actor["sheet"] is None and actor["state"] is None


def test_the_player_export_is_the_protocols_player_view_event_by_event(night):
    """The same views ``state``/resume build (Table.view_event), not a second redaction."""
    with night.store() as store:
        log = read_log(store, "sr2", night.host.rulesets)
        events = store.events_after("sr2", 0)
    lines = export_lines(night, "player")
    for line, event in zip(lines, events, strict=True):
        view = log.table.view_event(event, audience=Audience(False))
        assert json.loads(line) == {"type": "event", "table": "sr2", **json.loads(json.dumps(view))}


def test_observers_are_sent_what_players_are(night):
    assert export_lines(night, "observer") == export_lines(night, "player")


def test_since_exports_only_the_later_events(night):
    whole = export_lines(night, "player")
    since = night.seqs["attack"]
    later = export_lines(night, "player", since=since)
    assert [json.loads(line)["seq"] for line in later] == list(range(since + 1, len(whole) + 1))
    assert later == whole[since:]
    assert export_lines(night, "gm", since=len(whole)) == []


def test_since_beyond_the_log_or_malformed_is_refused(night):
    with night.store() as store:
        latest = store.tables()[0].seq
        with pytest.raises(InvalidRequest, match=f"seq {latest + 1} is after the latest seq"):
            read_log(store, "sr2", night.host.rulesets, latest + 1)
        for bad in (-1, "3a", "", 1.5, None):
            with pytest.raises(InvalidRequest) as refused:
                read_log(store, "sr2", night.host.rulesets, bad)
            assert refused.value.details == {"field": "since"}
        with pytest.raises(UnknownTable):
            read_log(store, "nope", night.host.rulesets)


def test_a_short_retained_log_exports_what_is_retained(night):
    with night.store(retain=3) as store:
        latest = store.tables()[0].seq
        log = read_log(store, "sr2", night.host.rulesets)
    assert [e.seq for e in log.events] == [latest - 2, latest - 1, latest]
    assert log.truncated
    report = "".join(export_chunks(log, "markdown", "gm"))
    assert f"Events before #{latest - 2} have left the retained log." in report


#: What the Markdown head of a truncated export says, per language.
RETAINED = {
    "en": ("Events #{first} to #{last} (3 events)", "Events before #{first} have left"),
    "cs": ("Události #{first} až #{last} (3 události)", "Události před #{first} už"),
    "de": ("Ereignisse #{first} bis #{last} (3 Ereignisse)", "Ereignisse vor #{first} sind"),
    "ru": ("События с #{first} по #{last} (3 события)", "События до #{first} уже"),
}


@pytest.mark.parametrize("locale", sorted(RETAINED))
def test_the_markdown_head_numbers_events_as_its_headings_do(night, locale):
    """The head said "Events: seq 4 to 6" — the protocol's word, in every language —
    where each event's heading says "#4": it names events by their number now, the
    translations too (the word ``seq`` left in none of them)."""
    with night.store(retain=3) as store:
        latest = store.tables()[0].seq
        log = read_log(store, "sr2", night.host.rulesets)
    report = "".join(export_chunks(log, "markdown", "gm", locale))
    head = report.split("\n## ", 1)[0]
    for line in RETAINED[locale]:
        assert line.format(first=latest - 2, last=latest) in head, head
    assert "seq" not in head
    assert f"## #{latest - 2} · " in report


def test_unknown_format_or_audience_is_refused(night):
    with night.store() as store:
        log = read_log(store, "sr2", night.host.rulesets)
    with pytest.raises(InvalidRequest) as refused:
        export_chunks(log, "html", "gm")
    assert refused.value.details == {"field": "format"}
    with pytest.raises(InvalidRequest) as refused:
        export_chunks(log, "jsonl", "admin")
    assert refused.value.details == {"field": "as"}
