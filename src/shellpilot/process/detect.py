"""Which shell binary runs a command, and the argv that hands it the command text.

Owns: shell choice (explicit > config > $SHELL > bash > /bin/sh) and argv shape.
Must not touch: processes, permissions, parsing; the model never chooses the binary.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from shellpilot.errors import ShellNotFound

ShellKind = Literal["posix", "powershell"]

POSIX_SHELLS = frozenset({"bash", "zsh", "sh", "dash", "ksh", "mksh"})
"""Shells that take ``-c <command>`` with POSIX semantics; ``$SHELL`` is used only if it is one."""
POWERSHELLS = frozenset({"pwsh", "powershell"})
REFUSED_SHELLS = frozenset({"fish", "nu", "nushell", "xonsh", "elvish", "csh", "tcsh"})
"""Shells whose syntax differs from what the scanner parses; a fallback is used instead."""

_PS_FLAGS = ("-NoLogo", "-NoProfile", "-NonInteractive", "-Command")


@dataclass(frozen=True)
class ShellChoice:
    """A resolved shell: absolute ``path``, short ``name`` (``bash``, ``pwsh``...), ``kind``.

    ``source`` says where it came from (explicit, config, $SHELL, fallback) and ``note``
    why an earlier candidate was passed over (empty when none was).
    """

    path: str
    name: str
    kind: ShellKind
    source: str
    note: str = ""

    @property
    def grammar(self) -> Literal["bash", "powershell"]:
        """The parser grammar the scanner must use for this shell."""
        return "powershell" if self.kind == "powershell" else "bash"

    def argv(self, command: str) -> list[str]:
        """``[shell, -c, --, command]``: the command is ONE argv string, never re-quoted or eval'd.

        The ``--`` ends the shell's own options, so a command starting with ``-`` (``-n``,
        ``--version``) is run as a command, not read as an option; bash, zsh, dash/sh and
        ksh93 all accept it (``$0`` stays the shell's name).
        """
        if self.kind == "powershell":
            return [self.path, *_PS_FLAGS, command]
        return [self.path, "-c", "--", command]


def shell_name(path: str) -> str:
    """The lower-case base name of a shell path without ``.exe`` (``/usr/bin/bash`` -> ``bash``)."""
    name = Path(path).name.lower()
    return name[:-4] if name.endswith(".exe") else name


def _kind(name: str) -> ShellKind | None:
    if name in POSIX_SHELLS:
        return "posix"
    if name in POWERSHELLS:
        return "powershell"
    return None


def _resolve(candidate: str) -> str | None:
    """An executable path for ``candidate`` (a name on PATH or a path), else None."""
    if os.sep in candidate or (os.altsep and os.altsep in candidate):
        path = Path(candidate).expanduser()
        return str(path) if path.is_file() and os.access(path, os.X_OK) else None
    return shutil.which(candidate)


def _fallback(note: str) -> ShellChoice:
    for name in ("bash", "/bin/sh"):
        path = _resolve(name)
        if path:
            return ShellChoice(path, shell_name(path), "posix", "fallback", note)
    raise ShellNotFound("bash or /bin/sh", "Neither is installed on this machine.")


def detect_shell(
    explicit: str | None = None,
    *,
    configured: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> ShellChoice:
    """Choose the shell: ``explicit``, else ``configured`` (config ``shell.path``), else
    ``$SHELL`` when it is bash/zsh/sh/dash/ksh, else bash, else /bin/sh.

    An explicit or configured shell that does not exist raises ShellNotFound (the user
    asked for it, so silently using another would surprise them); fish, nu and other
    non-POSIX shells are refused with a fallback named in ``note``.
    """
    env = os.environ if environ is None else environ
    notes: list[str] = []
    for source, candidate in (("explicit", explicit), ("config", configured)):
        if not candidate:
            continue
        name = shell_name(candidate)
        kind = _kind(name)
        path = _resolve(candidate)
        if path is None:
            raise ShellNotFound(candidate, f"It was set as the {source} shell.")
        if kind is None:
            notes.append(f"{candidate} ({source}) is not a supported shell")
            continue
        return ShellChoice(path, name, kind, source, "; ".join(notes))
    login = env.get("SHELL", "")
    if login:
        name = shell_name(login)
        path = _resolve(login) if name in POSIX_SHELLS else None
        if path:
            return ShellChoice(path, name, "posix", "$SHELL", "; ".join(notes))
        notes.append(f"$SHELL={login} is not used")
    return _fallback("; ".join(notes))
