"""Programs that run commands given inside their arguments: awk's `system()` and pipes, sed's
`e`, ssh's `ProxyCommand`, vim's `-c '!cmd'`, tar's `--use-compress-program`, rsync's `-e`,
`split --filter`, `sort --compress-program`, `man -P`, `gdb -ex`, `mapfile -C`, `git grep
-O`, `git rebase -x`, `git fetch --upload-pack`.

Owns: `runs_from_arguments(name, args)`, the reason such an invocation makes the scan
`unknown` (what it runs is text of another language, which the scanner does not read).
Must not touch: shells' own `-c` text (bash_nesting.py scans that) or interpreters' inline
code (`python -c`: inline_code.py judges that).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from shellpilot.scanner.git_repos import RISKY_WORDS
from shellpilot.scanner.options import long_options
from shellpilot.scanner.sedscript import is_safe_script
from shellpilot.scanner.words import Word

_AWK_VALUE_OPTIONS = frozenset({"-F", "-v", "--field-separator", "--assign"})
_AWK_PROGRAM_OPTIONS = frozenset({"-e", "--source"})
_AWK_FILE_OPTIONS = frozenset({"-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load"})
_AWK_RUNS = re.compile(r"system|(?<!\|)\|(?!\|)|\bprintf?\b[^;{}\n]*>")
"""awk text that may start a process or write a file: `system(`, `print | "cmd"`, `"cmd" |
getline`, `|&`, and `print > "file"` / `printf ... >> f` (in a print statement an
unparenthesised `>` is a redirect, not a comparison)."""


_AWK_LONG = frozenset(o for o in _AWK_VALUE_OPTIONS | _AWK_PROGRAM_OPTIONS | _AWK_FILE_OPTIONS if o[1] == "-")


def _awk_long(name: str) -> str:
    """gawk's long option `name` stands for (`--so` is `--source`; see long_options): a
    program file first, then program text, when an abbreviation may be several."""
    meant = long_options(name, _AWK_LONG)
    for group in (_AWK_FILE_OPTIONS, _AWK_PROGRAM_OPTIONS):
        found = next((o for o in meant if o in group), None)
        if found is not None:
            return found
    return meant[0] if meant else name


def _awk(args: Sequence[Word]) -> str | None:
    programs: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        if word.dynamic:
            return "awk with a dynamic word: its program may run commands"
        text = word.value
        if text == "--":
            index += 1
            break
        name, eq, attached = text.partition("=") if text.startswith("--") else (text[:2], "", text[2:])
        name = _awk_long(name)
        if name in _AWK_FILE_OPTIONS:
            return f"awk {name} loads a program file, which may run commands"
        if name in _AWK_PROGRAM_OPTIONS or name in _AWK_VALUE_OPTIONS:
            value = attached if (eq or attached) else (args[index + 1].value if index + 1 < len(args) else "")
            if name in _AWK_PROGRAM_OPTIONS:
                programs.append(value)
            index += 1 if (eq or attached) else 2
            continue
        if text.startswith("-") and text != "-":
            index += 1
            continue
        break
    if not programs and index < len(args):
        if args[index].dynamic:
            return "awk with a dynamic program, which may run commands"
        programs.append(args[index].value)
    for program in programs:
        if _AWK_RUNS.search(program):
            return "awk program runs commands (system() or a pipe to or from a command)"
    return None


_SED_LONG = ("--file", "--expression", "--line-length")
"""sed's long options that take a value (`--exp`, `--fi`: getopt_long's abbreviations)."""


def _sed(args: Sequence[Word]) -> str | None:
    scripts: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        if word.dynamic:
            return "sed with a dynamic word: its script may run commands"
        text = word.value
        following = args[index + 1].value if index + 1 < len(args) else ""
        index += 1
        if text == "--":
            break
        if text.startswith("--"):
            name, eq, value = text.partition("=")
            meant = long_options(name, _SED_LONG)
            if "--file" in meant:
                return "sed --file reads a script file, which may run commands"
            if "--expression" in meant:
                scripts.append(value if eq else following)
                index += 0 if eq else 1
            elif "--line-length" in meant and not eq:
                index += 1
            continue
        if not text.startswith("-") or text == "-":
            index -= 1
            break
        for position, letter in enumerate(text[1:], start=1):
            rest = text[position + 1 :]
            if letter == "f":
                return "sed -f reads a script file, which may run commands"
            if letter in "el":
                if letter == "e":
                    scripts.append(rest or following)
                index += 0 if rest else 1
                break
            if letter == "i":
                break  # -i[SUFFIX]: the rest of the word is the backup suffix
    if not scripts and index < len(args):
        if args[index].dynamic:
            return "sed with a dynamic script, which may run commands"
        scripts.append(args[index].value)
    for script in scripts:
        if not is_safe_script(script, files_ok=True):  # its w/r files are scan_writes' and paths'
            return "sed script runs commands (e, s///e) or is not understood"
    return None


_SSH_COMMAND_KEYS = frozenset({"proxycommand", "localcommand", "knownhostscommand", "match"})
"""ssh_config keys whose value ssh runs on this machine (`Match exec` runs one too)."""
_SSH_FILE_KEYS = frozenset({"userknownhostsfile", "controlpath"})
"""ssh_config keys naming a local file ssh writes (host keys it learns, a control socket)."""


def _ssh(args: Sequence[Word]) -> str | None:
    for index, word in enumerate(args):
        if word.dynamic:
            return "ssh with a dynamic word: an option may run a local command"
        text = word.value
        option = ""
        if text == "-o" and index + 1 < len(args):
            option = args[index + 1].value
        elif text.startswith("-o") and len(text) > 2:
            option = text[2:]
        elif text == "-F" or (text.startswith("-F") and len(text) > 2):
            return "ssh -F reads a config file, which may run local commands (ProxyCommand...)"
        elif text == "-E" or (text.startswith("-E") and len(text) > 2):
            return "ssh -E writes its log to a local file"
        key = re.split(r"[\s=]", option.strip(), maxsplit=1)[0].lower() if option else ""
        if key in _SSH_COMMAND_KEYS:
            return f"ssh -o {key} runs a local command"
        if key in _SSH_FILE_KEYS:
            return f"ssh -o {key} writes a local file"
    return None


def _scp(args: Sequence[Word]) -> str | None:
    for word in args:
        if word.value == "-S" or (
            word.value.startswith("-") and not word.value.startswith("--") and "S" in word.value
        ):
            return "scp -S runs the given program instead of ssh"
    return _ssh(args)


def _rsync(args: Sequence[Word]) -> str | None:
    for word in args:
        text = word.value
        if word.dynamic:
            return "rsync with a dynamic word: -e may run a local command"
        if (
            text == "-e"
            or long_options(text.partition("=")[0], ("--rsh",))
            or (text.startswith("-") and not text.startswith("--") and "e" in text[1:])
        ):
            return "rsync -e/--rsh runs the given command"
    return None


_VIM_RUNS = frozenset({"-c", "--cmd", "-S", "-s", "-u", "-U", "-x"})


def _vim(args: Sequence[Word]) -> str | None:
    for word in args:
        text = word.value
        if word.dynamic:
            return "an editor with a dynamic word: its commands may run programs"
        if text.startswith("+") or text in _VIM_RUNS or text.startswith("--cmd"):
            return f"the editor runs editor commands ({text[:12]}), which may run programs"
    return None


_TAR_LONG = (
    "--use-compress-program",
    "--to-command",
    "--checkpoint-action",
    "--info-script",
    "--new-volume-script",
    "--rsh-command",
    "--rmt-command",
)


def _tar(args: Sequence[Word]) -> str | None:
    for index, word in enumerate(args):
        text = word.value
        if word.dynamic:
            return "tar with a dynamic word: an option may run a program"
        if text.startswith("--"):
            name = text.partition("=")[0]
            if long_options(name, _TAR_LONG):  # (`--use` is --use-compress-program)
                return f"tar {name} runs a program"
        elif text.startswith("-") or index == 0:
            letters = text.lstrip("-")
            if "I" in letters or "F" in letters:
                return "tar -I/-F runs a program"
    return None


_COMMAND_OPTIONS: dict[str, tuple[frozenset[str], str]] = {
    # program: (long options that take a command, short option letters that do)
    "split": (frozenset({"--filter"}), ""),
    "sort": (frozenset({"--compress-program"}), ""),
    "wget": (frozenset({"--use-askpass", "--execute"}), "e"),
    "zip": (frozenset({"--unzip-command"}), ""),
    "man": (frozenset({"--pager", "--html"}), "PH"),
    "gdb": (frozenset({"--eval-command", "--init-eval-command", "--command", "--init-command"}), "x"),
    "mapfile": (frozenset(), "C"),
    "readarray": (frozenset(), "C"),
    "compgen": (frozenset(), "CF"),
    "complete": (frozenset(), "CF"),
}
"""Programs (and builtins) with options whose value is a command they run: `split
--filter=CMD`, `wget -e use_askpass=PROG` (a wgetrc command), `sort
--compress-program=PROG`, `man -P PAGER`, `gdb -ex 'shell ..'`, `mapfile -C CALLBACK`,
`compgen -C CMD` / `-F FUNCTION`, `zip -TT CMD` (its `-TT` is handled apart)."""


def _running_option(label: str, longs: frozenset[str], shorts: str, args: Sequence[Word]) -> str | None:
    """Why `label ARGS` runs a command named in an option's value: a `--long` option of
    `longs` (abbreviated too: `--filt` is --filter), a short letter of `shorts` in any
    cluster, gdb's `-ex`/`-iex` or zip's `-TT`; a dynamic word may be any of them. Words
    after `--` are operands. None when no such option is given."""
    for word in args:
        text = word.value
        if word.dynamic:
            return f"{label} with a dynamic word: an option may run a command"
        if text == "--":
            return None
        if text.startswith("--"):
            option = text.partition("=")[0]
            if long_options(option, longs):
                return f"{label} {option} runs a command"
        elif text.startswith("-") and len(text) > 1:
            if (label == "gdb" and text in ("-ex", "-iex")) or (label == "zip" and text.startswith("-TT")):
                return f"{label} {text} runs a command"
            if any(letter in shorts for letter in text[1:]):
                return f"{label} {text} runs a command"
    return None


def _command_options(name: str) -> Callable[[Sequence[Word]], str | None]:
    longs, shorts = _COMMAND_OPTIONS[name]
    return lambda args: _running_option(name, longs, shorts, args)


def _ed(args: Sequence[Word]) -> str | None:
    return "ed runs the editing commands it reads (`w FILE`, `!cmd`), which the scan cannot see"


_MUX_QUIET = frozenset(
    {
        "ls",
        "list-sessions",
        "list-windows",
        "lsw",
        "list-panes",
        "lsp",
        "has-session",
        "has",
        "attach",
        "attach-session",
        "a",
        "detach",
        "kill-session",
        "kill-server",
        "kill-window",
        "capture-pane",
        "capturep",
        "-V",
        "-ls",
        "-list",
        "-r",
        "-x",
        "-wipe",
    }
)


def _multiplexer(args: Sequence[Word]) -> str | None:
    """tmux and screen start a shell or run commands given as words (`tmux new 'rm x'`,
    `send-keys`, `run-shell`, `screen -dm rm x`); only listing and attaching is plain."""
    words = [w for w in args if not (w.value.startswith("-") and len(w.value) == 2 and w.value[1] in "LSf")]
    if words and not words[0].dynamic and words[0].value in _MUX_QUIET:
        return None
    return "a terminal multiplexer runs commands in a shell it starts"


def _capsh(args: Sequence[Word]) -> str | None:
    if any(w.dynamic or w.value in ("--", "==") or w.value.startswith("--shell") for w in args):
        return "capsh runs a shell with the words after --"
    return None


_GIT_GLOBAL_VALUES = frozenset(
    {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix"}
)
"""git's own options before the subcommand that take the next word as their value."""

_GIT_FILTERS = (
    "--setup --tree-filter --index-filter --parent-filter --msg-filter --commit-filter --env-filter"
)
_GIT_COMMAND_OPTIONS: dict[str, tuple[frozenset[str], str]] = {
    # subcommand: (long options whose value is a command git runs, short letters that are)
    "grep": (frozenset({"--open-files-in-pager"}), "O"),
    "difftool": (frozenset({"--extcmd"}), "x"),
    "rebase": (frozenset({"--exec"}), "x"),
    "fetch": (frozenset({"--upload-pack"}), ""),
    "pull": (frozenset({"--upload-pack"}), ""),
    "ls-remote": (frozenset({"--upload-pack"}), "u"),
    "clone": (frozenset({"--upload-pack"}), "u"),
    "archive": (frozenset({"--exec"}), ""),
    "push": (frozenset({"--receive-pack", "--exec"}), ""),
    "fetch-pack": (frozenset({"--upload-pack", "--exec"}), ""),
    "send-pack": (frozenset({"--receive-pack", "--exec"}), ""),
    "send-email": (
        frozenset({"--smtp-server", "--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd"}),
        "",
    ),
    "filter-branch": (frozenset([*_GIT_FILTERS.split(), "--tag-name-filter"]), ""),
}
"""git subcommands with options that run a command written in their value: `git grep
-O<pager>` (with or without a value it runs a pager on the files found), `rebase -x`,
`difftool -x`, the `--upload-pack`/`--receive-pack`/`--exec` programs of transports
(run here through a shell for a local repository), `send-email`'s and
`filter-branch`'s commands."""


def _git(args: Sequence[Word]) -> str | None:
    """git's subcommand options that run commands (`_GIT_COMMAND_OPTIONS`), `git bisect
    run CMD` and `git instaweb`; git's own `-c`, aliases and repository config are
    bash_git's."""
    index = 0
    while index < len(args) and not args[index].dynamic and args[index].value.startswith("-"):
        index += 2 if args[index].value in _GIT_GLOBAL_VALUES else 1
    if index >= len(args) or args[index].dynamic:
        return None
    sub, rest = args[index].value, args[index + 1 :]
    if any(not w.dynamic and w.value[:5].lower() == "ext::" for w in rest):
        return f"git {sub} with an ext:: address runs the command it names"
    if sub == "instaweb" or (sub == "bisect" and any(w.dynamic or w.value == "run" for w in rest[:1])):
        return f"git {sub} runs a command"
    if sub == "clone":
        found = _git_clone_setup(rest)
        if found is not None:
            return found
    if sub not in _GIT_COMMAND_OPTIONS:
        return None
    longs, shorts = _GIT_COMMAND_OPTIONS[sub]
    return _running_option(f"git {sub}", longs, shorts, rest)  # (parse-options takes prefixes)


def _git_clone_setup(args: Sequence[Word]) -> str | None:
    """`git clone -c KEY=V` / `--config` writes KEY into the new repository before its
    checkout, which then runs what it names (`core.hooksPath=DIR`: DIR/post-checkout);
    `--template=DIR` copies DIR's hooks in, and post-checkout runs."""
    for index, word in enumerate(args):
        text = word.value
        if word.dynamic or text == "--":
            return None
        name, eq, attached = text.partition("=")
        setting = ""
        if long_options(name, ("--template",)):
            return "git clone --template copies hooks that its checkout runs"
        if long_options(name, ("--config",)):
            setting = attached if eq else (args[index + 1].value if index + 1 < len(args) else "")
        elif text.startswith("-c"):
            setting = text[2:] or (args[index + 1].value if index + 1 < len(args) else "")
        key = setting.partition("=")[0].lower()
        if any(risky in key for risky in RISKY_WORDS):
            return f"git clone -c {key}: the new repository runs what it names"
    return None


SQL_SHELLS = frozenset({"sqlite3", "duckdb"})
"""SQL shells whose text (arguments, `-cmd`, standard input) may run programs or write files."""
_SQL_RISKS = re.compile(
    r"^\s*\.|\b(?:attach|vacuum|load_extension|writefile|readfile|edit|copy|export|install|load)\b",
    re.IGNORECASE | re.MULTILINE,
)
"""What in SQL shell text runs a program or touches a file: a dot-command (`.shell`,
`.system`, `.output F`, `.once F`, `.log F`, `.save F`, `.read F`...), `ATTACH 'f'`,
`VACUUM INTO 'f'`, the file functions (`writefile`, `readfile`, `edit`), duckdb's `COPY .. TO`,
`EXPORT DATABASE`, `INSTALL`/`LOAD`."""
_SQL_VALUES = frozenset({"-separator", "-nullvalue", "-newline", "-mmap", "-maxsize", "-vfs"})
_SQL_RUNNERS = frozenset({"-cmd", "-init", "-A", "-archive", "-c", "-s", "-f"})


def sql_text_problem(name: str, text: str | None) -> str | None:
    """Why SQL shell `name` reading `text` (None: text not in the command) may run a
    program or write a file; None when the text is plain SQL."""
    if text is None:
        return f"{name} reads SQL and dot-commands the text does not show, which may run programs"
    if _SQL_RISKS.search(text) is not None:
        return f"{name} runs dot-commands or SQL that may run programs or touch files"
    return None


def _sql_shell(name: str) -> Callable[[Sequence[Word]], str | None]:
    def reader(args: Sequence[Word]) -> str | None:
        if any(w.value in ("-safe", "--safe") and not w.dynamic for w in args):
            return None  # safe mode: no dot-commands or SQL functions that reach files
        database = True  # (the first operand names the database; the rest is SQL)
        after_value = False
        for word in args:
            if word.dynamic:
                return f"{name} with a dynamic word: its SQL may run programs or write files"
            text = word.value
            if after_value:
                after_value = False
                continue
            if text in _SQL_RUNNERS or text.lstrip("-") in ("cmd", "init", "archive"):
                return f"{name} {text} runs SQL or dot-commands, which may run programs or write files"
            if text in _SQL_VALUES:
                after_value = True
                continue
            if text[:1] == "-" and len(text) > 1:
                continue
            if database:
                database = False
                continue
            problem = sql_text_problem(name, text)
            if problem is not None:
                return problem
        return None

    return reader


_BY_NAME: dict[str, Callable[[Sequence[Word]], str | None]] = {
    "git": _git,
    "ed": _ed,
    "capsh": _capsh,
    "tmux": _multiplexer,
    "screen": _multiplexer,
    "red": _ed,
    **{name: _command_options(name) for name in _COMMAND_OPTIONS},
    "awk": _awk,
    "gawk": _awk,
    "mawk": _awk,
    "nawk": _awk,
    "sed": _sed,
    "gsed": _sed,
    "ssh": _ssh,
    "scp": _scp,
    "sftp": _scp,
    "rsync": _rsync,
    "vim": _vim,
    "vi": _vim,
    "nvim": _vim,
    "ex": _vim,
    "view": _vim,
    "vimdiff": _vim,
    "rvim": _vim,
    "tar": _tar,
    "gtar": _tar,
    "bsdtar": _tar,
    **{name: _sql_shell(name) for name in SQL_SHELLS},
}
"""Programs whose arguments can hold commands they run, and the reader of each."""


def runs_from_arguments(name: str, args: Sequence[Word]) -> str | None:
    """Why `name args...` may run a command written inside its arguments, or None.

    `name` is the program's base name (wrappers peeled); `args` its words after the name.
    The readers are conservative: text they cannot read (a dynamic word, a script file)
    counts as running commands.
    """
    reader = _BY_NAME.get(name)
    return reader(args) if reader is not None else None


__all__ = ["SQL_SHELLS", "runs_from_arguments", "sql_text_problem"]
