"""``shellpilot session list|show|export|delete``: look at and manage stored sessions.

Owns: those sub-commands and how a conversation is rendered in a terminal.
Must not touch: what is stored (SessionService/SessionStore); output is shown as stored,
except that escape sequences and control characters are made ``printable`` first.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any, assert_never

import typer

from shellpilot.cli.options import DataDirOption, DirOption
from shellpilot.cli.render import printable
from shellpilot.session.models import (
    AgentPart,
    FilePart,
    SubtaskPart,
    TextPart,
    ToolCompleted,
    ToolFailed,
    ToolPart,
    ToolPending,
    ToolRunning,
)

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from shellpilot.session.models import MessageWithParts, Part

session_app = typer.Typer(help="List, show, export and delete sessions.", no_args_is_help=True)


def _when(ms: int | None) -> str:
    if ms is None:
        return "-"
    import datetime as dt

    return dt.datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M:%S")


def _console() -> Console:
    """A console for stored text: callers print only ``Text`` objects, never markup strings,
    so a title like ``[/]`` or ``[commit|branch]`` (user- or model-written) prints as is."""
    from rich.console import Console

    # Not a terminal (a pipe, a file): no colours, and wide enough that a row (ids, titles,
    # paths) is never wrapped, so each session stays on one line for grep; tables take only
    # the width their cells need.
    width = None if sys.stdout.isatty() else 1000
    return Console(soft_wrap=True, highlight=False, width=width)


def _text(text: str, style: str = "") -> Text:
    """A rich ``Text`` of stored (user-, model- or command-written) text, ``printable``:
    escape sequences removed, other control characters shown (``␛``), none sent raw."""
    from rich.text import Text

    return Text(printable(text, strip=True), style=style)


def _tool_lines(part: ToolPart) -> list[tuple[str, str]]:
    """(text, style) lines of a tool part: the call, its output as stored, then its outcome."""
    state = part.state
    command = state.input.get("command")
    head = f"$ {command}" if part.tool == "bash" and command is not None else f"{part.tool} {state.input}"
    head = printable(head)  # a command's escapes stay visible (␛[8m), not stripped
    lines = [(head, "bold cyan")]
    if isinstance(state, ToolPending):
        return [*lines, ("[pending]", "yellow")]
    meta: dict[str, Any] = dict(state.metadata)
    if isinstance(state, ToolCompleted):
        lines.append((state.output, ""))
        bits = [f"exit {meta['exit']}"] if meta.get("exit") is not None else []
        if meta.get("signal") is not None:
            bits.append(f"signal {meta['signal']}")
        if meta.get("truncated") and meta.get("output_path"):
            bits.append(f"full output: {meta['output_path']}")
        return [*lines, ("[" + " · ".join(bits) + "]", "dim")] if bits else lines
    if meta.get("output"):
        lines.append((str(meta["output"]), ""))  # the live output captured so far
    if isinstance(state, ToolRunning):
        return [*lines, ("[running]", "yellow")]
    if isinstance(state, ToolFailed):
        return [*lines, (f"[error: {state.error}]", "red")]
    assert_never(state)


def _render_part(console: Console, part: Part) -> None:
    if isinstance(part, TextPart):
        console.print(_text(part.text, style="dim italic" if part.synthetic else ""))
    elif isinstance(part, ToolPart):
        for text, style in _tool_lines(part):
            console.print(_text(text, style=style))
    elif isinstance(part, FilePart):
        console.print(_text(f"[file] {part.filename or part.path or part.url}", style="magenta"))
    elif isinstance(part, AgentPart):
        console.print(_text(f"[agent] @{part.name}", style="magenta"))
    elif isinstance(part, SubtaskPart):
        console.print(_text(f"[subtask @{part.agent}] {part.description or part.prompt}", style="magenta"))
    else:
        assert_never(part)


def _render_message(console: Console, item: MessageWithParts) -> None:
    info = item.info
    head = f"── {info.role}"
    if info.role == "assistant":
        head += f" ({info.agent}{', ' + info.model if info.model else ''})"
    head += f" · {_when(info.created_ms)}"
    console.print(_text(head, style="bold"))
    for part in item.parts:
        _render_part(console, part)
    if info.role == "assistant" and info.error is not None:
        console.print(_text(f"[{info.error.name}: {info.error.message}]", style="red"))
    console.print()


def register(app: typer.Typer) -> None:
    """Add ``shellpilot session ...`` to the top-level app."""
    app.add_typer(session_app, name="session")


DEFAULT_LIMIT = 50
"""Sessions ``session list`` shows without ``--limit`` or ``--all``."""


@session_app.command("list")
def list_sessions(
    directory: DirOption = None,
    all_sessions: Annotated[
        bool,
        typer.Option(
            "--all", "-a", help="Every session of every project, subtask sessions included, no default limit."
        ),
    ] = False,
    limit: Annotated[
        int | None,
        typer.Option("--limit", "-n", min=1, help=f"Show the N most recent (default {DEFAULT_LIMIT})."),
    ] = None,
    data_dir: DataDirOption = None,
) -> None:
    """List this project's sessions, most recent first: id, title, updated, messages, and
    how many subtask (child) sessions each started; the 50 most recent unless --limit says
    otherwise. --all lists every session, with no limit unless --limit is given."""
    from rich.table import Table

    from shellpilot.cli.context import open_context

    with open_context(directory=directory, data_dir=data_dir, reading=True) as ctx:
        project = None if all_sessions else ctx.project_dir
        cap = limit if limit is not None else (None if all_sessions else DEFAULT_LIMIT)
        rows = ctx.sessions.list(project, top_level=not all_sessions, limit=cap)
        console = _console()
        if not rows:
            where = "any project" if all_sessions else str(ctx.project_dir)
            console.print(_text(f"No sessions for {where}."))
            return
        # Every cell is a Text: titles (model-written too) and paths are never read as markup.
        # Not a terminal: plain aligned columns, one line per session (for grep and cut).
        if sys.stdout.isatty():
            table = Table(title=None if all_sessions else _text(str(ctx.project_dir)))
        else:
            table = Table(box=None, pad_edge=False, header_style="")
        for name in ("id", "title", "updated", "messages", "subtasks"):
            table.add_column(
                name, no_wrap=name == "id", justify="right" if name in ("messages", "subtasks") else "left"
            )
        if all_sessions:
            table.add_column("parent", no_wrap=True)
            table.add_column("project")
        for row in rows:
            s = row.session
            cells = [
                _text(s.id),
                _text(s.title),
                _text(_when(s.updated_ms)),
                _text(str(row.message_count)),
                _text(str(row.child_count)),
            ]
            if all_sessions:
                cells += [_text(s.parent_id or "-"), _text(s.project_dir)]
            table.add_row(*cells)
        console.print(table)
        if cap is not None and len(rows) == cap:
            total = ctx.sessions.count(project, top_level=not all_sessions)
            if total > cap:  # on stderr: a pipe still gets only the table
                sys.stderr.write(
                    f"Showing the {cap} most recent of {total} sessions; use --limit N or --all.\n"
                )


@session_app.command("show")
def show_session(
    session_id: Annotated[str, typer.Argument(help="The session id (ses_...).")],
    data_dir: DataDirOption = None,
) -> None:
    """Show a session's conversation, tool calls with their output as stored (read and
    printed a message at a time, so a session of any length prints in flat memory)."""
    from shellpilot.cli.context import open_context

    with open_context(data_dir=data_dir, reading=True) as ctx:
        session = ctx.sessions.get(session_id)
        console = _console()
        console.print(_text(f"{session.title}  ({session.id})", style="bold"))
        console.print(_text(f"{session.project_dir} · updated {_when(session.updated_ms)}", style="dim"))
        console.print()
        for item in ctx.sessions.iter_messages(session_id):
            _render_message(console, item)


@session_app.command("export")
def export_session(
    session_id: Annotated[str, typer.Argument(help="The session id (ses_...).")],
    data_dir: DataDirOption = None,
) -> None:
    """Print a session and all its messages and parts as JSON (written as it is read, so a
    session of any length exports in flat memory)."""
    from shellpilot.cli.context import open_context
    from shellpilot.storage.export import write_export

    with open_context(data_dir=data_dir, reading=True) as ctx:
        session = ctx.sessions.get(session_id)
        write_export(session, ctx.sessions.iter_messages(session_id), sys.stdout.write)
        sys.stdout.write("\n")


@session_app.command("delete")
def delete_session(
    session_id: Annotated[str, typer.Argument(help="The session id (ses_...).")],
    data_dir: DataDirOption = None,
) -> None:
    """Delete a session with its messages, parts and child sessions."""
    from shellpilot.cli.context import open_context

    with open_context(data_dir=data_dir) as ctx:
        ctx.sessions.delete(session_id)
        sys.stdout.write(f"Deleted {session_id}\n")
