"""A name -> tool registry with provider-ready schemas.

Owns: lookup and schema export. Must not touch: what tools do.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from pydantic import ValidationError

from shellpilot.errors import ToolError
from shellpilot.tool.base import Tool


class ToolRegistry:
    """Holds tools by id; ``schemas()`` gives ``[{name, description, parameters}]``."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        """Add or replace a tool under its ``id``."""
        self._tools[tool.id] = tool

    def get(self, tool_id: str) -> Tool:
        """The tool with this id; ToolError naming the known ids otherwise."""
        try:
            return self._tools[tool_id]
        except KeyError:
            known = ", ".join(sorted(self._tools)) or "none"
            raise ToolError(f"Unknown tool: {tool_id}. Available tools: {known}.") from None

    def __contains__(self, tool_id: object) -> bool:
        return tool_id in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def parse(self, tool_id: str, arguments: dict[str, Any]) -> Any:
        """Validate raw call arguments into the tool's parameter model.

        Raises ToolError with the field errors, phrased for the model to retry.
        """
        tool = self.get(tool_id)
        try:
            return tool.parameters.model_validate(arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}" for e in exc.errors()
            )
            raise ToolError(f"Invalid arguments for tool {tool_id}: {problems}") from None

    def schemas(self) -> list[dict[str, Any]]:
        """Provider-neutral tool schemas: name, description, JSON-schema parameters."""
        return [
            {
                "name": tool.id,
                "description": tool.description(),
                "parameters": tool.parameters.model_json_schema(),
            }
            for tool in self._tools.values()
        ]
