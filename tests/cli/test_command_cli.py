"""``shellpilot command list|show|render`` driven through the real CLI app."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shellpilot.cli.app import app
from shellpilot.command.syntax import describe
from shellpilot.permission.request import AskRequest

runner = CliRunner()


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def test_list_shows_commands_and_warnings(project: Path) -> None:
    write(project / ".claude" / "commands" / "fix.md", "---\ndescription: Fix it\n---\nFix $1 $2")
    write(project / ".shellpilot" / "command" / "broken.md", "---\ndescription: open\n")
    result = runner.invoke(app, ["command", "list", "--dir", str(project)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["/fix", "command", "Fix", "it", "[$1", "$2]"]
    assert lines[1].strip() == str(project / ".claude" / "commands" / "fix.md")
    assert [line.split()[0] for line in lines[::2]] == ["/fix", "/init", "/review"]
    broken = project / ".shellpilot" / "command" / "broken.md"
    assert f"warning: {broken}:1: skipped: frontmatter starts with --- but never ends" in result.stderr


def test_list_json(project: Path) -> None:
    write(project / ".gemini" / "commands" / "g" / "x.toml", 'prompt = "do {{args}}"\ndescription = "gem"')
    result = runner.invoke(app, ["command", "list", "--json", "--dir", str(project)])
    data = json.loads(result.stdout)
    assert data["warnings"] == []
    by_name = {c["name"]: c for c in data["commands"]}
    assert set(by_name) == {"g:x", "init", "review"}  # Gemini's own dir:name spelling
    assert by_name["g:x"]["hints"] == ["{{args}}"] and by_name["g:x"]["aliases"] == ["g/x"]
    assert by_name["review"]["subtask"] is True and by_name["review"]["origin"] == "builtin"


def test_show(project: Path) -> None:
    write(
        project / ".claude" / "commands" / "ship.md",
        "---\nallowed-tools: Bash(git push:*)\nargument-hint: [branch]\n---\nPush $1 now",
    )
    result = runner.invoke(app, ["command", "show", "/ship", "--dir", str(project)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "name: ship",
        "source: command",
        f"origin: {project / '.claude' / 'commands' / 'ship.md'}",
        "description: Push $1 now",
        "argument_hint: [branch]",
        f"rules: {describe('claude-legacy')}",
        "hints: $1",
        "allowed-tools (allowed while this command's turn runs): Bash(git push:*) -> bash 'git push *'",
        "",
        "Push $1 now",
    ]


def test_render_review_on_a_real_git_repo(project: Path) -> None:
    git(project, "init", "-q")
    write(project / "app.py", "print('v1')\n")
    git(project, "add", "app.py")
    git(project, "commit", "-qm", "first")
    write(project / "app.py", "print('v2')\n")
    write(project / "new.txt", "untracked\n")
    result = runner.invoke(app, ["command", "render", "review", "--dir", str(project)])
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith("You are a code reviewer.")
    assert "Input: \n" in text
    assert "(`git status --short`):\n\n M app.py\n?? new.txt\n\n## Determining what to review" in text
    assert "git diff --cached" in text and "!`" not in text
    assert "# subtask: yes" in result.stderr


def test_render_with_arguments_and_attachments(project: Path) -> None:
    write(project / "src" / "main.py", "x = 1\n")
    write(project / ".shellpilot" / "command" / "look.md", "---\nagent: plan\n---\nLook at @$1 for $2")
    result = runner.invoke(
        app, ["command", "render", "look", "src/main.py", "the bug", "--dir", str(project)]
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        "Look at @src/main.py for the bug",
        "",
        "--- attachments ---",
        f"file: src/main.py (text/x-python) {project / 'src' / 'main.py'}",
    ]
    assert "# subtask: no, agent: plan" in result.stderr


def test_render_blocks_follow_rules_and_flags(project: Path) -> None:
    write(project / ".shellpilot" / "command" / "mk.md", "Made: !`touch made && echo done`")
    args = ["command", "render", "mk", "--dir", str(project)]

    result = runner.invoke(app, args)  # not a TTY, no --yes: the ask is rejected
    reason = "not allowed without a terminal (pass --yes or --allow 'touch *')"
    assert result.stdout.startswith(f"Made: [shell block not run: {reason}]")
    assert f"warning: shell block `touch made && echo done` not run: {reason}" in result.stderr
    assert result.exit_code == 4  # the prompt is printed, but scripts notice
    assert not (project / "made").exists()

    result = runner.invoke(app, [*args, "--no-shell"])
    assert result.stdout.splitlines() == [
        "Made: !`touch made && echo done`",
        "",
        "--- shell blocks (not run) ---",
        "!`touch made && echo done` -> ask (touch made)",
    ]

    result = runner.invoke(app, [*args, "--allow", "touch *"])
    assert result.stdout.splitlines() == ["Made: done"] and (project / "made").exists()
    assert result.exit_code == 0

    (project / "made").unlink()
    write(project / "shellpilot.json", json.dumps({"permission": {"bash": {"touch *": "deny"}}}))
    result = runner.invoke(app, [*args, "--yes"])
    assert result.stdout.startswith('Made: [shell block not run: bash denied by rule for "touch made"]')
    assert result.exit_code == 4
    assert not (project / "made").exists()


def test_unknown_command_is_a_usage_error(project: Path) -> None:
    done = runner.invoke(app, ["command", "render", "revew", "--dir", str(project)])
    assert done.exit_code == 2
    assert done.stderr == 'error: Command not found: "revew". Did you mean: review?\n'


def test_render_splits_argv_like_run(project: Path) -> None:
    write(project / ".shellpilot" / "command" / "ph.md", "1=[$1] 2=[$2] all=[$ARGUMENTS]")
    result = runner.invoke(app, ["command", "render", "ph", "a b", "it's", "--dir", str(project)])
    assert result.stdout.splitlines() == ['1=[a b] 2=[it\'s] all=["a b" "it\'s"]']


async def test_terminal_ask_puts_open_asks_to_the_person(project: Path, tmp_path: Path) -> None:
    from shellpilot.bus import Bus
    from shellpilot.cli.command_cmd import TerminalAsk
    from shellpilot.errors import PermissionDenied, PermissionRejected
    from shellpilot.permission import PermissionService, Rule, Verdict

    asked: list[tuple[str, list[str]]] = []
    answers = [True, False]

    def person(request: AskRequest, verdict: Verdict) -> bool:
        asked.append((request.permission, list(verdict.needs)))
        return answers.pop(0)

    service = PermissionService(Bus(), tmp_path / "grants.json", project_dir=project)
    rules = [Rule("bash", "*", "ask", "default"), Rule("bash", "rm *", "deny", "config")]
    ask = TerminalAsk(service, rules, yes=False, confirm=person)
    await ask(AskRequest("bash", ["touch a"], ["touch *"]))
    with pytest.raises(PermissionRejected):
        await ask(AskRequest("bash", ["touch b"], ["touch *"]))
    with pytest.raises(PermissionDenied):
        await ask(AskRequest("bash", ["rm x"], ["rm *"]))
    await ask(AskRequest("bash", ["ls"], ["ls *"], read_only=["ls"]))  # read-only: no question
    assert asked == [("bash", ["touch a"]), ("bash", ["touch b"])]


def test_render_outside_reference_needs_permission(project: Path) -> None:
    secret = write(project.parent / "secret.txt", "s3cret\n")
    write(project / ".shellpilot" / "command" / "leak.md", "Read @../secret.txt and @/etc/hostname")
    args = ["command", "render", "leak", "--dir", str(project)]
    result = runner.invoke(app, args)  # not a TTY, no --yes: nothing outside is read
    assert result.stdout.splitlines() == ["Read @../secret.txt and @/etc/hostname"]
    assert (
        f"@../secret.txt: outside the project ({secret}), not attached: external_directory" in result.stderr
    )
    result = runner.invoke(app, [*args, "--yes"])
    assert f"file: ../secret.txt (text/plain) {secret}" in result.stdout.splitlines()
    result = runner.invoke(app, [*args, "--allow", f"{project.parent}/*"])  # that folder only
    assert f"file: ../secret.txt (text/plain) {secret}" in result.stdout.splitlines()
    assert "@/etc/hostname: outside the project" in result.stderr


def test_an_unanalysable_block_is_not_allowed_by_a_specific_rule(project: Path) -> None:
    """Tester's hole: a block with a stray quote (scan ``unknown``) was matched as one
    string against ``"git status *": "allow"``; now it is asked, and rejected without a TTY."""
    write(project / "shellpilot.json", json.dumps({"permission": {"bash": {"git status *": "allow"}}}))
    write(project / ".shellpilot" / "command" / "q4.md", "Status: !`git status --short\ntouch Q4\n'`")
    result = runner.invoke(app, ["command", "render", "q4", "--dir", str(project)])
    assert not (project / "Q4").exists()
    assert result.stdout.startswith("Status: [shell block not run: ")
    assert "not allowed without a terminal" in result.stdout + result.stderr


def test_render_refuses_a_block_with_a_metacharacter_argument(project: Path) -> None:
    write(project / ".shellpilot" / "command" / "t.md", "X !`echo $1` Y !`echo $2`")
    args = ["command", "render", "t", "a;touch p", "ok", "--dir", str(project)]
    result = runner.invoke(app, args)
    assert result.stdout.splitlines() == ["X !`echo $1` Y ok"]
    assert "shell block not run: argument $1 contains shell metacharacters" in result.stderr
    assert result.exit_code == 4 and not (project / "p").exists()
    result = runner.invoke(app, [*args, "--no-shell"])
    assert "!`echo $1` -> not run: argument $1 contains shell metacharacters" in result.stdout.splitlines()


def test_show_a_skill_with_its_written_name_model_and_tools(project: Path) -> None:
    write(
        project / ".claude" / "skills" / "plugin-settings" / "SKILL.md",
        "---\nname: Plugin Settings\nmodel: sonnet\nallowed-tools: Read, Bash(cat .claude/*.local.md)\n"
        "disallowed-tools: Bash(rm:*)\n---\nRead the settings for $0.\n",
    )
    result = runner.invoke(app, ["command", "show", "plugin-settings", "--dir", str(project)])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[:3] == ["name: plugin-settings", "display_name: Plugin Settings", "source: skill"]
    assert (
        "model: sonnet (no configured provider can run it: the session's model is used; -m overrides it)"
        in lines
    )
    assert f"rules: {describe('claude')}" in lines
    assert (
        "allowed-tools (allowed while this command's turn runs): Read (not a shellpilot tool), "
        "Bash(cat .claude/*.local.md) -> bash 'cat .claude/*.local.md'"
    ) in lines
    assert "disallowed-tools (denied while this command's turn runs): Bash(rm:*) -> bash 'rm *'" in lines
