"""ScriptedModelServer's wire format, checked with a raw stdlib HTTP client (no SDK in between)."""

from __future__ import annotations

import http.client
import json
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from shellpilot.testing import RecordedRequest, ScriptedModelServer, ToolCall, Turn


def post(server: ScriptedModelServer, path: str, body: dict[str, Any]) -> http.client.HTTPResponse:
    host, port = server.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request(
        "POST", path, body=json.dumps(body), headers={"content-type": "application/json", "x-t": "1"}
    )
    return conn.getresponse()


def sse(response: http.client.HTTPResponse) -> list[tuple[str | None, str]]:
    """(event name, data) pairs of an SSE body."""
    assert response.status == 200
    assert response.getheader("content-type") == "text/event-stream"
    out: list[tuple[str | None, str]] = []
    for block in response.read().decode().split("\n\n"):
        if not block.strip():
            continue
        name = None
        data = []
        for line in block.splitlines():
            field, _, value = line.partition(": ")
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)
        out.append((name, "\n".join(data)))
    return out


@pytest.fixture
def server() -> Iterator[ScriptedModelServer]:
    with ScriptedModelServer() as srv:
        yield srv


def test_openai_stream_text_and_tool_call_chunks(server: ScriptedModelServer) -> None:
    server.add(Turn(text="Hi there", tool_calls=[ToolCall("bash", {"command": "ls -la /tmp"}, id="call_x")]))
    body = {"model": "m1", "stream": True, "stream_options": {"include_usage": True}, "messages": []}
    events = sse(post(server, "/v1/chat/completions", body))

    assert events[-1] == (None, "[DONE]")
    chunks = [json.loads(data) for _, data in events[:-1]]
    assert all(c["object"] == "chat.completion.chunk" and c["model"] == "m1" for c in chunks)
    deltas = [c["choices"][0]["delta"] for c in chunks if c["choices"]]
    assert deltas[0] == {"role": "assistant", "content": ""}
    assert "".join(d.get("content", "") for d in deltas) == "Hi there"
    calls = [tc for d in deltas for tc in d.get("tool_calls", [])]
    assert calls[0] == {
        "index": 0,
        "type": "function",
        "id": "call_x",
        "function": {"name": "bash", "arguments": ""},
    }
    assert all("id" not in tc and tc["index"] == 0 for tc in calls[1:])
    assert json.loads("".join(tc["function"]["arguments"] for tc in calls)) == {"command": "ls -la /tmp"}
    finishes = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
    assert finishes[-1] == "tool_calls" and set(finishes[:-1]) == {None}
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"] == {
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "total_tokens": 15,
    }


def test_openai_usage_only_when_asked(server: ScriptedModelServer) -> None:
    server.add(Turn(text="x"))
    events = sse(post(server, "/v1/chat/completions", {"model": "m", "stream": True, "messages": []}))
    assert not any("usage" in json.loads(d) for _, d in events[:-1] if d != "[DONE]")


def test_anthropic_stream_event_sequence(server: ScriptedModelServer) -> None:
    server.add(Turn(text="Hello you", tool_calls=[ToolCall("bash", {"command": "pwd"})], output_tokens=12))
    events = sse(post(server, "/v1/messages", {"model": "claude-x", "stream": True, "messages": []}))
    names = [name for name, _ in events]
    assert names[:2] == ["message_start", "ping"]
    assert names[-2:] == ["message_delta", "message_stop"]
    payloads = [json.loads(data) for _, data in events]
    assert all(p["type"] == name for p, name in zip(payloads, names, strict=True))
    assert payloads[0]["message"]["model"] == "claude-x"
    assert payloads[0]["message"]["usage"]["input_tokens"] == 10
    starts = [p for p in payloads if p["type"] == "content_block_start"]
    assert [s["content_block"]["type"] for s in starts] == ["text", "tool_use"]
    tool = starts[1]["content_block"]
    assert tool["name"] == "bash" and tool["id"].startswith("toolu_") and starts[1]["index"] == 1
    deltas = [p["delta"] for p in payloads if p["type"] == "content_block_delta"]
    assert "".join(d["text"] for d in deltas if d["type"] == "text_delta") == "Hello you"
    partial = "".join(d["partial_json"] for d in deltas if d["type"] == "input_json_delta")
    assert json.loads(partial) == {"command": "pwd"}
    assert [p["index"] for p in payloads if p["type"] == "content_block_stop"] == [0, 1]
    assert payloads[-2]["delta"]["stop_reason"] == "tool_use"
    assert payloads[-2]["usage"] == {"output_tokens": 12}


@pytest.mark.parametrize(
    ("path", "status", "expected"),
    [
        (
            "/v1/chat/completions",
            500,
            {"error": {"message": "down", "type": "server_error", "param": None, "code": "500"}},
        ),
        ("/v1/messages", 529, {"type": "error", "error": {"type": "overloaded_error", "message": "down"}}),
        ("/v1/messages", 429, {"type": "error", "error": {"type": "rate_limit_error", "message": "down"}}),
    ],
)
def test_error_turns_answer_with_the_protocol_error_body(
    server: ScriptedModelServer, path: str, status: int, expected: dict[str, Any]
) -> None:
    server.add(Turn(error_status=status, error_message="down", retry_after_s=2.5), Turn(text="after"))
    response = post(server, path, {"model": "m", "stream": True, "messages": []})
    assert response.status == status
    assert json.loads(response.read()) == expected
    assert response.getheader("retry-after") == "2.5"
    assert server.remaining == 1


def test_requests_are_recorded_with_headers_and_body(server: ScriptedModelServer) -> None:
    server.add(Turn(text="a"), Turn(text="b"))
    body = {
        "model": "m",
        "stream": True,
        "system": "sys",
        "tool_choice": {"type": "any"},
        "tools": [{"name": "bash", "input_schema": {"type": "object"}}],
        "messages": [
            {"role": "user", "content": "first"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "bash", "input": {}}]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "out"}]}
                ],
            },
        ],
    }
    post(server, "/v1/messages", body).read()
    post(
        server,
        "/v1/chat/completions?x=1",
        {"model": "m", "stream": True, "messages": [{"role": "system", "content": "s2"}]},
    ).read()
    first, second = server.requests
    assert isinstance(first, RecordedRequest)
    assert (first.protocol, first.path, first.headers["x-t"]) == ("anthropic", "/v1/messages", "1")
    assert first.body == body
    assert (first.system, first.tool_choice(), first.tool_names()) == ("sys", "required", ["bash"])
    assert first.user_texts() == ["first"]
    assert [(r.call_id, r.content, r.is_error) for r in first.tool_results()] == [("t1", "out", False)]
    assert (second.protocol, second.path, second.system) == ("openai", "/v1/chat/completions", "s2")


def test_out_of_turns_is_a_clear_400(server: ScriptedModelServer) -> None:
    response = post(server, "/v1/chat/completions", {"model": "m", "stream": True, "messages": []})
    assert response.status == 400
    assert "no scripted turn left for request #1" in json.loads(response.read())["error"]["message"]


def test_unknown_path_is_404_and_not_recorded(server: ScriptedModelServer) -> None:
    assert post(server, "/v1/embeddings", {}).status == 404
    assert server.requests == []


def test_non_streaming_answers_whole_messages(server: ScriptedModelServer) -> None:
    server.add(Turn(text="hi", tool_calls=[ToolCall("bash", {"command": "ls"}, id="c1")]), Turn(text="yo"))
    openai = json.loads(post(server, "/v1/chat/completions", {"model": "m", "messages": []}).read())
    message = openai["choices"][0]["message"]
    assert message["content"] == "hi" and openai["choices"][0]["finish_reason"] == "tool_calls"
    assert message["tool_calls"][0]["function"] == {"name": "bash", "arguments": '{"command": "ls"}'}
    anthropic = json.loads(post(server, "/v1/messages", {"model": "m", "messages": []}).read())
    assert anthropic["content"] == [{"type": "text", "text": "yo"}] and anthropic["stop_reason"] == "end_turn"


def test_callable_turns_receive_the_recorded_request(server: ScriptedModelServer) -> None:
    server.add(lambda req: Turn(text=f"{len(req.messages)} messages"))
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "a"}] * 3}
    events = sse(post(server, "/v1/chat/completions", body))
    text = "".join(json.loads(d)["choices"][0]["delta"].get("content", "") for _, d in events[:-1])
    assert text == "3 messages"


def test_drop_connection_closes_without_an_answer(server: ScriptedModelServer) -> None:
    server.add(Turn(drop_connection=True))
    with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
        post(server, "/v1/messages", {"model": "m", "stream": True, "messages": []})
    assert len(server.requests) == 1


def test_quirks_change_the_openai_dialect() -> None:
    turn = Turn(tool_calls=[ToolCall("bash", {"command": "ls"})])
    with ScriptedModelServer(
        [turn], quirks=["no_done", "no_finish_reason", "no_tool_call_ids", "whole_tool_calls"]
    ) as srv:
        events = sse(post(srv, "/v1/chat/completions", {"model": "m", "stream": True, "messages": []}))
    chunks = [json.loads(d) for _, d in events]
    assert all(c["choices"][0]["finish_reason"] is None for c in chunks)
    calls = [tc for c in chunks for tc in c["choices"][0]["delta"].get("tool_calls", [])]
    assert calls == [
        {"index": 0, "type": "function", "function": {"name": "bash", "arguments": '{"command": "ls"}'}}
    ]


def test_keep_alive_connection_serves_several_requests(server: ScriptedModelServer) -> None:
    server.add(Turn(text="one"), Turn(text="two"))
    host, port = server.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    for _ in range(2):
        conn.request("POST", "/v1/messages", body=json.dumps({"model": "m", "stream": True, "messages": []}))
        assert conn.getresponse().read().endswith(b'data: {"type": "message_stop"}\n\n')
    conn.close()


def test_stop_closes_the_port_and_open_connections() -> None:
    server = ScriptedModelServer([Turn(text="x")]).start()
    host, port = server.url.removeprefix("http://").split(":")
    idle = http.client.HTTPConnection(host, int(port), timeout=10)
    idle.request("POST", "/v1/messages", body=json.dumps({"model": "m", "stream": True, "messages": []}))
    idle.getresponse().read()  # the handler now waits on this keep-alive connection
    server.stop()
    server.stop()
    assert idle.sock is not None and idle.sock.recv(1) == b""  # shut down by stop()
    idle.close()
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((host, int(port)), timeout=2).close()
    assert not [t for t in threading.enumerate() if t.name == "scripted-model"]


def test_url_before_start_is_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match="not running"):
        _ = ScriptedModelServer().url


def test_provider_config_points_at_the_server(server: ScriptedModelServer) -> None:
    assert server.provider_config("openai") == {
        "type": "openai",
        "base_url": server.url + "/v1",
        "api_key": "test-key",
    }
    assert server.provider_config("anthropic")["base_url"] == server.url


def test_a_404_keeps_the_keep_alive_connection_usable(server: ScriptedModelServer) -> None:
    server.add(Turn(text="fine"))
    host, port = server.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("POST", "/v1/embeddings", body=json.dumps({"input": "x"}))
    missing = conn.getresponse()
    assert missing.status == 404 and b"unknown path" in missing.read()
    conn.request("POST", "/v1/messages", body=json.dumps({"model": "m", "messages": []}))
    response = conn.getresponse()
    assert response.status == 200 and json.loads(response.read())["content"][0]["text"] == "fine"
    conn.close()
