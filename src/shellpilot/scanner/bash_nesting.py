"""Commands that run other command text: `bash -c`, `eval`, `trap`, `su -c`, `pwsh -c`.

Owns: finding that text in a command's words and handing it on: to the same shell
(`run_here`, for eval and trap) or to a new one through `ScanContext.nest`. Must not
touch: statements, words or results policy.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from shellpilot.scanner.context import Cwds, Grammar, ScanContext
from shellpilot.scanner.scan_result import ScanBuilder
from shellpilot.scanner.shell_strings import command_string
from shellpilot.scanner.words import Word

NO_STDIN = "\0no stdin"
"""The here-document text of a command that has no here-document or here-string."""

RunHere = Callable[[str, Cwds, str], Cwds]
"""`run_here(text, cwds, what) -> cwds after it`: scan `text` as run by this same shell
(eval, trap)."""


def shell(name: str, args: list[Word], cwds: Cwds, stdin: str | None, ctx: ScanContext, depth: int) -> None:
    """`bash [opts] -c STR`, `sh script`, `bash <<EOF`: scan what the new shell runs.

    `stdin`: the text it reads (a here-document, a here-string, or what an `echo` before
    it in a pipeline prints); `None`: unknown text (a file, a here-document with
    expansions, a pipe from another program); `NO_STDIN`: the terminal (stdin is closed).
    """
    i = 0
    script = False
    reads_stdin = False  # `sh -s ARGS`: the commands come from stdin, ARGS are $1...
    while i < len(args):
        value = args[i].value
        if value in ("--", "-") and not args[i].dynamic:  # `bash -` ends the options too
            i += 1
            break
        if value[:1] in "-+" and len(value) > 1 and not args[i].dynamic:
            if value in _STARTUP_LONG or (
                value[0] == "-" and value[1] != "-" and set(value[1:]) & {"i", "l"}
            ):
                # a login or interactive shell first runs ~/.profile, ~/.bashrc, $ENV or
                # the file named: commands the text does not show (`HOME=. bash -l -c x`)
                ctx.builder.unknown(f"{name} {value} runs startup files, which cannot be seen")
            if value.startswith("--"):
                i += 1
                continue
            if "c" in value[1:] and value[0] == "-":
                script = True
            if value[1:] in ("o", "O") and i + 1 < len(args):
                i += 1
                risk = option_risk(args[i], value[0] == "-")
                if risk is not None:
                    ctx.builder.unknown(f"{name} {value} {args[i].raw}: {risk}")
            elif value[0] == "+" and "B" in value:
                ctx.builder.unknown(f"{name} {value}: {OFF_RISKS['braceexpand']}")
            if value[0] == "-" and "s" in value[1:]:
                reads_stdin = True
                break
            i += 1
            continue
        break
    rest = [] if reads_stdin and not script else args[i:]
    builder = ctx.builder
    if script:
        if not rest:
            builder.unknown(f"{name} -c without a command string")
        elif rest[0].dynamic:
            builder.unknown(f"{name} -c runs a dynamic string {rest[0].raw}")
        else:
            ctx.nest(_grammar(name), rest[0].value, cwds, depth + 1, f"{name} -c")
    elif rest and (where := _device(rest[0], cwds)) != "stdin":
        if where is not None:
            builder.unknown(f"{name} runs the commands of {rest[0].raw}, which cannot be seen")
        else:
            ctx.resolver.check(rest[0], cwds, name)  # a script file, like `./script.sh`
    elif stdin is None:
        builder.unknown(f"{name} reads its commands from standard input, which cannot be seen")
    elif stdin is not NO_STDIN:
        ctx.nest(_grammar(name), stdin, cwds, depth + 1, f"{name} <<")
    else:
        builder.unknown(f"{name} reads the commands it runs from standard input")


_STDIN_FILES = frozenset(("/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "/proc/thread-self/fd/0"))


def _device(script: Word, cwds: Cwds) -> str | None:
    """What a shell's script operand is besides a file of the project: ``"stdin"`` for a
    name of its standard input (`bash /dev/stdin <<< 'rm x'` runs the here-string),
    ``"other"`` for another pipe or device, or a name only known at run time
    (`bash <(echo rm x)`, `bash /dev/fd/3`, `bash "$f"`); None for a plain file."""
    if script.dynamic:
        return "other"
    value = script.value
    if value.startswith("/"):
        places = [value]
    elif cwds:
        places = [os.path.join(c, value) for c in cwds]
    else:
        return None  # a relative name under an unknown cwd: the resolver says so
    for place in places:
        path = os.path.normpath(place)
        if path.startswith("//"):
            path = path[1:]
        if path in _STDIN_FILES:
            return "stdin"
        if path.startswith(("/dev/", "/proc/")):
            return "other"
    return None


OPTION_RISKS = {
    "history": "bash then saves the lines after it to $HISTFILE when it exits",
    "cdable_vars": "cd NAME then goes where $NAME says",
    "xpg_echo": "echo then reads backslash escapes, so it prints other text than written",
    "nocaseglob": "globs then match names in any case (VICTIM* matches victim)",
    "nullglob": "a glob that matches nothing then vanishes, and the words after it move up",
}
"""bash options (`set -o`, `shopt -s`, `bash -o/-O`) after which commands do what their
text does not show."""
OFF_RISKS = {"braceexpand": "{a,b} then stays one word as written"}
"""bash options whose turning off (`set +o`, `set +B`, `bash +B`) does the same."""
_SET_LETTERS = {"B": "braceexpand"}
"""`set`'s one-letter options that name an option of `OPTION_RISKS` or `OFF_RISKS`."""


def option_risk(word: Word, on: bool = True) -> str | None:
    """Why turning the option `word` names on (or off) hides what later commands do;
    None when it hides nothing."""
    if word.dynamic:
        return "an option named at run time"
    return (OPTION_RISKS if on else OFF_RISKS).get(word.value)


def set_risks(name: str, args: list[Word]) -> list[str]:
    """Why `set ARGS` (`name` is `set`) or `shopt ARGS` changes what later commands do
    (see `option_risk`): `set -o X`/`+o X`, letters (`set +B`, `-euo X`), `shopt -s/-u X`."""
    risks: list[str] = []
    if name == "shopt":
        flags = "".join(w.value[1:] for w in args if w.value[:1] == "-" and not w.dynamic)
        if "s" in flags or "u" in flags:
            for word in args:
                if word.dynamic or word.value[:1] != "-":
                    risk = option_risk(word, "s" in flags)
                    if risk is not None:
                        risks.append(f"shopt {word.raw}: {risk}")
        return risks
    i = 0
    while i < len(args):
        word = args[i]
        value = word.value
        i += 1
        if word.dynamic:
            risks.append(f"set {word.raw}: an option named at run time")
            break
        if value[:1] not in ("-", "+") or value in ("-", "--"):
            break  # the positional parameters
        on = value[0] == "-"
        for letter in value[1:]:
            if letter == "o" and i < len(args):
                risk = option_risk(args[i], on)
                i += 1
            else:
                option = _SET_LETTERS.get(letter)
                risk = None if option is None else option_risk(Word.literal(option), on)
            if risk is not None:
                risks.append(f"set {value}: {risk}")
    return risks


_STARTUP_LONG = frozenset({"--login", "--interactive", "--rcfile", "--init-file"})
"""Long options that make a shell read a startup file (`-i` and `-l` among short ones)."""


def _grammar(name: str) -> Grammar:
    """The grammar a shell named `name` reads: `sh` (POSIX: dash) or `bash`."""
    return "sh" if name in ("sh", "dash", "ash") else "bash"


def foreign(name: str, args: list[Word], cwds: Cwds, ctx: ScanContext, depth: int) -> None:
    """`pwsh -Command STR` / `cmd /c STR` run from bash: scan STR with that shell."""
    script = command_string(name, args, ctx.builder, ctx.resolver, cwds)
    if script is not None:
        ctx.nest("cmd" if name.startswith("cmd") else "powershell", script, cwds, depth + 1, name)


def trap(args: list[Word], cwds: Cwds, ctx: ScanContext, run_here: RunHere) -> None:
    """`trap ACTION SIGNAL...`: ACTION runs later in this shell, so it is scanned now."""
    operands = [w for w in args if not (w.value.startswith("-") and len(w.value) > 1)]
    if len(operands) < 2 or operands[0].value in ("", "-"):
        return
    action = operands[0]
    if action.dynamic:
        ctx.builder.unknown(f"trap of a dynamic string {action.raw}")
    else:
        run_here(action.value, cwds, "trap")


SHELL_WHEN_BARE = frozenset(
    {
        "unshare", "nsenter", "fakeroot", "chroot", "script", "sudo", "doas", "runuser",
        "firejail", "pkexec", "systemd-run", "parallel", "run0", "nix-shell",
    }
)  # fmt: skip
"""Wrappers that, given no program, start a shell (the user's `$SHELL`, often reading
standard input) or, for parallel, run the lines of their input as commands."""


_SU_VALUES = frozenset("gGsw")
"""su/runuser short options whose value is the next word (or the rest of the cluster)."""


def _su_options(args: list[Word]) -> tuple[str, Word | None]:
    """What `su ARGS` / `runuser ARGS` is told to run: ``("string", CMD)`` for `-c CMD`
    (`--command`, `--command=CMD`, `-lc CMD`, `-cCMD`), ``("program", option)`` for a
    program it starts instead of the user's shell (`-s PROG`, `--shell=PROG`,
    `--session-command`), ``("", None)`` when neither: it starts the user's shell."""
    for i, word in enumerate(args):
        value = word.value
        after = args[i + 1] if i + 1 < len(args) else None
        if value == "--command":
            return "string", after
        if value.startswith("--command="):
            return "string", word.suffix(len("--command="))
        if value.startswith(("--shell", "--session-command")):
            return "program", word
        if value[:1] != "-" or value[1:2] in ("", "-"):
            continue
        for k, letter in enumerate(value[1:], start=1):
            if letter == "c":
                return "string", word.suffix(k + 1) if k + 1 < len(value) else after
            if letter == "s":
                return "program", word
            if letter in _SU_VALUES:
                break  # `-g grp`, `-w VAR`: the rest is its value
    return "", None


def su_shell(args: list[Word], builder: ScanBuilder) -> bool:
    """Whether `su ARGS` runs something other than the user's shell reading standard
    input: a command string (scanned by `su`), or a program it is told to start, which
    makes the scan unknown (`su -s /bin/rm` runs rm)."""
    kind, word = _su_options(args)
    if kind == "program" and word is not None:
        builder.unknown(f"su {word.value} names the program it starts")
    return bool(kind)


def su(name: str, args: list[Word], cwds: Cwds, ctx: ScanContext, depth: int) -> None:
    """`su [-] [user] -c CMD` / `runuser ... -c CMD` (`-lc CMD` too): CMD runs through a shell."""
    kind, script = _su_options(args)
    if kind != "string":
        return
    if script is None:
        ctx.builder.unknown(f"{name} -c without a command string")
    elif script.dynamic:
        ctx.builder.unknown(f"{name} -c runs a dynamic string")
    else:
        ctx.nest("bash", script.value, cwds, depth + 1, f"{name} -c")


def evaluate(args: list[Word], cwds: Cwds, ctx: ScanContext, run_here: RunHere) -> Cwds:
    """`eval WORDS`: the words joined by spaces run in this shell; returns the cwds after."""
    if any(w.dynamic for w in args):
        ctx.builder.unknown("eval of a dynamic string")
        return None
    source = " ".join(w.value for w in args)
    return run_here(source, cwds, "eval") if source.strip() else cwds


def joined(real: list[Word], cwds: Cwds, what: str, ctx: ScanContext, depth: int) -> None:
    """`watch CMD ARGS`: the words joined by spaces run through `sh -c`."""
    if any(w.dynamic for w in real):
        ctx.builder.unknown(f"{what} runs a dynamic string")
    else:
        ctx.nest("bash", " ".join(w.value for w in real), cwds, depth + 1, what)
