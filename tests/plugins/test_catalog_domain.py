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


def test_sources_naming_their_domain_by_a_variable_are_not_checked(tmp_path):
    """A ``Messages(DOMAIN)`` names no literal domain: nothing to compare with."""
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "m.py").write_text('DOMAIN = "x"\nsay = Messages(DOMAIN)\nA = say("a", "A")\n')
    assert catalogs.declared_domains(folder) == {}
    assert [m.context for m in catalogs.extract(folder, "whatever") if m.id] == ["a"]
    with pytest.raises(InvalidRequest):
        catalogs.extract(Path(__file__).parents[2] / "plugins" / "sr2", "sr3")


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
    a variable may name any domain, so the sources cannot be said to lack it."""
    folder = tmp_path / "rollbridge_fatelike"
    folder.mkdir()
    (folder / "messages.py").write_text(
        "from rollbridge.text import Messages\n" + source + 'HITS = say("attack.hits", "Hits")\n'
    )
    done = _catalogs(folder, "update", "--domain", "fatelike")
    assert done.returncode == 0, done.stderr
    assert (folder / "locale" / "cs" / "LC_MESSAGES" / "fatelike.po").is_file()
    assert catalogs.declared_domains(folder) == {"rollbridge": folder / "messages.py"}


def test_a_domain_given_by_keyword_is_declared(tmp_path):
    folder = tmp_path / "pkg"
    folder.mkdir()
    (folder / "m.py").write_text('say = Messages(domain="fatelike")\nA = say("a", "A")\n')
    assert catalogs.declared_domains(folder) == {"fatelike": folder / "m.py"}
    with pytest.raises(InvalidRequest):
        catalogs.extract(folder, "fate")
