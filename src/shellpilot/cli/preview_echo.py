"""Live echo of a tool call's output from throttled preview windows (``shellpilot run``).

Owns: turning successive previews (each the LATEST ~30,000 characters of the output) into
appended terminal lines, with a visible marker where output was skipped. Must not touch:
processes or the runner; it only writes to the text stream it is given.
"""

from __future__ import annotations

from typing import TextIO

from shellpilot.process.text import CUT_PREFIX

SKIPPED = "[... lines skipped: the live view shows only the latest output ...]\n"
"""Written where output came and went between two previews (the full output is in the
tool result and, when truncated, in its output file)."""
ERASE_LINE = "\r\x1b[K"
"""Back to the start of the line and clear it: how a shown unfinished line is redrawn."""
_ANCHOR_LINES = 3
_KEEP = 65_536


class PreviewEcho:
    """Appends a running command's output to ``out`` from its live previews.

    A preview is a window of the latest output, not a stream: ``preview(text)`` prints
    the complete lines it adds after what was printed (found by the last printed lines);
    a preview was cut exactly when it starts with ``CUT_PREFIX`` (``shell.text.preview_text``
    marks every window that no longer holds the output from its start). When the window
    slid past output between two previews, or the first window was already cut, it
    prints ``SKIPPED`` and drops the window's first line (whole unless one line fills the
    window), so no fragment is ever printed as a whole line. ``finish(text)`` does the
    same with the final preview and also prints its last line without a newline.

    ``live_width`` (a terminal's columns; None for a pipe or file): the unfinished last
    line of each preview (a ``\r`` progress bar shows its latest state there) is drawn too,
    its last ``live_width - 1`` characters, and redrawn in place (``ERASE_LINE``) by the
    next preview, so progress shows live at the previews' pace (the runner's throttle).
    """

    def __init__(self, out: TextIO, *, live_width: int | None = None) -> None:
        self._out = out
        self._live_width = live_width
        self._partial = ""  # the unfinished line drawn on screen (not part of _printed)
        self.wrote_anything = False
        self.ends_with_newline = True
        self.closed = False
        self.skips = 0
        self._printed = ""  # the tail of what was printed (complete lines until finish)
        self._whole = True  # every preview so far held the output from its very start
        self._offset = 0  # while whole: characters of the output already printed
        self._marked = False  # the last thing printed was a skip marker

    def preview(self, text: str) -> None:
        """Take a live preview; print the complete lines it adds (and, live, its unfinished one)."""
        partial = self._unfinished(text) if self._live_width else ""
        self._take(text, final=False, partial=partial)

    def finish(self, text: str) -> None:
        """Take the final preview; print what it adds, its last line even without a newline."""
        self._take(text, final=True, partial="")

    def _take(self, text: str, *, final: bool, partial: str) -> None:
        drawn, was_at_start = self._partial, self.ends_with_newline
        if drawn:
            self.ends_with_newline = True  # it is erased before anything else is written
        marker, output = self._new_text(text, final=final)
        if not marker and not output and partial == drawn:
            self.ends_with_newline = was_at_start  # nothing changes on screen
            return
        self._partial = ""
        self._emit(marker, output, erase=bool(drawn))
        self._show_partial(partial)

    def _unfinished(self, text: str) -> str:
        body = text[len(CUT_PREFIX) :] if text.startswith(CUT_PREFIX) else text
        line = body[body.rfind("\n") + 1 :]
        width = max(1, (self._live_width or 1) - 1)
        return line[-width:]

    def _show_partial(self, partial: str) -> None:
        if not partial or self.closed:
            return
        try:
            self._out.write(partial)
            self._out.flush()
        except OSError:
            self.closed = True
            return
        self._partial = partial
        self.wrote_anything = True
        self.ends_with_newline = False

    def _new_text(self, text: str, *, final: bool) -> tuple[str, str]:
        """``(marker, output)`` to print: the marker is empty unless output was skipped."""
        cut = text.startswith(CUT_PREFIX)
        body = text[len(CUT_PREFIX) :] if cut else text
        if not final:
            body = body[: body.rfind("\n") + 1]
        if self._whole and not cut:
            new = body[self._offset :] if len(body) >= self._offset else ""
            self._offset = max(self._offset, len(body))
            return "", new
        self._whole = False
        if self._printed:
            anchor = "".join(self._printed.splitlines(keepends=True)[-_ANCHOR_LINES:])
            at = body.rfind(anchor)
            if at == 0 or (at > 0 and body[at - 1] == "\n"):
                return "", body[at + len(anchor) :]
        first_newline = body.find("\n")
        rest = body[first_newline + 1 :] if first_newline >= 0 else ""
        if self._marked:  # nothing printed since the last marker: one marker is enough
            return "", rest
        self.skips += 1
        return ("" if self.ends_with_newline else "\n") + SKIPPED, rest

    def _emit(self, marker: str, output: str, *, erase: bool = False) -> None:
        text = marker + output
        if self.closed or not (text or erase):
            return
        try:
            self._out.write((ERASE_LINE if erase else "") + text)
            self._out.flush()
        except OSError:
            self.closed = True
            return
        if not text:
            return  # only the drawn unfinished line was cleared
        self.wrote_anything = True
        self.ends_with_newline = text.endswith("\n")
        if output:
            self._printed = (self._printed + output)[-_KEEP:]
        self._marked = bool(marker) and not output


__all__ = ["CUT_PREFIX", "ERASE_LINE", "SKIPPED", "PreviewEcho"]
