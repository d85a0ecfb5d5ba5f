"""Shared fixtures: every test gets its own data and config dirs and HOME under tmp_path.

HOME is a fresh empty folder so the user's own command files of other agents
(``~/.claude/commands``, ``~/.codex/prompts``, ...) never leak into a test; tests that
need git identity pass it in the environment (``GIT_AUTHOR_NAME`` ...).

Every test also runs with ``SHELLPILOT_TRUST_PROJECT=1`` (monkeypatch.setenv, so CLI
subprocesses inherit it): many tests write permission rules and MCP servers into PROJECT
config files, which an untrusted project would have dropped (config/trust.py). Tests of
the trust gate itself ``monkeypatch.delenv("SHELLPILOT_TRUST_PROJECT")``.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_dirs(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Point SHELLPILOT_DATA_DIR / SHELLPILOT_CONFIG_DIR / HOME at fresh temp dirs; trust projects."""
    base = tmp_path_factory.mktemp("sp-home")
    monkeypatch.setenv("SHELLPILOT_DATA_DIR", str(base / "data"))
    monkeypatch.setenv("SHELLPILOT_CONFIG_DIR", str(base / "config"))
    (base / "home").mkdir()
    monkeypatch.setenv("HOME", str(base / "home"))
    # other agents' folder overrides would point outside HOME
    overrides = ["CODEX_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME", "OPENCODE_CONFIG_DIR"]
    overrides.append("XDG_CONFIG_HOME")
    for name in overrides:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SHELLPILOT_TRUST_PROJECT", "1")


@pytest.fixture(autouse=True)
def _loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Block network connections to anything but loopback (no real provider calls)."""
    real_connect = socket.socket.connect

    def guarded(self: socket.socket, address: object) -> object:
        host = address[0] if isinstance(address, tuple) else None
        if (
            self.family in (socket.AF_INET, socket.AF_INET6)
            and host
            not in (
                "127.0.0.1",
                "localhost",
                "::1",
            )
            and not (isinstance(host, str) and host.startswith("127."))
        ):
            raise OSError(f"network blocked in tests: {address!r}")
        return real_connect(self, address)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", guarded)
    yield


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """An empty project directory."""
    path = tmp_path / "project"
    path.mkdir()
    return path
