"""The bash-grammar scanner: walks a tree-sitter bash tree statement by statement.

Owns: statements (lists, pipelines, compound commands), the simulated cwd through them,
which command each redirect belongs to, and the nets for substitutions the walk did
not reach. Must not touch: judging one command (bash_command.py), reading words or
redirects (bash_words.py, bash_redirects.py) or results policy.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from shellpilot.scanner import bash_arith
from shellpilot.scanner.bash_command import CommandJudge
from shellpilot.scanner.bash_kinds import (
    BRANCHY,
    CHAINS,
    COMPOUND,
    PASSIVE,
    SEQUENCE,
    STATEMENTS,
    SUBSTITUTIONS,
)
from shellpilot.scanner.bash_names import SPECIAL_VARIABLES
from shellpilot.scanner.bash_nesting import NO_STDIN
from shellpilot.scanner.bash_nets import hidden, sweep
from shellpilot.scanner.bash_redirects import REDIRECTS, RedirectReader
from shellpilot.scanner.bash_shell import BashShell, with_arguments
from shellpilot.scanner.bash_simple import declaration, judge_assignment, printed_by, simple
from shellpilot.scanner.bash_source import BashSource
from shellpilot.scanner.bash_words import WordReader, expand_braces
from shellpilot.scanner.context import Cwds, ScanContext, union_cwds
from shellpilot.scanner.inline_code import interpreter
from shellpilot.scanner.program_variables import judge_variable
from shellpilot.scanner.scan_result import MAX_DEPTH, MAX_NESTING
from shellpilot.scanner.words import Word

if TYPE_CHECKING:
    from tree_sitter import Node


_BRACES = re.compile(r"\{[^{}\s]*(?:,|\.\.)[^{}\s]*\}")
_SPECIAL_NAMES = ("(" + "|".join(SPECIAL_VARIABLES) + ")").encode()
_SPECIAL = re.compile(
    rb"(?<![\w$])" + _SPECIAL_NAMES + rb"(\[[^\]]*\])?\+?="
    rb"|\$\{" + _SPECIAL_NAMES + rb"(\[[^\]]*\])?:?="
    rb"|(?<![\w$/.{-])" + _SPECIAL_NAMES + rb"(?![\w=\[+])"
    rb"|@P\}|\b(declare|local|typeset|readonly|export)\s+(-\w+\s+)*-\w*n"
)
"""Assignments to the variables through which bash itself runs or finds things (aliases,
the hash table, a file read by every new bash, the xtrace prompt, where `cd` and `~` go),
including a default `${CDPATH:=x}` and a bare mention of such a name, which a builtin may
assign (`read HOME`, `for HOME in`, `printf -v PS4`, `getopts`, `mapfile`, `(( ))`),
and prompt expansion `${x@P}` (it runs command substitutions) or a nameref, which may
make any of them: what runs then is not what the text shows."""
_ENV_NAME = re.compile(rb"[A-Z_][A-Z0-9_]*")
"""An environment-style variable name: upper case, digits and `_` only."""
_RUNS_INPUT = frozenset({"bash", "sh", "dash", "zsh", "ksh", "ash", "mksh", "source", "eval", "busybox"})


def scan_bash(source: str, cwds: Cwds, ctx: ScanContext, depth: int) -> Cwds:
    """Scan `source` as a new bash process runs it, starting in `cwds`; returns the cwds
    after it (`None`: unknowable). The `bash` entry of `ScanContext.grammars`."""
    return BashWalker(source, ctx, depth, BashShell()).run(cwds)


def scan_sh(source: str, cwds: Cwds, ctx: ScanContext, depth: int) -> Cwds:
    """`scan_bash` for a POSIX shell (`sh`, `dash`): it reads `$'\\x41'` and `{a,b}` as
    plain text where bash reads them as `A` and two words, and `&>` as `&` then `>`, so
    text holding any of them is unknown (the bash reading is scanned too). The `sh` entry
    of `ScanContext.grammars`."""
    if "$'" in source or _BRACES.search(source) is not None:
        ctx.builder.unknown("sh reads $'..' and {a,b} as plain text, unlike bash")
    if "&>" in source:
        # `cd &>/dev/null d; rm x`: sh runs `cd &` in the background and `>/dev/null d`
        # as a command, so rm runs here, not in d
        ctx.builder.unknown("sh reads &> as & (run in the background) and then >, unlike bash")
    return BashWalker(source, ctx, depth, BashShell(posix=True)).run(cwds)


def _special(data: bytes) -> str | None:
    """The first `_SPECIAL` match in `data` that matters (a `HOME=` only where `~` or
    `$HOME` is read too), as text; None without one. A backslash-newline is gone before
    bash reads a name (`HO\\<newline>ME=`), so it is dropped here first."""
    if b"\\\n" in data:
        data = data.replace(b"\\\n", b"")
    for match in _SPECIAL.finditer(data):
        name = match.group(1) or match.group(3) or match.group(5)
        if name == b"HOME" and b"~" not in data and b"HOME" not in data[match.end() :] and b"cd" not in data:
            continue
        return match.group(0).decode(errors="replace")
    return None


_FILE_TESTS = frozenset(b"-a -b -c -d -e -f -g -h -k -p -r -s -u -w -x -G -L -N -O -S".split())
_FILE_PAIRS = frozenset({b"-nt", b"-ot", b"-ef"})


def _probed(node: Node) -> list[Node]:
    """The operands of a test's file tests (`-e x`, `-f x`, `a -nt b`...)."""
    found: list[Node] = []
    todo = list(node.children)
    while todo:
        child = todo.pop()
        kind = child.type
        if kind in SUBSTITUTIONS:
            continue
        children = child.children
        if kind == "unary_expression" and len(children) == 2 and children[0].type == "test_operator":
            if children[0].text in _FILE_TESTS:
                found.append(children[1])
                continue
        elif kind == "binary_expression" and len(children) == 3 and children[1].text in _FILE_PAIRS:
            found += [children[0], children[2]]
            continue
        todo.extend(children)
    return found


def _glob_tokens(text: str) -> list[str]:
    """The words of `text` (split as bash splits a simple command's words) that hold an
    unquoted `*`, `?` or `[` and no expansion, with their quotes removed."""
    found: list[str] = []
    word: list[str] = []
    glob = dynamic = False
    quote = ""
    i = 0
    while i <= len(text):
        ch = text[i] if i < len(text) else " "
        if quote:
            if ch == "\\" and quote != "'" and i + 1 < len(text):
                i += 1
                word.append(text[i])
            elif ch == quote[-1]:
                quote = ""
            else:
                dynamic = dynamic or (quote == '"' and ch in "$`")
                word.append(ch)
        elif ch in " \t\n":
            if word and glob and not dynamic:
                found.append("".join(word))
            word, glob, dynamic = [], False, False
        elif ch == "\\" and i + 1 < len(text):
            i += 1
            word.append(text[i])
        elif ch == "$" and text[i + 1 : i + 2] == "'":
            quote = "$'"
            dynamic = True  # (an ANSI-C string is literal, but its escapes are not read here)
            i += 1
        elif ch in "'\"":
            quote = ch
        else:
            dynamic = dynamic or ch in "$`"
            glob = glob or ch in "*?["
            word.append(ch)
        i += 1
    return found


def _is_cd(node: Node) -> bool:
    """Whether statement `node` is a plain `cd`/`pushd` command (its redirects aside)."""
    if node.type == "redirected_statement" and node.child_count:
        node = node.children[0]
    if node.type != "command":
        return False
    name = node.child_by_field_name("name")
    # (`c\<newline>d` is cd: bash drops a backslash-newline before it reads the word)
    return name is not None and name.text is not None and name.text.replace(b"\\\n", b"") in (b"cd", b"pushd")


def _misread(root: Node) -> bool:
    """Whether tree-sitter-bash read a newline into a word: after a line ending in a plain
    word, a next line starting with `\\` (`true<newline>\\alias x`, a here-document body
    `\\tar cf ..`) comes out as one word `<newline>\\alias` of the line before, while
    bash runs it as a command of its own. No word of bash starts with a newline."""
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "word" and node.text is not None and node.text[:1] == b"\n":
            return True
        stack.extend(node.children)
    return False


class BashWalker:
    """Walks one bash text's statements, handing each simple command to a `CommandJudge`."""

    __slots__ = (
        "attached",
        "builder",
        "ctx",
        "depth",
        "inherited",
        "judge",
        "kinds",
        "piped",
        "redirects",
        "shell",
        "source",
        "visited",
        "words",
    )

    def __init__(self, source: str, ctx: ScanContext, depth: int, shell: BashShell) -> None:
        self.source = BashSource(source)
        self.kinds = self.source.kinds
        self.ctx = ctx
        self.builder = ctx.builder
        self.depth = depth
        self.shell = shell
        self.words = WordReader(self.source, self.nested)
        self.redirects: RedirectReader | None = None  # (made on the first redirect met)
        self.judge = CommandJudge(ctx, shell, depth, self.run_here)
        # Start bytes of the substitutions scanned so far (checked by `sweep`).
        self.visited: set[int] = set()
        # (start, end) of a statement -> redirect nodes written after the list or
        # pipeline it ends (`a && b > f`: the `> f` of `b`).
        self.attached: dict[tuple[int, int], list[Node]] = {}
        # Texts of the redirects of the compound commands around the statement walked now
        # (`{ a; b; } > f`: `> f` belongs to `a` and to `b`).
        self.inherited: list[str] = []
        # What the command walked now reads from a pipe: the text (`echo x | sh`), None
        # when unknown, NO_STDIN when it is not in a pipeline.
        self.piped: str | None = NO_STDIN

    def run(self, cwds: Cwds) -> Cwds:
        """Scan the whole text from `cwds`; returns the cwds after it."""
        builder = self.builder
        data = self.source.data
        tree = self.source.parse()
        self.words.text = self.source.text  # (parse may have removed line continuations)
        if tree is None:
            builder.unknown(f"a {len(data):,}-byte command too costly to parse")
            builder.seen = True  # (not "no command found": it was not looked at)
            return None
        root = tree.root_node
        if root.has_error:
            builder.unknown(f"could not parse {self.source.short(root)} (syntax error)")
        special = _special(data)
        if special is not None:
            builder.unknown(f"{special} changes what bash runs or where")
        if bash_arith.HINT.search(data) is not None:
            risk = bash_arith.arithmetic_risk(root)
            if risk is not None:
                builder.unknown(f"{risk}: bash evaluates that value as arithmetic, which may run a command")
        if b"\n\\" in data and _misread(root):
            builder.unknown("a line starting with `\\name` that the parser joined to the line before")
        out = self.sequence(root.children, cwds)
        # Every substitution node starts at its own `$(`, `<(`, `>(` or backtick, so when the
        # walk visited as many as the text has openers, it visited them all; otherwise
        # (`$((`, quoted text, a syntax error) the tree is searched.
        if b"(" in data or b"`" in data:
            openers = data.count(b"$(") + data.count(b"<(") + data.count(b">(") + data.count(b"`")
            if openers and (openers != len(self.visited) or root.has_error):
                sweep(self, root)
                # Live substitutions are at most the `$(`/`<(`/`>(` plus half the backticks
                # (rounded up); fewer visited means bash may run one the tree does not show.
                backticks = data.count(b"`")
                if openers - backticks + (backticks + 1) // 2 > len(self.visited):
                    hidden(self)
        return out

    def redirect_reader(self) -> RedirectReader:
        """The reader of this text's redirects."""
        if self.redirects is None:
            self.redirects = RedirectReader(self.source, self.words, self.ctx, self)
        return self.redirects

    def run_here(self, source: str, cwds: Cwds, what: str) -> Cwds:
        """Scan `source` as run by this same shell (`eval`, `trap`): its `pushd` stack is
        shared; returns the cwds after it."""
        builder = self.builder
        if self.depth + 1 > MAX_DEPTH:
            builder.unknown(f"{what} nested deeper than {MAX_DEPTH} levels")
            return None
        if not builder.rescan(source):
            return None
        return BashWalker(source, self.ctx, self.depth + 1, self.shell).run(cwds)

    def sweep(self, root: Node) -> None:
        """The safety net for substitutions the walk missed (see bash_nets.sweep)."""
        sweep(self, root)

    # statements ----------------------------------------------------------------------------

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
        """Scan one statement starting in `cwds`; returns the cwds after it."""
        kind = self.kinds[node.kind_id]
        if kind == "command":
            return simple(self, node, cwds, ())
        if self.attached and kind in COMPOUND:
            extra = self.attached.pop((node.start_byte, node.end_byte), None)
            if extra is not None:
                return self.compound(node, extra, cwds)
        if kind == "list":
            return self.chain(node, cwds)
        if kind == "pipeline":
            return self.pipeline(node, cwds)
        if kind == "redirected_statement":
            return self.redirected(node, cwds)
        if kind in SEQUENCE:
            return self.sequence(node.children, cwds)
        if kind == "subshell":
            children = node.children
            if (
                len(children) > 1
                and children[1].type == "subshell"
                and children[1].start_byte == node.start_byte + 1
            ):
                # `time (( x ))`, `! (( x ))`: tree-sitter reads two subshells where bash
                # reads arithmetic (which may evaluate a value the text does not show)
                self.builder.unknown("`((` read as two subshells; bash may read it as arithmetic")
            self.sequence(children, cwds)
            return cwds
        if kind == "function_definition":
            return self.function(node, cwds)
        if kind in BRANCHY:
            self.builder.seen = True
            if kind == "for_statement":
                self.globs(node.children, cwds)  # `for f in /outside/*`: the shell lists it
                self.environment(node, cwds)  # `for PATH in /x/bin; do ls; done`
            return union_cwds(cwds, self.sequence(node.children, cwds))
        if kind == "negated_command":
            return self.sequence(node.children, cwds)
        if kind in ("declaration_command", "unset_command"):
            declaration(self, node, cwds)
            return cwds
        if kind in ("variable_assignment", "variable_assignments", "test_command"):
            self.builder.seen = True
            if kind != "test_command":
                self.environment(node, cwds)
            else:
                if node.child_count and node.children[0].type == "[":
                    self.test_globs(node, cwds)  # `[ -e */x ]` is a command: its words are listed
                self.probes(node, cwds)
            self.nested(node, cwds)
            for child in node.children:  # `x=(~/.ssh/*)`: an array's globs are listed
                if self.kinds[child.kind_id] == "array":
                    self.globs(child.children, cwds)
            return cwds
        if kind in SUBSTITUTIONS:
            self.substitution(node, cwds)
            return cwds
        if kind == "comment":
            return cwds
        if kind in PASSIVE:
            self.builder.seen = True  # an expression such as `((i++))`: runs nothing itself
            self.nested(node, cwds)
            return cwds
        if kind == "ERROR":
            return self.sequence(node.children, cwds)
        self.builder.unknown(f"unsupported syntax ({kind}) in {self.source.short(node)}")
        self.nested(node, cwds)
        return cwds

    def environment(self, node: Node, cwds: Cwds) -> None:
        """A bare assignment to an environment-style name (no lower-case letter: `PATH=`,
        `LD_PRELOAD=`, `GIT_DIR=`, the variable of `for NAME in`) is recorded as a command of
        its own, `NAME=value` (`NAME=` for a loop).
        Such a name is usually exported already, so it changes every program run after
        it (`PATH=/x/bin; ls` runs /x/bin/ls); as a command it needs a permission like
        any other and is never read-only."""
        kind = self.kinds[node.kind_id]
        assignments = [node] if kind in ("variable_assignment", "for_statement") else node.named_children
        for child in assignments:
            name = child.child_by_field_name("variable" if kind == "for_statement" else "name")
            if name is None or name.text is None:
                continue
            label = name.text.split(b"[", 1)[0]
            if label.lower() == label or not _ENV_NAME.fullmatch(label):
                continue
            if kind == "for_statement":
                judge_variable(label.decode("utf-8", "replace"), None, cwds, self.ctx, self.depth)
            elif self.kinds[child.kind_id] == "variable_assignment":
                judge_assignment(self, child, cwds)
            raw = self.source.of(child) if kind != "for_statement" else label.decode() + "="
            dynamic = "$" in raw or "`" in raw
            self.builder.command(raw, [raw], dynamic, always=raw, cwds=cwds or ())

    def test_globs(self, node: Node, cwds: Cwds) -> None:
        """The globs of a `[ ... ]` command, which the shell lists. Read from the text as
        bash splits it, not from the tree: tree-sitter reads the inside as an expression
        and may split a word (`[ -$'\\x65' */x ]` comes out as `-`, `$'..' * /x`)."""
        children = node.children
        inner = self.source.of(node)[len(self.source.of(children[0])) :]
        if children[-1].type == "]":
            inner = inner[: len(inner) - 1]
        words = [Word.literal(token) for token in _glob_tokens(inner)]
        self.judge.globs(words, cwds, "a glob")

    def probes(self, node: Node, cwds: Cwds) -> None:
        """The files a test looks at (`[ -e ~/.ssh/id_rsa ]`, `[[ a -nt /x ]]`): an outside
        one names its directory, as a reader's operand does. Dynamic operands are left to
        the commands that use them."""
        resolver = self.ctx.resolver
        for operand in _probed(node):
            if operand.type == "unary_expression":  # tree-sitter's `~` `/x` for `~/x`
                raw = self.source.of(operand)
                word = Word.literal(raw) if "$" not in raw and "`" not in raw else None
            else:
                word = self.words.word(operand, cwds)
            if word is not None and not word.dynamic and word.value:
                resolver.check(word, cwds, "test")

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
        resolver = self.ctx.resolver
        resolver.last_cd = None
        out = self.stmt(first, cwds)
        last = resolver.last_cd if _is_cd(first) else None
        for current in reversed(lists):
            left = right = out
            if last is not None and last[0] is left and current.children[1].type == "&&":
                left = last[1]  # `cd d && x`: x runs only where the cd succeeded
            last = None
            for child in current.children[1:]:
                if child.is_named:
                    right = self.stmt(child, left)
            out = union_cwds(out, right)
        return out

    def pipeline(self, node: Node, cwds: Cwds) -> Cwds:
        """`a | b | c`: each stage from the same cwds; a stage reads what the one before it
        prints when that is known (`echo 'rm x' | sh` runs `rm x`), else something unknown."""
        out = cwds
        kinds = self.kinds
        saved = self.piped
        before: Node | None = None
        start = cwds
        try:
            for child in node.children:
                if child.is_named and kinds[child.kind_id] != "comment":
                    if before is not None:
                        # only a stage that may run its input needs what the one before prints
                        self.piped = printed_by(self, before) if self.runs_input(child) else None
                    after = self.stmt(child, start)
                    out = union_cwds(out, after)
                    inner = child.children[0] if kinds[child.kind_id] == "redirected_statement" else child
                    if kinds[inner.kind_id] == "list":
                        # tree-sitter reads `cd d && a 2>/dev/null | b` as `(cd d && a) | b`;
                        # bash runs `cd d && (a | b)`: b may start where the list left off
                        start = union_cwds(start, after)
                    before = child
        finally:
            self.piped = saved
        return out

    def runs_input(self, node: Node) -> bool:
        """Whether a pipeline stage may run the text it reads: a shell, `source`, `eval`,
        or anything not a plain command (its first word is read as the source shows it)."""
        if self.kinds[node.kind_id] != "command":
            return True
        name = node.child_by_field_name("name")
        if name is None:
            return True
        text = self.source.of(name).rsplit("/", 1)[-1].strip("'\"\\")
        return text in _RUNS_INPUT or interpreter(text) is not None or not text.isidentifier()

    def substitution(self, node: Node, cwds: Cwds) -> None:
        """`$(..)`, backticks, `<(..)`, `>(..)`: their commands, outside any redirect of
        the command they sit in (their output is captured, not redirected)."""
        self.visited.add(node.start_byte)
        inherited, piped = self.inherited, self.piped
        self.inherited, self.piped = [], NO_STDIN
        try:
            self.sequence(node.children, cwds)
        finally:
            self.inherited, self.piped = inherited, piped

    def globs(self, nodes: Sequence[Node], cwds: Cwds) -> None:
        """The globs of a for list or an array (see CommandJudge.globs)."""
        kinds = self.kinds
        words = [self.words.word(c, cwds) for c in nodes if kinds[c.kind_id] in ("word", "concatenation")]
        self.judge.globs(words, cwds, "a glob")

    def nested(self, node: Node, cwds: Cwds) -> None:
        """Scan the command substitutions anywhere below `node` (not commands themselves)."""
        kinds = self.kinds
        todo = [node]
        while todo:
            current = todo.pop()
            kind = kinds[current.kind_id]
            if kind in SUBSTITUTIONS:
                self.substitution(current, cwds)
            elif current.child_count:
                if kind in STATEMENTS and current is not node:
                    self.stmt(current, cwds)
                else:
                    todo.extend(current.children)

    def redirected(self, node: Node, cwds: Cwds) -> Cwds:
        """A statement with redirects after it: they belong to the command they apply to
        (the last one of a list or pipeline; all of a compound command's commands)."""
        kinds = self.kinds
        body: Node | None = None
        redirects: list[Node] = []
        for child in node.children:
            if kinds[child.kind_id] in REDIRECTS:
                redirects.append(child)
            elif child.is_named and body is None:
                body = child
        if self.attached:
            redirects += self.attached.pop((node.start_byte, node.end_byte), [])
        if body is None:
            return self.bare(redirects, cwds)
        kind = kinds[body.kind_id]
        if kind == "command":
            return simple(self, body, cwds, redirects)
        if kind in CHAINS:
            target = body
            while kinds[target.kind_id] in CHAINS:
                last = [c for c in target.children if c.is_named and kinds[c.kind_id] != "comment"]
                if not last:
                    break
                target = last[-1]
            key = (target.start_byte, target.end_byte)
            self.attached.setdefault(key, []).extend(redirects)
            out = self.stmt(body, cwds)
            left = self.attached.pop(key, None)
            if left:  # the target was not reached as a statement: apply them here
                self.compound_redirects(left, cwds)
            return out
        return self.compound(body, redirects, cwds)

    def compound(self, node: Node, redirects: list[Node], cwds: Cwds) -> Cwds:
        """A compound command (subshell, group, loop, if, case, function) with redirects
        that apply to every command inside it."""
        texts, writes = self.compound_redirects(redirects, cwds)
        before = len(self.builder.commands)
        inherited = self.inherited
        self.inherited = inherited + texts
        try:
            out = self.stmt(node, cwds)
        finally:
            self.inherited = inherited
        if writes and len(self.builder.commands) == before:
            self.builder.command(" ".join(inherited + texts), [], False, cwds=cwds or ())
        return out

    def compound_redirects(self, redirects: list[Node], cwds: Cwds) -> tuple[list[str], bool]:
        """Read the redirects of a compound command: (their texts, one of them writes)."""
        texts: list[str] = []
        writes = False
        for node in redirects:
            found = self.redirect_reader().read(node, cwds)
            if found is None:
                continue
            texts.append(found.text)
            writes = writes or found.writes
            if found.words:
                self.builder.unknown(f"words after a compound command's redirect: {found.text}")
        return texts, writes

    def bare(self, redirects: list[Node], cwds: Cwds) -> Cwds:
        """Redirects with no command (`> f`, `>> log`): a command that writes its targets."""
        self.builder.seen = True
        texts: list[str] = []
        words: list[Word] = []
        writes = False
        for node in redirects:
            found = self.redirect_reader().read(node, cwds)
            if found is not None:
                texts.append(found.text)
                words.extend(found.words)
                writes = writes or found.writes
        if words:  # `> f rm x`: the words after the target are the command
            # (`time` there is no keyword: a redirect comes first, so it is /usr/bin/time)
            words = expand_braces(words, self.builder.unknown)
            return self.judge.judge(words, cwds, redirects=texts, keyword=False) if words else cwds
        if writes or self.inherited:
            self.builder.command(" ".join(texts + self.inherited), [], False, cwds=cwds or ())
        return cwds

    def function(self, node: Node, cwds: Cwds) -> Cwds:
        """`f() { ..; } > out`: the body is scanned where it is defined (it may run in ways
        the text does not show: a trap, a dynamic name) and again from each call's cwds
        (see CommandJudge.indirect); redirects written after the body apply to every
        command in it."""
        self.builder.seen = True
        kinds = self.kinds
        redirects = [c for c in node.children if kinds[c.kind_id] in REDIRECTS]
        body = [c for c in node.children if kinds[c.kind_id] not in REDIRECTS]
        names = [c for c in body if kinds[c.kind_id] == "word"]
        texts, _ = self.compound_redirects(redirects, cwds) if redirects else ([], False)

        parts = [c for c in body if c.is_named and kinds[c.kind_id] != "word"]
        text = " ".join(self.source.of(c) for c in parts)

        def run(at: Cwds, args: list[Word] | None) -> Cwds:
            # (None: arguments unknown, as where it is defined; `[]`: a call without any,
            # where `"$@"` is no word at all)
            if args is not None and "$" in text:  # `f() { rm "$@"; }; f x`: the call's arguments in place
                called = " ".join([with_arguments(text, args), *texts])
                return self.run_here(called, at, "a function call")
            inherited = self.inherited
            self.inherited = inherited + texts
            try:
                return self.sequence(body, at)
            finally:
                self.inherited = inherited

        if names:
            self.shell.functions[self.source.of(names[0])] = run
        return union_cwds(cwds, run(cwds, None))

    # simple commands -------------------------------------------------------------------------
