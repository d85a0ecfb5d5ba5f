"""What running a command or a subtask needs of the agent loop, as one narrow protocol.

Owns: ``LoopOps``, the seam that lets command_run.py and subtask.py post messages, resume a
session, ask permissions and resolve agents without importing the loop (``AgentLoop`` is one).
Must not touch: any implementation; this module declares types only.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from shellpilot.agent.model import Agent
    from shellpilot.agent.registry import AgentRegistry
    from shellpilot.bus import Bus
    from shellpilot.config.model import Config
    from shellpilot.permission.rules import Rule
    from shellpilot.provider.registry import ProviderRegistry, ResolvedModel
    from shellpilot.session.models import AssistantMessage, MessageError, OutputFormat, Part, UserMessage
    from shellpilot.session.run_state import RunState
    from shellpilot.session.step import StepResult
    from shellpilot.session.turn import TurnResult
    from shellpilot.session.writer import SessionWriter
    from shellpilot.storage.store import SessionStore
    from shellpilot.tool.base import Ask
    from shellpilot.tool.structured import StructuredOutputTool


class LoopOps(Protocol):
    """The loop as commands and subtasks see it: where the project and the data dir are, whom
    to ask (and a turn's extra rules), how to post a message and run the session on, the
    stores messages go to, and the providers a command's own model resolves against."""

    @property
    def project_dir(self) -> Path: ...

    @property
    def config(self) -> Config: ...

    @property
    def data_dir(self) -> Path: ...

    @property
    def agents(self) -> AgentRegistry: ...

    @property
    def bus(self) -> Bus: ...

    @property
    def store(self) -> SessionStore: ...

    @property
    def writer(self) -> SessionWriter: ...

    @property
    def run_state(self) -> RunState: ...

    @property
    def providers(self) -> ProviderRegistry: ...

    @property
    def turn_rules(self) -> dict[str, list[Rule]]:
        """Extra permission rules of one turn, by the id of the user message it answers."""
        ...

    def resolve_agent(self, name: str | None) -> Agent:
        """The named agent, else the default primary agent (AgentNotFound lists the names)."""
        ...

    def resolve_model(self, model: str | None, agent: Agent, session_id: str) -> ResolvedModel:
        """``model`` > the agent's > the session's last > the configured default, checked."""
        ...

    def new_user_message(
        self,
        session_id: str,
        *,
        agent: str | None = None,
        model: str | None = None,
        format: OutputFormat | dict[str, Any] | None = None,
    ) -> UserMessage:
        """A user message with agent and model resolved and the format checked (not saved)."""
        ...

    def file_parts(self, user: UserMessage, files: Sequence[Path]) -> list[Part]:
        """File parts for paths (relative ones against the project dir)."""
        ...

    def post(self, message: UserMessage | AssistantMessage, parts: Sequence[Part]) -> None:
        """Save a message and its parts (each announced on the bus)."""
        ...

    def asker(self, session_id: str, agent: Agent, extra: Sequence[Rule] = ()) -> Ask:
        """The ``ctx.ask`` of tools run for ``agent`` in ``session_id``, with ``extra`` rules."""
        ...

    def close_message(
        self,
        message: AssistantMessage,
        result: StepResult | None,
        *,
        error: MessageError | None = None,
        structured: StructuredOutputTool | None = None,
    ) -> None:
        """Complete and save an assistant message."""
        ...

    async def resume(self, session_id: str) -> TurnResult:
        """Run (or join) the loop on the session's stored history."""
        ...
