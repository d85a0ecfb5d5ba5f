"""The table of command wrappers: programs that run the command written after them
(`sudo`, `env`, `timeout`, `taskset`, `flock`, `uv run`, `npx`...).

Owns: `Wrapper` (how to skip a wrapper's own options to reach the command it runs) and
`WRAPPERS`. Must not touch: peeling them off a command (wrappers.py) or paths.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_NONE: frozenset[str] = frozenset()


def _s(names: str) -> frozenset[str]:
    return frozenset(names.split())


_NUMBER = re.compile(r"[0-9][0-9.]*[smhd]?|inf")
_CPUS = re.compile(r"(?:0x)?[0-9a-fA-F]+(?:[-,:][0-9a-fA-F]+)*")


@dataclass(frozen=True, slots=True)
class Wrapper:
    """How one wrapper reads its own words before the command it runs.

    `short_values`/`long_values`: options taking a value (`-n 5`, `--signal=KILL`);
    `optional_attached`: letters whose value is only ever attached (`xargs -i[R]`).
    `positionals`: words it takes after its options (timeout's DURATION, taskset's
    mask), only while they match `positional` when given (chrt's priority is optional).
    `assignments`: `NAME=value` words are its own (env, sudo). `chdir`/`long_chdir`:
    options naming the command's working directory. `paths`/`long_paths`: options
    naming a file it reads; `outputs`/`long_outputs`: options naming a file it writes
    (`time -o`, `strace -o`); `path_positional`: its positional is a file it creates
    (flock's lock file). `strings`/`long_strings`: options whose value is a
    command string run through a shell (`flock -c`, `nix-shell --run`); then it runs
    no command of its own words. `no_exec`/`long_no_exec`: options meaning it runs no
    command (`command -v`, `taskset -p`). `refuse`/`long_refuse`: options that cannot be
    followed statically (`env -S`); an abbreviated `--long` option reads as the one it
    stands for (`env --sp` is `--split-string`). `joined`: it joins the command's words
    into one string for a shell (watch, parallel). `from_input`: it adds arguments read
    from its input (xargs, parallel).
    `package`: the command is a package name, maybe with a version (`npx tsc@5`).
    `stop_at`: words that end the command (parallel's `:::`). `strings_only`: it runs
    only its string options' text; its other words are files (`script FILE`).
    """

    short_values: str = ""
    optional_attached: str = ""
    long_values: frozenset[str] = _NONE
    positionals: int = 0
    positional: re.Pattern[str] | None = None
    assignments: bool = False
    chdir: str = ""
    long_chdir: frozenset[str] = _NONE
    paths: str = ""
    long_paths: frozenset[str] = _NONE
    outputs: str = ""
    long_outputs: frozenset[str] = _NONE
    path_positional: bool = False
    strings: str = ""
    long_strings: frozenset[str] = _NONE
    no_exec: str = ""
    long_no_exec: frozenset[str] = _NONE
    refuse: str = ""
    long_refuse: frozenset[str] = _NONE
    joined: bool = False
    from_input: bool = False
    package: bool = False
    stop_at: frozenset[str] = _NONE
    strings_only: bool = False

    def long_names(self) -> frozenset[str]:
        """Every `--long` option this wrapper names (an abbreviation of one reads as it)."""
        return (
            self.long_values
            | self.long_chdir
            | self.long_paths
            | self.long_outputs
            | self.long_strings
            | self.long_no_exec
            | self.long_refuse
        )


_PLAIN = Wrapper()
_TIMEOUT = Wrapper(short_values="sk", long_values=_s("--signal --kill-after"), positionals=1)
_PACKAGE = Wrapper(
    short_values="p",
    long_values=_s("--package --registry"),
    strings="c",
    long_strings=_s("--call"),
    package=True,
)
_ENV_RUN = Wrapper(
    short_values="pen",
    long_values=_s(
        "--with --with-editable --with-requirements --python --env-file --directory --project --package "
        "--extra --group --index --default-index --index-url --extra-index-url --find-links --name --prefix "
        "--environment --cache-dir --config-file --color --resolution --prerelease --exclude-newer"
    ),
)

WRAPPERS: dict[str, Wrapper] = {
    "sudo": Wrapper(
        short_values="ugCDhprtTUR",
        assignments=True,
        chdir="D",
        long_chdir=_s("--chdir"),
        long_values=_s(
            "--user --group --close-from --host --prompt --role --type --other-user "
            "--command-timeout --chroot"
        ),
        no_exec="lvkKVe",
    ),
    "doas": Wrapper(short_values="uC", no_exec="L"),
    "pkexec": Wrapper(long_values=_s("--user")),
    "env": Wrapper(
        short_values="u",
        assignments=True,
        chdir="C",
        long_chdir=_s("--chdir"),
        # (--default-signal, --ignore-signal and --block-signal take a value only as =SIG)
        long_values=_s("--unset"),
        refuse="S",
        long_refuse=_s("--split-string"),
    ),
    "cross-env": Wrapper(assignments=True),
    "nohup": _PLAIN,
    "nice": Wrapper(short_values="n", long_values=_s("--adjustment")),
    "ionice": Wrapper(
        short_values="cn",
        long_values=_s("--class --classdata"),
        no_exec="pPu",
        long_no_exec=_s("--pid --pgid --uid"),
    ),
    "taskset": Wrapper(positionals=1, positional=_CPUS, no_exec="p", long_no_exec=_s("--pid")),
    "chrt": Wrapper(
        short_values="TPD",
        long_values=_s("--sched-runtime --sched-period --sched-deadline"),
        positionals=1,
        positional=re.compile(r"[0-9]+"),
        no_exec="pm",
        long_no_exec=_s("--pid --max"),
    ),
    "flock": Wrapper(
        short_values="wE",
        long_values=_s("--timeout --conflict-exit-code"),
        positionals=1,
        path_positional=True,
        strings="c",
        long_strings=_s("--command"),
    ),
    "timeout": _TIMEOUT,
    "gtimeout": _TIMEOUT,
    "stdbuf": Wrapper(short_values="ioe", long_values=_s("--input --output --error")),
    "time": Wrapper(short_values="f", outputs="o", long_outputs=_s("--output"), long_values=_s("--format")),
    "command": Wrapper(no_exec="vV"),
    "builtin": _PLAIN,
    "exec": Wrapper(short_values="a"),
    "setsid": _PLAIN,
    "coproc": _PLAIN,
    "unbuffer": _PLAIN,
    "busybox": Wrapper(no_exec="", long_no_exec=_s("--list --help --install")),
    "firejail": Wrapper(long_values=_NONE),
    "fakeroot": Wrapper(short_values="isl", long_values=_s("--lib --faked")),
    "eatmydata": _PLAIN,
    "chronic": _PLAIN,
    "catchsegv": _PLAIN,
    "dbus-run-session": _PLAIN,
    "xvfb-run": Wrapper(
        short_values="nseflp",
        long_values=_s("--server-num --error-file --auth-file --xauth-protocol --server-args"),
    ),
    "strace": Wrapper(short_values="eOpPsSuEXabI", outputs="o", no_exec="pc"),
    "ltrace": Wrapper(short_values="elnpsSuaAD", outputs="o", no_exec="p"),
    "valgrind": _PLAIN,
    "unshare": Wrapper(
        short_values="SGRw",
        long_values=_s("--setuid --setgid --root --wd --propagation --map-user --map-group"),
    ),
    # nsenter's -r/-w and the namespace letters take a value only attached (`-r/x`, `--wd=d`)
    "nsenter": Wrapper(
        short_values="tSG", optional_attached="rwmuinpUCT", long_values=_s("--target --setuid --setgid")
    ),
    "prlimit": Wrapper(long_values=_s("--pid"), no_exec="p"),
    "setpriv": Wrapper(
        long_values=_s(
            "--reuid --regid --ruid --rgid --euid --egid --groups --inh-caps --ambient-caps "
            "--bounding-set --securebits --pdeathsig --selinux-label --apparmor-profile "
            "--landlock-access --landlock-rule"
        ),
        no_exec="d",
        long_no_exec=_s("--dump --list-caps"),
    ),
    "numactl": Wrapper(
        short_values="CNmiPp",
        long_values=_s("--cpunodebind --membind --interleave --preferred --physcpubind"),
    ),
    "systemd-run": Wrapper(
        short_values="pEu",
        long_values=_s("--unit --property --description --slice --setenv --uid --gid --working-directory"),
    ),
    "tini": _PLAIN,
    "dumb-init": _PLAIN,
    "gosu": Wrapper(positionals=1),
    # `runuser -u USER [--] CMD`; `runuser [-l] USER -c CMD` runs the string
    "runuser": Wrapper(
        short_values="ugGsw",
        long_values=_s("--user --group --supp-group --shell --whitelist-environment"),
        strings="c",
        long_strings=_s("--command --session-command"),
    ),
    "su-exec": Wrapper(positionals=1),
    "chroot": Wrapper(long_values=_s("--userspec --groups"), positionals=1, path_positional=True),
    "lckdo": Wrapper(short_values="w", positionals=1, path_positional=True),
    "caffeinate": Wrapper(short_values="tw"),
    "torsocks": _PLAIN,
    "proxychains": Wrapper(short_values="f"),
    "proxychains4": Wrapper(short_values="f"),
    "rlwrap": _PLAIN,
    "ssh-agent": Wrapper(short_values="aEPt", no_exec="klDsc"),
    # watch and parallel join their words into one command string for a shell
    "watch": Wrapper(short_values="n", optional_attached="d", long_values=_s("--interval"), joined=True),
    "parallel": Wrapper(
        short_values="jSdaIEL",
        long_values=_s(
            "--jobs --sshlogin --delimiter --arg-file --replace --eof --max-args --results --joblog --tmpdir"
        ),
        paths="a",
        joined=True,
        from_input=True,
        stop_at=_s("::: :::: :::+ ::::+"),
    ),
    "xargs": Wrapper(
        short_values="adEILnPs",
        optional_attached="iel",
        paths="a",
        # (--eof, --replace and --max-lines take a value only as =VALUE)
        long_values=_s("--delimiter --max-args --max-procs --max-chars --process-slot-var"),
        long_paths=_s("--arg-file"),
        from_input=True,
    ),
    # commands that run a string through a shell
    "script": Wrapper(
        short_values="ImBTOoE",
        optional_attached="t",
        long_values=_s("--log-in --log-out --log-io --log-timing --logging-format --echo --output-limit"),
        strings="c",
        long_strings=_s("--command"),
        strings_only=True,
    ),
    "nix-shell": Wrapper(
        short_values="pIA",
        long_strings=_s("--run --command"),
        long_values=_s("--attr --arg --argstr --packages"),
        strings_only=True,
    ),
    # package runners and environment runners
    "npx": _PACKAGE,
    "bunx": _PACKAGE,
    "uvx": Wrapper(long_values=_s("--from --with --python --index-url"), package=True),
    "pnpx": _PACKAGE,
    "pnpm dlx": _PACKAGE,
    "pnpm exec": _PLAIN,
    "npm exec": _PACKAGE,
    "npm x": _PACKAGE,
    "yarn dlx": _PACKAGE,
    "yarn exec": _PLAIN,
    "bun x": _PACKAGE,
    "uv run": _ENV_RUN,
    "uv tool run": Wrapper(long_values=_s("--from --with --python --index-url"), package=True),
    "pipx run": Wrapper(long_values=_s("--spec --python --index-url"), package=True),
    "poetry run": _PLAIN,
    "pipenv run": _PLAIN,
    "pdm run": _PLAIN,
    "hatch run": _PLAIN,
    "rye run": _PLAIN,
    "conda run": _ENV_RUN,
    "mamba run": _ENV_RUN,
    "micromamba run": _ENV_RUN,
    "bundle exec": _PLAIN,
    "mise exec": _PLAIN,
    "mise x": _PLAIN,
    "asdf exec": _PLAIN,
    "rbenv exec": _PLAIN,
    "pyenv exec": _PLAIN,
    "direnv exec": Wrapper(positionals=1, path_positional=True),
    "dotenv": Wrapper(short_values="ecv", long_values=_NONE),
}
"""Wrapper name (one word, or two for a subcommand: `uv run`) -> how it reads its words."""

FIRST_WORDS = frozenset(key.split(" ", 1)[0] for key in WRAPPERS)
"""The first word of every wrapper (`uv` for `uv run`): a cheap test before `unwrap`."""
