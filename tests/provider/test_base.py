"""Pure helpers of the provider seam: argument parsing, finish settling, event shapes."""

from __future__ import annotations

from typing import Any

import pytest

from shellpilot.provider.base import (
    Finish,
    FinishReason,
    ModelRequest,
    TextDelta,
    ToolCallEnd,
    UserMessage,
    parse_arguments,
    settle_finish,
)


@pytest.mark.parametrize(
    ("raw", "arguments", "error"),
    [
        ("", {}, None),
        ('{"a": 1}', {"a": 1}, None),
        ("[1, 2]", {}, "must be a JSON object, got list"),
        ('{"a": ', {}, "not valid JSON"),
        ('{"command": "echo \\udcff"}', {}, "unpaired surrogates"),  # cannot be stored as UTF-8
        ('{"command": "echo \\ud83d\\ude00"}', {"command": "echo \U0001f600"}, None),  # a pair is fine
    ],
)
def test_parse_arguments(raw: str, arguments: dict[str, Any], error: str | None) -> None:
    parsed, problem = parse_arguments(raw)
    assert parsed == arguments
    assert (problem is None) if error is None else (problem is not None and error in problem)


@pytest.mark.parametrize(
    ("reason", "calls", "expected"),
    [
        (None, False, "stop"),
        (None, True, "tool_calls"),
        ("stop", True, "tool_calls"),
        ("stop", False, "stop"),
        ("length", True, "length"),
        ("other", False, "other"),
        ("tool_calls", False, "tool_calls"),
    ],
)
def test_settle_finish(reason: FinishReason | None, calls: bool, expected: str) -> None:
    assert settle_finish(reason, "raw", calls) == Finish(expected, raw="raw")  # type: ignore[arg-type]


def test_events_carry_their_type_tag() -> None:
    assert TextDelta("x").type == "text_delta"
    assert ToolCallEnd("c", "bash", {}).type == "tool_call_end"
    with pytest.raises(TypeError):
        TextDelta("x", type="other")  # type: ignore[call-arg]


def test_request_rejects_unknown_roles_and_bad_max_tokens() -> None:
    request = ModelRequest.model_validate(
        {
            "model": "m",
            "messages": [
                {"role": "user", "content": "hi"},
                {"role": "tool", "call_id": "c", "name": "bash", "content": "out"},
            ],
        }
    )
    assert isinstance(request.messages[0], UserMessage)
    with pytest.raises(ValueError):
        ModelRequest.model_validate({"model": "m", "messages": [{"role": "system", "content": "x"}]})
    with pytest.raises(ValueError):
        ModelRequest(model="m", max_tokens=0)


class _Response:
    def __init__(self, headers: dict[str, str]) -> None:
        self.headers = headers


class _Failure(Exception):
    def __init__(self, headers: dict[str, str]) -> None:
        self.response = _Response(headers)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, None),
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "-1"}, 0.0),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}, 0.0),
        ({"retry-after": "soon"}, None),
    ],
)
def test_retry_after_header_reading(headers: dict[str, str], expected: float | None) -> None:
    from shellpilot.provider.failure import retry_after_s

    assert retry_after_s(_Failure(headers)) == expected
    assert retry_after_s(ValueError("no response")) is None
