"""The system's reason for a failed file or socket call, in the reader's language.

``OSError.strerror`` is the C library's English ("No such file or directory"), and a
Czech, German or Russian reader met it after a sentence in their own language. The
reasons a user of rollbridge's commands meets are declared messages here (English as
glibc words them, so an English line reads as before); any other keeps the system's
own words."""

from __future__ import annotations

import errno

from rollbridge.text import Messages, Text

__all__ = ["system_reason"]

say = Messages("rollbridge")

# Translators: the operating system's reason a file or socket call failed, as the
# C library says it in English; put it as the system says it in your language.
_BY_ERRNO = {
    errno.ENOENT: say("system.enoent", "No such file or directory"),
    errno.EACCES: say("system.eacces", "Permission denied"),
    errno.EPERM: say("system.eperm", "Operation not permitted"),
    errno.ENOSPC: say("system.enospc", "No space left on device"),
    errno.EDQUOT: say("system.edquot", "Disk quota exceeded"),
    errno.EFBIG: say("system.efbig", "File too large"),
    errno.EROFS: say("system.erofs", "Read-only file system"),
    errno.EISDIR: say("system.eisdir", "Is a directory"),
    errno.ENOTDIR: say("system.enotdir", "Not a directory"),
    errno.EEXIST: say("system.eexist", "File exists"),
    errno.ENAMETOOLONG: say("system.enametoolong", "File name too long"),
    errno.ELOOP: say("system.eloop", "Too many levels of symbolic links"),
    errno.EMFILE: say("system.emfile", "Too many open files"),
    errno.EIO: say("system.eio", "Input/output error"),
    errno.EBUSY: say("system.ebusy", "Device or resource busy"),
    errno.ETXTBSY: say("system.etxtbsy", "Text file busy"),
    errno.ECONNREFUSED: say("system.econnrefused", "Connection refused"),
    errno.ECONNRESET: say("system.econnreset", "Connection reset by peer"),
    errno.EHOSTUNREACH: say("system.ehostunreach", "No route to host"),
    errno.ENETUNREACH: say("system.enetunreach", "Network is unreachable"),
    errno.ETIMEDOUT: say("system.etimedout", "Connection timed out"),
}


def system_reason(exc: OSError) -> Text | str:
    """Why ``exc``'s call failed, as a text argument: a declared message for the
    reasons above (rendered in the reader's language where it is shown), else the
    system's own words, else the exception's class name."""
    words = _BY_ERRNO.get(exc.errno) if exc.errno is not None else None
    if words is not None:
        return words()
    return exc.strerror or type(exc).__name__
