"""Turning raw command bytes into text a model (or a live view) can read.

Owns: UTF-8 decoding with replacement, ANSI/OSC stripping, carriage-return overwrites,
long-line clipping, and the throttled live preview. Must not touch: processes, files.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

MAX_LINE_CHARS = 2_000
"""A line longer than this is clipped (its start and its end stay visible)."""
PREVIEW_CHARS = 30_000
"""The live preview shows at most this many of the latest characters."""
CUT_PREFIX = "...\n\n"
"""How a live preview starts when output before it was left out; the line
after it is whole (see ``preview_text``)."""
PREVIEW_INTERVAL_S = 0.1
"""At most one preview call per this many seconds (a final call always follows)."""

# CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), DCS/SOS/PM/APC strings, other 2-byte escapes,
# and 8-bit CSI. Order matters: string-type sequences before the generic 2-byte form.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[PX^_][^\x1b]*(?:\x1b\\)?"
    r"|\x1b[ -/]*[0-~]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)
# C0 controls other than tab, newline and carriage return (handled separately), plus DEL
# and any ESC left over from a malformed sequence.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_REPLACEMENT = "\ufffd"


class _Cancellable(Protocol):
    """What ``schedule`` returns (``asyncio.TimerHandle`` fits)."""

    def cancel(self) -> None: ...


@dataclass(frozen=True)
class CleanText:
    """Cleaned text plus what the cleaning found.

    ``invalid_bytes`` is roughly how many bytes were not valid UTF-8 (each shown as U+FFFD);
    ``binary`` is True when the bytes look like binary data (NUL bytes or mostly invalid).
    """

    text: str
    invalid_bytes: int
    binary: bool
    clipped_lines: int


def overwrite_carriage_returns(line: str) -> str:
    """The last state of a line redrawn with ``\r`` (progress bars): its last non-empty
    ``\r``-separated segment, so ``"10%\r50%\r100%"`` -> ``"100%"``. A trailing ``\r``
    (CRLF line endings) changes nothing. Shorter redraws do not keep stale characters
    of earlier states (a terminal would), which reads better for a model.
    """
    if "\r" not in line:
        return line
    for segment in reversed(line.split("\r")):
        if segment:
            return segment
    return ""


def clip_line(line: str, limit: int = MAX_LINE_CHARS) -> str:
    """``line`` unchanged when <= ``limit`` chars; else its first and last ``limit // 2``
    chars around ``[... N chars clipped]`` so both ends stay visible.
    """
    if len(line) <= limit:
        return line
    keep = limit // 2
    return f"{line[:keep]}[... {len(line) - 2 * keep} chars clipped]{line[len(line) - keep :]}"


def strip_ansi(text: str) -> str:
    """``text`` without ANSI CSI/OSC escape sequences (colours, cursor moves, titles)."""
    return _ANSI.sub("", text) if ("\x1b" in text or "\x9b" in text) else text


def decode(data: bytes) -> tuple[str, int]:
    """UTF-8 decode with replacement; returns ``(text, invalid byte estimate)``."""
    try:
        return data.decode("utf-8"), 0
    except UnicodeDecodeError:
        text = data.decode("utf-8", errors="replace")
        return text, max(1, text.count(_REPLACEMENT) - data.count(_REPLACEMENT.encode()))


def clean(data: bytes, *, max_line_chars: int = MAX_LINE_CHARS) -> CleanText:
    """Model-facing text of raw output bytes.

    Decodes as UTF-8 with replacement, strips ANSI escapes, applies ``\\r`` overwrites per
    line, replaces NUL and other control characters with U+FFFD or drops them, clips lines
    longer than ``max_line_chars``. Line breaks become ``\\n``. Pure; never raises.
    """
    text, invalid = decode(data)
    nul = data.count(b"\x00")
    binary = nul > 0 or (invalid > 32 and invalid * 4 > len(data))
    text = strip_ansi(text)
    if nul:
        text = text.replace("\x00", _REPLACEMENT)
    lines = text.split("\n")
    clipped = 0
    for index, line in enumerate(lines):
        if "\r" in line:
            line = overwrite_carriage_returns(line)
        if len(line) > max_line_chars:
            line = clip_line(line, max_line_chars)
            clipped += 1
        lines[index] = line
    text = "\n".join(lines)
    if _CONTROLS.search(text):
        text = _CONTROLS.sub("", text)
    return CleanText(text, invalid, binary, clipped)


def preview_text(data: bytes, max_chars: int = PREVIEW_CHARS, *, cut: bool = False) -> str:
    """A live-preview string of the latest output bytes: cleaned, at most ``max_chars``
    characters after a ``...\\n\\n`` (``CUT_PREFIX``) that starts it when it is cut
    (the tool part's ``metadata.output``). ``cut`` says earlier output was already left out of
    ``data`` (``OutputBuffer.latest_lines``, which then starts at a line start). When this
    function cuts too, it drops the partial first line, unless the text has no line
    break after which anything follows. So a cut preview never starts mid-line unless a
    single line fills the whole window.
    """
    text = clean(data).text
    if len(text) > max_chars:
        text = text[len(text) - max_chars :]
        newline = text.find("\n")
        if 0 <= newline < len(text) - 1:
            text = text[newline + 1 :]
    elif not cut:
        return text
    return CUT_PREFIX + text


class LivePreview:
    """Throttles preview updates: ``poke()`` on new data, ``finish()`` once at the end.

    ``source()`` returns ``(latest output bytes, cut)`` (``OutputBuffer.latest_lines``:
    ``cut`` when earlier output was left out); ``emit(preview)`` receives ``preview_text``.
    At most one emit per ``interval_s`` while data flows (a timer covers the trailing
    edge), and ``finish()`` always emits the final state.
    ``schedule(delay, fn)`` is the event loop's ``call_later`` (returns a handle with cancel()).
    """

    def __init__(
        self,
        source: Callable[[], tuple[bytes, bool]],
        emit: Callable[[str], None],
        schedule: Callable[[float, Callable[[], None]], _Cancellable],
        *,
        interval_s: float = PREVIEW_INTERVAL_S,
        max_chars: int = PREVIEW_CHARS,
    ) -> None:
        self._source = source
        self._emit = emit
        self._schedule = schedule
        self._interval = interval_s
        self._max_chars = max_chars
        self._last = 0.0
        self._timer: _Cancellable | None = None
        self._dirty = False
        self.last_text = ""
        self.calls = 0

    def poke(self) -> None:
        """New data arrived: emit now if the interval has passed, else arm one timer."""
        self._dirty = True
        if self._timer is not None:
            return
        wait = self._last + self._interval - time.monotonic()
        if wait <= 0:
            self._fire()
        else:
            self._timer = self._schedule(wait, self._fire)

    def _fire(self) -> None:
        self._timer = None
        if not self._dirty:
            return
        self._dirty = False
        self._last = time.monotonic()
        data, cut = self._source()
        self.last_text = preview_text(data, self._max_chars, cut=cut)
        self.calls += 1
        self._emit(self.last_text)

    def finish(self) -> str:
        """Cancel any pending timer and emit the final preview (always); returns it."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._dirty = True
        self._fire()
        return self.last_text
