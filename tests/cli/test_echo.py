"""LiveEcho: raw chunks verbatim, previews turned into appended complete lines."""

from __future__ import annotations

import io

from shellpilot.cli.echo import CUT_PREFIX, GAP, LiveEcho


def _echo() -> tuple[LiveEcho, io.StringIO, io.BytesIO]:
    text, raw = io.StringIO(), io.BytesIO()
    return LiveEcho(text, raw), text, raw


def test_growing_previews_print_each_complete_line_once() -> None:
    echo, out, _ = _echo()
    echo.preview("a\nb")
    echo.preview("a\nb\nc\n")
    echo.preview("a\nb\nc\nprogress 50%")
    assert out.getvalue() == "a\nb\nc\n"
    echo.finish("a\nb\nc\nprogress 100%")
    assert out.getvalue() == "a\nb\nc\nprogress 100%"
    assert not echo.ends_with_newline


def test_sliding_window_continues_after_the_last_printed_lines() -> None:
    echo, out, _ = _echo()
    lines = [f"line {i}\n" for i in range(100)]
    echo.preview("".join(lines[:10]))
    echo.preview(CUT_PREFIX + "ne 5\n" + "".join(lines[6:20]))
    assert out.getvalue() == "".join(lines[:20])
    echo.preview(CUT_PREFIX + "".join(lines[17:30]))  # the window starts at a line boundary
    assert out.getvalue() == "".join(lines[:30])
    echo.preview(CUT_PREFIX + "".join(lines[50:60]))  # lines 30..49 came and went unseen
    assert out.getvalue() == "".join(lines[:30]) + GAP + "".join(lines[51:60])


def test_raw_chunks_win_over_previews() -> None:
    echo, out, raw = _echo()
    echo.data(b"\x1b[31mred\x1b[0m\r\n")
    echo.preview("red\n")
    echo.finish("red\n")
    assert raw.getvalue() == b"\x1b[31mred\x1b[0m\r\n"
    assert out.getvalue() == ""
    assert echo.ends_with_newline


class _GonePipe(io.BytesIO):
    def write(self, data: bytes) -> int:  # type: ignore[override]
        raise BrokenPipeError(32, "Broken pipe")


def test_a_reader_that_goes_away_stops_the_echo_not_the_command() -> None:
    text = io.StringIO()
    echo = LiveEcho(text, _GonePipe())
    echo.data(b"first\n")
    echo.data(b"second\n")
    assert echo.closed and not echo.wrote_anything
