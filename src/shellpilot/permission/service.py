"""The permission service: decide a tool's ask, hold pending requests, apply the user's replies.

Owns: pending requests, their futures, the project's grants and the permission.* events.
Must not touch: shells, terminals or HTTP; UIs answer through ``reply`` and bus events.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import assert_never

from shellpilot.bus import Bus
from shellpilot.errors import (
    PermissionCorrected,
    PermissionDenied,
    PermissionRejected,
    PermissionRequestNotFound,
    UsageError,
)
from shellpilot.ids import ascending
from shellpilot.permission.events import (
    REPLIES,
    PermissionAsked,
    PermissionReplied,
    PermissionRequest,
    Reason,
    Reply,
)
from shellpilot.permission.grants import GrantStore
from shellpilot.permission.request import AskRequest
from shellpilot.permission.rules import Action, Rule, denies_all, evaluate, merge
from shellpilot.permission.wildcard import match


@dataclass(frozen=True)
class Verdict:
    """The decision for one ask: ``action`` overall, ``denied`` = the first denied pattern,
    ``needs`` = the patterns that still need a user's answer (in the asked order).

    ``person_only``: one of ``needs`` is a command text the scanner could not analyse
    while a deny rule exists for the permission, so the deny rules could not be checked
    against it: only a person may allow it (never ``--yes``, ``--allow`` or a catch-all
    allow rule), and without one it is refused.
    """

    action: Action
    denied: str | None = None
    needs: tuple[str, ...] = ()
    person_only: bool = False


def read_only_allowed(rule: Rule, pattern: str, read_only: Collection[str]) -> bool:
    """Does the read-only allowance turn this ``ask`` into ``allow``?

    Only when both hold: the shell gate listed ``pattern`` as read-only (its one
    judgement, ``tool.gate`` over ``readonly.is_read_only`` with the command's text, so
    no redirect, expansion, assignment or wrapper slipped by); and the deciding rule is an
    ``ask`` with the catch-all pattern ``*`` (the default ``bash`` ask, a user's
    ``"bash": "ask"`` or ``"*": "ask"``, or no rule at all), so a rule the user wrote for
    this command (``"ls *": "ask"``) is obeyed.
    """
    return rule.action == "ask" and rule.catch_all and pattern in read_only


def unanalysed_rules(rules: Sequence[Rule]) -> list[Rule]:
    """The rules that may decide a command text the scanner could not analyse: every
    rule except the allow rules with a pattern other than ``*``.

    ``*`` in a pattern also matches newlines and ``;``, so ``"git status *": "allow"``
    would otherwise allow ``git status --short\ntouch x\n'`` (an unparseable text
    holding a second command). Only a catch-all allow (the user allowed every command)
    or the user's answer may allow such a text; deny and ask rules still decide, and when
    a deny rule exists for the permission not even the catch-all allow may (``check``).
    """
    return [r for r in rules if r.action != "allow" or r.catch_all]


def has_deny(permission: str, rules: Sequence[Rule]) -> bool:
    """Whether any rule denies something for ``permission`` (its permission wildcard matches)."""
    return any(r.action == "deny" and match(permission, r.permission) for r in rules)


_MAX_EMBEDDED = 2000
"""Most places `embedded_deny` tries in one text; past that the text counts as denied."""

_SEPARATOR = re.compile(r"[;&|()`\n]")
"""Where an embedded command's own text ends (the next operator or line)."""


def _boundary(text: str, pos: int) -> bool:
    """Whether a command word may start at `pos` (not inside a longer name such as
    `git-touch` or `retouch`; after `/`, `\\`, quotes, `$(`, spaces and the like it may)."""
    if pos == 0:
        return True
    before = text[pos - 1]
    return not (before.isalnum() or before in "_-.")


def embedded_deny(permission: str, text: str, rules: Sequence[Rule]) -> str | None:
    """A command a deny rule forbids, found anywhere inside `text`, else None.

    For command texts the scanner could not analyse (`unknown` scans are asked as their
    whole text): a deny rule such as `touch *` does not match the whole text
    `true && ... $( touch x )`, yet the text may run `touch x`. Each deny rule's literal
    head (`touch`) is searched for; at every place where a command may start, the rest of
    the text, and the rest up to the next `;&|()` or newline, are judged by all the rules
    (so a more specific allow still wins, as it would for the command alone). Returns the
    first such command text that is denied. Over `_MAX_EMBEDDED` places: the whole text.
    Deny rules that start with a wildcard already apply to the whole text and are skipped.
    False positives (a denied word inside a quoted string) only cost a refusal of a text
    that nobody could check. Source: shellpilot (unknown scans and deny rules).
    """
    tried = 0
    for rule in rules:
        if rule.action != "deny" or not match(permission, rule.permission):
            continue
        head = rule.pattern
        for wildcard in ("*", "?"):
            at = head.find(wildcard)
            if at >= 0:
                head = head[:at]
        head = head.strip()
        if not head:
            continue
        pos = text.find(head)
        while pos >= 0:
            if _boundary(text, pos):
                tried += 1
                if tried > _MAX_EMBEDDED:
                    return text
                rest = text[pos:]
                end = _SEPARATOR.search(rest, 1)
                cut = end.start() if end else len(rest)
                for candidate in dict.fromkeys((rest[:cut].rstrip(), rest)):
                    if evaluate(permission, candidate, rules).action == "deny":
                        return candidate
            pos = text.find(head, pos + 1)
    return None


def check(request: AskRequest, rules: Sequence[Rule]) -> Verdict:
    """Decide ``request``'s patterns against ``rules`` without asking anyone (pure).

    Any denied pattern -> ``deny`` (even if another needs asking); every
    pattern allowed (or read-only-allowed) -> ``allow`` (so an empty list passes);
    otherwise ``ask`` with ``needs``. A pattern listed in ``request.unanalysed`` (a whole
    command text asked because the scan was ``unknown``) is judged by
    ``unanalysed_rules`` only, so no allow rule but ``*`` lets it through; it is denied
    when a deny rule forbids a command found inside it (``embedded_deny``); and when any
    deny rule exists for the permission it is never allowed by a rule at all: it needs a
    person (``Verdict.person_only``), since the deny rules could not be checked against it.
    ``shellpilot command render --no-shell`` can show this without running anything.
    """
    permission, unanalysed = request.permission, request.unanalysed
    needs: list[str] = []
    guarded = unanalysed_rules(rules) if unanalysed else list(rules)
    guarded_by_deny = bool(unanalysed) and has_deny(permission, rules)
    person_only = False
    for pattern in request.patterns:
        hidden = pattern in unanalysed
        rule = evaluate(permission, pattern, guarded if hidden else rules)
        if rule.action == "deny":
            return Verdict("deny", denied=pattern)
        embedded = embedded_deny(permission, pattern, rules) if hidden else None
        if embedded is not None:
            return Verdict("deny", denied=embedded)
        if hidden and guarded_by_deny:
            needs.append(pattern)
            person_only = True
        elif rule.action == "ask" and not read_only_allowed(rule, pattern, request.read_only):
            needs.append(pattern)
    return Verdict("ask", needs=tuple(needs), person_only=person_only) if needs else Verdict("allow")


@dataclass
class _Pending:
    request: PermissionRequest
    asked: AskRequest
    rules: tuple[Rule, ...]
    future: asyncio.Future[None]


class PermissionService:
    """Asks, waits for the reply and remembers "always" answers as grants.

    Build one per project at start-up: ``grants_path`` is that project's grants file
    (``grants.grants_path(data_dir, project_dir)``), read now and written on every
    "always". Grants are shared by every session of the project and evaluated with the
    caller's rules as ordinary allow rules, so a more specific deny still wins.
    Call its methods from the event loop's thread.
    """

    def __init__(self, bus: Bus, grants_path: Path, *, project_dir: Path | None = None) -> None:
        self._bus = bus
        self._grants = GrantStore(grants_path, project_dir)
        self._pending: dict[str, _Pending] = {}

    @property
    def grants(self) -> list[Rule]:
        """The project's "always" grants (allow rules, source ``grant``)."""
        return self._grants.rules()

    @property
    def grant_warnings(self) -> list[str]:
        """What went wrong reading the grants file (it was moved aside), for the user to see."""
        return list(self._grants.warnings)

    def check(self, request: AskRequest, ruleset: Sequence[Rule]) -> Verdict:
        """``check`` against ``ruleset`` plus this project's grants, without asking."""
        return check(request, merge(ruleset, self._grants.rules()))

    async def ask(self, request: AskRequest, *, session_id: str, ruleset: Sequence[Rule] = ()) -> None:
        """Return when every pattern of ``request`` is allowed; otherwise ask and wait.

        ``request.unanalysed``: whole command texts asked because the scan was
        ``unknown``; only a catch-all allow or the user's answer allows them (``check``;
        only the answer when a deny rule exists for the permission, and the published
        request then has ``person_only``), and they are never offered as ``always`` (an
        "always" answer stores nothing for them: it counts once).

        Raises PermissionDenied (naming the first denied pattern, never the config) when
        a rule denies one; PermissionRejected / PermissionCorrected when the user rejects
        (or the session is cancelled). A pending request is published as
        ``permission.asked`` with only the patterns that need an answer. If the awaiting
        task is cancelled, its request is removed and ``permission.replied`` (reason
        ``cancelled``) published.
        """
        verdict = self.check(request, ruleset)
        if verdict.action == "deny":
            raise PermissionDenied(request.permission, verdict.denied or "")
        if verdict.action == "allow":
            return
        pending = PermissionRequest(
            id=ascending("per"),
            session_id=session_id,
            permission=request.permission,
            patterns=verdict.needs,
            always=tuple(a for a in request.always if a not in request.unanalysed),
            metadata=dict(request.metadata),
            created=int(time.time() * 1000),
            person_only=verdict.person_only,
        )
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending[pending.id] = _Pending(pending, request, tuple(ruleset), future)
        self._bus.publish(PermissionAsked(request=pending))
        try:
            await future
        finally:
            if self._pending.pop(pending.id, None) is not None:
                self._publish(pending, "reject", None, "cancelled")

    def reply(self, request_id: str, reply: Reply, message: str | None = None) -> None:
        """Answer a pending request.

        ``once``: it proceeds. ``always``: its ``always`` patterns become allow grants
        for the project (persisted), it proceeds, and the session's other pending
        requests that are now fully allowed proceed too. ``reject``: it fails with
        PermissionCorrected(message) or PermissionRejected, and every other pending
        request of the session fails with PermissionRejected. Raises
        PermissionRequestNotFound for an id that is not pending (the pending list is
        unchanged), UsageError for an unknown reply, and StorageError when an "always"
        grant cannot be written (the request then stays pending).
        """
        if reply not in REPLIES:
            raise UsageError(f"Unknown permission reply {reply!r}; use once, always or reject.")
        entry = self._pending.get(request_id)
        if entry is None:
            raise PermissionRequestNotFound(request_id)
        request = entry.request
        if reply == "always" and entry.asked.unanalysed and not request.always:
            reply = "once"  # an unanalysed command text is never remembered: it counts once
        if reply == "always":
            # Persist first: if the grants file cannot be written (StorageError), the
            # request stays pending and the replier can answer again.
            self._grants.add(request.permission, request.always)
        del self._pending[request_id]
        feedback = message.strip() if message and message.strip() else None
        match reply:
            case "once":
                _settle(entry.future)
                self._publish(request, "once", None, "user")
            case "always":
                _settle(entry.future)
                self._publish(request, "always", None, "user")
                for other in self._session_entries(request.session_id):
                    verdict = self.check(other.asked, other.rules)
                    if verdict.action == "allow":
                        del self._pending[other.request.id]
                        _settle(other.future)
                        self._publish(other.request, "always", None, "cascade")
            case "reject":
                error = PermissionCorrected(feedback) if feedback else PermissionRejected()
                _settle(entry.future, error)
                self._publish(request, "reject", feedback, "user")
                for other in self._session_entries(request.session_id):
                    del self._pending[other.request.id]
                    _settle(other.future, PermissionRejected())
                    self._publish(other.request, "reject", None, "cascade")
            case _:
                assert_never(reply)

    def cancel_session(self, session_id: str) -> int:
        """Reject every pending request of the session (PermissionRejected); return how many."""
        entries = self._session_entries(session_id)
        for entry in entries:
            del self._pending[entry.request.id]
            _settle(entry.future, PermissionRejected())
            self._publish(entry.request, "reject", None, "cancelled")
        return len(entries)

    def pending(self, session_id: str | None = None) -> list[PermissionRequest]:
        """Pending requests (all, or one session's), oldest first."""
        requests = [e.request for e in self._pending.values()]
        if session_id is not None:
            requests = [r for r in requests if r.session_id == session_id]
        return sorted(requests, key=lambda r: r.id)

    def asker(self, session_id: str, ruleset: Iterable[Rule]) -> BoundAsk:
        """An ``Ask`` bound to a session and its rules: what ``ToolContext.ask`` is."""
        return BoundAsk(self, session_id, tuple(ruleset))

    def denies_all(self, permission: str, ruleset: Sequence[Rule]) -> bool:
        """Whether ``ruleset`` plus this project's grants deny ``permission`` outright
        (``rules.denies_all``), without asking anyone."""
        return denies_all(permission, merge(ruleset, self._grants.rules()))

    def _session_entries(self, session_id: str) -> list[_Pending]:
        return [e for e in self._pending.values() if e.request.session_id == session_id]

    def _publish(self, request: PermissionRequest, reply: Reply, message: str | None, reason: Reason) -> None:
        self._bus.publish(
            PermissionReplied(
                session_id=request.session_id,
                request_id=request.id,
                reply=reply,
                message=message,
                reason=reason,
            )
        )


class BoundAsk:
    """``PermissionService.ask`` bound to one session and ruleset: an ``Ask`` (call it with
    an ``AskRequest``) that is also ``RuleAware`` (``denies_all``)."""

    def __init__(self, service: PermissionService, session_id: str, rules: tuple[Rule, ...]) -> None:
        self.service, self.session_id, self.rules = service, session_id, rules

    async def __call__(self, request: AskRequest, /) -> None:
        await self.service.ask(request, session_id=self.session_id, ruleset=self.rules)

    def denies_all(self, permission: str, /) -> bool:
        """Whether this session's rules (and the grants) deny ``permission`` outright."""
        return self.service.denies_all(permission, self.rules)


def _settle(future: asyncio.Future[None], error: BaseException | None = None) -> None:
    """Resolve (or fail) a waiter unless it is already done (e.g. its task was cancelled)."""
    if future.done():
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)
