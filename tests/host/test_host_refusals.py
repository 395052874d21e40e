"""Startup refusals of a plugin: the version a ruleset gives, a hook left unmarked
(defined in the plugin or imported into it), and the operator's language."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap

import pytest

import rollbridge
from rollbridge.exceptions import PluginError, PluginLoadError
from rollbridge.host import PluginHost
from rollbridge.testing import host_with


def _ruleset(version: object) -> rollbridge.Ruleset:
    """A one-action ruleset giving ``version``."""

    class Coin(rollbridge.Ruleset):
        id = "coin"
        name = "Coin"
        actions = {"flip": rollbridge.ActionSpec("flip", "Flip a coin.", actor="none")}

        def initial_state(self, sheet):
            return {}

        def resolve(self, context, dice):
            return rollbridge.Resolution("heads")

        def common_state(self, actor):
            return rollbridge.CommonState()

    Coin.version = version  # type: ignore[assignment]
    return Coin()


@pytest.mark.parametrize(
    "version",
    ["1.0.0", "0.3.12", "1.0.0rc1", "2.1.0a3", "1.0.0b2", "1.0.0.post1", "1.0.0.dev4",
     "1.0.0rc1.post2.dev3", "1.0.0+local.7", "1.0.0-rc.1", "1.0.0-beta+exp.sha.5114f85"],
)  # fmt: skip
def test_a_version_of_three_numbers_with_a_package_label_is_taken(version):
    """What a packaging-literate author releases is taken without a word: PEP 440's
    pre-, post- and development releases and local labels (what pip and PyPI write,
    ``1.0.0rc1``) and a semantic version's (``1.0.0-rc.1``)."""
    host = host_with(_ruleset(version))
    assert host.rulesets["coin"].version == version


@pytest.mark.parametrize(
    ("version", "fixed"),
    [("v1.0.0", "'1.0.0'"), ("", "'1.0.0'"), ("one", "'1.0.0'"),
     # the numbers given are kept: another MAJOR would refuse the tables made with it
     ("v2.3.1", "'2.3.1'"), ("V3.0", "'3.0.0'"), ("release-2.0.0", "'2.0.0'"),
     ("1rc1", "'1.0.0rc1'")],
)  # fmt: skip
def test_a_version_whose_major_cannot_be_read_is_refused_naming_plugin_and_fix(version, fixed):
    """Tables compare a ruleset's major version (another refuses to open them):
    ``v2.3.1`` read as 0, the same for every release, so tables made with one major
    opened with another. It is refused, naming the plugin, the version and the one
    to write."""
    with pytest.raises(PluginError) as refused:
        host_with(_ruleset(version))
    assert str(refused.value) == (
        f"plugin 'under-test': ruleset 'coin' has the version {version!r}, which is not "
        f"MAJOR.MINOR.PATCH: write {fixed} (a pre-release, post-release or local label "
        "may follow: 1.0.0rc1, 1.0.0.post1, 1.0.0-rc.1, 1.0.0+local)"
    )
    assert refused.value.details == {"plugin": "under-test"}
    assert host_with(_ruleset(fixed[1:-1])).rulesets["coin"].version == fixed[1:-1]


@pytest.mark.parametrize(
    ("version", "fixed", "major"),
    [("1.0", "'1.0.0'", 1), ("1", "'1.0.0'", 1), ("1.0rc1", "'1.0.0rc1'", 1),
     ("2.5-beta", "'2.5.0-beta'", 2), ("1.0.0.0", "'1.0.0'", 1), ("2.1.0.0", "'2.1.0'", 2),
     ("1.2.3.4", "'1.2.3'", 1), ("2.1 ", "'2.1.0'", 2), ("2.1rc", "'2.1.0'", 2)],
)  # fmt: skip
def test_a_version_whose_major_reads_is_taken_with_a_warning(version, fixed, major, caplog):
    """``1.0`` loaded before the form was checked, and its major reads as tables
    compare it: a plugin that ran yesterday must not stop an upgraded server. It is
    taken, and a WARNING names the plugin, the version and the one to write."""
    with caplog.at_level(logging.WARNING, logger="rollbridge.host"):
        host = host_with(_ruleset(version))
    assert host.rulesets["coin"].version == version
    said = [r.getMessage() for r in caplog.records if r.name == "rollbridge.host"]
    assert said == [
        f"plugin 'under-test': ruleset 'coin' has the version {version!r}, which is not "
        f"MAJOR.MINOR.PATCH: taken (its major version reads {major}), but write {fixed}"
    ], said
    assert host_with(_ruleset(fixed[1:-1])).rulesets["coin"].version == fixed[1:-1]


def test_a_version_that_is_no_string_is_refused_naming_its_type():
    with pytest.raises(PluginError, match=r"ruleset 'coin' needs a version, a string like "
                       r"'1.0.0', not float"):  # fmt: skip
        host_with(_ruleset(1.0))


def _package(root, name, files):
    """A distribution ``name`` whose entry point names the module ``name``; ``files``
    are more modules beside it (a package of the author's shared code)."""
    for path, source in files.items():
        (root / path).write_text(textwrap.dedent(source))
    info = root / f"{name}-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0.0\n")
    (info / "entry_points.txt").write_text(f"[rollbridge]\n{name} = {name}\n")


def test_a_hook_imported_from_the_authors_other_package_unmarked_is_refused(tmp_path, monkeypatch):
    """An author keeps their hooks in a package of shared code and imports them into
    the plugin module; the mark forgotten there, the plugin loaded, registered
    nothing and was listed as "observer hooks only": only a function defined in the
    plugin's own package was looked at. It takes the hook's arguments — what pluggy
    would call if it were marked — so it is refused, naming where it comes from."""
    _package(tmp_path, "rb_fate", {
        "fate_common.py": """
            def register_rulesets(register):
                raise AssertionError("never called")
        """,
        "rb_fate.py": "from fate_common import register_rulesets\n",
    })  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PluginLoadError) as refused:
        PluginHost(builtins=False, environ={})
    assert str(refused.value) == (
        "plugin 'rb_fate' has register_rulesets from fate_common without "
        "@rollbridge.hookimpl, so rollbridge would never call it: mark it with "
        "@rollbridge.hookimpl where it is defined, or, if it is no hook, import it under "
        "another name (from fate_common import register_rulesets as …) (docs/plugins.md, "
        "'Publishing')"
    )
    assert refused.value.details == {"plugin": "rb_fate", "hook": "register_rulesets"}


def test_an_imported_hook_marked_where_it_is_defined_is_called(tmp_path, monkeypatch):
    """The same import, marked in the shared package: pluggy calls it."""
    _package(tmp_path, "rb_shared", {
        "shared_hooks.py": """
            import rollbridge

            seen = []

            @rollbridge.hookimpl
            def table_created(table):
                seen.append(table)
        """,
        "rb_shared.py": "from shared_hooks import table_created\n",
    })  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    host = PluginHost(builtins=False, environ={})
    host.notify("table_created", table={"id": "t"})
    import shared_hooks

    assert shared_hooks.seen == [{"id": "t"}]


def test_an_imported_helper_that_only_shares_a_hooks_name_loads(tmp_path, monkeypatch):
    """A function from elsewhere whose parameters are no arguments of the hook could
    never be that hook (pluggy refuses one marked so): a helper that happens to
    share the name, left alone."""
    _package(tmp_path, "rb_helped", {
        "signals.py": """
            def table_created(name, owner, *, quiet=False):
                return name
        """,
        "rb_helped.py": """
            import rollbridge
            from signals import table_created

            @rollbridge.hookimpl
            def register_rulesets(register):  # a hook, so the plugin is one
                pass
        """,
    })  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    host = PluginHost(builtins=False, environ={})
    assert "rb_helped" in host.plugins and not host.implements("table_created")


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("de_DE.UTF-8", "das Plugin 'rb_unmarked' definiert register_rulesets ohne "
                        "@rollbridge.hookimpl"),
        ("cs_CZ.UTF-8", "plugin 'rb_unmarked' definuje register_rulesets bez "
                        "@rollbridge.hookimpl"),
        ("ru_RU.UTF-8", "плагин 'rb_unmarked' определяет register_rulesets без "
                        "@rollbridge.hookimpl"),
        ("C", "plugin 'rb_unmarked' defines register_rulesets without @rollbridge.hookimpl"),
    ],
)  # fmt: skip
def test_a_startup_refusal_reads_in_the_operators_language(tmp_path, language, said):
    """A plugin refused at startup is the operator's to fix, and like every other
    message of the server and the CLI it reads in their language (the
    environment's, as ``serve`` picks it); it was English only."""
    _package(tmp_path, "rb_unmarked", {"rb_unmarked.py": """
        def register_rulesets(register):
            pass
    """})  # fmt: skip
    environ = {
        key: value
        for key, value in os.environ.items()
        if key not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
    }
    environ.update(PYTHONPATH=str(tmp_path), LANG=language)
    for command in (["plugins"], ["serve", "--db", "t.db", "--port", "0", "--no-demo"]):
        done = subprocess.run(
            [sys.executable, "-m", "rollbridge", *command],
            capture_output=True, text=True, env=environ, cwd=tmp_path, check=False,
            timeout=120,  # a safety net should it start serving: the refusal comes first
        )  # fmt: skip
        assert done.returncode != 0
        assert done.stderr.startswith(f"rollbridge: error: plugin_load_failed: {said}")
        assert "Traceback" not in done.stderr


@pytest.mark.parametrize("locale", ["cs", "de", "ru"])
def test_every_refusal_of_a_ruleset_is_translated(locale):
    """A refused ruleset reads in the operator's language, each part of the sentence
    (the plugin and ruleset, then what is wrong with it)."""
    with pytest.raises(PluginError) as refused:
        host_with(_ruleset("v1.0"))
    rendered = refused.value.render(locale)
    assert rendered != str(refused.value)
    assert "MAJOR.MINOR.PATCH" in rendered and "'1.0.0'" in rendered
    assert "which is not" not in rendered and "ruleset 'coin'" not in rendered


def _with_sheet_schema(schema: object) -> rollbridge.Ruleset:
    ruleset = _ruleset("1.0.0")
    type(ruleset).sheet_schema = schema  # type: ignore[attr-defined]
    return ruleset


@pytest.mark.parametrize(
    ("schema", "english", "czech"),
    [
        ({"type": "object", "properties": {"hp": {"type": "int"}}},
         "sheet_schema.hp has unknown type 'int'", "sheet_schema.hp má neznámý typ 'int'"),
        ({"type": "object", "minProperties": 1, "if": {}},
         "sheet_schema uses 2 unsupported keywords: if, minProperties",
         "sheet_schema používá 2 nepodporovaná klíčová slova: if, minProperties"),
        ({"type": "object", "required": ["hp"]},
         "sheet_schema requires 'hp' but does not describe it",
         "sheet_schema vyžaduje 'hp', ale nepopisuje ho"),
        ({"type": "object", "properties": {"w": {"type": "string",
                                                "choicesFrom": {"sheet": "w", "of": "me"}}}},
         "sheet_schema.w.choicesFrom.of must be 'actor' or 'target'",
         "sheet_schema.w.choicesFrom.of musí být 'actor' nebo 'target'"),
        ({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1,
                                                "default": 0}}},
         "sheet_schema.n has a default its own schema refuses",
         "sheet_schema.n má default, který vlastní schéma odmítá"),
    ],
)  # fmt: skip
def test_a_schema_the_checker_refuses_reads_in_the_operators_language(schema, english, czech):
    """A ruleset's schema refused at load time read half translated: the ruleset's
    refusal in the operator's language, what was wrong with the schema in English
    ("has unknown type", "uses unsupported keywords"). Each part is translated now;
    schema words and paths stay as written."""
    with pytest.raises(PluginError) as refused:
        host_with(_with_sheet_schema(schema))
    assert english in str(refused.value)
    assert czech in refused.value.render("cs"), refused.value.render("cs")
