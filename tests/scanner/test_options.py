"""Reading arguments by option shape: GNU long-option abbreviations (`--outp` is
`--output`), as getopt_long reads them."""

from __future__ import annotations

import pytest

from shellpilot.scanner.option_table import SHAPES
from shellpilot.scanner.options import long_options, read
from shellpilot.scanner.words import Word


@pytest.mark.parametrize(
    ("written", "names", "meant"),
    [
        ("--output", ("--output", "--output-dir"), ("--output",)),  # an exact name wins
        ("--outp", ("--output", "--key"), ("--output",)),
        ("--fil", ("--file", "--files-from"), ("--file", "--files-from")),  # ambiguous: both
        ("--x", ("--output",), ()),
        ("--", ("--output",), ()),
        ("-o", ("--output",), ()),
    ],
)
def test_long_options_are_read_as_getopt_long_reads_them(
    written: str, names: tuple[str, ...], meant: tuple[str, ...]
) -> None:
    assert long_options(written, names) == meant


def _read(line: str) -> tuple[list[str], dict[str, str], set[str]]:
    name, *args = line.split()
    parsed = read(SHAPES[name], [Word.literal(a) for a in args])
    return [w.value for w in parsed.outputs], {k: w.value for k, w in parsed.values.items()}, parsed.seen


def test_an_abbreviated_output_option_is_an_output() -> None:
    assert _read("sort --outp=/x a")[0] == ["/x"]
    assert _read("sort --o /x a")[0] == ["/x"]


def test_an_abbreviated_flag_a_write_rule_reads_is_seen_with_its_attached_value() -> None:
    _, values, seen = _read("sed --in=.bak p a")
    assert "--in-place" in seen and values["--in-place"] == ".bak"


def test_an_ambiguous_abbreviation_gives_its_value_to_every_candidate() -> None:
    _, values, seen = _read("tar --cr --fil=/x.tar a")
    assert "--create" in seen
    assert values["--file"] == values["--files-from"] == "/x.tar"
