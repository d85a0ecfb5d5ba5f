"""Which words of a command name the files it writes: its output options and the rule
for its operands (rm, mv, cp, touch, sed -i, tee, dd of=, tar, compilers, formatters...).

Owns: `Target`, the write rules named by option_table's shapes and `written()`.
Must not touch: reading options (options.py), path resolution (scan_paths.py turns these
words into absolute paths), parsing or permission rules.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from shellpilot.scanner.option_table import SHAPES
from shellpilot.scanner.options import Parsed
from shellpilot.scanner.sedscript import read_script
from shellpilot.scanner.words import Word

_CWD = Word.literal(".")


@dataclass(frozen=True, slots=True)
class Target:
    """One word naming something a command writes.

    `into`: when the word names a directory (it exists, ends with `/`, or `directory` is
    set), the files written are these names inside it (`cp a b dir` writes `dir/a`,
    `dir/b`); empty: the word itself is written. `read_only`: only read after all (a
    read-only bind mount): checked for dirs, not a write.
    """

    word: Word
    into: tuple[str, ...] = ()
    directory: bool = False
    read_only: bool = False


def _inside(word: Word) -> Target:
    """Every file inside directory `word` (`tar -x -C dir`, `unzip -d dir`)."""
    return Target(word, ("*",), directory=True)


def _glob(word: Word, tail: str) -> Word:
    """`word` + `tail` as a literal target (`split in part` writes `part*`)."""
    if word.dynamic:
        return word
    return Word.literal(word.value + tail, word.start, word.end, word.raw)


def _base(word: Word) -> str:
    """The name a copied/moved/linked `word` gets inside a target directory."""
    if word.dynamic:
        return "*"
    return word.value.rstrip("/").rsplit("/", 1)[-1] or "*"


Rule = Callable[[Parsed], list[Target]]


def _operands(p: Parsed) -> list[Target]:
    return [Target(w) for w in p.operands]


def _first(p: Parsed) -> list[Target]:
    return [Target(p.operands[0])] if p.operands else []


def _second(p: Parsed) -> list[Target]:
    return [Target(p.operands[1])] if len(p.operands) >= 2 else []


def _last(p: Parsed) -> list[Target]:
    """rsync/scp: the destination, when it is local (`host:path` is another machine)."""
    if len(p.operands) < 2:
        return []
    dest = p.operands[-1]
    if not dest.dynamic and ":" in dest.value.split("/", 1)[0]:
        return []
    return [Target(dest, tuple(_base(w) for w in p.operands[:-1]))]


def _copy(p: Parsed) -> list[Target]:
    """cp/mv/ln/install destination: `-t DIR`, else the last operand (a dir or the file)."""
    operands = p.operands
    target = p.values.get("t") or p.values.get("--target-directory")
    if target is not None:
        return [Target(target, tuple(_base(w) for w in operands), directory=True)]
    if len(operands) < 2:
        return []
    *sources, dest = operands
    if "T" in p.seen or "--no-target-directory" in p.seen:
        return [Target(dest)]
    return [Target(dest, tuple(_base(w) for w in sources), directory=len(sources) > 1)]


def _move(p: Parsed) -> list[Target]:
    out = _copy(p)
    dest = out[0].word if out else None
    return [Target(w) for w in p.operands if w is not dest] + out


def _link(p: Parsed) -> list[Target]:
    if len(p.operands) == 1 and "t" not in p.values and "--target-directory" not in p.values:
        return [Target(_CWD, (_base(p.operands[0]),), directory=True)]  # `ln -s t` makes `./t`
    return _copy(p)


def _install(p: Parsed) -> list[Target]:
    """`install -d DIR...` makes its operands; otherwise it copies."""
    return _operands(p) if "d" in p.seen or "--directory" in p.seen else _copy(p)


def _owner(p: Parsed) -> list[Target]:
    """chmod/chown/chgrp: the files after the mode/owner (all of them with `--reference`)."""
    files = p.operands if "--reference" in p.seen else p.operands[1:]
    return [Target(w) for w in files]


def _dd(p: Parsed) -> list[Target]:
    return [Target(w.suffix(3)) for w in p.operands if w.value.startswith("of=")]


def _sed_scripts(p: Parsed) -> tuple[list[Word], bool]:
    """(the scripts given inline: `-e`/`--expression` values, else the first operand;
    whether a script option was given, so no operand is a script)."""
    scripted = bool({"e", "f", "--expression", "--file"} & p.seen)
    scripts = [w for k, w in p.given if k in ("e", "--expression")]
    if not scripted and p.operands:
        scripts.append(p.operands[0])
    return scripts, scripted


def _sed(p: Parsed) -> list[Target]:
    """sed's `w` commands, and its files when `-i`/`--in-place`."""
    scripts, scripted = _sed_scripts(p)
    operands = p.operands
    out = [t for w in scripts for t in sed_script_writes(w)]
    if not ({"i", "--in-place"} & p.seen or any(k == "i" for k, _ in p.given)):
        return out
    files = operands if scripted else operands[1:]
    out += [Target(w) for w in files]
    suffix = p.values.get("i") or p.values.get("--in-place")
    if suffix is not None and suffix.value:  # `-i.bak`: a backup of each file too
        out += [Target(_backup(w, suffix)) for w in files]
    return out


def _backup(word: Word, suffix: Word) -> Word:
    """The backup sed -i SUFFIX keeps of `word` (`*` in SUFFIX stands for the file name)."""
    if word.dynamic or suffix.dynamic:
        return Word.unknowable(word.raw)
    value = suffix.value
    if "*" in value:
        head, _, base = word.value.rpartition("/")
        name = value.replace("*", base)
        return Word.literal(name if "/" in name else (head + "/" if head else "") + name)
    return Word.literal(word.value + value, word.start, word.end, word.raw)


def _perl(p: Parsed) -> list[Target]:
    """`perl -i[ext] -e CODE FILE...` rewrites its files (the script file is not one)."""
    if "i" not in p.seen:
        return []
    return [Target(w) for w in (p.operands if p.scripted else p.operands[1:])]


def _split(p: Parsed) -> list[Target]:
    prefix = p.operands[1] if len(p.operands) >= 2 else Word.literal("x")
    return [Target(_glob(prefix, "*"))]


def _csplit(p: Parsed) -> list[Target]:
    prefix = p.values.get("f") or p.values.get("--prefix") or Word.literal("xx")
    return [Target(_glob(prefix, "*"))]


def _compress(p: Parsed) -> list[Target]:
    """gzip/bzip2/xz and their un- forms: FILE is replaced by FILE.gz (or back); `-c`: stdout."""
    if {"c", "--stdout", "t", "l", "--test", "--list"} & p.seen:
        return []
    return [Target(_glob(w, "*")) for w in p.operands]


def _tar(p: Parsed) -> list[Target]:
    """`tar -c/-r/-u/-A -f F` writes F; `tar -x` writes into `-C DIR` (else the cwd)."""
    seen = p.seen
    archive = p.values.get("f") or p.values.get("--file")
    if set("cruA") & seen or {"--create", "--append", "--update", "--concatenate"} & seen:
        return [Target(archive)] if archive is not None and archive.value != "-" else []
    if "x" in seen or "--extract" in seen or "--get" in seen:
        return [_inside(p.values.get("C") or p.values.get("--directory") or _CWD)]
    return []


def _extract(p: Parsed) -> list[Target]:
    """unzip: into `-d DIR`, else the cwd (`-l`, `-t`, `-p`, `-Z` only read)."""
    if {"l", "t", "p", "Z", "v"} & p.seen or "d" in p.values:
        return []
    return [_inside(_CWD)]


def _seven(p: Parsed) -> list[Target]:
    """7z: `a ARCHIVE files` writes ARCHIVE; `x`/`e` extract into `-oDIR` (else the cwd)."""
    if not p.operands:
        return []
    verb = p.operands[0].value
    if verb in ("a", "u", "d", "rn") and len(p.operands) >= 2:
        return [Target(p.operands[1])]
    if verb in ("x", "e"):
        out = p.values.get("o")
        return [_inside(out if out is not None else _CWD)]
    return []


def _git_init(p: Parsed) -> list[Target]:
    """`git init [DIR]` makes DIR/.git."""
    return [Target(p.operands[0] if p.operands else _CWD, (".git",), directory=True)]


def _git_clone(p: Parsed) -> list[Target]:
    """`git clone URL [DIR]` makes DIR (else a new directory in the cwd)."""
    if len(p.operands) >= 2:
        return [Target(p.operands[1])]
    return [_inside(_CWD)]


def _script(p: Parsed) -> list[Target]:
    """script's typescript: its FILE operand, else ./typescript; `-I/-O/-B/-T` log files."""
    logs = [
        Target(w)
        for k, w in p.given
        if k in ("I", "O", "B", "T", "--log-in", "--log-out", "--log-io", "--log-timing")
    ]
    return [*logs, Target(p.operands[0] if p.operands else Word.literal("typescript"))]


def _mktemp(p: Parsed) -> list[Target]:
    """mktemp makes a file (or `-d` a directory) from its template's `X`s: in the template's
    directory, or with `-p DIR`/`--tmpdir`/`-t` (or no template) in $TMPDIR."""
    if "u" in p.seen or "--dry-run" in p.seen:
        return []
    template = p.operands[0] if p.operands else Word.literal("tmp.XXXXXXXXXX")
    if template.dynamic:
        return [Target(template)]
    name = template.value
    stem = name.rstrip("X")
    pattern = (stem + "*") if len(stem) < len(name) else name + "*"
    folder = p.values.get("p") or p.values.get("--tmpdir")
    if folder is None and ("t" in p.seen or "--tmpdir" in p.seen or not p.operands) and "/" not in name:
        folder = Word.literal(os.environ.get("TMPDIR") or "/tmp")
    if folder is not None and "/" not in name:
        return [Target(folder, (pattern,), directory=True)]
    return [Target(Word.literal(pattern, template.start, template.end, template.raw))]


def _directories(p: Parsed) -> list[Target]:
    """Directories it creates and fills (`python -m venv DIR`, `git worktree add DIR`)."""
    return [_inside(w) for w in p.operands[:1]]


def _uv_venv(p: Parsed) -> list[Target]:
    return [_inside(p.operands[0] if p.operands else Word.literal(".venv"))]


def _cwd(p: Parsed) -> list[Target]:
    """Files anywhere under the cwd (`go fmt`, `cargo fmt`)."""
    return [_inside(_CWD)]


def _formatter(p: Parsed) -> list[Target]:
    """black, isort, rustfmt, `ruff format`: rewrite their files (the cwd when none is
    given), unless they only check."""
    if {"--check", "--diff", "-c"} & p.seen:
        return []
    return [_inside(w) for w in p.operands] or [_inside(_CWD)]


def _fix(p: Parsed) -> list[Target]:
    """eslint, `ruff check`: rewrite their files with `--fix`."""
    if "--fix" not in p.seen and "--fix-only" not in p.seen:
        return []
    return _formatter(p)


def _write_flag(p: Parsed) -> list[Target]:
    """prettier, gofmt, goimports, shfmt: rewrite their files with `-w`/`--write`."""
    if "w" not in p.seen and "--write" not in p.seen and "-w" not in p.seen:
        return []
    return [_inside(w) for w in p.operands] or [_inside(_CWD)]


def _in_place(p: Parsed) -> list[Target]:
    """clang-format, autopep8, yapf, yq: rewrite their files with `-i`/`--in-place`
    (`--inplace` for the Go yq)."""
    if "i" not in p.seen and "--in-place" not in p.seen and "--inplace" not in p.seen:
        return []
    files = p.operands[1:] if p.shape.operands == "skip1" and not p.scripted else p.operands
    return [_inside(w) for w in files]  # (yq's first operand is its filter)


def _cc(p: Parsed) -> list[Target]:
    """gcc/clang without `-o`: `a.out`, or with `-c`/`-S` one object per source, in the cwd."""
    if "o" in p.values or not p.operands or {"E", "M", "MM", "-fsyntax-only", "-E", "-M", "-MM"} & p.seen:
        return []
    return [Target(_CWD, ("*",), directory=True)] if {"c", "S"} & p.seen else [Target(Word.literal("a.out"))]


def _patch(p: Parsed) -> list[Target]:
    """patch rewrites the files its patch names (in the cwd or `-d DIR`) unless a dry run."""
    if "--dry-run" in p.seen or "o" in p.values:
        return []
    return [_inside(p.values.get("d") or p.values.get("--directory") or _CWD)]


def _curl(p: Parsed) -> list[Target]:
    """`-O`/`--remote-name(-all)`: a file named from the URL, in `--output-dir` or the cwd."""
    if not ({"O", "--remote-name", "--remote-name-all", "J"} & p.seen):
        return []
    return [_inside(p.values.get("--output-dir") or _CWD)]


def _wget(p: Parsed) -> list[Target]:
    """wget writes a file named from the URL in `-P DIR` (else the cwd) unless `-O`."""
    if "O" in p.values or "--output-document" in p.values or "--spider" in p.seen:
        return []
    return [_inside(p.values.get("P") or p.values.get("--directory-prefix") or _CWD)]


def _ssh_keygen(p: Parsed) -> list[Target]:
    """Generating a key writes FILE and FILE.pub (`-f FILE`, else `~/.ssh/id_*`)."""
    if {"l", "y", "F", "R", "H", "e", "i", "Q", "L", "k", "D", "B"} & p.seen:
        return []
    key = p.values.get("f")
    if key is None:
        return [Target(Word.literal("~/.ssh/id_*"))]
    return [Target(_glob(key, ".pub"))]


def _mounts(p: Parsed) -> list[Target]:
    """docker/podman `-v HOST:CTR[:ro]`, `--mount type=bind,source=HOST,...`: every host
    path a container can write (read-only mounts are `read_only` targets)."""
    out: list[Target] = []
    for option, word in p.given:
        # (a dynamic word's path text keeps `$PWD`/`$HOME`, which resolve: `-v "$PWD":/app`)
        value = word.pathtext if word.pathtext is not None else word.value
        if option in ("v", "--volume"):
            host, sep, rest = value.partition(":")
            if not sep or not host or host[0] not in "/.~$":
                continue  # a named volume
            ro = rest.endswith(":ro") or ":ro," in rest or rest.endswith(",ro")
        elif option == "--mount":
            fields = dict(f.partition("=")[::2] for f in value.split(","))
            host = fields.get("source") or fields.get("src") or ""
            if fields.get("type", "volume") != "bind" or not host:
                continue
            ro = "readonly" in fields or "ro" in fields
        else:
            continue
        dynamic = word.dynamic and "$" in host
        target = Word(host, word.raw, word.start, word.end, dynamic, None if word.pathtext is None else host)
        out.append(Target(target, ("*",), directory=True, read_only=ro))
    return out


def _docker_cp(p: Parsed) -> list[Target]:
    """`docker cp CTR:SRC HOST_DEST`: the host destination."""
    if len(p.operands) == 2 and ":" in p.operands[0].value and ":" not in p.operands[1].value:
        return [Target(p.operands[1], ("*",))]
    return []


RULES: dict[str, Rule] = {
    "operands": _operands,
    "first": _first,
    "second": _second,
    "last": _last,
    "copy": _copy,
    "move": _move,
    "link": _link,
    "install": _install,
    "owner": _owner,
    "dd": _dd,
    "sed": _sed,
    "perl": _perl,
    "split": _split,
    "csplit": _csplit,
    "compress": _compress,
    "tar": _tar,
    "extract": _extract,
    "7z": _seven,
    "git-init": _git_init,
    "git-clone": _git_clone,
    "directories": _directories,
    "mktemp": _mktemp,
    "script": _script,
    "uv-venv": _uv_venv,
    "cwd": _cwd,
    "formatter": _formatter,
    "fix": _fix,
    "write-flag": _write_flag,
    "in-place": _in_place,
    "cc": _cc,
    "patch": _patch,
    "curl": _curl,
    "wget": _wget,
    "ssh-keygen": _ssh_keygen,
    "mounts": _mounts,
    "docker-cp": _docker_cp,
}
"""Write rule name (option_table's `Shape.writes`) -> the targets it picks."""

WRITERS = frozenset(
    name
    for name, shape in SHAPES.items()
    if shape.writes
    or shape.outputs
    or shape.output_dirs
    or shape.long_outputs
    or shape.long_output_dirs
    or shape.subcommands
) | {"find"}
"""Commands that may write files named by their words (see `written`)."""


def written(parsed: Parsed) -> list[Target]:
    """The targets of a command whose arguments are `parsed` (see options.read): the
    values of its output options (`-o F`, `--output-dir D`), then what its shape's write
    rule picks among its operands; `-` (stdout) is no file."""
    out = [Target(w) for w in parsed.outputs if w.value != "-"]
    out += [_inside(w) for w in parsed.output_dirs if w.value != "-"]
    rule = parsed.shape.writes
    if rule:
        out += RULES[rule](parsed)
    return out


_FIND_WRITES = frozenset({"-fprint", "-fprint0", "-fprintf", "-fls"})


def find_writes(args: Sequence[Word]) -> list[Target]:
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
            out.extend(_inside(w) for w in (starts or [_CWD]))
    return out


def sed_script_reads(parsed: Parsed) -> list[Word]:
    """Files the scripts of a sed invocation read besides its operands: `r FILE` and `R
    FILE` commands (see sedscript.read_script). A dynamic script, or one that does not
    read as sed reads it: the script itself, so it is checked as unknowable."""
    out: list[Word] = []
    for script in _sed_scripts(parsed)[0]:
        if script.dynamic:
            if "r" in script.value or "R" in script.value:
                out.append(script)
            continue
        read = read_script(script.value)
        out += [Word.literal(name) for name in read.reads]
        if not read.understood:
            out.append(Word.unknowable(script.raw))
    return out


def sed_script_writes(script: Word) -> list[Target]:
    """Files a sed script writes: `w FILE`/`W FILE` commands and the `s///w FILE` flag,
    read as GNU sed reads them (see sedscript.read_script: a `;` or `/` inside a regex
    bracket expression does not end a command).

    A dynamic script, a script using `e` or `s///e` (runs a shell command), or one that
    does not read as sed reads it writes an unknown place (`*`).
    """
    if script.dynamic:
        return [Target(script)] if "w" in script.value or "e" in script.value else []
    read = read_script(script.value)
    out = [Target(Word.literal(name)) for name in read.writes]
    if read.runs:
        out.append(Target(Word.unknowable("e")))
    if not read.understood:
        out.append(Target(Word.unknowable(script.raw)))
    return out
