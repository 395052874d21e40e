"""The plugin host (issue 2, item 2): discovery, operator controls, failures."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

import rollbridge
from rollbridge.adapter import Adapter
from rollbridge.exceptions import DuplicateRegistration, PluginError, PluginLoadError
from rollbridge.host import PluginHost
from rollbridge.testing import host_with

BUILTIN_RULESETS = {"sr2", "techlevel", "bandits", "wilddie"}


def make_entry_point(root, dist, name, module, source):
    """Install a real (if minimal) distribution with an entry point in ``root``."""
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{dist}-1.2.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.2.3\n")
    (info / "entry_points.txt").write_text(f"[rollbridge]\n{name} = {module}\n")


GOOD_PLUGIN = """
    import rollbridge
    from rollbridge import ActionSpec, CommonState, Resolution, Ruleset

    class Coin(Ruleset):
        id = "coin"
        name = "Coin"
        version = "1.0.0"
        actions = {"flip": ActionSpec("flip", "Flip a coin.", actor="none")}
        def initial_state(self, sheet): return {}
        def resolve(self, context, dice):
            return Resolution("heads" if dice.roll(2) == 1 else "tails")
        def common_state(self, actor): return CommonState()

    @rollbridge.hookimpl
    def register_rulesets(register):
        register(Coin())
"""


class TestBuiltins:
    def test_builtin_rulesets_register_like_any_plugin(self):
        host = PluginHost(environ={})
        assert set(host.rulesets) >= BUILTIN_RULESETS
        for ruleset_id in BUILTIN_RULESETS:
            owner = next(p for p in host.plugins.values() if ruleset_id in p.rulesets)
            assert owner.source == "builtin" and owner.version == rollbridge.__version__

    def test_block_list_applies_to_builtins(self):
        host = PluginHost(environ={"ROLLBRIDGE_BLOCK_PLUGINS": "bandits, wilddie"})
        assert "bandits" not in host.rulesets and "wilddie" not in host.rulesets
        assert "sr2" in host.rulesets

    def test_allow_list_loads_only_what_it_names(self):
        host = PluginHost(environ={"ROLLBRIDGE_PLUGINS": "sr2"})
        assert set(host.rulesets) == {"sr2"}


class TestEntryPoints:
    def test_third_party_plugin_is_found_through_the_entry_point_group(self, tmp_path, monkeypatch):
        make_entry_point(tmp_path, "rollbridge-coin", "coin", "coin_plugin", GOOD_PLUGIN)
        monkeypatch.syspath_prepend(str(tmp_path))
        host = PluginHost(environ={})
        assert "coin" in host.rulesets
        info = host.plugins["coin"]
        assert info.version == "1.2.3" and info.source == "entry point (rollbridge-coin)"

    def test_autoload_can_be_disabled(self, tmp_path, monkeypatch):
        make_entry_point(tmp_path, "rollbridge-coin", "coin", "coin_plugin", GOOD_PLUGIN)
        monkeypatch.syspath_prepend(str(tmp_path))
        host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
        assert "coin" not in host.rulesets and "sr2" in host.rulesets

    def test_block_list_skips_a_broken_plugin(self, tmp_path, monkeypatch):
        make_entry_point(tmp_path, "rollbridge-bad", "bad", "bad_plugin", "raise ImportError('x')")
        monkeypatch.syspath_prepend(str(tmp_path))
        assert "sr2" in PluginHost(environ={"ROLLBRIDGE_BLOCK_PLUGINS": "bad"}).rulesets

    def test_a_plugin_that_fails_to_import_stops_startup_naming_it(self, tmp_path, monkeypatch):
        make_entry_point(
            tmp_path, "rollbridge-bad", "bad", "bad_plugin", "import no_such_module_anywhere\n"
        )
        monkeypatch.syspath_prepend(str(tmp_path))
        with pytest.raises(PluginLoadError) as caught:
            PluginHost(environ={})
        message = str(caught.value)
        assert "'bad'" in message and "rollbridge-bad" in message
        assert "no_such_module_anywhere" in message

    def test_a_taken_ruleset_id_stops_startup_naming_both_plugins(self, tmp_path, monkeypatch):
        clash = GOOD_PLUGIN.replace('id = "coin"', 'id = "sr2"')
        make_entry_point(tmp_path, "rollbridge-clash", "clash", "clash_plugin", clash)
        monkeypatch.syspath_prepend(str(tmp_path))
        with pytest.raises(DuplicateRegistration) as caught:
            PluginHost(environ={})
        assert "'clash'" in str(caught.value) and "'sr2'" in str(caught.value)


class TestRegistration:
    def test_registering_something_that_is_not_a_ruleset(self):
        class Plugin:
            @rollbridge.hookimpl
            def register_rulesets(self, register):
                register(object())

        with pytest.raises(PluginError, match="not a Ruleset"):
            PluginHost({"odd": Plugin()}, builtins=False, environ={})

    def test_registering_the_class_instead_of_an_instance_says_so(self, tally):
        """``register(Fatelike)`` read "registered <class ...>, which is not a
        Ruleset" — it is one, as a class."""
        cls = type(tally)

        class Plugin:
            @rollbridge.hookimpl
            def register_rulesets(self, register):
                register(cls)

        with pytest.raises(PluginError, match=r"^plugin 'odd' registered the class Tally, not a "
                           r"ruleset: register an instance, register\(Tally\(\)\)$"):  # fmt: skip
            PluginHost({"odd": Plugin()}, builtins=False, environ={})

        class Dialect(Adapter):
            id = "dialect"

        class AdapterPlugin:
            @rollbridge.hookimpl
            def register_adapters(self, register):
                register(Dialect)

        with pytest.raises(PluginError, match=r"registered the class Dialect, not an adapter: "
                           r"register an instance, register\(Dialect\(\)\)$"):  # fmt: skip
            PluginHost({"odd": AdapterPlugin()}, builtins=False, environ={})

    def test_a_ruleset_with_a_bad_schema_is_refused_at_load(self, tally):
        class Broken(type(tally)):
            sheet_schema = {"type": "object", "propertys": {}}

        with pytest.raises(PluginError, match="propertys"):
            host_with(Broken())

    @pytest.mark.parametrize(
        ("attribute", "schema", "message"),
        [
            ("state_schema", {"type": "object", "properties": {"stress": {"type": "int"}}},
             r"state_schema\.stress has unknown type 'int'"),
            ("settings_schema", {"type": "object", "properties": {"style_shifts": {
                "type": "integer", "minimum": 1, "maximum": 5, "default": 9}}},
             r"settings_schema\.style_shifts has a default its own schema refuses: "
             r"settings_schema\.style_shifts default: .*"),
            ("sheet_schema", {"type": "object", "properties": {"hp": {
                "type": "string", "default": 3}}},
             r"sheet_schema\.hp has a default its own schema refuses"),
        ],
        ids=["state-type-typo", "settings-default-out-of-bounds", "sheet-default-wrong-type"],
    )  # fmt: skip
    def test_a_schema_the_checks_refuse_is_refused_at_load(self, tally, attribute, schema,
                                                          message):  # fmt: skip
        """The state schema is checked as the others are, and a default its own node
        refuses (which then made every GM ``settings`` request fail) is refused at
        load, naming the path (audit findings 6 and 7)."""
        broken = type("Broken", (type(tally),), {attribute: schema})
        with pytest.raises(PluginError, match=message):
            host_with(broken())

    @pytest.mark.parametrize(
        ("texts", "message"),
        [
            ({"labels": {"bonsu": "Bonus"}}, r"labels: 'bonsu' is not one of its parameters"),
            ({"hints": {"amount": "How much"}}, r"hints: 'amount' is not one of its parameters"),
            ({"choices": {"bonus": {1: "one"}}}, r"choices: 'bonus' has no enum"),
        ],
        ids=["misspelt-label", "another-actions-param", "choices-without-enum"],
    )
    def test_an_actions_texts_must_name_its_parameters(self, tally, texts, message):
        """A label for a misspelt parameter would quietly show nothing in a form."""
        hit = tally.actions["hit"]
        broken = type("Broken", (type(tally),), {"actions": {
            **tally.actions, "hit": dataclasses.replace(hit, **texts)}})  # fmt: skip
        with pytest.raises(PluginError, match=message):
            host_with(broken())

    @pytest.mark.parametrize(
        ("counts", "message"),
        [
            ({"min_targets": 2, "max_targets": 1},
             r"max_targets 1 is not None \(no limit\) or a whole number from min_targets \(2\)"),
            ({"min_targets": -1}, r"min_targets -1 is not a whole number from 0"),
            ({"min_targets": True}, r"min_targets True is not a whole number from 0"),
            ({"max_targets": 1.5}, r"max_targets 1.5 is not None"),
        ],
        ids=["more-asked-than-taken", "negative", "bool", "float"],
    )  # fmt: skip
    def test_target_counts_no_request_could_meet_are_refused_at_load(self, tally, counts,
                                                                     message):  # fmt: skip
        """An action asking for more targets than it takes could never be asked for:
        every request would be refused naming a count nobody can meet."""
        hit = tally.actions["hit"]
        broken = type("Broken", (type(tally),), {"actions": {
            **tally.actions, "hit": dataclasses.replace(hit, **counts)}})  # fmt: skip
        with pytest.raises(PluginError, match=r"ruleset '\w+' action 'hit': " + message):
            host_with(broken())

    @pytest.mark.parametrize(
        "given",
        ["no", 1, None, type("Unsure", (), {"__bool__": lambda self: 1 / 0})()],
        ids=["the-string-no", "one", "none", "bool-raises"],
    )
    def test_an_always_secret_flag_that_is_not_a_bool_is_refused_at_load(self, tally, given):
        """``ActionSpec.secret`` is read at every request (``rolls.always_secret``):
        ``"no"`` made the action secret, None not, and a value whose truth raised
        answered every request for any action ``internal``. Refused at load, naming
        the action, the value and what it must be (review rev24p)."""
        hit = tally.actions["hit"]
        broken = type("Broken", (type(tally),), {"actions": {
            **tally.actions, "hit": dataclasses.replace(hit, secret=given)}})  # fmt: skip
        with pytest.raises(PluginError, match=r"ruleset 'tally' action 'hit': secret .* is "
                           r"not True or False \(True: every request"):  # fmt: skip
            host_with(broken())

    @pytest.mark.parametrize(
        ("change", "message"),
        [
            ({"actor": "yes"},
             r"action 'hit': actor 'yes' is not one of 'required', 'optional', 'none'"),
            ({"params": {"type": "string"}},
             r"action 'hit' params: a request's parameters are an object .* not 'string'"),
            ({"hints": "added to the roll"},
             r"action 'hit' hints: must map each parameter's name to its text .* not str"),
            ({"labels": ["Bonus"]},
             r"action 'hit' labels: must map each parameter's name to its text .* not list"),
        ],
        ids=["actor-misspelt", "params-not-an-object", "hints-a-string", "labels-a-list"],
    )  # fmt: skip
    def test_an_action_spec_the_engine_cannot_use_is_refused_naming_the_fix(
        self, tally, change, message
    ):
        """A third-party author's slips that loaded before and then misbehaved
        without a word (``actor="yes"`` read as optional; params of type string
        refused every request) or read as another problem (hints given as one
        string: "'a' is not one of its parameters") are refused at load, naming the
        action, the field and what it must be."""
        hit = tally.actions["hit"]
        broken = type("Broken", (type(tally),), {"actions": {
            **tally.actions, "hit": dataclasses.replace(hit, **change)}})  # fmt: skip
        with pytest.raises(PluginError, match=r"plugin 'under-test': ruleset 'tally' " + message):
            host_with(broken())

    @pytest.mark.parametrize(
        ("actions", "message"),
        [
            ("list", r"ruleset 'tally' actions must be a mapping of each action's name to "
                     r"its ActionSpec .* not list"),
            ("dict", r"ruleset 'tally' lists dict under the action key 'hit', not an ActionSpec"),
        ],
    )  # fmt: skip
    def test_actions_that_are_no_mapping_of_specs_are_named(self, tally, actions, message):
        """``actions`` given as a list read "needs at least one action" (it has
        several); a plain dict in place of an ``ActionSpec`` raised AttributeError."""
        given = (
            list(tally.actions.values())
            if actions == "list"
            else {**tally.actions, "hit": {"name": "hit", "summary": "Hit."}}
        )
        broken = type("Broken", (type(tally),), {"actions": given})
        with pytest.raises(PluginError, match=message):
            host_with(broken())

    def test_a_registration_hook_that_raises_names_the_plugin(self):
        class Plugin:
            @rollbridge.hookimpl
            def register_rulesets(self, register):
                raise RuntimeError("oops")

        with pytest.raises(PluginLoadError, match=r"'oops-plugin'.*oops"):
            PluginHost({"oops-plugin": Plugin()}, builtins=False, environ={})

    def test_register_adapters(self):
        class Dialect(Adapter):
            id = "test-vtt"
            name = "Test VTT"

            def inbound(self, message):
                return dict(message)

            def outbound(self, message):
                return dict(message)

        class Plugin:
            @rollbridge.hookimpl
            def register_adapters(self, register):
                register(Dialect())

        host = PluginHost({"dialect": Plugin()}, builtins=False, environ={})
        assert isinstance(host.adapters["test-vtt"], Dialect)
        assert host.plugins["dialect"].adapters == ["test-vtt"]
        with pytest.raises(DuplicateRegistration, match="adapter id 'test-vtt'"):
            PluginHost({"one": Plugin(), "two": Plugin()}, builtins=False, environ={})


def test_a_misspelt_hook_is_refused_at_load_naming_plugin_and_hook():
    """A plugin implementing ``register_ruleset`` (no s) registered nothing and loaded
    silently; now it is refused, naming the plugin and the hook."""
    from rollbridge.exceptions import PluginLoadError
    from rollbridge.hookspecs import hookimpl

    class Misspelt:
        @hookimpl
        def register_ruleset(self, register):
            raise AssertionError("never called")

    with pytest.raises(PluginLoadError) as refused:
        PluginHost({"typo": Misspelt()}, builtins=False,
                   environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})  # fmt: skip
    assert refused.value.details == {"plugin": "typo"}
    assert "'typo' implements 'register_ruleset'" in str(refused.value)


def test_a_hook_without_its_marker_is_refused_naming_plugin_and_hook(tmp_path, monkeypatch):
    """An author who left out ``@rollbridge.hookimpl`` above ``register_rulesets``
    got a plugin that loaded, registered nothing, and was listed as "observer hooks
    only"; ``resolve`` then said only that no such ruleset is loaded."""
    make_entry_point(tmp_path, "rb-unmarked", "unmarked", "rb_unmarked", """
        def register_rulesets(register):
            raise AssertionError("never called")
    """)  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PluginLoadError) as refused:
        PluginHost(builtins=False, environ={})
    assert refused.value.details == {"plugin": "unmarked", "hook": "register_rulesets"}
    assert str(refused.value) == (
        "plugin 'unmarked' defines register_rulesets without @rollbridge.hookimpl, so "
        "rollbridge would never call it: mark it with @rollbridge.hookimpl "
        "(docs/plugins.md, 'A ruleset')"
    )


@pytest.mark.parametrize(
    ("path", "found"),
    [
        (
            "hitpoint",
            r"\(no field 'hitpoint' at its top; the fields it describes there: 'bag', 'hp'\)",
        ),
        ("hp", r"\('hp' is described as 'integer'\)"),
        ("hp.max", r"\('hp' is described as 'integer'\)"),
        ("bag.rope", r"\(no field 'rope' at bag; the fields it describes there: none\)"),
    ],
)
def test_a_choices_path_the_sheet_schema_lacks_says_what_is_there(tally, path, found):
    """A misspelt ``choicesFrom`` path was refused with "describes no list or object
    at 'skill'" and nothing more: the author had to open their schema to see that
    its field is ``skills``. The refusal now names the fields described where the
    path goes astray, or the type found at its end."""
    params = {"type": "object", "properties": {"what": {
        "type": "string", "choicesFrom": {"sheet": path}}}}  # fmt: skip
    pick = rollbridge.ActionSpec("pick", "Pick one.", params=params, example={})
    # an object with no fields ("bag"): a path into it was refused saying "'bag' is
    # described as 'object'", as if an object were not what choicesFrom reads
    sheet = {**tally.sheet_schema, "properties": {**tally.sheet_schema["properties"],
             "bag": {"type": "object", "additionalProperties": False}}}  # fmt: skip
    broken = type("Broken", (type(tally),), {"actions": {**tally.actions, "pick": pick},
                                              "sheet_schema": sheet})  # fmt: skip
    with pytest.raises(
        PluginError, match=rf"action 'pick' parameter 'what' choicesFrom: sheet_schema "
        rf"describes no list or object at '{path}' .*" + found
    ):  # fmt: skip
        host_with(broken())


def test_only_a_function_of_the_plugins_own_is_taken_for_an_unmarked_hook(tmp_path, monkeypatch):
    """The check for a hook left unmarked read any attribute of the plugin: a module
    whose ``__getattr__`` answers every name (a lazy-import shim) was refused for
    "defining" ``actor_state_changed``, and a module with a method of another object,
    a class, a ``partial`` or another package's function that bears a hook's name
    for "defining" that hook — none of which pluggy takes for a hook. They load,
    their marked hooks called."""
    make_entry_point(tmp_path, "rb_lazy", "lazy", "rb_lazy", GOOD_PLUGIN + """
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *args, **kwargs: None
    """)  # fmt: skip
    make_entry_point(tmp_path, "rb_named", "named", "rb_named", """
        import functools

        import rollbridge
        from textwrap import dedent as register_adapters  # another package's function

        class Signal:
            def send(self, *args, **kwargs):
                pass

        table_created = Signal().send  # a method of an object of its own, not a hook
        roll_resolved = functools.partial(print, "rolled")

        class actor_state_changed:  # an event record of its own, named after the hook
            pass

        @rollbridge.hookimpl
        def register_rulesets(register):  # a hook, so the plugin is one
            pass
    """)  # fmt: skip
    monkeypatch.syspath_prepend(str(tmp_path))
    host = PluginHost(builtins=False, environ={})
    assert host.plugins["lazy"].rulesets == ["coin"]
    assert "named" in host.plugins


def test_a_package_re_exporting_an_unmarked_hook_of_its_own_is_refused(tmp_path, monkeypatch):
    """The entry point names the package; its hook is defined in a module of it."""
    package = tmp_path / "rb_pack"
    package.mkdir()
    (package / "hooks.py").write_text("def register_rulesets(register):\n    pass\n")
    (package / "__init__.py").write_text("from .hooks import register_rulesets\n")
    info = tmp_path / "rb_pack-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rb_pack\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[rollbridge]\npack = rb_pack\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(PluginLoadError, match="plugin 'pack' defines register_rulesets without"):
        PluginHost(builtins=False, environ={})
