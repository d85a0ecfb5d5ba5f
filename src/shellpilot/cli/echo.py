"""Live terminal echo of a running command: raw bytes when the runner gives them, else previews.

Owns: turning the stream (or the throttled previews) into text appended to the terminal.
Must not touch: processes, the store; it only writes to the file objects it is given.
"""

from __future__ import annotations

from typing import BinaryIO, TextIO

from shellpilot.process.text import CUT_PREFIX

GAP = "[...]\n"
"""Written where previews skipped output that came and went between two updates."""
_KEEP = 65_536
_ANCHOR_LINES = 3


class LiveEcho:
    """Appends a command's output to a terminal as it arrives.

    ``data(chunk)`` writes raw bytes verbatim (and from then on previews are ignored).
    ``preview(text)`` is the fallback: each preview holds the latest <= 30,000 cleaned
    characters, starting with ``CUT_PREFIX`` exactly when earlier output was left out
    (``shell.text.preview_text``), so only complete lines not printed yet are written;
    where the window slid past lines between two previews, ``[...]`` marks the gap and
    the window's first line is dropped (a window that is one single line still starts
    mid-line). ``finish(final)`` writes what is left, including a last line without a newline.
    ``raw=True`` promises raw chunks (the runner's ``on_data`` always delivers them): previews
    and ``finish`` then write nothing, so a command that prints nothing leaves the terminal
    empty instead of showing the model's ``(no output)`` and notes.
    """

    def __init__(self, text_out: TextIO, raw_out: BinaryIO | None = None, *, raw: bool = False) -> None:
        self._text = text_out
        self._raw = raw_out
        self.raw_mode = raw
        self.ends_with_newline = True
        self.wrote_anything = False
        self.closed = False
        self._printed = ""

    def data(self, chunk: bytes) -> None:
        """Write a raw output chunk as is."""
        self.raw_mode = True
        if not chunk or self.closed:
            return
        try:
            if self._raw is not None:
                self._raw.write(chunk)
                self._raw.flush()
            else:
                self._text.write(chunk.decode("utf-8", "replace"))
                self._text.flush()
        except OSError:
            self.closed = True
            return
        self.wrote_anything = True
        self.ends_with_newline = chunk.endswith(b"\n")

    def preview(self, text: str) -> None:
        """Take a live preview; writes the complete lines it adds."""
        if not self.raw_mode:
            self._emit(self._new_text(text, final=False))

    def finish(self, final_preview: str) -> None:
        """Write whatever the last preview adds (its last line even without a newline)."""
        if not self.raw_mode:
            self._emit(self._new_text(final_preview, final=True))

    def _emit(self, text: str) -> None:
        if not text or self.closed:
            return
        try:
            self._text.write(text)
            self._text.flush()
        except OSError:
            self.closed = True
            return
        self.wrote_anything = True
        self.ends_with_newline = text.endswith("\n")
        self._printed = (self._printed + text)[-_KEEP:]

    def _new_text(self, preview: str, *, final: bool) -> str:
        cut = preview.startswith(CUT_PREFIX)
        body = preview[len(CUT_PREFIX) :] if cut else preview
        if not final:
            body = body[: body.rfind("\n") + 1]
        if not cut and body.startswith(self._printed):
            return body[len(self._printed) :]
        if self._printed:
            lines = self._printed.splitlines(keepends=True)
            anchor = "".join(lines[-_ANCHOR_LINES:])
            at = body.rfind(anchor)
            if at >= 0:
                return body[at + len(anchor) :]
        if cut and "\n" in body:
            body = body[body.index("\n") + 1 :]  # a one-line window starts mid-line
        return GAP + body


__all__ = ["CUT_PREFIX", "GAP", "LiveEcho"]
