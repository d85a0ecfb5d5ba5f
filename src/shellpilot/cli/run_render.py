"""What ``shellpilot run`` shows while a turn runs: text, tool calls, their live output.

Owns: rendering bus events as terminal text (answer text on stdout; tool calls, their
output and notices on stderr) or as JSON lines (``--format json``). Must not touch:
behaviour; it only reads events and writes to the streams it is given.
"""

from __future__ import annotations

import json
import os
import shutil
from typing import Any, TextIO, cast

from shellpilot.bus import Event
from shellpilot.cli.preview_echo import ERASE_LINE, PreviewEcho
from shellpilot.cli.render import printable

_DIM, _RED, _RESET = "\x1b[2m", "\x1b[31m", "\x1b[0m"


def _summary(tool: str, data: dict[str, Any]) -> str:
    """One line naming a tool call: ``$ command`` for bash, ``⚙ agent: description`` for a
    task, ``⚙ tool: arguments`` otherwise (cut to 100 characters). Made ``printable``: an
    escape sequence in a model's command shows as ``␛[...`` and never reaches the terminal."""
    if tool == "bash":
        return printable(f"$ {data.get('command', '')}")
    if tool == "task":
        head, value = f"⚙ {data.get('subagent_type', 'task')}", data.get("description") or data.get("prompt")
    else:
        head, value = f"⚙ {tool}", json.dumps(data, ensure_ascii=False)
    line = " ".join(str(value).split())
    return printable(f"{head}: {line if len(line) <= 100 else line[:97] + '...'}")


class TextRenderer:
    """Streams a turn as a person reads it.

    The main session's assistant text goes to ``out`` as it streams; each tool call gets a
    header line on ``err`` (``$ command`` for bash), its live output (``PreviewEcho``:
    complete lines, a marker where the throttled window skipped output, and with ``live``,
    for a terminal, the unfinished last line redrawn in place, so a ``\r`` progress bar
    shows its latest state), and a status line when it ends. Child sessions (subtasks)
    are shown on ``err``, indented with the agent's name.
    """

    def __init__(
        self, session_id: str, out: TextIO, err: TextIO, *, color: bool = False, live: bool = False
    ) -> None:
        self.session_id = session_id
        self._out, self._err, self._color, self._live = out, err, color, live
        self._echoes: dict[str, PreviewEcho] = {}
        self._done: set[str] = set()
        self._text_open = False

    def _style(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self._color else text

    def _line(self, text: str) -> None:
        if self._text_open:
            self._out.write("\n")
            self._out.flush()
            self._text_open = False
        self._err.write(text + "\n")
        self._err.flush()

    def __call__(self, event: Event) -> None:
        """Bus listener: render one event."""
        if event.type == "part.delta":
            if getattr(event, "session_id", None) == self.session_id:
                self._out.write(printable(str(getattr(event, "delta", "")), strip=True))
                self._out.flush()
                self._text_open = True
        elif event.type == "part.updated":
            part = getattr(event, "part", None)
            if part is not None and getattr(part, "type", "") == "tool":
                self._tool(part)

    def _prefix(self, part: Any) -> str:
        return "" if part.session_id == self.session_id else "  │ "

    def _tool(self, part: Any) -> None:
        state = part.state
        key = part.id
        if key in self._done or state.status == "pending":
            return
        prefix = self._prefix(part)
        if key not in self._echoes:
            self._line(self._style(prefix + _summary(part.tool, state.input), _DIM))
            width = _columns(self._err) - len(prefix) if self._live else None
            self._echoes[key] = PreviewEcho(cast(TextIO, _Indented(self._err, prefix)), live_width=width)
        echo = self._echoes[key]
        output = state.metadata.get("output") if part.tool == "bash" else None
        if isinstance(output, str):  # cleaned by the runner already; a stored part may not be
            output = printable(output, strip=True)
        if state.status == "running":
            if isinstance(output, str):
                echo.preview(output)
            return
        self._done.add(key)
        if isinstance(output, str):
            echo.finish(output)
            if echo.wrote_anything and not echo.ends_with_newline:
                self._err.write("\n")
        if state.status == "error":
            self._line(self._style(f"{prefix}✗ {printable(str(state.error))}", _RED))
        elif part.tool == "bash" and state.metadata.get("exit") not in (0, None):
            self._line(self._style(f"{prefix}(exit {state.metadata.get('exit')})", _DIM))

    def close(self) -> None:
        """End the answer with a newline when text was streamed."""
        if self._text_open:
            self._out.write("\n")
            self._out.flush()
            self._text_open = False


def _columns(stream: TextIO) -> int:
    """The width of the terminal ``stream`` writes to; ``shutil``'s guess ($COLUMNS, else 80)
    when it is unknown or reported as 0 (a terminal whose size was never set)."""
    try:
        columns = os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        columns = 0
    return columns if columns > 0 else shutil.get_terminal_size().columns


class _Indented:
    """A text stream that prefixes each line written to ``inner``."""

    def __init__(self, inner: TextIO, prefix: str) -> None:
        self._inner, self._prefix = inner, prefix
        self._at_start = True

    def write(self, text: str) -> int:
        if text.startswith(ERASE_LINE):  # the line is cleared: what follows starts it again
            self._inner.write(ERASE_LINE)
            self._at_start = True
            return len(ERASE_LINE) + self.write(text[len(ERASE_LINE) :])
        if self._prefix:
            lines = text.splitlines(keepends=True)
            text = "".join((self._prefix if i or self._at_start else "") + ln for i, ln in enumerate(lines))
            if lines:
                self._at_start = lines[-1].endswith("\n")
        self._inner.write(text)
        return len(text)

    def flush(self) -> None:
        self._inner.flush()


class JsonRenderer:
    """``--format json``: every bus event as one JSON object per line on ``out``."""

    def __init__(self, out: TextIO) -> None:
        self._out = out

    def __call__(self, event: Event) -> None:
        """Bus listener: write ``event`` as a JSON line."""
        self.emit(event.model_dump(mode="json"))

    def emit(self, payload: dict[str, Any]) -> None:
        """Write one JSON object as a line."""
        self._out.write(json.dumps(payload, ensure_ascii=False) + "\n")
        self._out.flush()
