"""Benchmark: what the session store costs as sessions grow, measured as whole processes.

1. ``output``: store writes caused by one command printing SIZE bytes (default 100 MB) through
   ``SessionService.shell`` (coalesced live updates: the target is a handful of writes per
   second of running, independent of the output size), with the wall time and the
   runner's preview calls for comparison.
2. ``startup``: wall time of the whole process ``shellpilot shell true`` (median of RUNS),
   beside ``python -c pass`` and ``shellpilot --version`` for scale.
3. ``list``: ``shellpilot session list`` in a project with 5,000 sessions (and ``--all``).
4. ``export``: peak memory (ru_maxrss) of ``shellpilot session export`` and ``session show``
   for a session of 10 and of 10,000 messages (the target: the same for both).
5. ``turn``: ``shellpilot run --session`` on a 2,000-message session against a fresh session,
   one scripted model turn each (the target: about the same, apart from sending the bytes).

Usage: ``python benchmarks/session_store.py [--size BYTES] [--runs N] [SECTION...]``; no
section runs them all. The interpreter's bytecode cache is on for the child processes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from shellpilot.bus import Bus
from shellpilot.config import Config
from shellpilot.paths import store_path
from shellpilot.session.models import (
    AssistantMessage,
    Session,
    TextPart,
    ToolCompleted,
    ToolPart,
    UserMessage,
)
from shellpilot.session.run_state import RunState
from shellpilot.session.service import SessionService
from shellpilot.storage.store import SessionStore
from shellpilot.testing import ScriptedModelServer, Turn

SECTIONS = ("output", "startup", "list", "export", "turn")
OUTPUT_BYTES = 1500
"""Bytes of tool output in each seeded assistant message."""


async def _big_output(size: int, base: Path) -> None:
    data = base / "data"
    project = base / "project"
    project.mkdir()
    store = SessionStore(store_path(data))
    bus = Bus()
    service = SessionService(store, bus, Config(), data, RunState(bus, lease=store))
    session = service.create(project)
    previews = 0

    def count(_: str) -> None:
        nonlocal previews
        previews += 1

    before = store.writes
    started = time.perf_counter()
    _, part = await service.shell(session.id, f"yes {'a' * 99} | head -c {size}", on_output=count)
    wall = time.perf_counter() - started
    writes = store.writes - before
    meta = part.state.metadata  # type: ignore[union-attr]
    print(f"output: {meta['total_bytes'] / 1e6:.1f} MB in {wall:.2f} s (truncated={meta['truncated']})")
    print(f"store writes for the whole command: {writes} (of which setup+final: 6)")
    live = writes - 6  # user message, text part, assistant message, running part, final part+message
    print(f"live previews received: {previews}; coalesced live writes: {live}")
    print(f"writes per second of running: {writes / wall:.1f}")
    store.close()


def _median_wall(argv: list[str], runs: int, cwd: Path, env: dict[str, str]) -> float:
    return _median_wall_cpu(argv, runs, cwd, env)[0]


def _median_wall_cpu(argv: list[str], runs: int, cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Median wall time and median CPU time (user + system) of ``runs`` runs, in seconds;
    the CPU time is steadier on a busy machine."""
    times, cpu = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(
            argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        times.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(times), statistics.median(cpu)


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("shellpilot")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "shellpilot"]


def _env(data: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "SHELLPILOT_DATA_DIR": str(data), "SHELLPILOT_TRUST_PROJECT": "1"}


def _seed(store: SessionStore, session: Session, messages: int) -> None:
    """``messages`` messages: user text, then assistant text + a completed bash call, in turn."""
    store.put_session(session)
    output = ("x" * 99 + "\n") * (OUTPUT_BYTES // 100)
    for n in range(messages):
        if n % 2 == 0:
            user = UserMessage(session_id=session.id, model="fake/bench")
            store.put_message(user)
            store.put_part(TextPart(session_id=session.id, message_id=user.id, text=f"question {n}"))
            continue
        reply = AssistantMessage(session_id=session.id, model="fake/bench", completed_ms=1, finish="stop")
        store.put_message(reply)
        store.put_part(TextPart(session_id=session.id, message_id=reply.id, text=f"answer {n}"))
        state = ToolCompleted(
            input={"command": f"cat file{n}", "description": "read"}, output=output, start_ms=1
        )
        store.put_part(ToolPart(session_id=session.id, message_id=reply.id, tool="bash", state=state))


def _peak_kib(argv: list[str], cwd: Path, env: dict[str, str]) -> int:
    """Peak resident memory (KiB) of one run of ``argv``, output discarded."""
    probe = (
        "import resource, subprocess, sys\n"
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe, *argv], cwd=cwd, env=env, check=True, capture_output=True
    )
    return int(out.stdout.split()[-1])


def _listing(runs: int, base: Path, count: int = 5000) -> None:
    project, data = base / "list-project", base / "list-data"
    project.mkdir()
    store = SessionStore(store_path(data))
    for n in range(count):
        session = Session(project_dir=str(project), title=f"session {n}")
        store.put_session(session)
        store.put_message(UserMessage(session_id=session.id))
    store.close()
    env = _env(data)
    default = _median_wall_cpu([*_cli(), "session", "list", "--dir", str(project)], runs, project, env)
    everything = _median_wall_cpu([*_cli(), "session", "list", "--all"], max(runs // 4, 1), project, env)
    version = _median_wall_cpu([*_cli(), "--version"], runs, project, env)
    with SessionStore(store_path(data)) as opened:
        started = time.perf_counter()
        try:
            opened.list_sessions(str(project), top_level=True, limit=50)
            page = f"{(time.perf_counter() - started) * 1000:7.1f} ms"
        except TypeError:
            page = "   (no paging)"  # a store from before paging
        started = time.perf_counter()
        opened.list_sessions(str(project))
        whole = time.perf_counter() - started
    rows = [
        (f"session list, {count} sessions (default)", default),
        (f"session list --all, {count} sessions", everything),
        ("shellpilot --version, for scale", version),
    ]
    for label, (wall, cpu) in rows:
        print(f"{label:<42} median {wall * 1000:7.0f} ms wall, {cpu * 1000:7.0f} ms CPU (whole process)")
    label = f"store: the 50 newest / all {count}"
    print(f"{label:<42} {page} / {whole * 1000:.1f} ms (in-process)")


def _export_memory(base: Path) -> None:
    data = base / "export-data"
    store = SessionStore(store_path(data))
    ids: dict[int, str] = {}
    for size in (10, 10_000):
        session = Session(project_dir=str(base), title=f"{size} messages")
        _seed(store, session, size)
        ids[size] = session.id
    store.close()
    env = _env(data)
    peaks: dict[tuple[str, int], int] = {}
    for verb in ("export", "show"):
        for size, session_id in ids.items():
            peaks[verb, size] = _peak_kib([*_cli(), "session", verb, session_id], base, env)
    for verb in ("export", "show"):
        small, big = peaks[verb, 10], peaks[verb, 10_000]
        print(
            f"session {verb:<6} peak memory: 10 messages {small / 1024:6.1f} MiB, "
            f"10,000 messages {big / 1024:6.1f} MiB (ratio {big / small:.2f})"
        )


def _next_turn(runs: int, base: Path, messages: int = 2000) -> None:
    project, data = base / "turn-project", base / "turn-data"
    project.mkdir()
    store = SessionStore(store_path(data))
    long = Session(project_dir=str(project), title="long")
    _seed(store, long, messages)
    store.close()
    env = _env(data)
    with ScriptedModelServer() as server:
        config = {"provider": {"fake": server.provider_config("openai")}, "model": "fake/bench"}
        (project / "shellpilot.json").write_text(json.dumps(config))
        cli = [*_cli(), "run", "--dir", str(project)]

        def timed(extra: list[str]) -> tuple[float, float]:
            server.add(Turn(text="ok"))
            return _median_wall_cpu([*cli, *extra, "next question"], 1, project, env)

        timed([])  # warm the bytecode cache and the page cache
        pairs = [(timed([]), timed(["--session", long.id])) for _ in range(runs)]  # interleaved
    for kind, label in ((0, "wall"), (1, "CPU")):
        fresh = statistics.median(a[kind] for a, _ in pairs)
        grown = statistics.median(b[kind] for _, b in pairs)
        ratio = statistics.median(b[kind] / a[kind] for a, b in pairs)
        print(f"run, fresh session:             median {fresh * 1000:7.0f} ms {label} (whole process)")
        grown_label = f"run --session, {messages} messages:"
        print(f"{grown_label:<32} median {grown * 1000:7.0f} ms {label} (ratio {ratio:.2f})")


def _startup(runs: int, base: Path) -> None:
    project = base / "startup"
    project.mkdir()
    env = {**os.environ, "SHELLPILOT_DATA_DIR": str(base / "startup-data")}
    exe = Path(sys.executable).with_name("shellpilot")
    cli = [str(exe)] if exe.exists() else [sys.executable, "-m", "shellpilot"]
    bare = _median_wall([sys.executable, "-c", "pass"], runs, project, env)
    version = _median_wall([*cli, "--version"], runs, project, env)
    shell = _median_wall([*cli, "shell", "true"], runs, project, env)
    print(f"python -c pass:         median {bare * 1000:.0f} ms")
    print(f"shellpilot --version:   median {version * 1000:.0f} ms")
    print(f"shellpilot shell true:  median {shell * 1000:.0f} ms of {runs} runs (whole process)")
    print(f"ratio shell true / --version: {shell / version:.2f}; / bare python: {shell / bare:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("sections", nargs="*", choices=[*SECTIONS, []], help="what to run (default: all)")
    parser.add_argument("--size", type=int, default=100 * 1000 * 1000, help="bytes of output")
    parser.add_argument("--runs", type=int, default=10, help="runs of each whole-process timing")
    args = parser.parse_args()
    chosen = args.sections or SECTIONS
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        if "output" in chosen:
            asyncio.run(_big_output(args.size, base))
        if "startup" in chosen:
            _startup(args.runs, base)
        if "list" in chosen:
            _listing(args.runs, base)
        if "export" in chosen:
            _export_memory(base)
        if "turn" in chosen:
            _next_turn(args.runs, base)


if __name__ == "__main__":
    main()
