"""A new table's id: a slug of its name in ASCII and 8 hex digits (core/offline.py).

The id is in every link a GM hands out (``/tables/ID``). A Czech GM's "Pátek" became
``p-tek-…``, a German "Würfelrunde" ``w-rfelrunde-…`` and a Russian "Пятница" only
``table-…``: every letter outside a–z was cut. Accents now fall away, and German's ß
and umlauts and Cyrillic are spelled in Latin letters as ICAO 9303 (passports) does.
Ukrainian's і ї є ґ, Belarusian's ў and the Serbian and Macedonian letters were still
cut ("Київ" was ``kiv-…``, "Їжак" ``zhak-…``): now spelled as ICAO's table spells them,
and no letter spelled before is spelled differently (a table keeps its id's spelling).
"""

from __future__ import annotations

import json
import re

import pytest

from rollbridge.cli import main
from rollbridge.offline import new_table_id


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Friday run", "friday-run"),
        ("Pátek večer", "patek-vecer"),
        ("Ďábel & Ř", "dabel-r"),
        ("Würfelrunde Straße", "wuerfelrunde-strasse"),
        ("Öl und Äpfel", "oel-und-aepfel"),
        ("Пятница вечером", "piatnitsa-vecherom"),
        ("Щит и Юла, объём", "shchit-i-iula-obieem"),
        # Ukrainian, Belarusian, Serbian and Macedonian, as ICAO 9303 part 3 spells them
        ("Київ", "kiiv"),
        ("КИЇВ", "kiiv"),
        ("Їжак", "izhak"),
        ("ЇЖАК їжак", "izhak-izhak"),
        ("Ґанок", "ganok"),
        ("ҐАНОК", "ganok"),
        ("Європа", "ievropa"),
        ("Іван", "ivan"),
        ("Ўладзімір", "uladzimir"),
        ("Љубљана", "ljubljana"),
        ("ЉУБЉАНА", "ljubljana"),
        ("Њујорк", "njujork"),
        ("Ђорђе Ћирић", "dorde-ciric"),
        ("Џеп", "dzep"),
        ("Ѓорѓи Ќосе", "gorgi-kose"),
        ("Ѕвезда", "dzvezda"),
        ("Ъгъл", "iegiel"),  # Bulgarian ъ, as ICAO writes it (and Russian's: "ie")
        ("日本", "table"),
        ("  --  ", "table"),
        ("x" * 23 + " y", "x" * 23),  # cut at 24 characters, no dash left at the end
        # letters whose compatibility form is a capital (a name in a "fancy font", as
        # chat names are written): the capital was cut after the decomposition
        ("\U0001d56f\U0001d597\U0001d586\U0001d58c\U0001d594\U0001d593 \u210d", "dragon-h"),
        ("\u0301\u0301", "table"),  # combining marks only
        ("🎲 שבת", "table"),  # no letter Latin can spell
    ],
)
def test_a_table_id_is_the_name_spelled_in_ascii_and_eight_hex_digits(name, slug):
    made = new_table_id(name)
    assert re.fullmatch(rf"{re.escape(slug)}-[0-9a-f]{{8}}", made), made


def test_table_create_names_a_czech_table_readably(tmp_path, capsys):
    db = tmp_path / "t.db"
    assert main(["table", "create", "--ruleset", "sr2", "--name", "Pátek", "--db", str(db),
                 "--json"]) == 0  # fmt: skip
    out, _ = capsys.readouterr()
    assert re.fullmatch(r"patek-[0-9a-f]{8}", json.loads(out)["id"])


#: How ids made before spelled each letter they spelled (core/offline.py's table then).
SPELLED_BEFORE = dict(zip(
    "ßäöüабвгдеёжзийклмнопрстуфхцчшщъыьэюя",
    ["ss", "ae", "oe", "ue", "a", "b", "v", "g", "d", "e", "e", "zh", "z", "i", "i", "k",
     "l", "m", "n", "o", "p", "r", "s", "t", "u", "f", "kh", "ts", "ch", "sh", "shch",
     "ie", "y", "", "e", "iu", "ia"],
    strict=True,
))  # fmt: skip


@pytest.mark.parametrize(("letter", "spelled"), SPELLED_BEFORE.items())
def test_the_letters_spelled_before_keep_their_spelling(letter, spelled):
    for name in (f"x{letter}x", f"X{letter.upper()}X"):
        assert new_table_id(name).rsplit("-", 1)[0] == f"x{spelled}x", name
