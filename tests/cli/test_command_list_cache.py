"""``shellpilot command list`` keeps its parse cache in the data dir (CLI in-process)."""

from __future__ import annotations

import contextlib
import gc
import os
import time
from pathlib import Path

from typer.testing import CliRunner

from shellpilot.cli.app import app
from shellpilot.command.cache import SETTLED_NS, cache_file


def _list(project: Path) -> tuple[int, str, str]:
    with contextlib.chdir(project):
        result = CliRunner().invoke(app, ["command", "list", "--dir", str(project)], catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_command_list_caches_and_lists_the_same(project: Path) -> None:
    folder = project / ".shellpilot" / "command"
    folder.mkdir(parents=True)
    for n in range(30):
        (folder / f"c{n}.md").write_text(f"---\ndescription: number {n}\n---\nDo $1 ({n})\n")
    (folder / "odd.md").write_text("---\ndescription: odd: one\n---\nbody\n")  # a load warning
    old = time.time_ns() - 10 * SETTLED_NS  # stored only once settled (see SETTLED_NS)
    for file in folder.iterdir():
        os.utime(file, ns=(old, old))
    first = _list(project)
    stored = cache_file(Path(os.environ["SHELLPILOT_DATA_DIR"]), project.resolve())
    assert first[0] == 0 and stored.exists()
    assert "/c29" in first[1] and "number 29" in first[1] and "odd.md" in first[2]
    stamp = stored.stat().st_mtime_ns
    assert _list(project) == first  # the same listing and warnings, from the cache
    assert stored.stat().st_mtime_ns == stamp  # nothing changed: not rewritten
    (folder / "c3.md").write_text("---\ndescription: changed\n---\nDo $1\n")
    assert "changed" in _list(project)[1]


def test_command_list_leaves_garbage_collection_on(project: Path) -> None:
    # The listing pauses the cyclic collector while it builds thousands of commands; a
    # process that goes on (this one, an editor's server) must get it back.
    folder = project / ".shellpilot" / "command"
    folder.mkdir(parents=True)
    (folder / "one.md").write_text("One $1\n")
    assert gc.isenabled()
    code, out, _ = _list(project)
    assert code == 0 and "/one" in out
    assert gc.isenabled()
    assert _list(project)[0] == 0 and gc.isenabled()  # also after a listing from the cache
