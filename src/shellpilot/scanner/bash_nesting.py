"""Commands that run other command text: `bash -c`, `eval`, `trap`, `su -c`, `find -exec`, `watch`.

Owns: finding that text in a command's words and handing it back to be scanned (depth
capped by `MAX_DEPTH`). Must not touch: statements, words or results policy.
"""

from __future__ import annotations

from shellpilot.scanner.bash_words import BashWords
from shellpilot.scanner.scan_paths import PathResolver
from shellpilot.scanner.scan_result import MAX_DEPTH, ScanBuilder
from shellpilot.scanner.shell_strings import command_string
from shellpilot.scanner.words import Word

Cwds = tuple[str, ...] | None

NO_STDIN = "\0no stdin"
"""`BashNesting.stdin` when the current command has no here-document or here-string."""


class BashNesting(BashWords):
    """Base of the bash scanner: scans the command text some commands carry.

    The subclass provides `builder`, `resolver`, `depth`, `stdin`, `slice()`, `nest()` and
    `argv()` (see scan_bash.py). A chain of single bases (BashWords -> BashNesting ->
    the scanner), not mixins, so the scanner can be compiled by mypyc (see setup.py).
    """

    __slots__ = ()
    builder: ScanBuilder
    resolver: PathResolver
    depth: int
    stdin: str | None

    def nest(self, source: str, cwds: Cwds, what: str) -> None:
        raise NotImplementedError

    def argv(self, words: list[Word], text: str, start: int, end: int, cwds: Cwds) -> Cwds:
        raise NotImplementedError

    def shell(self, name: str, args: list[Word], cwds: Cwds) -> None:
        i = 0
        script = False
        while i < len(args):
            value = args[i].value
            if value == "--":
                i += 1
                break
            if value[:1] in "-+" and len(value) > 1 and not args[i].dynamic:
                if value.startswith("--"):
                    i += 1
                    continue
                if "c" in value[1:] and value[0] == "-":
                    script = True
                if value[1:] in ("o", "O") and i + 1 < len(args):
                    i += 1
                if value[0] == "-" and "s" in value[1:]:
                    break
                i += 1
                continue
            break
        rest = args[i:]
        if script:
            if not rest:
                self.builder.unknown(f"{name} -c without a command string")
            elif rest[0].dynamic:
                self.builder.unknown(f"{name} -c runs a dynamic string {rest[0].raw}")
            else:
                self.nest(rest[0].value, cwds, f"{name} -c")
        elif rest:
            self.resolver.check(rest[0], cwds, name)
        elif self.stdin is None:
            self.builder.unknown(f"{name} reads a here-document with expansions as its script")
        elif self.stdin is not NO_STDIN:
            self.nest(self.stdin, cwds, f"{name} <<")
        else:
            self.builder.unknown(f"{name} reads the commands it runs from standard input")

    def foreign(self, name: str, args: list[Word], cwds: Cwds) -> None:
        """`pwsh -Command STR` / `cmd /c STR` run from bash: scan STR with that shell."""
        if self.depth + 1 > MAX_DEPTH:
            self.builder.unknown(f"{name} nested deeper than {MAX_DEPTH} levels")
            return
        script = command_string(name, args, self.builder, self.resolver, cwds)
        if script is None or not self.builder.rescan(script):
            return
        if name.startswith("cmd"):
            from shellpilot.scanner.cmdline import scan_cmd

            scan_cmd(script, cwds, self.builder, self.resolver)
        else:
            self.builder.scan_nested("powershell", script, cwds, self.resolver, self.depth + 1)

    def trap(self, args: list[Word], cwds: Cwds) -> None:
        """`trap ACTION SIGNAL...`: ACTION runs later in this shell, so it is scanned now."""
        operands = [w for w in args if not (w.value.startswith("-") and len(w.value) > 1)]
        if len(operands) < 2 or operands[0].value in ("", "-"):
            return
        action = operands[0]
        if action.dynamic:
            self.builder.unknown(f"trap of a dynamic string {action.raw}")
        else:
            self.nest(action.value, cwds, "trap")

    def su(self, name: str, args: list[Word], cwds: Cwds) -> None:
        """`su [-] [user] -c CMD` / `runuser ... -c CMD`: CMD runs through a shell."""
        for i, word in enumerate(args):
            value = word.value
            script: Word | None = None
            if value in ("-c", "--command") and i + 1 < len(args):
                script = args[i + 1]
            elif value.startswith("--command="):
                script = word.suffix(len("--command="))
            if script is not None:
                if script.dynamic:
                    self.builder.unknown(f"{name} -c runs a dynamic string")
                else:
                    self.nest(script.value, cwds, f"{name} -c")
                return

    def eval(self, args: list[Word], cwds: Cwds) -> None:
        if any(w.dynamic for w in args):
            self.builder.unknown("eval of a dynamic string")
            return
        source = " ".join(w.value for w in args)
        if source.strip():
            self.nest(source, cwds, "eval")

    def shell_string(
        self, real: list[Word], cwds: Cwds, what: str, text: str, words: list[Word], start: int, end: int
    ) -> Cwds:
        self.builder.command(text, [w.value for w in words], any(w.dynamic for w in words), [])
        if any(w.dynamic for w in real):
            self.builder.unknown(f"{what} runs a dynamic string")
        else:
            self.nest(" ".join(w.value for w in real), cwds, what)
        return cwds

    def find_exec(self, args: list[Word], cwds: Cwds) -> None:
        i = 0
        n = len(args)
        while i < n:
            value = args[i].value
            if value in ("-exec", "-execdir", "-ok", "-okdir"):
                j = i + 1
                while j < n and args[j].value not in (";", "+"):
                    j += 1
                sub = args[i + 1 : j]
                if j >= n:
                    self.builder.unknown(f"find {value} without a terminating ';' or '+'")
                if sub:
                    text = self.slice(sub[0].start, sub[-1].end)
                    self.argv(list(sub), text, sub[0].start, sub[-1].end, cwds)
                i = j
            i += 1
