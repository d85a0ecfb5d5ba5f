"""The terminal's answer to ``permission.asked``: a rich prompt on a TTY, a policy otherwise.

Owns: showing a pending request and turning a person's keys (or ``--yes`` / ``--allow``)
into ``PermissionService.reply``. Must not touch: rules and decisions (the service owns
them); it never waits on stdin when stdin is not a terminal.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
import threading
from collections.abc import Callable, Sequence
from contextlib import suppress
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

from shellpilot.bus import Bus, Subscription
from shellpilot.cli.render import printable
from shellpilot.errors import (
    PermissionError_,
    PermissionRejected,
    PermissionRequestNotFound,
    PermissionUnanalysed,
)
from shellpilot.permission.events import PermissionAsked, PermissionRequest, Reply
from shellpilot.permission.request import AskRequest
from shellpilot.permission.service import PermissionService, Verdict
from shellpilot.permission.wildcard import match

if TYPE_CHECKING:  # rich loads when something is shown: a run that never asks does not pay for it
    from rich.console import Console
    from rich.text import Text

T = TypeVar("T")
ReadLine = Callable[[str], str]


@dataclass(frozen=True)
class NonInteractivePolicy:
    """What to answer when nobody can be asked (stdin is not a TTY).

    ``yes``: allow (once) everything asked (``--yes``). ``allow_patterns``: wildcard
    patterns (``--allow 'git *'``); a request is allowed once when every pattern it asks
    about matches one of them. Everything else is rejected.
    """

    yes: bool = False
    allow_patterns: tuple[str, ...] = ()


@dataclass(frozen=True)
class Decision:
    """An answer: ``reply``, ``message`` (feedback for the model, with reject only) and
    ``notice`` (a line for the person at the terminal, or None)."""

    reply: Reply
    message: str | None = None
    notice: str | None = None


def _describe(request: PermissionRequest) -> str:
    return f"{request.permission} {', '.join(repr(p) for p in request.patterns)}"


NO_TERMINAL = "not allowed without a terminal (pass --yes or --allow PATTERN)"
"""Why a request was refused when nobody could be asked (the words blocks and warnings show)."""


def _unknown(request: PermissionRequest) -> bool:
    """The scanner could not analyse the command (bash tool: ``reasons``; blocks: ``unknown``)."""
    return bool(request.metadata.get("unknown") or request.metadata.get("reasons"))


def allow_suggestions(
    patterns: Sequence[str], always: Sequence[str], allowed: Sequence[str] = ()
) -> list[str]:
    """The ``--allow`` patterns that would cover ``patterns`` (those still needing an answer).

    For each pattern: the first ``always`` entry that matches it (``echo *`` for
    ``echo hi > made.txt``), else the pattern itself; never one already in ``allowed``
    (it evidently did not cover it). Distinct, in order; empty when nothing would help.
    """
    found: list[str] = []
    for pattern in patterns:
        cover = next((a for a in always if a not in allowed and match(pattern, a)), None)
        if cover is None and pattern not in allowed:
            cover = pattern
        if cover is not None and cover not in found:
            found.append(cover)
    return found


def no_terminal_hint(
    request: PermissionRequest, unmatched: Sequence[str], allowed: Sequence[str] = ()
) -> str:
    """What to pass next time: ``--allow`` naming the patterns that really need an answer,
    or, when the scan is unknown (``--allow`` cannot cover it), ``--yes``."""
    if request.permission == "bash" and _unknown(request):
        reasons = request.metadata.get("reasons")
        why = f" ({'; '.join(str(r) for r in reasons)})" if isinstance(reasons, list) and reasons else ""
        return f"the command could not be fully analysed{why}, so --allow cannot cover it: re-run with --yes."
    suggestions = allow_suggestions(unmatched, request.always, allowed)
    if not suggestions:
        return "re-run with --yes to allow everything that asks."
    flags = " ".join(f"--allow {shlex.quote(s)}" for s in suggestions)
    which = "it" if len(unmatched) == 1 else "them"
    return f"re-run with {flags} to allow {which}, or --yes to allow everything that asks."


def no_terminal_reason(request: AskRequest, verdict: Verdict, allowed: Sequence[str] = ()) -> str:
    """``NO_TERMINAL`` with PATTERN filled in for ``request`` as ``verdict`` left it: the
    ``--allow`` flags that would cover ``verdict.needs`` (``allow_suggestions``), or, for a
    command the scanner could not analyse, that only ``--yes`` can allow it. Used where a
    refusal is shown inline (shell blocks) and as the tool's error."""
    if verdict.person_only:
        return (
            "not allowed without a terminal (the command could not be analysed and deny rules "
            "exist for it, so only a person may allow it)"
        )
    if request.permission == "bash" and request.unanalysed:
        return "not allowed without a terminal (the command could not be fully analysed, so pass --yes)"
    suggestions = allow_suggestions(verdict.needs, request.always, allowed)
    if not suggestions:
        return "not allowed without a terminal (pass --yes)"
    flags = " ".join(f"--allow {shlex.quote(x)}" for x in suggestions)
    return f"not allowed without a terminal (pass --yes or {flags})"


def refusal(request: AskRequest, verdict: Verdict, allowed: Sequence[str] = ()) -> PermissionError_:
    """The error a tool gets when ``request`` was refused because nobody could be asked:
    PermissionUnanalysed (the model may rewrite the command and go on) when only a person
    could allow it (``verdict.person_only``), else PermissionRejected with
    ``no_terminal_reason``."""
    if verdict.person_only:
        reasons = request.metadata.get("reasons")
        listed = [str(r) for r in reasons] if isinstance(reasons, list) else []
        return PermissionUnanalysed(request.permission, next(iter(verdict.needs), ""), listed)
    return PermissionRejected(no_terminal_reason(request, verdict, allowed))


UNANALYSED_WARNING = (
    "This command could not be analysed, so your deny rules could not be checked against it. "
    "Allow it only if you have read it and know what it does."
)
"""Shown above a request whose ``person_only`` is set (and on refusals without a terminal)."""


def decide_non_interactive(request: PermissionRequest, policy: NonInteractivePolicy) -> Decision:
    """The answer without a terminal (pure): allow by ``--yes``/``--allow``, else reject.
    A ``person_only`` request (not analysed, under deny rules) is always rejected.

    The rejection carries no message for the model (so a turn ends, as on a person's
    plain reject); its ``notice`` says which patterns were refused and the ``--allow``
    flags that would cover exactly those (``no_terminal_hint``).
    """
    if request.person_only:
        return Decision(
            "reject",
            notice=(
                f"{_describe(request)}: not allowed without a terminal; the command could not be "
                "analysed while deny rules exist for it, so neither --yes nor --allow may allow it."
            ),
        )
    if policy.yes:
        return Decision("once", notice=f"allowed by --yes: {_describe(request)}")
    unmatched = [p for p in request.patterns if not any(match(p, a) for a in policy.allow_patterns)]
    if not unmatched:
        return Decision("once", notice=f"allowed by --allow: {_describe(request)}")
    refused = ", ".join(repr(p) for p in unmatched)
    return Decision(
        "reject",
        notice=(
            f"{request.permission} {refused}: not allowed without a terminal (stdin is not a terminal, "
            f"so nobody can be asked); {no_terminal_hint(request, unmatched, policy.allow_patterns)}"
        ),
    )


_ANSWERS: dict[str, Reply] = {
    "o": "once",
    "once": "once",
    "y": "once",
    "yes": "once",
    "a": "always",
    "always": "always",
    "r": "reject",
    "reject": "reject",
    "n": "reject",
    "no": "reject",
}


def parse_answer(text: str) -> Reply | None:
    """A typed answer -> reply (``o``/``once``/``y``, ``a``/``always``, ``r``/``reject``/``n``)."""
    return _ANSWERS.get(text.strip().lower())


_LABEL = 12
"""Width of the row labels of the permission box (``permission  `` etc.)."""


def _row(text: str) -> str:
    """One value of the box made safe (``printable``): escapes and controls shown, never
    sent raw, and each line after the first marked ``↵`` and indented under the value, so
    a multi-line command shows every line where it belongs."""
    return printable(text).replace("\n", "↵\n" + " " * _LABEL) + "\n"


def render_request(request: PermissionRequest, console: Console) -> None:
    """Show the permission, the patterns needing an answer and the command (metadata).

    Every model-provided value goes through ``printable``, so a ``\x1b[8m`` (conceal) or
    ``\x1b[2K`` (erase line) in a command shows as ``␛[8m`` instead of hiding it.
    """
    from rich.panel import Panel
    from rich.text import Text

    body = Text()
    if request.person_only:
        body.append("warning     ", style="bold red")
        body.append(UNANALYSED_WARNING + "\n", style="red")
    body.append("permission  ", style="bold")
    body.append(_row(request.permission))
    for pattern in request.patterns:
        body.append("pattern     ", style="bold")
        body.append(_row(pattern))
    command = request.metadata.get("command")
    if isinstance(command, str) and command not in request.patterns:
        body.append("command     ", style="bold")
        body.append(_row(command))
    description = request.metadata.get("description")
    if isinstance(description, str) and description:
        body.append("why         ", style="bold")
        body.append(_row(description))
    if request.always:
        body.append("always      ", style="bold")
        body.append(printable(", ".join(request.always)).replace("\n", "↵ "), style="dim")
    console.print(Panel(body, title="Permission needed", title_align="left", border_style="yellow"))


def ask_person(request: PermissionRequest, read_line: ReadLine, console: Console) -> Decision:
    """Blocking terminal dialogue: allow once / always / reject (+ optional message).

    ``read_line(prompt)`` returns a typed line; EOF (Ctrl-D) rejects.
    """
    render_request(request, console)
    try:
        while True:
            reply = parse_answer(read_line("Allow? [o]nce / [a]lways / [r]eject: "))
            if reply is None:
                console.print("Answer o (once), a (always) or r (reject).")
                continue
            if reply != "reject":
                return Decision(reply)
            message = read_line("Message for the model (Enter to just reject): ").strip()
            return Decision("reject", message=message or None)
    except (EOFError, KeyboardInterrupt):
        return Decision("reject", notice="no answer (end of input): rejected")


def confirm(
    request: AskRequest,
    verdict: Verdict,
    *,
    console: Console | None = None,
    read_line: ReadLine | None = None,
) -> bool:
    """Blocking once-or-reject question for callers without a PermissionService: the
    patterns of ``request`` that ``verdict`` left open (``verdict.needs``).

    Shows the same panel as the prompt (with the not-analysed warning when
    ``verdict.person_only``) and returns True for "once" (``o``/``y``), False for "reject"
    or end of input. No grant is stored, so "always" is not offered. Only call it when
    stdin is a terminal (``shellpilot command render`` checks that first).
    """
    from rich.text import Text

    shown = console or _stderr_console()
    read = read_line or (lambda prompt: shown.input(Text(prompt)))
    shown_request = PermissionRequest(
        id="per_confirm",
        session_id="",
        permission=request.permission,
        patterns=verdict.needs,
        metadata=dict(request.metadata),
        created=0,
        person_only=verdict.person_only,
    )
    render_request(shown_request, shown)
    try:
        while True:
            reply = parse_answer(read("Run it? [o]nce / [r]eject: "))
            if reply in ("once", "reject"):
                return reply == "once"
            shown.print("Answer o (once) or r (reject).")
    except (EOFError, KeyboardInterrupt):
        return False


async def _in_daemon_thread(fn: Callable[[], T]) -> T:
    """Run a blocking read in a daemon thread, so exiting never waits on a stuck stdin."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: Any, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def work() -> None:
        try:
            result = fn()
        except BaseException as exc:
            loop.call_soon_threadsafe(settle, None, exc)
        else:
            loop.call_soon_threadsafe(settle, result, None)

    threading.Thread(target=work, name="permission-prompt", daemon=True).start()
    return await future


class PermissionPrompt:
    """Answers ``permission.asked`` events of a service, one request at a time.

    Use ``async with PermissionPrompt(service, bus, policy=...)`` around the work that
    may ask. ``interactive`` defaults to ``sys.stdin.isatty()``; when False the
    ``policy`` answers at once and nothing reads stdin. ``console`` (default: rich on
    stderr) shows requests and notices; ``read_line`` (default ``console.input``) reads
    answers. Used by ``shellpilot run`` and ``shellpilot command render``.
    """

    def __init__(
        self,
        service: PermissionService,
        bus: Bus,
        *,
        policy: NonInteractivePolicy | None = None,
        interactive: bool | None = None,
        console: Console | None = None,
        read_line: ReadLine | None = None,
    ) -> None:
        self._service = service
        self._bus = bus
        self.policy = policy or NonInteractivePolicy()
        self.interactive = _stdin_is_tty() if interactive is None else interactive
        self._given_console = console
        self._read_line: ReadLine = read_line or self._input
        self._task: asyncio.Task[None] | None = None
        self.answered: list[tuple[str, Decision]] = []

    @property
    def _console(self) -> Console:
        """The console requests are shown on (rich on stderr unless one was given), made on first use."""
        if self._given_console is None:
            self._given_console = _stderr_console()
        return self._given_console

    def _input(self, prompt: str) -> str:
        from rich.text import Text

        return self._console.input(Text(prompt))  # Text: "[o]nce" is not markup

    def start(self) -> None:
        """Begin answering: requests already pending first, then each new one."""
        if self._task is not None:
            return
        subscription = self._bus.subscribe(["permission.asked"])
        backlog = self._service.pending()
        self._task = asyncio.get_running_loop().create_task(self._run(subscription, backlog))

    async def stop(self) -> None:
        """Stop answering (a prompt on screen is abandoned; its request stays pending)."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with suppress(asyncio.CancelledError):
                await task

    async def __aenter__(self) -> PermissionPrompt:
        self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    async def answer(self, request: PermissionRequest) -> Decision | None:
        """Decide and reply to one request; None when it was no longer pending."""
        if not any(r.id == request.id for r in self._service.pending()):
            return None
        if self.interactive:
            decision = await _in_daemon_thread(lambda: ask_person(request, self._read_line, self._console))
        else:
            decision = decide_non_interactive(request, self.policy)
        try:
            self._service.reply(request.id, decision.reply, decision.message)
        except PermissionRequestNotFound:
            # Settled meanwhile (cancelled, or covered by an earlier "always").
            if self.interactive:
                self._console.print(_text("(that request is no longer pending)", style="dim"))
            return None
        if decision.notice:
            style = "yellow" if decision.reply == "reject" else "dim"
            self._console.print(_text(decision.notice, style=style))
        self.answered.append((request.id, decision))
        return decision

    async def _run(self, subscription: Subscription, backlog: Sequence[PermissionRequest]) -> None:
        try:
            for request in backlog:
                await self.answer(request)
            async for event in subscription:
                if isinstance(event, PermissionAsked):
                    await self.answer(event.request)
        finally:
            subscription.close()


def _text(text: str, *, style: str) -> Text:
    from rich.text import Text

    return Text(text, style=style)


def _stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True)


def _stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (ValueError, OSError):
        return False


__all__ = [
    "NO_TERMINAL",
    "UNANALYSED_WARNING",
    "Decision",
    "NonInteractivePolicy",
    "PermissionPrompt",
    "allow_suggestions",
    "ask_person",
    "confirm",
    "decide_non_interactive",
    "no_terminal_hint",
    "no_terminal_reason",
    "parse_answer",
    "refusal",
    "render_request",
]
