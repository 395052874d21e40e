"""Startup refusals a new plugin author meets: a hook whose parameters are not the
hook's, and an entry point that names something with no hooks at all. Each names
the problem and what to write, in the operator's language."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import textwrap

import pytest

from rollbridge.exceptions import PluginLoadError
from rollbridge.host import PluginHost

COIN = """
    import rollbridge
    from rollbridge import ActionSpec, CommonState, Resolution, Ruleset

    class Coin(Ruleset):
        id = "coin"
        name = "Coin"
        version = "1.0.0"
        actions = {"flip": ActionSpec("flip", "Flip a coin.", actor="none")}
        def initial_state(self, sheet): return {}
        def resolve(self, context, dice): return Resolution("heads")
        def common_state(self, actor): return CommonState()
"""


@pytest.fixture(autouse=True)
def _forget_modules():
    """Each test installs its own ``rb_coin``: forget the one an earlier test imported."""
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        del sys.modules[name]
    importlib.invalidate_caches()


def _package(root, module, source, *, target=None, files=None):
    """An installed distribution ``rb-coin`` whose entry point ``coin`` names
    ``target`` (default: the module ``module``, written from ``source``)."""
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    for path, text in (files or {}).items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(textwrap.dedent(text))
    info = root / "rb_coin-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rb-coin\nVersion: 1.0.0\n")
    (info / "entry_points.txt").write_text(f"[rollbridge]\ncoin = {target or module}\n")


def _refusal(root, monkeypatch) -> PluginLoadError:
    """The refusal of a host started with the distributions installed in ``root``."""
    monkeypatch.syspath_prepend(str(root))
    with pytest.raises(PluginLoadError) as refused:
        PluginHost(builtins=False, environ={})
    return refused.value


@pytest.mark.parametrize(
    ("signature", "given", "unknown"),
    [("reg", "reg", "'reg'"), ("register, table", "register, table", "'table'"),
     ("self, register", "self, register", "'self'")],
)  # fmt: skip
def test_a_hook_with_a_parameter_the_hook_does_not_pass_is_refused_naming_the_hooks(
    tmp_path, monkeypatch, signature, given, unknown
):
    """``register_rulesets(reg)`` was refused with pluggy's words, three lines of a
    developer's English (``Argument(s) {'reg'} are declared in the hookimpl but can
    not be found in the hookspec``) under "could not be registered", the newlines
    printed as ``\\n``. It names the parameter and the hook's own, in the operator's
    language."""
    _package(tmp_path, "rb_coin", COIN + f"""
    @rollbridge.hookimpl
    def register_rulesets({signature}):
        pass
    """)  # fmt: skip
    refused = _refusal(tmp_path, monkeypatch)
    assert str(refused) == (
        f"plugin 'coin' implements register_rulesets({given}), but rollbridge passes "
        f"register_rulesets no {unknown}: take only parameters of (register), by those "
        "names (docs/plugins.md, 'The hooks')"
    )
    assert refused.code == "plugin_load_failed"
    assert refused.details == {"plugin": "coin", "hook": "register_rulesets"}
    czech = refused.render("cs")
    assert "register_rulesets" in czech and "(register)" in czech and "passes" not in czech


@pytest.mark.parametrize(
    "signature", ["register", "register, extra=None", "register, *args, **kwargs"]
)
def test_a_hook_taking_a_subset_of_its_arguments_or_defaults_loads(
    tmp_path, monkeypatch, signature
):
    """What pluggy calls — the hook's arguments, and parameters with a default it
    leaves to them — is taken as before."""
    _package(tmp_path, "rb_coin", COIN + f"""
    calls = []

    @rollbridge.hookimpl
    def register_rulesets({signature}):
        calls.append(1)
        register(Coin())
    """)  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    host = PluginHost(builtins=False, environ={})
    import rb_coin

    assert rb_coin.calls == [1]
    assert host.plugins["coin"].rulesets == ["coin"]


def test_a_hook_method_of_an_object_takes_its_self_as_pluggy_does(tmp_path, monkeypatch):
    """An entry point may name an object whose methods are the hooks: their ``self``
    is no parameter of the hook."""
    _package(tmp_path, "rb_coin", COIN + """
    class Plugin:
        @rollbridge.hookimpl
        def register_rulesets(self, register):
            register(Coin())

    plugin = Plugin()
    """, target="rb_coin:plugin")  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    assert PluginHost(builtins=False, environ={}).plugins["coin"].rulesets == ["coin"]


def test_an_entry_point_naming_a_package_without_its_hooks_is_refused(tmp_path, monkeypatch):
    """The hooks in ``rb_coin/plugin.py``, the entry point naming the package
    ``rb_coin`` whose ``__init__`` does not import them: it loaded, registered nothing,
    was listed as "observer hooks only", and every use of the ruleset said only "no
    ruleset 'coin' is loaded". It is refused, naming what the entry point names."""
    _package(tmp_path, "rb_other", "", target="rb_coin", files={
        "rb_coin/__init__.py": '"""A coin ruleset for rollbridge."""\n',
        "rb_coin/plugin.py": textwrap.dedent(COIN) + textwrap.dedent("""
            @rollbridge.hookimpl
            def register_rulesets(register):
                register(Coin())
        """),
    })  # fmt: skip
    refused = _refusal(tmp_path, monkeypatch)
    assert str(refused) == (
        "plugin 'coin' (package rb-coin) implements no hook of rollbridge: its entry point "
        "names rb_coin, where no function is marked @rollbridge.hookimpl; name the module "
        "that holds the hooks (docs/plugins.md, 'Publishing')"
    )
    assert refused.details == {"plugin": "coin"}
    # the entry point naming the module with the hooks loads
    (tmp_path / "rb_coin-1.0.0.dist-info" / "entry_points.txt").write_text(
        "[rollbridge]\ncoin = rb_coin.plugin\n"
    )
    assert PluginHost(builtins=False, environ={}).plugins["coin"].rulesets == ["coin"]


@pytest.mark.parametrize(
    ("language", "said"),
    [("de_DE.UTF-8", "das Plugin 'coin' (Paket rb-coin) implementiert keinen Hook"),
     ("cs_CZ.UTF-8", "plugin 'coin' (balíček rb-coin) neimplementuje žádný hook"),
     ("ru_RU.UTF-8", "плагин 'coin' (пакет rb-coin) не реализует ни одного хука"),
     ("C", "plugin 'coin' (package rb-coin) implements no hook of rollbridge: its entry "
           "point names rb_coin:Coin")],
)  # fmt: skip
def test_an_entry_point_naming_the_ruleset_class_is_refused_in_the_operators_language(
    tmp_path, language, said
):
    """``coin = "rb_coin:Coin"`` — the ruleset's class, not the module with the hooks."""
    _package(tmp_path, "rb_coin", COIN, target="rb_coin:Coin")
    environ = {
        key: value
        for key, value in os.environ.items()
        if key not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
    }
    environ.update(PYTHONPATH=str(tmp_path), LANG=language)
    done = subprocess.run(
        [sys.executable, "-m", "rollbridge", "plugins"],
        capture_output=True, text=True, env=environ, cwd=tmp_path, check=False, timeout=120,
    )  # fmt: skip
    assert done.returncode != 0
    assert done.stderr.startswith(f"rollbridge: error: plugin_load_failed: {said}")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("hook", "signature", "call"),
    [("register_rulesets", "", "register_rulesets(register=…)"),
     ("register_rulesets", "register, /", "register_rulesets(register=…)"),
     ("register_rulesets", "*args", "register_rulesets(register=…)"),
     ("register_adapters", "", "register_adapters(register=…)"),
     ("table_created", "table, /", "table_created(table=…)")],
)  # fmt: skip
def test_a_hook_that_cannot_take_its_arguments_by_name_is_refused_naming_them(
    tmp_path, monkeypatch, hook, signature, call
):
    """``register_rulesets()`` — the docs' "a registration hook's ``register`` it must
    take" — was refused only when the host called it, with Python's English
    (``TypeError: register_rulesets() got an unexpected keyword argument 'register'``)
    under "failed in register_rulesets"; a positional-only ``register, /`` the same,
    and an observer's ``table_created(table, /)`` loaded and raised, logged and
    ignored, at every table made. Each is refused at startup naming the parameter
    and how rollbridge calls the hook, in the operator's language."""
    _package(tmp_path, "rb_coin", COIN + f"""
    @rollbridge.hookimpl
    def {hook}({signature}):
        pass
    """)  # fmt: skip
    refused = _refusal(tmp_path, monkeypatch)
    missing = "'register'" if hook.startswith("register_") else "'table'"
    assert str(refused) == (
        f"plugin 'coin' implements {hook}({signature}), but rollbridge calls it as {call}, "
        f"passing its arguments by name: take {missing} as a parameter of that name, not "
        "positional-only (docs/plugins.md, 'The hooks')"
    )
    assert refused.code == "plugin_load_failed"
    assert refused.details == {"plugin": "coin", "hook": hook}
    for locale, word in (("cs", "podle jména"), ("de", "über ihren Namen"), ("ru", "по имени")):
        said = refused.render(locale)
        assert word in said and call in said and "passing" not in said, said


def test_an_entry_point_naming_the_hook_function_is_told_to_name_its_module(tmp_path, monkeypatch):
    """``coin = "rb_coin:register_rulesets"`` names the marked hook itself: it was
    refused saying that no function at rb_coin:register_rulesets is marked
    @rollbridge.hookimpl, which it is. The refusal says the entry point names an
    object of the module rb_coin, and to name the module."""
    _package(tmp_path, "rb_coin", COIN + """
    @rollbridge.hookimpl
    def register_rulesets(register):
        register(Coin())
    """, target="rb_coin:register_rulesets")  # fmt: skip
    refused = _refusal(tmp_path, monkeypatch)
    assert str(refused) == (
        "plugin 'coin' (package rb-coin) implements no hook of rollbridge: its entry point "
        "names rb_coin:register_rulesets, an object of the module rb_coin, and the hooks are "
        "looked for among that object's attributes; name the module that holds the hooks "
        "(rb_coin if they are there) (docs/plugins.md, 'Publishing')"
    )
    assert "no function is marked" not in str(refused)
    assert "objekt modulu rb_coin" in refused.render("cs")
    # the entry point naming the module, as the refusal says, loads
    (tmp_path / "rb_coin-1.0.0.dist-info" / "entry_points.txt").write_text(
        "[rollbridge]\ncoin = rb_coin\n"
    )
    assert PluginHost(builtins=False, environ={}).plugins["coin"].rulesets == ["coin"]
