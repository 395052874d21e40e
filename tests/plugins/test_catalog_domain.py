"""``rollbridge catalogs`` refuses a domain the plugin's sources do not declare.

A third-party author ran ``rollbridge catalogs update rollbridge_fatelike --domain
fate`` (or left out ``--domain``, whose default is the folder's name,
``rollbridge_fatelike``) for a plugin whose messages are ``Messages("fatelike")``:
every message was extracted all the same into ``fate.po``, translated, compiled —
and never read, since the server looks the messages up in the domain ``fatelike``.
Now the command stops before writing anything, naming the domain the sources
declare.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rollbridge import catalogs
from rollbridge.exceptions import InvalidRequest

MESSAGES = """\
from pathlib import Path

from rollbridge.text import Messages

say = Messages("fatelike", catalogs=Path(__file__).with_name("locale"))
HITS = say("attack.hits", "{attacker} hits {target}")
"""


@pytest.fixture
def package(tmp_path: Path) -> Path:
    folder = tmp_path / "rollbridge_fatelike"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "messages.py").write_text(MESSAGES)
    return folder


def _catalogs(package: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rollbridge", "catalogs", *args, str(package), "--locale", "cs"],
        capture_output=True,
        text=True,
        env={**os.environ, "LANGUAGE": "en"},
    )


@pytest.mark.parametrize("domain", [["--domain", "fate"], []], ids=["misspelt", "folder-name"])
@pytest.mark.parametrize("action", ["update", "check"])
def test_a_domain_the_sources_do_not_declare_is_refused_naming_theirs(package, action, domain):
    done = _catalogs(package, action, *domain)
    assert done.returncode != 0
    given = domain[1] if domain else "rollbridge_fatelike"
    assert (
        f"invalid_request: the sources declare no messages of the domain '{given}': they "
        f"declare 'fatelike' ({package / 'messages.py'}); give --domain" in done.stderr
    ), done.stderr
    assert not (package / "locale").exists()  # nothing written


def test_the_declared_domain_is_taken(package):
    done = _catalogs(package, "update", "--domain", "fatelike")
    assert done.returncode == 0, done.stderr
    assert (package / "locale" / "cs" / "LC_MESSAGES" / "fatelike.po").is_file()


def test_sources_naming_their_domain_by_an_expression_are_not_checked(tmp_path):
    """A ``Messages(config.DOMAIN)`` names a domain no reading of the sources can
    tell: nothing to compare with."""
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "m.py").write_text(
        "import config\nsay = Messages(config.DOMAIN)\nA = say('a', 'A')\n"
    )
    assert catalogs.declared_domains(folder) == {}
    assert [m.context for m in catalogs.extract(folder, "whatever") if m.id] == ["a"]
    with pytest.raises(InvalidRequest):
        catalogs.extract(Path(__file__).parents[2] / "plugins" / "sr2", "sr3")


@pytest.mark.parametrize(
    "files",
    [
        {"m.py": 'DOMAIN = "fatelike"\nsay = Messages(DOMAIN)\nA = say("a", "A")\n'},
        {"m.py": 'DOMAIN: str = "fatelike"\nsay = Messages(domain=DOMAIN)\nA = say("a", "A")\n'},
        {"names.py": 'DOMAIN = "fatelike"\n',
         "m.py": 'from .names import DOMAIN\nsay = Messages(DOMAIN)\nA = say("a", "A")\n'},
        {"names.py": 'DOMAIN = "fatelike"\n',
         "m.py": 'from pkg.names import DOMAIN as D\nsay = Messages(D)\nA = say("a", "A")\n'},
    ],
    ids=["constant", "annotated-keyword", "imported", "imported-absolute"],
)  # fmt: skip
def test_a_domain_named_by_a_constant_of_the_sources_is_checked(tmp_path, files):
    """``DOMAIN = "fatelike"; Messages(DOMAIN)`` was not compared with ``--domain``:
    ``--domain fate`` made, and had translated, a catalogue no message is looked up
    in. The constant is read — in the file, or imported from another of the
    sources — and the wrong domain refused naming the one declared."""
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for name, source in files.items():
        (folder / name).write_text(source)
    assert list(catalogs.declared_domains(folder)) == ["fatelike"]
    with pytest.raises(InvalidRequest, match="they declare 'fatelike'"):
        catalogs.extract(folder, "fate")
    assert [m.context for m in catalogs.extract(folder, "fatelike") if m.id] == ["a"]


def test_a_plugins_new_catalogue_names_its_authors_not_rollbridges(package):
    """A third-party plugin's catalogues said "Report-Msgid-Bugs-To: the rollbridge
    issue tracker" and "Last-Translator: rollbridge developers": a translator would
    report its mistakes to the wrong project. rollbridge's own domains keep theirs."""
    catalogs.update(package, "fatelike", ["cs"])
    po = (package / "locale" / "cs" / "LC_MESSAGES" / "fatelike.po").read_text()
    assert po.startswith("# The cs messages of the fatelike plugin for rollbridge.\n")
    assert '"Report-Msgid-Bugs-To: the fatelike plugin\'s issue tracker\\n"' in po
    assert '"Last-Translator: the fatelike plugin\'s authors\\n"' in po
    assert "rollbridge developers" not in po
    sr2 = catalogs.extract(Path(__file__).parents[2] / "plugins" / "sr2", "sr2")
    assert sr2.msgid_bugs_address == "the rollbridge issue tracker"
    assert sr2.last_translator == "rollbridge developers"


@pytest.mark.parametrize(
    "source",
    [
        'DOMAIN = "fatelike"\nsay = Messages(DOMAIN)\ncore = Messages("rollbridge")\n',
        'DOMAIN = "fatelike"\nsay = Messages(domain=DOMAIN)\ncore = Messages("rollbridge")\n',
    ],
    ids=["positional", "keyword"],
)
def test_a_domain_named_by_a_variable_beside_a_literal_one_is_not_refused(tmp_path, source):
    """A plugin whose own ``Messages`` names its domain by a variable and which also
    reuses core texts with ``Messages("rollbridge")`` was refused — "they declare
    'rollbridge'" — though ``--domain fatelike`` is the domain its ``say`` declares:
    the variable's value is read, so both are declared."""
    folder = tmp_path / "rollbridge_fatelike"
    folder.mkdir()
    (folder / "messages.py").write_text(
        "from rollbridge.text import Messages\n" + source + 'HITS = say("attack.hits", "Hits")\n'
    )
    done = _catalogs(folder, "update", "--domain", "fatelike")
    assert done.returncode == 0, done.stderr
    assert (folder / "locale" / "cs" / "LC_MESSAGES" / "fatelike.po").is_file()
    declared = catalogs.declared_domains(folder)
    assert declared == {"fatelike": folder / "messages.py", "rollbridge": folder / "messages.py"}


def test_a_domain_given_by_keyword_is_declared(tmp_path):
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "m.py").write_text('say = Messages(domain="fatelike")\nA = say("a", "A")\n')
    assert catalogs.declared_domains(folder) == {"fatelike": folder / "m.py"}
    with pytest.raises(InvalidRequest):
        catalogs.extract(folder, "fate")


PACKAGE = {
    "__init__.py": "",
    "names.py": 'DOMAIN = "fatelike"\n',
    "messages.py": """\
from rollbridge.text import Messages

from .names import DOMAIN

say = Messages(DOMAIN)
core = Messages("rollbridge")
HITS = say("attack.hits", "{attacker} hits {target}")
# Translators: a core text the plugin reuses: it is rollbridge's, not the plugin's
AGAIN = core("plugin.again", "again")
DIES = say.plural("dice.count", "{count} die", "{count} dice")
""",
    "rules.py": """\
from .messages import say as speak

MISSES = speak("attack.misses", "{attacker} misses")
""",
    "tables/__init__.py": "",
    "tables/oracle.py": """\
from rollbridge.text import Messages

say = Messages("oracle")
ASKED = say("oracle.asked", "the oracle is asked")
""",
    "tables/elsewhere.py": """\
from somewhere_else import say

KEPT = say("kept", "a message the sources do not show the domain of")
""",
    "tables/lookup.py": """\
def core(key, default):
    return default

NOT_A_MESSAGE = core("colour", "a call of a name a Messages has in another file")
""",
}


@pytest.fixture
def two_domains(tmp_path: Path) -> Path:
    """A plugin's package declaring the domains fatelike, rollbridge and oracle."""
    folder = tmp_path / "rollbridge_fatelike"
    for name, source in PACKAGE.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(source)
    return folder


@pytest.mark.parametrize(
    ("domain", "contexts"),
    [
        ("fatelike", ["attack.hits", "dice.count", "attack.misses", "kept"]),
        ("oracle", ["oracle.asked", "kept"]),
        ("rollbridge", ["plugin.again", "kept"]),
    ],
)
def test_extraction_takes_the_messages_of_its_domain_only(two_domains, domain, contexts):
    """Every ``say(...)`` of a folder went into each domain's ``.pot``: the
    plugin's catalogue had the oracle's messages and the reused core text to
    translate, and ``oracle.pot`` the plugin's. Each call whose ``Messages`` the
    sources show — bound in its file (``core = Messages("rollbridge")``, read as
    ``core(...)`` too) or imported from another (``from .messages import say as
    speak``) — goes to its domain; one whose ``Messages`` comes from elsewhere is
    kept in each (``kept``). A name bound to a ``Messages`` in one file is read
    only there (``core(...)`` of tables/lookup.py is a function of its own)."""
    extracted = catalogs.extract(two_domains, domain)
    assert sorted(m.context for m in extracted if m.id) == sorted(contexts)


def test_update_writes_each_domains_own_catalogue(two_domains):
    done = _catalogs(two_domains, "update", "--domain", "oracle")
    assert done.returncode == 0, done.stderr
    pot = (two_domains / "locale" / "oracle.pot").read_text()
    assert 'msgctxt "oracle.asked"' in pot and "attack.hits" not in pot
    po = (two_domains / "locale" / "cs" / "LC_MESSAGES" / "oracle.po").read_text()
    assert "attack.hits" not in po and "plugin.again" not in po


def test_a_comment_inside_the_call_keeps_it_in_its_domain(tmp_path):
    """A comment between a call's "(" and its first argument: Babel gives the call
    the comment's line, which the reading of the sources did not know (it had the
    first argument's): the ``say(...)`` of the plugin's domain went into rollbridge's
    catalogue too, and the ``core(...)`` of rollbridge's into none."""
    folder = tmp_path / "rollbridge_fatelike"
    folder.mkdir()
    (folder / "__init__.py").write_text(
        "from rollbridge.text import Messages\n\n"
        'say = Messages("fatelike")\n'
        'core = Messages("rollbridge")\n'
        "HITS = say(\n"
        "    # a hit, said to the table\n"
        '    "attack.hits",\n'
        '    "{attacker} hits",\n'
        ")\n"
        "AGAIN = core(\n"
        "    # a core text the plugin reuses\n"
        '    "plugin.again",\n'
        '    "again",\n'
        ")\n"
    )
    for domain, context in (("fatelike", "attack.hits"), ("rollbridge", "plugin.again")):
        extracted = catalogs.extract(folder, domain)
        assert [m.context for m in extracted if m.id] == [context]


def test_a_name_bound_to_a_messages_by_assignment_is_read_as_one(tmp_path):
    """``_ = say`` (gettext's habit) in the file, or ``speak = say`` of a ``say``
    imported from another module: the calls by the alias were not read at all (no
    name of a ``Messages`` was bound to them), so their messages were in no
    catalogue and read in English in every language."""
    folder = tmp_path / "rollbridge_fatelike"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "messages.py").write_text(
        "from rollbridge.text import Messages\n\n"
        'say = Messages("fatelike")\n'
        "_ = say\n"
        'HITS = _("attack.hits", "{attacker} hits")\n'
        'DIES = _.plural("dice.count", "{count} die", "{count} dice")\n'
    )
    (folder / "rules.py").write_text(
        "from rollbridge.text import Messages\n\n"
        "from .messages import say\n\n"
        "speak = say\n"
        'oracle = Messages("oracle")\n'
        "ask = oracle\n"
        'MISSES = speak("attack.misses", "{attacker} misses")\n'
        'ASKED = ask("oracle.asked", "the oracle is asked")\n'
    )
    fatelike = catalogs.extract(folder, "fatelike")
    assert sorted(m.context for m in fatelike if m.id) == [
        "attack.hits",
        "attack.misses",
        "dice.count",
    ]
    assert [m.context for m in catalogs.extract(folder, "oracle") if m.id] == ["oracle.asked"]


def test_an_alias_of_an_imported_alias_is_read_as_one_however_deep(tmp_path):
    """``talk = speak`` of a ``speak`` imported from a module where it is itself an
    alias of an imported ``say``: the aliases were bound in two rounds, and a third
    link was bound in none, so its calls were not read at all (their messages in no
    catalogue, English in every language). Names are bound until nothing more is."""
    folder = tmp_path / "rollbridge_fatelike"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "a.py").write_text(
        'from rollbridge.text import Messages\n\nsay = Messages("fatelike")\n'
    )
    (folder / "b.py").write_text("from .a import say\n\nspeak = say\n")
    (folder / "c.py").write_text(
        'from .b import speak\n\ntalk = speak\nHITS = talk("attack.hits", "{attacker} hits")\n'
    )
    (folder / "d.py").write_text(
        "from .c import talk\n\nshout = talk\n"
        'MISSES = shout("attack.misses", "{attacker} misses")\n'
    )
    fatelike = catalogs.extract(folder, "fatelike")
    assert sorted(m.context for m in fatelike if m.id) == ["attack.hits", "attack.misses"]
