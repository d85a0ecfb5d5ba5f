"""Which prompts the shell tool would show for a command under the default policy.

Owns: replaying the asks of ``ShellTool.execute`` (external_directory, edit, bash, in that
order) against ``permission.defaults.default_rules`` without running anything. Must not
touch: scanning (the caller passes the scan) or the sandbox.

The order and arguments mirror ``tool/shell.py``; tests/scanner/test_oracle.py checks the
mirror against the real tool for commands that are safe to run, so the two cannot drift
apart unnoticed.
"""

from __future__ import annotations

from pathlib import Path

from shellpilot.config.model import Config
from shellpilot.permission.defaults import default_rules
from shellpilot.permission.readonly import is_read_only
from shellpilot.permission.service import check
from shellpilot.scanner.scan_result import Scan
from shellpilot.tool.shell import ShellTool, edit_patterns


class Gate:
    """The default policy's view of commands in one project.

    ``project``: the project directory (absolute); ``data_dir``: shellpilot's data
    directory (its tool-output folder is readable without a prompt).
    """

    def __init__(self, project: Path, data_dir: Path) -> None:
        self.project = project
        self.tool = ShellTool(Config(), data_dir)
        self.rules = default_rules(data_dir)

    def asks(self, command: str, found: Scan, cwd: Path | None = None) -> list[str]:
        """The permissions (``external_directory``, ``edit``, ``bash``) that would prompt
        for ``command`` scanned as ``found`` in ``cwd`` (default: the project), in the
        order the tool asks them; empty when it would run without a prompt. A permission
        the rules deny is listed too (the command would not run silently either)."""
        project = self.project
        where = cwd or project
        asked: list[str] = []
        outside = self.tool.outside_globs(where, list(found.dirs), project)
        if outside and check("external_directory", outside, self.rules).action != "allow":
            asked.append("external_directory")
        writes = edit_patterns(list(found.writes), project)
        if writes and check("edit", writes, self.rules).action != "allow":
            asked.append("edit")
        patterns = list(found.patterns)
        read_only: list[str] = []
        unanalysed: list[str] = []
        if found.unknown:
            patterns += [command] if command not in patterns else []
            unanalysed = [command]
        else:
            read_only = [
                c.text
                for c in found.commands
                if is_read_only(
                    list(c.argv),
                    cwd=where,
                    project_dir=project,
                    text=c.text,
                    readable=(self.tool.output_dir,),
                    line=command,
                )
            ]
        if (
            patterns
            and check("bash", patterns, self.rules, read_only, unanalysed=unanalysed).action != "allow"
        ):
            asked.append("bash")
        return asked


__all__ = ["Gate"]
