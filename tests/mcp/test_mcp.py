"""The MCP client manager against a REAL server written with the official SDK."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from shellpilot.command.model import PromptArgumentSpec
from shellpilot.command.registry import CommandRegistry
from shellpilot.command.template import ExpandContext, expand
from shellpilot.config.model import Config, McpLocalConfig, McpRemoteConfig
from shellpilot.errors import CommandArgumentError, TemplateError
from shellpilot.mcp import McpManager, bind_arguments
from shellpilot.tool.base import allow_all

SERVER = Path(__file__).parent.parent / "fixtures" / "mcp_prompt_server.py"
LOCAL = McpLocalConfig(command=[sys.executable, str(SERVER)])

SPECS = [
    PromptArgumentSpec(name="repo", required=True),
    PromptArgumentSpec(name="issue"),
    PromptArgumentSpec(name="notes"),
]


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("r", {"repo": "r"}),
        ('r "two words"', {"repo": "r", "issue": "two words"}),
        ("r i n1 n2  n3", {"repo": "r", "issue": "i", "notes": "n1 n2 n3"}),  # the last takes the rest
    ],
)
def test_bind_arguments(raw: str, expected: dict[str, str]) -> None:
    assert bind_arguments("fix", SPECS, raw) == expected


def test_missing_required_argument_names_it() -> None:
    with pytest.raises(CommandArgumentError) as err:
        bind_arguments("fix", SPECS, "  ")
    assert err.value.argument == "repo"
    assert str(err.value) == '/fix: missing required argument "repo" (usage: /fix <repo> <issue> <notes>)'


async def test_lists_and_fetches_prompts() -> None:
    async with McpManager({"fx": LOCAL}) as manager:
        prompts = {p.name: p for p in await manager.prompts()}
        assert [a.name for a in prompts["hello"].arguments] == []
        assert [(a.name, a.required) for a in prompts["explain"].arguments] == [("topic", True)]
        assert [(a.name, a.required) for a in prompts["fix"].arguments] == [
            ("repo", True),
            ("issue", False),
            ("notes", False),
        ]
        assert prompts["fix"].description == "Fix an issue in a repo"
        text = await manager.get_prompt("fx", "fix", {"repo": "a", "issue": "b"})
        assert text == "Repository: a\nIssue: b\nNotes: none"
        with pytest.raises(TemplateError) as err:
            await manager.get_prompt("fx", "nope", {})
        assert err.value.origin == "mcp:fx"
    assert manager.warnings == []


async def test_expand_mcp_prompts_through_the_registry(project: Path) -> None:
    config = Config.model_validate({"mcp": {"fx": LOCAL.model_dump()}})
    ctx = ExpandContext(project_dir=project, ask=allow_all)
    async with CommandRegistry(project, config) as registry:
        fix = await registry.get("fix")
        assert fix.hints == ["$1", "$2", "$3"] and [a.name for a in fix.arguments] == [
            "repo",
            "issue",
            "notes",
        ]
        out = await expand(fix, 'shellpilot "crash on start" see logs', ctx)
        assert out.text == "Repository: shellpilot\nIssue: crash on start\nNotes: see logs"
        assert (
            await expand(await registry.get("hello"), "ignored", ctx)
        ).text == "Hello from the fixture server."
        explain = await registry.get("fx:explain")
        assert (
            await expand(explain, "'$1 and $ARGUMENTS'", ctx)
        ).text == "Explain $1 and $ARGUMENTS in simple terms."
        with pytest.raises(CommandArgumentError) as err:
            await expand(explain, "", ctx)
        assert err.value.argument == "topic"


async def test_server_that_hangs_times_out_as_a_warning(tmp_path: Path) -> None:
    marker = tmp_path / "pid"
    hang = McpLocalConfig(
        command=[
            sys.executable,
            "-c",
            f"import os,time; open({str(marker)!r},'w').write(str(os.getpid())); time.sleep(60)",
        ],
        timeout_ms=700,
    )
    missing = McpLocalConfig(command=[str(tmp_path / "no-such-program")])
    started = time.monotonic()
    async with McpManager({"hang": hang, "missing": missing, "fx": LOCAL}) as manager:
        names = sorted(p.name for p in await manager.prompts())
    assert time.monotonic() - started < 20
    assert names == ["explain", "fix", "hello", "review"]
    messages = sorted(str(w) for w in manager.warnings)
    assert messages[0] == "mcp:hang: server did not start: did not start within 700 ms"
    assert messages[1].startswith("mcp:missing: server did not start:")
    pid = int(marker.read_text())
    for _ in range(50):  # the child is gone once the manager closed
        try:
            import os

            os.kill(pid, 0)
        except ProcessLookupError:
            break
        await asyncio.sleep(0.1)
    else:
        pytest.fail("the hanging server was left running")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def http_server() -> Iterator[str]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(10)


async def test_remote_streamable_http(http_server: str) -> None:
    remote = McpRemoteConfig(type="remote", url=http_server, headers={"X-Test": "1"})
    async with McpManager({"web": remote}) as manager:
        names = sorted(p.name for p in await manager.prompts())
        assert names == ["explain", "fix", "hello", "review"]
        assert await manager.get_prompt("web", "explain", {"topic": "tcp"}) == "Explain tcp in simple terms."
    assert manager.warnings == []
