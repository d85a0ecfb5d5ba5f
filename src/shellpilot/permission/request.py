"""One permission ask as a value (``AskRequest``) and the ``Ask`` seam every asker implements.

Owns: the shape of an ask and the allow-everything asker. Must not touch: deciding (rules.py,
service.py), shells or terminals; a tool, a shell block or a UI only builds or answers these.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable


def _texts(values: Iterable[str]) -> tuple[str, ...]:
    """Distinct strings in first-seen order (a bare string would be split into characters)."""
    if isinstance(values, str):
        raise TypeError("give a list of patterns, not a single string")
    return tuple(dict.fromkeys(values))


@dataclass(frozen=True)
class AskRequest:
    """What one ask is about: ``permission`` (``bash``, ``edit``, ``external_directory``,
    ``task``...) for ``patterns`` (command texts, paths, ``dir/*`` globs, agent names).

    ``always``: what an "always" answer grants (``git checkout *`` for
    ``git checkout -b x``). ``metadata``: what helps a person decide
    (``{"command", "description", "reasons", "unknown"}``); shown, never judged.
    ``read_only``: the patterns the shell gate judged read-only from their parsed argv
    (``tool.gate``); the default policy allows those when only a catch-all ``ask`` decides
    them. ``unanalysed``: whole command texts asked because the scan was ``unknown``: no
    allow rule but a catch-all ``*`` may allow them (none at all when a deny rule exists
    for the permission), and they are never remembered as "always".

    Lists are stored as tuples with duplicates dropped (order kept); ``metadata`` is a
    read-only mapping. Raises TypeError when a bare string is given for a list.
    """

    permission: str
    patterns: tuple[str, ...]
    always: tuple[str, ...] = ()
    metadata: Mapping[str, Any] = field(default_factory=dict, compare=False)
    read_only: frozenset[str] = frozenset()
    unanalysed: frozenset[str] = frozenset()

    def __init__(
        self,
        permission: str,
        patterns: Iterable[str],
        always: Iterable[str] = (),
        metadata: Mapping[str, Any] | None = None,
        *,
        read_only: Iterable[str] = (),
        unanalysed: Iterable[str] = (),
    ) -> None:
        set_ = object.__setattr__
        set_(self, "permission", permission)
        set_(self, "patterns", _texts(patterns))
        set_(self, "always", _texts(always))
        set_(self, "metadata", MappingProxyType(dict(metadata or {})))
        set_(self, "read_only", frozenset(_texts(read_only)))
        set_(self, "unanalysed", frozenset(_texts(unanalysed)))

    def __hash__(self) -> int:
        return hash((self.permission, self.patterns, self.always, self.read_only, self.unanalysed))


class Ask(Protocol):
    """``await ask(request)``: returns when ``request`` is allowed (by a rule, a grant, the
    read-only allowance or a person's answer).

    Raises PermissionDenied when a rule denies a pattern, PermissionRejected when it is
    refused (a person said no, nobody could be asked, or the session was cancelled), and
    PermissionCorrected when the refusal carries feedback for the model.
    """

    def __call__(self, request: AskRequest, /) -> Awaitable[None]: ...


@runtime_checkable
class RuleAware(Protocol):
    """An ``Ask`` that can also say, without asking anyone, whether its rules deny a
    permission outright (``permission.rules.denies_all``). The shell gate uses it to run
    every command of an agent that may not ``edit`` in a read-only sandbox."""

    def denies_all(self, permission: str, /) -> bool: ...


def denies_all(ask: object, permission: str) -> bool:
    """``ask.denies_all(permission)`` for a ``RuleAware`` asker; False for any other."""
    return isinstance(ask, RuleAware) and ask.denies_all(permission)


async def allow_all(request: AskRequest, /) -> None:
    """An ``Ask`` that allows everything (for embedding, tests and benchmarks)."""


__all__ = ["Ask", "AskRequest", "RuleAware", "allow_all", "denies_all"]
