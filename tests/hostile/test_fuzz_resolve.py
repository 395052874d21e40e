"""The offline ``rollbridge resolve`` and ``odds`` fuzzed with hostile options and every
ruleset's actor sheets (tests/hostile/resolve_fuzzing.py): whatever ``--params``,
``--settings`` and ``--actors`` hold, the exit status is the documented one, an
error is one line with a documented code and never ``internal``, and no traceback.

Reproducible (``derandomize=True``, no example database) and bounded:
``ROLLBRIDGE_FUZZ_EXAMPLES`` examples (default 25, each one command, or two per
action of a ruleset); run it longer with e.g. ``ROLLBRIDGE_FUZZ_EXAMPLES=5000``, and
with ``ROLLBRIDGE_FUZZ_SEED=N`` on other command lines.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.hostile.cli_fuzzing import cli_codes
from tests.hostile.fuzzing import RULESETS, _site, fuzzed
from tests.hostile.resolve_fuzzing import Resolver, arguments


@pytest.fixture(scope="module")
def host(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The plugin host ``rollbridge resolve`` loads: the built-in rulesets and the
    example plugin ``hitpoints``, an entry point of this process (as the server's
    fuzzer gives its subprocess)."""
    from rollbridge.cli.offline import offline_host

    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(_site(Path(tmp_path_factory.mktemp("fuzz_resolve")) / "site")))
        patch.setenv("ROLLBRIDGE_PLUGINS", ",".join(RULESETS))
        patch.delenv("ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD", raising=False)
        found = offline_host()
        assert set(RULESETS) <= set(found.rulesets), sorted(found.rulesets)
        yield found


@pytest.fixture(scope="module")
def resolver(host: Any) -> Iterator[Resolver]:
    """Runs the command, counting what it said."""
    found = Resolver(cli_codes())
    yield found
    print(f"resolved {found.runs} command lines: {sorted(found.outcomes.items())}")
    print(f"what each code said (one of each): {sorted(found.said.items())}")
    # the fuzzer got past the options to the rules: of the default 25 examples some
    # resolved, and of a longer run some at every ruleset
    resolved = {run.split()[1] for run, status, _code in found.outcomes
                if status == 0 and run.startswith("resolve ")}  # fmt: skip
    if found.runs >= 25:
        assert resolved, found.outcomes
    if found.runs >= 1000:
        assert set(RULESETS) <= resolved, resolved


@fuzzed(25)
@given(data=st.data())
def test_a_hostile_command_line_is_refused_in_one_line_never_internal(host, resolver, data):
    for argv in arguments(data, host).commands:
        resolver.check(argv)
