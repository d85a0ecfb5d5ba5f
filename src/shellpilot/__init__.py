"""shellpilot: the hands of a coding agent.

Owns: the public face, the names an embedder needs, each loaded on first use (PEP 562
``__getattr__``). Must not touch: anything at import; importing the package loads no
SDK, no tree-sitter, no asyncio and no pydantic (a test checks it in a fresh interpreter).
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # typing itself costs --version a few ms; type checkers read this name as True
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

_ERRORS = (
    "Aborted",
    "AgentNotFound",
    "CommandArgumentError",
    "CommandNotFound",
    "ConfigError",
    "InvalidTimeout",
    "ModelNotFound",
    "PermissionCorrected",
    "PermissionDenied",
    "PermissionError_",
    "PermissionRejected",
    "PermissionRequestNotFound",
    "PermissionUnanalysed",
    "ProviderError",
    "ProviderNotConfigured",
    "SandboxUnavailable",
    "SessionBusy",
    "SessionError",
    "SessionNotFound",
    "ShellNotFound",
    "ShellpilotError",
    "StorageError",
    "StorageFull",
    "StructuredOutputError",
    "TemplateError",
    "ToolError",
    "UsageError",
    "WorkdirNotFound",
)

_WHERE: dict[str, str] = {
    "AgentLoop": "shellpilot.session.loop",
    "AskRequest": "shellpilot.permission.request",
    "Bus": "shellpilot.bus",
    "CommandRegistry": "shellpilot.command.registry",
    "Config": "shellpilot.config.model",
    "Event": "shellpilot.bus",
    "PermissionService": "shellpilot.permission.service",
    "ScriptedModelServer": "shellpilot.testing.server",
    "SessionService": "shellpilot.session.service",
    "SessionStore": "shellpilot.storage.store",
    "ShellTool": "shellpilot.tool.shell",
    "Tool": "shellpilot.tool.base",
    "ToolContext": "shellpilot.tool.base",
    "ToolRegistry": "shellpilot.tool.registry",
    "ToolResult": "shellpilot.tool.base",
    "run": "shellpilot.process.runner",
    "scan": "shellpilot.scanner.scan",
    **dict.fromkeys(_ERRORS, "shellpilot.errors"),
}
"""Public name -> the module that defines it."""

__all__ = [
    "Aborted",
    "AgentLoop",
    "AgentNotFound",
    "AskRequest",
    "Bus",
    "CommandArgumentError",
    "CommandNotFound",
    "CommandRegistry",
    "Config",
    "ConfigError",
    "Event",
    "InvalidTimeout",
    "ModelNotFound",
    "PermissionCorrected",
    "PermissionDenied",
    "PermissionError_",
    "PermissionRejected",
    "PermissionRequestNotFound",
    "PermissionService",
    "PermissionUnanalysed",
    "ProviderError",
    "ProviderNotConfigured",
    "SandboxUnavailable",
    "ScriptedModelServer",
    "SessionBusy",
    "SessionError",
    "SessionNotFound",
    "SessionService",
    "SessionStore",
    "ShellNotFound",
    "ShellTool",
    "ShellpilotError",
    "StorageError",
    "StorageFull",
    "StructuredOutputError",
    "TemplateError",
    "Tool",
    "ToolContext",
    "ToolError",
    "ToolRegistry",
    "ToolResult",
    "UsageError",
    "WorkdirNotFound",
    "__version__",
    "run",
    "scan",
]


def __getattr__(name: str) -> Any:
    """Load a public name's module on first access; AttributeError for anything else."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'shellpilot' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


if TYPE_CHECKING:
    from shellpilot.bus import Bus, Event
    from shellpilot.command.registry import CommandRegistry
    from shellpilot.config.model import Config
    from shellpilot.errors import (
        Aborted,
        AgentNotFound,
        CommandArgumentError,
        CommandNotFound,
        ConfigError,
        InvalidTimeout,
        ModelNotFound,
        PermissionCorrected,
        PermissionDenied,
        PermissionError_,
        PermissionRejected,
        PermissionRequestNotFound,
        PermissionUnanalysed,
        ProviderError,
        ProviderNotConfigured,
        SandboxUnavailable,
        SessionBusy,
        SessionError,
        SessionNotFound,
        ShellNotFound,
        ShellpilotError,
        StorageError,
        StorageFull,
        StructuredOutputError,
        TemplateError,
        ToolError,
        UsageError,
        WorkdirNotFound,
    )
    from shellpilot.permission.request import AskRequest
    from shellpilot.permission.service import PermissionService
    from shellpilot.process.runner import run
    from shellpilot.scanner.scan import scan
    from shellpilot.session.loop import AgentLoop
    from shellpilot.session.service import SessionService
    from shellpilot.storage.store import SessionStore
    from shellpilot.testing.server import ScriptedModelServer
    from shellpilot.tool.base import Tool, ToolContext, ToolResult
    from shellpilot.tool.registry import ToolRegistry
