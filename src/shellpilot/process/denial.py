"""Explaining a sandbox's refusals: which writes or connections a failed command lost to it.

Owns: reading a failed command's output for EROFS/EACCES/EBUSY on paths the profile keeps
read-only and for connection failures without network, and the note that tells the model
what was blocked and how to ask for more. Must not touch: processes, permissions, files
(it only stats paths).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from shellpilot.process.sandbox import TMP, SandboxProfile

_WRITE_ERRORS = re.compile(
    r"read-only file system|\berrno 30\b|\berofs\b|device or resource busy|\bebusy\b"
    r"|permission denied|\berrno 13\b|\beacces\b",
    re.IGNORECASE,
)
_EACCES = re.compile(r"permission denied|\berrno 13\b|\beacces\b", re.IGNORECASE)
_NETWORK_ERRORS = re.compile(
    r"network is unreachable|network unreachable|\benetunreach\b|could not resolve|failed to resolve"
    r"|temporary failure in name resolution|name or service not known|\beai_again\b|getaddrinfo"
    r"|no address associated with hostname|nodename nor servname|connection refused|\beconnrefused\b"
    r"|failed to establish a new connection|could not connect|failed to connect|unable to connect",
    re.IGNORECASE,
)
_EPERM = re.compile(r"operation not permitted|\berrno 1\b|\beperm\b", re.IGNORECASE)
_SOCKET = re.compile(r"socket|connect", re.IGNORECASE)
_ENOENT = re.compile(r"no such file or directory|\berrno 2\b|\benoent\b", re.IGNORECASE)
_QUOTED = re.compile(r"'([^'\n]+)'|\"([^\"\n]+)\"|‘([^’\n]+)’|`([^'`\n]+)'")
_TOKEN = re.compile(r"(?:(?<=\s)|^)(~?/[^\s:'\"‘’,;()]+|\.{1,2}/[^\s:'\"‘’,;()]+)")
_NOT_A_PATH = re.compile(r"E[A-Z]+|\d+|line|[A-Za-z]*(?:Error|ERR!?)")
"""Words before an error text that name the error, not a file (``EROFS:``, ``sh: 1:``, ``OSError:``)."""
_MAX_LINES = 400
_MAX_PATHS = 5

DEFAULT_HINT = "ask the user to allow {request} (config sandbox.writable / sandbox.network)"
"""How to ask for more when the caller gave no hint of its own; ``{request}`` is a JSON list."""


@dataclass(frozen=True)
class Denial:
    """What the sandbox blocked: ``kind`` ``write`` (``paths``: where, absolute) or
    ``network``; ``request``: what to ask for to let it through (paths or ``network``)."""

    kind: Literal["write", "network"]
    paths: tuple[str, ...] = ()
    request: tuple[str, ...] = ()


def _candidates(line: str, error: re.Pattern[str]) -> list[str]:
    """The paths an error line may name: quoted words; the word right before the error
    text (``tee: .git/hooks/t: Read-only file system``, ``sh: 1: cannot create x: ...``,
    ``could not lock config file .git/config: ...``: the perror shape, relative paths
    included); and path-like words, except the program name a line starts with
    (``/bin/bash: line 1: x: ...`` names x, not /bin/bash)."""
    found = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(line)]
    for match in error.finditer(line):
        head = line[: match.start()].rstrip()
        if head.endswith(":"):
            words = head[:-1].rsplit(": ", 1)[-1].split()
            if words and not _NOT_A_PATH.fullmatch(words[-1]):
                found.append(words[-1].strip("'\"‘’`"))
    found += [t for t in _TOKEN.findall(line) if not line.startswith(f"{t}:")]
    return list(dict.fromkeys(c.strip() for c in found if c.strip()))


def _absolute(text: str, cwd: Path) -> Path | None:
    if "\x00" in text or len(text) > 4096:
        return None
    path = Path(os.path.expanduser(text))
    if not path.is_absolute():
        path = cwd / path
    return Path(os.path.normpath(path))


def _host_writable(path: Path) -> bool:
    """Whether this process could write ``path`` outside the sandbox (it or its nearest
    existing parent): only then was a refusal the sandbox's doing."""
    probe = path
    while not os.path.lexists(probe) and probe.parent != probe:
        probe = probe.parent
    return os.access(probe, os.W_OK)


def grantable(path: Path) -> Path:
    """What to ask for so ``path`` becomes writable: itself when it exists (a bind mount
    needs an existing source), else its nearest existing parent directory."""
    probe = path
    while not os.path.lexists(probe) and probe.parent != probe:
        probe = probe.parent
    return probe


def _visible(path: Path, profile: SandboxProfile) -> bool:
    """False for paths under /tmp, which inside the sandbox are its private temp dir."""
    return not (path == TMP or path.is_relative_to(TMP)) or any(
        path == p or path.is_relative_to(p) for p in (*profile.writable, *profile.readable)
    )


def find_denial(profile: SandboxProfile, output: str, cwd: Path) -> Denial | None:
    """The sandbox refusal that most likely made a command fail, read from its ``output``
    (the last ``_MAX_LINES`` lines), or None.

    A write: a line with EROFS, EBUSY (a protected mount point) or EACCES naming a path the
    profile may not write but this process could (so EACCES of an ordinary file mode is not
    blamed on the sandbox), or ENOENT naming a host path under ``/tmp`` that the sandbox's
    private ``/tmp`` hides. A connection: without network, a resolver or connect error, or
    EPERM near a socket()/connect() (Unix sockets are blocked). Writes win over connections.
    """
    lines = output.splitlines()[-_MAX_LINES:]
    blocked: dict[str, None] = {}
    request: dict[str, None] = {}
    network = False
    for index, line in enumerate(lines):
        if _WRITE_ERRORS.search(line) or _ENOENT.search(line):
            eacces = bool(_EACCES.search(line))
            hidden = not _WRITE_ERRORS.search(line)
            for text in _candidates(line, _ENOENT if hidden else _WRITE_ERRORS):
                path = _absolute(text, cwd)
                if path is None:
                    continue
                if hidden:  # a host path under /tmp, covered by the sandbox's own /tmp
                    if _visible(path, profile) or grantable(path) == TMP:
                        continue
                else:
                    # EACCES where the host would refuse too is an ordinary file mode.
                    ordinary = eacces and not _host_writable(path)
                    if profile.can_write(path) or not _visible(path, profile) or ordinary:
                        continue
                blocked[str(path)] = None
                request[str(grantable(path))] = None
        if profile.network:
            continue
        nearby = "\n".join(lines[max(0, index - 3) : index + 1])
        if _NETWORK_ERRORS.search(line) or (_EPERM.search(line) and _SOCKET.search(nearby)):
            network = True
    if blocked:
        return Denial("write", tuple(list(blocked)[:_MAX_PATHS]), tuple(list(request)[:_MAX_PATHS]))
    if network:
        return Denial("network", request=("network",))
    return None


def denial_note(profile: SandboxProfile, denial: Denial) -> str:
    """The note for the model: the profile, what it blocked, what it allows, how to ask."""
    if denial.kind == "write":
        what = f"writing to {', '.join(denial.paths)}"
        if profile.name == "read-only":
            allows = "this profile lets a command write only its private /tmp"
        else:
            roots = ", ".join(str(p) for p in profile.writable)
            allows = (
                f"this profile lets a command write {roots} and /tmp (the session's temp dir); "
                ".git/hooks, .git/config and shellpilot's config stay read-only"
            )
    else:
        what = "a network connection"
        allows = (
            "this profile has no network: only the sandbox's own loopback (nothing listens there), "
            "and no connections to local services' Unix sockets"
        )
    hint = (profile.hint or DEFAULT_HINT).replace("{request}", json.dumps(list(denial.request)))
    return (
        f"The sandbox ({profile.name} profile) blocked {what}: {allows}. "
        f"This is not a bug in the command. If the task needs it, you may retry and {hint}."
    )
