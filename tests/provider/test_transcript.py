"""Transcript views and folds, and the request bodies built from them on both protocols.

The bodies are checked against the plain, whole-conversation mapping (``to_*_params``)
encoded the way the SDKs encode JSON, over a conversation that grows step by step, views
that go back in time, and the turns Anthropic merges.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from shellpilot.provider.anthropic import anthropic_body, to_anthropic_params
from shellpilot.provider.base import (
    AssistantMessage,
    Message,
    ModelRequest,
    ToolCallRequest,
    ToolResultMessage,
    ToolSpec,
    UserMessage,
)
from shellpilot.provider.openai import openai_body, to_openai_params
from shellpilot.provider.transcript import Transcript


def sdk_json(params: dict[str, Any]) -> bytes:
    return json.dumps(params, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


def steps() -> list[list[Message]]:
    """A conversation as a loop grows it: each inner list is what one step appends."""
    call = ToolCallRequest(id="c1", name="bash", arguments={"command": "ls", "ü": "ß"})
    return [
        [UserMessage(content="first"), UserMessage(content="   ")],  # an empty text is dropped
        [AssistantMessage(content="", tool_calls=[call])],
        [ToolResultMessage(call_id="c1", name="bash", content="a\nb")],
        [
            AssistantMessage(content=""),  # an empty turn: left out on both wires
            ToolResultMessage(call_id="c1", name="bash", content="boom", is_error=True),
            ToolResultMessage(call_id="c1", name="bash", content="", is_error=True),
        ],
        [UserMessage(content="more \u2028 text"), AssistantMessage(content="done")],
        [AssistantMessage(content="and again"), UserMessage(content="ok")],  # same-role merges
    ]


def requests(**extra: Any) -> list[ModelRequest]:
    out: list[ModelRequest] = []
    transcript = Transcript()
    for added in steps():
        transcript = transcript.extended(added)
        out.append(ModelRequest(model="m", system="sys", messages=transcript, **extra))
    return out


VARIANTS: list[dict[str, Any]] = [
    {},
    {"tools": [ToolSpec(name="bash", description="run")], "tool_choice": "required"},
    {"temperature": 0.3, "max_tokens": 77, "tools": [ToolSpec(name="t")], "tool_choice": "none"},
]


@pytest.mark.parametrize("extra", VARIANTS)
def test_openai_body_is_the_sdk_encoding_of_the_params(extra: dict[str, Any]) -> None:
    for request in requests(**extra):
        for field in ("max_tokens", "max_completion_tokens"):
            expected = sdk_json(to_openai_params(request, max_tokens_field=field))
            assert openai_body(request, max_tokens_field=field) == expected
        no_usage = to_openai_params(request, include_usage=False)
        assert openai_body(request, include_usage=False) == sdk_json(no_usage)


@pytest.mark.parametrize("extra", VARIANTS)
def test_anthropic_body_is_the_sdk_encoding_of_the_params(extra: dict[str, Any]) -> None:
    built = requests(**extra)
    for request in built:
        assert anthropic_body(request) == sdk_json(to_anthropic_params(request))
    # Older views of the same storage still give their own body (folded afresh, not from the memo).
    for request in reversed(built):
        assert anthropic_body(request) == sdk_json(to_anthropic_params(request))
        assert openai_body(request) == sdk_json(to_openai_params(request))


def test_views_keep_their_messages_and_share_storage() -> None:
    one = Transcript([UserMessage(content="a")])
    two = one.extended([UserMessage(content="b")])
    assert list(one) == [UserMessage(content="a")] and len(two) == 2
    assert two[-1] == UserMessage(content="b") and two[0:1] == [UserMessage(content="a")]
    with pytest.raises(IndexError):
        one[1]
    # Extending an older view forks: the newer view is untouched.
    fork = one.extended([UserMessage(content="c")])
    assert [m.content for m in fork] == ["a", "c"] and [m.content for m in two] == ["a", "b"]  # type: ignore[union-attr]
    assert one.extended([]) is one
    assert two == [UserMessage(content="a"), UserMessage(content="b")]


def counting_step(seen: list[str]) -> Callable[[list[str], Message], None]:
    def step(state: list[str], message: Message) -> None:
        seen.append(message.content)  # type: ignore[union-attr]
        state.append(message.content)  # type: ignore[union-attr]

    return step


def test_each_message_is_folded_once_across_growing_views() -> None:
    seen: list[str] = []
    step = counting_step(seen)
    view = Transcript()
    for n in range(50):
        view = view.extended([UserMessage(content=str(n))])
        assert view.fold(step, list) == [str(i) for i in range(n + 1)]
    assert seen == [str(i) for i in range(50)]  # 50 messages, 50 folds (not 1,275)


def test_an_older_view_folds_afresh_and_leaves_the_memo_alone() -> None:
    seen: list[str] = []
    step = counting_step(seen)
    short = Transcript([UserMessage(content="a")])
    long = short.extended([UserMessage(content="b")])
    assert long.fold(step, list) == ["a", "b"]
    assert short.fold(step, list) == ["a"]
    assert long.extended([UserMessage(content="c")]).fold(step, list) == ["a", "b", "c"]
    assert seen == ["a", "b", "a", "c"]


def test_a_failing_fold_starts_over_next_time() -> None:
    calls: list[str] = []

    def step(state: list[str], message: Message) -> None:
        calls.append(message.content)  # type: ignore[union-attr]
        if message.content == "bad" and calls.count("bad") == 1:  # type: ignore[union-attr]
            raise ValueError("once")
        state.append(message.content)  # type: ignore[union-attr]

    view = Transcript([UserMessage(content="ok"), UserMessage(content="bad")])
    with pytest.raises(ValueError):
        view.fold(step, list)
    assert view.fold(step, list) == ["ok", "bad"]  # not ["ok", "ok", "bad"]


def test_request_accepts_lists_and_serialises_as_a_list() -> None:
    request = ModelRequest(model="m", messages=[{"role": "user", "content": "hi"}])
    assert isinstance(request.messages, Transcript)
    assert request.model_dump()["messages"] == [{"role": "user", "content": "hi"}]
    same = ModelRequest(model="m", messages=request.messages)
    assert same.messages is request.messages
