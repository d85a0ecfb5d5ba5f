"""The Tool protocol, the context a tool runs with, and its result.

Owns: the seam between the loop and tools. Must not touch: any concrete tool, the
permission engine or the store; a tool reaches them only through ``ToolContext``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from shellpilot.permission.request import Ask, AskRequest, allow_all


class ToolResult(BaseModel):
    """What a tool returns: ``output`` is the text the model sees next turn."""

    model_config = ConfigDict(defer_build=True)

    title: str = ""
    output: str
    metadata: dict[str, Any] = {}


MetadataFn = Callable[[str | None, Mapping[str, Any]], None]
"""``metadata(title, values)``: merge live values into the running tool part (cheap, coalesced)."""


def _ignore_metadata(title: str | None, values: Mapping[str, Any]) -> None:
    return None


@dataclass
class ToolContext:
    """Everything a tool may use while it runs: ask, live metadata, abort.

    ``abort`` is set when the user cancels; ``ask(AskRequest)`` goes to the permission
    service with the session's rules already bound; ``metadata`` updates the live tool part.
    """

    session_id: str
    call_id: str
    project_dir: Path
    agent: str = "build"
    message_id: str = ""
    abort: asyncio.Event = field(default_factory=asyncio.Event)
    ask: Ask = allow_all
    metadata: MetadataFn = _ignore_metadata
    extra: dict[str, Any] = field(default_factory=dict)


@runtime_checkable
class Tool(Protocol):
    """A tool the model can call: an id, pydantic parameters and ``execute``.

    ``parameters.model_json_schema()`` is the JSON schema sent to providers.
    Errors a tool raises become the tool part's error text (the model sees it).
    """

    id: ClassVar[str]
    parameters: ClassVar[type[BaseModel]]

    def description(self) -> str:
        """The text given to the model describing when and how to use the tool."""
        ...

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        """Run the call with validated ``params`` (an instance of ``parameters``)."""
        ...


__all__ = ["Ask", "AskRequest", "MetadataFn", "Tool", "ToolContext", "ToolResult", "allow_all"]
