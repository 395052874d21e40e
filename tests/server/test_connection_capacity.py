"""What one server holds at once (docs/operations.md, "Limits"): which client
addresses count as one for ``--max-connections-per-address``, and the open-file
limit fitted to ``--max-connections``. The server-wide cap itself is tried against a
real ``rollbridge serve`` in tests/hostile/test_hostile_limits.py."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from rollbridge.server.addresses import address_group, address_site


@pytest.mark.parametrize(
    ("address", "group"),
    [
        ("192.0.2.7", "192.0.2.7"),
        ("2001:db8:1:2::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:2:ffff:ffff:ffff:fffe", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("::ffff:192.0.2.7", "192.0.2.7"),
        ("fe80::1%eth0", "fe80::/64"),
        ("?", "?"),
    ],
)
def test_addresses_counted_as_one_client(address: str, group: str) -> None:
    assert address_group(address) == group


@pytest.mark.parametrize(
    ("address", "site"),
    [
        ("2001:db8:1:2::1", "2001:db8:1::/48"),
        ("2001:db8:1:ffff:1:2:3:4", "2001:db8:1::/48"),
        ("2001:db8:2:1::1", "2001:db8:2::/48"),
        ("192.0.2.7", None),  # an IPv4 address is one client, no site's
        ("::ffff:192.0.2.7", None),
        ("?", None),
    ],
)
def test_the_ipv6_site_whose_64s_share_the_wrong_tokens(address: str, site: str | None) -> None:
    assert address_site(address_group(address)) == site


def test_one_ipv6_client_making_up_addresses_counts_as_one() -> None:
    made_up = {address_group(f"2001:db8:aa:bb:{n:x}::{n:x}") for n in range(1, 500)}
    assert made_up == {"2001:db8:aa:bb::/64"}
    apart = {address_group(f"2001:db8:aa:{n:x}::1") for n in range(1, 50)}
    assert len(apart) == 49  # another /64, another client


def _fitted(soft: int, hard: int, connections: str) -> subprocess.CompletedProcess[str]:
    """``fit_file_limit(connections)`` in a child process whose open-file limit is
    ``(soft, hard)`` first (this process's limit stays as it is)."""
    code = textwrap.dedent(f"""
        import logging, resource, sys
        logging.basicConfig(stream=sys.stderr, format="%(levelname)s %(message)s")
        resource.setrlimit(resource.RLIMIT_NOFILE, ({soft}, {hard}))
        from rollbridge.server.file_limit import fit_file_limit
        print(fit_file_limit({connections}), resource.getrlimit(resource.RLIMIT_NOFILE)[0])
    """)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )


def test_the_soft_open_file_limit_is_raised_to_hold_the_connections() -> None:
    done = _fitted(256, 4096, "1000")
    assert done.stdout.split() == ["1064", "1064"]  # 1,000 sockets and 64 spare
    assert "WARNING" not in done.stderr


def test_a_hard_limit_too_low_is_raised_as_far_as_it_goes_and_said() -> None:
    done = _fitted(256, 512, "1000")
    assert done.stdout.split() == ["512", "512"]
    assert "the open-file limit is 512, too low for --max-connections 1000" in done.stderr
    assert "connections past about 448 will fail" in done.stderr


def test_a_limit_high_enough_or_no_cap_changes_nothing() -> None:
    assert _fitted(2048, 4096, "1000").stdout.split() == ["2048", "2048"]
    assert _fitted(300, 4096, "None").stdout.split() == ["300", "300"]
