"""The plugin host: loads plugins, collects their rulesets and adapters.

Plugins come from three places, in this order:

1. the built-ins listed in ``rollbridge.plugins.DEFAULT_PLUGINS`` and
   ``rollbridge.adapters.DEFAULT_PLUGINS``;
2. installed packages that declare an entry point in the group ``rollbridge``
   (skipped when autoload is disabled);
3. objects passed to :class:`PluginHost` directly (tests, embedding).

Operators control loading through the environment:

``ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD=1``
    do not load entry-point plugins; built-ins and explicit ones still load.
``ROLLBRIDGE_PLUGINS=sr2,my-ruleset``
    allow-list: load only the plugins with these names (built-ins included).
``ROLLBRIDGE_BLOCK_PLUGINS=bandits``
    block-list: never load the plugins with these names.

A plugin that fails to import or to register, or that registers an id
already taken, stops startup with a :class:`~rollbridge.exceptions.PluginError`
naming the plugin and the cause. These refusals are the operator's: their messages
are texts of the ``rollbridge`` domain, read in the operator's language (a
command's ``--locale``, else the environment's), English in ``str(error)``.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import os
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import pluggy

from rollbridge import hookspecs
from rollbridge.adapter import PROTOCOL_FIELDS, Adapter
from rollbridge.contract import ActionSpec, Ruleset, major_version
from rollbridge.exceptions import (
    AdapterProtocolField,
    DuplicateRegistration,
    PluginError,
    PluginLoadError,
    UnknownRuleset,
)
from rollbridge.schema import check_schema
from rollbridge.text import Message, Messages, Text

__all__ = [
    "ENTRY_POINT_GROUP",
    "ENV_ALLOW",
    "ENV_BLOCK",
    "ENV_DISABLE_AUTOLOAD",
    "PluginHost",
    "PluginInfo",
]

log = logging.getLogger("rollbridge.host")
say = Messages("rollbridge")

# Startup refusals: the operator reads them in their language (``serve``'s, its
# --locale or the environment's); ``str(error)`` stays English. Plugin names, ids,
# hooks and Python names in them are written as the plugin has them.
# Translators: {plugin} is a plugin's name, {cause} Python's error (English).
BUILTIN_IMPORT = say("host.builtin_import", "built-in plugin {plugin} failed to import: {cause}")
# Translators: {plugin} is a plugin's name, {package} its package, {cause} Python's error.
PLUGIN_IMPORT = say(
    "host.plugin_import", "plugin {plugin} (package {package}) failed to import: {cause}"
)
# Translators: {plugin} is a plugin's name; {first} and {second} say where each came
# from ("builtin", "entry point (a package)", "explicit").
TWO_NAMED = say("host.two_named", "two plugins are named {plugin} ({first} and {second})")
REGISTER_FAILED = say("host.register_failed", "plugin {plugin} could not be registered: {cause}")
# Translators: {hook} is the name the plugin implements (a Python function's name).
NO_SUCH_HOOK = say(
    "host.no_such_hook",
    "plugin {plugin} implements {hook}, which is no hook of rollbridge "
    "(docs/plugins.md lists them)",
)
UNMARKED_HOOK = say(
    "host.unmarked_hook",
    "plugin {plugin} defines {hook} without @rollbridge.hookimpl, so rollbridge would "
    "never call it: mark it with @rollbridge.hookimpl (docs/plugins.md, 'A ruleset')",
)
# Translators: {module} is the Python module the function was imported from.
UNMARKED_IMPORTED_HOOK = say(
    "host.unmarked_imported_hook",
    "plugin {plugin} has {hook} from {module} without @rollbridge.hookimpl, so "
    "rollbridge would never call it: mark it with @rollbridge.hookimpl where it is "
    "defined, or, if it is no hook, import it under another name "
    "(from {module} import {hook} as …) (docs/plugins.md, 'Publishing')",
)
# Translators: {hook} is a hook's name, {given} the parameters the plugin's function
# takes, {unknown} those of them the hook does not pass, {arguments} the hook's own.
WRONG_PARAMETERS = say(
    "host.wrong_parameters",
    "plugin {plugin} implements {hook}({given}), but rollbridge passes {hook} no "
    "{unknown}: take only parameters of ({arguments}), by those names "
    "(docs/plugins.md, 'The hooks')",
)
# Translators: {function} is the name of the plugin's function that
# @hookimpl(specname=…) marks as the hook {hook} (written as in Python).
WRONG_PARAMETERS_AS = say(
    "host.wrong_parameters_specname",
    "plugin {plugin} implements {hook} with {function}({given}) "
    '(@rollbridge.hookimpl(specname="{hook}")), but rollbridge passes {hook} no '
    "{unknown}: take only parameters of ({arguments}), by those names "
    "(docs/plugins.md, 'The hooks')",
)
# Translators: {name} is the name the plugin lists (dir()) and gives only through
# its __getattr__; __getattr__ stays as it is.
GETATTR_HOOK = say(
    "host.getattr_hook",
    "plugin {plugin} gives the hook {hook} only through __getattr__ ({name}), where "
    "rollbridge does not look for hooks: define or import {name} in the plugin "
    "itself (docs/plugins.md, 'The hooks')",
)
# Translators: {target} is the entry point's value (module:object) as the package
# declares it.
NO_HOOKS = say(
    "host.no_hooks",
    "plugin {plugin} (package {package}) implements no hook of rollbridge: its entry "
    "point names {target}, where no function is marked @rollbridge.hookimpl; name the "
    "module that holds the hooks (docs/plugins.md, 'Publishing')",
)
# Translators: {target} is the entry point's value (module:object) as the package
# declares it, {module} the module part of it.
NO_HOOKS_OBJECT = say(
    "host.no_hooks_object",
    "plugin {plugin} (package {package}) implements no hook of rollbridge: its entry "
    "point names {target}, an object of the module {module}, and the hooks are looked "
    "for among that object's attributes; name the module that holds the hooks ({module} "
    "if they are there) (docs/plugins.md, 'Publishing')",
)
# Translators: {hook} is a hook's name, {given} the parameters the plugin's function
# takes, {call} how rollbridge calls the hook (register=…), {missing} the parameters
# it needs to take by those names.
BY_NAME = say(
    "host.by_name",
    "plugin {plugin} implements {hook}({given}), but rollbridge calls it as {call}, "
    "passing its arguments by name: take {missing} as a parameter of that name, not "
    "positional-only (docs/plugins.md, 'The hooks')",
)
# Translators: as host.by_name, for a function {function} that
# @hookimpl(specname=…) marks as the hook {hook}.
BY_NAME_AS = say(
    "host.by_name_specname",
    "plugin {plugin} implements {hook} with {function}({given}) "
    '(@rollbridge.hookimpl(specname="{hook}")), but rollbridge calls it as {call}, '
    "passing its arguments by name: take {missing} as a parameter of that name, not "
    "positional-only (docs/plugins.md, 'The hooks')",
)
HOOK_FAILED = say("host.hook_failed", "plugin {plugin} failed in {hook}: {cause}")
# Translators: {cls} is a Python class's name.
RULESET_CLASS = say(
    "host.registered_ruleset_class",
    "plugin {plugin} registered the class {cls}, not a ruleset: register an instance, "
    "register({cls}())",
)
ADAPTER_CLASS = say(
    "host.registered_adapter_class",
    "plugin {plugin} registered the class {cls}, not an adapter: register an instance, "
    "register({cls}())",
)
# Translators: {given} is the Python value registered; {kind} is Ruleset or Adapter.
NOT_A = say("host.not_a", "plugin {plugin} registered {given}, which is not a {kind}")
BAD_ADAPTER_ID = say("host.bad_adapter_id", "plugin {plugin} registered an adapter with a bad id")
# Translators: {fields} lists field names of the wire protocol ('seq', 'data'); keep
# event_fields and Adapter.plain as they are.
ADAPTER_PROTOCOL_FIELD = say(
    "host.adapter_protocol_field",
    "plugin {plugin}: adapter {adapter} names fields of the plain protocol in "
    "event_fields ({fields}): Adapter.plain would take them off every line rollbridge "
    "verify reads; list only the fields the adapter adds (docs/plugins.md, 'An adapter')",
)
# Translators: {owner} is the plugin that registered the id first.
RULESET_TAKEN = say(
    "host.ruleset_id_taken",
    "plugin {plugin} registers ruleset id {ident}, already registered by plugin {owner}",
)
ADAPTER_TAKEN = say(
    "host.adapter_id_taken",
    "plugin {plugin} registers adapter id {ident}, already registered by plugin {owner}",
)
# Translators: what is wrong with a ruleset: {problem} is one of the host.ruleset_*
# messages below, which continue the sentence after the ruleset's id.
RULESET_REFUSED = say("host.ruleset_refused", "plugin {plugin}: ruleset {ruleset} {problem}")
BAD_ID = say("host.ruleset_bad_id", "needs an id of 1-32 lowercase letters, digits, '-' or '_'")
NO_NAME = say("host.ruleset_no_name", "needs a name")
# Translators: {given} is a Python type's name (int, NoneType).
VERSION_MISSING = say(
    "host.ruleset_version_missing", "needs a version, a string like '1.0.0', not {given}"
)
# Translators: MAJOR.MINOR.PATCH stays as it is; {fixed} is the version to write.
VERSION_FORM = say(
    "host.ruleset_version_form",
    "has the version {version}, which is not MAJOR.MINOR.PATCH: write {fixed} (a "
    "pre-release, post-release or local label may follow: 1.0.0rc1, 1.0.0.post1, "
    "1.0.0-rc.1, 1.0.0+local)",
)
# Translators: {given} is the value the ruleset gave (3.0, '2', True).
BAD_WORDS = say(
    "host.ruleset_words",
    "has words {given}: the version of its words is a whole number from 1 (raise it "
    "by one at each change of what its texts say)",
)
# Translators: {given} is a Python type's name.
ACTIONS_MAPPING = say(
    "host.ruleset_actions_mapping",
    "actions must be a mapping of each action's name to its ActionSpec "
    "({{'attack': ActionSpec('attack', ...)}}), not {given}",
)
NO_ACTIONS = say("host.ruleset_no_actions", "needs at least one action")
NOT_A_SPEC = say(
    "host.ruleset_not_a_spec", "lists {given} under the action key {key}, not an ActionSpec"
)
KEY_MISMATCH = say("host.ruleset_key_mismatch", "lists action {action} under the key {key}")
# Translators: True, False and secret are written as in Python; {given} as the ruleset
# gave it ('yes', 1, None).
SECRET_NOT_BOOL = say(
    "host.ruleset_secret_not_bool",
    "action {action}: secret {given} is not True or False (True: every request for it "
    "is resolved as a secret one, whoever asks)",
)
# Translators: True, False are written as in Python; {field} is gm_only or every_actor
# (written as they are); {given} as the ruleset gave it; {cause} is Python's error.
FLAG_UNREADABLE = say(
    "host.ruleset_flag_unreadable",
    "action {action}: {field} {given} is not True or False, and what it means cannot be "
    "read ({cause})",
)
# Translators: {allowed} lists 'required', 'optional', 'none' (written as they are).
BAD_ACTOR = say("host.ruleset_bad_actor", "action {action}: actor {actor} is not one of {allowed}")
MIN_TARGETS = say(
    "host.ruleset_min_targets", "action {action}: min_targets {given} is not a whole number from 0"
)
MAX_TARGETS = say(
    "host.ruleset_max_targets",
    "action {action}: max_targets {given} is not None (no limit) or a whole number from "
    "min_targets ({least})",
)
# Translators: {where} is "action 'x' params" (as written in Python).
PARAMS_OBJECT = say(
    "host.ruleset_params_object",
    "{where}: a request's parameters are an object (name → value), so the "
    "schema's type must be 'object', not {given} "
    '(one parameter: {{"type": "object", "properties": {{"amount": {{...}}}}}})',
)
# Translators: {kind} is labels, hints or choices (ActionSpec's fields, as written).
TEXTS_MAPPING = say(
    "host.ruleset_texts_mapping",
    "action {action} {kind}: must map each parameter's name to its text "
    "({{'amount': ...}}), not {given}",
)
NOT_A_PARAM = say(
    "host.ruleset_not_a_param", "action {action} {kind}: {param} is not one of its parameters"
)
# Translators: {where} is "action 'x' choices" (as written in Python).
NO_ENUM = say("host.ruleset_no_enum", "{where}: {param} has no enum")
CHOICES_MAPPING = say(
    "host.ruleset_choices_mapping",
    "{where}: {param} must map each value of its enum to its text, not {given}",
)
NOT_A_VALUE = say("host.ruleset_not_a_value", "{where}: {value} is not a value of {param}")
# Translators: {where} is a schema's path (sheet_schema.skills, action 'x' params.y).
STRAY_CHOICES = say(
    "host.stray_choices",
    "{where} has a choicesFrom, which is read on a property of an action's params only",
)
# Translators: {where} is "action 'x' parameter 'y' choicesFrom".
CHOICES_NO_ACTOR = say(
    "host.choices_no_actor", "{where}: the action has no acting actor to take choices from"
)
# Translators: {source} is sheet or state (as written); {path} a dotted path; {found}
# one of the host.found_* messages.
CHOICES_UNDESCRIBED = say(
    "host.choices_undescribed",
    "{where}: {source}_schema describes no list or object at {path} ({found})",
)
# Translators: {at} is a dotted path in the schema (bag, skills.melee); {fields} lists
# field names, or is the word of host.found_none.
FOUND_NO_FIELD = say(
    "host.found_no_field",
    "no field {key} at {at}; the fields it describes there: {fields}",
)
FOUND_NO_FIELD_AT_TOP = say(
    "host.found_no_field_at_top",
    "no field {key} at its top; the fields it describes there: {fields}",
)
FOUND_NONE = say("host.found_none", "none")
# Translators: {kind} is a JSON-schema type as written ('integer', 'string').
FOUND_TYPE = say("host.found_type", "{path} is described as {kind}")
FOUND_NO_TYPE = say("host.found_no_type", "{path} is described as a node of no type")
# Translators: 'of': 'target', every_actor and max_targets are written as in Python.
ONE_TARGET_EVERY_ACTOR = say(
    "host.one_target_every_actor",
    "{where}: 'of': 'target' reads the action's one target, and it has every actor "
    "(give it max_targets 1)",
)
ONE_TARGET_MAX = say(
    "host.one_target_max",
    "{where}: 'of': 'target' reads the action's one target, and it has max_targets "
    "{most} (give it max_targets 1)",
)

ENTRY_POINT_GROUP = "rollbridge"
ENV_DISABLE_AUTOLOAD = "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD"
ENV_ALLOW = "ROLLBRIDGE_PLUGINS"
ENV_BLOCK = "ROLLBRIDGE_BLOCK_PLUGINS"

_ID = re.compile(r"[a-z][a-z0-9_-]{0,31}")
#: What an :class:`~rollbridge.contract.ActionSpec`'s ``actor`` may be.
ACTORS = ("required", "optional", "none")
#: A ruleset's version: ``MAJOR.MINOR.PATCH`` (tables remember it, and another MAJOR
#: refuses to open them), then what a package's version may carry: a PEP 440
#: pre-, post- or development release and local label (``1.0.0rc1``, ``1.0.0.post1``,
#: ``1.0.0.dev2``, ``1.0.0+local``) or a semantic version's pre-release and build
#: (``1.0.0-rc.1``, ``1.0.0+build.5``).
_VERSION = re.compile(
    r"\d+\.\d+\.\d+"
    r"(?:(?:a|b|rc)\d+)?(?:\.post\d+)?(?:\.dev\d+)?"
    r"(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)


@dataclass(slots=True)
class PluginInfo:
    """A loaded plugin: its name, where it came from, what it registered."""

    name: str
    version: str
    source: str  # "builtin", "entry point (dist)", "explicit"
    rulesets: list[str] = field(default_factory=list)
    adapters: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "source": self.source,
            "rulesets": list(self.rulesets),
            "adapters": list(self.adapters),
        }


def _names_from_env(environ: Mapping[str, str], key: str) -> set[str] | None:
    raw = environ.get(key)
    if raw is None or not raw.strip():
        return None
    return {part.strip() for part in raw.split(",") if part.strip()}


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


#: The hooks the host calls itself, as ``hook(register=...)``.
REGISTRATION_HOOKS = ("register_rulesets", "register_adapters")


class PluginHost:
    """Loads plugins and holds the rulesets and adapters they registered.

    :param plugins: extra plugin objects to register (name → module/object).
    :param builtins: load the built-in plugins (default True).
    :param environ: where operator controls are read (default ``os.environ``).
    """

    def __init__(
        self,
        plugins: Mapping[str, object] | None = None,
        *,
        builtins: bool = True,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        env = os.environ if environ is None else environ
        self.manager = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        self.manager.add_hookspecs(hookspecs)
        self.rulesets: dict[str, Ruleset] = {}
        self.adapters: dict[str, Adapter] = {}
        self.plugins: dict[str, PluginInfo] = {}
        self._entry_points: dict[str, tuple[str, str]] = {}
        self._owner: dict[tuple[str, str], str] = {}
        self.allow = _names_from_env(env, ENV_ALLOW)
        self.block = _names_from_env(env, ENV_BLOCK) or set()
        self.autoload = not _truthy(env.get(ENV_DISABLE_AUTOLOAD))

        if builtins:
            self._load_builtins()
        if self.autoload:
            self._load_entry_points()
        for name, plugin in (plugins or {}).items():
            self._add(
                name, plugin, version=getattr(plugin, "__version__", "0.0.0"), source="explicit"
            )
        self._check_hook_names()
        self._check_unmarked_hooks()
        self._check_entry_points_have_hooks()
        self._collect()

    # -- loading --------------------------------------------------------------

    def _wanted(self, name: str) -> bool:
        if name in self.block:
            log.info("plugin %s is blocked by %s", name, ENV_BLOCK)
            return False
        if self.allow is not None and name not in self.allow:
            log.info("plugin %s is not in %s", name, ENV_ALLOW)
            return False
        return True

    def _load_builtins(self) -> None:
        from rollbridge import __version__
        from rollbridge.adapters import DEFAULT_PLUGINS as adapter_plugins
        from rollbridge.plugins import DEFAULT_PLUGINS as ruleset_plugins

        for module_name in (*ruleset_plugins, *adapter_plugins):
            name = module_name.rsplit(".", 1)[-1]
            if not self._wanted(name):
                continue
            try:
                module = importlib.import_module(module_name)
            except Exception as exc:
                raise PluginLoadError(
                    BUILTIN_IMPORT(plugin=repr(name), cause=_cause(exc)), details={"plugin": name}
                ) from exc
            self._add(name, module, version=__version__, source="builtin")

    def _load_entry_points(self) -> None:
        for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
            name = entry_point.name
            if not self._wanted(name):
                continue
            dist = entry_point.dist
            dist_name = dist.metadata["Name"] if dist is not None else "?"
            version = dist.version if dist is not None else "0.0.0"
            try:
                plugin = entry_point.load()
            except Exception as exc:
                raise PluginLoadError(
                    PLUGIN_IMPORT(plugin=repr(name), package=dist_name, cause=_cause(exc)),
                    details={"plugin": name},
                ) from exc
            self._add(name, plugin, version=version, source=f"entry point ({dist_name})")
            self._entry_points[name] = (entry_point.value, dist_name)

    def _add(self, name: str, plugin: object, *, version: str, source: str) -> None:
        if name in self.plugins:
            raise DuplicateRegistration(
                TWO_NAMED(plugin=repr(name), first=self.plugins[name].source, second=source),
                details={"plugin": name},
            )
        self._check_parameters(name, plugin)
        try:
            self.manager.register(plugin, name=name)
        except Exception as exc:
            raise PluginLoadError(
                REGISTER_FAILED(plugin=repr(name), cause=str(exc)), details={"plugin": name}
            ) from exc
        self.plugins[name] = PluginInfo(name=name, version=str(version), source=source)

    def _marked(self, plugin: object, hook: str) -> bool:
        """Whether ``plugin`` has ``hook`` marked as a hook implementation. A name the
        plugin does not have is no hook of it: pluggy 1.3 to 1.6 read the name
        without a default, since pluggy itself asks only of names a plugin has, and
        raised AttributeError for every hook a plugin leaves out. A name there that
        cannot be read (a slot never set, a property that raises) is none either:
        pluggy's own reading of it, as it registers the plugin, is refused naming the
        plugin (:data:`REGISTER_FAILED`), where this one ended the start in a
        traceback."""
        if inspect.getattr_static(plugin, hook, None) is None:
            return False
        try:
            return self.manager.parse_hookimpl_opts(plugin, hook) is not None
        except Exception:
            return False

    def _implementations(self, name: str, plugin: object) -> Iterable[tuple[str, str]]:
        """Each ``(attribute, hook)`` that pluggy registers of ``plugin``: a marked
        function under a name the plugin lists, implementing the hook of its name or
        the one its ``@hookimpl(specname=…)`` names — found as pluggy 1.7 finds it.
        A marked function the plugin gives only through ``__getattr__`` (a lazy
        module's, a proxy's) under a hook's name is refused (:data:`GETATTR_HOOK`):
        pluggy 1.3 to 1.6 read it and registered it, 1.7 does not look there, and a
        plugin would run on one and be silent on the other. Only a hook's name is
        asked of ``__getattr__``: a lazy module's other names (its submodules, a
        heavy import) stay unread, as pluggy 1.7 leaves them (asking each of them
        imported every lazy submodule of a plugin at the start)."""
        try:
            listed = dir(plugin)
        except Exception:
            return  # pluggy's own dir() of it fails as it registers: REGISTER_FAILED
        hooks = {hook for hook in vars(self.manager.hook) if not hook.startswith("_")}
        for attribute in listed:
            if not isinstance(attribute, str):
                continue
            if inspect.getattr_static(plugin, attribute, None) is None:
                if attribute in hooks:
                    self._refuse_dynamic_hook(name, plugin, attribute)
                continue
            if not self._marked(plugin, attribute):
                continue
            opts = self.manager.parse_hookimpl_opts(plugin, attribute) or {}
            yield attribute, opts.get("specname") or attribute

    def _refuse_dynamic_hook(self, name: str, plugin: object, attribute: str) -> None:
        """Raise :data:`GETATTR_HOOK` if ``attribute``, listed by ``plugin`` but not
        found in it, is a marked hook its ``__getattr__`` gives."""
        try:
            given = getattr(plugin, attribute)
            opts = getattr(given, f"{hookspecs.PROJECT_NAME}_impl", None)
        except Exception:
            return
        if not isinstance(opts, dict):
            return
        hook = opts.get("specname") or attribute
        raise PluginLoadError(
            GETATTR_HOOK(plugin=repr(name), hook=hook, name=attribute),
            details={"plugin": name, "hook": hook},
        )

    def _check_parameters(self, name: str, plugin: object) -> None:
        """Refuse a marked hook whose function takes a parameter the hook does not
        pass (``register_rulesets(reg)``), naming the hook's own parameters — the
        function named as the hook, or any other that ``@hookimpl(specname=…)`` marks
        as it; pluggy's refusal of it is a developer's English, several lines long."""
        for attribute, hook in self._implementations(name, plugin):
            caller = getattr(self.manager.hook, hook, None)
            if caller is None or caller.spec is None:
                continue  # no hook of rollbridge: _check_hook_names refuses it
            function = getattr(plugin, attribute)
            arguments = tuple(caller.spec.argnames)
            unknown = [p for p in _required(function, implicit=True) if p not in arguments]
            if unknown == ["?"]:  # no signature to read: pluggy's to judge
                continue
            named = attribute != hook  # @hookimpl(specname=…)
            where = {"plugin": repr(name), "hook": hook, "given": _parameters(function)}
            if named:
                where["function"] = attribute
            missing = _not_by_name(function, hook, arguments)
            if missing and not unknown:
                raise PluginLoadError(
                    (BY_NAME_AS if named else BY_NAME)(
                        **where,
                        call=f"{hook}({', '.join(f'{a}=…' for a in arguments)})",
                        missing=", ".join(map(repr, missing)),
                    ),
                    details={"plugin": name, "hook": hook},
                )
            if not unknown:
                continue
            where["given"] = ", ".join(inspect.signature(function).parameters)
            raise PluginLoadError(
                (WRONG_PARAMETERS_AS if named else WRONG_PARAMETERS)(
                    **where,
                    unknown=", ".join(map(repr, unknown)),
                    arguments=", ".join(arguments),
                ),
                details={"plugin": name, "hook": hook},
            )

    def _check_entry_points_have_hooks(self) -> None:
        """Refuse an entry-point plugin that implements no hook at all: its entry point
        names a package whose ``__init__`` does not import the module with the hooks,
        or the ruleset's class, and it would load, register nothing and be listed as
        "observer hooks only" while its ruleset is "not loaded"."""
        for name, (target, package) in self._entry_points.items():
            plugin = self.manager.get_plugin(name)
            if plugin is not None and self.manager.get_hookcallers(plugin):
                continue
            module, _colon, attribute = target.partition(":")
            refusal = (  # an object named in a module: its hooks may well be the module's
                NO_HOOKS_OBJECT(
                    plugin=repr(name), package=package, target=target, module=module.strip()
                )
                if attribute.strip()
                else NO_HOOKS(plugin=repr(name), package=package, target=target)
            )
            raise PluginLoadError(refusal, details={"plugin": name})

    def _check_hook_names(self) -> None:
        """Refuse a plugin implementing a hook rollbridge does not have: a misspelt
        ``register_ruleset`` would otherwise load silently and register nothing."""
        try:
            self.manager.check_pending()
        except pluggy.PluginValidationError as exc:
            name = self.manager.get_name(exc.plugin) or "?"
            hook = re.search(r"unknown hook '([^']+)'", str(exc))
            raise PluginLoadError(
                NO_SUCH_HOOK(plugin=repr(name), hook=repr(hook.group(1) if hook else str(exc))),
                details={"plugin": name},
            ) from None

    def _check_unmarked_hooks(self) -> None:
        """Refuse a plugin with a function named as a hook but not marked
        ``@rollbridge.hookimpl``: pluggy calls only marked ones, so it would load and
        register nothing, listed as "observer hooks only".

        A plain function under a hook's name is looked at (:func:`_unmarked`): one
        the plugin defines (a module, or a package re-exporting one of its modules'),
        whatever its parameters; one imported from elsewhere (a package of the
        author's shared code) when its parameters are arguments of the hook, which
        is what pluggy would call if it were marked — a forgotten mark. An imported
        function taking anything else could never be that hook (pluggy refuses
        one marked so): a helper that shares the name, left alone. Not looked at:
        what a module's or a proxy's ``__getattr__`` makes up for any name, a
        method of another object (``table_created = signal.send``), a class, a
        ``partial`` — none of which pluggy takes for a hook."""
        hooks = {
            name: tuple(caller.spec.argnames) if caller.spec else ()
            for name, caller in vars(self.manager.hook).items()
            if not name.startswith("_")
        }
        for name, plugin in self.manager.list_name_plugin():
            for hook, arguments in hooks.items():
                if self._marked(plugin, hook):
                    continue
                found = _unmarked(plugin, hook, arguments)
                if found is None:
                    continue
                text = (
                    UNMARKED_HOOK(plugin=repr(name), hook=hook)
                    if found == ""
                    else UNMARKED_IMPORTED_HOOK(plugin=repr(name), hook=hook, module=found)
                )
                raise PluginLoadError(text, details={"plugin": name, "hook": hook})

    def _collect(self) -> None:
        rulesets, adapters = REGISTRATION_HOOKS
        self._call_registration(rulesets, self._register_ruleset)
        self._call_registration(adapters, self._register_adapter)

    def _call_registration(self, hook_name: str, accept: Callable[[str, Any], None]) -> None:
        caller = getattr(self.manager.hook, hook_name)
        for impl in caller.get_hookimpls():
            plugin_name = impl.plugin_name

            def register(obj: Any, _plugin: str = plugin_name) -> None:
                accept(_plugin, obj)

            try:
                impl.function(register=register)
            except PluginError:
                raise
            except Exception as exc:
                raise PluginLoadError(
                    HOOK_FAILED(plugin=repr(plugin_name), hook=hook_name, cause=_cause(exc)),
                    details={"plugin": plugin_name},
                ) from exc

    def _register_ruleset(self, plugin: str, ruleset: Any) -> None:
        _refuse_a_class(plugin, ruleset, Ruleset, RULESET_CLASS)
        if not isinstance(ruleset, Ruleset):
            raise PluginError(
                NOT_A(plugin=repr(plugin), given=repr(ruleset), kind="Ruleset"),
                details={"plugin": plugin},
            )
        check_ruleset(ruleset, plugin)
        self._claim(RULESET_TAKEN, ruleset.id, plugin)
        self.rulesets[ruleset.id] = ruleset
        self.plugins[plugin].rulesets.append(ruleset.id)

    def _register_adapter(self, plugin: str, adapter: Any) -> None:
        _refuse_a_class(plugin, adapter, Adapter, ADAPTER_CLASS)
        if not isinstance(adapter, Adapter):
            raise PluginError(
                NOT_A(plugin=repr(plugin), given=repr(adapter), kind="Adapter"),
                details={"plugin": plugin},
            )
        if not _ID.fullmatch(str(getattr(adapter, "id", ""))):
            raise PluginError(BAD_ADAPTER_ID(plugin=repr(plugin)), details={"plugin": plugin})
        _refuse_protocol_fields(plugin, adapter)
        self._claim(ADAPTER_TAKEN, adapter.id, plugin)
        self.adapters[adapter.id] = adapter
        self.plugins[plugin].adapters.append(adapter.id)

    def _claim(self, taken: Message, ident: str, plugin: str) -> None:
        """Hold ``ident`` for ``plugin``; ``taken`` says that another holds it (a
        ruleset's id or an adapter's: each kind has its own ids)."""
        owner = self._owner.get((taken.id, ident))
        if owner is not None:
            raise DuplicateRegistration(
                taken(plugin=repr(plugin), ident=repr(ident), owner=repr(owner)),
                details={"plugin": plugin, "id": ident, "owner": owner},
            )
        self._owner[(taken.id, ident)] = plugin

    # -- use ------------------------------------------------------------------

    def ruleset(self, ruleset_id: str) -> Ruleset:
        """The ruleset with this id.

        :raises UnknownRuleset: naming the rulesets that are loaded.
        """
        try:
            return self.rulesets[ruleset_id]
        except KeyError:
            unknown = (
                say("ruleset.unknown", "no ruleset {ruleset} is loaded (loaded: {known})")(
                    ruleset=repr(ruleset_id), known=sorted(self.rulesets)
                )
                if self.rulesets
                else say("ruleset.unknown_none", "no ruleset {ruleset} is loaded (loaded: none)")(
                    ruleset=repr(ruleset_id)
                )
            )
            raise UnknownRuleset(
                unknown,
                details={"ruleset": ruleset_id},
            ) from None

    def notify(self, hook_name: str, **kwargs: Any) -> None:
        """Call an observer hook on every plugin that implements it.

        Each implementation gets the keyword arguments it names; one that
        raises is logged with its plugin's name and the others still run.
        """
        caller = getattr(self.manager.hook, hook_name)
        for impl in caller.get_hookimpls():
            try:
                impl.function(**{arg: kwargs[arg] for arg in impl.argnames})
            except Exception:
                log.exception("plugin %s raised in %s; ignored", impl.plugin_name, hook_name)

    def implements(self, hook_name: str) -> bool:
        """Whether any loaded plugin implements the hook (skip building arguments if not)."""
        return bool(getattr(self.manager.hook, hook_name).get_hookimpls())

    def describe_plugins(self) -> list[dict[str, Any]]:
        """Every loaded plugin as plain data, in load order."""
        return [info.to_dict() for info in self.plugins.values()]


def _unmarked(plugin: object, name: str, arguments: tuple[str, ...]) -> str | None:
    """Whether ``plugin`` has a plain function ``name`` that is a hook left unmarked:
    ``""`` when the plugin defines it — a module (or a package re-exporting it from
    one of its modules), or a class (the plugin or the plugin's own) with it as a
    method, plain, static or class —, the module it came from when it is imported
    from elsewhere and takes only the hook's ``arguments`` (what pluggy would call
    if it were marked), None otherwise."""
    found = inspect.getattr_static(plugin, name, None)
    if isinstance(found, staticmethod | classmethod):
        found = found.__func__
    if not inspect.isfunction(found):
        return None
    if not inspect.ismodule(plugin):
        return ""
    origin = str(found.__module__)
    if origin.split(".", 1)[0] == plugin.__name__.split(".", 1)[0]:
        return ""
    return origin if set(_required(found)) <= set(arguments) else None


def _required(function: Callable[..., Any], *, implicit: bool = False) -> list[str]:
    """The parameters a call must give ``function`` (pluggy passes a hook's arguments
    by name; one with a default it does not pass). ``implicit``: leave out a method's
    ``self`` read from its class, as pluggy does."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return ["?"]
    names = [
        p.name
        for p in parameters
        if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    method = "." in getattr(function, "__qualname__", "")
    if implicit and names[:1] == ["self"] and method and not inspect.ismethod(function):
        return names[1:]
    return names


def _not_by_name(function: Callable[..., Any], hook: str, arguments: tuple[str, ...]) -> list[str]:
    """The arguments of ``hook`` that ``function`` must take by name and cannot: a
    required positional-only parameter (pluggy and the host pass every argument by
    name), and a registration hook's ``register`` it does not take at all (the host
    calls ``register_rulesets(register=...)``, whatever the function takes)."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        return []
    missing = [
        p.name
        for p in parameters
        if p.kind is p.POSITIONAL_ONLY and p.default is p.empty and p.name in arguments
    ]
    named = {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    any_name = any(p.kind is p.VAR_KEYWORD for p in parameters)
    if hook in REGISTRATION_HOOKS and "register" not in named and not any_name:
        missing.append("register")
    return list(dict.fromkeys(missing))


def _parameters(function: Callable[..., Any]) -> str:
    """``function``'s parameters as its ``def`` writes them, without annotations
    (``register, /``)."""
    signature = inspect.signature(function)
    bare = [p.replace(annotation=p.empty) for p in signature.parameters.values()]
    return str(signature.replace(parameters=bare, return_annotation=signature.empty))[1:-1]


def _refuse_protocol_fields(plugin: str, adapter: Adapter) -> None:
    """Refuse ``adapter`` if its ``event_fields`` name a field of the plain protocol's
    (:data:`~rollbridge.adapter.PROTOCOL_FIELDS`), naming the plugin, the adapter and
    the fields."""
    given = getattr(adapter, "event_fields", frozenset())
    taken = sorted(f for f in given if isinstance(f, str) and f in PROTOCOL_FIELDS)
    if taken:
        raise AdapterProtocolField(
            ADAPTER_PROTOCOL_FIELD(
                plugin=repr(plugin),
                adapter=repr(adapter.id),
                fields=", ".join(repr(f) for f in taken),
            ),
            details={"plugin": plugin, "adapter": adapter.id, "fields": taken},
        )


def _refuse_a_class(plugin: str, given: Any, base: type, refusal: Message) -> None:
    """Raise :class:`PluginError` when a plugin registered a class of ``base``, not
    an instance of it (``register(Fatelike)`` for ``register(Fatelike())``)."""
    if isinstance(given, type) and issubclass(given, base):
        raise PluginError(
            refusal(plugin=repr(plugin), cls=given.__name__), details={"plugin": plugin}
        )


def _cause(exc: BaseException) -> str:
    """An exception as a refusal names its cause: ``ValueError: bad value`` (Python's
    words, in English)."""
    return f"{type(exc).__name__}: {exc}"


def check_ruleset(ruleset: Ruleset, plugin: str) -> None:
    """Raise :class:`PluginError` if ``ruleset`` does not satisfy the contract."""

    def fail(problem: Text | str) -> PluginError:
        ident = repr(getattr(ruleset, "id", "?"))
        return PluginError(
            RULESET_REFUSED(plugin=repr(plugin), ruleset=ident, problem=problem),
            details={"plugin": plugin},
        )

    ident = getattr(ruleset, "id", None)
    if not isinstance(ident, str) or not _ID.fullmatch(ident):
        raise fail(BAD_ID())
    if not isinstance(getattr(ruleset, "name", None), str):
        raise fail(NO_NAME())
    _check_version(getattr(ruleset, "version", None), fail, f"plugin {plugin!r}: ruleset {ident!r}")
    words = getattr(ruleset, "words", 1)
    if type(words) is not int or words < 1:
        raise fail(BAD_WORDS(given=repr(words)[:40]))
    actions = getattr(ruleset, "actions", None)
    if not isinstance(actions, Mapping):
        raise fail(ACTIONS_MAPPING(given=type(actions).__name__))
    if not actions:
        raise fail(NO_ACTIONS())
    try:
        check_schema(ruleset.sheet_schema, "sheet_schema")
        check_schema(ruleset.settings_schema, "settings_schema")
        check_schema(ruleset.state_schema, "state_schema")
        for name in ("sheet_schema", "settings_schema", "state_schema"):
            _refuse_stray_choices(getattr(ruleset, name), name)
        for key, spec in actions.items():
            if not isinstance(spec, ActionSpec):
                raise fail(NOT_A_SPEC(given=type(spec).__name__, key=repr(key)))
            if key != spec.name:
                raise fail(KEY_MISMATCH(action=repr(spec.name), key=repr(key)))
            if spec.actor not in ACTORS:
                raise fail(
                    BAD_ACTOR(action=repr(key), actor=repr(spec.actor), allowed=_listed(ACTORS))
                )
            secret = getattr(spec, "secret", False)
            if type(secret) is not bool:  # read at every request: "no" would be secret
                raise fail(SECRET_NOT_BOOL(action=repr(key), given=_shown(secret)))
            _check_flags(spec, fail, f"plugin {plugin!r}: ruleset {ident!r}")
            check_schema(spec.params, f"action {key!r} params")
            _check_params_object(spec, fail)
            _check_target_counts(spec, fail)
            _check_action_texts(spec, fail)
            _check_choices_from(ruleset, spec, fail)
    except PluginError as exc:
        if exc.message.startswith(f"plugin {plugin!r}"):
            raise
        raise fail(exc.text if exc.text is not None else exc.message) from None


def _check_version(version: Any, fail: Callable[[Any], PluginError], whose: str) -> None:
    """A ruleset's ``version`` is ``MAJOR.MINOR.PATCH`` (:data:`_VERSION`), as the
    contract says. Tables compare its major number (another refuses to open them):
    a version whose major cannot be read (``v1.0.0``, ``release-2``: read as 0, the
    same for every release) is refused, naming the version to write; one whose major
    reads but is not of that form (``1.0``, ``2.5-beta``, plugins that loaded before
    the form was checked) is taken, with a WARNING naming the one to write."""
    if isinstance(version, str) and _VERSION.fullmatch(version):
        return
    if not isinstance(version, str):
        raise fail(VERSION_MISSING(given=type(version).__name__))
    fixed = _fixed_version(version)
    if not version.split(".", 1)[0].isdigit():
        raise fail(VERSION_FORM(version=repr(version), fixed=repr(fixed)))
    log.warning(
        "%s has the version %r, which is not MAJOR.MINOR.PATCH: taken (its major version "
        "reads %s), but write %r",
        whose, version, major_version(version), fixed,
    )  # fmt: skip


def _fixed_version(version: str) -> str:
    """The ``MAJOR.MINOR.PATCH`` to write for ``version``: its first numbers, kept
    (``v2.3.1`` → ``2.3.1``, ``2.1`` → ``2.1.0``, ``1.2.3.4`` → ``1.2.3``: another
    MAJOR would refuse the tables made with it), with the label that followed them if
    that is one (``2.1rc1`` → ``2.1.0rc1``); ``1.0.0`` when it has no number."""
    numbers = re.search(r"\d+(?:\.\d+)*", version)
    if numbers is None:
        return "1.0.0"
    fixed = ".".join([*numbers.group().split(".")[:3], "0", "0"][:3])
    labelled = fixed + version[numbers.end() :]
    return labelled if _VERSION.fullmatch(labelled) else fixed


#: What ``gm_only`` and ``every_actor`` mean when true and when false, as a WARNING
#: about one that is no bool says how it is read.
FLAG_MEANINGS = {
    "gm_only": ("only the GM may ask for it", "players may ask for it too"),
    "every_actor": ("every actor of the table is its targets", "a request names its targets"),
}


def _check_flags(spec: Any, fail: Callable[[Text], PluginError], whose: str) -> None:
    """An action's ``gm_only`` and ``every_actor`` are ``True`` or ``False``. Until they
    were checked (7 December) any value loaded, read by its truth (``"no"`` as true):
    one whose truth reads is taken as read, for a release, with a WARNING naming the
    action, the field, the value and what it is read as (a later release refuses
    it; docs/plugins.md, "The contract"), and the action holds that bool from then
    on: its truth is read once, here, never again at a request, a welcome, an undo
    or an export (a ``__bool__`` that answers once and raises or changes its mind
    later would fail them, or play the action both ways). One whose truth cannot be
    read (its ``__bool__`` raises) is refused, since every request for the action and
    every welcome of the table would fail on it."""
    for field_name, (when_true, when_false) in FLAG_MEANINGS.items():
        given = getattr(spec, field_name, False)
        if type(given) is bool:
            continue
        try:
            reads = bool(given)
        except Exception as exc:
            raise fail(
                FLAG_UNREADABLE(
                    action=repr(spec.name), field=field_name, given=_shown(given), cause=_cause(exc)
                )
            ) from None
        # the spec is frozen: the bool it is read as is set in place of the value
        object.__setattr__(spec, field_name, reads)
        log.warning(
            "%s action %r: %s %s is not True or False: taken as %s (%s), as Python reads "
            "its truth, until a later release refuses it: write %s",
            whose, spec.name, field_name, _shown(given), reads,
            when_true if reads else when_false, reads,
        )  # fmt: skip


def _check_target_counts(spec: Any, fail: Callable[[Text], PluginError]) -> None:
    """An action's ``min_targets`` is a whole number from 0 and its ``max_targets``
    none (no limit) or one at least as large: an action asking for more targets than
    it takes could never be asked for, and every request would be refused naming a
    count the player cannot meet."""
    least, most = getattr(spec, "min_targets", 0), getattr(spec, "max_targets", 0)
    if isinstance(least, bool) or not isinstance(least, int) or least < 0:
        raise fail(MIN_TARGETS(action=repr(spec.name), given=repr(least)))
    if most is None:
        return
    if isinstance(most, bool) or not isinstance(most, int) or most < least:
        raise fail(MAX_TARGETS(action=repr(spec.name), given=repr(most), least=least))


def _check_params_object(spec: Any, fail: Callable[[Text], PluginError]) -> None:
    """An action's ``params`` describe an object: a request's parameters are always
    one (``{"skill": "fight"}``), so a schema of another type would refuse every
    request the action is asked with."""
    kind = spec.params.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if kind is not None and "object" not in kinds:
        raise fail(PARAMS_OBJECT(where=f"action {spec.name!r} params", given=repr(kind)))


def _check_action_texts(spec: Any, fail: Callable[[Text], PluginError]) -> None:
    """An action's ``labels``, ``hints`` and ``choices`` name its parameters (a
    misspelt one would quietly show nothing), and ``choices`` the values of their
    ``enum``."""
    properties = (spec.params or {}).get("properties") or {}
    for kind in ("labels", "hints", "choices"):
        given = getattr(spec, kind, None) or {}
        if not isinstance(given, Mapping):
            shown = f"{type(given).__name__} {given!r}"
            raise fail(TEXTS_MAPPING(action=repr(spec.name), kind=kind, given=shown))
        for param in given:
            if param not in properties:
                raise fail(NOT_A_PARAM(action=repr(spec.name), kind=kind, param=repr(param)))
    where = f"action {spec.name!r} choices"
    for param, values in (getattr(spec, "choices", None) or {}).items():
        allowed = properties[param].get("enum")
        if allowed is None:
            raise fail(NO_ENUM(where=where, param=repr(param)))
        if not isinstance(values, Mapping):
            given = type(values).__name__
            raise fail(CHOICES_MAPPING(where=where, param=repr(param), given=given))
        for value in values:
            if value not in allowed:
                raise fail(NOT_A_VALUE(where=where, value=repr(value), param=repr(param)))


def _described(schema: Any, path: str) -> bool:
    """Whether ``schema`` describes a list or an object at ``path`` (field names
    joined by dots), or leaves that part free: ``additionalProperties: true``, or a
    node that validate checks nothing of (no ``type``, ``enum`` or ``properties``:
    ``{}``, ``{"description": …}``; an object typed with others, ``["object",
    "null"]``, without ``properties``), where anything may be."""
    node = schema
    for key in path.split("."):
        if _free(node):
            return True
        if not isinstance(node, Mapping):
            return False
        sub = (node.get("properties") or {}).get(key)
        extra = node.get("additionalProperties", False)
        if sub is None and extra is True:
            return True  # a part the schema leaves free: anything may be there
        node = sub if sub is not None else extra if isinstance(extra, Mapping) else None
    if not isinstance(node, Mapping):
        return False
    if _free(node):
        return True
    types = node.get("type")
    names = {types} if isinstance(types, str) else set(types or ())
    return bool(names & {"array", "object"}) or "items" in node or "properties" in node


def _free(node: Any) -> bool:
    """Whether validate leaves a schema node's fields unchecked (core/schema.py: an
    object only with ``properties`` or ``type: "object"`` alone)."""
    if not isinstance(node, Mapping) or "properties" in node or "enum" in node:
        return False
    types = node.get("type")
    names = [types] if isinstance(types, str) else list(types or ())
    return not names or ("object" in names and names != ["object"])


def _refuse_stray_choices(schema: Any, where: str) -> None:
    """Raise :class:`PluginError` for a ``choicesFrom`` anywhere in ``schema``: no
    form reads one there (only on a property of an action's ``params``), so it would
    quietly offer nothing."""
    if not isinstance(schema, Mapping):
        return
    if "choicesFrom" in schema:
        raise PluginError(STRAY_CHOICES(where=where))
    for key, sub in (schema.get("properties") or {}).items():
        _refuse_stray_choices(sub, f"{where}.{key}")
    _refuse_stray_choices(schema.get("items"), f"{where}[]")
    _refuse_stray_choices(schema.get("additionalProperties"), f"{where}.*")


def _check_choices_from(ruleset: Any, spec: Any, fail: Callable[[Text], PluginError]) -> None:
    """A parameter whose choices are on the sheet (``choicesFrom``) belongs to an
    action with an acting actor — or, with ``"of": "target"``, to an action of one
    target at most, whose target it reads —, and names a list or an object its
    ruleset's ``sheet_schema`` (``state_schema``) describes: a misspelt path would
    quietly offer nothing."""
    params = spec.params or {}
    properties = params.get("properties") or {}
    where = f"action {spec.name!r} params"
    _refuse_stray_choices({k: v for k, v in params.items() if k != "properties"}, where)
    for param, schema in properties.items():
        if isinstance(schema, Mapping):  # within a parameter: no form reads it there
            inner = {k: v for k, v in schema.items() if k != "choicesFrom"}
            _refuse_stray_choices(inner, f"{where}.{param}")
        annotation = schema.get("choicesFrom") if isinstance(schema, Mapping) else None
        if annotation is None:
            continue
        # this parameter's own name in a refusal: `where` stays the params' for the next one
        named = f"action {spec.name!r} parameter {param!r} choicesFrom"
        if annotation.get("of") == "target":
            _check_one_target(spec, named, fail)
        elif spec.actor == "none":
            raise fail(CHOICES_NO_ACTOR(where=named))
        source = "state" if "state" in annotation else "sheet"
        described = getattr(ruleset, f"{source}_schema", None)
        if not _described(described, annotation[source]):
            found = _found_at(described, annotation[source])
            path = repr(annotation[source])
            raise fail(CHOICES_UNDESCRIBED(where=named, source=source, path=path, found=found))


def _found_at(schema: Any, path: str) -> Text:
    """What ``schema`` has where ``path`` leads, for a refused ``choicesFrom``: the
    fields it describes where a step is missing (a misspelt ``skill`` for ``skills``),
    or the type it gives the end of the path (a stat's ``integer``, not its list)."""
    node, walked = schema, []
    for key in path.split("."):
        properties = node.get("properties") if isinstance(node, Mapping) else None
        sub = (properties or {}).get(key)
        extra = node.get("additionalProperties") if isinstance(node, Mapping) else None
        if sub is None and isinstance(extra, Mapping):
            sub = extra
        if not isinstance(sub, Mapping):
            types = node.get("type") if isinstance(node, Mapping) else None
            if walked and not properties and "object" not in _types(types):
                break  # the path goes on past a number or a text
            fields = ", ".join(map(repr, sorted(properties or {}))) or FOUND_NONE()
            if not walked:
                return FOUND_NO_FIELD_AT_TOP(key=repr(key), fields=fields)
            return FOUND_NO_FIELD(key=repr(key), at=".".join(walked), fields=fields)
        node = sub
        walked.append(key)
    walked_path = repr(".".join(walked))
    if "type" not in node:
        return FOUND_NO_TYPE(path=walked_path)
    return FOUND_TYPE(path=walked_path, kind=repr(node["type"]))


def _types(given: Any) -> list[Any]:
    """A schema node's ``type`` as a list (``"object"``, ``["object", "null"]``)."""
    return [given] if isinstance(given, str) else list(given or ())


def _check_one_target(spec: Any, where: str, fail: Callable[[Text], PluginError]) -> None:
    """A ``choicesFrom`` of ``"of": "target"`` reads the action's one target: its
    action takes one target at most (``max_targets`` 1, not ``every_actor``; that it
    asks for no more, ``min_targets`` 0 or 1, :func:`_check_target_counts` holds)."""
    if spec.every_actor:
        raise fail(ONE_TARGET_EVERY_ACTOR(where=where))
    if spec.max_targets != 1:
        # as the author wrote it (None, 2): a Python value, not a reader's (None reads "—")
        raise fail(ONE_TARGET_MAX(where=where, most=repr(spec.max_targets)))


def _shown(value: Any) -> str:
    """``value`` as a refusal names it: its ``repr``, cut to 40 characters (its type's
    name when even that raises: a ruleset's own class)."""
    try:
        return repr(value)[:40]
    except Exception:
        return type(value).__name__


def _listed(names: Iterable[str]) -> str:
    """Names as a refusal lists them: ``'required', 'optional', 'none'``."""
    return ", ".join(map(repr, names))


def loaded_ruleset_ids(host: PluginHost) -> Iterable[str]:
    """The ids of every loaded ruleset, sorted."""
    return sorted(host.rulesets)
