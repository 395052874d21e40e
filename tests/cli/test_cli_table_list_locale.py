"""``rollbridge table list`` in the operator's language, its columns lined up.

The label before each table's seq stayed "seq" in every language, and the columns
did not line up: each id was as long as its name made it, so every cell after it
stood where the id ended. ``table list`` takes ``--locale`` now, as ``table create``
does (else the environment's language), translates the label, and pads each column
to its widest cell's display width (core/cli/columns.py); ``--json`` is unchanged.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rollbridge.cli import main
from rollbridge.cli.columns import aligned, display_width
from rollbridge.dice import SeededDice
from rollbridge.engine import Principal
from rollbridge.host import PluginHost
from rollbridge.offline import TableService
from rollbridge.stores.sqlite import SQLiteStore
from tests.cli.test_cli_startup_locale import environment  # noqa: F401  (a fixture)

#: The label before a table's seq, per locale.
SEQ = {"en": "seq", "cs": "událost", "de": "Ereignis", "ru": "событие"}
#: Tables of ids, rulesets and seqs of different widths: (name, ruleset, rolls).
TABLES = [("Friday night run", "sr2", 12), ("Київ", "bandits", 0), ("日本の卓", "sr2", 3)]

pytestmark = pytest.mark.usefixtures("environment")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """A database holding :data:`TABLES`, each rolled in as many times as it says."""
    path = tmp_path / "t.db"
    store = SQLiteStore(path)
    service = TableService(store, PluginHost())
    gm = Principal("gm", "rollbridge", "test")
    for name, ruleset, rolls in TABLES:
        info, _tokens = service.create_table(name, ruleset)
        for n in range(rolls):
            roll = {"type": "roll", "id": f"r{n}", "formula": "1d6"}
            service.handle(info.id, roll, gm, SeededDice(n))
    store.close()
    return path


def listed(capsys, db: Path, *extra: str) -> list[str]:
    assert main(["table", "list", "--db", str(db), *extra]) == 0
    return capsys.readouterr().out.splitlines()


def column(line: str, cell: str) -> int:
    """The display column at which ``cell`` starts in ``line``."""
    return display_width(line[: line.index(cell)])


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
def test_table_list_translates_the_label_and_lines_the_columns_up(capsys, db, locale):
    tables = {t["name"]: t for t in json.loads("".join(listed(capsys, db, "--json")))}
    lines = listed(capsys, db, "--locale", locale)
    assert len(lines) == len(TABLES)
    starts: dict[str, set[int]] = {"ruleset": set(), "label": set(), "name": set()}
    for line, (name, ruleset, rolls) in zip(lines, TABLES, strict=True):
        table = tables[name]
        assert line.startswith(f"{table['id']} ") and table["seq"] == rolls
        label = f"  {SEQ[locale]} {rolls} "
        assert label in line, line
        starts["ruleset"].add(column(line, f"  {ruleset} ") + 2)
        starts["label"].add(column(line, label) + 2)
        starts["name"].add(column(line, f"  {name}") + 2)
        assert line.endswith(f"  {name}")
    assert all(len(found) == 1 for found in starts.values()), (starts, lines)


def test_the_environment_s_language_is_the_default_and_the_option_wins(capsys, db, monkeypatch):
    monkeypatch.setenv("LANGUAGE", "de")
    assert all(f"  {SEQ['de']} " in line for line in listed(capsys, db))
    assert all(f"  {SEQ['ru']} " in line for line in listed(capsys, db, "--locale", "ru"))


def test_the_json_list_is_the_same_in_every_language(capsys, db):
    answers = {locale: listed(capsys, db, "--json", "--locale", locale) for locale in SEQ}
    assert len({json.dumps(a) for a in answers.values()}) == 1
    keys = [sorted(table) for table in json.loads("".join(answers["ru"]))]
    assert keys == [["epoch", "id", "name", "ruleset", "ruleset_version", "seq"]] * 3


def test_an_unknown_locale_is_refused(capsys, db):
    assert main(["table", "list", "--db", str(db), "--locale", "xx"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and "invalid_request: --locale: 'xx'" in err


def test_an_empty_database_says_so_in_the_locale(capsys, tmp_path):
    SQLiteStore(tmp_path / "e.db").close()
    assert listed(capsys, tmp_path / "e.db", "--locale", "cs") == ["žádné stoly"]


@pytest.mark.parametrize(
    ("text", "width"),
    [("seq", 3), ("событие", 7), ("日本の卓", 8), ("ｗ", 2), ("e\u0301", 1), ("a\u200db", 2),
     # a soft hyphen is drawn (as a hyphen, one cell); it counted none
     ("\u00ad", 1), ("Ge\u00adheim\u00adnis", 11),
     # an emoji made of a narrow symbol and VS16: two cells; it counted one
     ("\u2764\ufe0f", 2), ("\u2764", 1), ("\u2764\ufe0f Friday", 9), ("\u263a\ufe0f", 2),
     # keycaps (a digit, #, * with VS16 and U+20E3): two; they counted one
     ("1\ufe0f\u20e3", 2), ("#\ufe0f\u20e3", 2), ("*\ufe0f\u20e3", 2),
     # a ZWJ sequence is one emoji: two cells, not two per emoji joined
     ("\U0001f468\u200d\U0001f469\u200d\U0001f467", 2),
     ("\U0001f3c3\u200d\u2640\ufe0f", 2), ("\U0001f3f3\ufe0f\u200d\U0001f308", 2),
     # a skin tone joins its emoji; a flag is two regional indicators, one emoji
     ("\U0001f44d\U0001f3fd", 2), ("\U0001f1e8\U0001f1ff", 2),
     # Hangul written as jamo: a syllable of two cells; a control character counts none
     ("\u1100\u1161", 2), ("a\x1bb", 2),
     # a ZWJ between letters joins nothing a terminal draws as one (wcwidth counts the
     # letter after it as joined): a Persian joining form, an Indic conjunct
     ("\u0647\u200d\u0627", 2), ("\u0915\u094d\u200d\u0937", 2)],
)  # fmt: skip
def test_display_width_counts_the_cells_a_terminal_gives(text, width):
    assert display_width(text) == width


def test_aligned_lines_up_emoji_sequences():
    """A table named with a family or a heart emoji (a ZWJ sequence, VS16) pushed the
    columns after it out of line by the cells it was counted apart from its two."""
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    rows = [[f"{family} night", "x", "end"], ["\u2764\ufe0f run", "y", "end"], ["plain", "z", "e"]]
    assert aligned(rows) == [f"{family} night  x  end", "\u2764\ufe0f run    y  end",
                             "plain     z  e"]  # fmt: skip


def test_aligned_pads_by_display_width_not_code_points():
    decomposed = "e\u0301e\u0301e\u0301"  # "ééé" as three letters and three accents
    rows = [["日本", "x", "end"], ["ab", decomposed, "end"], ["a", "y", "e"]]
    assert aligned(rows) == ["日本  x    end", f"ab    {decomposed}  end", "a     y    e"]
    # the last cell starts at the same column: 4 cells, 2, 3 cells, 2
    assert {display_width(line) - display_width(row[-1])
            for line, row in zip(aligned(rows), rows, strict=True)} == {11}  # fmt: skip
    assert aligned([]) == []


@pytest.mark.parametrize("locale", ["cs", "de", "ru"])
def test_the_operator_lines_name_an_event_with_the_word_table_list_uses(locale):
    """``table list`` says "událost 12", "Ereignis 12", "событие 12"; the line a client
    prints when it joins still said "seq 12", and so did ``rollbridge verify``'s lines
    ("seq 5 rolled dice of …") and a corrupt store's. Each says the label's word now;
    the English "seq" is left in none of them (the API's messages about the ``since``
    and ``until`` parameters keep the protocol's word)."""
    from rollbridge import i18n, text
    from rollbridge.cli import terminal, verify  # noqa: F401  (declaring their messages)
    from rollbridge.dice import verify as dice_verify  # noqa: F401
    from rollbridge.export import dialects  # noqa: F401  (verify's lines of a dialect's fields)
    from rollbridge.stores import sqlite  # noqa: F401

    joined = terminal.JOINED(table="Friday", id="friday-1", role="gm", name="Ana",
                             ruleset="sr2", seq=12)  # fmt: skip
    assert joined.render(locale).endswith(f"; {SEQ[locale]} 12"), joined.render(locale)
    catalogue = i18n.translation("rollbridge", locale)
    lines = [
        message for message in list(text._MESSAGES.values())
        if message.domain == "rollbridge" and message.plural is None
        and message.key.startswith(("verify.", "cli.verify.", "cli.terminal.", "store."))
    ]  # fmt: skip
    assert len(lines) > 40
    said = {}
    for message in lines:
        translated = catalogue.pgettext(message.key, message.template)
        words = re.sub(r"\{[^}]*\}", "", translated)
        if re.search(r"\bseqs?\b", words):
            said[message.key] = translated
    assert said == {}
