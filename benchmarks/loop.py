"""Agent-loop cost per tool round-trip over a long turn, on both provider protocols.

Run: ``python benchmarks/loop.py [--rounds 200]``. A scripted model (``ScriptedModelServer``,
real SDKs over loopback HTTP) calls the real ``bash`` tool with ``true`` ROUNDS times in one
prompt, then answers. A round is the time between the starts of two consecutive model turns:
build and send the request (the history grows by two messages a round), stream the answer,
record its parts in SQLite, run ``true``, write the result.

The model server runs in a process of its own, as a real one would, with its garbage
collector off: its record of every request (a parsed copy of each growing body) would
otherwise slow it down round after round, which is the server's cost, not the loop's.

Per protocol it prints the median round of rounds 1-20 and of the last 20, their ratio (the
target is at most 1.2: a round must not get slower as the conversation grows), the model turn
alone (the same answer streamed by the provider for a one-message request: server, HTTP and
SDK stream parsing), a bare spawn of ``bash -c true``, and what is left of each round
without the model server's own time on its request (measured in the server) and the bare
spawn: the loop's own overhead (target under 10 ms), which still holds this process's side
of the HTTP exchange and the sandbox's start-up (the tool runs a model's ``true`` in
bubblewrap). So it also prints a bare sandboxed spawn (bwrap with the tool's read-only
profile), this process's side of the model call, and what a round costs without the
sandboxed spawn and the whole model call: the gate, the runner, the store and the bus.
``model call`` is the time spent inside ``Provider.stream`` during the loop (request
building included). This process's CPU time per round is printed too: on a
busy machine it is steadier than the wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from shellpilot.bus import Bus, Event
from shellpilot.config import Config
from shellpilot.provider.base import ModelRequest, Provider, ProviderEvent, UserMessage
from shellpilot.provider.registry import ProviderRegistry
from shellpilot.session.loop import AgentLoop, default_tools
from shellpilot.session.models import AssistantMessage
from shellpilot.session.run_state import RunState
from shellpilot.session.service import SessionService
from shellpilot.storage.store import SessionStore
from shellpilot.testing import ToolCall, WireProtocol

WINDOW = 20
CPU_MS: dict[str, list[float]] = {}
"""This process's CPU time per round (ms) of the last run of each protocol."""
"""Rounds compared at the start and at the end of the turn."""
RATIO_TARGET = 1.2
OVERHEAD_TARGET_MS = 10.0
CALL = ToolCall("bash", {"command": "true", "description": "does nothing"})
SERVER = """
import gc, json, sys, time
from shellpilot.testing import ToolCall, Turn, server as served
gc.disable()  # its record of every request must not make the server slower as it grows
spent = []
handle = served._Handler.do_POST
def timed(self):
    started = time.perf_counter()
    handle(self)
    spent.append((time.perf_counter() - started) * 1000)
served._Handler.do_POST = timed
call = ToolCall("bash", {"command": "true", "description": "does nothing"})
turns = [Turn(text="step", tool_calls=[call]) for _ in range(int(sys.argv[1]))] + [Turn(text="done")]
with served.ScriptedModelServer(turns) as server:
    print(server.url, flush=True)
    sys.stdin.read()
print(json.dumps(spent), flush=True)
"""
"""The model server's process: ROUNDS tool-call turns then a text answer; it serves until
its stdin closes, then prints the time it spent on each request (ms, read to last byte)."""


class ModelServer:
    """A ``ScriptedModelServer`` in a child process: ``url`` while it runs, ``spent_ms``
    (its own time per request, in order) once it has stopped."""

    def __init__(self, rounds: int) -> None:
        self.child = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(rounds)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.child.stdout is not None
        self.url = self.child.stdout.readline().strip()
        self.spent_ms: list[float] = []

    def stop(self) -> None:
        out, _ = self.child.communicate(timeout=30)
        self.spent_ms = json.loads(out.strip().splitlines()[-1])


@contextmanager
def model_server(rounds: int) -> Iterator[ModelServer]:
    """A model server process for the duration of the block."""
    server = ModelServer(rounds)
    try:
        yield server
    finally:
        server.stop()


def provider_config(url: str, protocol: WireProtocol) -> dict[str, Any]:
    base_url = url + "/v1" if protocol == "openai" else url
    return {"type": protocol, "base_url": base_url, "api_key": "bench"}


class TimedProvider:
    """Wraps a provider and records the time each of its streams takes (ms)."""

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


def _config(url: str, protocol: WireProtocol, rounds: int) -> Config:
    return Config.model_validate(
        {
            "provider": {"fake": provider_config(url, protocol)},
            "model": "fake/bench",
            "max_steps": rounds + 5,
        }
    )


async def loop_rounds(
    protocol: WireProtocol, rounds: int, root: Path
) -> tuple[list[float], list[float], list[float]]:
    """Per-round wall times (ms) of one prompt making ``rounds`` bash calls, the time spent
    inside ``Provider.stream`` in each round (ms), and the model server's own time on the
    request of each round (ms)."""
    with model_server(rounds) as server:
        cfg = _config(server.url, protocol, rounds)
        bus = Bus()
        data = root / f"data-{protocol}"
        store = SessionStore(data / "db.sqlite")
        service = SessionService(store, bus, cfg, data, RunState(bus, lease=store))
        timed = TimedProvider(ProviderRegistry(cfg, env={}).provider("fake"))
        providers = ProviderRegistry(cfg, env={}, providers={"fake": timed})
        loop = AgentLoop(
            service, project_dir=root, providers=providers, tools=default_tools(cfg, data), shell="bash"
        )
        starts: list[float] = []
        cpu_starts: list[float] = []

        def on_message(event: Event) -> None:
            message = getattr(event, "message", None)
            if isinstance(message, AssistantMessage) and message.completed_ms is None:
                starts.append(time.perf_counter())
                cpu_starts.append(time.process_time())

        bus.listen(on_message, ["message.updated"])
        session = service.create(root)
        result = await loop.prompt(session.id, "go")
        assert result.ok and result.text == "done", result.error
        await providers.aclose()
        store.close()
    times = [(b - a) * 1000 for a, b in itertools.pairwise(starts)][:rounds]
    CPU_MS[protocol] = [(b - a) * 1000 for a, b in itertools.pairwise(cpu_starts)][:rounds]
    return times, timed.spent_ms[:rounds], server.spent_ms[:rounds]


async def model_only(protocol: WireProtocol, runs: int) -> list[float]:
    """The same answer streamed by the provider alone for a one-message request (ms each)."""
    with model_server(runs) as server:
        providers = ProviderRegistry(_config(server.url, protocol, 0), env={})
        resolved = providers.resolve()
        request = ModelRequest(model=resolved.api_model, messages=[UserMessage(content="go")])
        times: list[float] = []
        for _ in range(runs):
            start = time.perf_counter()
            async for _event in resolved.provider.stream(request):
                pass
            times.append((time.perf_counter() - start) * 1000)
        await providers.aclose()
    return times


async def bare_spawn(runs: int) -> list[float]:
    """``bash -c true`` spawned and reaped with asyncio, nothing else (ms each)."""
    shell = shutil.which("bash") or "/bin/sh"
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        proc = await asyncio.create_subprocess_exec(shell, "-c", "true")
        await proc.wait()
        times.append((time.perf_counter() - start) * 1000)
    return times


async def sandboxed_spawn(runs: int, root: Path) -> list[float] | None:
    """``bash -c true`` inside bubblewrap with the shell tool's read-only profile (the one a
    model's ``true`` gets), spawned and reaped, nothing else (ms each); None without bwrap."""
    from shellpilot.process.launch import launch, sandboxed
    from shellpilot.process.sandbox import read_only_profile

    shell = shutil.which("bash") or "/bin/sh"
    argv = [shell, "-c", "--", "true"]
    (root / "out").mkdir(exist_ok=True)
    (root / "tmp").mkdir(exist_ok=True)
    profile = read_only_profile(root, readable=(root / "out",), tmp_dir=root / "tmp")
    if sandboxed(profile, argv, root) is None:
        return None
    loop = asyncio.get_running_loop()
    times: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        wrapped = sandboxed(profile, argv, root)
        proc = launch(wrapped, argv, root, {"PATH": "/usr/bin:/bin"})
        exited: asyncio.Future[None] = loop.create_future()
        pidfd = os.pidfd_open(proc.pid)

        def ready(fd: int = pidfd, done: asyncio.Future[None] = exited) -> None:
            loop.remove_reader(fd)  # readable once the child has exited
            done.set_result(None)

        loop.add_reader(pidfd, ready)
        await exited
        os.close(pidfd)
        proc.wait()
        assert proc.stdout is not None
        proc.stdout.close()
        times.append((time.perf_counter() - start) * 1000)
    return times


def _row(label: str, value: float, note: str = "") -> None:
    print(f"  {label:<58}{value:9.2f} ms{note}")


async def bench(protocol: WireProtocol, rounds: int, root: Path, spawn: float, boxed: float | None) -> None:
    alone = statistics.median(await model_only(protocol, 50))
    times, in_model, served = await loop_rounds(protocol, rounds, root)
    late = f"{rounds - WINDOW + 1}-{rounds}"
    windows = ((f"1-{WINDOW}", slice(0, WINDOW)), (late, slice(rounds - WINDOW, rounds)))
    head, tail = (statistics.median(times[part]) for _, part in windows)
    ratio = tail / head
    print(f"{protocol}: {rounds} rounds of `bash true`, {sum(times) / 1000:.2f} s in all")
    _row(f"round, median of rounds 1-{WINDOW}", head)
    _row(f"round, median of rounds {late}", tail)
    ok = "ok" if ratio <= RATIO_TARGET else "OVER"
    print(f"  {'ratio last / first':<58}{ratio:9.2f}    (target <= {RATIO_TARGET}: {ok})")
    cpu = CPU_MS[protocol]
    cpu_head, cpu_tail = (statistics.median(cpu[part]) for _, part in windows)
    _row(f"CPU time of this process per round, rounds 1-{WINDOW}", cpu_head)
    _row(
        f"CPU time of this process per round, rounds {late}",
        cpu_tail,
        f"   (ratio {cpu_tail / cpu_head:.2f})",
    )
    for label, part in windows:
        _row(f"model call inside the loop, rounds {label}", statistics.median(in_model[part]))
    for label, part in windows:
        _row(f"  of which the model server's own time, rounds {label}", statistics.median(served[part]))
    for label, part in windows:
        client = statistics.median(m - s for m, s in zip(in_model[part], served[part], strict=True))
        _row(f"  of which this process's side (SDK, HTTP), rounds {label}", client)
    _row("model turn alone (one-message request), median of 50", alone)
    _row("bare spawn of `bash -c true`, median of 50", spawn)
    if boxed is not None:
        _row("bare spawn in the tool's sandbox (bwrap), median of 50", boxed)
    for label, part in windows:
        # Per round: what is left without the server's own time on its request and the spawn.
        own = statistics.median(t - s - spawn for t, s in zip(times[part], served[part], strict=True))
        ok = "ok" if own < OVERHEAD_TARGET_MS else "OVER"
        target = f"   (target < {OVERHEAD_TARGET_MS:g} ms: {ok})"
        _row(f"loop overhead per round, rounds {label}", own, target)
    for label, part in windows:
        # The same without the sandbox's own start-up and this process's side of the model
        # call: what the loop itself (gate, runner, store, bus) adds to a round.
        rest = [
            t - m - (boxed if boxed is not None else spawn)
            for t, m in zip(times[part], in_model[part], strict=True)
        ]
        _row(f"  without sandboxed spawn and model call, rounds {label}", statistics.median(rest))


async def main(rounds: int) -> None:
    spawn = statistics.median(await bare_spawn(50))
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        boxed_times = await sandboxed_spawn(50, root)
        boxed = statistics.median(boxed_times) if boxed_times else None
        for protocol in ("openai", "anthropic"):
            await bench(protocol, rounds, root, spawn, boxed)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=200, help="tool round-trips in the turn")
    args = parser.parse_args()
    asyncio.run(main(max(args.rounds, 2 * WINDOW)))
