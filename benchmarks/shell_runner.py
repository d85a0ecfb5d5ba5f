"""Benchmark: what the shell tool costs over a bare subprocess, measured side by side.

1. Spawn overhead: median wall time of N runs of ``true`` through ``ShellTool.execute``
   (permission allow-all, sandbox off: the tool's own cost) / N runs of
   ``asyncio.create_subprocess_exec(shell, "-c", "true")``. Target <= 1.3.
2. Throughput: SIZE bytes of ~100-byte lines through the runner (MB/s) / the same command
   piped to ``cat > /dev/null``. Target >= 0.5. Also: peak RSS of this process < 150 MB,
   and sha256 of the spill file == sha256 of the command's output. Because the runner must
   write every byte to the spill file and ``cat > /dev/null`` writes nothing, the same
   command piped to ``cat > <file in the same folder>`` is printed too (the same work).
   Each throughput side runs ``--rounds`` times interleaved; the best round counts (the
   machine is shared, so the best round is the least disturbed one).
3. The sandbox's cost: median wall time of N interleaved runs of ``true`` through the runner
   unsandboxed, in the read-only and in the workspace-write profile (bubblewrap); the
   difference per command, target <= 5 ms. And the throughput of the runner inside the
   workspace-write sandbox / ``cat > /dev/null``, target >= 0.5.

Usage: ``python benchmarks/shell_runner.py [--size BYTES] [--runs N] [--rounds R]``
(defaults: 1 GiB, 200 spawns, 3 rounds).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from shellpilot.config import Config, SandboxConfig
from shellpilot.process.bwrap import find_mechanism
from shellpilot.process.detect import detect_shell
from shellpilot.process.runner import run
from shellpilot.process.sandbox import SandboxProfile, read_only_profile, workspace_profile
from shellpilot.tool import ToolContext, allow_all
from shellpilot.tool.shell import ShellParams, ShellTool


def _producer(size: int) -> str:
    return f"yes {'a' * 99} | head -c {size}"


async def _spawn(runs: int, data: Path, project: Path) -> tuple[float, float]:
    config = Config.model_validate({"sandbox": {"mode": "off"}})
    tool = ShellTool(config, data)
    shell = tool.shell.path
    ctx = ToolContext(session_id="ses_bench", call_id="call_bench", project_dir=project, ask=allow_all)
    params = ShellParams(command="true", description="Does nothing")

    async def bare() -> None:
        proc = await asyncio.create_subprocess_exec(shell, "-c", "true")
        await proc.wait()

    async def ours() -> None:
        result = await tool.execute(params, ctx)
        assert result.metadata["exit"] == 0, result.output

    for _ in range(10):  # warm up: parser load, first spawn
        await bare()
        await ours()
    bare_times: list[float] = []
    our_times: list[float] = []
    for _ in range(runs):  # interleaved, so machine noise hits both alike
        start = time.perf_counter()
        await bare()
        bare_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        await ours()
        our_times.append(time.perf_counter() - start)
    return statistics.median(bare_times), statistics.median(our_times)


def _baseline_throughput(shell: str, size: int, target: str) -> float:
    start = time.perf_counter()
    subprocess.run([shell, "-c", f"{_producer(size)} | cat > {target}"], check=True)
    return time.perf_counter() - start


async def _runner_throughput(size: int, folder: Path) -> tuple[float, str | None, int]:
    start = time.perf_counter()
    result = await run(_producer(size), cwd=folder, output_dir=folder, call_id="bench", timeout_ms=600_000)
    elapsed = time.perf_counter() - start
    assert result.exit_code == 0, result.output[-500:]
    return elapsed, result.output_path, result.total_bytes


def _profiles(root: Path) -> dict[str, SandboxProfile | None]:
    project, outputs = root / "project", root / "data" / "tool-output"
    return {
        "unsandboxed": None,
        "read-only": read_only_profile(project, readable=(outputs,), required=True),
        "workspace-write": workspace_profile(
            project, output_dir=outputs, tmp_dir=root / "session-tmp", settings=SandboxConfig(required=True)
        ),
    }


async def _sandbox_spawn(runs: int, root: Path) -> dict[str, float]:
    profiles = _profiles(root)
    outputs = root / "data" / "tool-output"
    times: dict[str, list[float]] = {name: [] for name in profiles}

    async def once(name: str) -> float:
        start = time.perf_counter()
        result = await run("true", cwd=root / "project", output_dir=outputs, sandbox=profiles[name])
        elapsed = time.perf_counter() - start
        assert result.exit_code == 0 and result.sandbox == (None if name == "unsandboxed" else name), result
        return elapsed

    for _ in range(10):  # warm up: the bwrap probe, page cache
        for name in profiles:
            await once(name)
    for _ in range(runs):  # interleaved, so machine noise hits all alike
        for name in profiles:
            times[name].append(await once(name))
    return {name: statistics.median(values) for name, values in times.items()}


async def _sandboxed_throughput(size: int, root: Path) -> float:
    profile = _profiles(root)["workspace-write"]
    start = time.perf_counter()
    result = await run(
        _producer(size),
        cwd=root / "project",
        output_dir=root,
        call_id="bench-sb",
        timeout_ms=600_000,
        sandbox=profile,
    )
    elapsed = time.perf_counter() - start
    assert result.exit_code == 0 and result.total_bytes == size, result.output[-500:]
    assert result.output_path is not None
    Path(result.output_path).unlink()
    return elapsed


def _rates(mb: float, seconds: list[float]) -> str:
    return "[" + ", ".join(f"{mb / s:.0f}" for s in seconds) + "]"


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _sha256_command(shell: str, size: int) -> str:
    proc = subprocess.Popen([shell, "-c", _producer(size)], stdout=subprocess.PIPE)
    assert proc.stdout is not None
    digest = hashlib.sha256()
    while chunk := proc.stdout.read(1 << 20):
        digest.update(chunk)
    proc.wait()
    return digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--size", type=int, default=1 << 30, help="bytes of output (default 1 GiB)")
    parser.add_argument("--runs", type=int, default=200, help="spawns per side (default 200)")
    parser.add_argument("--rounds", type=int, default=3, help="throughput rounds per side (default 3)")
    args = parser.parse_args()
    shell = detect_shell().path
    with tempfile.TemporaryDirectory(prefix="sp-bench-") as tmp:
        root = Path(tmp)
        (root / "project").mkdir()
        bare, ours = asyncio.run(_spawn(args.runs, root / "data", root / "project"))
        print(f"shell: {shell}")
        print(f"spawn  bare create_subprocess_exec: median {bare * 1000:.2f} ms over {args.runs}")
        print(f"spawn  ShellTool.execute(true):     median {ours * 1000:.2f} ms over {args.runs}")
        ratio = ours / bare
        print(f"spawn  ratio {ratio:.2f} (target <= 1.3) {'OK' if ratio <= 1.3 else 'MISSED'}")

        null_s: list[float] = []
        file_s: list[float] = []
        ours_s: list[float] = []
        spill: str | None = None
        for _ in range(args.rounds):
            null_s.append(_baseline_throughput(shell, args.size, "/dev/null"))
            file_s.append(_baseline_throughput(shell, args.size, str(root / "cat-copy")))
            (root / "cat-copy").unlink()
            if spill is not None:
                Path(spill).unlink()
            elapsed, spill, total = asyncio.run(_runner_throughput(args.size, root))
            assert total == args.size
            ours_s.append(elapsed)
        mb = args.size / 1e6
        print(f"output {args.size} bytes of 100-byte lines, best of {args.rounds} interleaved rounds")
        print(f"throughput cat > /dev/null:     {mb / min(null_s):8.1f} MB/s  rounds {_rates(mb, null_s)}")
        print(f"throughput cat > file (same fs): {mb / min(file_s):8.1f} MB/s  rounds {_rates(mb, file_s)}")
        print(f"throughput runner + spill file: {mb / min(ours_s):8.1f} MB/s  rounds {_rates(mb, ours_s)}")
        tp = min(null_s) / min(ours_s)
        print(
            f"throughput ratio vs cat > /dev/null {tp:.2f} (target >= 0.5) {'OK' if tp >= 0.5 else 'MISSED'}"
        )
        print(f"throughput ratio vs cat > file      {min(file_s) / min(ours_s):.2f} (same work)")
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"peak RSS {peak_mb:.1f} MB (target < 150) {'OK' if peak_mb < 150 else 'MISSED'}")
        assert spill is not None
        same = _sha256_file(Path(spill)) == _sha256_command(shell, args.size)
        print(f"spill file sha256 equals command output sha256: {same}")

        mechanism = find_mechanism()
        if not mechanism.works:
            print(f"sandbox: not measured, bwrap cannot run here: {mechanism.reason}")
            return
        print(f"sandbox: {mechanism.path} ({mechanism.version})")
        medians = asyncio.run(_sandbox_spawn(args.runs, root))
        base = medians["unsandboxed"]
        for name, value in medians.items():
            print(f"sandbox spawn  run(true) {name:16} median {value * 1000:.2f} ms over {args.runs}")
        for name in ("read-only", "workspace-write"):
            cost = (medians[name] - base) * 1000
            verdict = "OK" if cost <= 5 else "MISSED"
            print(f"sandbox cost   {name:16} {cost:+.2f} ms per command (target <= 5 ms) {verdict}")
        boxed = [asyncio.run(_sandboxed_throughput(args.size, root)) for _ in range(args.rounds)]
        print(f"throughput runner in sandbox:   {mb / min(boxed):8.1f} MB/s  rounds {_rates(mb, boxed)}")
        ratio = min(null_s) / min(boxed)
        print(
            f"sandbox throughput ratio vs cat > /dev/null {ratio:.2f} (target >= 0.5) "
            f"{'OK' if ratio >= 0.5 else 'MISSED'}"
        )


if __name__ == "__main__":
    main()
