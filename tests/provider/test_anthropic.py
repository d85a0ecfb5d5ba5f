"""AnthropicProvider over httpx2 against the real ScriptedModelServer on loopback."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from shellpilot.errors import ProviderError
from shellpilot.provider.anthropic import AnthropicProvider
from shellpilot.provider.base import (
    AssistantMessage,
    Finish,
    ModelRequest,
    ProviderEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRequest,
    ToolCallStart,
    ToolResultMessage,
    ToolSpec,
    Usage,
    UserMessage,
)
from shellpilot.provider.retry import RetryPolicy
from shellpilot.testing import ScriptedModelServer, ToolCall, Turn

BASH = ToolSpec(
    name="bash",
    description="Run a shell command",
    parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
)


async def collect(stream: AsyncIterator[ProviderEvent]) -> list[ProviderEvent]:
    return [event async for event in stream]


def request(**changes: Any) -> ModelRequest:
    base: dict[str, Any] = {
        "model": "claude-test",
        "system": "You are terse.",
        "messages": [UserMessage(content="list files")],
        "tools": [BASH],
    }
    return ModelRequest(**(base | changes))


@pytest.fixture
async def provider(server: ScriptedModelServer, retry: RetryPolicy) -> AsyncIterator[AnthropicProvider]:
    prov = AnthropicProvider("claude", api_key="sk-ant-test", base_url=server.anthropic_base_url, retry=retry)
    yield prov
    await prov.aclose()


async def test_text_streams_with_system_usage_and_finish(
    server: ScriptedModelServer, provider: AnthropicProvider
) -> None:
    server.add(Turn(text="Two files: a.txt and b.txt.", input_tokens=31, output_tokens=9))
    events = await collect(provider.stream(request()))

    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 3
    assert "".join(d.text for d in deltas) == "Two files: a.txt and b.txt."
    assert events[-2:] == [Usage(31, 9), Finish("stop", raw="end_turn")]

    (seen,) = server.requests
    assert seen.path == "/v1/messages"
    key_headers = (seen.headers.get("x-api-key", ""), seen.headers.get("authorization", ""))
    assert key_headers in {("sk-ant-test", ""), ("", "Bearer sk-ant-test")}
    assert "anthropic-version" in seen.headers
    assert seen.body["system"] == "You are terse."
    assert seen.body["max_tokens"] == 8192
    assert seen.body["stream"] is True
    assert "temperature" not in seen.body
    assert seen.messages == [{"role": "user", "content": [{"type": "text", "text": "list files"}]}]
    assert seen.body["tools"] == [
        {"name": "bash", "description": "Run a shell command", "input_schema": BASH.parameters}
    ]
    assert seen.body["tool_choice"] == {"type": "auto"}


async def test_tool_use_streams_input_json_then_ends_parsed(
    server: ScriptedModelServer, provider: AnthropicProvider
) -> None:
    command = "grep -rn TODO src | head -20"
    server.add(Turn(text="Searching.", tool_calls=[ToolCall("bash", {"command": command}, id="toolu_1")]))
    events = await collect(provider.stream(request()))

    assert ToolCallStart("toolu_1", "bash") in events
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert len(deltas) >= 3
    (end,) = [e for e in events if isinstance(e, ToolCallEnd)]
    assert (end.id, end.name, end.arguments) == ("toolu_1", "bash", {"command": command})
    assert "".join(d.arguments for d in deltas) == end.raw_arguments
    assert events.index(ToolCallStart("toolu_1", "bash")) > max(
        i for i, e in enumerate(events) if isinstance(e, TextDelta)
    )
    assert events[-1] == Finish("tool_calls", raw="tool_use")


async def test_tool_without_arguments_ends_with_an_empty_object(
    server: ScriptedModelServer, provider: AnthropicProvider
) -> None:
    server.add(Turn(tool_calls=[ToolCall("list", {})]))
    events = await collect(provider.stream(request()))
    (end,) = [e for e in events if isinstance(e, ToolCallEnd)]
    assert end.arguments == {} and end.parse_error is None


@pytest.mark.parametrize(("choice", "wire"), [("required", {"type": "any"}), ("none", {"type": "none"})])
async def test_tool_choice_maps_to_anthropic_names(
    server: ScriptedModelServer, provider: AnthropicProvider, choice: str, wire: dict[str, str]
) -> None:
    server.add(Turn(text="ok"))
    await collect(provider.stream(request(tool_choice=choice, temperature=0.3, max_tokens=64)))
    seen = server.requests[0]
    assert seen.body["tool_choice"] == wire
    assert seen.body["temperature"] == 0.3
    assert seen.body["max_tokens"] == 64


async def test_history_alternates_roles_with_tool_use_and_results(
    server: ScriptedModelServer, provider: AnthropicProvider
) -> None:
    history = [
        UserMessage(content="clean up"),
        AssistantMessage(
            content="Two steps.",
            tool_calls=[
                ToolCallRequest(id="t1", name="bash", arguments={"command": "ls"}),
                ToolCallRequest(id="t2", name="bash", arguments={"command": "rm -rf /"}),
            ],
        ),
        ToolResultMessage(call_id="t1", name="bash", content="a.txt"),
        ToolResultMessage(call_id="t2", name="bash", content="denied by rule", is_error=True),
        UserMessage(content="and then?"),
        UserMessage(content="   "),
    ]
    server.add(Turn(text="done"))
    await collect(provider.stream(request(messages=history)))
    seen = server.requests[0]
    assert [m["role"] for m in seen.messages] == ["user", "assistant", "user"]
    assert seen.messages[1]["content"] == [
        {"type": "text", "text": "Two steps."},
        {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "ls"}},
        {"type": "tool_use", "id": "t2", "name": "bash", "input": {"command": "rm -rf /"}},
    ]
    assert seen.messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": "a.txt"},
        {"type": "tool_result", "tool_use_id": "t2", "content": "denied by rule", "is_error": True},
        {"type": "text", "text": "and then?"},
    ]
    assert [(r.call_id, r.is_error) for r in seen.tool_results()] == [("t1", False), ("t2", True)]


@pytest.mark.parametrize(
    "failure",
    [Turn(error_status=500), Turn(error_status=529), Turn(error_status=429), Turn(drop_connection=True)],
    ids=["500", "529-overloaded", "429", "connection-reset"],
)
async def test_transient_failure_then_success_is_retried(
    server: ScriptedModelServer, provider: AnthropicProvider, sleeps: Any, failure: Turn
) -> None:
    server.add(failure, Turn(text="recovered"))
    events = await collect(provider.stream(request()))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "recovered"
    assert len(server.requests) == 2
    assert sleeps.delays == [0.25]


async def test_bad_request_is_a_provider_error_without_retry(
    server: ScriptedModelServer, provider: AnthropicProvider, sleeps: Any
) -> None:
    server.add(Turn(error_status=400, error_message="messages: roles must alternate"))
    with pytest.raises(ProviderError) as info:
        await collect(provider.stream(request()))
    err = info.value
    assert type(err) is ProviderError
    assert (err.provider, err.status, err.retryable) == ("claude", 400, False)
    assert str(err) == "claude: HTTP 400: messages: roles must alternate"
    assert sleeps.delays == []


async def test_retries_are_bounded(
    server: ScriptedModelServer, provider: AnthropicProvider, sleeps: Any
) -> None:
    server.add(*[Turn(error_status=529, error_message="Overloaded")] * 3)
    with pytest.raises(ProviderError, match="HTTP 529: Overloaded") as info:
        await collect(provider.stream(request()))
    assert info.value.status == 529
    assert len(server.requests) == 3
    assert sleeps.delays == [0.25, 0.5]


async def test_not_found_hints_at_model_and_base_url(
    server: ScriptedModelServer, provider: AnthropicProvider
) -> None:
    server.add(Turn(error_status=404, error_message="model: claude-nope"))
    with pytest.raises(ProviderError, match=r"check the model name and the base_url"):
        await collect(provider.stream(request()))


async def test_stream_cut_before_any_output_is_retried(
    server: ScriptedModelServer, provider: AnthropicProvider, sleeps: Any
) -> None:
    server.add(Turn(text="lost answer", cut_after=2), Turn(text="second try"))
    events = await collect(provider.stream(request()))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "second try"
    assert len(server.requests) == 2 and sleeps.delays == [0.25]


async def test_stream_cut_after_output_is_an_error_not_a_replay(
    server: ScriptedModelServer, provider: AnthropicProvider, sleeps: Any
) -> None:
    server.add(Turn(text="one two three", cut_after=4), Turn(text="never"))
    received: list[ProviderEvent] = []
    with pytest.raises(ProviderError) as info:
        async for event in provider.stream(request()):
            received.append(event)
    assert received == [TextDelta("one ")]
    assert info.value.retryable
    assert len(server.requests) == 1 and sleeps.delays == []


async def test_max_tokens_stop_is_a_length_finish(
    server: ScriptedModelServer, provider: AnthropicProvider
) -> None:
    server.add(Turn(text="cut off", finish_reason="length"))
    events = await collect(provider.stream(request()))
    assert events[-1] == Finish("length", raw="max_tokens")


async def test_retry_after_from_the_server_is_honoured(
    server: ScriptedModelServer, provider: AnthropicProvider, sleeps: Any
) -> None:
    server.add(Turn(error_status=529, retry_after_s=0.4), Turn(text="ok"))
    await collect(provider.stream(request()))
    assert sleeps.delays == [0.4]
