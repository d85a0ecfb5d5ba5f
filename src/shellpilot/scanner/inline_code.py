"""Code given to an interpreter inside the command line (`python3 -c CODE`, `perl -e CODE`,
`node -e CODE`, a here-document fed to `python3 -`) that may start programs.

Owns: finding that code among an interpreter's words or in its standard input, and
`inline_code_problem`, the reason it makes the scan unknown. Must not touch: scripts in
files (a rule for `python3 *` sees that a program runs; the file is the project's) or
shells' own `-c` text (bash_nesting scans that).

The scanner does not read these languages, so code that may start a process or reach
one through names made at run time (`os.system("rm x")`, `` `rm x` ``, `exec`,
`__import__`, `getattr`) is a command nobody can judge: the scan is unknown, and a
user's deny rule (`rm *`) is never passed by a silent allow. Code without any such
word (`python3 -c 'import json; print(1)'`) stays known.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from shellpilot.scanner.words import Word

_FLAGS: dict[str, tuple[str, frozenset[str]]] = {
    # interpreter: (short letters whose value is code, long options whose value is code)
    "python": ("c", frozenset()),
    "perl": ("eE", frozenset()),
    "ruby": ("e", frozenset()),
    "node": ("ep", frozenset({"--eval", "--print"})),
    "bun": ("e", frozenset({"--eval", "--print"})),
    "php": ("r", frozenset()),
    "lua": ("e", frozenset()),
    "Rscript": ("e", frozenset()),
    "julia": ("eE", frozenset({"--eval", "--print"})),
    "osascript": ("e", frozenset()),
    "tclsh": ("", frozenset()),
}
_ALIASES = {"nodejs": "node", "luajit": "lua", "wish": "tclsh", "pypy": "python", "pypy3": "python"}

_SPAWNS = re.compile(
    r"system|popen|exec|spawn|fork|subprocess|child_process|shell|passthru|proc_open|"
    r"\bqx\b|`|%x|__import__|import_module|importlib|getattr|\beval\b|\bcompile\b|\bsend\b|"
    r"binding|ctypes|\bffi\b|dlopen|\brun\s*\(|\bpipe\s*\(|ProcessBuilder|Runtime|"
    r"\bopen\s*\(?\s*[\"'][^\"']*\||do shell script|\bpty\b|__dict__|__builtins__|\bglobals\b|\bvars\s*\(",
    re.IGNORECASE,
)
"""Words of code that may start a process, or reach anything through names made at run
time (a string built into `os` then `system`, base64 decoded into `exec`): any language."""


_VERSIONED = re.compile(r"(?:python|pypy)[0-9.]*")


def interpreter(name: str) -> str | None:
    """The `_FLAGS` key of program `name` (`python3.12` -> `python`), or None."""
    name = _ALIASES.get(name, name)
    if name in _FLAGS:
        return name
    if name.startswith(("python", "pypy")) and _VERSIONED.fullmatch(name):
        return "python"
    return None


_MAKES = frozenset({"make", "gmake", "bmake", "remake"})
_STREAMS = ("-", "/dev/stdin", "/dev/fd/", "/proc/")


def _make_text(args: Sequence[Word]) -> str | None:
    """Why make runs a makefile written in the command line (`--eval=TEXT`, `-E TEXT`,
    `-f /dev/stdin <<< TEXT`): its recipes are commands the scan does not read."""
    for i, word in enumerate(args):
        value = word.value
        if value.startswith(("--eval", "-E")):
            return f"make {value.partition('=')[0][:6]} runs recipes written in the command line"
        if value in ("-f", "--file", "--makefile") or value.startswith(("-f", "--file=", "--makefile=")):
            named = value.partition("=")[2] if "=" in value else value[2:] if value[:2] == "-f" else ""
            if not named and i + 1 < len(args):
                named = args[i + 1].value if not args[i + 1].dynamic else "-"
            if named.startswith(_STREAMS) or (word.dynamic and not named):
                return "make reads a makefile from a stream, whose recipes the scan does not read"
    return None


def inline_code_problem(name: str, args: Sequence[Word], stdin: str | None, no_stdin: str) -> str | None:
    """Why interpreter `name` with words `args` (and `stdin`: its here-document text,
    None when unknown, `no_stdin` when there is none) runs code that may start a program;
    None when it runs none, or only a script file. make given a makefile's text inline
    counts too."""
    if name in _MAKES:
        return _make_text(args)
    kind = interpreter(name)
    if kind is None:
        return None
    letters, longs = _FLAGS[kind]
    codes: list[Word] = []
    script = False
    i = 0
    while i < len(args):
        word = args[i]
        value = word.value
        if word.dynamic and not codes and not script:
            return f"{name} is given words known only at run time ({word.raw})"
        if value == "--" or not value.startswith("-") or value == "-":
            script = value not in ("-", "--")
            break
        written, eq, _ = value.partition("=")
        if written in longs:
            if eq:
                codes.append(word.suffix(len(written) + 1))
            elif i + 1 < len(args):
                codes.append(args[i + 1])
                i += 1
        elif not value.startswith("--"):
            for k, letter in enumerate(value[1:], start=1):
                if letter in letters:
                    if k + 1 < len(value):
                        codes.append(word.suffix(k + 1))
                    elif i + 1 < len(args):
                        codes.append(args[i + 1])
                        i += 1
                    break
        i += 1
    if kind == "python" and codes:
        script = False  # `python -c CODE ARGS`: the words after the code are its argv
    texts: list[str] = []
    for code in codes:
        if code.dynamic:
            return f"{name} runs code known only at run time ({code.raw})"
        texts.append(code.value)
    if not codes and not script and stdin is not None and stdin != no_stdin:
        texts.append(stdin)  # `python3 - <<'EOF'`, `tclsh <<< 'exec rm x'`
    for text in texts:
        found = _SPAWNS.search(text)
        if found is not None:
            return f"{name} runs code that may start a program ({found.group(0).strip()!r})"
    return None


__all__ = ["inline_code_problem", "interpreter"]
