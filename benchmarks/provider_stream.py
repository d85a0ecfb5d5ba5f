"""Benchmark: cost of one streamed model turn through each SDK provider on loopback.

Prints, for the OpenAI and Anthropic providers against ``ScriptedModelServer``, the median and
p90 wall time (ms) of one turn (a sentence of text plus one tool call with streamed arguments)
over 50 rounds, next to the same turn read with a raw stdlib HTTP client, and their ratio.
This is the provider's share of the loop's per-round-trip overhead.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import statistics
import time

from shellpilot.provider.anthropic import AnthropicProvider
from shellpilot.provider.base import ModelRequest, Provider, ToolSpec, UserMessage
from shellpilot.provider.openai import OpenAIProvider
from shellpilot.testing import ScriptedModelServer, ToolCall, Turn

ROUNDS = 50
TURN = Turn(
    text="I will list the files in the project directory first.",
    tool_calls=[ToolCall("bash", {"command": "ls -la && git status --short", "description": "list files"})],
)
REQUEST = ModelRequest(
    model="bench",
    system="You are a benchmark.",
    messages=[UserMessage(content="list the files")],
    tools=[
        ToolSpec(name="bash", parameters={"type": "object", "properties": {"command": {"type": "string"}}})
    ],
)


async def _provider_times(provider: Provider, server: ScriptedModelServer) -> list[float]:
    times: list[float] = []
    for _ in range(ROUNDS + 3):  # the first rounds warm the connection and imports
        server.add(TURN)
        start = time.perf_counter()
        async for _event in provider.stream(REQUEST):
            pass
        times.append((time.perf_counter() - start) * 1000)
    await provider.aclose()
    return times[3:]


def _raw_times(server: ScriptedModelServer, path: str) -> list[float]:
    host, port = server.url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port))
    body = json.dumps({"model": "bench", "stream": True, "messages": []})
    times: list[float] = []
    for _ in range(ROUNDS + 3):
        server.add(TURN)
        start = time.perf_counter()
        conn.request("POST", path, body=body, headers={"content-type": "application/json"})
        conn.getresponse().read()
        times.append((time.perf_counter() - start) * 1000)
    conn.close()
    return times[3:]


def _line(label: str, times: list[float], baseline: float | None = None) -> str:
    median = statistics.median(times)
    p90 = statistics.quantiles(times, n=10)[-1]
    ratio = f"   x{median / baseline:5.1f} raw" if baseline else ""
    return f"{label:28} median {median:7.2f} ms   p90 {p90:7.2f} ms{ratio}"


async def main() -> None:
    with ScriptedModelServer() as server:
        cases: list[tuple[str, Provider, str]] = [
            (
                "openai",
                OpenAIProvider("bench", api_key="k", base_url=server.openai_base_url),
                "/v1/chat/completions",
            ),
            (
                "anthropic",
                AnthropicProvider("bench", api_key="k", base_url=server.anthropic_base_url),
                "/v1/messages",
            ),
        ]
        print(f"one streamed turn (text + one tool call), {ROUNDS} rounds on loopback")
        for name, provider, path in cases:
            raw = _raw_times(server, path)
            sdk = await _provider_times(provider, server)
            base = statistics.median(raw)
            print(_line(f"{name}: raw http.client", raw))
            print(_line(f"{name}: provider (SDK)", sdk, base))


if __name__ == "__main__":
    asyncio.run(main())
