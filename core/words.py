"""The core's words for the events and actors its readers are shown, shared by
the terminal (:mod:`rollbridge.cli.render`) and the session report
(:mod:`rollbridge.export.markdown`): one message each, one translation; and
:func:`counted`, a count and its English noun for the operator's log lines, which are
English only (a reader's text with a count is a plural message: ``say.plural``)."""

from __future__ import annotations

from rollbridge.text import Messages

__all__ = ["GM_ONLY", "KINDS", "STATUS", "SUCCESSES", "counted"]

say = Messages("rollbridge")
SUCCESSES = say.plural("cli.dice.successes", "{count} success", "{count} successes")
GM_ONLY = say("cli.event.gm_only", "(a GM-only event)")
#: What an event is, in words (its ``kind``; an unknown kind shows as it is).
KINDS = {
    "roll": say("cli.kind.roll", "roll"),
    "resolution": say("cli.kind.resolution", "resolution"),
    "hidden": say("cli.kind.hidden", "hidden"),
    "actor.created": say("cli.kind.actor_created", "actor created"),
    "actor.updated": say("cli.kind.actor_updated", "actor updated"),
    "actor.removed": say("cli.kind.actor_removed", "actor removed"),
    "adjusted": say("cli.kind.adjusted", "adjusted"),
    "undo": say("cli.kind.undo", "undo"),
    "redo": say("cli.kind.redo", "redo"),
    "settings": say("cli.kind.settings", "settings"),
    "encounter.started": say("cli.kind.encounter_started", "encounter started"),
    "encounter.turn": say("cli.kind.encounter_turn", "turn"),
    "encounter.reordered": say("cli.kind.encounter_reordered", "turn order changed"),
    "encounter.ended": say("cli.kind.encounter_ended", "encounter ended"),
    "dice.committed": say("cli.kind.dice_committed", "dice committed"),
    "dice.revealed": say("cli.kind.dice_revealed", "dice revealed"),
    "dice.revealed.gm": say("cli.kind.dice_revealed_gm", "GM's dice revealed"),
    "dice.abandoned": say("cli.kind.dice_abandoned", "dice abandoned"),
    "dice.drawn": say("cli.kind.dice_drawn", "dice drawn"),
    "approval.requested": say("export.md.kind.approval_requested", "approval requested"),
    "approval.rejected": say("export.md.kind.approval_rejected", "approval rejected"),
}
#: An actor's status (:data:`rollbridge.contract.STATUSES`) in words.
STATUS = {
    "ok": say("cli.status.ok", "ok"),
    "impaired": say("cli.status.impaired", "impaired"),
    "down": say("cli.status.down", "down"),
    "dying": say("cli.status.dying", "dying"),
    "dead": say("cli.status.dead", "dead"),
}


def counted(count: int, one: str, other: str | None = None) -> str:
    """``count`` and the English words that agree with it, for a log line or an
    operator's message (English only): ``counted(1, "table")`` is ``"1 table"``,
    ``counted(3, "table")`` ``"3 tables"``; ``other`` where the plural is not ``one``
    and an s (``counted(n, "request was", "requests were")``)."""
    return f"{count} {one if count == 1 else (other if other is not None else one + 's')}"
