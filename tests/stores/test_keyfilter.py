"""KeyFilter: a Bloom filter never says "no" to a key it holds; KeySet: a chain of
them that forgets no key whose reply the store still holds, and drops the filters
holding only keys the store has forgotten too."""

from __future__ import annotations

from rollbridge.protocol.keys import BITS_PER_KEY, KeyFilter


def test_every_added_key_is_found() -> None:
    keys = [f"player-{n % 7}/request-{n}" for n in range(5_000)]
    found = KeyFilter(keys, capacity=5_000)
    assert all(key in found for key in keys)
    assert found.count == 5_000 and not found.full


def test_keys_never_added_are_mostly_refused_at_capacity() -> None:
    found = KeyFilter((f"in-{n}" for n in range(10_000)), capacity=10_000)
    others = [f"out-{n}" for n in range(10_000)]
    false_maybe = sum(key in found for key in others)
    assert false_maybe < 500  # about 1 % expected with 10 bits and 4 hashes per key


def test_empty_filter_refuses_everything_and_non_strings() -> None:
    empty = KeyFilter()
    assert "anything" not in empty and "" not in empty
    assert 5 not in KeyFilter(["5"])


def test_size_follows_capacity_and_full_flags_overflow() -> None:
    small = KeyFilter(capacity=10)
    assert small.capacity == 64  # a floor, so tiny tables do not rebuild at once
    assert len(small.bits) == 64 * BITS_PER_KEY // 8
    for n in range(64):
        small.add(str(n))
    assert not small.full
    small.add("one more")
    assert small.full and "one more" in small


def test_a_key_set_grows_and_forgets_nothing_unless_told() -> None:
    from rollbridge.protocol.keys import KeySet

    keys = KeySet(["stored-1", "stored-2"])
    added = [f"new-{n}" for n in range(2_000)]  # far past the first filter's capacity
    for key in added:
        keys.add(key)
    assert all(key in keys for key in ["stored-1", "stored-2", *added])
    false_maybe = sum(f"never-{n}" in keys for n in range(2_000))
    assert false_maybe < 200  # each filter of the chain stays near 1 %


def test_a_key_set_drops_only_filters_whose_keys_are_all_at_or_below_the_floor() -> None:
    from rollbridge.protocol.keys import KeySet

    keys = KeySet([f"loaded-{n}" for n in range(10)], seq=5)
    for seq in range(6, 2_000):  # one key a seq: a bigger filter whenever one is full
        keys.add(f"key-{seq}", seq)
    before = keys.filters
    assert before >= 5
    keys.forget_through(5)  # the first filter also holds keys of later seqs: kept
    assert keys.filters == before and all(f"loaded-{n}" in keys for n in range(10))
    keys.forget_through(1_500)
    assert all(f"key-{s}" in keys for s in range(1_501, 2_000))  # none the store holds
    assert 1 < keys.filters < before
    gone = sum(f"key-{s}" in keys for s in range(6, 400))  # in filters dropped
    assert gone < 40, gone  # only false "maybe"s of the filters left
    keys.forget_through(10_000)  # the newest filter always stays
    assert keys.filters == 1 and "key-1999" in keys


def test_a_table_loaded_for_long_keeps_every_key_the_store_answers_and_few_filters(
    tmp_path,
) -> None:
    """Over a real SQLite file keeping replies for 20 seqs (retain 2): 1,500
    requests. Before, every key stayed in a chain of doubling filters for as long as
    the table was loaded (4.3 million keys: 17 filters, 8 % false "maybe", each a
    store read); now a filter goes once the store forgets all of its keys. The
    promise that matters is checked after every request: every key the store still
    answers a reply for is in the set (else a retry would run twice)."""
    from rollbridge.engine.model import Principal
    from rollbridge.engine.table import Table
    from rollbridge.host import PluginHost
    from rollbridge.offline import TableService
    from rollbridge.stores.sqlite import SQLiteStore

    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    gm = Principal("gm", "gm", "tok-gm")
    store = SQLiteStore(tmp_path / "keys.db", retain=2)
    service = TableService(store, host)
    service.create_table("T", "sr2", table_id="t")
    most = 0
    for n in range(1_500):
        service.handle("t", {"type": "roll", "id": f"r{n}", "formula": "1d6"}, gm)
        keys = service.protocol("t")._keys
        most = max(most, keys.filters)
        for back in range(max(0, n - 25), n + 1):
            key = Table.reply_key(gm, f"r{back}")
            if store.reply("t", key) is not None:
                assert key in keys, (n, back)
    assert most <= 3, most  # without forgetting: 6 (64 to 2,048 keys, doubling)
    service.store.close()


def test_a_key_the_store_answers_stays_in_the_filter_while_commits_are_out() -> None:
    """The filter forgot by the table's seq, the store by the seq it has written:
    with 50 commits queued for the writer, keys the store still answered were
    dropped, and their retries ran again (found by review). Forgotten now by the
    durable seq."""
    from rollbridge.engine.model import Principal
    from rollbridge.engine.table import Table
    from rollbridge.host import PluginHost
    from rollbridge.offline import TableService
    from rollbridge.protocol.effects import Persist, Read
    from rollbridge.stores.memory import MemoryStore

    host = PluginHost(environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    gm = Principal("gm", "gm", "tok-gm")
    store = MemoryStore(retain=5)  # replies kept for 50 seqs
    service = TableService(store, host)
    service.create_table("T", "sr2", table_id="t")
    p = service.protocol("t")
    n = 0
    while p._keys.filters < 2:
        service.handle("t", {"type": "roll", "id": f"r{n}", "formula": "1d6"}, gm)
        n += 1
    held: list[Persist] = []

    def carry(effects):
        for e in effects:
            if isinstance(e, Persist):
                held.append(e)
            elif isinstance(e, Read):
                carry(e.resume(e.run(store)))

    for _ in range(50):  # a writer 50 commits behind (MAX_PENDING is 1,024)
        carry(p.receive({"type": "roll", "id": f"r{n}", "formula": "1d6"}, gm))
        n += 1
    answered = [b for b in range(n) if store.reply("t", Table.reply_key(gm, f"r{b}"))]
    dropped = [b for b in answered if Table.reply_key(gm, f"r{b}") not in p._keys]
    assert not dropped, f"store answers r{dropped[0]}..r{dropped[-1]}, the filter dropped them"
