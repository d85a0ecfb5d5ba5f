"""The structured_output tool: schema checks, validation, capture and retry bound.

The loop-level behaviour (tool choice, text-only error, retries through the model) is in
tests/session/test_loop.py and tests/e2e/test_run_cli.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shellpilot.errors import StructuredOutputError, ToolError, UsageError
from shellpilot.tool import ToolContext, ToolRegistry
from shellpilot.tool.structured import CAPTURED, check_schema, structured_output_tool

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {"verdict": {"enum": ["ok", "bad"]}, "count": {"type": "integer"}},
    "required": ["verdict", "count"],
}


def _ctx(tmp_path: Path) -> ToolContext:
    return ToolContext(session_id="ses_x", call_id="call_x", project_dir=tmp_path)


def test_schema_sent_to_provider_is_the_users_without_dollar_schema() -> None:
    tool = structured_output_tool(SCHEMA)
    [schema] = ToolRegistry([tool]).schemas()
    assert schema["name"] == "structured_output"
    assert schema["parameters"] == {k: v for k, v in SCHEMA.items() if k != "$schema"}


@pytest.mark.parametrize(
    "bad",
    [{"type": "string"}, {"type": "object", "properties": {"a": {"type": "nonsense"}}}],
)
def test_invalid_schemas_are_usage_errors(bad: dict[str, object]) -> None:
    with pytest.raises(UsageError):
        check_schema(bad)


async def test_valid_arguments_are_captured(tmp_path: Path) -> None:
    tool = structured_output_tool(SCHEMA)
    registry = ToolRegistry([tool])
    result = await tool.execute(
        registry.parse("structured_output", {"verdict": "ok", "count": 3}), _ctx(tmp_path)
    )
    assert result.output == CAPTURED and result.metadata == {"valid": True}
    assert tool.captured == {"verdict": "ok", "count": 3}


async def test_invalid_arguments_go_back_until_retries_run_out(tmp_path: Path) -> None:
    tool = structured_output_tool(SCHEMA, retry_count=1)
    registry = ToolRegistry([tool])
    bad = registry.parse("structured_output", {"verdict": "maybe"})
    with pytest.raises(ToolError, match="verdict: 'maybe' is not one of") as info:
        await tool.execute(bad, _ctx(tmp_path))
    assert "'count' is a required property" in str(info.value)
    assert not tool.exhausted and tool.captured is None
    with pytest.raises(ToolError):
        await tool.execute(bad, _ctx(tmp_path))
    assert tool.exhausted
    err = tool.error()
    assert isinstance(err, StructuredOutputError) and "after 2 attempts" in str(err)


def test_text_only_error_message() -> None:
    tool = structured_output_tool(SCHEMA)
    assert "did not produce structured output" in str(tool.error())
