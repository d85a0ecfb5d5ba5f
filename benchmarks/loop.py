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
from pathlib import Path
from typing import Any, ClassVar

from pydantic import BaseModel

from shellpilot.bus import Bus, Event
from shellpilot.config import Config
from shellpilot.provider.base import ModelRequest, UserMessage
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


def _config(server: ScriptedModelServer) -> Config:
    return Config.model_validate(
        {
            "provider": {"fake": server.provider_config("openai")},
            "model": "fake/bench",
            "max_steps": ROUNDS + 5,
        }
    )


async def loop_rounds(tool: Tool, call: ToolCall, root: Path) -> list[float]:
    """Per-round times (ms) of one prompt making ROUNDS tool calls."""
    turns = [Turn(text="step", tool_calls=[call]) for _ in range(ROUNDS)] + [Turn(text="done")]
    with ScriptedModelServer(turns) as server:
        cfg = _config(server)
        bus = Bus()
        store = SessionStore(root / f"{tool.id}.db")
        service = SessionService(store, bus, cfg, root, RunState(bus, lease=store))
        providers = ProviderRegistry(cfg, env={})
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
    return [(b - a) * 1000 for a, b in itertools.pairwise(starts)][:ROUNDS]


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
        noop = statistics.median(await loop_rounds(NoopTool(), ToolCall("noop", {"value": "x"}), root))
        cfg = Config()
        [shell] = default_tools(cfg, root)
        bash = ToolCall("bash", {"command": "true", "description": "nothing"})
        with_bash = statistics.median(await loop_rounds(shell, bash, root))
    print(f"model turn alone (HTTP + SDK), median of {ROUNDS}: {base:8.2f} ms")
    print(f"loop round-trip, no-op tool, median of {ROUNDS}:   {noop:8.2f} ms")
    ratio = noop / base
    print(f"loop overhead per tool round-trip:              {noop - base:8.2f} ms  (round-trip x{ratio:.2f})")
    print(f"loop round-trip, bash `true`, median of {ROUNDS}:  {with_bash:8.2f} ms  (process spawn included)")


if __name__ == "__main__":
    asyncio.run(main())
