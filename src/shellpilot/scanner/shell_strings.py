"""Command strings handed to another shell: `pwsh -Command STR`, `cmd /c STR`.

Owns: finding STR (or the script file) in such an invocation's arguments.
Must not touch: scanning STR (the caller picks the scanner) or results policy.
"""

from __future__ import annotations

from collections.abc import Sequence

from shellpilot.scanner.scan_paths import PathResolver
from shellpilot.scanner.scan_result import ScanBuilder
from shellpilot.scanner.words import Word

Cwds = tuple[str, ...] | None

FOREIGN_SHELLS = frozenset({"pwsh", "powershell", "pwsh.exe", "powershell.exe", "cmd", "cmd.exe"})


def command_string(
    name: str, args: Sequence[Word], builder: ScanBuilder, resolver: PathResolver, cwds: Cwds
) -> str | None:
    """The script a `pwsh`/`powershell`/`cmd` invocation runs, or `None` (reported as needed).

    pwsh: `-c`/`-Command` (any prefix) takes the rest joined by spaces, `-File F` is a
    path, `-EncodedCommand` cannot be read. cmd: `/c` or `/k` takes the rest.
    """
    if name.startswith("cmd"):
        for i, word in enumerate(args):
            if word.value.lower() in ("/c", "/k", "/r"):
                rest = args[i + 1 :]
                if any(w.dynamic for w in rest):
                    builder.unknown(f"{name} {word.value} runs a dynamic string")
                    return None
                return " ".join(w.value for w in rest)
        return None
    i = 0
    while i < len(args):
        word = args[i]
        value = word.value.lower()
        if word.dynamic:
            break
        if value.startswith("-") and len(value) > 1:
            key = value.lstrip("-")
            if key in ("e", "ec") or (len(key) >= 2 and "encodedcommand".startswith(key)):
                builder.unknown(f"{name} {word.value} runs an encoded command")
                return None
            if key == "c" or (len(key) >= 2 and "command".startswith(key)):
                rest = args[i + 1 :]
                if any(w.dynamic for w in rest):
                    builder.unknown(f"{name} {word.value} runs a dynamic string")
                    return None
                return " ".join(w.value for w in rest)
            if key in ("f", "file") and i + 1 < len(args):
                resolver.check(args[i + 1], cwds, name)
                return None
            if key in (
                "executionpolicy",
                "ep",
                "workingdirectory",
                "wd",
                "configurationname",
                "settingsfile",
            ):
                i += 1
            i += 1
            continue
        break
    rest = args[i:]
    if rest:
        if any(w.dynamic for w in rest):
            builder.unknown(f"{name} runs a dynamic string")
            return None
        return " ".join(w.value for w in rest)
    builder.unknown(f"{name} reads the commands it runs from standard input")
    return None
