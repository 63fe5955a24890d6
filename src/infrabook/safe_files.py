"""Reading a file that a contributor sent (a conf file, a benchmark record) without trusting
what the name points at.

A symbolic link may lead to ``/dev/zero`` or ``/proc/kmsg``, a FIFO never ends, and a huge
file fills memory: :func:`read_bounded` opens the name itself (no link followed, without
waiting on a FIFO or device), checks the open file (so the check and the read concern the
same file) and reads at most one byte more than it allows.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from infrabook.quoting import printable

__all__ = ["FileRefused", "read_bounded"]


class FileRefused(ValueError):
    """A file :func:`read_bounded` does not read; ``why`` says why, the message names it."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"{printable(str(path))}: {why}")
        self.path, self.why = path, why


_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def read_bounded(path: Path, limit: int, expected: str = "a regular file") -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them; ``expected`` names
    what the file should be in the messages.

    ``FileNotFoundError`` when there is no such file; :class:`FileRefused` (one line naming
    the file) for a symbolic link, anything but a regular file, more than ``limit`` bytes,
    or a file that cannot be read.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp(), "a.toml")
    >>> _ = p.write_bytes(b"x = 1")
    >>> read_bounded(p, 5)
    b'x = 1'
    >>> read_bounded(p, 4)
    Traceback (most recent call last):
    ...
    infrabook.safe_files.FileRefused: /.../a.toml: has 5 bytes, more than the 4 allowed
    """
    try:
        fd = os.open(path, _FLAGS)
    except FileNotFoundError:
        raise
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise FileRefused(
                path, f"is a symbolic link: expected {expected} (links are not followed)"
            ) from None
        raise FileRefused(path, f"cannot be read ({err.strerror or err})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):  # a folder, or a pipe or device that may never end
            raise FileRefused(path, f"is not a file: expected {expected}")
        if info.st_size > limit:  # refused before reading it
            raise FileRefused(path, f"has {info.st_size:,} bytes, more than the {limit:,} allowed")
        chunks: list[bytes] = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, left)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except BlockingIOError:
        raise FileRefused(path, f"cannot be read without waiting: expected {expected}") from None
    except OSError as err:
        raise FileRefused(path, f"cannot be read ({err.strerror or err})") from None
    finally:
        os.close(fd)
    if left <= 0:
        raise FileRefused(path, f"has more than the {limit:,} bytes allowed")
    return b"".join(chunks)
