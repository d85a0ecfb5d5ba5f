"""Which arguments of a file-modifying command name the files it writes.

Owns: the writer table (rm, mv, cp, touch, sed -i, tee, dd of=, ...) and picking the
written operands out of a command's words. Must not touch: path resolution (scan_paths.py
turns these words into absolute paths), parsing or permission rules.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from shellpilot.scanner.words import Word


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
    "sort": _Opts("kotST", frozenset({"--output", "--key", "--field-separator", "--buffer-size"})),
    "uniq": _Opts("fsw", frozenset({"--skip-fields", "--skip-chars", "--check-chars"})),
    "split": _Opts("abCln", frozenset({"--suffix-length", "--bytes", "--lines", "--number"})),
    "csplit": _Opts("bfn", frozenset({"--suffix-format", "--prefix", "--digits"})),
    "tar": _Opts("fCbTXKNgLVH", frozenset({"--file", "--directory", "--files-from", "--exclude-from"})),
    "gzip": _Opts("S", frozenset({"--suffix"})),
    "gunzip": _Opts("S", frozenset({"--suffix"})),
    "bzip2": _Opts(),
    "bunzip2": _Opts(),
    "xz": _Opts("TF", frozenset({"--threads", "--format", "--suffix"})),
    "unxz": _Opts(),
    "iconv": _Opts("fto", frozenset({"--from-code", "--to-code", "--output"})),
    "mkfifo": _Opts("mZ", frozenset({"--mode", "--context"})),
    "mknod": _Opts("mZ", frozenset({"--mode", "--context"})),
    "git": _Opts("Cc", frozenset({"--git-dir", "--work-tree", "--namespace", "--template"})),
    "find": _Opts(),
}

WRITERS = frozenset(_OPTS) - {"git"}
"""Commands that modify the files named by (some of) their arguments.

`git` is left out (most git commands write only inside `.git`): callers check
`git_writes(args)` first, then `written("git", args)`.
"""


def git_writes(args: Sequence[Word]) -> bool:
    """Whether a git command line may create a repository (`init`, `clone`)."""
    for word in args:  # noqa: SIM110 - a loop, not any(genexpr): this runs for every git command
        if word.value == "init" or word.value == "clone":
            return True
    return False


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
    files when `-i`/`--in-place`.
    """
    if name not in _OPTS:
        return []
    if name == "dd":
        return [Target(w.suffix(3)) for w in args if w.value.startswith("of=")]
    if name == "find":
        return _find(args)
    if name == "tar":
        args = _tar_args(args)
    operands, values, seen = _split(name, args)
    if name in _MORE:
        return _MORE[name](operands, values, seen)
    if name in ("rm", "rmdir", "unlink", "shred", "touch", "mkdir", "truncate", "tee"):
        return [Target(w) for w in operands]
    if name in ("chmod", "chown", "chgrp"):
        files = operands if "--reference" in seen else operands[1:]
        return [Target(w) for w in files]
    if name == "sed":
        scripted = bool({"e", "f", "--expression", "--file"} & seen)
        scripts = [w for k, w in values.items() if k in ("e", "--expression")]
        if not scripted and operands:
            scripts.append(operands[0])
        out = [t for w in scripts for t in sed_script_writes(w)]
        if "i" not in seen and "--in-place" not in seen:
            return out
        return out + [Target(w) for w in (operands if scripted else operands[1:])]
    if name == "install" and "d" in seen:
        return [Target(w) for w in operands]
    if name == "ln" and len(operands) == 1 and "t" not in values and "--target-directory" not in values:
        return [Target(Word.literal("."), (_base(operands[0]),), directory=True)]
    out = _copy_like(operands, values, seen)
    if name == "mv":
        dest = out[0].word if out else None
        out = [Target(w) for w in operands if w is not dest] + out
    return out


def _glob(word: Word, tail: str) -> Word:
    """`word` + `tail` as a literal target (`split in part` writes `part*`)."""
    if word.dynamic:
        return word
    return Word.literal(word.value + tail, word.start, word.end, word.raw)


def _sort(operands: list[Word], values: dict[str, Word], seen: set[str]) -> list[Target]:
    out = values.get("o") or values.get("--output")
    return [] if out is None else [Target(out)]


def _iconv(operands: list[Word], values: dict[str, Word], seen: set[str]) -> list[Target]:
    return _sort(operands, values, seen)


def _uniq(operands: list[Word], values: dict[str, Word], seen: set[str]) -> list[Target]:
    return [Target(operands[1])] if len(operands) >= 2 else []


def _split_files(operands: list[Word], values: dict[str, Word], seen: set[str]) -> list[Target]:
    prefix = operands[1] if len(operands) >= 2 else Word.literal("x")
    return [Target(_glob(prefix, "*"))]


def _csplit(operands: list[Word], values: dict[str, Word], seen: set[str]) -> list[Target]:
    prefix = values.get("f") or values.get("--prefix") or Word.literal("xx")
    return [Target(_glob(prefix, "*"))]


def _every(operands: list[Word], values: dict[str, Word], seen: set[str]) -> list[Target]:
    return [Target(w) for w in operands]


def _first(operands: list[Word], values: dict[str, Word], seen: set[str]) -> list[Target]:
    return [Target(operands[0])] if operands else []


def _compress(operands: list[Word], values: dict[str, Word], seen: set[str]) -> list[Target]:
    """gzip/bzip2/xz and their un- forms: FILE is replaced by FILE.gz (or back); `-c`: stdout."""
    if "c" in seen or "--stdout" in seen or "t" in seen or "l" in seen:
        return []
    return [Target(_glob(w, "*")) for w in operands]


def _tar(operands: list[Word], values: dict[str, Word], seen: set[str]) -> list[Target]:
    """`tar -c/-r/-u/-A -f F` writes F; `tar -x` writes into `-C DIR` (else the cwd)."""
    archive = values.get("f") or values.get("--file")
    creates = bool(set("cruA") & seen) or bool({"--create", "--append", "--update", "--concatenate"} & seen)
    if creates:
        return [Target(archive)] if archive is not None and archive.value != "-" else []
    if "x" in seen or "--extract" in seen or "--get" in seen:
        where = values.get("C") or values.get("--directory") or Word.literal(".")
        return [Target(where, ("*",), directory=True)]
    return []


def _git(operands: list[Word], values: dict[str, Word], seen: set[str]) -> list[Target]:
    """`git init [DIR]` makes DIR/.git, `git clone URL [DIR]` makes DIR (else `./*`)."""
    if not operands:
        return []
    verb = operands[0].value
    rest = [w for w in operands[1:] if not w.value.startswith("-")]
    if verb == "init":
        return [Target(rest[0] if rest else Word.literal("."), (".git",), directory=True)]
    if verb == "clone":
        return [Target(rest[1])] if len(rest) >= 2 else [Target(Word.literal("."), ("*",), directory=True)]
    return []


_MORE = {
    "sort": _sort,
    "iconv": _iconv,
    "uniq": _uniq,
    "split": _split_files,
    "csplit": _csplit,
    "mkfifo": _every,
    "mknod": _first,
    "gzip": _compress,
    "gunzip": _compress,
    "bzip2": _compress,
    "bunzip2": _compress,
    "xz": _compress,
    "unxz": _compress,
    "tar": _tar,
    "git": _git,
}

_FIND_WRITES = frozenset({"-fprint", "-fprint0", "-fprintf", "-fls"})


def _find(args: Sequence[Word]) -> list[Target]:
    """find's `-fprint F`/`-fprint0 F`/`-fprintf F FMT`/`-fls F`; `-delete` writes its start paths."""
    out: list[Target] = []
    starts: list[Word] = []
    expression = False
    for i, word in enumerate(args):
        value = word.value
        if not expression and value[:1] not in ("-", "(", "!") and not (value == "" and not word.dynamic):
            starts.append(word)
            continue
        expression = True
        if value in _FIND_WRITES and i + 1 < len(args):
            out.append(Target(args[i + 1]))
        elif value == "-delete":
            out.extend(Target(w, ("*",), directory=True) for w in (starts or [Word.literal(".")]))
    return out


def _tar_args(args: Sequence[Word]) -> list[Word]:
    """tar's old style `tar cf out dir`: a first word without `-` is a cluster of options."""
    if args and not args[0].dynamic and args[0].value[:1] not in ("-", ""):
        return [Word.literal("-" + args[0].value, args[0].start, args[0].end, args[0].raw), *args[1:]]
    return list(args)


def sed_script_writes(script: Word) -> list[Target]:
    """Files a sed script writes: `w FILE`/`W FILE` commands and the `s///w FILE` flag.

    A script sed cannot be read statically, or one using `e` (runs a shell command),
    writes an unknown place (`*`). Commands are split at newlines and `;` (a `;` inside
    an `s` pattern may split early: the pieces are then read conservatively).
    """
    if script.dynamic:
        return [Target(script)] if "w" in script.value or "e" in script.value else []
    out: list[Target] = []
    for piece in _SED_SPLIT.split(script.value):
        body = _SED_ADDRESS.sub("", piece.strip(), count=1).lstrip()
        if not body:
            continue
        head = body[0]
        if head in "wW":
            name = body[1:].strip()
            out.append(Target(Word.literal(name) if name else Word.unknowable()))
        elif head == "e":
            out.append(Target(Word.unknowable("e")))
        elif head == "s" and len(body) > 1:
            flags = _sed_flags(body)
            if flags is None:
                continue
            if "e" in flags.split("w", 1)[0]:
                out.append(Target(Word.unknowable("e")))
            if "w" in flags:
                name = flags.split("w", 1)[1].strip()
                out.append(Target(Word.literal(name) if name else Word.unknowable()))
    return out


def _sed_flags(body: str) -> str | None:
    """The flags after `s/pattern/replacement/` (with its own delimiter), or None if unclosed."""
    delim = body[1]
    parts = 0
    i = 2
    while i < len(body):
        c = body[i]
        if c == "\\":
            i += 2
            continue
        if c == delim:
            parts += 1
            if parts == 2:
                return body[i + 1 :]
        i += 1
    return None


_SED_SPLIT = re.compile(r"[;\n]")
_SED_ADDRESS = re.compile(
    r"^(?:\d+|\$|/(?:[^/\\]|\\.)*/)(?:~\d+)?(?:\s*,\s*(?:\d+|\$|/(?:[^/\\]|\\.)*/|[+~]\d+))?\s*!?"
)
