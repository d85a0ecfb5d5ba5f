"""MCP client side: servers from config, started lazily, their prompts as commands."""

from shellpilot.mcp.manager import McpManager, McpPrompt, bind_arguments

__all__ = ["McpManager", "McpPrompt", "bind_arguments"]
