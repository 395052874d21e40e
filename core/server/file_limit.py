"""The process's open-file limit against the connections ``serve`` may hold.

Each WebSocket connection is a socket, one open file; the store, its readers and
the listening sockets take a few more. A soft ``RLIMIT_NOFILE`` below
``--max-connections`` (1,024 on many systems) would make the server fail to accept
connections long before its own limit, with only ``EMFILE`` in the log. So ``serve``
raises the soft limit towards the hard one as far as it needs, and warns when even
the hard limit is too low.
"""

from __future__ import annotations

import logging

__all__ = ["SPARE_FILES", "fit_file_limit"]

log = logging.getLogger("rollbridge.server")

#: Files kept for the store, its threads, the listening sockets and logs.
SPARE_FILES = 64


def fit_file_limit(connections: int | None) -> int | None:
    """Raise the soft open-file limit to hold ``connections`` (None: no limit set,
    nothing to do) plus :data:`SPARE_FILES`, within the hard limit; warn naming
    the figures when it cannot. The soft limit afterwards (None: unknown here,
    a platform without ``resource``)."""
    try:
        import resource
    except ImportError:  # not on this platform: nothing to fit
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if connections is None:
        return soft
    needed = connections + SPARE_FILES
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as exc:
            log.warning("could not raise the open-file limit to %d: %s", target, exc)
    if soft != resource.RLIM_INFINITY and soft < needed:
        log.warning(
            "the open-file limit is %d, too low for --max-connections %d (needs %d): "
            "connections past about %d will fail; raise the limit (ulimit -n, "
            "LimitNOFILE= in a systemd unit) or lower --max-connections",
            soft,
            connections,
            needed,
            max(0, soft - SPARE_FILES),
        )
    return soft
