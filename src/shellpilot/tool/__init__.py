"""Tools the model can call: the protocol, context, registry and concrete tools."""

from shellpilot.tool.base import Ask, Tool, ToolContext, ToolResult, allow_all
from shellpilot.tool.registry import ToolRegistry

__all__ = ["Ask", "Tool", "ToolContext", "ToolRegistry", "ToolResult", "allow_all"]
