"""The built-in permission policy used beneath every user's rules.

Owns: the default rules and the text that documents them. Must not touch: config files
or the read-only judgement of commands (``permission/readonly.py``).
"""

from __future__ import annotations

from pathlib import Path

from shellpilot.paths import tool_output_dir
from shellpilot.permission.rules import Rule

POLICY = """\
Default policy (rules with source "default"; any rule of yours that matches wins over
them, see rules.evaluate):
- bash: ask. Commands the caller judged read-only from their parsed argv (ls, pwd, echo,
  cat/head/tail/wc inside the project, grep/rg, git status|log|diff|show|branch without
  output or config flags, find without -exec/-delete/-fprint, sed without -i/e/w; see
  readonly.py) are allowed when a catch-all ask decides them.
- external_directory: ask, except shellpilot's own tool-output folder
  (<data>/tool-output/*), which stays allowed so a model can read truncated output.
- edit: allow (the shell tool asks it for the files a command writes; where the command
  may write is already decided by bash and external_directory; the plan agent denies it).
- everything else: ask (no rule matches -> ask).
OpenCode allows everything by default; shellpilot asks.
"""


def default_rules(data_dir: Path, project_dir: Path | None = None) -> list[Rule]:
    """The default rules for a data dir (``POLICY`` describes them).

    ``data_dir`` and ``project_dir`` locate the project's tool-output folder, whose files
    are always readable (so the model can read the full output a truncated result names);
    other projects' folders are not.
    """
    output_glob = f"{tool_output_dir(data_dir, project_dir)}/*"
    return [
        Rule("bash", "*", "ask", "default"),
        Rule("external_directory", "*", "ask", "default"),
        Rule("external_directory", output_glob, "allow", "default"),
        Rule("edit", "*", "allow", "default"),
    ]
