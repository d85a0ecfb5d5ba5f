"""Slash commands: the model, every source, the registry and template expansion.

Owns: the public face of ``shellpilot.command``, each name loaded with its module on first use
(so ``command.arguments`` alone does not load the sources, YAML or MCP). Must not touch: sessions.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from shellpilot.exports import lazy

_WHERE = {
    "join_arguments": "arguments",
    "split_arguments": "arguments",
    "LoadWarning": "diagnostics",
    "CommandExecuted": "events",
    "hints": "hints",
    "Command": "model",
    "CommandSource": "model",
    "PromptArgumentSpec": "model",
    "FileReference": "references",
    "CommandRegistry": "registry",
    "BlockReport": "shellblocks",
    "BlockRun": "shellblocks",
    "substitute": "substitution",
    "ExpandContext": "template",
    "ExpandedPrompt": "template",
    "expand": "template",
}

__getattr__, __dir__ = lazy(__name__, _WHERE, globals())

if TYPE_CHECKING:
    from shellpilot.command.arguments import join_arguments, split_arguments
    from shellpilot.command.diagnostics import LoadWarning
    from shellpilot.command.events import CommandExecuted
    from shellpilot.command.hints import hints
    from shellpilot.command.model import Command, CommandSource, PromptArgumentSpec
    from shellpilot.command.references import FileReference
    from shellpilot.command.registry import CommandRegistry
    from shellpilot.command.shellblocks import BlockReport, BlockRun
    from shellpilot.command.substitution import substitute
    from shellpilot.command.template import ExpandContext, ExpandedPrompt, expand

__all__ = [
    "BlockReport",
    "BlockRun",
    "Command",
    "CommandExecuted",
    "CommandRegistry",
    "CommandSource",
    "ExpandContext",
    "ExpandedPrompt",
    "FileReference",
    "LoadWarning",
    "PromptArgumentSpec",
    "expand",
    "hints",
    "join_arguments",
    "split_arguments",
    "substitute",
]
