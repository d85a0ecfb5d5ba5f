"""``session list`` pages (newest 50 by default, ``--limit``, ``--all``); ``show`` and ``export``
stream a long session: the CLI in-process (typer's CliRunner) on a real store."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from shellpilot.cli.app import app
from shellpilot.paths import store_path
from shellpilot.session.models import AssistantMessage, Session, TextPart, UserMessage
from shellpilot.storage.store import SessionStore


def _sp(*args: str, cwd: Path) -> Result:
    """``shellpilot ARGS`` run in this process from ``cwd``."""
    with contextlib.chdir(cwd):
        return CliRunner().invoke(app, list(args), catch_exceptions=False)


def _store() -> SessionStore:
    return SessionStore(store_path(Path(os.environ["SHELLPILOT_DATA_DIR"])))


def _ids(listing: str) -> list[str]:
    return [
        word.strip("│ ") for line in listing.splitlines() for word in line.split() if word.startswith("ses_")
    ]


def test_list_pages_newest_first_and_all_shows_everything(project: Path, tmp_path: Path) -> None:
    made: list[Session] = []
    with _store() as store:
        for n in range(55):
            session = Session(project_dir=str(project.resolve()), title=f"s{n}")
            store.put_session(session)
            store.put_message(UserMessage(session_id=session.id))  # each write makes it the newest
            made.append(session)
        child = Session(project_dir=str(project.resolve()), title="child", parent_id=made[0].id)
        store.put_session(child.model_copy(update={"updated_ms": 0}))
        other = Session(project_dir=str(tmp_path), title="elsewhere", updated_ms=0)
        store.put_session(other)
    newest_first = [s.id for s in reversed(made)]

    listed = _sp("session", "list", cwd=project)
    assert listed.exit_code == 0, listed.stderr
    assert _ids(listed.stdout) == newest_first[:50]
    assert "50 most recent of 55" in listed.stderr and "--all" in listed.stderr

    limited = _sp("session", "list", "--limit", "3", cwd=project)
    assert _ids(limited.stdout) == newest_first[:3] and "3 most recent of 55" in limited.stderr

    everything = _sp("session", "list", "--all", cwd=project)
    assert everything.exit_code == 0, everything.stderr
    assert set(_ids(everything.stdout)) >= {*newest_first, child.id, other.id}
    assert everything.stderr == ""

    capped = _sp("session", "list", "--all", "--limit", "2", cwd=project)
    assert len(set(_ids(capped.stdout)) - {made[0].id}) == 2  # a parent column may repeat an id

    bad = _sp("session", "list", "--limit", "0", cwd=project)
    assert bad.exit_code != 0 and "--limit" in bad.stderr


def test_show_and_export_a_long_session(project: Path) -> None:
    with _store() as store:
        session = Session(project_dir=str(project.resolve()), title="long")
        store.put_session(session)
        for n in range(250):  # more than one read batch
            message = (UserMessage if n % 2 == 0 else AssistantMessage)(session_id=session.id)
            store.put_message(message)
            store.put_part(TextPart(session_id=session.id, message_id=message.id, text=f"line {n}"))
        expected = store.messages(session.id)

    shown = _sp("session", "show", session.id, cwd=project)
    assert shown.exit_code == 0, shown.stderr
    positions = [shown.stdout.index(f"line {n}\n") for n in range(250)]
    assert positions == sorted(positions)

    exported = _sp("session", "export", session.id, cwd=project)
    assert exported.exit_code == 0, exported.stderr
    doc = json.loads(exported.stdout)
    assert doc["session"]["id"] == session.id
    assert doc["messages"] == [item.model_dump(mode="json") for item in expected]

    missing = _sp("session", "export", "ses_missing", cwd=project)
    assert missing.exit_code != 0 and missing.stdout == "" and "ses_missing" in missing.stderr
