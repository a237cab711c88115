"""Reading the files a load names (templates, environments, ``get_file`` targets, nested templates).

Only regular files are read, and their size is checked before reading: a FIFO would block forever, a device
such as ``/dev/zero`` never ends, and a huge file would be read whole before any limit applied. The file is
opened without blocking (a FIFO opens at once), checked with ``fstat`` on the open descriptor (no race with a
rename in between), and read with the limit as a hard bound.
"""

from __future__ import annotations

import os
import stat


class FileReadError(Exception):
    """Why a file cannot be read, phrased to follow "cannot read FILE: "."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_limited(path: str, max_size: int | None) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_size`` of them (None: no limit).

    Raises :class:`FileReadError` for a missing file, a path with a NUL byte, anything that is not a regular
    file (directory, FIFO, device, socket), or a file over the limit."""
    if "\x00" in path:
        raise FileReadError("the path contains a NUL byte")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileReadError("no such file") from None
    except IsADirectoryError:
        raise FileReadError("it is a directory") from None
    except (OSError, ValueError) as exc:
        raise FileReadError(getattr(exc, "strerror", None) or str(exc)) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = _kind(st.st_mode)
            raise FileReadError(
                "it is a directory" if what == "a directory" else f"it is {what}, not a regular file"
            )
        if max_size is not None and st.st_size > max_size:
            raise FileReadError(_too_large(st.st_size, max_size))
        chunks: list[bytes] = []
        total = 0
        bound = max_size + 1 if max_size is not None else None
        while True:
            want = 1 << 20 if bound is None else min(1 << 20, bound - total)
            if want <= 0:
                break
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
        if max_size is not None and total > max_size:  # it grew while being read
            raise FileReadError(_too_large(total, max_size, "at least "))
        return b"".join(chunks)
    except OSError as exc:
        raise FileReadError(exc.strerror or str(exc)) from None
    finally:
        os.close(fd)


def _too_large(size: int, max_size: int, prefix: str = "") -> str:
    return (
        f"its size ({prefix}{size} bytes) exceeds the maximum allowed size ({max_size} bytes); raise it with "
        "--max-template-size if this is intended"
    )
