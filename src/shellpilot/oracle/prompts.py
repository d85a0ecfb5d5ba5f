"""Which prompts the shell gate would show for a command under the default policy.

Owns: deciding the gate's asks (``tool.gate.plan_command``: external_directory, edit,
bash) against ``permission.defaults.default_rules`` without asking anyone or running
anything. Must not touch: scanning or planning (the gate does both) or the sandbox.
"""

from __future__ import annotations

from pathlib import Path

from shellpilot.paths import tool_output_dir
from shellpilot.permission.defaults import default_rules
from shellpilot.permission.service import check
from shellpilot.tool.gate import ShellPlan, plan_command


class Gate:
    """The default policy's view of commands in one project.

    ``project``: the project directory (absolute); ``data_dir``: shellpilot's data
    directory (its tool-output folder is readable without a prompt).
    """

    def __init__(self, project: Path, data_dir: Path) -> None:
        self.project = project
        self.output_dir = tool_output_dir(data_dir, project)
        self.rules = default_rules(data_dir, project)

    def plan(self, command: str, cwd: Path | None = None) -> ShellPlan:
        """The gate's plan for ``command`` run in ``cwd`` (default: the project)."""
        return plan_command(
            command,
            cwd=cwd or self.project,
            project_dir=self.project,
            shell="bash",
            output_dir=self.output_dir,
        )

    def asks(self, plan: ShellPlan) -> list[str]:
        """The permissions (``external_directory``, ``edit``, ``bash``) that would prompt
        for ``plan``, in the order the gate asks them; empty when it would run without a
        prompt. A permission the rules deny is listed too (it would not run silently)."""
        return [r.permission for r in plan.asks() if check(r, self.rules).action != "allow"]


__all__ = ["Gate"]
