"""The gitlinks (nested repositories, mode 160000) a git index file records.

Owns: reading `.git/index` (format versions 2, 3 and 4, SHA-1 or SHA-256 ids, a split
index's shared file). Must not touch: config files or discovery (git_repos.py).

Why: `git add inner` where `inner` has a `.git` of its own records a gitlink without any
`.gitmodules` line, and `git status` then recurses into `inner` and runs its config.
"""

from __future__ import annotations

import os
import struct
from functools import lru_cache

_GITLINK = 0o160000
_MAX_BYTES = 256 << 20
_HEADER = struct.Struct(">4sLL")


class IndexUnreadable(Exception):
    """An index file exists but is not one this reader understands (git may still use it)."""


def _varint(data: bytes, at: int) -> tuple[int, int]:
    """git's offset varint (index v4 path prefixes): (value, next offset)."""
    c = data[at]
    at += 1
    value = c & 127
    while c & 128:
        c = data[at]
        at += 1
        value = ((value + 1) << 7) | (c & 127)
    return value, at


def _parse(data: bytes, hash_size: int) -> tuple[list[bytes], bytes | None]:
    """(gitlink paths, id of a split index's shared file or None) of one index file's
    bytes. Raises IndexUnreadable (or IndexError / struct.error) on a malformed file."""
    signature, version, count = _HEADER.unpack_from(data, 0)
    if signature != b"DIRC" or version not in (2, 3, 4):
        raise IndexUnreadable(f"index signature {signature!r} version {version}")
    at = _HEADER.size
    fixed = 40 + hash_size + 2  # stat data, mode at 24, object id, flags
    links: list[bytes] = []
    previous = b""
    for _ in range(count):
        start = at
        (mode,) = struct.unpack_from(">L", data, start + 24)
        (flags,) = struct.unpack_from(">H", data, start + 40 + hash_size)
        at = start + fixed + (2 if flags & 0x4000 and version >= 3 else 0)
        if version == 4:
            strip, at = _varint(data, at)
            end = data.index(b"\0", at)
            if strip > len(previous):
                raise IndexUnreadable("index v4 path prefix longer than the previous path")
            path = previous[: len(previous) - strip] + data[at:end]
            at = end + 1
            previous = path
        else:
            end = data.index(b"\0", at)
            path = data[at:end]
            at = start + ((end - start + 8) & ~7)  # NUL padding to a multiple of 8
        if mode == _GITLINK:
            links.append(path)
    shared: bytes | None = None
    last = len(data) - hash_size
    while at + 8 <= last:
        name, size = struct.unpack_from(">4sL", data, at)
        if name == b"link":
            shared = data[at + 8 : at + 8 + hash_size]
        at += 8 + size
    return links, shared


@lru_cache(maxsize=64)
def _links_of(path: str, mtime_ns: int, size: int, hash_size: int) -> tuple[str, ...]:
    with open(path, "rb") as fh:
        data = fh.read(_MAX_BYTES + 1)
    if len(data) > _MAX_BYTES:
        raise IndexUnreadable(f"index larger than {_MAX_BYTES} bytes")
    try:
        links, shared = _parse(data, hash_size)
    except (IndexError, ValueError, struct.error) as exc:
        raise IndexUnreadable(f"malformed index: {exc}") from exc
    found = [os.fsdecode(link) for link in links]
    if shared is not None and shared.strip(b"\0"):
        other = os.path.join(os.path.dirname(path), "sharedindex." + shared.hex())
        found += gitlinks_in(other, hash_size)
    return tuple(found)


def gitlinks_in(index: str, hash_size: int = 20) -> tuple[str, ...]:
    """Paths ('/'-separated, relative to the work tree root) of the gitlinks recorded in
    index file `index`, whose object ids are `hash_size` bytes (20 SHA-1, 32 SHA-256).
    A missing file holds none. Raises IndexUnreadable when the file exists but cannot be
    read as an index. Cached per file version (path, mtime, size)."""
    try:
        info = os.stat(index)
    except OSError:
        return ()
    try:
        return _links_of(index, info.st_mtime_ns, info.st_size, hash_size)
    except OSError as exc:
        raise IndexUnreadable(f"cannot read {index}: {exc}") from exc
