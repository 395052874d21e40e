"""The lines ``rollbridge migrate`` prints in both directions (:mod:`rollbridge.cli.migrate`,
:mod:`rollbridge.cli.migrate_back`): a table a line, the admin tokens, the dice key, and
its progress on stderr."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rollbridge.text import Messages

if TYPE_CHECKING:
    from rollbridge.stores.migrate import MigrationReport

__all__ = ["PROGRESS", "PROGRESS_FROM", "report_lines"]

say = Messages("rollbridge")
# Translators: one line per table moved by rollbridge migrate; the numbers are counts,
# each after its word (as MISMATCH lists them), so that no word agrees with a number.
MOVED = say(
    "cli.migrate.moved",
    "moved {table}: actors {actors}, events {events}, replies {replies}, tokens {tokens}, "
    "checksum ok",
)
# Translators: a table whose copy in Redis differs; {what} lists the counts or "checksum".
MISMATCH = say(
    "cli.migrate.mismatch",
    "MISMATCH {table}: Redis differs in {what} (SQLite {source}, Redis {target})",
)
# Translators: {moved} admin tokens written to Redis, {present} ones Redis held already.
ADMIN = say("cli.migrate.admin", "admin tokens: {moved} moved, {present} there already")
ADMIN_MISMATCH = say(
    "cli.migrate.admin_mismatch", "MISMATCH: Redis does not hold every admin token of the file"
)
DICE = {
    "moved": say("cli.migrate.dice_moved", "dice key: moved to Redis"),
    "same": say("cli.migrate.dice_same", "dice key: Redis holds the same one"),
    "kept": say(
        "cli.migrate.dice_kept",
        "dice key: Redis keeps its own (no moved table has an open verifiable segment)",
    ),
    "none": say("cli.migrate.dice_none", "dice key: none beside the database"),
}
NOTHING = say("cli.migrate.nothing", "no tables to move")
# Translators: progress on stderr; {done} and {total} are counts of tables.
PROGRESS = say("cli.migrate.progress", "{done}/{total} tables moved ({table})")
#: From this many tables on, ``migrate`` reports its progress on stderr.
PROGRESS_FROM = 10


def report_lines(
    report: MigrationReport,
    locale: str,
    *,
    mismatch: Any = MISMATCH,
    admin_mismatch: Any = ADMIN_MISMATCH,
    dice: dict[str, Any] = DICE,
) -> list[str]:
    """The report's lines, a table a line, then the admin tokens and the dice key;
    ``mismatch``, ``admin_mismatch`` and ``dice`` word them for the direction (this
    one's: SQLite to Redis)."""
    lines = []
    for result in report.tables:
        if result.ok:
            lines.append(MOVED(table=result.table, **result.counts).render(locale))
            continue
        wrong = [k for k in result.counts if result.counts[k] != result.moved[k]]
        if wrong:
            source_says = ", ".join(f"{k} {result.counts[k]}" for k in wrong)
            target_says = ", ".join(f"{k} {result.moved[k]}" for k in wrong)
        else:
            source_says, target_says = result.source_checksum, result.target_checksum
        what = ", ".join(wrong) if wrong else "checksum"
        lines.append(mismatch(table=result.table, what=what, source=source_says,
                              target=target_says).render(locale))  # fmt: skip
    if not report.tables:
        lines.append(NOTHING().render(locale))
    lines.append(ADMIN(moved=report.admin_tokens, present=report.admin_present).render(locale))
    if not report.admin_ok:
        lines.append(admin_mismatch().render(locale))
    lines.append(dice[report.dice_key]().render(locale))
    return lines
