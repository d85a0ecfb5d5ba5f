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
    """

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self.wrote_anything = False
        self.ends_with_newline = True
        self.closed = False
        self.skips = 0
        self._printed = ""  # the tail of what was printed (complete lines until finish)
        self._whole = True  # every preview so far held the output from its very start
        self._offset = 0  # while whole: characters of the output already printed
        self._marked = False  # the last thing printed was a skip marker

    def preview(self, text: str) -> None:
        """Take a live preview; print the complete lines it adds."""
        self._emit(*self._new_text(text, final=False))

    def finish(self, text: str) -> None:
        """Take the final preview; print what it adds, its last line even without a newline."""
        self._emit(*self._new_text(text, final=True))

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

    def _emit(self, marker: str, output: str) -> None:
        text = marker + output
        if not text or self.closed:
            return
        try:
            self._out.write(text)
            self._out.flush()
        except OSError:
            self.closed = True
            return
        self.wrote_anything = True
        self.ends_with_newline = text.endswith("\n")
        if output:
            self._printed = (self._printed + output)[-_KEEP:]
        self._marked = bool(marker) and not output


__all__ = ["CUT_PREFIX", "SKIPPED", "PreviewEcho"]
