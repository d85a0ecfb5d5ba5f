"""A small allow-list option parser for judging argv of read-only commands.

Owns: splitting argv into options (with their values) and operands, GNU-style.
Must not touch: what a command means; ``readonly.py`` supplies each command's table.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class FlagSpec:
    """The options one command accepts; anything not listed makes the parse fail.

    ``short``: single-letter flags without a value (clusters such as ``-rn`` allowed);
    ``short_value``: letters taking a value (``-n 5`` or ``-n5``);
    ``short_optional``: letters whose value is optional and only attached (git's ``-U``/
    ``-U5``, date's ``-I``/``-Iseconds``): the next word is never theirs;
    ``long``: ``--name`` without a value; ``long_value``: ``--name=v`` or ``--name v``;
    ``long_optional``: ``--name`` or ``--name=v`` (never a separate value);
    ``numeric``: accept ``-NUM`` (``head -5``); ``any_flag``: accept unknown flags
    (only for commands none of whose flags write or run anything).
    """

    short: str = ""
    short_value: str = ""
    short_optional: str = ""
    long: frozenset[str] = field(default_factory=frozenset)
    long_value: frozenset[str] = field(default_factory=frozenset)
    long_optional: frozenset[str] = field(default_factory=frozenset)
    numeric: bool = False
    any_flag: bool = False


@dataclass(frozen=True)
class Parsed:
    """The result of a successful parse: options seen (name -> values) and operands.

    Option names are spelled as written (``-n``, ``--lines``); a flag without a value
    maps to ``[""]`` entries. ``after_dashdash`` holds operands that followed ``--``.
    """

    options: dict[str, list[str]]
    operands: list[str]
    after_dashdash: list[str]

    def has(self, *names: str) -> bool:
        """Was any of these option names given?"""
        return any(name in self.options for name in names)

    def values(self, *names: str) -> list[str]:
        """Every value given to any of these option names."""
        return [value for name in names for value in self.options.get(name, [])]


def words(flags: str) -> frozenset[str]:
    """``"--a --b"`` -> ``frozenset({"--a", "--b"})`` (tables read better as one string)."""
    return frozenset(flags.split())


def parse(args: list[str], spec: FlagSpec) -> Parsed | None:
    """Parse ``args`` (argv without the command name) against ``spec``.

    Options may follow operands (GNU permutation); ``--`` ends options; ``-`` is an
    operand. Returns None when an option is unknown, a value is missing, or a separate
    value looks like an option (see ``_may_be_option``), which the caller reads as "not
    read-only".
    """
    options: dict[str, list[str]] = {}
    operands: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        i += 1
        if arg == "--":
            rest = args[i:]
            return Parsed(options, operands + rest, rest)
        if arg == "-" or not arg.startswith("-"):
            operands.append(arg)
            continue
        if arg.startswith("--"):
            name, eq, value = arg.partition("=")
            if name in spec.long_value:
                if not eq:
                    if i >= len(args) or _may_be_option(args[i]):
                        return None
                    value = args[i]
                    i += 1
                options.setdefault(name, []).append(value)
            elif name in spec.long_optional or (name in spec.long and not eq) or spec.any_flag:
                options.setdefault(name, []).append(value)
            else:
                return None
            continue
        if spec.numeric and arg[1:].isdigit():
            options.setdefault("-NUM", []).append(arg[1:])
            continue
        consumed = _short_cluster(arg[1:], args, i, spec, options)
        if consumed is None:
            return None
        i += consumed
    return Parsed(options, operands, [])


def _may_be_option(value: str) -> bool:
    """Whether a separate value word may be read by the program as an option of its own:
    where a value is optional it must be attached (git's ``-U``/``--unified``/``--format``,
    date's ``-I``), so ``git log -U --output=F`` writes F. Such a word is refused unless it
    is ``-`` or a negative number."""
    return value[:1] == "-" and value != "-" and not value[1:].isdigit()


def _short_cluster(
    cluster: str, args: list[str], i: int, spec: FlagSpec, options: dict[str, list[str]]
) -> int | None:
    """Record a ``-abc`` cluster; returns how many following args it consumed, or None."""
    for pos, letter in enumerate(cluster):
        name = "-" + letter
        if letter in spec.short_optional:
            options.setdefault(name, []).append(cluster[pos + 1 :])
            return 0
        if letter in spec.short_value:
            rest = cluster[pos + 1 :]
            if rest:
                options.setdefault(name, []).append(rest)
                return 0
            if i >= len(args) or _may_be_option(args[i]):
                return None
            options.setdefault(name, []).append(args[i])
            return 1
        if letter in spec.short or spec.any_flag:
            options.setdefault(name, []).append("")
            continue
        return None
    return 0
