"""Roll statistics: what a table's retained event log shows one audience, counted.

:mod:`~rollbridge.stats.scope` picks the events of a session (an encounter, a seq
span, the whole log), :mod:`~rollbridge.stats.dice` reads the dice an event view
shows, :mod:`~rollbridge.stats.summary` holds the counts and
:mod:`~rollbridge.stats.tally` counts a log as an audience sees it — from the very
views the protocol sends that audience (:mod:`rollbridge.engine.views`), so a
player's statistics never tell what GM-only events hid. docs/statistics.md.
"""

from rollbridge.stats.scope import Scope, check_scope
from rollbridge.stats.summary import DieCounts, Summary
from rollbridge.stats.tally import AUDIENCES, stats_counter, table_stats, tally

__all__ = ["AUDIENCES", "DieCounts", "Scope", "Summary", "check_scope", "stats_counter",
           "table_stats", "tally"]  # fmt: skip
