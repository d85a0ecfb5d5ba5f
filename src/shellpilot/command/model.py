"""The slash-command data model: what a command is, wherever it was found.

Owns: ``Command``, its source/syntax literals and MCP prompt argument specs.
Must not touch: files, servers or expansion (see sources/, registry.py, template.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

CommandSource = Literal["command", "mcp", "skill"]
"""Where a command came from: a command file or config, an MCP prompt, a skill."""

TemplateSyntax = Literal["shellpilot", "gemini"]
"""Placeholder syntax of a template: ``$1..$N``/``$ARGUMENTS``, or Gemini's ``{{args}}``."""

PromptFetcher = Callable[[str], Awaitable[str]]
"""``await fetch(raw_arguments) -> text``: an MCP prompt rendered by its server."""


class PromptArgumentSpec(BaseModel):
    """One declared argument of an MCP prompt (bound by name, in declared order)."""

    model_config = ConfigDict(frozen=True)

    name: str
    description: str | None = None
    required: bool = False


class Command(BaseModel):
    """A slash command: data plus a template.

    ``template`` is the raw text, or for MCP prompts a fetcher called at expansion time
    with the raw argument text. ``origin`` names the file path, ``mcp:<server>`` or
    ``builtin`` so errors and collision warnings can point at it. ``hints`` lists the
    placeholders (``$1``, ``$2``, ``$10``, then ``$ARGUMENTS``) for completion UIs.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    name: str
    description: str | None = None
    agent: str | None = None
    model: str | None = None
    """``provider/model`` to run the command with; None = the caller's choice."""
    source: CommandSource = "command"
    template: str | PromptFetcher = Field(repr=False)
    subtask: bool | None = None
    hints: list[str] = Field(default_factory=list)
    origin: str = "builtin"
    syntax: TemplateSyntax = "shellpilot"
    arguments: list[PromptArgumentSpec] = Field(default_factory=list)
    """Declared arguments (MCP prompts only)."""
    argument_hint: str | None = None
    """Free-text usage hint (Claude's ``argument-hint``)."""
    allowed_tools: list[str] = Field(default_factory=list)
    """Claude's ``allowed-tools``: shown to the user, never used to pre-approve anything."""
    aliases: list[str] = Field(default_factory=list)
    """Extra names that reach this command when free (``dir:name`` for Claude files)."""

    @property
    def is_lazy(self) -> bool:
        """True when the template is fetched at expansion time (MCP prompts)."""
        return not isinstance(self.template, str)

    def raw_template(self) -> str | None:
        """The template text, or None when it is fetched lazily."""
        return self.template if isinstance(self.template, str) else None
