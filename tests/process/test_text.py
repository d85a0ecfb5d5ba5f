"""Text cleaning for the model and the throttled live preview (pure functions, a real loop)."""

from __future__ import annotations

import asyncio

import pytest

from shellpilot.process.text import (
    LivePreview,
    clean,
    clip_line,
    overwrite_carriage_returns,
    preview_text,
    strip_ansi,
)


@pytest.mark.parametrize(
    ("line", "shown"),
    [
        ("plain", "plain"),
        ("10%\r50%\r100%", "100%"),
        ("[##   ]\r[#####]", "[#####]"),
        ("windows line\r", "windows line"),
        ("downloading 10%\rdone", "done"),
        ("\r\r", ""),
    ],
)
def test_carriage_return_overwrites(line: str, shown: str) -> None:
    assert overwrite_carriage_returns(line) == shown


@pytest.mark.parametrize(
    ("text", "stripped"),
    [
        ("\x1b[1;31mred\x1b[0m", "red"),
        ("\x1b]0;window title\x07after", "after"),
        ("\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", "link"),
        ("\x1b[2K\x1b[1Gline", "line"),
        ("\x1b(Bascii", "ascii"),
        ("no escapes", "no escapes"),
    ],
)
def test_strip_ansi(text: str, stripped: str) -> None:
    assert strip_ansi(text) == stripped


def test_clip_line_keeps_both_ends() -> None:
    line = "S" + "x" * 4_998 + "E"
    clipped = clip_line(line, 2_000)
    assert clipped.startswith("S") and clipped.endswith("E")
    assert "[... 3000 chars clipped]" in clipped
    assert clip_line("short", 2_000) == "short"
    assert clip_line("y" * 2_000, 2_000) == "y" * 2_000


def test_clean_reports_invalid_utf8_and_binary() -> None:
    ok = clean("héllo ✓\n".encode())
    assert (ok.text, ok.invalid_bytes, ok.binary) == ("héllo ✓\n", 0, False)
    bad = clean(b"a\xff\xfeb")
    assert bad.text == "a\ufffd\ufffdb" and bad.invalid_bytes == 2 and not bad.binary
    nul = clean(b"a\x00b\x07c")
    assert nul.binary and nul.text == "a\ufffdbc"
    noise = clean(bytes(range(128, 256)) * 4)
    assert noise.binary


def test_clean_combines_the_steps_per_line() -> None:
    raw = b"\x1b[32mok\x1b[0m\r\n" + b"5%\r" + b"99%\r100%\n" + b"z" * 3_000 + b"\n"
    result = clean(raw)
    lines = result.text.split("\n")
    assert lines[0] == "ok" and lines[1] == "100%"
    assert "[... 1000 chars clipped]" in lines[2] and result.clipped_lines == 1


def test_preview_text_keeps_the_latest_characters() -> None:
    assert preview_text(b"short") == "short"
    long = preview_text(b"a" * 50 + b"END", max_chars=10)
    assert long == "...\n\n" + "a" * 7 + "END"
    assert preview_text(b"tail\n", cut=True) == "...\n\ntail\n"  # cut before it: marked
    lines = "".join(f"line {n}\n" for n in range(100)).encode()
    assert preview_text(lines, max_chars=30) == "...\n\nline 97\nline 98\nline 99\n"  # no fragment


async def test_live_preview_throttles_and_always_finishes() -> None:
    loop = asyncio.get_running_loop()
    data = bytearray()
    emitted: list[str] = []
    preview = LivePreview(lambda: (bytes(data), False), emitted.append, loop.call_later, interval_s=0.2)
    for i in range(50):
        data += f"{i}\n".encode()
        preview.poke()
    assert len(emitted) == 1  # the first poke emits at once, the rest wait for the timer
    await asyncio.sleep(0.3)
    assert len(emitted) == 2 and emitted[-1].endswith("49\n")
    data += b"last\n"
    preview.poke()
    assert preview.finish().endswith("last\n")
    assert emitted[-1].endswith("last\n")
    await asyncio.sleep(0.3)
    assert len(emitted) == 3  # the cancelled timer did not fire again
