"""Structured output: the hidden ``structured_output`` tool that carries a JSON-schema answer.

Owns: the tool built for one schema, schema checks and argument validation (``jsonschema``,
imported lazily). Must not touch: the loop's control flow (it reads ``captured`` and
``exhausted`` after each step).
"""

from __future__ import annotations

import copy
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, create_model

from shellpilot.agent.model import prompt_text
from shellpilot.errors import StructuredOutputError, ToolError, UsageError
from shellpilot.tool.base import ToolContext, ToolResult

TOOL_ID = "structured_output"
CAPTURED = "Structured output captured successfully."


def tool_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """The schema sent to the provider: the user's schema without ``$schema``."""
    out = copy.deepcopy(schema)
    out.pop("$schema", None)
    return out


def check_schema(schema: dict[str, Any]) -> None:
    """Raise UsageError unless ``schema`` is a valid JSON schema describing an object."""
    import jsonschema

    try:
        jsonschema.validators.validator_for(schema).check_schema(schema)
    except jsonschema.SchemaError as exc:
        raise UsageError(f"Invalid JSON schema for structured output: {exc.message}") from None
    if schema.get("type", "object") != "object":
        raise UsageError('A structured output schema must describe an object ("type": "object").')


def _params_model(schema: dict[str, Any]) -> type[BaseModel]:
    """A permissive pydantic model whose JSON schema is exactly ``tool_schema(schema)``."""
    wanted = tool_schema(schema)

    def replace(target: dict[str, Any]) -> None:
        target.clear()
        target.update(copy.deepcopy(wanted))

    return create_model(
        "StructuredOutputParams",
        __config__=ConfigDict(extra="allow", json_schema_extra=replace),
    )


class StructuredOutputTool:
    """The ``structured_output`` tool for one prompt (build a new one per prompt).

    ``execute`` validates the arguments against the schema: valid -> ``captured`` holds
    them and the model sees "Structured output captured successfully."; invalid ->
    ToolError listing the problems (the model retries), and after ``retry_count`` invalid
    calls ``exhausted`` is True and ``error()`` gives the StructuredOutputError to record.
    """

    id: ClassVar[str] = TOOL_ID
    parameters: ClassVar[type[BaseModel]] = _params_model({"type": "object"})

    def __init__(self, schema: dict[str, Any], retry_count: int = 2) -> None:
        self.schema = schema
        self.retry_count = retry_count
        self.captured: dict[str, Any] | None = None
        self.failures = 0

    @property
    def exhausted(self) -> bool:
        """True once more invalid calls arrived than the format allows retries."""
        return self.failures > self.retry_count

    def description(self) -> str:
        """The tool description shown to the model."""
        return prompt_text("structured_output")

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        """Validate ``params`` (a model instance or a dict) and capture it when valid."""
        import jsonschema

        args = params.model_dump() if isinstance(params, BaseModel) else dict(params)
        validator_cls = jsonschema.validators.validator_for(self.schema)
        problems = [
            f"{'/'.join(str(p) for p in err.absolute_path) or '(root)'}: {err.message}"
            for err in validator_cls(self.schema).iter_errors(args)
        ]
        if problems:
            self.failures += 1
            raise ToolError(
                "Invalid structured output: "
                + "; ".join(problems)
                + ". Call structured_output again with arguments matching the schema."
            )
        self.captured = args
        return ToolResult(title="structured output", output=CAPTURED, metadata={"valid": True})

    def error(self, reason: str = "") -> StructuredOutputError:
        """The error recorded when no valid structured output came."""
        if self.exhausted:
            return StructuredOutputError(
                f"Model did not produce valid structured output after {self.failures} attempts"
                + (f": {reason}" if reason else ".")
            )
        return StructuredOutputError("Model did not produce structured output (it answered in text).")


def structured_output_tool(schema: dict[str, Any], retry_count: int = 2) -> StructuredOutputTool:
    """A ``structured_output`` tool whose ``parameters`` JSON schema is ``schema``.

    Raises UsageError when ``schema`` is not a valid JSON schema of an object.
    """
    check_schema(schema)
    cls = type("StructuredOutputTool_", (StructuredOutputTool,), {"parameters": _params_model(schema)})
    tool: StructuredOutputTool = cls(schema, retry_count)
    return tool


def system_line() -> str:
    """The system-prompt line telling the model it must call ``structured_output``."""
    return prompt_text("structured_system")
