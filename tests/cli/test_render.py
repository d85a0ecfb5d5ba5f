"""printable: untrusted text made safe for a terminal (no raw escape or control byte)."""

from __future__ import annotations

import pytest

from shellpilot.cli.render import printable


@pytest.mark.parametrize(
    ("raw", "shown", "stripped"),
    [
        ("plain text\n\tindented", "plain text\n\tindented", "plain text\n\tindented"),
        ("a\x1b[8mhidden\x1b[0m", "a␛[8mhidden␛[0m", "ahidden"),
        ("x\x1b[2Ky", "x␛[2Ky", "xy"),
        ("\x1b]0;title\x07ls", "␛]0;title␇ls", "ls"),
        ("a\rb\x00c\x7f", "a␍b␀c␡", "a␍b␀c␡"),
        ("\x9b2J \x85 \u202eevil", "<U+009B>2J <U+0085> <U+202E>evil", " <U+0085> <U+202E>evil"),
        ("lone \x1b", "lone ␛", "lone ␛"),
    ],
)
def test_printable(raw: str, shown: str, stripped: str) -> None:
    assert printable(raw) == shown
    assert printable(raw, strip=True) == stripped
    for text in (printable(raw), printable(raw, strip=True)):
        assert not any((ord(c) < 0x20 and c not in "\n\t") or 0x7F <= ord(c) <= 0x9F for c in text)
