"""Agent-loop overhead per tool round-trip, against the scripted model server (real SDKs, real HTTP).

Run: ``.venv/bin/python benchmarks/loop.py``. One prompt makes the model call a tool ROUNDS
times (then answer); a round is the time between two consecutive model turns of the loop:
stream the turn over HTTP, record its parts in SQLite, run the tool, write the result,
rebuild the history and send the next request. The same model turn streamed alone (the
provider, no loop) is the baseline; the difference is the loop's own overhead. Prints the
median of ROUNDS rounds for a no-op tool and for the real ``bash`` tool running ``true``.
"""

from __future__ import annotations

import asyncio
import itertools
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from shellpilot.bus import Bus, Event
from shellpilot.config import Config
from shellpilot.provider.base import ModelRequest, Provider, ProviderEvent, UserMessage
from shellpilot.provider.registry import ProviderRegistry
from shellpilot.session.loop import AgentLoop, default_tools
from shellpilot.session.models import AssistantMessage
from shellpilot.session.run_state import RunState
from shellpilot.session.service import SessionService
from shellpilot.storage.store import SessionStore
from shellpilot.testing import ScriptedModelServer, ToolCall, Turn
from shellpilot.tool.base import Tool, ToolContext, ToolResult

ROUNDS = 50


class _NoopParams(BaseModel):
    value: str = ""


class NoopTool:
    """A tool that returns at once, so a round measures the loop and the model call only."""

    id: ClassVar[str] = "noop"
    parameters: ClassVar[type[BaseModel]] = _NoopParams

    def description(self) -> str:
        return "Does nothing."

    async def execute(self, params: Any, ctx: ToolContext) -> ToolResult:
        return ToolResult(output="ok")


class TimedProvider:
    """Wraps a provider and adds up the time its streams take (ms), to separate the model
    call (HTTP + SDK request building, which grows with the history) from the loop."""

    def __init__(self, inner: Provider) -> None:
        self.name = inner.name
        self.inner = inner
        self.spent_ms: list[float] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[ProviderEvent]:
        start = time.perf_counter()
        async for event in self.inner.stream(request):
            yield event
        self.spent_ms.append((time.perf_counter() - start) * 1000)

    async def aclose(self) -> None:
        await self.inner.aclose()


def _config(server: ScriptedModelServer) -> Config:
    return Config.model_validate(
        {
            "provider": {"fake": server.provider_config("openai")},
            "model": "fake/bench",
            "max_steps": ROUNDS + 5,
        }
    )


async def loop_rounds(tool: Tool, call: ToolCall, root: Path) -> tuple[list[float], list[float]]:
    """Per-round times (ms) of one prompt making ROUNDS tool calls, and the model-call
    share of each round (ms)."""
    turns = [Turn(text="step", tool_calls=[call]) for _ in range(ROUNDS)] + [Turn(text="done")]
    with ScriptedModelServer(turns) as server:
        cfg = _config(server)
        bus = Bus()
        store = SessionStore(root / f"{tool.id}.db")
        service = SessionService(store, bus, cfg, root, RunState(bus, lease=store))
        timed = TimedProvider(ProviderRegistry(cfg, env={}).provider("fake"))
        providers = ProviderRegistry(cfg, env={}, providers={"fake": timed})
        loop = AgentLoop(service, project_dir=root, providers=providers, tools=[tool])
        starts: list[float] = []

        def on_message(event: Event) -> None:
            message = getattr(event, "message", None)
            if isinstance(message, AssistantMessage) and message.completed_ms is None:
                starts.append(time.perf_counter())

        bus.listen(on_message, ["message.updated"])
        session = service.create(root)
        result = await loop.prompt(session.id, "go")
        assert result.ok, result.error
        await providers.aclose()
        store.close()
    rounds = [(b - a) * 1000 for a, b in itertools.pairwise(starts)][:ROUNDS]
    return rounds, timed.spent_ms[:ROUNDS]


async def model_only(root: Path) -> list[float]:
    """The same turn streamed by the provider alone, ROUNDS times (ms each)."""
    turns = [Turn(text="step", tool_calls=[ToolCall("noop", {"value": "x"})]) for _ in range(ROUNDS)]
    with ScriptedModelServer(turns) as server:
        providers = ProviderRegistry(_config(server), env={})
        resolved = providers.resolve()
        request = ModelRequest(model=resolved.api_model, messages=[UserMessage(content="go")])
        times: list[float] = []
        for _ in range(ROUNDS):
            start = time.perf_counter()
            async for _event in resolved.provider.stream(request):
                pass
            times.append((time.perf_counter() - start) * 1000)
        await providers.aclose()
    return times


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        base = statistics.median(await model_only(root))
        rounds, model = await loop_rounds(NoopTool(), ToolCall("noop", {"value": "x"}), root)
        cfg = Config()
        [shell] = default_tools(cfg, root)
        bash = ToolCall("bash", {"command": "true", "description": "nothing"})
        bash_rounds, _ = await loop_rounds(shell, bash, root)
    noop, in_model = statistics.median(rounds), statistics.median(model)
    own = statistics.median(r - m for r, m in zip(rounds, model, strict=False))
    rows = [
        (f"model turn alone, 1-message request, median of {ROUNDS}", base, ""),
        (f"loop round-trip, no-op tool, median of {ROUNDS}", noop, ""),
        ("  of which the model call (HTTP + SDK, growing history)", in_model, ""),
        ("  loop overhead per tool round-trip (the rest)", own, f"  ({own / noop:.0%} of a round)"),
        (f"loop round-trip, bash `true`, median of {ROUNDS}", statistics.median(bash_rounds), ""),
    ]
    for label, value, note in rows:
        print(f"{label:<58}{value:8.2f} ms{note}")


if __name__ == "__main__":
    asyncio.run(main())
