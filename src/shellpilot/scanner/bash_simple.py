"""Bash simple commands as the walker meets them: words, assignments, redirects (its own,
those after the list it ends, those of the compound commands around it), declarations,
and what an `echo` or `printf` stage of a pipeline prints.

Owns: `simple`, `declaration`, `printed_by` (a command node into a `CommandJudge.judge`
call; functions of the `BashWalker` whose state they read). Must not
touch: statements (bash_walk.py) or judging the command (bash_command.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from shellpilot.scanner.bash_names import ASSIGNERS, assigned_name_problem
from shellpilot.scanner.bash_nesting import NO_STDIN
from shellpilot.scanner.bash_redirects import REDIRECTS
from shellpilot.scanner.bash_words import expand_braces
from shellpilot.scanner.context import Cwds, ScanContext
from shellpilot.scanner.printed import printed
from shellpilot.scanner.program_variables import judge_variable
from shellpilot.scanner.words import Word, plain_word, shown

if TYPE_CHECKING:
    from tree_sitter import Node

    from shellpilot.scanner.bash_command import CommandJudge
    from shellpilot.scanner.bash_redirects import RedirectReader
    from shellpilot.scanner.bash_shell import BashShell
    from shellpilot.scanner.bash_source import BashSource
    from shellpilot.scanner.bash_words import WordReader
    from shellpilot.scanner.scan_result import ScanBuilder


class Walker(Protocol):
    """What these functions read and set of the bash walker (`bash_walk.BashWalker`), named
    here so this module needs no import of the walker that calls it."""

    kinds: dict[int, str]
    source: BashSource
    builder: ScanBuilder
    shell: BashShell
    words: WordReader
    judge: CommandJudge
    attached: dict[tuple[int, int], list[Node]]
    inherited: list[str]
    piped: str | None
    ctx: ScanContext
    depth: int

    def redirect_reader(self) -> RedirectReader: ...
    def stmt(self, node: Node, cwds: Cwds) -> Cwds: ...
    def nested(self, node: Node, cwds: Cwds) -> None: ...
    def globs(self, nodes: Sequence[Node], cwds: Cwds) -> None: ...


_BLANKS = re.compile(rb"(?:[ \t]|\\\r?\n)*")
_PLAIN = re.compile(rb"[-+\w./=:,%@^]+")


def _skipped(w: Walker, start: int, end: int, words: list[Word], *, strict: bool = True) -> None:
    """Text between two parts of a command that tree-sitter left out of the tree: a plain
    word there (`cd - 2>/dev/null` and `python3 - <<EOF` lose their `-`; `rm -rf\\<newline>
    2>&1 x` its `-rf`) is put back as a word; anything else makes the scan unknown when
    ``strict`` (bash reads it, the scanner did not). Blanks and backslash-newlines are
    what a gap should hold; one blank, the common case, is checked without slicing."""
    data = w.source.data
    if end - start == 1 and data[start] in b" \t":
        return
    gap = data[start:end]
    if _BLANKS.fullmatch(gap):
        return
    lost = gap.replace(b"\\\n", b"").strip(b" \t")
    if _PLAIN.fullmatch(lost) and lost.isascii():
        words.append(plain_word(lost.decode(), start, end))
    elif strict:
        w.builder.unknown(f"the parser skipped {lost.decode(errors='replace')!r} in a command")


def printed_by(w: Walker, node: Node) -> str | None:
    """What a pipeline stage prints, when it is a literal `echo`/`printf` (else None)."""
    if w.kinds[node.kind_id] != "command":
        return None
    argv: list[str] = []
    for child in node.children:
        kind = w.kinds[child.kind_id]
        if kind == "command_name":
            word = w.words.container(child, None)
        elif kind in REDIRECTS or kind == "variable_assignment":
            return None
        elif child.is_named:
            word = w.words.word(child, None)
        else:
            continue
        if word.dynamic:
            return None
        argv.append(word.value)
    return printed(argv, posix=w.shell.posix)


def _fd_of_redirect(w: Walker, number: Node, node: Node, outer: Sequence[Node]) -> bool:
    """Whether `number` is the file descriptor of the redirect written right after it:
    tree-sitter-bash reads the `0` of `bash 0<f -c x` or `0<<<x` as a word of its own
    before the redirect, where bash takes `0<` as one redirect of stdin."""
    end = number.end_byte
    if not (number.text or b"").isdigit():
        return False
    kinds = w.kinds
    return any(r.start_byte == end for r in outer) or any(
        c.start_byte == end and kinds[c.kind_id] in REDIRECTS for c in node.children
    )


def simple(w: Walker, node: Node, cwds: Cwds, outer: Sequence[Node]) -> Cwds:
    """One simple command with its own redirects and those in `outer` (written after
    it, or after the list or pipeline it ends)."""
    kinds = w.kinds
    source = w.source.text
    words: list[Word] = []
    prefix: list[Word] = []
    grouped: list[Node] = []
    texts: list[str] = []
    writes = False
    stdin: str | None = w.piped
    dynamic = False  # some word is dynamic
    # The first word may be a reserved word: nothing is written before it, and it starts
    # its pipeline (`x | time y` runs /usr/bin/time; in a group there, so taken too).
    keyword = stdin is NO_STDIN
    redirected: int | None = None  # where the first redirect was written
    if w.attached:
        outer = [*outer, *w.attached.pop((node.start_byte, node.end_byte), [])]
    last = node.start_byte
    for child in node.children:
        if child.start_byte > last:
            _skipped(w, last, child.start_byte, words)
        last = child.end_byte
        kind = kinds[child.kind_id]
        if kind == "command_name":
            if child.start_byte == child.end_byte:
                continue  # a MISSING name tree-sitter puts after `X=1 > f` (a syntax error)
            if child.child_count != 1:
                word = w.words.container(child, cwds)
                words.append(word)
                dynamic = dynamic or word.dynamic
                continue
            child = child.child(0)  # (no list of children built for one)
            kind = kinds[child.kind_id]
        elif kind != "word" and kind != "number":
            if kind in REDIRECTS:
                if not words:
                    keyword = False  # `<f time x`: `time` after a redirect is /usr/bin/time
                if redirected is None:
                    redirected = child.start_byte
                found = w.redirect_reader().read(child, cwds)
                if found is not None:
                    texts.append(found.text)
                    writes = writes or found.writes
                    if found.stdin is not NO_STDIN:
                        stdin = found.stdin
                    for word in found.words:
                        words.append(word)
                        dynamic = dynamic or word.dynamic
            elif kind == "variable_assignment":
                prefix.append(assignment(w, child, cwds))
            elif kind == "subshell" or kind == "compound_statement":
                grouped.append(child)  # `time (a && b)`: the group's commands stand alone
            elif kind != "comment" and child.is_named:
                word = w.words.word(child, cwds)
                words.append(word)
                dynamic = dynamic or word.dynamic
            continue
        if kind == "number" and _fd_of_redirect(w, child, node, outer):
            continue
        if source is not None and (kind == "word" or (kind == "number" and not child.child_count)):
            # The common case inlined (see WordReader.word): a plain ASCII word is its value.
            # (A number can hold a substitution, `16#$(cmd)`: WordReader.word scans it.)
            start = child.start_byte
            end = child.end_byte
            raw = source[start:end]
            if "\\" not in raw:
                words.append(plain_word(raw, start, end))
                continue
        word = w.words.word(child, cwds)
        words.append(word)
        dynamic = dynamic or word.dynamic
    after = [r.start_byte for r in outer if r.start_byte > last]
    if after:  # the word before the redirects of a statement: `cd - 2>/dev/null`
        _skipped(w, last, min(after), words, strict=False)
    for redirect in outer:
        if redirected is None or redirect.start_byte < redirected:
            redirected = redirect.start_byte
        found = w.redirect_reader().read(redirect, cwds)
        if found is not None:
            texts.append(found.text)
            writes = writes or found.writes
            if found.stdin is not NO_STDIN:
                stdin = found.stdin
            words.extend(found.words)
            dynamic = dynamic or any(w.dynamic for w in found.words)
    if w.inherited:
        texts += w.inherited
    w.builder.seen = True
    if grouped:
        inherited = w.inherited
        w.inherited = texts
        try:
            for group in grouped:
                w.stmt(group, cwds)
        finally:
            w.inherited = inherited
        if len(words) == 1 and words[0].value in ("time", "coproc", "nohup"):
            return cwds
    if not words:
        if writes:  # `X=1 > f`: a bare redirect
            w.builder.command(" ".join([*(w.shown() for w in prefix), *texts]), [], False, cwds=cwds or ())
        return cwds
    for word in words:
        if "{" in word.raw:
            words = expand_braces(words, w.builder.unknown)
            if not words:  # `{,}`: nothing is left to run
                return cwds
            break
    return w.judge.judge(
        words,
        cwds,
        prefix=prefix,
        redirects=texts,
        writes=writes,
        stdin=stdin,
        dynamic_words=dynamic,
        keyword=keyword,
        redirected=redirected,
    )


def assignment(w: Walker, node: Node, cwds: Cwds) -> Word:
    """A `NAME=value` word before a command (`FOO=1 npm test`), its value normalised."""
    w.nested(node, cwds)
    raw = w.source.of(node)
    name, eq, _ = raw.partition("=")
    values = [c for c in node.children if c.is_named and w.kinds[c.kind_id] != "variable_name"]
    if not eq or len(values) != 1 or "[" in name or "+" in name:
        judge_variable(name.partition("[")[0].rstrip("+"), None if values else "", cwds, w.ctx, w.depth)
        return Word(raw, raw, node.start_byte, node.end_byte, True, None)
    value = w.words.word(values[0], cwds)
    judge_variable(name, None if value.dynamic else value.value, cwds, w.ctx, w.depth)
    if value.dynamic:
        return Word(raw, raw, node.start_byte, node.end_byte, True, None)
    text = f"{name}={shown(value.value)}"
    return Word(text, text, node.start_byte, node.end_byte, False, text)


def judge_assignment(w: Walker, node: Node, cwds: Cwds) -> None:
    """`judge_variable` for a `variable_assignment` node that is not a command's prefix
    (`NAME=v` alone, `export NAME=v`): its value is read without scanning it again."""
    label = node.child_by_field_name("name")
    if label is None or label.text is None:
        return
    name = label.text.decode("utf-8", "replace").partition("[")[0]
    values = [c for c in node.children if c.is_named and c.id != label.id]
    raw = w.source.of(values[0]) if values else ""
    if "$" in raw or "`" in raw or len(values) > 1:
        judge_variable(name, None, cwds, w.ctx, w.depth)
    else:
        judge_variable(name, w.words.word(values[0], cwds).value if values else "", cwds, w.ctx, w.depth)


def declaration(w: Walker, node: Node, cwds: Cwds) -> None:
    """`export X=1`, `declare -a x`, `local y`, `unset z`: recorded as commands."""
    argv: list[str] = []
    named: list[Word] = []  # (each as written: bash_names reads its name as bash does)
    dynamic = False
    for child in node.children:
        if not child.is_named:
            argv.append(w.kinds[child.kind_id])
            continue
        raw = w.source.of(child)
        if w.kinds[child.kind_id] == "variable_assignment":
            judge_assignment(w, child, cwds)  # `export GIT_EXTERNAL_DIFF=rm`
        if "$" in raw or "`" in raw or "(" in raw:  # `declare x=<(cmd)` too
            dynamic = True
            w.nested(child, cwds)
        argv.append(raw)
        named.append(Word(raw, raw, child.start_byte, child.end_byte, True, None))
    text = " ".join([*argv, *w.inherited])
    w.builder.command(text, argv, dynamic, cwds=cwds or ())
    if argv and argv[0] in ASSIGNERS:
        problem = assigned_name_problem(argv[0], named)
        if problem is not None:
            w.builder.unknown(problem)
    # `export */`, `unset l*`: words that are no assignment are listed by the shell
    w.globs([c for c in node.children if w.kinds[c.kind_id] in ("word", "concatenation")], cwds)
    if argv and argv[0] == "unset":
        w.shell.defines("unset", [Word.literal(a) for a in argv[1:]])
