"""Which arguments of a file-modifying command name the files it writes.

Owns: the writer table (rm, mv, cp, touch, sed -i, tee, dd of=, ...) and picking the
written operands out of a command's words. Must not touch: path resolution (scan_paths.py
turns these words into absolute paths), parsing or permission rules.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shellpilot.shell.words import Word


@dataclass(frozen=True, slots=True)
class Target:
    """One word naming something a command writes.

    `into`: when the word names a directory (it exists, ends with `/`, or `directory` is
    set), the files written are these names inside it (`cp a b dir` writes `dir/a`,
    `dir/b`); empty: the word itself is written.
    """

    word: Word
    into: tuple[str, ...] = ()
    directory: bool = False


@dataclass(frozen=True, slots=True)
class _Opts:
    values: str = ""  # option letters taking a value (attached or the next word)
    long_values: frozenset[str] = frozenset()  # --long options taking a value


_COPY_LONG = frozenset({"--target-directory", "--suffix"})
_OPTS: dict[str, _Opts] = {
    "rm": _Opts(),
    "rmdir": _Opts(),
    "unlink": _Opts(),
    "shred": _Opts("ns", frozenset({"--iterations", "--size", "--random-source"})),
    "mv": _Opts("tS", _COPY_LONG),
    "cp": _Opts("tS", _COPY_LONG),
    "ln": _Opts("tS", _COPY_LONG),
    "install": _Opts("tmogS", _COPY_LONG | {"--mode", "--owner", "--group", "--strip-program"}),
    "touch": _Opts("dtr", frozenset({"--date", "--reference", "--time"})),
    "mkdir": _Opts("m", frozenset({"--mode", "--context"})),
    "chmod": _Opts("", frozenset({"--reference"})),
    "chown": _Opts("", frozenset({"--reference", "--from"})),
    "chgrp": _Opts("", frozenset({"--reference"})),
    "truncate": _Opts("sr", frozenset({"--size", "--reference"})),
    "tee": _Opts(),
    "sed": _Opts("efl", frozenset({"--expression", "--file", "--line-length"})),
    "dd": _Opts(),
}

WRITERS = frozenset(_OPTS)
"""Commands that modify the files named by (some of) their arguments."""

_CHMOD_FLAGS = frozenset("cfvR")


def _split(name: str, args: Sequence[Word]) -> tuple[list[Word], dict[str, Word], set[str]]:
    """getopt-style: (operands, option -> its value word, option names seen)."""
    spec = _OPTS[name]
    operands: list[Word] = []
    values: dict[str, Word] = {}
    seen: set[str] = set()
    options = True
    i = 0
    n = len(args)
    while i < n:
        arg = args[i]
        v = arg.value
        if options and v[:1] == "-" and len(v) > 1 and not arg.dynamic:
            if v == "--":
                options = False
            elif v.startswith("--"):
                key, eq, _ = v.partition("=")
                seen.add(key)
                if eq:
                    values[key] = arg.suffix(len(key) + 1)
                elif key in spec.long_values:
                    if i + 1 < n:
                        values[key] = args[i + 1]
                    i += 1
            elif name == "chmod" and not _CHMOD_FLAGS.issuperset(v[1:]):
                operands.append(arg)  # a mode such as `-x` or `-rwx`
            else:
                for k in range(1, len(v)):
                    letter = v[k]
                    seen.add(letter)
                    if name == "sed" and letter == "i":
                        break  # `-i[SUFFIX]`: the rest of the cluster is the suffix
                    if letter in spec.values:
                        if k + 1 < len(v):
                            values[letter] = arg.suffix(k + 1)
                        else:
                            if i + 1 < n:
                                values[letter] = args[i + 1]
                            i += 1
                        break
        else:
            operands.append(arg)
        i += 1
    return operands, values, seen


def _base(word: Word) -> str:
    """The name a copied/moved/linked `word` gets inside a target directory."""
    if word.dynamic:
        return "*"
    return word.value.rstrip("/").rsplit("/", 1)[-1] or "*"


def _copy_like(operands: list[Word], values: dict[str, Word], seen: set[str]) -> list[Target]:
    """cp/mv/ln/install destination: `-t DIR`, else the last operand (a dir or the file)."""
    target = values.get("t") or values.get("--target-directory")
    if target is not None:
        return [Target(target, tuple(_base(w) for w in operands), directory=True)]
    if len(operands) < 2:
        return []
    *sources, dest = operands
    if "T" in seen or "--no-target-directory" in seen:
        return [Target(dest)]
    return [Target(dest, tuple(_base(w) for w in sources), directory=len(sources) > 1)]


def written(name: str, args: Sequence[Word]) -> list[Target]:
    """The targets `name args...` writes (`args` without the command name); [] for none.

    rm/rmdir/unlink/shred/touch/mkdir/truncate/tee: every operand; mv: every operand
    (sources disappear) and the destination; cp/install: the destination (`install -d`:
    every operand); ln: the link name (`ln -s t` makes `./t`); chmod/chown/chgrp: the
    files after the mode/owner (all of them with `--reference`); dd: `of=`; sed: its
    files when `-i`/`--in-place`. Source: shellpilot's edit permission for shell writes.
    """
    if name not in _OPTS:
        return []
    if name == "dd":
        return [Target(w.suffix(3)) for w in args if w.value.startswith("of=")]
    operands, values, seen = _split(name, args)
    if name in ("rm", "rmdir", "unlink", "shred", "touch", "mkdir", "truncate", "tee"):
        return [Target(w) for w in operands]
    if name in ("chmod", "chown", "chgrp"):
        files = operands if "--reference" in seen else operands[1:]
        return [Target(w) for w in files]
    if name == "sed":
        if "i" not in seen and "--in-place" not in seen:
            return []
        scripted = bool({"e", "f", "--expression", "--file"} & seen)
        return [Target(w) for w in (operands if scripted else operands[1:])]
    if name == "install" and "d" in seen:
        return [Target(w) for w in operands]
    if name == "ln" and len(operands) == 1 and "t" not in values and "--target-directory" not in values:
        return [Target(Word.literal("."), (_base(operands[0]),), directory=True)]
    out = _copy_like(operands, values, seen)
    if name == "mv":
        dest = out[0].word if out else None
        out = [Target(w) for w in operands if w is not dest] + out
    return out
