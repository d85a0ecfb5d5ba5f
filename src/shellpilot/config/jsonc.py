"""Reading a config file's text and parsing it as JSON with comments (JSONC), errors placed.

Owns: bytes -> text (strict UTF-8) -> data, and turning every failure into a ConfigError with
the file, line and column. Must not touch: merging, validation or precedence (config/load.py).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from shellpilot.errors import ConfigError

MAX_DEPTH = 64
"""Deepest nesting of objects and arrays a config file may have; real configs use under 10."""

_NEAR = re.compile(r"\s*near (\d+)")
_BYTES_NAME = re.compile(r"b'([^']*)'")
_CODE_POINT = re.compile(r"U\+([0-9A-Fa-f]{4,6})")


def _line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of ``text[offset]``."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    return line, offset - text.rfind("\n", 0, offset)


def _char(match: re.Match[str]) -> str:
    ch = chr(int(match.group(1), 16))
    return repr(ch) if ch.isprintable() and not ch.isspace() else f"U+{match.group(1).upper()}"


def _reason(message: str) -> str:
    """The parser's message in plain words: ``Expected b'comma' or U+007d near 9, found U+0022``
    -> ``expected comma or '}', found '"'`` (the position is reported separately)."""
    text = _NEAR.sub("", message)
    text = _BYTES_NAME.sub(lambda m: m.group(1), text)
    text = _CODE_POINT.sub(_char, text)
    text = text.replace("NumericLiteral", "number").replace("JSON5Value", "a value")
    return text[:1].lower() + text[1:]


def parse_jsonc(text: str, *, path: str | None = None) -> Any:
    """Parse JSON that may hold ``//`` and ``/* */`` comments and trailing commas.

    The parser is JSON5's (pyjson5), so single quotes, unquoted keys and hex numbers are
    accepted too. Objects and arrays may nest ``MAX_DEPTH`` (64) levels. Raises ConfigError
    with ``path``, the 1-based ``line`` and the column of the error in the original text
    (comments count, so the place is where an editor shows it).
    """
    import pyjson5

    try:
        return pyjson5.decode(text, maxdepth=MAX_DEPTH)
    except pyjson5.Json5Exception as exc:
        message = str(getattr(exc, "message", None) or exc)
        reason = _reason(message)
        if isinstance(exc, pyjson5.Json5NestingTooDeep):
            reason = (
                f"objects and arrays nested deeper than {MAX_DEPTH} levels; "
                "a config needs only a few, so flatten it"
            )
        if not _has_content(text):
            reason = "the file is empty (or only comments); an empty config is `{}`"
        near = _NEAR.search(message)
        line: int | None = None
        where = ""
        if near is not None:
            line, column = _line_col(text, int(near.group(1)) - 1)
            where = f" (column {column})"
        raise ConfigError(f"invalid JSON: {reason}{where}", path=path, line=line) from None


def _has_content(text: str) -> bool:
    """Whether ``text`` holds anything but whitespace and ``//`` or ``/* */`` comments."""
    rest = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)
    return bool(rest.strip())


def decode_utf8(raw: bytes, *, path: str | None = None, what: str = "the file") -> str:
    """``raw`` as UTF-8 text (a leading BOM is dropped); ConfigError naming the line and column
    of the first byte that is not UTF-8, and how to fix it."""
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1 :].decode("utf-8-sig", errors="replace")) + 1
        bad = raw[exc.start : exc.start + 1].hex()
        raise ConfigError(
            f"{what} is not valid UTF-8 (byte 0x{bad} at column {column}); save it as UTF-8 "
            "(non-ASCII text is fine, stray bytes are not)",
            path=path,
            line=line,
        ) from None


def read_jsonc(path: Path) -> tuple[str, Any]:
    """Read and parse one config file: its text and data.

    Raises ConfigError naming the file (and line, when one is known) when it cannot be
    read, is not UTF-8, or is not valid JSONC.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", path=str(path)) from None
    text = decode_utf8(raw, path=str(path))
    return text, parse_jsonc(text, path=str(path))


__all__ = ["MAX_DEPTH", "decode_utf8", "parse_jsonc", "read_jsonc"]
