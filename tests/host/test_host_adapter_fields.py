"""An adapter's ``event_fields`` naming a field of the plain protocol's is refused when
it is registered: :meth:`Adapter.plain` takes ``event_fields`` off every line
``rollbridge verify`` reads, so ``seq`` or ``data`` listed there would leave verify
resolving nothing of the log (docs/plugins.md, "An adapter")."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import rollbridge
from rollbridge.adapter import PROTOCOL_FIELDS, Adapter
from rollbridge.engine.recheck import FRAME_FIELDS
from rollbridge.exceptions import AdapterProtocolField, PluginError
from rollbridge.host import PluginHost


def _host_with_adapter(fields: frozenset[str]) -> PluginHost:
    """A host whose one third-party plugin registers, through the hook, an adapter
    listing ``fields`` as its own."""

    class Dialect(Adapter):
        id, name, event_fields = "othervtt", "Other VTT", fields

        def inbound(self, message):  # the plain protocol's, as a dialect's
            return {**message}

        outbound = inbound

    class Plugin:
        @rollbridge.hookimpl
        def register_adapters(self, register):
            register(Dialect())

    return PluginHost({"rb_othervtt": Plugin()}, builtins=False, environ={})


def test_every_field_verify_resolves_an_event_by_is_a_protocol_field():
    """The event frame's fields verify keeps (engine/recheck.py) are all refused."""
    assert FRAME_FIELDS <= PROTOCOL_FIELDS


@pytest.mark.parametrize("field", ["seq", "data", "kind", "actors", "table", "resume", "reread"])
def test_an_adapter_listing_a_protocol_field_is_refused_naming_adapter_and_field(field):
    with pytest.raises(AdapterProtocolField) as refused:
        _host_with_adapter(frozenset({field, "vtt"}))
    assert refused.value.code == "adapter_protocol_field"
    assert isinstance(refused.value, PluginError)
    assert str(refused.value) == (
        f"plugin 'rb_othervtt': adapter 'othervtt' names fields of the plain protocol in "
        f"event_fields ({field!r}): Adapter.plain would take them off every line rollbridge "
        "verify reads; list only the fields the adapter adds (docs/plugins.md, 'An adapter')"
    )
    assert refused.value.details == {
        "plugin": "rb_othervtt", "adapter": "othervtt", "fields": [field],
    }  # fmt: skip


def test_every_protocol_field_listed_is_named():
    with pytest.raises(AdapterProtocolField, match=r"\('data', 'seq'\)"):
        _host_with_adapter(frozenset({"seq", "vtt", "data"}))


def test_an_adapter_listing_its_own_fields_only_is_taken():
    host = _host_with_adapter(frozenset({"vtt", "players"}))
    assert host.adapters["othervtt"].event_fields == {"vtt", "players"}


def test_the_builtin_foundry_adapter_lists_no_protocol_field():
    host = PluginHost(builtins=True, environ={"ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert not host.adapters["foundry"].event_fields & PROTOCOL_FIELDS


def test_an_installed_adapter_package_stops_verify_with_the_error_not_a_report(tmp_path):
    """A third-party adapter installed as a distribution (its entry point) that lists
    ``seq``: ``rollbridge verify`` says which plugin and adapter, and what to list,
    rather than verify a log whose every seq it would have taken off."""
    (tmp_path / "rb_othervtt.py").write_text(
        textwrap.dedent("""
        import rollbridge
        from rollbridge.adapter import Adapter

        class Dialect(Adapter):
            id, name, event_fields = "othervtt", "Other VTT", frozenset({"seq", "vtt"})

            def inbound(self, message):
                return {**message}

            outbound = inbound

        @rollbridge.hookimpl
        def register_adapters(register):
            register(Dialect())
    """)
    )
    info = tmp_path / "rb_othervtt-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rb_othervtt\nVersion: 1.0.0\n")
    (info / "entry_points.txt").write_text("[rollbridge]\nrb_othervtt = rb_othervtt\n")
    log = tmp_path / "log.jsonl"
    log.write_text('{"type": "event", "table": "t", "kind": "roll", "epoch": 1, "seq": 1}\n')
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "LC_ALL": "C"}
    env.pop("ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD", None)
    done = subprocess.run(
        [sys.executable, "-m", "rollbridge", "verify", "--json", str(log)],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert "Traceback" not in done.stderr
    assert '"code": "adapter_protocol_field"' in done.stdout, (done.stdout, done.stderr)
    assert "adapter 'othervtt' names fields of the plain protocol" in done.stdout
    # not checked: neither the 1 of a mismatch (a forged log, to a script) nor 0
    assert done.returncode == 4


def _installed(root, name: str, source: str) -> dict[str, str]:
    """``name`` installed under ``root`` as a distribution with a rollbridge entry
    point; the environment that finds it."""
    (root / f"{name}.py").write_text(textwrap.dedent(source))
    info = root / f"{name}-1.0.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0.0\n")
    (info / "entry_points.txt").write_text(f"[rollbridge]\n{name} = {name}\n")
    env = {**os.environ, "PYTHONPATH": str(root), "LC_ALL": "C"}
    env.pop("ROLLBRIDGE_DISABLE_PLUGIN_AUTOLOAD", None)
    return env


def test_a_broken_plugin_stops_verify_with_its_own_exit_status(tmp_path):
    """A plugin that fails to import: verify checked nothing, so it exits 4 with the
    error (``plugin_load_failed``), not 1, which says the log was altered
    (docs/dice.md, "Exit status"). Before, 1."""
    env = _installed(tmp_path, "rb_broken", 'raise RuntimeError("boom")\n')
    log = tmp_path / "log.jsonl"
    log.write_text('{"type": "event", "table": "t", "kind": "roll", "epoch": 1, "seq": 1}\n')
    for extra in ([], ["--json"]):
        done = subprocess.run(
            [sys.executable, "-m", "rollbridge", "verify", *extra, str(log)],
            capture_output=True, text=True, env=env, timeout=60,
        )  # fmt: skip
        assert "Traceback" not in done.stderr
        assert done.returncode == 4, (extra, done.stdout, done.stderr)
        said = done.stdout if extra else done.stderr
        assert "plugin_load_failed" in said and "rb_broken" in said and "boom" in said
    # an unreadable log is still its own status (2), read before the plugins load
    log.write_text("not json\n")
    done = subprocess.run(
        [sys.executable, "-m", "rollbridge", "verify", str(log)],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
