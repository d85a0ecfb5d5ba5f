"""Shell-block planning: which commands of a block count as read-only (no prompt)."""

from __future__ import annotations

from pathlib import Path

from shellpilot.command.shellblocks import plan_block
from shellpilot.paths import data_dir, tool_output_dir


def _read_only(command: str, project: Path) -> list[str]:
    plan = plan_block(command, project, output_dir=tool_output_dir(data_dir()))
    assert plan is not None
    return list(plan.read_only)


def test_spill_files_are_readable_but_other_data_files_are_not(project: Path) -> None:
    folder = tool_output_dir(data_dir())
    folder.mkdir(parents=True)
    (folder / "tool_abc").write_text("x\n")
    (data_dir() / "other").write_text("x\n")
    for command in (
        f"grep -n x {folder}/tool_abc",
        f"sed -n '1,2p' {folder}/tool_abc",
        f"tail -n 5 {folder}/tool_abc",
    ):
        # (a pattern is the words as bash reads them: `'1,2p'` is shown as `1,2p`)
        assert _read_only(command, project) == [command.replace("'", "")]
    other = f"grep -n x {data_dir()}/other"
    assert _read_only(other, project) == []


def test_brace_and_glob_reads_outside_are_not_read_only(project: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("TOPSECRET\n")
    (project / "README").write_text("x\n")
    for command in (f"cat {{{tmp_path}/secret.txt,README}}", "cat .?/secret.txt", "grep -R TOPSECRET ."):
        assert _read_only(command, project) == [], command
    assert _read_only("cat README", project) == ["cat README"]
