"""Slash commands: the model, every source, the registry and template expansion.

Heavy parts (the MCP SDK, the scanner, the runner) load only when used.
"""

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
