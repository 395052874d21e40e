"""The plugin contract: every hook a rollbridge plugin may implement.

A plugin is a module (or object) with functions marked ``@rollbridge.hookimpl``
whose names match the hooks below. Built-in rulesets are plugins like any
other; third-party plugins are found through the entry-point group
``rollbridge``. docs/plugins.md explains how to write and publish one.

Two kinds of hooks:

*Registration hooks* are called once per plugin at startup, each with a
``register`` callback. A plugin hands its objects to the host through it; the
host then calls those objects directly (a table calls its one ruleset, not
every plugin). An id registered twice stops startup with an error naming both
plugins.

*Observer hooks* are called on every plugin that implements them after the
event they describe is durable. They must not block and must not raise: an
exception is logged with the plugin's name and the table goes on. Their return
values are ignored.

Every parameter is passed by keyword; an implementation may accept any subset
of them (pluggy's rule).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    from rollbridge.adapter import Adapter
    from rollbridge.contract import Ruleset

PROJECT_NAME = "rollbridge"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


# -- registration ---------------------------------------------------------------


@hookspec
def register_rulesets(register: Callable[[Ruleset], None]) -> None:
    """Register the rulesets this plugin provides.

    Calling mode: called once per plugin when the host starts; the return
    value is ignored.

    :param register: call it once per ruleset with a
        :class:`~rollbridge.contract.Ruleset` instance. It raises
        :class:`~rollbridge.exceptions.DuplicateRegistration` if the ruleset's
        id is already taken, and :class:`~rollbridge.exceptions.PluginError` if
        the object does not satisfy the contract (missing id, bad schema).
    """


@hookspec
def register_adapters(register: Callable[[Adapter], None]) -> None:
    """Register VTT dialect adapters (the Foundry dialect is one).

    Calling mode: called once per plugin when the host starts; the return
    value is ignored.

    :param register: call it once per adapter with an
        :class:`~rollbridge.adapter.Adapter` instance. Adapter ids are unique
        like ruleset ids.
    """


# -- observers ------------------------------------------------------------------


@hookspec
def table_created(table: Mapping[str, Any]) -> None:
    """A table was created and stored.

    Calling mode: broadcast to every implementation; return values ignored.

    :param table: the table's public description: ``id``, ``name``,
        ``ruleset``, ``ruleset_version``, ``settings``, ``epoch``, ``seq``. Never
        tokens.
    """


@hookspec
def roll_resolved(table_id: str, event: Mapping[str, Any]) -> None:
    """A roll or a ruleset action was resolved and its event is durable.

    Calling mode: broadcast to every implementation, in seq order per table;
    return values ignored.

    :param table_id: the table's id.
    :param event: the full event as the GM sees it (``kind`` is ``roll`` or
        ``resolution``; ``epoch``, ``seq``, ``at``, ``by``, ``request``, ``actors``,
        and in ``data`` the dice, outcome and narration).
    """


@hookspec
def actor_state_changed(
    table_id: str,
    actor_id: str,
    before: Mapping[str, Any] | None,
    after: Mapping[str, Any] | None,
    common: Mapping[str, Any] | None,
    seq: int,
) -> None:
    """An actor's state changed (by an action, an adjustment, undo or redo,
    creation or removal) and the change is durable.

    Calling mode: broadcast to every implementation, once per actor touched,
    in seq order per table (after ``roll_resolved`` for the same event);
    return values ignored.

    :param table_id: the table's id.
    :param actor_id: the actor's id.
    :param before: the ruleset state before (None when the actor was created).
    :param after: the ruleset state after (None when the actor was removed).
    :param common: the common damage state after, as a dict (None when removed).
    :param seq: the seq of the event that made the change.
    """
