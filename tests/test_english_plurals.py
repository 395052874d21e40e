"""English has a singular: a message chosen by a count says "1 item", not "1 items".

A plural message (``say.plural(key, one, other)``) whose English singular is the same
text as its plural reads wrong at a count of one in English, the language every
catalogue is made from ("must have at least 1 items", "takes 1 target(s)"). Found by
playing a game night (4 December); this scan holds every such message in core,
plugins, adapters and the example to a singular of its own, apart from those whose
count cannot be one or whose words do not change with it, each named with why.

A plain message (``say(key, template)``) has no singular at all: "{running} exports are
running" read "1 exports are running" when the server ran one export at a time (a soak
run, 5 December). The second scan holds every declared message — plain, and the
singular of a plural one — to this: a placeholder followed by a plural noun is a count
that must choose its words (``say.plural``), or stand after its word ("actors 3",
"events: 12") so that no word agrees with it, unless its count cannot be one
(:data:`NEVER_ONE`, each with why; cs and ru agree with other numbers too, so a count
that can vary is better made plural even then).

How it tells a count from a name: the word after the placeholder decides, not the
placeholder's name (a count is named anything: ``{running}``, ``{pending}``,
``{drawn}``). A word that looks plural — ending in s but not in ss ("success",
"excess"), "dice", or "word(s)" — is taken for a plural noun unless it is one of
:data:`~rollbridge.testing_plurals.NEVER_PLURAL` ("this", "plus", "bonus": never a
plural noun) or of :data:`~rollbridge.testing_plurals.NOT_NOUNS` (the scan the
conformance suite holds a third-party ruleset's messages to), the verbs and small words
that follow a name in these messages ("{actor} is", "{target} takes", "{dice} vs"). So a
new plural noun is caught without a list to keep, and a new verb after a name fails the
scan until it is added there (the safe way round). A word of ``NOT_NOUNS`` is still a
noun after a placeholder named for it or named as a count ("{rolls} rolls", "{count}
hits"); a count named otherwise before one of those words ("{verified} rolls verified")
is beyond this scan.

A "(s)" after a word ("target(s)", "3 table(s)") chooses nothing: it reads wrong at
every count in cs and ru, and is lazy English at any. The third scan holds every
message and every operator's line (a log call's or a written line's strings, in
core, plugins, adapters and the example) to having none: a message counts with
``say.plural``, a log line (English only) with :func:`rollbridge.words.counted`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rollbridge.dice.notation import FACES_LIMIT, TOO_LONG, parse
from rollbridge.dice.sources import SUPPLIED_TOO_MANY
from rollbridge.engine.odds import TOO_LARGE as ODDS_TOO_LARGE
from rollbridge.engine.odds import TOO_MANY_TOTALS
from rollbridge.engine.rolls import TARGETS_AT_LEAST, TARGETS_BETWEEN, TARGETS_EXACTLY
from rollbridge.engine.table import EVENT_TOO_LARGE
from rollbridge.exceptions import DiceLimitExceeded
from rollbridge.schema import TOO_FEW, TOO_SHORT
from rollbridge.server.export_http import BUSY
from rollbridge.stats.tally import TOO_LARGE as STATS_TOO_LARGE
from rollbridge.testing_plurals import counted_plurals
from rollbridge.words import counted
from tests.plugins.sr2 import test_sr2_table  # (modules: their suites not collected here)
from tests.plugins.wilddie import test_wilddie_conformance

ROOT = Path(__file__).resolve().parent.parent

#: The built-in rulesets' messages (``domain.key``) that read right at every count they
#: take, each with why: their conformance suites' ``never_one``, the one list both
#: scans read (until rev29a this file held its own copy of each, with other words).
RULESETS_NEVER_ONE = {
    **test_sr2_table.TestSR2Conforms.never_one,
    **test_wilddie_conformance.TestWildDieConforms.never_one,
}

#: Plural messages whose singular may stay the plural's text, and why (the built-in
#: rulesets' in :data:`RULESETS_NEVER_ONE`).
SAME_AT_ONE = {
    # "more dice than the 1 supplied": the words do not change with the count
    "dice.exhausted",
}


#: Messages (``domain.key``) whose count before a plural noun cannot be one, and why.
NEVER_ONE = {
    # a SQLite file's size in bytes: a page at the least
    "rollbridge.cli.backup.done": "a file of at least one page",
    "rollbridge.cli.migrate.progress": "shown from PROGRESS_FROM (10) tables on",
    "rollbridge.cli.odds.long": "SHORT_FRACTION, 24 characters",
    # Python's limit of digits (sys.get_int_max_str_digits()): 640 at the least, or 0
    # for none, when no number is too long
    "rollbridge.json.too_long": "Python's int_max_str_digits, at least 640",
    "rollbridge.dice.faces": "{limit} is MAX_FACES, 1,000,000",
    "rollbridge.name.invalid": "{limit} is MAX_NAME, 200 characters",
    "rollbridge.schema.depth": "{limit} is the schema's MAX_DEPTH, 32 levels",
    "rollbridge.foundry.formula_long": "{limit} is the adapter's MAX_FORMULA, 256",
    "rollbridge.export.http.too_large": "{limit} is MAX_EXPORT_BYTES, 32 MiB",
    "rollbridge.odds.too_many_totals": "{totals} and {size} above a reply's limit",
    "rollbridge.odds.pairs_past": "{limit} is the odds' pairs bound, thousands",
    "rollbridge.odds.kept_past": "{limit} is the odds' order_steps bound, thousands",
    "rollbridge.odds.too_many_bits": "{limit} is the odds' plain_bits bound, 40,000,000",
    "rollbridge.odds.too_wide": "{limit} is the odds' bits bound, 8,000,000 (a server's 1,000,000)",
    "rollbridge.odds.why.states": "{limit} is the odds' unit_states bound, 20,000",
    # "{kind} values": a JSON type's name ("integer values"), not a count
    "rollbridge.schema.values": "a type's name, not a count",
}


def _domain(path: Path) -> str:
    """The domain of a source file: a plugin's or the example's folder, else rollbridge."""
    parts = path.relative_to(ROOT).parts
    return parts[1] if parts[0] in ("plugins", "examples") else "rollbridge"


def _calls() -> Iterator[tuple[Path, ast.Call, str | None]]:
    """Every call in the sources of core, plugins, adapters and the example (their
    tests left out): (file, call, the called function's or method's name)."""
    for folder in ("core", "plugins", "adapters", "examples"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "tests" in path.relative_to(ROOT).parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call):
                    func = node.func
                    yield path, node, getattr(func, "id", None) or getattr(func, "attr", None)


def _declared() -> list[tuple[str, str, str, str | None]]:
    """Every ``say(key, template)`` and ``….plural(key, one, other)`` with literal texts
    in core, plugins, adapters and the example: (where, domain.key, one, other or None)."""
    found = []
    for path, node, name in _calls():
        wanted = {"say": 2, "plural": 3}.get(name)
        args = node.args[:wanted] if wanted else []
        if not args or len(args) < wanted:
            continue
        if all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args):
            key, one, *other = (a.value for a in args)
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            plural = other[0] if other else None
            found.append((where, f"{_domain(path)}.{key}", one, plural))
    return found


def _plurals() -> list[tuple[str, str, str, str]]:
    """Every ``….plural(key, one, other)`` with literal texts: (where, key, one, other)."""
    return [
        (where, key.partition(".")[2], one, other)
        for where, key, one, other in _declared()
        if other is not None
    ]


def test_every_plural_message_has_an_english_singular():
    plurals = _plurals()
    assert len(plurals) > 50, "the scan found too few plural messages: is it looking?"
    same = {key: where for where, key, one, other in plurals if one == other}
    # (a built-in ruleset's entry no longer needed fails its conformance suite)
    allowed = SAME_AT_ONE | {key.partition(".")[2] for key in RULESETS_NEVER_ONE}
    assert set(same) - allowed == set(), {k: same[k] for k in set(same) - allowed}
    assert set(same) >= SAME_AT_ONE, f"no longer the same, drop: {SAME_AT_ONE - set(same)}"


def test_core_refusals_read_right_at_one():
    assert TOO_FEW(count=1).render() == "must have at least 1 item"
    assert TOO_FEW(count=2).render() == "must have at least 2 items"
    assert TOO_SHORT(count=1).render() == "must be at least 1 character long"
    assert TARGETS_EXACTLY(action="'hit'", count=1, got=2).render() == (
        "targets: action 'hit' takes 1 target, got 2"
    )
    assert SUPPLIED_TOO_MANY(count=1, limit=0).render().startswith("1 die was supplied")


def test_no_plain_count_stands_before_a_plural_noun():
    declared = _declared()
    assert len(declared) > 1000, "the scan found too few messages: is it looking?"
    # (a plural message's singular: its own count reads "1 die" there, and any other
    # count before a noun reads wrong at one as a plain message's does)
    found = {key: (where, counted_plurals(one)) for where, key, one, _ in declared}
    found = {key: seen for key, seen in found.items() if seen[1]}
    wrong = {key: found[key] for key in found.keys() - NEVER_ONE.keys() - RULESETS_NEVER_ONE.keys()}
    assert wrong == {}, wrong
    gone = NEVER_ONE.keys() - found.keys()
    assert not gone, f"no longer found, drop: {gone}"


@pytest.mark.parametrize(
    ("template", "flagged"),
    [
        ("{running} exports are running", [("running", "exports")]),
        (
            "{count} dice, {limit:,} steps and {n} target(s)",
            [("count", "dice"), ("limit", "steps"), ("n", "target(s)")],
        ),
        ("{rolls} rolls, {count} hits", [("rolls", "rolls"), ("count", "hits")]),
        ("{actor} is dying, {target} takes {count} wound", []),
        ("{count} success, {excess} excess, actors {actors}, events: {events}", []),
        ("{formula} rolls {dice} vs {tn}", []),
        # words that look plural and never are (NEVER_PLURAL): until rev29a "{roll} plus
        # {bonus}" read "1 plus", and "{limit} this" "1 this" (a count's name before it)
        ("{roll} plus {bonus} minus {malus}", []),
        ("{count} bonus, {n} status, {limit} this server stores", []),
        ("{count} bonuses, {n} menus", [("count", "bonuses"), ("n", "menus")]),
    ],
)
def test_the_scan_tells_counts_from_names(template, flagged):
    assert counted_plurals(template) == flagged


@pytest.mark.parametrize(
    ("locale", "one", "two", "five"),
    [
        ("en", "1 export is running", "2 exports are running", "5 exports are running"),
        ("cs", "běží 1 export,", "běží 2 exporty,", "běží 5 exportů,"),
        ("de", "1 Export läuft,", "2 Exporte laufen,", "5 Exporte laufen,"),
        ("ru", "выполняется 1 экспорт —", "выполняются 2 экспорта —", "выполняется 5 экспортов —"),
    ],
)
def test_export_busy_reads_right_at_one_two_and_five(locale, one, two, five):
    for running, start in ((1, one), (2, two), (5, five)):
        rendered = BUSY(running=running).render(locale)
        assert rendered.startswith(start), (running, rendered)
    # 21 is "one" in Russian, 22 "few" (the CLDR rules, not English's)
    assert BUSY(running=21).render("ru").startswith("выполняется 21 экспорт —")
    assert BUSY(running=22).render("ru").startswith("выполняются 22 экспорта —")


#: The calls whose strings an operator or a reader is shown: messages, log lines, lines
#: written to a terminal (and an error's text: any call named ``…Error``).
SHOWN_BY = frozenset({
    "say", "plural", "debug", "info", "warning", "error", "exception", "critical", "log",
    "_log", "write", "print",
})  # fmt: skip
_PARENTHESISED_S = re.compile(r"[A-Za-z]\(s\)")


def _shown_strings() -> list[tuple[str, str]]:
    """Every literal string (an f-string's literal parts too) in the arguments of a call
    of :data:`SHOWN_BY` or of an error (``PluginError(...)``) in core, plugins, adapters
    and the example: (where, text)."""
    found = []
    for path, node, name in _calls():
        if name not in SHOWN_BY and not (name or "").endswith("Error"):  # an error's text
            continue
        for arg in [*node.args, *(k.value for k in node.keywords)]:
            for part in ast.walk(arg):
                if isinstance(part, ast.Constant) and isinstance(part.value, str):
                    found.append((f"{path.relative_to(ROOT)}:{part.lineno}", part.value))
    return found


def test_no_message_or_log_line_counts_with_parenthesised_s():
    shown = _shown_strings()
    assert len(shown) > 2000, "the scan found too few strings: is it looking?"
    assert any("did not close within" in text for _, text in shown), "log lines not scanned"
    wrong = [(where, text) for where, text in shown if _PARENTHESISED_S.search(text)]
    assert wrong == [], wrong


def test_counted_gives_the_english_that_agrees():
    assert counted(1, "table") == "1 table"
    assert counted(0, "table") == "0 tables"
    assert counted(2, "idle table") == "2 idle tables"
    assert counted(1, "request was", "requests were") == "1 request was"
    assert counted(204, "request was", "requests were") == "204 requests were"


def _too_long(count: int) -> Any:
    return TOO_LONG(length=count, limit=256)


def _too_many_faces(count: int) -> Any:
    return FACES_LIMIT(faces=count, limit=1_000_000)


@pytest.mark.parametrize(
    ("make", "locale", "count", "expected"),
    [
        (_too_long, "en", 257, "a dice formula of 257 characters;"),
        (_too_long, "ru", 257, "длина формулы костей — 257 символов,"),
        (_too_long, "ru", 261, "длина формулы костей — 261 символ,"),
        (_too_long, "ru", 262, "длина формулы костей — 262 символа,"),
        (_too_long, "ru", 1001, "длина формулы костей — 1001 символ,"),
        (_too_long, "ru", 1011, "длина формулы костей — 1011 символов,"),
        (_too_long, "cs", 261, "vzorec kostek o délce 261 znaků;"),
        (_too_long, "de", 261, "eine Würfelformel aus 261 Zeichen;"),
        (_too_many_faces, "en", 1000001, "a die of 1000001 faces;"),
        (_too_many_faces, "ru", 1000001, "кость с 1000001 гранью;"),
        (_too_many_faces, "ru", 1000002, "кость с 1000002 гранями;"),
        (_too_many_faces, "ru", 1000011, "кость с 1000011 гранями;"),
        (_too_many_faces, "cs", 1000001, "kostka s 1000001 stěnami;"),
        (_too_many_faces, "de", 1000001, "ein Würfel mit 1000001 Seiten;"),
    ],
)
def test_a_dice_limit_reads_right_at_every_count(make, locale, count, expected):
    assert make(count).render(locale).startswith(expected)


def test_the_parser_counts_the_faces_it_refuses():
    with pytest.raises(DiceLimitExceeded) as refused:
        parse("1d1000001")
    assert "кость с 1000001 гранью;" in refused.value.render("ru")
    with pytest.raises(DiceLimitExceeded) as refused:
        parse("1+" * 130 + "1")  # 261 characters
    assert "— 261 символ," in refused.value.render("ru")


#: The refusals that name a size in bytes, each a plural on the size: Russian says
#: "байта" after 2-4 (1002, 70003), "байт" after 1 and 5-20 (1001, 1005, 1012).
SIZE_REFUSALS = {
    "event": lambda size: EVENT_TOO_LARGE(size=size, limit=1000),
    "odds": lambda size: ODDS_TOO_LARGE(size=size, limit=1000),
    "stats": lambda size: STATS_TOO_LARGE(size=size, limit=1000),
}


@pytest.mark.parametrize("refusal", sorted(SIZE_REFUSALS))
@pytest.mark.parametrize(
    ("locale", "size", "words"),
    [
        ("en", 1001, "1,001 bytes"),
        ("ru", 1001, "1\u00a0001 байт"),
        ("ru", 1002, "1\u00a0002 байта"),
        ("ru", 70003, "70\u00a0003 байта"),
        ("ru", 1005, "1\u00a0005 байт"),
        ("ru", 1012, "1\u00a0012 байт"),
        ("cs", 1002, "1\u00a0002 bajt"),
        ("de", 1002, "1.002 Bytes"),
    ],
)
def test_a_size_in_bytes_agrees_with_its_number(refusal, locale, size, words):
    text = SIZE_REFUSALS[refusal](size).render(locale)
    if refusal == "event":  # this one is written without grouped digits
        words = words.replace(",", "").replace("\u00a0", "").replace(".", "")
    assert words in text, text


def test_two_counts_in_one_russian_refusal_put_no_noun_after_either():
    """odds.too_many_totals counts totals and bytes, one plural cannot agree with both:
    the Russian puts each number after its noun."""
    text = TOO_MANY_TOTALS(totals=1002, size=70002, limit=65536).render("ru")
    assert "число сумм в шансах — 1\u00a0002," in text
    assert "в байтах — не меньше 70\u00a0002" in text


#: What the two refusals of a number of targets say at 1, 2 and 5: a range's end, and
#: its least ("at least 1 target") where it has no end.
TARGET_COUNTS = {
    "range": (
        lambda n: TARGETS_BETWEEN(action="'hit'", low=0, high=n, got=7),
        {
            "en": ["takes 0 to 1 target,", "takes 0 to 2 targets,", "takes 0 to 5 targets,"],
            "cs": ["potřebuje 0 až 1 cíl,", "potřebuje 0 až 2 cíle,", "potřebuje 0 až 5 cílů,"],
            "de": ["nimmt 0 bis 1 Ziel,", "nimmt 0 bis 2 Ziele,", "nimmt 0 bis 5 Ziele,"],
            "ru": ["нужно от 0 до 1 цели,", "нужно от 0 до 2 целей,", "нужно от 0 до 5 целей,"],
        },
    ),
    "open": (
        lambda n: TARGETS_AT_LEAST(action="'hit'", low=n, got=0),
        {
            "en": ["takes at least 1 target,", "at least 2 targets,", "at least 5 targets,"],
            "cs": ["potřebuje aspoň 1 cíl,", "aspoň 2 cíle,", "aspoň 5 cílů,"],
            "de": ["nimmt mindestens 1 Ziel,", "mindestens 2 Ziele,", "mindestens 5 Ziele,"],
            "ru": ["нужно не меньше 1 цели,", "не меньше 2 целей,", "не меньше 5 целей,"],
        },
    ),
}


@pytest.mark.parametrize("locale", ["en", "cs", "de", "ru"])
@pytest.mark.parametrize("which", sorted(TARGET_COUNTS))
def test_a_number_of_targets_agrees_with_its_count(which, locale):
    make, forms = TARGET_COUNTS[which]
    for count, expected in zip((1, 2, 5), forms[locale], strict=True):
        said = make(count).render(locale)
        assert expected in said, said


def test_a_built_in_rulesets_exception_is_in_its_conformance_suite_alone():
    """One list of why a ruleset's count reads right at one: a second copy here (until
    rev29a, in other words) drifts from the suite's, which a third-party author reads."""
    again = {key for key in NEVER_ONE if not key.startswith("rollbridge.")}
    assert again == set(), f"in a ruleset's conformance suite's never_one, drop here: {again}"
    assert {"sr2.tn.recoil", "wilddie.refused.damage.too_many"} <= RULESETS_NEVER_ONE.keys()


def test_the_russian_stats_too_large_already_counts_after_more_than_in_the_genitive():
    """«больше N …» puts the noun in the genitive, as the catalogue's other «не
    более N символа/символов» do: «больше 131 081 байта», «больше 131 082 байт» —
    the hostile29 text had the nominative's forms (байт, байта) swapped in."""
    from rollbridge.stats.tally import TOO_LARGE_ALREADY

    for size, said in ((131081, "больше 131 081 байта,"), (131082, "больше 131 082 байт,"),
                       (131085, "больше 131 085 байт,")):  # fmt: skip
        rendered = TOO_LARGE_ALREADY(size=size, limit=131072).render("ru")
        assert said in rendered.replace("\N{NO-BREAK SPACE}", " "), rendered
