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
naming the plugin and the cause.
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
from rollbridge.adapter import Adapter
from rollbridge.contract import ActionSpec, Ruleset
from rollbridge.exceptions import (
    DuplicateRegistration,
    PluginError,
    PluginLoadError,
    UnknownRuleset,
)
from rollbridge.schema import check_schema
from rollbridge.text import Messages

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

ENTRY_POINT_GROUP = "rollbridge"
ENV_DISABLE_AUTOLOAD = "ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD"
ENV_ALLOW = "ROLLBRIDGE_PLUGINS"
ENV_BLOCK = "ROLLBRIDGE_BLOCK_PLUGINS"

_ID = re.compile(r"[a-z][a-z0-9_-]{0,31}")
#: What an :class:`~rollbridge.contract.ActionSpec`'s ``actor`` may be.
ACTORS = ("required", "optional", "none")
_VERSION = re.compile(r"\d+\.\d+(\.\d+)?([.+-].*)?")


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
                    f"built-in plugin {name!r} failed to import: {type(exc).__name__}: {exc}",
                    details={"plugin": name},
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
                    f"plugin {name!r} (package {dist_name}) failed to import: "
                    f"{type(exc).__name__}: {exc}",
                    details={"plugin": name},
                ) from exc
            self._add(name, plugin, version=version, source=f"entry point ({dist_name})")

    def _add(self, name: str, plugin: object, *, version: str, source: str) -> None:
        if name in self.plugins:
            raise DuplicateRegistration(
                f"two plugins are named {name!r} ({self.plugins[name].source} and {source})",
                details={"plugin": name},
            )
        try:
            self.manager.register(plugin, name=name)
        except Exception as exc:
            raise PluginLoadError(
                f"plugin {name!r} could not be registered: {exc}", details={"plugin": name}
            ) from exc
        self.plugins[name] = PluginInfo(name=name, version=str(version), source=source)

    def _check_hook_names(self) -> None:
        """Refuse a plugin implementing a hook rollbridge does not have: a misspelt
        ``register_ruleset`` would otherwise load silently and register nothing."""
        try:
            self.manager.check_pending()
        except pluggy.PluginValidationError as exc:
            name = self.manager.get_name(exc.plugin) or "?"
            hook = re.search(r"unknown hook '([^']+)'", str(exc))
            raise PluginLoadError(
                f"plugin {name!r} implements {hook.group(1) if hook else str(exc)!r}, which "
                "is no hook of rollbridge (docs/plugins.md lists them)",
                details={"plugin": name},
            ) from None

    def _check_unmarked_hooks(self) -> None:
        """Refuse a plugin with a function named as a hook but not marked
        ``@rollbridge.hookimpl``: pluggy calls only marked ones, so it would load and
        register nothing, listed as "observer hooks only".

        Only a function the plugin itself defines under a hook's name is looked at
        (:func:`_defines`), not whatever else bears that name: what a module's or a
        proxy's ``__getattr__`` makes up for any name, a method of another object
        (``table_created = signal.send``), a class, a ``partial``, a function imported
        from another package — none of which pluggy would take for a hook."""
        hooks = [name for name in vars(self.manager.hook) if not name.startswith("_")]
        for name, plugin in self.manager.list_name_plugin():
            for hook in hooks:
                if (
                    _defines(plugin, hook)
                    and self.manager.parse_hookimpl_opts(plugin, hook) is None
                ):
                    raise PluginLoadError(
                        f"plugin {name!r} defines {hook} without @rollbridge.hookimpl, so "
                        "rollbridge would never call it: mark it with @rollbridge.hookimpl "
                        "(docs/plugins.md, 'A ruleset')",
                        details={"plugin": name},
                    )

    def _collect(self) -> None:
        self._call_registration("register_rulesets", self._register_ruleset)
        self._call_registration("register_adapters", self._register_adapter)

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
                    f"plugin {plugin_name!r} failed in {hook_name}: {type(exc).__name__}: {exc}",
                    details={"plugin": plugin_name},
                ) from exc

    def _register_ruleset(self, plugin: str, ruleset: Any) -> None:
        _refuse_a_class(plugin, ruleset, Ruleset, "a ruleset")
        if not isinstance(ruleset, Ruleset):
            raise PluginError(
                f"plugin {plugin!r} registered {ruleset!r}, which is not a Ruleset",
                details={"plugin": plugin},
            )
        check_ruleset(ruleset, plugin)
        self._claim("ruleset", ruleset.id, plugin)
        self.rulesets[ruleset.id] = ruleset
        self.plugins[plugin].rulesets.append(ruleset.id)

    def _register_adapter(self, plugin: str, adapter: Any) -> None:
        _refuse_a_class(plugin, adapter, Adapter, "an adapter")
        if not isinstance(adapter, Adapter):
            raise PluginError(
                f"plugin {plugin!r} registered {adapter!r}, which is not an Adapter",
                details={"plugin": plugin},
            )
        if not _ID.fullmatch(str(getattr(adapter, "id", ""))):
            raise PluginError(f"plugin {plugin!r} registered an adapter with a bad id")
        self._claim("adapter", adapter.id, plugin)
        self.adapters[adapter.id] = adapter
        self.plugins[plugin].adapters.append(adapter.id)

    def _claim(self, kind: str, ident: str, plugin: str) -> None:
        owner = self._owner.get((kind, ident))
        if owner is not None:
            raise DuplicateRegistration(
                f"plugin {plugin!r} registers {kind} id {ident!r}, "
                f"already registered by plugin {owner!r}",
                details={"plugin": plugin, "id": ident, "owner": owner},
            )
        self._owner[(kind, ident)] = plugin

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


def _defines(plugin: object, name: str) -> bool:
    """Whether ``plugin`` itself defines a function ``name``: a module (or a package
    re-exporting it from one of its modules), or a class — the plugin or the
    plugin's own — with it as a method (plain, static or class method)."""
    found = inspect.getattr_static(plugin, name, None)
    if isinstance(found, staticmethod | classmethod):
        found = found.__func__
    if not inspect.isfunction(found):
        return False
    if inspect.ismodule(plugin):
        package = plugin.__name__.split(".", 1)[0]
        return str(found.__module__).split(".", 1)[0] == package
    return True


def _refuse_a_class(plugin: str, given: Any, base: type, kind: str) -> None:
    """Raise :class:`PluginError` when a plugin registered a class of ``base``, not
    an instance of it (``register(Fatelike)`` for ``register(Fatelike())``)."""
    if isinstance(given, type) and issubclass(given, base):
        raise PluginError(
            f"plugin {plugin!r} registered the class {given.__name__}, not {kind}: "
            f"register an instance, register({given.__name__}())",
            details={"plugin": plugin},
        )


def check_ruleset(ruleset: Ruleset, plugin: str) -> None:
    """Raise :class:`PluginError` if ``ruleset`` does not satisfy the contract."""

    def fail(problem: str) -> PluginError:
        return PluginError(
            f"plugin {plugin!r}: ruleset {getattr(ruleset, 'id', '?')!r} {problem}",
            details={"plugin": plugin},
        )

    ident = getattr(ruleset, "id", None)
    if not isinstance(ident, str) or not _ID.fullmatch(ident):
        raise fail("needs an id of 1-32 lowercase letters, digits, '-' or '_'")
    if not isinstance(getattr(ruleset, "name", None), str):
        raise fail("needs a name")
    if not isinstance(getattr(ruleset, "version", None), str) or not _VERSION.fullmatch(
        ruleset.version
    ):
        raise fail("needs a version like 1.0.0")
    actions = getattr(ruleset, "actions", None)
    if not isinstance(actions, Mapping):
        raise fail(
            f"actions must be a mapping of each action's name to its ActionSpec "
            f"({{'attack': ActionSpec('attack', ...)}}), not {type(actions).__name__}"
        )
    if not actions:
        raise fail("needs at least one action")
    try:
        check_schema(ruleset.sheet_schema, "sheet_schema")
        check_schema(ruleset.settings_schema, "settings_schema")
        check_schema(ruleset.state_schema, "state_schema")
        for name in ("sheet_schema", "settings_schema", "state_schema"):
            _refuse_stray_choices(getattr(ruleset, name), name)
        for key, spec in actions.items():
            if not isinstance(spec, ActionSpec):
                raise fail(
                    f"lists {type(spec).__name__} under the action key {key!r}, not an ActionSpec"
                )
            if key != spec.name:
                raise fail(f"lists action {spec.name!r} under the key {key!r}")
            if spec.actor not in ACTORS:
                raise fail(
                    f"action {key!r}: actor {spec.actor!r} is not one of "
                    f"{', '.join(map(repr, ACTORS))}"
                )
            check_schema(spec.params, f"action {key!r} params")
            _check_params_object(spec, fail)
            _check_target_counts(spec, fail)
            _check_action_texts(spec, fail)
            _check_choices_from(ruleset, spec, fail)
    except PluginError as exc:
        if exc.message.startswith(f"plugin {plugin!r}"):
            raise
        raise fail(exc.message) from None


def _check_target_counts(spec: Any, fail: Callable[[str], PluginError]) -> None:
    """An action's ``min_targets`` is a whole number from 0 and its ``max_targets``
    none (no limit) or one at least as large: an action asking for more targets than
    it takes could never be asked for, and every request would be refused naming a
    count the player cannot meet."""
    least, most = getattr(spec, "min_targets", 0), getattr(spec, "max_targets", 0)
    if isinstance(least, bool) or not isinstance(least, int) or least < 0:
        raise fail(f"action {spec.name!r}: min_targets {least!r} is not a whole number from 0")
    if most is None:
        return
    if isinstance(most, bool) or not isinstance(most, int) or most < least:
        raise fail(
            f"action {spec.name!r}: max_targets {most!r} is not None (no limit) or a whole"
            f" number from min_targets ({least})"
        )


def _check_params_object(spec: Any, fail: Callable[[str], PluginError]) -> None:
    """An action's ``params`` describe an object: a request's parameters are always
    one (``{"skill": "fight"}``), so a schema of another type would refuse every
    request the action is asked with."""
    kind = spec.params.get("type")
    kinds = kind if isinstance(kind, list) else [kind]
    if kind is not None and "object" not in kinds:
        raise fail(
            f"action {spec.name!r} params: a request's parameters are an object "
            f"(name → value), so the schema's type must be 'object', not {kind!r} "
            f'(one parameter: {{"type": "object", "properties": {{"amount": {{...}}}}}})'
        )


def _check_action_texts(spec: Any, fail: Callable[[str], PluginError]) -> None:
    """An action's ``labels``, ``hints`` and ``choices`` name its parameters (a
    misspelt one would quietly show nothing), and ``choices`` the values of their
    ``enum``."""
    properties = (spec.params or {}).get("properties") or {}
    for kind in ("labels", "hints", "choices"):
        given = getattr(spec, kind, None) or {}
        if not isinstance(given, Mapping):
            raise fail(
                f"action {spec.name!r} {kind}: must map each parameter's name to its "
                f"text ({{'amount': ...}}), not {type(given).__name__} {given!r}"
            )
        for param in given:
            if param not in properties:
                raise fail(f"action {spec.name!r} {kind}: {param!r} is not one of its parameters")
    for param, values in (getattr(spec, "choices", None) or {}).items():
        allowed = properties[param].get("enum")
        if allowed is None:
            raise fail(f"action {spec.name!r} choices: {param!r} has no enum")
        if not isinstance(values, Mapping):
            raise fail(
                f"action {spec.name!r} choices: {param!r} must map each value of its "
                f"enum to its text, not {type(values).__name__}"
            )
        for value in values:
            if value not in allowed:
                raise fail(f"action {spec.name!r} choices: {value!r} is not a value of {param!r}")


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
        raise PluginError(
            f"{where} has a choicesFrom, which is read on a property of an action's params only"
        )
    for key, sub in (schema.get("properties") or {}).items():
        _refuse_stray_choices(sub, f"{where}.{key}")
    _refuse_stray_choices(schema.get("items"), f"{where}[]")
    _refuse_stray_choices(schema.get("additionalProperties"), f"{where}.*")


def _check_choices_from(ruleset: Any, spec: Any, fail: Callable[[str], PluginError]) -> None:
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
            raise fail(f"{named}: the action has no acting actor to take choices from")
        source = "state" if "state" in annotation else "sheet"
        described = getattr(ruleset, f"{source}_schema", None)
        if not _described(described, annotation[source]):
            raise fail(
                f"{named}: {source}_schema describes no list or object at "
                f"{annotation[source]!r} ({_found_at(described, annotation[source])})"
            )


def _found_at(schema: Any, path: str) -> str:
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
            where = ".".join(walked) or "its top"
            fields = ", ".join(map(repr, sorted(properties or {}))) or "none"
            return f"no field {key!r} at {where}; the fields it describes there: {fields}"
        node = sub
        walked.append(key)
    return f"{'.'.join(walked)!r} is described as {node.get('type', 'a node of no type')!r}"


def _types(given: Any) -> list[Any]:
    """A schema node's ``type`` as a list (``"object"``, ``["object", "null"]``)."""
    return [given] if isinstance(given, str) else list(given or ())


def _check_one_target(spec: Any, where: str, fail: Callable[[str], PluginError]) -> None:
    """A ``choicesFrom`` of ``"of": "target"`` reads the action's one target: its
    action takes one target at most (``max_targets`` 1, not ``every_actor``; that it
    asks for no more, ``min_targets`` 0 or 1, :func:`_check_target_counts` holds)."""
    if spec.every_actor:
        has, fix = "every actor", "give it max_targets 1"
    elif spec.max_targets != 1:
        has, fix = f"max_targets {spec.max_targets}", "give it max_targets 1"
    else:
        return
    raise fail(f"{where}: 'of': 'target' reads the action's one target, and it has {has} ({fix})")


def loaded_ruleset_ids(host: PluginHost) -> Iterable[str]:
    """The ids of every loaded ruleset, sorted."""
    return sorted(host.rulesets)
