"""OutputBuffer: limits, head/tail split, exact counts, byte-exact spill, bounded memory."""

from __future__ import annotations

from pathlib import Path

import pytest

from shellpilot.config.model import ToolOutputConfig
from shellpilot.process.output import NO_OUTPUT, BufferState, OutputBuffer, OutputLimits, count_newlines


def feed(buffer: OutputBuffer, data: bytes, chunk: int = 1000) -> None:
    for start in range(0, len(data), chunk):
        buffer.feed(data[start : start + chunk])


def test_limits_from_config_and_budget_split() -> None:
    limits = OutputLimits.from_config(ToolOutputConfig(max_lines=100, max_bytes=1000))
    assert (limits.head_lines, limits.tail_lines, limits.head_bytes, limits.tail_bytes) == (20, 80, 200, 800)
    assert OutputLimits() == OutputLimits(2_000, 51_200)
    with pytest.raises(ValueError):
        OutputLimits(0, 10)


def test_empty_output(tmp_path: Path) -> None:
    buffer = OutputBuffer(OutputLimits(), tmp_path / "x")
    result = buffer.finish()
    assert result.text == NO_OUTPUT and not result.truncated and result.total_lines == 0
    assert buffer.state is BufferState.FINISHED
    with pytest.raises(RuntimeError):
        buffer.feed(b"late")


def test_line_counting(tmp_path: Path) -> None:
    for data, lines in [(b"a", 1), (b"a\n", 1), (b"a\nb", 2), (b"\n\n", 2)]:
        buffer = OutputBuffer(OutputLimits(), tmp_path / "x")
        buffer.feed(data)
        assert buffer.total_lines == lines, data


@pytest.mark.parametrize("chunk", [1, 7, 100, 10_000])
def test_exactly_at_and_one_over_the_limits(tmp_path: Path, chunk: int) -> None:
    limits = OutputLimits(max_lines=10, max_bytes=100)
    at = OutputBuffer(limits, tmp_path / "at")
    feed(at, b"123456789\n" * 10, chunk)
    result = at.finish()
    assert not result.truncated and result.output_path is None and not (tmp_path / "at").exists()
    assert result.text == "123456789\n" * 10
    over = OutputBuffer(limits, tmp_path / "over")
    feed(over, b"123456789\n" * 10 + b"!", chunk)
    result = over.finish()
    assert result.truncated and result.output_path == str(tmp_path / "over")
    assert (tmp_path / "over").read_bytes() == b"123456789\n" * 10 + b"!"
    assert result.total_lines == 11 and result.total_bytes == 101


def test_head_and_tail_with_exact_counts(tmp_path: Path) -> None:
    data = b"".join(b"line %d\n" % i for i in range(1, 5001))
    buffer = OutputBuffer(OutputLimits(), tmp_path / "spill")
    feed(buffer, data, 4096)
    result = buffer.finish()
    shown = result.text.split("\n")
    assert shown[:400] == [f"line {i}" for i in range(1, 401)]
    assert shown[-1601:-1] == [f"line {i}" for i in range(3401, 5001)]
    kept = sum(len(b"line %d\n" % i) for i in [*range(1, 401), *range(3401, 5001)])
    assert (result.omitted_lines, result.omitted_bytes) == (3000, len(data) - kept)
    assert f"[... 3000 of 5000 lines ({len(data) - kept} of {len(data)} bytes) omitted ...]" in result.text
    assert (tmp_path / "spill").read_bytes() == data


def test_byte_budget_with_long_lines(tmp_path: Path) -> None:
    limits = OutputLimits(max_lines=1000, max_bytes=1000)
    data = b"".join(bytes([65 + i % 26]) * 99 + b"\n" for i in range(50))  # 50 lines, 5000 bytes
    buffer = OutputBuffer(limits, tmp_path / "spill")
    feed(buffer, data, 333)
    result = buffer.finish()
    head, tail = result.text.split("[...")
    assert head.split() == ["A" * 99, "B" * 99]  # the 200-byte head budget: 2 whole lines
    tail_lines = tail.split("\n")[4:-1]
    assert tail_lines == [bytes([65 + i % 26]).decode() * 99 for i in range(42, 50)]  # 800 bytes: 8 lines
    assert result.omitted_bytes == 5000 - 200 - 800 and result.omitted_lines == 40


def test_one_huge_line_keeps_its_end_and_utf8_boundaries(tmp_path: Path) -> None:
    data = "é".encode() * 100_000 + b"END_MARKER"
    buffer = OutputBuffer(OutputLimits(), tmp_path / "spill")
    feed(buffer, data, 65_536)
    result = buffer.finish()
    assert result.text.endswith("END_MARKER") and result.truncated
    assert "\ufffd" not in result.text and not result.notes
    assert "bytes omitted from the middle of a line" in result.text
    assert (tmp_path / "spill").read_bytes() == data


def test_memory_is_bounded(tmp_path: Path) -> None:
    limits = OutputLimits(max_lines=100, max_bytes=4096)
    buffer = OutputBuffer(limits, tmp_path / "spill", preview_bytes=1000)
    chunk = b"x" * 99 + b"\n"
    for _ in range(20_000):
        buffer.feed(chunk * 10)
    assert buffer.total_bytes == 20_000_000
    assert len(buffer._head) <= limits.head_bytes
    assert buffer._tail_size <= limits.tail_bytes + 1 + 1000
    assert len(buffer.latest(500)) == 500
    result = buffer.finish()
    assert (tmp_path / "spill").stat().st_size == 20_000_000
    assert result.omitted_lines == 200_000 - 819 // 100 - 3277 // 100  # byte budgets bind first


def test_spill_failure_is_reported_not_raised(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    buffer = OutputBuffer(OutputLimits(max_lines=2, max_bytes=100), blocker / "spill")
    buffer.feed(b"1\n2\n3\n")
    result = buffer.finish()
    assert result.truncated and result.output_path is None
    assert "could not be saved" in result.text


def test_notes_for_invalid_bytes(tmp_path: Path) -> None:
    buffer = OutputBuffer(OutputLimits(), tmp_path / "x")
    buffer.feed(b"bad \xff\n")
    assert "invalid UTF-8" in buffer.finish().notes[0]


@pytest.mark.parametrize("line", [1, 2, 47, 48, 100, 5_000])
@pytest.mark.parametrize("size", [0, 10, 16_383, 16_384, 100_000, 262_144])
def test_count_newlines_is_exact_for_any_density(line: int, size: int) -> None:
    data = ((b"a" * (line - 1) + b"\n") * (size // line + 1))[:size]
    assert count_newlines(data) == data.count(b"\n")


def test_count_newlines_with_sparse_samples_and_dense_rest() -> None:
    data = b"a" * 4096 + b"\n" * 100_000 + b"b" * 4096 + b"\n" * 50_000
    assert count_newlines(data) == 150_000


def test_truncation_note_names_commands_bash_can_run(tmp_path: Path) -> None:
    import re
    import subprocess

    spill = tmp_path / "out dir" / "tool_1"
    data = b"".join(b"line %d\n" % i for i in range(1, 5001))
    buffer = OutputBuffer(OutputLimits(), spill)
    feed(buffer, data, 4096)
    text = buffer.finish().text
    assert "Grep" not in text and "offset/limit" not in text
    assert "needs no external-directory approval" in text
    commands = re.findall(r"`([^`]+)`", text.split("omitted ...]", 1)[1])
    assert [c.split()[0] for c in commands] == ["grep", "sed", "tail"]
    grep = commands[0].replace("PATTERN", "'^line 4321$'")
    sed = commands[1].replace("A,B", "2,3")
    tail = commands[2].replace(" N ", " 1 ")
    run = [
        subprocess.run(["bash", "-c", c], capture_output=True, text=True).stdout for c in (grep, sed, tail)
    ]
    assert run == ["4321:line 4321\n", "line 2\nline 3\n", "line 5000\n"]


def test_latest_lines_marks_a_cut_and_starts_at_a_line(tmp_path: Path) -> None:
    buffer = OutputBuffer(OutputLimits(max_lines=100, max_bytes=4096), tmp_path / "spill", preview_bytes=64)
    buffer.feed(b"one\ntwo\n")
    assert buffer.latest_lines(64) == (b"one\ntwo\n", False)
    for n in range(1, 200_001):
        buffer.feed(f"{n}\n".encode())
    data, cut = buffer.latest_lines(64)
    assert cut and data.endswith(b"\n200000\n") and len(data) <= 64
    first, second = data.split(b"\n")[:2]
    assert int(second) == int(first) + 1  # whole: the cut fell in the line before it
    buffer.feed("é".encode() * 50 + b"x")  # one line longer than the window: cut on a character
    data, cut = buffer.latest_lines(64)
    assert cut and data.decode() == "é" * 31 + "x"
    buffer.feed(b"\n" + b"z" * 64)  # the byte just before the window ends a line: all 64 kept
    assert buffer.latest_lines(64) == (b"z" * 64, True)
    buffer.close()


@pytest.mark.parametrize("chunk", [1, 999, 4096, 100_000])
def test_spill_file_stops_at_the_cap_and_the_marker_says_so(tmp_path: Path, chunk: int) -> None:
    cap = 10_000
    data = b"".join(b"line %d\n" % i for i in range(1, 5001))
    buffer = OutputBuffer(OutputLimits(max_lines=100, max_bytes=1000, max_spill_bytes=cap), tmp_path / "s")
    feed(buffer, data, chunk)
    result = buffer.finish()
    assert (tmp_path / "s").read_bytes() == data[:cap]
    assert result.spill_capped and result.output_path == str(tmp_path / "s")
    assert f"full output file capped at {cap} bytes; the last part of the output is not in it" in result.text
    assert (result.total_bytes, result.total_lines) == (len(data), 5000)
    assert result.text.endswith("line 4999\nline 5000\n")
    shown = result.text.split("\n")
    kept = sum(len(line) + 1 for line in shown[:20] + shown[-81:-1])
    assert (result.omitted_lines, result.omitted_bytes) == (4900, len(data) - kept)


def test_output_of_exactly_the_cap_is_not_capped(tmp_path: Path) -> None:
    data = b"x" * 99 + b"\n"
    for extra, capped in [(b"", False), (b"y", True)]:
        buffer = OutputBuffer(OutputLimits(max_lines=5, max_bytes=10, max_spill_bytes=100), tmp_path / "s")
        feed(buffer, data + extra, 7)
        result = buffer.finish()
        assert (tmp_path / "s").read_bytes() == data
        assert result.spill_capped is capped
        assert ("capped at 100 bytes" in result.text) is capped
        assert result.total_bytes == len(data + extra)


def test_spill_cap_comes_from_config() -> None:
    cfg = ToolOutputConfig(max_spill_bytes=10_240)
    assert OutputLimits.from_config(cfg).max_spill_bytes == 10_240
    assert OutputLimits().max_spill_bytes == ToolOutputConfig().max_spill_bytes == 2**31
    with pytest.raises(ValueError):
        OutputLimits(10, 10, 0)
