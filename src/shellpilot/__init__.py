"""shellpilot: the hands of a coding agent.

The public face re-exports the light, stable names. Importing it must stay cheap: no
openai, anthropic, mcp or tree-sitter import happens here (a test checks that).
"""

from __future__ import annotations

__version__ = "0.1.0"

from shellpilot.bus import Bus, Event
from shellpilot.config import Config
from shellpilot.errors import (
    Aborted,
    CommandNotFound,
    ConfigError,
    InvalidTimeout,
    PermissionCorrected,
    PermissionDenied,
    PermissionRejected,
    SessionBusy,
    SessionNotFound,
    ShellpilotError,
    UsageError,
)
from shellpilot.tool import Tool, ToolContext, ToolRegistry, ToolResult

__all__ = [
    "Aborted",
    "Bus",
    "CommandNotFound",
    "Config",
    "ConfigError",
    "Event",
    "InvalidTimeout",
    "PermissionCorrected",
    "PermissionDenied",
    "PermissionRejected",
    "SessionBusy",
    "SessionNotFound",
    "ShellpilotError",
    "Tool",
    "ToolContext",
    "ToolRegistry",
    "ToolResult",
    "UsageError",
    "__version__",
]
