"""The HTTP layer under both protocols: the headers the official SDKs send, and SSE framing."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from shellpilot.provider.sse import ServerEvent, server_events


async def _events(*chunks: bytes) -> list[ServerEvent]:
    async def body() -> AsyncIterator[bytes]:
        for chunk in chunks:
            yield chunk

    return [event async for event in server_events(body())]


async def test_headers_are_the_ones_each_sdk_sends() -> None:
    # The SDKs stay installed (other tools may use them); what they would send is the reference.
    from anthropic import AsyncAnthropic
    from openai import AsyncOpenAI

    from shellpilot.provider.anthropic import AnthropicProvider
    from shellpilot.provider.openai import OpenAIProvider

    for ours, sdk in [
        (OpenAIProvider("o", api_key="k", base_url="http://127.0.0.1:9/v1"), AsyncOpenAI),
        (AnthropicProvider("a", api_key="k", base_url="http://127.0.0.1:9"), AsyncAnthropic),
    ]:
        client = sdk(api_key="k", base_url="http://127.0.0.1:9", timeout=600.0, max_retries=0)
        theirs = {k.lower(): v for k, v in client.default_headers.items() if isinstance(v, str)}
        sent = {k.lower(): v for k, v in ours.endpoint.headers.items()}
        assert {k: sent.get(k) for k in theirs} == theirs
        assert sent["x-stainless-retry-count"] == "0" and sent["x-stainless-read-timeout"] == "600.0"
        await client.close()


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
async def test_events_end_at_a_blank_line_whatever_the_line_end(newline: bytes) -> None:
    text = b'event: a\ndata: 1\ndata: 2\n\n: a comment\ndata: {"x": 3}\n\n'.replace(b"\n", newline)
    assert await _events(text) == [ServerEvent("a", "1\n2"), ServerEvent(None, '{"x": 3}')]


async def test_lines_split_across_chunks_and_a_crlf_cut_in_two() -> None:
    whole = "data: h\u00e9llo\r\n\r\ndata:second\r\n\r\n".encode()
    cut = whole.index(b"\r\n") + 1  # between the CR and the LF
    pieces = [whole[:3], whole[3:cut], whole[cut:], b""]
    assert await _events(*pieces) == [ServerEvent(None, "h\u00e9llo"), ServerEvent(None, "second")]
    assert await _events(*[bytes([b]) for b in whole]) == await _events(whole)


async def test_an_event_cut_off_by_the_end_of_the_body_is_dropped() -> None:
    assert await _events(b"data: 1\n\ndata: 2\n") == [ServerEvent(None, "1")]
