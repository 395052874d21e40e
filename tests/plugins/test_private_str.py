"""What a plugin author reads of a ``Private`` outside a text (author27): ``str()``,
an f-string, ``%s`` and ``repr()`` never carry the value, to the GM neither — a plain
string is the same for every audience, and rollbridge cannot tell where it goes (a
refusal's message, a dice group's note, a log line an operator ships elsewhere).
The GM's value is ``.value``; ``revealed()`` is the debugging reading
(docs/plugins.md, "Your first plugin")."""

from __future__ import annotations

import pytest

from rollbridge.text import Private, revealed


@pytest.mark.parametrize("spec", ["d", ">8", "+d", ".1f", "03", "", "<", "^12"])
def test_a_format_spec_reads_the_hidden_word_never_the_value(spec: str) -> None:
    """``f"{skill:d}"`` raised TypeError ("unsupported format string passed to
    Private.__format__") in a plugin's own line, a log's or a message's."""
    skill = Private(73, of="cultist", aspect="skill")
    read = format(skill, spec)
    assert "73" not in read and "(hidden)" in read


def test_a_width_pads_the_hidden_word_and_instead_is_read() -> None:
    assert f"{Private(73, of='c', aspect='skill'):>10}" == "  (hidden)"
    assert f"{Private(73, of='c', aspect='skill', instead='?'):d}" == "?"


def test_str_and_repr_hide_the_value_and_value_and_revealed_give_it() -> None:
    skill = Private(73, of="cultist", aspect="skill")
    hidden = [str(skill), f"{skill}", "%s" % skill, repr(skill), "%r" % [skill]]  # noqa: UP031
    assert not any("73" in read for read in hidden), hidden
    assert skill.value == 73 and revealed(skill) == "Private(73, of='cultist', aspect='skill')"


@pytest.mark.parametrize(
    ("spec", "hidden", "instead"),
    [
        ("010", "  (hidden)", "         5"),
        ("+012,d", "    (hidden)", "           5"),
        ("10.3", "(hidden)  ", "5         "),
        ("*^10.2f", "*(hidden)*", "****5*****"),
        ("=+8", "(hidden)", "       5"),
    ],
)
def test_a_numbers_spec_pads_the_word_and_adds_no_digit(
    spec: str, hidden: str, instead: str
) -> None:
    """A spec's zeros, precision, sign and grouping are a number's; given to the word
    they made another number of it (rev27a): ``f"{armor:010}"`` with ``instead=5``
    read "5000000000", and ``(hidden)0000`` or ``(hi`` for the word. Only fill,
    alignment and width apply — a number's place, right, where the spec says ``0``."""
    assert format(Private(73, of="c", aspect="skill"), spec) == hidden
    assert format(Private(73, of="c", aspect="skill", instead=5), spec) == instead
