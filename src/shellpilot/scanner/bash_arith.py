"""Arithmetic that may run a command the text does not show.

Owns: finding bash's arithmetic contexts in a parsed text and judging whether a value the
text does not show reaches one (`arithmetic_risk`). Must not touch: the walk (bash_walk.py)
or paths.

Why: bash evaluates the value of a variable named in arithmetic as an expression in turn,
and an array subscript in that expression may hold a command substitution. With
`x='a[$(rm -rf ~)]'`, each of `[[ $x -eq 0 ]]`, `(( x ))`, `$((x))`, `${arr[x]}`,
`${s:x}`, `let y=x` and `declare -i y=x` runs rm. So a value read from a file
(`[[ $(cat VERSION) -gt 1 ]]`, `read n < f; echo $((n+1))`) runs whatever a cloned
repository wrote there, behind commands that look read-only.

A name is safe in arithmetic only when this text gives it numbers alone (`i=0`, an
arithmetic assignment such as `i++`, `for i in 1 2 3`) or bash keeps it a number (`$#`,
`$?`, `RANDOM`...). Anything else there (a command's output, a name from the environment,
`read`, a positional parameter) makes the scan unknown.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node

HINT = re.compile(
    rb"\(\(|\$\[|\s-(?:eq|ne|lt|le|gt|ge)\b|\blet\b|\w\[|\$\{\w+:"
    rb"|\b(?:declare|local|typeset|export|readonly)\b[^\n;|&]*\s-\w*i"
)
"""Text without any of these has no arithmetic context (a cheap test before the walk)."""

_TEST_OPERATORS = frozenset({b"-eq", b"-ne", b"-lt", b"-le", b"-gt", b"-ge"})
_ASSIGNING = frozenset({b"=", b"+=", b"-=", b"*=", b"/=", b"%=", b"<<=", b">>=", b"&=", b"^=", b"|="})
_NUMERIC_SPECIALS = frozenset({"#", "?", "$", "!", "-"})
"""`$#`, `$?`, `$$`, `$!` are numbers (`$-` holds option letters, which only name
variables bash sets itself)."""
_BASH_NUMBERS = frozenset(
    {"RANDOM", "SRANDOM", "LINENO", "SECONDS", "BASHPID", "PPID", "UID", "EUID", "OPTIND", "EPOCHSECONDS"}
)
"""Variables bash keeps numeric itself."""
_READERS = frozenset({b"read", b"mapfile", b"readarray", b"getopts", b"printf"})
"""Builtins that assign names given as words (`read n`, `printf -v n`)."""
_HUNG_HEADS = frozenset({b"let", b"declare", b"typeset", b"local", b"export", b"readonly"})
"""Builtins `_Arithmetic.hung` looks for among the words hung on redirects."""
_NAME = re.compile(r"[A-Za-z_]\w*")
_NUMBER = re.compile(rb"-?(?:0[xX][0-9a-fA-F]+|\d+(?:#\w+)?)")
_LET_NAME = re.compile(
    r"([A-Za-z_]\w*)\s*(?:[-+*/%&^|]|<<|>>)?=(?!=)|([A-Za-z_]\w*)\s*(?:\+\+|--)|(?:\+\+|--)\s*([A-Za-z_]\w*)"
)
"""The names a `let` word assigns (`i=0`, `n+=2`, `i++`, `--j`): they become numbers."""
_NAMED = frozenset({"variable_name", "word", "string_content", "raw_string", "ansi_c_string"})
"""Nodes whose text may name variables in arithmetic: bash removes quotes there, so
`(( "x" ))`, `$(( "x" ))`, `[[ "x" -eq 1 ]]` and `${a["x"]}` evaluate x's value."""


class _Arithmetic:
    """One pass over a tree: what names are given (numbers or not), where arithmetic is."""

    __slots__ = ("contexts", "given", "numeric", "words")

    def __init__(self) -> None:
        self.numeric: set[str] = set()  # names given a number somewhere
        self.given: set[str] = set()  # names given anything not known to be a number
        self.contexts: list[tuple[Node, str]] = []  # (node, what it is) to judge
        self.words: list[tuple[str, str]] = []  # (`let` word text, what) to judge

    def collect(self, root: Node) -> None:
        stack = [root]
        while stack:
            node = stack.pop()
            kind = node.type
            if kind == "variable_assignment":
                self.assignment(node)
            elif kind == "compound_statement" and node.child_count and node.children[0].type == "((":
                self.arithmetic(node, "(( ))")
            elif kind == "arithmetic_expansion":
                self.arithmetic(node, "$(( ))")
            elif kind == "c_style_for_statement":
                for child in node.children:
                    if child.type == "do_group":
                        break
                    self.arithmetic(child, "for (( ))")
            elif kind == "binary_expression":
                operator = node.child_by_field_name("operator")
                if operator is not None and operator.text in _TEST_OPERATORS:
                    for child in node.children:
                        if child.is_named and child.type != "test_operator":
                            self.arithmetic(child, f"[[ {operator.text.decode()} ]]")
            elif kind == "subscript":
                index = node.child_by_field_name("index")
                if index is not None:
                    self.arithmetic(index, "an array subscript")
            elif kind == "expansion":
                self.substring(node)
            elif kind == "for_statement":
                self.loop(node)
            elif kind == "declaration_command":
                self.declaration(node)
            elif kind == "command":
                self.command(node)
            elif kind == "redirected_statement" and not any(c.type == "command" for c in node.children):
                self.hung(node)
            stack.extend(node.children)

    def hung(self, node: Node) -> None:
        """A statement tree-sitter read as redirects only (`2>&1 let y=x`: `let` and
        `y=x` hang on the redirects as their extra words): bash runs those words as a
        command, so a `let` or `declare -i` among them is judged too."""
        words = [w for child in node.children if child.type == "file_redirect" for w in _extra(child)]
        if not words or words[0].text not in _HUNG_HEADS:
            return
        texts = [(w.text or b"").decode(errors="replace") for w in words[1:]]
        if words[0].text == b"let":
            self.words += [(text, "let") for text in texts]
        elif any(t[:1] == "-" and "i" in t and not t.startswith("--") for t in texts):
            self.words += [(t.split("=", 1)[1], "declare -i") for t in texts if "=" in t]

    def assignment(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        if name is None or name.type != "variable_name" or name.text is None:
            return
        value = node.child_by_field_name("value")
        text = value.text if value is not None else b""
        if (
            text == b""
            or (value is not None and value.type in ("number", "arithmetic_expansion"))
            or _NUMBER.fullmatch(text or b"")
        ):
            self.numeric.add(name.text.decode())
        else:
            self.given.add(name.text.decode())

    def arithmetic(self, node: Node, what: str) -> None:
        self.contexts.append((node, what))
        # names an arithmetic assignment gives (`i++`, `n += 2`) become numbers
        stack = [node]
        while stack:
            item = stack.pop()
            kind = item.type
            if kind in ("binary_expression", "postfix_expression", "unary_expression"):
                left = item.children[0] if item.child_count else None
                right = item.children[-1] if item.child_count else None
                operator = item.child_by_field_name("operator")
                assigns = operator is not None and operator.text in _ASSIGNING
                steps = any(c.type in ("++", "--") for c in item.children)
                if assigns or (steps and kind == "postfix_expression"):
                    self.number(left)
                elif steps:
                    self.number(right)
            stack.extend(item.children)

    def number(self, node: Node | None) -> None:
        if node is not None and node.type in ("variable_name", "word") and node.text is not None:
            text = node.text.decode()
            if _NAME.fullmatch(text):
                self.numeric.add(text)

    def substring(self, node: Node) -> None:
        """`${s:offset:length}`: both are arithmetic (`${x:-y}` and the like are not)."""
        after = False
        for child in node.children:
            if after and child.is_named:
                self.arithmetic(child, "${s:offset}")
            elif child.type == ":":
                after = True

    def loop(self, node: Node) -> None:
        name = node.child_by_field_name("variable")
        if name is None or name.text is None:
            return
        values = node.children_by_field_name("value")
        if values and all(v.type == "number" or _NUMBER.fullmatch(v.text or b"x") for v in values):
            self.numeric.add(name.text.decode())
        else:
            self.given.add(name.text.decode())

    def declaration(self, node: Node) -> None:
        """`declare -i y=x`: the value of an integer variable is arithmetic."""
        trailing = _trailing(node)
        words = [c for c in node.children if c.type == "word"] + trailing
        flags = [c.text for c in words if c.text and c.text.startswith(b"-")]
        if not any(b"i" in flag and not flag.startswith(b"--") for flag in flags):
            return
        for child in node.children:
            if child.type == "variable_assignment":
                value = child.child_by_field_name("value")
                if value is not None:
                    self.arithmetic(value, "declare -i")
        for word in trailing:  # `declare 2>&1 -i y=x`: the redirect took the words
            text = (word.text or b"").decode(errors="replace")
            if "=" in text:
                self.words.append((text.split("=", 1)[1], "declare -i"))

    def command(self, node: Node) -> None:
        name = node.child_by_field_name("name")
        if name is None or name.text is None:
            return
        head = name.text
        arguments = node.children_by_field_name("argument") + _trailing(node)
        if head == b"let":
            for word in arguments:
                text = (word.text or b"").decode(errors="replace")
                self.words.append((text, "let"))
                for match in _LET_NAME.finditer(text):
                    self.numeric.add(str(match.group(1) or match.group(2) or match.group(3)))
        elif head in _READERS:
            for word in arguments:
                value = word.text or b""
                if not value.startswith(b"-") and _NAME.fullmatch(value.decode(errors="replace")):
                    self.given.add(value.decode())

    def safe(self, name: str) -> bool:
        if name in _NUMERIC_SPECIALS or name in _BASH_NUMBERS:
            return True
        return name in self.numeric and name not in self.given

    def judge(self, node: Node) -> str | None:
        """What in the context `node` may be a value the text does not show, or None."""
        stack = [node]
        while stack:
            item = stack.pop()
            kind = item.type
            if kind in ("command_substitution", "process_substitution"):
                return "a command's output"
            if kind in ("simple_expansion", "expansion"):
                children = item.children
                if any(c.type == "#" for c in children[:2]):
                    continue  # `${#x}`: a length
                names = [c for c in children if c.type in ("variable_name", "special_variable_name")]
                if not names:
                    return f"{(item.text or b'').decode(errors='replace')}"
                text = (names[0].text or b"").decode()
                if not self.safe(text):
                    return f"${text}"
                stack.extend(c for c in children if c.type not in ("variable_name", "special_variable_name"))
                continue
            if kind in _NAMED and item.text is not None:
                text = item.text.decode(errors="replace")
                if _NUMBER.fullmatch(item.text):
                    continue
                for name in _NAME.findall(text):
                    if not self.safe(name):
                        return str(name)
                if "$" in text or "`" in text:
                    return text
                continue
            stack.extend(item.children)
        return None


def _trailing(node: Node) -> list[Node]:
    """The words tree-sitter hangs on a redirect after its target (`let 2>&1 y=x`: `y=x`
    is under the redirect), which are the command's own words to bash."""
    parent = node.parent
    if parent is None or parent.type != "redirected_statement":
        return []
    found: list[Node] = []
    for child in parent.children:
        if child.type == "file_redirect":
            found += _extra(child)
    return found


def _extra(redirect: Node) -> list[Node]:
    """The words a `file_redirect` node holds after its target."""
    named = [c for c in redirect.children if c.is_named and c.type != "file_descriptor"]
    return named[1:]


def arithmetic_risk(root: Node) -> str | None:
    """Describe the first arithmetic context of the tree under `root` that a value the
    text does not show may reach (`[[ $n -gt 1 ]] (n)`), or None when every name in each
    is a number the text gives."""
    found = _Arithmetic()
    found.collect(root)
    for node, what in found.contexts:
        risk = found.judge(node)
        if risk is not None:
            return f"{what} of {risk}"
    for text, what in found.words:
        if "$" in text or "`" in text:
            return f"{what} {text}"
        for name in _NAME.findall(text):
            if not found.safe(name):
                return f"{what} of {name}"
    return None
