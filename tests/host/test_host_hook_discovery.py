"""How the host finds a plugin's hooks beyond a function named as the hook: one that
``@rollbridge.hookimpl(specname=…)`` marks under another name, and one a plugin gives
only through ``__getattr__``. Each is judged as pluggy registers it, on every pluggy
pyproject.toml allows (1.3 up: the stand-in of tests/host/test_host_older_pluggy.py
is pluggy 1.6's lookup, which 1.3 shares)."""

from __future__ import annotations

import types

import pytest

from rollbridge.exceptions import PluginLoadError
from rollbridge.host import PluginHost
from tests.host.test_host_older_pluggy import older_pluggy  # noqa: F401  (a fixture)

NO_AUTOLOAD = {"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}


def _module(name: str, source: str) -> types.ModuleType:
    """A plugin module ``name`` made of ``source`` (as a file of the plugin's would be)."""
    module = types.ModuleType(name)
    exec(compile("import rollbridge\n" + source, f"<{name}>", "exec"), module.__dict__)
    return module


def _refusal(plugin: object) -> PluginLoadError:
    with pytest.raises(PluginLoadError) as refused:
        PluginHost({"coin": plugin}, builtins=False, environ=NO_AUTOLOAD)
    return refused.value


def test_a_specname_hook_with_a_parameter_the_hook_does_not_pass_is_refused_in_words():
    """``@hookimpl(specname="register_rulesets") def my_rulesets(reg)`` was refused
    with pluggy's words under "could not be registered" (``Plugin 'coin' for hook
    'register_rulesets'\\nhookimpl definition: my_rulesets(reg)\\nArgument(s)
    {'reg'} are declared in the hookimpl …``): the host checked only functions named
    as a hook. It names the plugin, the hook, the function and its parameters, and
    the hook's own, in the operator's language."""
    refused = _refusal(_module("rb_named", """
@rollbridge.hookimpl(specname="register_rulesets")
def my_rulesets(reg):
    pass
"""))  # fmt: skip
    assert str(refused) == (
        "plugin 'coin' implements register_rulesets with my_rulesets(reg) "
        '(@rollbridge.hookimpl(specname="register_rulesets")), but rollbridge passes '
        "register_rulesets no 'reg': take only parameters of (register), by those "
        "names (docs/plugins.md, 'The hooks')"
    )
    assert refused.code == "plugin_load_failed"
    assert refused.details == {"plugin": "coin", "hook": "register_rulesets"}
    for locale in ("cs", "de", "ru"):
        said = refused.render(locale)
        assert "my_rulesets(reg)" in said and "(register)" in said
        assert "passes" not in said, locale


def test_a_specname_hook_taking_a_parameter_positionally_only_is_refused_naming_it():
    """The host calls ``register_rulesets(register=…)``: a specname function whose
    ``register`` is positional-only could never be called, refused naming it."""
    refused = _refusal(_module("rb_named", """
@rollbridge.hookimpl(specname="table_created")
def on_table(table, /):
    pass
"""))  # fmt: skip
    assert str(refused).startswith(
        "plugin 'coin' implements table_created with on_table(table, /) "
        '(@rollbridge.hookimpl(specname="table_created")), but rollbridge calls it as '
        "table_created(table=…)"
    )
    assert refused.details == {"plugin": "coin", "hook": "table_created"}


def test_a_specname_hook_with_the_hooks_parameters_loads_and_is_called():
    """The check refuses only what pluggy would: a specname function taking the hook's
    parameters registers, and the host calls it."""
    seen: list[str] = []
    plugin = _module("rb_named", """
@rollbridge.hookimpl(specname="table_created")
def on_table(table):
    SEEN.append(table["id"])
""")  # fmt: skip
    plugin.SEEN = seen
    host = PluginHost({"coin": plugin}, builtins=False, environ=NO_AUTOLOAD)
    host.notify("table_created", table={"id": "t1"})
    assert seen == ["t1"]


LAZY = """
@rollbridge.hookimpl
def _created(table):
    SEEN.append(table["id"])

def __getattr__(name):
    if name == "table_created":
        return _created
    raise AttributeError(name)

def __dir__():
    return ["table_created"]
"""


@pytest.mark.parametrize("pluggy_lookup", ["installed", "1.6"])
def test_a_hook_given_only_through_getattr_is_refused_on_every_pluggy(request, pluggy_lookup):
    """A lazy module (PEP 562: ``__getattr__`` and ``__dir__``) giving ``table_created``
    registered on pluggy 1.3 to 1.6, which read ``getattr(plugin, name)``, and was
    silently left out on 1.7, which looks without running ``__getattr__``: the same
    plugin ran its hook on one and never on the other. Both now refuse it, naming the
    hook and what to do."""
    if pluggy_lookup == "1.6":
        request.getfixturevalue("older_pluggy")
    refused = _refusal(_module("rb_lazy", LAZY))
    assert str(refused) == (
        "plugin 'coin' gives the hook table_created only through __getattr__ "
        "(table_created), where rollbridge does not look for hooks: define or import "
        "table_created in the plugin itself (docs/plugins.md, 'The hooks')"
    )
    assert refused.details == {"plugin": "coin", "hook": "table_created"}
    assert "__getattr__" in refused.render("de")


@pytest.mark.parametrize("pluggy_lookup", ["installed", "1.6"])
def test_a_getattr_giving_no_hook_or_failing_leaves_the_plugin_loading(request, pluggy_lookup):
    """A ``__getattr__`` that gives plain values for the names its ``__dir__`` lists
    is no hook: the plugin loads with its defined hooks."""
    if pluggy_lookup == "1.6":
        request.getfixturevalue("older_pluggy")
    plugin = _module("rb_lazy", """
@rollbridge.hookimpl
def table_created(table):
    pass

def __getattr__(name):
    if name == "VERSION":
        return "1.0"
    raise AttributeError(name)

def __dir__():
    return ["VERSION", "table_created"]
""")  # fmt: skip
    host = PluginHost({"coin": plugin}, builtins=False, environ=NO_AUTOLOAD)
    assert host.implements("table_created")


def test_a_lazy_modules_other_names_stay_unread_as_pluggy_17_leaves_them():
    """A lazy module (``__getattr__`` importing a submodule when asked, ``__dir__``
    listing it: the common pattern) with a hook of its own loads, and its lazy names
    that are no hook's stay unasked, as pluggy 1.7 registers it: the check of
    ``__getattr__`` hooks asked every name the module listed, so the start imported
    every lazy submodule of the plugin (its cost, its side effects) on pluggy 1.7."""
    asked: list[str] = []
    plugin = _module("rb_lazy_imports", """
@rollbridge.hookimpl
def table_created(table):
    pass

def __getattr__(name):
    if name in ("heavy", "reports"):
        ASKED.append(name)  # where a lazy module imports its submodule
        return object()
    raise AttributeError(name)

def __dir__():
    return [*globals(), "heavy", "reports"]
""")  # fmt: skip
    plugin.ASKED = asked
    host = PluginHost({"coin": plugin}, builtins=False, environ=NO_AUTOLOAD)
    assert host.implements("table_created")
    assert asked == []
