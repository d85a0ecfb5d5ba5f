"""Peeling command wrappers (sudo, env, nohup, timeout, xargs, taskset, flock, uv run...)
off a command's words to find the real command.

Owns: `unwrap()` over a command's words and `program_name()`. Must not touch: the
wrapper table itself (wrapper_table.py), parsing, path resolution or patterns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from shellpilot.scanner.options import long_options
from shellpilot.scanner.words import Word
from shellpilot.scanner.wrapper_table import FIRST_WORDS, WRAPPERS, Wrapper

__all__ = ["FIRST_WORDS", "WRAPPERS", "Unwrapped", "package_name", "program_name", "unwrap"]


@dataclass(slots=True)
class Unwrapped:
    """Where the real command starts in a word list, and what the wrappers said.

    `index`: position of the real command's name (the last wrapper itself when it runs
    nothing of its words, e.g. bare `env`, `command -v x`, `flock f -c CMD`).
    `wrappers`: the names peeled off, outer first (`uv run` for a two-word one).
    `chdir`: a directory the command runs in (`env -C d`, `sudo -D d`). `paths`: files
    the wrappers themselves read (`xargs -a f`); `creates`: files they create or write
    (flock's lock file, `time -o f`, `strace -o f`). `strings`: command strings a wrapper runs through a
    shell (`flock f -c CMD`). `joined`: the real command's words are joined into one
    command string (watch, parallel); `end`: where the real command's words stop
    (parallel's `:::`), else the end. `from_input`: a wrapper adds arguments from its
    input (xargs, parallel); `placeholders`: the texts it replaces in the command's words
    with input (`xargs -I{}`: `{}`; parallel: `{`, for its `{}`, `{.}`, `{1}`...).
    `package`: the real command is a package name (npx).
    `problem`: why the rest cannot be analysed (`env -S`), else `None`. `bare`: the
    command ends at the wrapper at `index`, which is given no program (`unshare -r`,
    `xargs env`).
    """

    index: int = 0
    end: int = 0
    wrappers: list[str] = field(default_factory=list)
    chdir: Word | None = None
    paths: list[Word] = field(default_factory=list)
    creates: list[Word] = field(default_factory=list)
    strings: list[Word] = field(default_factory=list)
    joined: bool = False
    from_input: bool = False
    package: bool = False
    problem: str | None = None
    bare: bool = False
    placeholders: list[str] = field(default_factory=list)


def program_name(value: str) -> str:
    """The name a rule sees: leading `\\` dropped, an absolute path cut to its basename."""
    if value.startswith("\\"):
        value = value.lstrip("\\")
    if value.startswith("/"):
        value = value.rsplit("/", 1)[-1]
    return value


def package_name(value: str) -> str:
    """A package runner's package without its version (`tsc@5` -> `tsc`, `@a/b@1` -> `@a/b`)."""
    at = value.find("@", 1)
    return value[:at] if at > 0 else value


def _may_split(raw: str) -> bool:
    """Whether a dynamic word may become several words (`"$@"`, `$*`, an unquoted `$X`)."""
    return "$@" in raw or "$*" in raw or "${@" in raw or (raw[:1] != '"' and "$" in raw)


def _is_assignment(value: str) -> bool:
    """Whether env (sudo, cross-env) takes the word as `NAME=value`: any word holding `=`
    (GNU env sets `BASH_FUNC_f%%=() {..}` too, a name bash never assigns itself)."""
    return "=" in value and value[:1] != "-"  # (`--chdir=d` is an option)


_TWO_WORD_HEADS = frozenset(key.split(" ", 1)[0] for key in WRAPPERS if " " in key)
"""Programs with a sub-command that runs a program (`npm exec`, `uv run`, `bundle exec`)."""


def _after_options(name: str, words: Sequence[Word], j: int) -> tuple[str, Wrapper, int] | None:
    """`npm --prefix . exec CMD`, `uv --directory d run CMD`: the program's own options
    before its sub-command (each may take one value word) do not hide it."""
    value_next = False
    while j < len(words) and not words[j].dynamic:
        value = words[j].value
        key = f"{name} {value}"
        if key in WRAPPERS and not value.startswith("-"):
            return key, WRAPPERS[key], j + 1
        if value.startswith("-"):
            value_next = "=" not in value
        elif value_next:
            value_next = False
        else:
            return None
        j += 1
    return None


def _find(words: Sequence[Word], i: int) -> tuple[str, Wrapper, int] | None:
    """The wrapper starting at word `i` (the longest name: `uv tool run` before `uv`):
    (its name, its table entry, the index after its name words)."""
    head = words[i]
    if head.dynamic:
        return None
    name = program_name(head.value)
    if name not in FIRST_WORDS:
        return None
    found = None
    key = name
    for j in range(i + 1, min(i + 3, len(words))):
        if words[j].dynamic:
            break
        key = key + " " + words[j].value
        if key in WRAPPERS:
            found = (key, WRAPPERS[key], j + 1)
    if found is None and name in _TWO_WORD_HEADS:
        found = _after_options(name, words, i + 1)
    if found is None and name in WRAPPERS:
        found = (name, WRAPPERS[name], i + 1)
    return found


def _placeholders(name: str, options: Sequence[Word]) -> list[str]:
    """What `name` (xargs or parallel) replaces with its input in the command's words,
    from its own option words: xargs `-I R`, `-IR`, `-i[R]`, `--replace[=R]` (R defaults to
    `{}`); parallel always (any `{...}`)."""
    if name != "xargs":
        return ["{"]
    found: list[str] = []
    for k, word in enumerate(options):
        v = word.value
        if word.dynamic:
            found.append("")  # any text: a replace string known only at run time
        elif v == "-I" and k + 1 < len(options):
            found.append(options[k + 1].value)
        elif v.startswith("-I") and len(v) > 2 and v[1:2] != "-":
            found.append(v[2:])
        elif v.startswith("-i") and v[1:2] != "-":
            found.append(v[2:] or "{}")
        elif v.startswith("--rep"):
            found.append(v.partition("=")[2] or "{}")
    return found


def unwrap(words: Sequence[Word]) -> Unwrapped:
    """Peel wrappers off `words` (a whole simple command, name first).

    Nested wrappers are followed (`sudo env X=1 nice -n 5 rm x` -> index of `rm`). A
    dynamic word stops the walk.
    """
    result = Unwrapped(end=len(words))
    n = len(words)
    i = 0
    while i < n:
        found = _find(words, i)
        if found is None:
            break
        name, spec, j = found
        stop, j = _options(name, spec, words, j, result)
        if stop:
            result.index = i
            return result
        if spec.strings_only:
            # getopt reads options after an operand too (`script log -c CMD`); without a
            # command string it starts a shell (`script -q log`, `nix-shell -p x`)
            while not stop and j < n:
                stop, j = _options(name, spec, words, j + 1, result)
            result.index = i
            result.bare = not stop and not result.strings
            return result
        if spec.strings and result.strings:
            result.index = i  # `flock f -c CMD`, `script -c CMD log`: it runs only the string
            return result
        if j >= n:
            result.bare = True
            break  # the wrapper runs nothing else: it is the command
        result.wrappers.append(name)
        if spec.from_input:
            result.placeholders += _placeholders(name, words[i + 1 : j])
        result.joined = result.joined or spec.joined
        result.from_input = result.from_input or spec.from_input
        result.package = spec.package
        if spec.stop_at:
            for k in range(j, n):
                if words[k].value in spec.stop_at:
                    result.end = k
                    break
        i = j
    result.index = i
    return result


def _options(name: str, spec: Wrapper, words: Sequence[Word], j: int, result: Unwrapped) -> tuple[bool, int]:
    """Read wrapper `name`'s own words from `j`; (it runs no command, index after them)."""
    n = len(words)
    positionals = spec.positionals
    while j < n:
        word = words[j]
        v = word.value
        if spec.assignments and not word.dynamic and _is_assignment(v):
            j += 1
        elif word.dynamic and _may_split(word.raw):
            # `timeout "$@"`: any number of words, the command among them
            result.problem = f"{name} is followed by {word.raw}, which may be any words"
            return True, j
        elif v == "--":
            return False, j + 1
        elif v.startswith("--") and not word.dynamic:
            written, eq, _ = v.partition("=")
            key = _long_key(spec, written)
            if key in spec.long_refuse:
                result.problem = f"{name} {key} runs a command given as one string"
                return True, j
            if key in spec.long_no_exec:
                return True, j
            takes = (
                key in spec.long_values
                or key in spec.long_chdir
                or key in spec.long_paths
                or key in spec.long_outputs
                or key in spec.long_strings
            )
            value: Word | None = None
            if eq:
                value = word.suffix(len(written) + 1)
            elif takes:
                value = words[j + 1] if j + 1 < n else None
                j += 1
            if value is not None and key in spec.long_outputs:
                result.creates.append(value)
            elif value is not None:
                _keep(result, value, key in spec.long_chdir, key in spec.long_paths, key in spec.long_strings)
            j += 1
        elif v.startswith("-") and len(v) > 1 and not word.dynamic:
            for k in range(1, len(v)):
                letter = v[k]
                if letter in spec.no_exec:
                    return True, j
                if letter in spec.refuse:
                    result.problem = f"{name} -{letter} runs a command given as one string"
                    return True, j
                if letter in spec.optional_attached:
                    break
                if (
                    letter in spec.short_values
                    or letter in spec.chdir
                    or letter in spec.paths
                    or letter in spec.outputs
                    or letter in spec.strings
                ):
                    if k + 1 < len(v):
                        value = word.suffix(k + 1)
                    else:
                        value = words[j + 1] if j + 1 < n else None
                        j += 1
                    if value is not None and letter in spec.outputs:
                        result.creates.append(value)
                    elif value is not None:
                        _keep(
                            result, value, letter in spec.chdir, letter in spec.paths, letter in spec.strings
                        )
                    break
            j += 1
        elif positionals and (
            spec.positional is None or spec.positional.fullmatch(v) is not None or spec.path_positional
        ):
            positionals -= 1
            if spec.path_positional:
                result.creates.append(word)
            j += 1
        else:
            break
    return False, j


def _long_key(spec: Wrapper, written: str) -> str:
    """The long option `written` stands for (getopt_long's abbreviations: `env --sp` is
    `--split-string`, `env --ch` is `--chdir`; see options.long_options). When it may
    stand for several, the one that tells most: a refused or string option, an output,
    a directory, a path, a value, then one meaning it runs nothing."""
    meant = long_options(written, spec.long_names())
    if len(meant) <= 1:
        return meant[0] if meant else written
    ranked = (
        spec.long_refuse,
        spec.long_strings,
        spec.long_outputs,
        spec.long_chdir,
        spec.long_paths,
        spec.long_values,
        spec.long_no_exec,
    )
    return min(meant, key=lambda option: next(i for i, names in enumerate(ranked) if option in names))


def _keep(result: Unwrapped, value: Word, chdir: bool, path: bool, string: bool) -> None:
    """Record a wrapper option's value: the command's directory, a file it reads, or a
    command string it runs; any other option's value is dropped."""
    if chdir:
        result.chdir = value
    elif path:
        result.paths.append(value)
    elif string:
        result.strings.append(value)
