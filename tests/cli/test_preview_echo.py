"""The live window echo of ``shellpilot run``: real runner previews and hand-made windows."""

from __future__ import annotations

import io
import itertools
import re
from pathlib import Path

from shellpilot.cli.preview_echo import SKIPPED, PreviewEcho
from shellpilot.process.output import OutputBuffer, OutputLimits
from shellpilot.process.text import CUT_PREFIX, PREVIEW_CHARS, preview_text


def _window(lines: range, size: int = PREVIEW_CHARS) -> str:
    """What the runner previews after ``lines`` were printed (its buffer, never spilling)."""
    buffer = OutputBuffer(OutputLimits(10**7, 10**8), Path("unused-spill"), preview_bytes=size)
    buffer.feed("".join(f"{n}\n" for n in lines).encode())
    data, cut = buffer.latest_lines(size)
    buffer.close()
    return preview_text(data, size, cut=cut)


def _check_numbers(printed: str) -> list[int]:
    """Every printed line is a whole number, ascending; markers stand between gaps."""
    numbers: list[int] = []
    for line in printed.splitlines():
        if line == SKIPPED.strip():
            numbers.append(-1)
            continue
        assert re.fullmatch(r"\d+", line), f"fragment printed as a line: {line!r}"
        numbers.append(int(line))
    values = [n for n in numbers if n >= 0]
    assert values == sorted(values) and len(set(values)) == len(values)
    for before, after in itertools.pairwise(numbers):
        if before >= 0 and after >= 0:
            assert after == before + 1, f"skipped {before}..{after} without a marker"
    return numbers


def test_small_output_streams_without_markers() -> None:
    out = io.StringIO()
    echo = PreviewEcho(out)
    echo.preview("1\n2\npar")
    echo.preview("1\n2\npartial 3\n4\n")
    echo.finish("1\n2\npartial 3\n4\nlast")
    assert out.getvalue() == "1\n2\npartial 3\n4\nlast" and echo.skips == 0


def test_a_first_window_already_cut_is_marked_and_its_fragment_dropped() -> None:
    out = io.StringIO()
    echo = PreviewEcho(out)
    preview = _window(range(1, 10_000))  # the runner cut it: marked, then a whole line
    assert preview.startswith(CUT_PREFIX)
    first, second = preview.removeprefix(CUT_PREFIX).split("\n")[:2]
    assert int(second) == int(first) + 1
    echo.preview(preview)
    printed = out.getvalue()
    assert printed.startswith(SKIPPED)
    numbers = _check_numbers(printed)
    assert numbers[0] == -1 and numbers[-1] == 9_999


def test_sliding_windows_mark_each_gap_and_continue_contiguous_ones() -> None:
    out = io.StringIO()
    echo = PreviewEcho(out)
    echo.preview(_window(range(1, 100)))  # whole
    echo.preview(_window(range(1, 3_000)))  # overlaps what was printed: contiguous
    echo.preview(_window(range(1, 50_000)))  # slid far: a gap
    echo.finish(_window(range(1, 50_001)))
    numbers = _check_numbers(out.getvalue())
    assert numbers[:99] == list(range(1, 100)) and numbers.count(-1) == 1 and numbers[-1] == 50_000
    assert echo.skips == 1


async def test_real_runner_previews_of_seq_200000(tmp_path: Path) -> None:
    """The reported case: a bash call printing 200,000 lines, previews as the tool gets them."""
    from shellpilot.process.runner import run

    previews: list[str] = []
    result = await run("seq 1 200000", cwd=tmp_path, on_output=previews.append, output_dir=tmp_path)
    assert result.exit_code == 0
    out = io.StringIO()
    echo = PreviewEcho(out)
    for preview in previews[:-1]:
        echo.preview(preview)
    echo.finish(previews[-1] if previews else result.preview)
    numbers = _check_numbers(out.getvalue())
    assert numbers[-1] == 200_000
    assert numbers[0] in (1, -1)  # starts at the beginning, or says it skipped


def test_live_echo_shows_an_unfinished_line_and_redraws_it_in_place() -> None:
    from shellpilot.cli.preview_echo import ERASE_LINE

    out = io.StringIO()
    echo = PreviewEcho(out, live_width=40)
    echo.preview("downloading 10%")  # a \r progress bar's latest state, no newline yet
    assert out.getvalue() == "downloading 10%"
    echo.preview("downloading 10%")  # nothing new: nothing written
    echo.preview("downloading 60%")
    assert out.getvalue() == "downloading 10%" + ERASE_LINE + "downloading 60%"
    echo.preview("downloading 100%\nunpacking")
    echo.finish("downloading 100%\nunpacking\ndone")
    screen = out.getvalue()
    assert screen.endswith(ERASE_LINE + "downloading 100%\n" + "unpacking" + ERASE_LINE + "unpacking\ndone")
    # what a terminal shows: each ERASE_LINE clears the line drawn before it
    lines = [part.rsplit(ERASE_LINE, 1)[-1] for part in screen.split("\n")]
    assert lines == ["downloading 100%", "unpacking", "done"]


def test_live_echo_keeps_only_the_end_of_a_line_wider_than_the_terminal() -> None:
    out = io.StringIO()
    echo = PreviewEcho(out, live_width=11)
    echo.preview("x" * 50 + "[#####] 42%")
    assert out.getvalue() == "#####] 42%"  # 10 characters: the line never wraps


def test_without_a_terminal_only_complete_lines_are_printed() -> None:
    out = io.StringIO()
    echo = PreviewEcho(out)
    echo.preview("downloading 10%")
    assert out.getvalue() == ""
    echo.finish("downloading 100%")
    assert out.getvalue() == "downloading 100%"
