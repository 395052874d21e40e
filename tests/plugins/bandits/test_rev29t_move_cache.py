"""A move's terms are made once for the same stat, modifiers and owner (the module's
promise: texts are immutable, so those a table says again and again are kept).
texts29 put ``stat_name`` between ``modifiers`` and its ``@lru_cache``: the cache
went to the stat's name and every move built its terms and steps anew. (The stat's
name in words was taken back: it changed stored narrations, and older logs failed
``verify``.)"""

from __future__ import annotations

from rollbridge.plugins.bandits.move_texts import modifiers


def test_a_moves_terms_are_made_once_for_the_same_inputs():
    args = ("cool", 2, (("cover", 1),), 3, 3, "ana")
    first = modifiers(*args)
    assert modifiers(*args) is first
    assert modifiers("Cool", 2, (("cover", 1),), 3, 3, "ana") is not first  # another key
