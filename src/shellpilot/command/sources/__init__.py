"""Where commands come from: builtins, config entries, markdown and TOML files.

Owns: turning each source's files into ``Command`` values plus load warnings.
Must not touch: precedence between sources (registry.py) or expansion.
"""

from shellpilot.command.sources.base import Loaded
from shellpilot.command.sources.builtin import builtin_commands
from shellpilot.command.sources.config import config_commands
from shellpilot.command.sources.gemini import load_gemini_dir
from shellpilot.command.sources.markdown import MarkdownFlavour, load_markdown_dir

__all__ = [
    "Loaded",
    "MarkdownFlavour",
    "builtin_commands",
    "config_commands",
    "load_gemini_dir",
    "load_markdown_dir",
]
