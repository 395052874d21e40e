"""Help texts that more than one command shows, declared once (each was declared
in every module that used it, the same id and English each time)."""

from __future__ import annotations

from rollbridge.text import Messages

__all__ = ["ACTION", "DICE", "JSON_REPORT", "RETAIN", "RULESET_ID", "SEED", "TABLE_ID", "TIME"]

say = Messages("rollbridge")
TABLE_ID = say("cli.help.table_id", "table id")
RULESET_ID = say("cli.help.ruleset_id", "ruleset id, e.g. sr2")
RETAIN = say("cli.help.retain", "events kept per table, as serve --retain (default %(default)s)")
SEED = say("cli.help.seed", "seed the dice (reproducible)")
DICE = say("cli.help.dice", "supply the die results in order: 6,1,4")
JSON_REPORT = say("cli.help.json_report", "print the report as JSON")
#: Metavars: a sub-command's place, a moment's.
ACTION = say("cli.help.action", "ACTION")
TIME = say("cli.help.time", "TIME")
