"""Events of the command system (published by the loop when a command runs).

Owns: ``CommandExecuted``. Must not touch: publishing (the session loop does it).
"""

from __future__ import annotations

from typing import Literal

from shellpilot.bus import Event


class CommandExecuted(Event):
    """A slash command ran in a session.

    ``message_id`` is the id of the message the command produced; ``arguments`` the raw text.
    """

    type: Literal["command.executed"] = "command.executed"
    name: str
    session_id: str
    arguments: str
    message_id: str
