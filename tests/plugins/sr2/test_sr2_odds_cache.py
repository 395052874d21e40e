"""sr2's cache of test laws is bounded by bytes (the long-run audit).

A success test's law is remembered per (dice, effective TN, ``rule_of_one``): a
client chooses those, and the largest laws the schema allows are tens of KiB each,
so 4,096 of them (the old cache's only bound) kept ~60 MiB for good. The cache now
keeps at most 8 MiB of them, measured by what tracemalloc sees.
"""

from __future__ import annotations

import gc
import tracemalloc

from rollbridge.plugins.sr2 import odds


def test_many_large_laws_keep_no_more_than_the_caches_budget():
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for dice in range(80, 101):
            for tn in range(60, 101):  # 861 laws of 20-37 KiB
                odds.success_law(dice, tn)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert kept < 9 * 2**20, f"{kept:,} bytes kept"
    info = odds.LAWS.info()
    assert info.bytes <= odds.LAWS.budget and 0 < info.entries < 861


def test_a_laws_size_is_never_below_what_it_holds():
    for dice, tn in [(0, 2), (6, 5), (20, 4), (100, 12), (100, 100), (200, 150)]:
        gc.collect()
        tracemalloc.start()
        try:
            law = odds._law(dice, tn, True)
            held = tracemalloc.get_traced_memory()[0]
        finally:
            tracemalloc.stop()
        assert odds._law_size(law) >= held, (dice, tn)


def test_a_remembered_law_is_the_same_object():
    assert odds.success_law(12, 7) is odds.success_law(12, 7)
    assert odds.success_law(12, 1) is odds.success_law(12, 2)  # SR-2: TN at least 2
