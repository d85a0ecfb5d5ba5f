"""The PowerShell scanner: finds every command in a tree-sitter PowerShell tree.

Owns: PowerShell command words, cmdlet path parameters and the cd family there.
Must not touch: the bash walker, result policy (scan.py) or permission rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shellpilot.scanner.context import Cwds, ScanContext
from shellpilot.scanner.parse import PROBE_FROM, parse, parse_probed
from shellpilot.scanner.shell_strings import command_string
from shellpilot.scanner.words import Word

if TYPE_CHECKING:
    from tree_sitter import Node

PS_CD = frozenset({"cd", "chdir", "sl", "set-location", "pushd", "push-location", "popd", "pop-location"})
# Cmdlets (and their aliases) whose positional and -Path-like arguments are paths.
PS_FILES = frozenset(
    {
        "get-content",
        "set-content",
        "add-content",
        "clear-content",
        "get-item",
        "set-item",
        "new-item",
        "remove-item",
        "copy-item",
        "move-item",
        "rename-item",
        "clear-item",
        "get-childitem",
        "out-file",
        "tee-object",
        "test-path",
        "resolve-path",
        "get-itemproperty",
        "set-itemproperty",
        "rm",
        "del",
        "erase",
        "rd",
        "rmdir",
        "ri",
        "cp",
        "copy",
        "cpi",
        "mv",
        "move",
        "mi",
        "cat",
        "gc",
        "type",
        "sc",
        "ac",
        "ni",
        "mkdir",
        "md",
        "ls",
        "dir",
        "gci",
        "ren",
        "rni",
        "gi",
        "tee",
    }
)
_PATH_PARAMS = frozenset({"-path", "-literalpath", "-destination", "-filepath", "-pspath", "-lp", "-target"})
_VALUE_PARAMS = frozenset(
    {
        "-value",
        "-filter",
        "-include",
        "-exclude",
        "-itemtype",
        "-type",
        "-encoding",
        "-name",
        "-newname",
        "-stream",
        "-delimiter",
        "-totalcount",
        "-tail",
        "-head",
        "-first",
        "-last",
        "-depth",
        "-credential",
        "-readcount",
        "-attributes",
    }
)
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh", "pwsh", "powershell", "cmd"})
_LITERAL_KINDS = frozenset({"generic_token", "command_parameter", "verbatim_string_characters"})


def _name(text: str) -> str:
    """The program name as written, without directory or `.exe` (`C:\\bin\\Git.exe` -> `Git`)."""
    name = text.strip().strip("'\"").replace("\\", "/").rsplit("/", 1)[-1]
    return name[:-4] if name.lower().endswith(".exe") else name


class _PowerShellScanner:
    __slots__ = ("builder", "ctx", "data", "depth", "resolver")

    def __init__(self, source: str, ctx: ScanContext, depth: int) -> None:
        self.data = source.encode()
        self.ctx = ctx
        self.builder = ctx.builder
        self.resolver = ctx.resolver
        self.depth = depth

    def text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    def run(self, cwds: Cwds) -> Cwds:
        data = self.data
        tree = parse(data, "powershell") if len(data) <= PROBE_FROM else parse_probed(data, "powershell")
        if tree is None:
            self.builder.unknown(f"a {len(self.data):,}-byte PowerShell command too costly to parse")
            self.builder.seen = True  # (not "no command found": it was not looked at)
            return None
        root = tree.root_node
        if root.has_error:
            self.builder.unknown("could not parse the PowerShell command (syntax error)")
        # Commands in source order; cd moves the simulated cwd for the commands after it.
        todo = [root]
        order: list[Node] = []
        while todo:
            node = todo.pop()
            if node.type == "command":
                order.append(node)
            if node.type == "assignment_expression":
                self.builder.seen = True
            todo.extend(reversed(node.children))
        for node in order:
            cwds = self.command(node, cwds)
        return cwds

    def word(self, node: Node) -> Word:
        raw = self.text(node)
        value = raw
        kind = node.type
        while (
            kind in ("array_literal_expression", "unary_expression", "string_literal")
            and node.child_count == 1
        ):
            node = node.children[0]
            kind = node.type
        if kind == "verbatim_string_characters" or (
            raw.startswith("'") and raw.endswith("'") and len(raw) > 1
        ):
            value = raw.strip()[1:-1].replace("''", "'")
            return Word(value, raw, node.start_byte, node.end_byte, False, value)
        if kind == "expandable_string_literal":
            value = raw[1:-1]
        if "$" in value or "(" in value or "@" in value[:1]:
            safe = value.replace("$HOME", "\0").replace("$PWD", "\0")
            path = value if "$" not in safe and "(" not in safe else None
            return Word(raw, raw, node.start_byte, node.end_byte, True, path)
        value = value.replace("`", "") if "`" in value else value
        return Word(value, raw, node.start_byte, node.end_byte, False, value)

    def command(self, node: Node, cwds: Cwds) -> Cwds:
        builder = self.builder
        builder.seen = True
        name_node = node.child_by_field_name("command_name")
        elements = node.child_by_field_name("command_elements")
        if name_node is None:
            builder.unknown(f"PowerShell command without a name: {self.text(node).strip()}")
            return cwds
        head = self.word(name_node)
        shown = _name(head.value)
        name = shown.lower()
        if head.dynamic:
            builder.unknown(f"dynamic command name {head.raw}")
        args: list[Word] = []
        redirects: list[Word] = []
        if elements is not None:
            for child in elements.children:
                kind = child.type
                if kind == "command_argument_sep":
                    continue
                if kind == "redirection":
                    target = child.child_by_field_name("redirected_file_name")
                    if target is None:
                        target = next((c for c in child.children if c.type == "redirected_file_name"), None)
                    if target is not None:
                        redirects.append(self.word(target.children[-1]))
                    continue
                args.append(self.word(child))
        for path in redirects:
            self.resolver.check(path, cwds, "redirect", windows=True)
        if name in PS_CD:
            if name in ("popd", "pop-location"):
                builder.unknown("Pop-Location without a tracked Push-Location")
                return None
            operand = self._paths(args)
            return self.resolver.cd(operand[0] if operand else None, cwds, name, windows=True)
        text = self.text(node).strip()
        argv = [shown, *(w.value for w in args)]
        builder.command(text, argv, head.dynamic or any(w.dynamic for w in args), cwds=cwds)
        if name in PS_FILES:
            for word in self._paths(args):
                self.resolver.check(word, cwds, name, windows=True)
        elif name in ("invoke-expression", "iex"):
            self.invoke(name, args, cwds)
        elif name in _SHELLS:
            self.shell(name, args, cwds)
        return cwds

    def invoke(self, name: str, args: list[Word], cwds: Cwds) -> None:
        """`Invoke-Expression STR`: scan STR as PowerShell (literal only)."""
        strings = [w for w in args if not w.value.lower().startswith("-command")]
        if not strings or any(w.dynamic for w in strings):
            self.builder.unknown(f"{name} of a dynamic string")
            return
        self.ctx.nest("powershell", " ".join(w.value for w in strings), cwds, self.depth + 1, name)

    def shell(self, name: str, args: list[Word], cwds: Cwds) -> None:
        """bash/sh `-c STR`, `cmd /c STR`, `pwsh -Command STR` run from PowerShell."""
        ctx = self.ctx
        if name in ("pwsh", "powershell", "cmd"):
            script = command_string(name, args, self.builder, self.resolver, cwds)
            if script is not None:
                ctx.nest("cmd" if name == "cmd" else "powershell", script, cwds, self.depth + 1, name)
            return
        for i, word in enumerate(args):
            if word.value.startswith("-") and "c" in word.value[1:] and not word.dynamic:
                rest = args[i + 1 : i + 2]
                if not rest or rest[0].dynamic:
                    self.builder.unknown(f"{name} -c runs a dynamic string")
                else:
                    ctx.nest("bash", rest[0].value, cwds, self.depth + 1, f"{name} -c")
                return
        if args:
            self.resolver.check(args[0], cwds, name, windows=True)

    def _paths(self, args: list[Word]) -> list[Word]:
        out: list[Word] = []
        i = 0
        while i < len(args):
            word = args[i]
            value = word.value.lower()
            if value.startswith("-") and not word.dynamic:
                key, colon, _ = value.partition(":")
                if key in _PATH_PARAMS:
                    if colon:
                        out.append(word.suffix(len(key) + 1))
                    elif i + 1 < len(args):
                        out.append(args[i + 1])
                        i += 1
                elif key in _VALUE_PARAMS and not colon:
                    i += 1
            else:
                out.append(word)
            i += 1
        return out


def scan_powershell(source: str, cwds: Cwds, ctx: ScanContext, depth: int) -> Cwds:
    """Scan `source` with the PowerShell grammar starting in `cwds` (see scan.scan); the
    `powershell` entry of `ScanContext.grammars`."""
    return _PowerShellScanner(source, ctx, depth).run(cwds)
