"""Environment variables whose value another program runs as a command, or that change
the configuration git reads.

Owns: those two name lists and `judge_variable`, which every assignment form calls (a
bare `NAME=v`, a prefix `NAME=v cmd`, `export`/`declare`, `env NAME=v cmd`). Must not
touch: variables that change what bash itself runs (bash_names.SPECIAL_VARIABLES).

git runs `GIT_EDITOR`, `GIT_SSH_COMMAND`, `GIT_PAGER`... through a shell
(`GIT_EXTERNAL_DIFF=rm git diff` runs rm), and many programs run `EDITOR`, `PAGER` or
`LESSOPEN` the same way, so the value is scanned as the command it is: a deny rule for
rm sees `rm`. `GIT_CONFIG_KEY_0=diff.external`, `GIT_CONFIG_PARAMETERS`, `GIT_EXEC_PATH`
and the like set any configuration, which `-c` would show: the scan is unknown.
"""

from __future__ import annotations

from shellpilot.scanner.context import Cwds, ScanContext

RUN_AS_COMMANDS = frozenset(
    {
        "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_PAGER", "GIT_SSH", "GIT_SSH_COMMAND",
        "GIT_EXTERNAL_DIFF", "GIT_ASKPASS", "GIT_PROXY_COMMAND", "SSH_ASKPASS", "SUDO_ASKPASS",
        "EDITOR", "VISUAL", "PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE", "BROWSER",
    }
)  # fmt: skip
"""Variables whose value programs run as a command line (through `sh -c` or as a program)."""

CHANGE_GIT_CONFIG = frozenset(
    {
        "GIT_CONFIG_COUNT", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG", "GIT_CONFIG_GLOBAL",
        "GIT_CONFIG_SYSTEM", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_ALLOW_PROTOCOL",
    }
)  # fmt: skip
"""Variables that give git configuration, programs or hooks the text does not show."""


def judge_variable(name: str, value: str | None, cwds: Cwds, ctx: ScanContext, depth: int) -> None:
    """Scan what assigning `value` (None: known only at run time) to `name` makes
    programs run later: a command line for `RUN_AS_COMMANDS` (a dynamic one makes the
    scan unknown), git configuration for `CHANGE_GIT_CONFIG` and `GIT_CONFIG_KEY_<n>` /
    `GIT_CONFIG_VALUE_<n>` (unknown). Any other name: nothing."""
    if name in RUN_AS_COMMANDS:
        if value is None:
            ctx.builder.unknown(f"{name} is set at run time, and programs run it as a command")
        elif value.strip():
            ctx.nest("bash", value, cwds, depth + 1, f"{name}=")
    elif name in CHANGE_GIT_CONFIG or name.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_")):
        ctx.builder.unknown(f"{name} gives git configuration the text does not show")


__all__ = ["CHANGE_GIT_CONFIG", "RUN_AS_COMMANDS", "judge_variable"]
