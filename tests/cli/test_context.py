"""open_context: what a CLI command gets, wired together (store, run state, permissions, retention)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from shellpilot.cli.context import open_context
from shellpilot.errors import PermissionRejected, UsageError
from shellpilot.permission import Rule
from shellpilot.permission.request import AskRequest


async def test_cancel_rejects_the_sessions_pending_permission_requests(project: Path, tmp_path: Path) -> None:
    with open_context(directory=project, data_dir=tmp_path / "data") as ctx:
        session = ctx.sessions.create(ctx.project_dir)
        rules = [Rule("bash", "*", "ask", "test")]
        # An asking task that RunState does not own: only the permission hook can settle it.
        task = asyncio.create_task(
            ctx.permissions.ask(
                AskRequest("bash", ["rm -rf build"], ["rm *"]), session_id=session.id, ruleset=rules
            )
        )
        for _ in range(100):
            if ctx.permissions.pending(session.id):
                break
            await asyncio.sleep(0.01)
        assert len(ctx.permissions.pending(session.id)) == 1
        await ctx.run_state.cancel(session.id)
        with pytest.raises(PermissionRejected):
            await asyncio.wait_for(task, 5)
        assert ctx.permissions.pending(session.id) == []
        assert not ctx.run_state.busy(session.id)


def test_open_context_resolves_dirs_and_cleans_old_spill_files(project: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    spill = data / "tool-output"
    spill.mkdir(parents=True)
    old, fresh = spill / "call_old", spill / "call_fresh"
    old.write_text("old")
    fresh.write_text("fresh")
    long_ago = time.time() - 30 * 86_400
    os.utime(old, (long_ago, long_ago))
    with open_context(directory=project, data_dir=data) as ctx:
        assert ctx.project_dir == project.resolve()
        assert ctx.store.path == data / "shellpilot.db"
    assert not old.exists() and fresh.exists()
    with pytest.raises(UsageError, match="Not a directory"):
        open_context(directory=project / "missing", data_dir=data)
