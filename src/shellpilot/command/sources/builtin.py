"""The builtin commands ``init`` and ``review``; their templates are package data.

Owns: the builtin definitions. Must not touch: files other than ``prompts/*.txt``.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from shellpilot.command.hints import hints
from shellpilot.command.model import Command


def _prompt(name: str) -> str:
    return resources.files("shellpilot").joinpath("prompts", f"{name}.txt").read_text("utf-8")


def builtin_commands(project_dir: Path) -> list[Command]:
    """``init`` (create or improve AGENTS.md) and ``review`` (a subtask code review).

    ``${path}`` in a template is the project dir.
    """
    init = _prompt("init").replace("${path}", str(project_dir))
    review = _prompt("review").replace("${path}", str(project_dir))
    return [
        Command(
            name="init",
            description="create or improve AGENTS.md for this project",
            template=init,
            hints=hints(init),
            origin="builtin",
        ),
        Command(
            name="review",
            description="review changes [commit|branch|pr], defaults to uncommitted",
            template=review,
            subtask=True,
            hints=hints(review),
            origin="builtin",
        ),
    ]
