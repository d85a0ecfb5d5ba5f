"""ScriptedProvider: replays turns as provider events and records the requests."""

from __future__ import annotations

from typing import Any

import pytest

from shellpilot.errors import ProviderError
from shellpilot.provider.base import (
    Finish,
    ModelRequest,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallStart,
    Usage,
    UserMessage,
)
from shellpilot.provider.retry import RetryPolicy
from shellpilot.provider.scripted import ScriptedProvider, ToolCall, Turn, argument_chunks

REQUEST = ModelRequest(model="m", messages=[UserMessage(content="hi")])


async def test_text_then_tool_calls_then_usage_and_finish() -> None:
    provider = ScriptedProvider(
        [Turn(text="On it.", tool_calls=[ToolCall("bash", {"command": "echo a long enough command"})])]
    )
    events = [e async for e in provider.stream(REQUEST)]
    assert events[:2] == [TextDelta("On "), TextDelta("it.")]
    assert events[2] == ToolCallStart("call_1", "bash")
    deltas = [e for e in events if isinstance(e, ToolCallDelta)]
    assert len(deltas) > 1
    end = events[-3]
    assert isinstance(end, ToolCallEnd) and end.arguments == {"command": "echo a long enough command"}
    assert events[-2:] == [Usage(10, 5), Finish("tool_calls")]
    assert provider.requests == [REQUEST]
    assert provider.remaining == 0


async def test_callable_turns_see_the_request() -> None:
    provider = ScriptedProvider([lambda req: Turn(text=f"you said {req.messages[-1].content}")])  # type: ignore[union-attr]
    events = [e async for e in provider.stream(REQUEST)]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "you said hi"


async def test_error_turn_raises_provider_error_with_status() -> None:
    provider = ScriptedProvider([Turn(error_status=429, error_message="slow down")])
    with pytest.raises(ProviderError, match="scripted: HTTP 429: slow down") as info:
        [e async for e in provider.stream(REQUEST)]
    assert info.value.status == 429 and info.value.retryable


async def test_with_a_retry_policy_transient_turns_are_retried(sleeps: Any) -> None:
    provider = ScriptedProvider(
        [Turn(error_status=500), Turn(drop_connection=True), Turn(text="fine")],
        retry=RetryPolicy(max_retries=3, base_delay_s=0.1, sleep=sleeps),
    )
    events = [e async for e in provider.stream(REQUEST)]
    assert events[0] == TextDelta("fine")
    assert len(provider.requests) == 3 and sleeps.delays == [0.1, 0.2]


async def test_running_out_of_turns_names_the_request_number() -> None:
    provider = ScriptedProvider([Turn(text="one")])
    [e async for e in provider.stream(REQUEST)]
    with pytest.raises(ProviderError, match="no scripted turn left for request #2"):
        [e async for e in provider.stream(REQUEST)]


async def test_explicit_finish_reason_and_added_turns() -> None:
    provider = ScriptedProvider()
    provider.add(Turn(text="cut", finish_reason="length"))
    events = [e async for e in provider.stream(REQUEST)]
    assert events[-1] == Finish("length")


def test_argument_chunks_rejoin_exactly() -> None:
    raw = '{"command": "printf \'%s\\n\' ünïcödé"}'
    assert "".join(argument_chunks(raw)) == raw
    assert argument_chunks("") == []


async def test_cut_after_raises_after_that_many_events() -> None:
    provider = ScriptedProvider([Turn(text="a b c", cut_after=2)])
    received: list[Any] = []
    with pytest.raises(ProviderError, match="mid-stream") as info:
        async for event in provider.stream(REQUEST):
            received.append(event)
    assert received == [TextDelta("a "), TextDelta("b ")]
    assert info.value.retryable
