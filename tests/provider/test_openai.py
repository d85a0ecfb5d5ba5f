"""OpenAIProvider over httpx2 against the real ScriptedModelServer on loopback."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import pytest

from shellpilot.errors import ProviderError
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
from shellpilot.provider.openai import OpenAIProvider
from shellpilot.provider.retry import RetryPolicy
from shellpilot.testing import Quirk, ScriptedModelServer, ToolCall, Turn

BASH = ToolSpec(
    name="bash",
    description="Run a shell command",
    parameters={"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
)


async def collect(stream: AsyncIterator[ProviderEvent]) -> list[ProviderEvent]:
    return [event async for event in stream]


def request(**changes: Any) -> ModelRequest:
    base: dict[str, Any] = {
        "model": "gpt-test",
        "system": "You are terse.",
        "messages": [UserMessage(content="list files")],
        "tools": [BASH],
    }
    return ModelRequest(**(base | changes))


@pytest.fixture
async def provider(server: ScriptedModelServer, retry: RetryPolicy) -> AsyncIterator[OpenAIProvider]:
    prov = OpenAIProvider(
        "local", api_key="sk-test", base_url=server.openai_base_url, retry=retry, key_hint="$K"
    )
    yield prov
    await prov.aclose()


async def test_text_streams_in_pieces_with_usage_and_finish(
    server: ScriptedModelServer, provider: OpenAIProvider
) -> None:
    server.add(Turn(text="Here are the files you asked for.", input_tokens=42, output_tokens=7))
    events = await collect(provider.stream(request(temperature=0.2, max_tokens=100)))

    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 3
    assert "".join(d.text for d in deltas) == "Here are the files you asked for."
    assert events[-2:] == [Usage(42, 7), Finish("stop", raw="stop")]

    (seen,) = server.requests
    assert seen.path == "/v1/chat/completions"
    assert seen.headers["authorization"] == "Bearer sk-test"
    assert seen.body["model"] == "gpt-test"
    assert seen.body["stream"] is True
    assert seen.body["stream_options"] == {"include_usage": True}
    assert seen.body["temperature"] == 0.2
    assert seen.body["max_tokens"] == 100
    assert seen.messages == [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "list files"},
    ]
    assert seen.body["tools"] == [{"type": "function", "function": BASH.model_dump()}]
    assert seen.tool_choice() == "auto"


async def test_tool_call_arguments_stream_then_end_parsed(
    server: ScriptedModelServer, provider: OpenAIProvider
) -> None:
    command = "ls -la && git status --short"
    server.add(Turn(text="Checking.", tool_calls=[ToolCall("bash", {"command": command}, id="call_a")]))
    events = await collect(provider.stream(request()))

    calls = [e for e in events if isinstance(e, ToolCallStart | ToolCallDelta | ToolCallEnd)]
    assert calls[0] == ToolCallStart("call_a", "bash")
    deltas = [e for e in calls if isinstance(e, ToolCallDelta)]
    assert len(deltas) >= 3
    end = calls[-1]
    assert isinstance(end, ToolCallEnd)
    assert (end.id, end.name, end.arguments, end.parse_error) == (
        "call_a",
        "bash",
        {"command": command},
        None,
    )
    assert "".join(d.arguments for d in deltas) == end.raw_arguments
    assert events[-1] == Finish("tool_calls", raw="tool_calls")


async def test_two_tool_calls_in_one_turn_keep_their_own_arguments(
    server: ScriptedModelServer, provider: OpenAIProvider
) -> None:
    server.add(
        Turn(tool_calls=[ToolCall("bash", {"command": "pwd"}), ToolCall("bash", {"command": "whoami"})])
    )
    events = await collect(provider.stream(request()))
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [e.arguments["command"] for e in ends] == ["pwd", "whoami"]
    assert len({e.id for e in ends}) == 2


async def test_tool_choice_required_reaches_the_wire(
    server: ScriptedModelServer, provider: OpenAIProvider
) -> None:
    server.add(Turn(tool_calls=[ToolCall("bash", {"command": "true"})]))
    await collect(provider.stream(request(tool_choice="required")))
    assert server.requests[0].body["tool_choice"] == "required"


async def test_no_tools_sends_neither_tools_nor_tool_choice(
    server: ScriptedModelServer, provider: OpenAIProvider
) -> None:
    server.add(Turn(text="hi"))
    await collect(provider.stream(request(tools=[], tool_choice="required")))
    assert "tools" not in server.requests[0].body
    assert "tool_choice" not in server.requests[0].body


async def test_history_with_tool_calls_and_results_is_what_the_model_sees(
    server: ScriptedModelServer, provider: OpenAIProvider
) -> None:
    history = [
        UserMessage(content="run it"),
        AssistantMessage(
            content="Running.",
            tool_calls=[ToolCallRequest(id="c1", name="bash", arguments={"command": "ls"})],
        ),
        ToolResultMessage(call_id="c1", name="bash", content="a.txt\nb.txt"),
        AssistantMessage(tool_calls=[ToolCallRequest(id="c2", name="bash", arguments={"command": "rm x"})]),
        ToolResultMessage(call_id="c2", name="bash", content="permission denied", is_error=True),
        AssistantMessage(content=""),
    ]
    server.add(Turn(text="ok"))
    await collect(provider.stream(request(messages=history)))
    seen = server.requests[0]
    assert seen.messages[2] == {
        "role": "assistant",
        "content": "Running.",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
        ],
    }
    assert seen.messages[4]["content"] is None
    results = seen.tool_results()
    assert [(r.call_id, r.content) for r in results] == [
        ("c1", "a.txt\nb.txt"),
        ("c2", "Error: permission denied"),
    ]
    assert len(seen.messages) == 6  # the empty assistant turn is dropped


@pytest.mark.parametrize(
    "failure",
    [Turn(error_status=500), Turn(error_status=429), Turn(error_status=503), Turn(drop_connection=True)],
    ids=["500", "429", "503", "connection-reset"],
)
async def test_transient_failure_then_success_is_retried_with_backoff(
    server: ScriptedModelServer, provider: OpenAIProvider, sleeps: Any, failure: Turn
) -> None:
    server.add(failure, Turn(text="recovered"))
    events = await collect(provider.stream(request()))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "recovered"
    assert len(server.requests) == 2
    assert sleeps.delays == [0.25]


async def test_retries_are_bounded_then_the_last_error_is_raised(
    server: ScriptedModelServer, provider: OpenAIProvider, sleeps: Any
) -> None:
    server.add(*[Turn(error_status=502, error_message="bad gateway")] * 3, Turn(text="never"))
    with pytest.raises(ProviderError) as info:
        await collect(provider.stream(request()))
    assert info.value.status == 502
    assert info.value.retryable
    assert "bad gateway" in str(info.value)
    assert len(server.requests) == 3
    assert sleeps.delays == [0.25, 0.5]
    assert server.remaining == 1


async def test_bad_request_is_a_provider_error_without_retry(
    server: ScriptedModelServer, provider: OpenAIProvider, sleeps: Any
) -> None:
    server.add(Turn(error_status=400, error_message="tools[0] is invalid"), Turn(text="never"))
    with pytest.raises(ProviderError) as info:
        await collect(provider.stream(request()))
    err = info.value
    assert type(err) is ProviderError
    assert (err.provider, err.status, err.retryable) == ("local", 400, False)
    assert str(err) == "local: HTTP 400: tools[0] is invalid"
    assert len(server.requests) == 1
    assert sleeps.delays == []


async def test_unauthorized_names_where_the_key_comes_from(
    server: ScriptedModelServer, provider: OpenAIProvider
) -> None:
    server.add(Turn(error_status=401, error_message="Incorrect API key"))
    with pytest.raises(ProviderError, match=r"HTTP 401: Incorrect API key \(check the API key: \$K\)"):
        await collect(provider.stream(request()))


async def test_connection_refused_is_retried_then_mapped(retry: RetryPolicy, sleeps: Any) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    prov = OpenAIProvider("down", api_key="k", base_url=f"http://127.0.0.1:{port}/v1", retry=retry)
    with pytest.raises(ProviderError, match="down: connection failed") as info:
        await collect(prov.stream(request()))
    assert info.value.retryable and info.value.status is None
    assert len(sleeps.delays) == 2
    await prov.aclose()


@pytest.mark.parametrize(
    "quirk",
    [
        "no_usage",
        "no_finish_reason",
        "no_done",
        "no_tool_call_ids",
        "repeat_tool_call_ids",
        "whole_tool_calls",
    ],
)
async def test_compatible_server_dialects_are_tolerated(retry: RetryPolicy, quirk: Quirk) -> None:
    turns = [
        Turn(text="Let me look.", tool_calls=[ToolCall("bash", {"command": "echo hi"}), ToolCall("bash", {})])
    ]
    with ScriptedModelServer(turns, quirks=[quirk]) as srv:
        prov = OpenAIProvider("compat", api_key=None, base_url=srv.openai_base_url, retry=retry)
        events = await collect(prov.stream(request()))
        await prov.aclose()
        assert srv.requests[0].headers["authorization"] == "Bearer unused"
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "Let me look."
    starts = [e for e in events if isinstance(e, ToolCallStart)]
    ends = [e for e in events if isinstance(e, ToolCallEnd)]
    assert [e.arguments for e in ends] == [{"command": "echo hi"}, {}]
    assert [s.id for s in starts] == [e.id for e in ends]
    assert all(e.id for e in ends) and ends[0].id != ends[1].id
    assert events[-1].type == "finish" and isinstance(events[-1], Finish)
    assert events[-1].reason == "tool_calls"
    assert any(isinstance(e, Usage) for e in events) is (quirk != "no_usage")


async def test_malformed_arguments_end_with_a_parse_error(
    server: ScriptedModelServer, provider: OpenAIProvider
) -> None:
    server.add(Turn(tool_calls=[ToolCall("bash", '{"command": "ls"', id="c9")]))
    events = await collect(provider.stream(request()))
    (end,) = [e for e in events if isinstance(e, ToolCallEnd)]
    assert end.arguments == {}
    assert end.raw_arguments == '{"command": "ls"'
    assert end.parse_error is not None and "not valid JSON" in end.parse_error


async def test_cancelling_mid_stream_leaves_the_provider_usable(
    server: ScriptedModelServer, provider: OpenAIProvider
) -> None:
    server.add(Turn(text=" ".join(["word"] * 200), chunk_delay_s=0.01), Turn(text="next"))
    first = asyncio.Event()

    async def consume() -> None:
        async for event in provider.stream(request()):
            if isinstance(event, TextDelta):
                first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), 10)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    events = await collect(provider.stream(request()))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "next"


async def test_client_is_made_once_per_loop(provider: OpenAIProvider) -> None:
    assert provider.endpoint.client() is provider.endpoint.client()
    assert str(provider.endpoint.client().base_url).startswith("http://127.0.0.1:")


async def test_stream_cut_before_any_output_is_retried(
    server: ScriptedModelServer, provider: OpenAIProvider, sleeps: Any
) -> None:
    server.add(Turn(text="lost answer", cut_after=1), Turn(text="second try"))
    events = await collect(provider.stream(request()))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "second try"
    assert len(server.requests) == 2 and sleeps.delays == [0.25]


async def test_stream_cut_after_output_is_an_error_not_a_replay(
    server: ScriptedModelServer, provider: OpenAIProvider, sleeps: Any
) -> None:
    server.add(Turn(text="one two three four", cut_after=3), Turn(text="never"))
    received: list[ProviderEvent] = []
    with pytest.raises(ProviderError) as info:
        async for event in provider.stream(request()):
            received.append(event)
    assert received == [TextDelta("one "), TextDelta("two ")]
    assert info.value.retryable and info.value.status is None
    assert len(server.requests) == 1 and sleeps.delays == []


async def test_stop_reported_after_tool_calls_reads_as_tool_calls(
    server: ScriptedModelServer, provider: OpenAIProvider
) -> None:
    server.add(Turn(tool_calls=[ToolCall("bash", {"command": "ls"})], finish_reason="stop"))
    events = await collect(provider.stream(request()))
    assert events[-1] == Finish("tool_calls", raw="stop")


async def test_length_finish_is_reported(server: ScriptedModelServer, provider: OpenAIProvider) -> None:
    server.add(Turn(text="cut off", finish_reason="length"))
    events = await collect(provider.stream(request()))
    assert events[-1] == Finish("length", raw="length")


def test_max_tokens_field_is_max_completion_tokens_only_for_openai_itself() -> None:
    from shellpilot.provider.openai import to_openai_params

    req = request(max_tokens=50)
    assert to_openai_params(req)["max_tokens"] == 50
    assert to_openai_params(req, max_tokens_field="max_completion_tokens")["max_completion_tokens"] == 50
    assert OpenAIProvider("openai", api_key="k")._max_tokens_field == "max_completion_tokens"
    assert (
        OpenAIProvider("x", api_key="k", base_url="http://127.0.0.1:1/v1")._max_tokens_field == "max_tokens"
    )


@pytest.mark.parametrize(("asked", "waited"), [(0.0, 0.0), (0.7, 0.7), (30.0, 1.0)])
async def test_retry_after_from_the_server_is_honoured_within_the_cap(
    server: ScriptedModelServer, provider: OpenAIProvider, sleeps: Any, asked: float, waited: float
) -> None:
    server.add(Turn(error_status=429, retry_after_s=asked), Turn(text="ok"))
    await collect(provider.stream(request()))
    assert sleeps.delays == [waited]


STREAM_IN_A_FRESH_PROCESS = """
import asyncio, sys
from shellpilot.provider.base import ModelRequest, UserMessage
from shellpilot.provider.openai import OpenAIProvider

async def main():
    provider = OpenAIProvider("local", api_key="k", base_url=sys.argv[1])
    history = [UserMessage(content=f"message {n}") for n in range(50)]
    events = [e async for e in provider.stream(ModelRequest(model="m", messages=history))]
    await provider.aclose()
    print(events[-1].type, sorted({"openai", "anthropic"} & set(sys.modules)))

asyncio.run(main())
"""


def test_streaming_imports_no_sdk_and_sends_the_history_as_built(server: ScriptedModelServer) -> None:
    # The body goes out as built (each message encoded once for the transcript), through the
    # HTTP client: no SDK is imported, so none of its per-request work can run.
    server.add(Turn(text="fine"))
    done = subprocess.run(
        [sys.executable, "-c", STREAM_IN_A_FRESH_PROCESS, server.openai_base_url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["finish", "[]"]
    assert len(server.requests[0].body["messages"]) == 50
