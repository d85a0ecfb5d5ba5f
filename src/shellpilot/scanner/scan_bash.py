"""The bash-grammar scanner: walks a tree-sitter bash tree and fills a `ScanBuilder`.

Owns: statements, the simulated cwd, wrappers, `bash -c`/`eval`/`find -exec`
recursion. Must not touch: the result types' policy (scan.py) or permission rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from shellpilot.scanner.bash_nesting import NO_STDIN, BashNesting
from shellpilot.scanner.bash_openers import live_openers
from shellpilot.scanner.brace_expansion import MAX_WORDS, brace_words
from shellpilot.scanner.parse import POSIX_SHELLS, PROBE_FROM, kind_names, parse, parse_probed, substitutions
from shellpilot.scanner.scan_paths import CD_COMMANDS, SPECS, PathResolver, path_operands
from shellpilot.scanner.scan_result import MAX_DEPTH, MAX_NESTING, ScanBuilder
from shellpilot.scanner.scan_writes import WRITERS, git_writes, written
from shellpilot.scanner.shell_strings import FOREIGN_SHELLS
from shellpilot.scanner.words import Word, plain_word
from shellpilot.scanner.wrappers import WRAPPERS, program_name, unwrap

if TYPE_CHECKING:
    from tree_sitter import Node

Cwds = tuple[str, ...] | None
"""The possible working directories at a point of the script; `None` when unknowable."""

_MAX_CWDS = 8

_SEQUENCE = frozenset({"program", "compound_statement", "do_group", "else_clause", "elif_clause"})
_BRANCHY = frozenset(
    {
        "if_statement",
        "while_statement",
        "for_statement",
        "c_style_for_statement",
        "case_statement",
        "case_item",
        "function_definition",
    }
)
_STATEMENTS = frozenset(
    {
        "command",
        "redirected_statement",
        "list",
        "pipeline",
        "subshell",
        "negated_command",
        "declaration_command",
        "unset_command",
        "variable_assignment",
        "variable_assignments",
        "test_command",
        *_SEQUENCE,
        *_BRANCHY,
    }
)
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
# Commands whose arguments carry more command text to scan (see BashNesting).
_RUNS_TEXT = POSIX_SHELLS | FOREIGN_SHELLS | {"eval", "find", "trap", "su", "runuser"}

# What `argv()` must do for a command name, as bit flags in one table: one dict lookup per
# command instead of one per table (each lookup after a parse is a likely cache miss).
_CD = 1  # cd, pushd, popd, chdir: moves the simulated cwd
_PATHS = 2  # has an argument table (scan_paths.SPECS) or is `find`: check path operands
_WRITES = 4  # modifies files named by its arguments (scan_writes.WRITERS)
_GIT = 8  # writes only for `init`/`clone` (scan_writes.git_writes)
_RUNS = 16  # runs command text from its arguments (`bash -c`, eval, find -exec, ...)


def _roles() -> dict[str, int]:
    roles: dict[str, int] = {}
    for flag, names in (
        (_CD, CD_COMMANDS),
        (_PATHS, {*SPECS, "find"}),
        (_WRITES, WRITERS),
        (_GIT, {"git"}),
        (_RUNS, _RUNS_TEXT),
    ):
        for name in names:
            roles[name] = roles.get(name, 0) | flag
    return roles


_ROLES = _roles()
_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
# Nodes that carry no command of their own (only maybe nested substitutions).
_PASSIVE = frozenset(
    {
        "word",
        "string",
        "raw_string",
        "ansi_c_string",
        "translated_string",
        "concatenation",
        "number",
        "simple_expansion",
        "expansion",
        "arithmetic_expansion",
        "brace_expression",
        "variable_name",
        "special_variable_name",
        "string_content",
        "binary_expression",
        "unary_expression",
        "ternary_expression",
        "postfix_expression",
        "parenthesized_expression",
        "test_operator",
        "extglob_pattern",
        "regex",
        "array",
        "subscript",
        "comment",
        "heredoc_body",
        "heredoc_content",
        "heredoc_start",
        "heredoc_end",
        "file_descriptor",
        "command_name",
    }
)


# Quoted parts of a word's source text, `\\x` escapes included (brace lists in them are text).
_QUOTED = re.compile(r"'[^']*'|\"(?:[^\"\\]|\\.)*\"|\\.")


# A word whose source holds one of these is not plain text with braces.
_NOT_LITERAL = re.compile(r"[$`()'\"\\]")


def _clip(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "..."


def _union(a: Cwds, b: Cwds) -> Cwds:
    if a is None or b is None:
        return None
    if a == b:
        return a
    merged = tuple(dict.fromkeys(a + b))
    return merged if len(merged) <= _MAX_CWDS else None


def scan_bash(source: str, cwds: Cwds, builder: ScanBuilder, resolver: PathResolver, depth: int) -> Cwds:
    """Scan `source` with the bash grammar starting in `cwds`; returns the cwds after it."""
    return _BashScanner(source, builder, resolver, depth).run(cwds)


class _BashScanner(BashNesting):
    __slots__ = ("builder", "data", "depth", "kinds", "resolver", "stack", "stdin", "text", "visited")

    def __init__(self, source: str, builder: ScanBuilder, resolver: PathResolver, depth: int) -> None:
        self.data = source.encode()
        # Byte offsets equal str offsets for ASCII text: slice the str, no decoding.
        self.text: str | None = source if source.isascii() else None
        self.kinds = kind_names("bash")
        self.builder = builder
        self.resolver = resolver
        self.depth = depth
        self.stack: list[Cwds] = []
        # What the current command reads on stdin from a here-doc/here-string: its text,
        # None when it has expansions, NO_STDIN when there is none.
        self.stdin: str | None = NO_STDIN
        # Start bytes of the substitutions scanned so far (checked by `sweep`).
        self.visited: set[int] = set()

    def slice(self, start: int, end: int) -> str:
        text = self.text
        if text is not None:
            return text[start:end]
        return self.data[start:end].decode("utf-8", "replace")

    def run(self, cwds: Cwds) -> Cwds:
        data = self.data
        tree = parse(data, "bash") if len(data) <= PROBE_FROM else parse_probed(data, "bash")
        if tree is None:
            self.builder.unknown(f"a {len(self.data):,}-byte command too costly to parse")
            self.builder.seen = True  # (not "no command found": it was not looked at)
            return None
        root = tree.root_node
        if root.has_error:
            self.builder.unknown(f"could not parse {self._short(root)} (syntax error)")
        out = self.sequence(root.children, cwds)
        # Every substitution node starts at its own `$(`, `<(`, `>(` or backtick, so when the
        # walk visited as many as the text has openers, it visited them all; otherwise
        # (`$((`, quoted text, a syntax error) the tree is searched.
        data = self.data
        if b"(" in data or b"`" in data:
            openers = data.count(b"$(") + data.count(b"<(") + data.count(b">(") + data.count(b"`")
            if openers and (openers != len(self.visited) or root.has_error):
                self.sweep(root)
                # Live substitutions are at most the `$(`/`<(`/`>(` plus half the backticks
                # (rounded up); fewer visited means bash may run one the tree does not show.
                backticks = data.count(b"`")
                if openers - backticks + (backticks + 1) // 2 > len(self.visited):
                    self.hidden()
        return out

    def hidden(self) -> None:
        """The last net: substitutions bash runs where tree-sitter shows none, as `unknown`.

        `echo $(( '$(cmd)' ))`, `"${x:-'$(cmd)'}"`, `$[ '$(cmd)' ]`, a backtick in an
        unquoted here-document: bash_openers finds each live opener the tree hid; its
        body is scanned (unknown cwd) when the lexer found its end, and the scan is
        `unknown` either way, so the whole text is asked.
        """
        text = self.text if self.text is not None else self.data.decode("latin-1")
        visited = self.visited
        inside = -1  # end of the last body scanned: the openers within it are scanned there
        for opener in live_openers(text):
            if opener.start in visited or opener.start < inside:
                continue
            visited.add(opener.start)
            end = opener.end if opener.end >= 0 else len(self.data)
            inside = end
            body = self.slice(opener.body, end)
            self.builder.unknown(f"substitution {opener.kind}{_clip(body)} hidden from the parser")
            if opener.kind == "`":
                body = body.replace("\\\\", "\\").replace("\\`", "`").replace("\\$", "$")
            if body.strip():
                self.nest(body, None, "a hidden substitution")

    def sweep(self, root: Node) -> None:
        """The safety net: scan each substitution the walk did not reach, as `unknown`.

        A `$(..)` wherever the grammar hides it (inside a number such as `16#$(..)`, or a
        node kind nobody foresaw) still runs; its commands are scanned with an unknown
        cwd and the scan says where it was found.
        """
        visited = self.visited
        for node in substitutions(root):
            if node.start_byte in visited:
                continue
            parent = node.parent
            where = self.kinds[parent.kind_id] if parent is not None else "?"
            self.builder.unknown(f"substitution {self._short(node)} found late (inside {where})")
            visited.add(node.start_byte)
            self.sequence(node.children, None)

    def _short(self, node: Node) -> str:
        text = self.slice(node.start_byte, node.end_byte)
        return repr(text if len(text) <= 60 else text[:57] + "...")

    # statements -------------------------------------------------------------------------

    def sequence(self, nodes: Sequence[Node], cwds: Cwds) -> Cwds:
        """Scan statements in order (a script, a body, a substitution's contents).

        Every construct that nests without bound (substitutions, subshells, groups,
        compound commands) passes through here, so this is where depth is counted.
        """
        builder = self.builder
        if builder.nesting >= MAX_NESTING:
            builder.unknown(f"statements nested deeper than {MAX_NESTING} levels")
            return None
        builder.nesting += 1
        try:
            for node in nodes:
                if node.is_named:
                    cwds = self.stmt(node, cwds)
        finally:
            builder.nesting -= 1
        return cwds

    def stmt(self, node: Node, cwds: Cwds) -> Cwds:
        kind = self.kinds[node.kind_id]
        if kind == "command":
            return self.simple(node, node, cwds)
        if kind == "list":
            return self.chain(node, cwds)
        if kind == "pipeline":
            out = cwds
            for child in node.children:
                if child.is_named:
                    out = _union(out, self.stmt(child, cwds))
            return out
        if kind == "redirected_statement":
            return self.redirected(node, cwds)
        if kind in _SEQUENCE:
            return self.sequence(node.children, cwds)
        if kind == "subshell":
            self.sequence(node.children, cwds)
            return cwds
        if kind in _BRANCHY:
            self.builder.seen = True
            return _union(cwds, self.sequence(node.children, cwds))
        if kind == "negated_command":
            return self.sequence(node.children, cwds)
        if kind in ("declaration_command", "unset_command"):
            self.declaration(node, node, cwds)
            return cwds
        if kind in ("variable_assignment", "variable_assignments", "test_command"):
            self.builder.seen = True
            self.nested(node, cwds)
            return cwds
        if kind in _SUBSTITUTIONS:
            self.visited.add(node.start_byte)
            self.sequence(node.children, cwds)
            return cwds
        if kind == "comment":
            return cwds
        if kind in _PASSIVE:
            self.builder.seen = True  # an expression such as `((i++))`: runs nothing itself
            self.nested(node, cwds)
            return cwds
        if kind == "ERROR":
            return self.sequence(node.children, cwds)
        self.builder.unknown(f"unsupported syntax ({kind}) in {self._short(node)}")
        self.nested(node, cwds)
        return cwds

    def chain(self, node: Node, cwds: Cwds) -> Cwds:
        """An `&&` / `||` list. The grammar nests a chain to the left (`a && b && c` is
        `list(list(a, b), c)`), so it is walked in a loop, not by recursion: a chain of
        thousands of commands is scanned like a short one."""
        kinds = self.kinds
        lists = [node]
        first = node.children[0]
        while kinds[first.kind_id] == "list":
            lists.append(first)
            first = first.children[0]
        out = self.stmt(first, cwds)
        # (an index loop: mypyc 2.4 fails on reversed() over a list of untyped nodes)
        for i in range(len(lists) - 1, -1, -1):
            current = lists[i]
            left = right = out
            for child in current.children[1:]:
                if child.is_named:
                    right = self.stmt(child, left)
            out = _union(left, right)
        return out

    def nested(self, node: Node, cwds: Cwds) -> None:
        """Scan the command substitutions anywhere below `node` (not commands themselves)."""
        kinds = self.kinds
        todo = [node]
        while todo:
            current = todo.pop()
            kind = kinds[current.kind_id]
            if kind in _SUBSTITUTIONS:
                self.visited.add(current.start_byte)
                self.sequence(current.children, cwds)
            elif current.child_count:
                if kind in _STATEMENTS and current is not node:
                    self.stmt(current, cwds)
                else:
                    todo.extend(current.children)

    def redirected(self, node: Node, cwds: Cwds) -> Cwds:
        kinds = self.kinds
        body = None
        for child in node.children:
            if kinds[child.kind_id] not in _REDIRECTS and child.is_named:
                body = child
                break
        if body is not None and kinds[body.kind_id] == "command":
            return self.simple(body, node, cwds)
        out = cwds
        if body is not None:
            out = self.stmt(body, cwds)
        else:
            self.builder.seen = True
        for child in node.children:
            if kinds[child.kind_id] in _REDIRECTS:
                self.redirect(child, cwds, [])
        return out

    def redirect(self, node: Node, cwds: Cwds, excluded: list[tuple[int, int]]) -> None:
        kinds = self.kinds
        kind = kinds[node.kind_id]
        if kind == "file_redirect":
            op = ""
            dest: Node | None = None
            for child in node.children:
                ckind = kinds[child.kind_id]
                if not child.is_named:
                    op = ckind
                elif ckind == "ERROR":
                    # `1<>file` (read-write) parses as `<`, an ERROR `>`, then the file
                    op += self.slice(child.start_byte, child.end_byte)
                elif ckind != "file_descriptor" and dest is None:
                    dest = child
            if dest is None:
                return
            word = self.word(dest, cwds)
            if op in (">&", "<&") and (word.value.isdigit() or word.value == "-"):
                return
            self.resolver.check(word, cwds, f"redirect {op}")
            if op != "<" and op != "<&":  # >, >>, &>, &>>, >|, >&FILE, <>: a write
                self.resolver.target(word, cwds)
        elif kind == "heredoc_redirect":
            quoted = False
            for child in node.children:
                ckind = kinds[child.kind_id]
                if ckind == "file_redirect":
                    self.redirect(child, cwds, excluded)
                elif ckind == "heredoc_start":
                    quoted = self.slice(child.start_byte, child.end_byte)[:1] in ("'", '"', "\\")
                elif ckind == "heredoc_body":
                    self.nested(child, cwds)
                    literal = quoted or not any(
                        c.is_named and kinds[c.kind_id] != "heredoc_content" for c in child.children
                    )
                    self.stdin = self.slice(child.start_byte, child.end_byte) if literal else None
                elif child.is_named and ckind in _STATEMENTS:
                    # `cat <<EOF | grep x && rm y`: the rest of the line hangs off the heredoc
                    excluded.append((child.start_byte, child.end_byte))
                    self.stmt(child, cwds)
        else:
            self.nested(node, cwds)
            for child in node.children:
                if child.is_named:
                    word = self.word(child, cwds)
                    self.stdin = None if word.dynamic else word.value

    # simple commands ----------------------------------------------------------------------

    def simple(self, node: Node, outer: Node, cwds: Cwds) -> Cwds:
        kinds = self.kinds
        source = self.text
        words: list[Word] = []
        redirects: list[Node] = []
        grouped = False
        dynamic = False  # some word is dynamic
        for child in node.children:
            kind = kinds[child.kind_id]
            if kind == "command_name":
                if child.child_count != 1:
                    word = self.container(child, cwds)
                    words.append(word)
                    dynamic = dynamic or word.dynamic
                    continue
                child = child.child(0)  # (no list of children built for one)
                kind = kinds[child.kind_id]
            elif kind != "word" and kind != "number":
                if kind in _REDIRECTS:
                    redirects.append(child)
                elif kind == "variable_assignment":
                    self.nested(child, cwds)
                elif kind == "subshell" or kind == "compound_statement":
                    self.stmt(child, cwds)  # `time (a && b)`: the group's commands stand alone
                    grouped = True
                elif kind != "comment" and child.is_named:
                    word = self.word(child, cwds)
                    words.append(word)
                    dynamic = dynamic or word.dynamic
                continue
            if source is not None and (kind == "word" or (kind == "number" and not child.child_count)):
                # The common case inlined (see BashWords.word): a plain ASCII word is its value.
                # (A number can hold a substitution, `16#$(cmd)`: BashWords.word scans it.)
                start = child.start_byte
                end = child.end_byte
                raw = source[start:end]
                if "\\" not in raw:
                    words.append(plain_word(raw, start, end))
                    continue
            word = self.word(child, cwds)
            words.append(word)
            dynamic = dynamic or word.dynamic
        if grouped and len(words) == 1 and words[0].value in ("time", "coproc", "nohup"):
            self.builder.seen = True
            return cwds
        if outer is not node:
            for child in outer.children:
                if kinds[child.kind_id] in _REDIRECTS:
                    redirects.append(child)
        excluded: list[tuple[int, int]] | None = None
        if redirects:
            excluded = []
            for redirect in redirects:
                self.redirect(redirect, cwds, excluded)
        self.builder.seen = True
        if not words:
            return cwds
        start = outer.start_byte
        end = outer.end_byte
        if excluded:
            parts = []
            at = start
            for a, b in excluded:
                parts.append(self.slice(at, a).rstrip(" "))
                at = b
            parts.append(self.slice(at, end))
            text = "".join(parts).strip()
        else:
            text = source[start:end] if source is not None else self.slice(start, end)
        if "{" in text:
            words = self.braced(words)
        try:
            return self.argv(words, text, start, end, cwds, dynamic)
        finally:
            self.stdin = NO_STDIN

    def braced(self, words: list[Word]) -> list[Word]:
        """`words` after bash's brace expansion (`cp a{,.bak}` -> `cp a a.bak`).

        Only unquoted literal words are expanded (exactly, see brace_expansion); a quoted
        word with an unquoted brace list (`"a"{b,c}`) or an expansion over MAX_WORDS
        words is left as written and marks the scan `unknown`.
        """
        out: list[Word] = []
        for word in words:
            raw = word.raw
            # No `,` and no `..`: no brace list or sequence, nothing to expand (`-I{}`, `{}`).
            if "{" not in raw or ("," not in raw and ".." not in raw):
                out.append(word)
                continue
            if word.dynamic and _NOT_LITERAL.search(raw) is not None:
                out.append(word)
                continue
            if "'" in raw or '"' in raw or "\\" in raw:
                bare = brace_words(_QUOTED.sub("_", raw))
                if bare is None or len(bare) > 1:
                    self.builder.unknown(f"brace expansion in a quoted word {raw}")
                out.append(word)
                continue
            expanded = brace_words(raw)  # tree-sitter makes `{1..3}` a dynamic word
            if expanded is None:
                self.builder.unknown(f"brace expansion of {_clip(raw)} makes over {MAX_WORDS} words")
                out.append(word)
            elif len(expanded) == 1 and expanded[0] == raw:
                out.append(word)
            else:
                for value in expanded:
                    out.append(Word.literal(value, word.start, word.end, raw))
        return out

    def declaration(self, node: Node, outer: Node, cwds: Cwds) -> None:
        argv: list[str] = []
        dynamic = False
        for child in node.children:
            if not child.is_named:
                argv.append(self.kinds[child.kind_id])
                continue
            raw = self.slice(child.start_byte, child.end_byte)
            if "$" in raw or "`" in raw or "(" in raw:  # `declare x=<(cmd)` too
                dynamic = True
                self.nested(child, cwds)
            argv.append(raw)
        self.builder.command(self.slice(outer.start_byte, outer.end_byte), argv, dynamic, [])

    def argv(
        self, words: list[Word], text: str, start: int, end: int, cwds: Cwds, dynamic_words: bool = True
    ) -> Cwds:
        """Judge one simple command given its words (name first) and its pattern text.

        `dynamic_words=False` promises that no word is dynamic (saves looking).
        """
        builder = self.builder
        resolver = self.resolver
        head = words[0]
        name = head.value
        wrappers: list[str] = []
        run_cwds = cwds
        real = words
        if len(words) > 1 and (name in WRAPPERS or name[:1] in "/\\"):
            unwrapped = unwrap(words)
            wrappers = unwrapped.wrappers
            if unwrapped.problem:
                builder.unknown(unwrapped.problem)
            for path in unwrapped.paths:
                resolver.check(path, cwds, wrappers[0] if wrappers else name)
            if unwrapped.chdir is not None:
                run_cwds = resolver.cd(unwrapped.chdir, cwds, "a wrapper's working directory")
            if unwrapped.index:
                real = words[unwrapped.index :]
                head = real[0]
                name = head.value
        if head.dynamic:
            builder.unknown(f"dynamic command name {head.raw}")
        elif name[:1] in "/\\":
            name = program_name(name)
        if wrappers and wrappers[-1] == "watch":
            return self.shell_string(real, run_cwds, "watch", text, words, start, end)
        role = _ROLES.get(name, 0)
        if role & _CD:
            builder.seen = True
            return self.cd(name, real[1:], run_cwds)
        args = real[1:]
        argv = [name]
        for word in args:  # a plain loop: cheaper than a comprehension's frame on 3.11
            argv.append(word.value)
        dynamic = dynamic_words and any(word.dynamic for word in real)
        # The real command's own text, normalised: `sudo /usr/bin/rm x` -> `rm x`, so a rule
        # written for the real command (`rm *`) sees it whatever wraps it.
        inner = prefix = ""
        if head.start > start or name != head.raw:
            inner = name + self.slice(head.end, end)
            prefix = self.slice(start, head.start).strip()
        builder.command(text, argv, dynamic, wrappers, inner, prefix)
        if not role:
            return cwds
        if role & _PATHS:
            operands = path_operands(name, args)
            if operands:
                if "xargs" in wrappers:
                    builder.unknown(f"xargs passes paths from its input to {name}")
                for word in operands:
                    if word.value != "{}":
                        resolver.check(word, run_cwds, name)
            elif "xargs" in wrappers and name in SPECS and SPECS[name].operands != "none":
                builder.unknown(f"xargs passes paths from its input to {name}")
        if role & _WRITES or (role & _GIT and git_writes(args)):
            self.writes(name, args, run_cwds, "xargs" in wrappers)
        if role & _RUNS:
            if name in POSIX_SHELLS:
                self.shell(name, args, run_cwds)
            elif name in FOREIGN_SHELLS:
                self.foreign(name, args, run_cwds)
            elif name == "eval":
                self.eval(args, run_cwds)
            elif name == "find":
                self.find_exec(args, run_cwds)
            elif name == "trap":
                self.trap(args, run_cwds)
            else:
                self.su(name, args, run_cwds)
        return cwds

    def writes(self, name: str, args: list[Word], cwds: Cwds, from_input: bool) -> None:
        """Report the files a file-modifying command writes (see scan_writes.written)."""
        resolver = self.resolver
        for target in written(name, args):
            word = target.word
            # `sed 'w /x'`, `git init /x`: not path operands, so checked here
            if not word.dynamic and (name not in SPECS or word not in args):
                resolver.check(word, cwds, name)
            resolver.target(word, cwds, target.into, target.directory)
        if from_input:
            self.builder.wrote("*")  # `xargs rm`: the files come from its input

    def cd(self, name: str, args: list[Word], cwds: Cwds) -> Cwds:
        operands = [w for w in args if not (w.value.startswith("-") and len(w.value) > 1 and not w.dynamic)]
        if name == "popd":
            if self.stack:
                return self.stack.pop()
            self.builder.unknown("popd without a matching pushd")
            return None
        if name == "pushd":
            if not operands or operands[0].value[:1] in "+-":
                self.builder.unknown("pushd without a directory rotates the directory stack")
                return None
            self.stack.append(cwds)
        return self.resolver.cd(operands[0] if operands else None, cwds, name)

    def nest(self, source: str, cwds: Cwds, what: str) -> None:
        if self.depth + 1 > MAX_DEPTH:
            self.builder.unknown(f"{what} nested deeper than {MAX_DEPTH} levels")
            return
        if not self.builder.rescan(source):
            return
        _BashScanner(source, self.builder, self.resolver, self.depth + 1).run(cwds)

    # words -----------------------------------------------------------------------------
