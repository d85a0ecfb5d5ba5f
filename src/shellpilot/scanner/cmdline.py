"""cmd.exe command lines: a small tokenizer and scanner (no tree-sitter grammar exists).

Owns: splitting a cmd line into commands, words and redirects, and scanning them.
Must not touch: the bash/PowerShell scanners, result policy (scan.py) or rules.
"""

from __future__ import annotations

from shellpilot.scanner.context import Cwds, ScanContext
from shellpilot.scanner.words import Word

CMD_CD = frozenset({"cd", "chdir", "pushd", "popd"})
CMD_FILES = frozenset(
    {
        "copy",
        "del",
        "dir",
        "erase",
        "md",
        "mkdir",
        "move",
        "rd",
        "ren",
        "rename",
        "rmdir",
        "type",
        "xcopy",
        "robocopy",
    }
)
_OPERATORS = ("&&", "||", "&", "|")


def split_commands(line: str) -> list[tuple[int, int]]:
    """Spans of the commands in `line`, split at `& && || |` outside double quotes (`^` escapes)."""
    spans: list[tuple[int, int]] = []
    start = 0
    quoted = False
    i = 0
    n = len(line)
    while i < n:
        ch = line[i]
        if ch == '"':
            quoted = not quoted
        elif ch == "^" and not quoted:
            i += 2
            continue
        elif not quoted and ch in "&|" and not (ch == "&" and i > 0 and line[i - 1] in "<>"):
            spans.append((start, i))
            i += 2 if line[i : i + 2] in _OPERATORS else 1
            start = i
            continue
        i += 1
    spans.append((start, n))
    return [(a, b) for a, b in spans if line[a:b].strip()]


def tokenize(line: str, offset: int = 0) -> tuple[list[Word], list[tuple[str, Word]]]:
    """Words and `(operator, target)` redirects of one cmd command (quotes and `^` removed).

    `%VAR%` and `!VAR!` make a word dynamic.
    """
    words: list[Word] = []
    redirects: list[tuple[str, Word]] = []
    i = 0
    n = len(line)
    pending: str | None = None
    while i < n:
        while i < n and line[i] in " \t":
            i += 1
        if i >= n:
            break
        start = i
        if line[i] in "<>" or (line[i].isdigit() and i + 1 < n and line[i + 1] in "<>"):
            j = i + 1
            while j < n and line[j] in "<>&":
                j += 1
            op = line[i:j]
            if op.endswith("&") and j < n and line[j].isdigit():
                i = j + 1
                continue  # 2>&1: an fd duplication, not a path
            pending = op
            i = j
            continue
        value: list[str] = []
        quoted = False
        while i < n and (quoted or line[i] not in " \t<>"):
            ch = line[i]
            if ch == '"':
                quoted = not quoted
            elif ch == "^" and not quoted and i + 1 < n:
                i += 1
                value.append(line[i])
            else:
                value.append(ch)
            i += 1
        text = "".join(value)
        raw = line[start:i]
        dynamic = "%" in text or "!" in text
        word = Word(
            raw if dynamic else text, raw, offset + start, offset + i, dynamic, None if dynamic else text
        )
        if pending is not None:
            redirects.append((pending, word))
            pending = None
        else:
            words.append(word)
    return words, redirects


def scan_cmd(source: str, cwds: Cwds, ctx: ScanContext, depth: int = 0) -> Cwds:
    """Scan a cmd.exe command line starting in `cwds` (see scan.scan); the `cmd` entry
    of `ScanContext.grammars` (cmd runs no nested text here, so `depth` is unused)."""
    builder = ctx.builder
    resolver = ctx.resolver
    for start, end in split_commands(source):
        part = source[start:end]
        words, redirects = tokenize(part, start)
        builder.seen = True
        for op, target in redirects:
            resolver.check(target, cwds, f"redirect {op}", windows=True)
        if not words:
            continue
        head = words[0]
        name = head.value.replace("\\", "/").rsplit("/", 1)[-1]
        if name.lower().endswith(".exe"):
            name = name[:-4]
        lower = name.lower()
        if head.dynamic:
            builder.unknown(f"dynamic command name {head.raw}")
        args = words[1:]
        operands = [w for w in args if not (w.value.startswith("/") and len(w.value) <= 3)]
        if lower in CMD_CD:
            if lower == "popd":
                builder.unknown("popd without a tracked pushd")
                cwds = None
                continue
            targets = [w for w in operands if w.value.lower() != "/d"]
            cwds = (
                resolver.cd(targets[0] if targets else None, cwds, lower, windows=True) if targets else cwds
            )
            continue
        builder.command(
            part.strip(), [name, *(w.value for w in args)], any(w.dynamic for w in words), cwds=cwds
        )
        if lower in CMD_FILES:
            for word in operands:
                resolver.check(word, cwds, lower, windows=True)
    return cwds
