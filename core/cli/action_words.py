"""What ``rollbridge connect``'s ``actions`` prints: each action of the table's ruleset
and, for each parameter, what a player must type — its type, the values it allows
(an ``enum``, with the ruleset's words for them; a ``choicesFrom``'s sheet or state,
and whether another value is taken too), its range or length, an object's keys, a
list's items and their count, a text's pattern (the regular expression, labelled),
its default, whether it is required, and its hint —
in the reader's language, from the action's
schema and the words the welcome carries (``labels``, ``hints``, ``choices``,
rendered in the member's locale; a parameter without a hint shows its schema's
``description``, as forms do).

Values one types (an ``enum``'s value, a default, a bound) are written as they are
typed: a string as it is, anything else as JSON (``null``, ``true``, ``[]``). A long
``enum`` shows its first :data:`SHOWN_VALUES` values and "and N more"; a long
``pattern`` its first :data:`SHOWN_PATTERN` characters.

Every word comes from the server (a third-party ruleset's labels and their
translations): each line is made :func:`~rollbridge.visible.visible` whole, a line
break in a label, a hint or a value too, so none starts a line of its own that reads
as another action or parameter, and no escape sequence reaches the terminal."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from rollbridge.contract import _choice_key
from rollbridge.plain import JSON
from rollbridge.text import Messages, Text
from rollbridge.visible import visible

__all__ = ["action_lines"]

say = Messages("rollbridge")
# Translators: the types of an action's parameter, as `connect`'s `actions` lists them.
TYPES = {
    "integer": say("cli.actions.type.integer", "whole number"),
    "number": say("cli.actions.type.number", "number"),
    "string": say("cli.actions.type.string", "text"),
    "boolean": say("cli.actions.type.boolean", "true or false"),
    "array": say("cli.actions.type.array", "list (JSON)"),
    "object": say("cli.actions.type.object", "object (JSON)"),
    "null": say("cli.actions.type.null", "null"),
}
# Translators: {values} are the values one may type, as they are typed (keep them).
ONE_OF = say("cli.actions.one_of", "one of {values}")
# Translators: after the first values of a long enum (cli.actions.one_of): how many
# more it allows, not listed.
MORE_VALUES = say.plural(
    "cli.actions.more_values", "and {count} more value", "and {count} more values"
)
# Translators: {pattern} is a regular expression a text must match, as the ruleset
# wrote it (keep it as it is).
PATTERN = say("cli.actions.pattern", "matching the regular expression {pattern}")
# Translators: {minimum} and {maximum} are numbers.
RANGE = say("cli.actions.range", "from {minimum} to {maximum}")
# Translators: {minimum} is a number.
AT_LEAST = say("cli.actions.at_least", "at least {minimum}")
# Translators: {maximum} is a number.
AT_MOST = say("cli.actions.at_most", "at most {maximum}")
# Translators: the longest text a parameter takes.
LONGEST = say.plural(
    "cli.actions.longest", "at most {count} character", "at most {count} characters"
)
# Translators: the shortest text a parameter takes.
SHORTEST = say.plural(
    "cli.actions.shortest", "at least {count} character", "at least {count} characters"
)
# Translators: after cli.actions.from.*: the rules take a value the sheet or state
# does not offer too.
OR_ANOTHER = say("cli.actions.or_another", "or another value")
# Translators: what each item of a list parameter is; {item} is its type, values and
# range (cli.actions.type.* and the like, joined by commas).
EACH_ITEM = say("cli.actions.each_item", "each item: {item}")
# Translators: the fewest items a list parameter takes.
LEAST_ITEMS = say.plural(
    "cli.actions.least_items", "at least {count} item", "at least {count} items"
)
# Translators: the most items a list parameter takes.
MOST_ITEMS = say.plural("cli.actions.most_items", "at most {count} item", "at most {count} items")
# Translators: the keys an object (a map typed as JSON) takes; {keys} are their names
# as typed, each required one marked by cli.actions.required in parentheses.
KEYS = say("cli.actions.keys", "keys {keys}")
# Translators: an object whose keys one chooses; {value} is what each key's value must be
# (its type, values, range: cli.actions.type.* and the like, joined by commas).
ANY_KEY = say("cli.actions.any_key", "any key, each: {value}")
# Translators: as cli.actions.any_key, for an object whose named keys cli.actions.keys
# listed before it.
OTHER_KEYS = say("cli.actions.other_keys", "other keys, each: {value}")
# Translators: what a value is where the schema says nothing of it.
ANY_VALUE = say("cli.actions.any_value", "any value")
# Translators: in place of a parameter's name, for the parameters an action takes
# under names it does not list.
OTHER_PARAMS = say("cli.actions.other_params", "other parameters")
# Translators: {value} is the value used when the parameter is left out, as typed.
DEFAULT = say("cli.actions.default", "default {value}")
REQUIRED = say("cli.actions.required", "required")
OPTIONAL = say("cli.actions.optional", "optional")
# Translators: {field} is a field's name in the sheet or state (weapons, stats): keep it.
FROM_CHOICES = {
    ("sheet", "actor"): say("cli.actions.from.sheet", "one the actor's sheet offers ({field})"),
    ("state", "actor"): say("cli.actions.from.state", "one the actor's state offers ({field})"),
    ("sheet", "target"): say(
        "cli.actions.from.target_sheet", "one the target's sheet offers ({field})"
    ),
    ("state", "target"): say(
        "cli.actions.from.target_state", "one the target's state offers ({field})"
    ),
}
ACTOR = {
    "required": say("cli.actions.actor.required", "actor=ID required"),
    "optional": say("cli.actions.actor.optional", "actor=ID optional"),
}
# Translators: how many target=ID an action takes; {count} is a number.
TARGETS = say.plural("cli.actions.targets", "{count} target", "{count} targets")
# Translators: {least} and {most} are numbers of targets.
TARGETS_RANGE = say.plural(
    "cli.actions.targets_range",
    "{least} to {most} target",
    "{least} to {most} targets",
    count="most",
)
# Translators: {least} is a number of targets.
TARGETS_MORE = say.plural(
    "cli.actions.targets_more", "{count} target or more", "{count} targets or more"
)
EVERY_ACTOR = say("cli.actions.every_actor", "every actor as targets")
GM_ONLY = say("cli.actions.gm_only", "GM only")
#: An action the ruleset keeps secret whoever asks (ActionSpec(secret=True)).
ALWAYS_SECRET = say("cli.actions.secret", "always secret: players see only that something happened")
NO_PARAMS = say("cli.actions.no_params", "no parameters")


#: How many of an ``enum``'s values are listed: a longer one reads as these and "and N
#: more" (a ruleset's list of every skill or spell would fill the screen).
SHOWN_VALUES = 8
#: How many characters of a ``pattern`` are shown; a longer one ends in "…".
SHOWN_PATTERN = 80


def action_lines(actions: Mapping[str, Any], locale: str) -> list[str]:
    """The lines ``actions`` prints for the welcome's ``actions`` (name → the action
    as :meth:`~rollbridge.contract.ActionSpec.to_dict` gives it) in ``locale``, each
    one line with its control characters escaped."""
    lines: list[str] = []
    for name, action in actions.items():
        if not isinstance(action, Mapping):
            continue
        lines.append(_heading(name, action, locale))
        schema = _words(action, "params")
        properties = _words(schema, "properties")
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        others = _others(schema.get("additionalProperties"), locale)
        if not properties and not others:
            lines.append(f"      {NO_PARAMS().render(locale)}")
        for param, spec in properties.items():
            lines.extend(_parameter(param, spec, param in required, action, locale))
        if others:
            lines.append(f"      {OTHER_PARAMS().render(locale)}: {others}")
    return [visible(line) for line in lines]


def _others(schema: Any, locale: str) -> str:
    """What a value must be under a name an object's ``properties`` do not list
    (``additionalProperties``: a schema, or true for any value); empty where none is
    taken (false, the default here)."""
    if schema is True:
        return ANY_VALUE().render(locale)
    if isinstance(schema, Mapping):
        return ", ".join(_facts(schema, {}, locale)) or ANY_VALUE().render(locale)
    return ""


def _words(action: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    found = action.get(key)
    return found if isinstance(found, Mapping) else {}


def _heading(name: str, action: Mapping[str, Any], locale: str) -> str:
    """``  name — Label: summary  [actor=ID required; 1 target; GM only; always
    secret: …]``."""
    label = action.get("label")
    titled = f"{name} — {label}" if isinstance(label, str) and label and label != name else name
    summary = action.get("summary")
    head = f"  {titled}: {summary}" if isinstance(summary, str) and summary else f"  {titled}"
    notes = []
    actor = ACTOR.get(action.get("actor"))  # type: ignore[arg-type]
    if actor is not None:
        notes.append(actor().render(locale))
    targets = _targets(action)
    if targets is not None:
        notes.append(targets.render(locale))
    if action.get("gm_only") is True:
        notes.append(GM_ONLY().render(locale))
    if action.get("secret") is True:
        notes.append(ALWAYS_SECRET().render(locale))
    return f"{head}  [{'; '.join(notes)}]" if notes else head


def _targets(action: Mapping[str, Any]) -> Text | None:
    if action.get("every_actor") is True:
        return EVERY_ACTOR()
    least, most = action.get("min_targets"), action.get("max_targets")
    least = least if isinstance(least, int) else 0
    if most is None:
        return TARGETS_MORE(count=least) if least else None
    if not isinstance(most, int) or most == 0:
        return None
    if least == most:
        return TARGETS(count=most)
    return TARGETS_RANGE(least=least, most=most)


def _parameter(
    name: str, spec: Any, required: bool, action: Mapping[str, Any], locale: str
) -> list[str]:
    """A parameter's line, and its hint's where it has one."""
    spec = spec if isinstance(spec, Mapping) else {}
    label = _words(action, "labels").get(name)
    titled = f"{name} ({label})" if isinstance(label, str) and label and label != name else name
    facts = _facts(spec, _words(_words(action, "choices"), name), locale, _offered(spec, locale))
    items = spec.get("items")
    if isinstance(items, Mapping):
        item = ", ".join(_facts(items, {}, locale))
        if item:
            facts.append(EACH_ITEM(item=item).render(locale))
    for key, counted in (("minItems", LEAST_ITEMS), ("maxItems", MOST_ITEMS)):
        if _count(spec.get(key)) is not None:
            facts.append(counted(count=spec[key]).render(locale))
    if "default" in spec:
        facts.append(DEFAULT(value=_typed(spec["default"])).render(locale))
    facts.append((REQUIRED if required else OPTIONAL)().render(locale))
    lines = [f"      {titled}: {'; '.join(fact for fact in facts if fact)}"]
    hint = _words(action, "hints").get(name) or spec.get("description")
    if isinstance(hint, str) and hint:
        lines.append(f"          {hint}")
    return lines


def _offered(spec: Mapping[str, Any], locale: str) -> str:
    """Where a parameter's ``choicesFrom`` takes its choices, and whether the rules take
    another value too (``only`` not true); empty where it has none."""
    choices_from = spec.get("choicesFrom")
    if not isinstance(choices_from, Mapping):
        return ""
    part = "sheet" if "sheet" in choices_from else "state"
    whose = "target" if choices_from.get("of") == "target" else "actor"
    offered = FROM_CHOICES[part, whose](field=str(choices_from.get(part))).render(locale)
    if choices_from.get("only") is not True:  # a help for forms: the rules take others
        offered = f"{offered}, {OR_ANOTHER().render(locale)}"
    return offered


def _facts(
    spec: Mapping[str, Any], named: Mapping[str, Any], locale: str, offered: str = ""
) -> list[str]:
    """What a value of ``spec`` must be: its type, the values its ``enum`` allows (with
    the ruleset's words for them, ``named``), where they are ``offered``, its range,
    its length, an object's keys and what its other keys take."""
    facts = [_kind(spec, locale)]
    enum = spec.get("enum")
    if isinstance(enum, list) and enum:
        values = [_choice(value, named) for value in enum[:SHOWN_VALUES]]
        if len(enum) > SHOWN_VALUES:
            values.append(MORE_VALUES(count=len(enum) - SHOWN_VALUES).render(locale))
        facts.append(ONE_OF(values=values).render(locale))
    facts.append(offered)
    pattern = spec.get("pattern")
    if isinstance(pattern, str) and pattern:
        if len(pattern) > SHOWN_PATTERN:
            pattern = pattern[: SHOWN_PATTERN - 1] + "\u2026"
        facts.append(PATTERN(pattern=pattern).render(locale))
    bounds = _bounds(spec)
    if bounds is not None:
        facts.append(bounds.render(locale))
    for key, counted in (("minLength", SHORTEST), ("maxLength", LONGEST)):
        if _count(spec.get(key)) is not None:
            facts.append(counted(count=spec[key]).render(locale))
    keys = _keys(spec, locale)
    if keys:
        facts.append(KEYS(keys=keys).render(locale))
    others = _others(spec.get("additionalProperties"), locale)
    if others:
        facts.append((OTHER_KEYS if keys else ANY_KEY)(value=others).render(locale))
    return [fact for fact in facts if fact]


def _keys(spec: Mapping[str, Any], locale: str) -> str:
    """An object's keys as typed, each required one marked so; none where it has none."""
    properties = spec.get("properties")
    if not isinstance(properties, Mapping) or not properties:
        return ""
    required = spec.get("required") if isinstance(spec.get("required"), list) else []
    marked = REQUIRED().render(locale)
    return ", ".join(f"{key} ({marked})" if key in required else str(key) for key in properties)


def _count(value: Any) -> int | None:
    """``value`` where it is a count (a whole number, no bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _kind(spec: Mapping[str, Any], locale: str) -> str:
    kinds = spec.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return " / ".join(TYPES[k]().render(locale) for k in kinds if k in TYPES)


def _bounds(spec: Mapping[str, Any]) -> Text | None:
    least, most = spec.get("minimum"), spec.get("maximum")
    least = least if isinstance(least, int | float) and not isinstance(least, bool) else None
    most = most if isinstance(most, int | float) and not isinstance(most, bool) else None
    if least is not None and most is not None:
        return RANGE(minimum=_typed(least), maximum=_typed(most))
    if least is not None:
        return AT_LEAST(minimum=_typed(least))
    if most is not None:
        return AT_MOST(maximum=_typed(most))
    return None


def _choice(value: Any, named: Mapping[str, Any]) -> str:
    """An ``enum``'s value as typed, with the ruleset's word for it where it differs."""
    typed = _typed(value)
    word = named.get(_choice_key(value))
    return f"{typed} ({word})" if isinstance(word, str) and word and word != typed else typed


def _typed(value: JSON) -> str:
    """A value as one types it: a string as it is (an empty one as ``""``), anything
    else as JSON."""
    if isinstance(value, str) and value:
        return value
    return json.dumps(value, ensure_ascii=False)
