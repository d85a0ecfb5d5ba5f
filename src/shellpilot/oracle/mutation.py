"""A seeded mutation fuzzer: command lines rewritten into forms bash reads the same way.

Owns: the mutation operators and the deterministic `Fuzzer` that grows a seed corpus.
Must not touch: running or judging commands (campaign.py, judge.py).

Operators (each returns None where it does not apply): tabs and extra blanks,
backslash-newlines, quoting of words (``''``, ``""``, ``$'..'``, ``\\x``), globs and braces
in the command position, parameter expansion (``${X:-cmd}``, ``$IFS``), redirects before,
between and after operands and on pipelines, lists, subshells, groups and loops, bare
redirects, wrappers, aliases, ``hash -p`` and functions, text piped into a shell, ``eval``,
``source`` and ``.``, here-documents, and ``cd`` into nested repositories and through
symlinks first. Output depends only on the seed and the inputs.
"""

from __future__ import annotations

import itertools
import random
import shlex
from collections.abc import Callable, Iterator, Sequence

from shellpilot.oracle.lexer import RESERVED, Token, command_words, rebuild, tokens

Mutation = Callable[[random.Random, str], str | None]

_NULL_REDIRECTS = ("2>/dev/null", "</dev/null", ">/dev/null", "2>&1", "1>&2", "&>/dev/null", "2> /dev/null")
_WRAPPERS = (
    "env ",
    "env -u X ",
    "command ",
    "nice ",
    "nice -n 5 ",
    "timeout 5 ",
    "timeout -s KILL 5 ",
    "stdbuf -o0 ",
    "taskset -c 0 ",
    "ionice -c 3 ",
    "chrt -o 0 ",
    "setsid ",
    "nohup ",
    "flock /outside/l ",
    "time ",
    "time -p ",
    "xargs ",
    "exec ",
)
_CD = (
    "cd sub && ",
    "cd sub; ",
    "cd mod && ",
    "pushd sub >/dev/null && ",
    "cd lnk && ",
    "cd docs; ",
    "cd inner && ",
    "cd src && cd .. && ",
    "cd ~ && ",
    "cd /outside && ",
    "cd -P lnk && ",
)
_BARE_TARGETS = (
    "bare.txt",
    "src/bare.py",
    ".git/hooks/post-checkout",
    "/outside/bare",
    "~/bare",
    "lnk/bare",
    "conf.txt",
)


def _pick(rng: random.Random, items: Sequence[str]) -> str:
    return items[rng.randrange(len(items))]


_STRUCTURED = frozenset({"for", "case", "select", "[[", "function", "coproc"})
"""Words after which operands are not a simple command's (loop lists, patterns, tests)."""


def _words(line: str, anywhere: bool = False) -> tuple[list[Token], list[int]] | None:
    """Tokens and word indexes of ``line``; None when the lexer cannot follow it or, unless
    ``anywhere``, when it holds a construct whose words are not plain operands."""
    toks = tokens(line)
    if toks is None:
        return None
    words = [i for i, t in enumerate(toks) if t.kind == "word"]
    if not anywhere and any(toks[i].bare in _STRUCTURED for i in words):
        return None
    solid = [t.text for t in toks if t.kind != "space"]
    if not anywhere and any(solid[i : i + 2] == ["(", ")"] for i in range(1, len(solid))):
        return None  # a function definition: its name takes no redirect, quote or wrapper
    return toks, words


def _redirect_target(toks: list[Token], index: int) -> bool:
    """Is word ``index`` the target of the redirect before it?"""
    before = [t for t in toks[:index] if t.kind != "space"]
    return bool(before) and before[-1].kind == "redirect"


def blank(rng: random.Random, line: str) -> str | None:
    """A blank between words becomes a tab, several blanks, or a backslash-newline."""
    found = _words(line, anywhere=True)
    if found is None:
        return None
    spaces = [i for i, t in enumerate(found[0]) if t.kind == "space" and t.text == " "]
    if not spaces:
        return None
    return rebuild(line, found[0], _pick_int(rng, spaces), _pick(rng, ("\t", "  ", " \t ", " \\\n", "\\\n ")))


def _pick_int(rng: random.Random, items: Sequence[int]) -> int:
    return items[rng.randrange(len(items))]


def continuation(rng: random.Random, line: str) -> str | None:
    """A backslash-newline inside a plain word (``r\\<newline>m``)."""
    found = _words(line, anywhere=True)
    if found is None:
        return None
    toks, words = found
    plain = [i for i in words if toks[i].plain and len(toks[i].text) > 1]
    if not plain:
        return None
    index = _pick_int(rng, plain)
    text = toks[index].text
    cut = rng.randrange(1, len(text))
    return rebuild(line, toks, index, text[:cut] + "\\\n" + text[cut:])


def _requote(rng: random.Random, text: str) -> str:
    cut = rng.randrange(0, len(text))
    forms = (
        f"'{text}'",
        f'"{text}"',
        text[:cut] + "''" + text[cut:],
        text[:cut] + '""' + text[cut:],
        f"$'{text}'",
        text[:cut] + "$'\\x" + format(ord(text[cut]), "02x") + "'" + text[cut + 1 :],
        text[:cut] + "\\" + text[cut:],
        "\\" + text,
    )
    return _pick(rng, forms)


def quote(rng: random.Random, line: str) -> str | None:
    """A plain word (often the command name) quoted or escaped without changing it."""
    found = _words(line)
    if found is None:
        return None
    toks, words = found
    names = [i for i in command_words(toks) if toks[i].plain]
    # (an assignment quoted is a command: `'_w=1'` would keep a loop's guard from being set)
    plain = [i for i in words if toks[i].plain and toks[i].bare not in RESERVED and "=" not in toks[i].text]
    pool = names if names and rng.random() < 0.6 else plain
    if not pool:
        return None
    index = _pick_int(rng, pool)
    return rebuild(line, toks, index, _requote(rng, toks[index].text))


def _name_forms(rng: random.Random, name: str, rest: str) -> str:
    cut = rng.randrange(0, len(name))
    glob = name[:cut] + f"[{name[cut]}]" + name[cut + 1 :]
    forms = (
        f"/usr/bin/{glob}{rest}",
        f"/bin/{glob}{rest}",
        f"/usr/bin/{name[:cut]}?{name[cut + 1 :]}{rest}" if len(name) > 2 else f"/usr/bin/{glob}{rest}",
        f"${{X:-{name}}}{rest}",
        f"${{X-{name}}}{rest}",
        f"${{X:+}}{name}{rest}",
        f"{{{name},}}{rest}",
        f"/usr/bin/{name}{rest}",
        f"\\{name}{rest}",
    )
    return _pick(rng, forms)


def command_name(rng: random.Random, line: str) -> str | None:
    """The command name written as a glob, a brace, a parameter expansion or a path; or
    joined to its first operand with ``$IFS`` or a brace list (``{rm,victim}``)."""
    found = _words(line)
    if found is None:
        return None
    toks, _ = found
    names = [
        i
        for i in command_words(toks)
        if toks[i].plain and "/" not in toks[i].text and "=" not in toks[i].text
    ]
    if not names:
        return None
    index = _pick_int(rng, names)
    name = toks[index].text
    after = [j for j in range(index + 1, len(toks)) if toks[j].kind != "space"]
    nxt = after[0] if after else None
    if nxt is not None and toks[nxt].plain and rng.random() < 0.35:
        arg = toks[nxt].text
        ifs = "$IFS" if not (arg[0].isalnum() or arg[0] == "_") else "${IFS}"
        joined = _pick(rng, (f"{name}${{IFS}}{arg}", f"{name}{ifs}{arg}", f"{{{name},{arg}}}"))
        return line[: toks[index].start] + joined + line[toks[nxt].end :]
    return rebuild(line, toks, index, _name_forms(rng, name, ""))


def redirect(rng: random.Random, line: str) -> str | None:
    """A harmless redirect before, between or after the words of a command."""
    found = _words(line)
    if found is None:
        return None
    toks, words = found
    words = [i for i in words if not _redirect_target(toks, i) and toks[i].bare not in RESERVED]
    if not words:
        return None
    index = _pick_int(rng, words)
    tok = toks[index]
    text = _pick(rng, _NULL_REDIRECTS)
    if rng.random() < 0.5:
        return line[: tok.start] + text + " " + line[tok.start :]
    return line[: tok.end] + " " + text + line[tok.end :]


def compound(rng: random.Random, line: str) -> str | None:
    """The whole line inside a group, subshell, loop, condition or pipeline, often with a
    redirect on the compound."""
    if line.rstrip().endswith("&"):
        return None
    body = line
    guard = f"_w{line.count('_w')}"  # a loop guard no enclosed loop uses
    tail = _pick(rng, ("", " 2>/dev/null", " >/dev/null", " </dev/null", " 2>&1"))
    forms = (
        f"{{ {body}\n}}{tail}",
        f"( {body}\n){tail}",
        f"for _i in 1; do {body}\ndone{tail}",
        f"if true; then {body}\nfi{tail}",
        f'while [ -z "${guard}" ]; do {guard}=1; {body}\ndone{tail}',
        f'until [ -n "${guard}" ]; do {guard}=1; {body}\ndone{tail}',
        f"true && {body}",
        f"false || {body}",
        f"{body}\ntrue",
        f"! {body}" if "\n" not in body else f"{{ {body}\n}}",
        f"{{ {body}\n}} | cat",
        f"case x in x) {body}\n;; esac{tail}",
    )
    return _pick(rng, forms)


def bare_redirect(rng: random.Random, line: str) -> str | None:
    """A redirect with no command before or after the line (``> f; ..``, ``{ >> f; }``)."""
    target = _pick(rng, _BARE_TARGETS)
    op = _pick(rng, (">", ">>", ">|", "2>", "&>"))
    form = _pick(rng, (f"{op} {target}; {line}", f"{line}\n{op}{target}", f"{{ {op} {target}; }}; {line}"))
    return form


def wrapper(rng: random.Random, line: str) -> str | None:
    """A wrapper program before a command (``timeout 5 rm x``), or ``(exec ..)``."""
    found = _words(line)
    if found is None:
        return None
    toks, _ = found
    names = command_words(toks)
    if not names:
        return None
    index = _pick_int(rng, names)
    prefix = _pick(rng, _WRAPPERS)
    start = toks[index].start
    if prefix == "xargs ":  # with empty input, GNU xargs runs the command once as given
        return (
            line[:start] + "true | xargs " + line[start:] if index == names[0] and "|" not in line else None
        )
    if prefix == "exec ":
        first = next(t for t in toks if t.kind != "space")
        simple = first is toks[index] and "\n" not in line and ";" not in line
        return f"(exec {line})" if simple else None
    return line[:start] + prefix + line[start:]


def indirect(rng: random.Random, line: str) -> str | None:
    """The command name reached through an alias, ``hash -p`` or a function."""
    found = _words(line)
    if found is None:
        return None
    toks, _ = found
    names = [i for i in command_words(toks) if toks[i].plain and "/" not in toks[i].text]
    if not names:
        return None
    index = _pick_int(rng, names)
    name = toks[index].text
    other = rebuild(line, toks, index, "zz")
    choice = rng.randrange(4)
    if choice == 0:
        return f"shopt -s expand_aliases\nalias zz={shlex.quote(name)}\n{other}"
    if choice == 1:
        return f"hash -p /usr/bin/{name} zz; {other}"
    if choice == 2:
        return f'zz() {{ {name} "$@"; }}; {other}'
    return f"zz() {{ {line}\n}}; zz"


def shell_text(rng: random.Random, line: str) -> str | None:
    """The line as text for another shell: piped in, ``-c``, ``eval``, a here-string or
    here-document, or a sourced file."""
    quoted = shlex.quote(line)
    end = f"EOF{line.count('EOF')}"  # a delimiter no enclosed here-document uses
    forms = (
        f"echo {quoted} | sh",
        f"printf '%s\\n' {quoted} | bash",
        f"bash <<< {quoted}",
        f"sh -c {quoted}",
        f"bash -c {quoted}",
        f"eval {quoted}",
        f"bash <<'{end}'\n{line}\n{end}",
        f"sh <<'{end}'\n{line}\n{end}",
        f"printf '%s\\n' {quoted} > /tmp/s.sh; . /tmp/s.sh",
        f"printf '%s\\n' {quoted} > /tmp/s.sh; source /tmp/s.sh",
        f"source /dev/stdin <<< {quoted}",
        f". <(echo {quoted})",
    )
    return _pick(rng, forms)


def cd_first(rng: random.Random, line: str) -> str | None:
    """``cd`` into a nested repository, a submodule or through a symlink first."""
    prefix = _pick(rng, _CD)
    if rng.random() < 0.3:
        return f"({prefix}{line}\n)"
    return prefix + line


MUTATIONS: tuple[Mutation, ...] = (
    blank,
    continuation,
    quote,
    command_name,
    redirect,
    compound,
    bare_redirect,
    wrapper,
    indirect,
    shell_text,
    cd_first,
)
"""Every operator, in a fixed order (the fuzzer picks among them with its own RNG)."""

_WEIGHTS = (3, 2, 4, 3, 4, 3, 1, 3, 2, 2, 2)


class Fuzzer:
    """Deterministic mutants of ``seeds``: ``Fuzzer(seeds, seed=1).take(n)`` is always the
    same list. Each mutant applies 1-3 operators to a parent drawn from the pool; the pool
    starts as the seeds and grows with every mutant (``grow``) and with anything a caller
    adds (``add``, e.g. mutants that found something)."""

    def __init__(
        self, seeds: Sequence[str], seed: int = 0, *, grow: float = 0.2, max_length: int = 2000
    ) -> None:
        if not seeds:
            raise ValueError("the fuzzer needs at least one seed command")
        self.rng = random.Random(seed)
        self.pool = list(seeds)
        self.grow = grow
        self.max_length = max_length

    def add(self, command: str) -> None:
        """Make ``command`` a parent for later mutants."""
        self.pool.append(command)

    def mutate(self, line: str) -> str:
        """One mutant of ``line`` (``line`` itself when no operator applies)."""
        out = line
        for _ in range(self.rng.choice((1, 1, 2, 2, 3))):
            op = self.rng.choices(MUTATIONS, weights=_WEIGHTS)[0]
            changed = op(self.rng, out)
            if changed is not None and len(changed) <= self.max_length:
                out = changed
        return out

    def __iter__(self) -> Iterator[str]:
        while True:
            parent = self.pool[self.rng.randrange(len(self.pool))]
            child = self.mutate(parent)
            if self.rng.random() < self.grow:
                self.pool.append(child)
            yield child

    def take(self, count: int) -> list[str]:
        """The next ``count`` mutants."""
        return list(itertools.islice(self, count))


__all__ = ["MUTATIONS", "Fuzzer", "Mutation"]
