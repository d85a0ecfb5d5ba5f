"""Precedence and collisions across every source, qualified names, lookup errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from shellpilot.command.registry import CommandRegistry
from shellpilot.config import load_config
from shellpilot.errors import CommandNotFound

SERVER = Path(__file__).parent.parent / "fixtures" / "mcp_prompt_server.py"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def user_dir(tmp_path: Path) -> Path:
    return tmp_path / "user-config"


def populate(project: Path, user_dir: Path) -> None:
    write(user_dir / "command" / "hello.md", "user hello")
    write(user_dir / "command" / "mine.md", "---\ndescription: only mine\n---\nmine $1")
    write(project / ".shellpilot" / "command" / "hello.md", "project hello")
    write(project / ".claude" / "commands" / "git" / "commit.md", "claude commit")
    write(project / ".claude" / "commands" / "tools" / "lint.md", "claude lint")
    write(project / ".opencode" / "command" / "git" / "commit.md", "opencode commit")
    write(project / ".gemini" / "commands" / "deploy.toml", 'prompt = "gemini deploy {{args}}"')
    write(project / ".shellpilot" / "skills" / "deploy" / "SKILL.md", "---\nname: deploy\n---\nskill deploy")
    write(project / ".claude" / "skills" / "charts" / "SKILL.md", "charts skill")
    write(
        project / "shellpilot.json",
        json.dumps(
            {"command": {"review": {"template": "my review $1"}, "hello": {"template": "json hello"}}}
        ),
    )


async def test_precedence_and_collisions(project: Path, user_dir: Path) -> None:
    populate(project, user_dir)
    registry = CommandRegistry(project, load_config(project, config_dir=user_dir))
    names = [c.name for c in await registry.list()]
    assert names == [
        "charts",
        "deploy",
        "git/commit",
        "git:commit",
        "hello",
        "init",
        "mine",
        "review",
        "skill:deploy",
        "tools:lint",
    ]
    assert (await registry.get("/review")).template == "my review $1"
    assert (await registry.get("hello")).template == "project hello"
    assert (await registry.get("git/commit")).template == "opencode commit"
    assert (await registry.get("deploy")).template == "gemini deploy {{args}}"
    skill = await registry.get("skill:deploy")
    assert skill.source == "skill" and str(skill.template).startswith("skill deploy\n\nBase directory")
    assert (await registry.get("charts")).source == "skill"
    assert (await registry.get("tools:lint")).template == "claude lint"  # Claude's dir:name
    assert (await registry.get("tools/lint")).template == "claude lint"  # and its alias
    assert (await registry.get("git:commit")).template == "claude commit"  # each format its own spelling
    config_file = project / "shellpilot.json"
    assert [str(w) for w in registry.warnings] == [
        f'command "review" from {config_file} overrides builtin',
        f'command "hello" from {config_file} overrides {user_dir / "command" / "hello.md"}',
        f'command "hello" from {project / ".shellpilot/command/hello.md"} overrides {config_file}',
        f'skill "deploy" from {project / ".shellpilot/skills/deploy/SKILL.md"} is shadowed by '
        f"{project / '.gemini/commands/deploy.toml'}; use /skill:deploy",
    ]


async def test_not_found_suggests_close_names(project: Path) -> None:
    registry = CommandRegistry(project, load_config(project))
    with pytest.raises(CommandNotFound) as err:
        await registry.get("revew")
    assert err.value.suggestions == ["review"]
    assert str(err.value) == 'Command not found: "revew". Did you mean: review?'


async def test_not_found_names_the_file_that_was_skipped_for_it(project: Path) -> None:
    bad = project / ".shellpilot" / "command" / "git" / "greet.md"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"---\ndescription: hi\n---\nHello \xff\n")
    registry = CommandRegistry(project, load_config(project))
    with pytest.raises(CommandNotFound) as err:
        await registry.get("git/greet")
    why = f"{bad}:4: skipped: not UTF-8 text (byte 0xff at column 7); save it as UTF-8"
    assert err.value.skipped == [why]
    assert str(err.value) == f'Command not found: "git/greet". A file for it was skipped: {why}.'
    with pytest.raises(CommandNotFound) as other:
        await registry.get("greeting")  # another name: the skipped file is not blamed
    assert other.value.skipped == []


async def test_cached_until_reload(project: Path) -> None:
    registry = CommandRegistry(project, load_config(project))
    assert [c.name for c in await registry.list()] == ["init", "review"]
    write(project / ".shellpilot" / "commands" / "new.md", "new")
    assert [c.name for c in await registry.list()] == ["init", "review"]
    registry.reload()
    assert [c.name for c in await registry.list()] == ["init", "new", "review"]


async def test_mcp_prompts_override_config_and_stay_qualified(project: Path) -> None:
    write(project / ".shellpilot" / "command" / "explain.md", "file explain")
    write(project / ".shellpilot" / "skills" / "hello" / "SKILL.md", "skill hello")
    config = {
        "mcp": {
            # A generous start-up limit: a loaded machine may take over 10 s to start Python + mcp.
            "fixture": {"type": "local", "command": [sys.executable, str(SERVER)], "timeout_ms": 60_000},
            "dead": {
                "type": "local",
                "command": [sys.executable, str(SERVER), "--crash"],
                "timeout_ms": 60_000,
            },
        }
    }
    write(project / "shellpilot.json", json.dumps(config))
    async with CommandRegistry(project, load_config(project)) as registry:
        names = [c.name for c in await registry.list()]
        assert names == ["explain", "fix", "hello", "init", "review", "skill:hello"]
        explain = await registry.get("explain")
        assert explain.source == "mcp" and explain.origin == "mcp:fixture" and explain.hints == ["$1"]
        assert await registry.get("fixture:explain") is explain
        assert (await registry.get("fixture:review")).source == "mcp"
        assert (await registry.get("review")).source == "mcp"  # MCP beats the builtin
        warnings = [str(w) for w in registry.warnings]
        assert any(w.startswith('command "explain" from mcp:fixture overrides ') for w in warnings)
        assert any(w.startswith('skill "hello" from ') and "shadowed by mcp:fixture" in w for w in warnings)
        dead = [w for w in warnings if w.startswith("mcp:dead: server did not start")]
        assert len(dead) == 1 and "fixture server refuses to start" in dead[0]


def test_user_folders_of_other_agents_follow_their_own_overrides(tmp_path: Path) -> None:
    """OpenCode scans ``$XDG_CONFIG_HOME/opencode``, ``~/.opencode`` and
    ``$OPENCODE_CONFIG_DIR``; Claude Code moves ``~/.claude`` to ``$CLAUDE_CONFIG_DIR``;
    Gemini CLI puts ``.gemini`` under ``$GEMINI_CLI_HOME``."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    write(home / ".opencode" / "command" / "dotted.md", "From ~/.opencode")
    write(tmp_path / "xdg" / "opencode" / "commands" / "xdg.md", "From XDG")
    write(tmp_path / "oc" / "command" / "extra.md", "From OPENCODE_CONFIG_DIR")
    write(tmp_path / "claude-alt" / "commands" / "ops" / "ship.md", "Ship it")
    write(tmp_path / "gem" / ".gemini" / "commands" / "hi.toml", 'prompt = "Hi"\n')
    write(home / ".claude" / "commands" / "ignored.md", "not read: CLAUDE_CONFIG_DIR moved it")
    env = {
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "OPENCODE_CONFIG_DIR": str(tmp_path / "oc"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "claude-alt"),
        "GEMINI_CLI_HOME": str(tmp_path / "gem"),
    }
    registry = CommandRegistry(project, load_config(project), home=home, env=env)
    names = {c.name: c for c in registry.list_files()}
    assert {"dotted", "xdg", "extra", "ops:ship", "hi"} <= set(names)
    assert "ignored" not in names
    assert names["dotted"].syntax == "opencode" and names["dotted"].template == "From ~/.opencode"
    bare = CommandRegistry(project, load_config(project), home=home, env={})
    assert {c.name for c in bare.list_files()} >= {"dotted", "ignored"}
