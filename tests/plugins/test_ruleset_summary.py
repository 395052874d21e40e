"""A built-in ruleset's one paragraph reads in its reader's language: `rollbridge
rulesets sr2 --locale ru` printed every action in Russian under a paragraph in English
("Shadowrun 2nd-edition-style dice pools: …"), and the welcome's description of the
ruleset carried it in English to every client. The ruleset's ``name`` stays a plain
string (metadata, as its id and version)."""

from __future__ import annotations

import pytest

from rollbridge.cli import main
from rollbridge.contract import Ruleset
from rollbridge.host import PluginHost
from rollbridge.protocol.frames import decode, encode
from rollbridge.text import Text, render

BUILT_IN = ("sr2", "techlevel", "bandits", "wilddie")
#: A word of each ruleset's paragraph in each language, from its glossary.
WORDS = {
    "sr2": {"cs": "bojová rezerva", "de": "Kampfpool", "ru": "боевой пул"},
    "techlevel": {"cs": "vrstvu", "de": "Schicht", "ru": "слой"},
    "bandits": {"cs": "statistů", "de": "Statisten", "ru": "статистов"},
    "wilddie": {"cs": "divokou kostku", "de": "Wildcard-Würfel", "ru": "дикий кубик"},
}


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost()


@pytest.mark.parametrize("ruleset", BUILT_IN)
def test_the_summary_is_a_text_in_every_language(host, ruleset):
    described = host.rulesets[ruleset]
    assert isinstance(described.summary, Text)
    english = described.describe("en")["summary"]
    assert english == render(described.summary, locale="en") and english.endswith(".")
    for locale, word in WORDS[ruleset].items():
        said = described.describe(locale)["summary"]
        assert word in said and said != english, (locale, said)


@pytest.mark.parametrize("locale", ["cs", "de", "ru"])
def test_rulesets_prints_the_paragraph_in_the_users_language(locale, capsys):
    assert main(["rulesets", "sr2", "--locale", locale]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0] == "sr2 1.1.0: SR2: dice pools and staged damage"
    assert WORDS["sr2"][locale] in printed[1] and "Shadowrun 2nd-edition" not in printed[1]


@pytest.mark.parametrize("summary", ["A plain English paragraph.", "", Ruleset.summary])
def test_a_third_party_summary_as_a_plain_string_or_empty_still_describes(host, summary):
    """A plugin's ``summary`` may stay a plain string (or be empty, or left out: the
    contract's ``""``): the welcome's description carries it as that string, in JSON
    and msgpack frames alike."""
    base = type(host.rulesets["sr2"])
    ruleset = type("ThirdParty", (base,), {"id": "thirdparty", "summary": summary})()
    for locale in ("en", "cs", "ru"):
        said = ruleset.describe(locale)["summary"]
        assert said == summary
        for kind in ("json", "msgpack"):
            assert decode(encode({"summary": said}, kind)) == ({"summary": summary}, kind)


@pytest.mark.parametrize("kind", ["json", "msgpack"])
def test_a_text_summary_reaches_a_client_as_a_string_in_its_locale(host, kind):
    """A built-in ruleset's Text summary is rendered before a frame carries it: a
    client reads a string in its table's locale, never a stored text object."""
    described = host.rulesets["sr2"].describe("de")
    frame, _ = decode(encode({"ruleset": described}, kind))
    assert frame["ruleset"]["summary"] == render(host.rulesets["sr2"].summary, locale="de")
    assert WORDS["sr2"]["de"] in frame["ruleset"]["summary"]
