"""Command files laid out as each agent keeps them, loaded by the registry and expanded.

The files are written here (not copied from public repositories) in the shapes real
suites use: Claude Code commands and skills, OpenCode commands and skills, Gemini CLI
TOML, Codex prompts in ``~/.codex/prompts``. HOME is a temp dir (tests/conftest.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from shellpilot.bus import Bus, Event
from shellpilot.command.model import Command
from shellpilot.command.registry import CommandRegistry
from shellpilot.command.template import ExpandContext, ExpandedPrompt, expand
from shellpilot.config import load_config
from shellpilot.errors import CommandArgumentError
from shellpilot.permission.rules import rules_from_config
from shellpilot.permission.service import PermissionService


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def home() -> Path:
    return Path(os.environ["HOME"])


class Asks:
    """A real permission service answering from rules (``bash`` allowed, or every outside
    folder denied), with the ``permission.asked`` events it publishes recorded."""

    def __init__(self, tmp: Path, project: Path, deny: bool = False) -> None:
        self.bus = Bus()
        self.asked: list[Event] = []
        self.bus.listen(self.asked.append, ["permission.asked"])
        self.service = PermissionService(self.bus, tmp / "grants.json", project_dir=project)
        config = {"external_directory": "deny", "bash": "deny"} if deny else {"bash": "allow"}
        self.ask = self.service.asker("ses_test", rules_from_config(config))


async def load(project: Path, name: str) -> tuple[Command, CommandRegistry]:
    registry = CommandRegistry(project, load_config(project))
    return await registry.get(name), registry


async def render(
    project: Path, name: str, arguments: str = "", asks: Asks | None = None, **kw: Any
) -> ExpandedPrompt:
    command, _ = await load(project, name)
    asks = asks or Asks(project.parent, project)
    ctx = ExpandContext(project_dir=project, ask=asks.ask, **kw)
    return await expand(command, arguments, ctx)


INVOICE = """---
description: Draft an invoice for a client
argument-hint: [client] [hours]
---

Draft an invoice for $1 covering $2 hours of work.

Our rate card:
- Retainer: $5,000 per month (40 hours @ $125/hr)
- Rush work: $1.50 per word
"""


async def test_claude_command_with_prices(project: Path) -> None:
    write(project / ".claude" / "commands" / "billing" / "invoice.md", INVOICE)
    out = await render(project, "billing:invoice", "acme 12")
    assert out.text.startswith("Draft an invoice for acme covering 12 hours of work.")
    assert "- Retainer: $5,000 per month (40 hours @ $125/hr)\n- Rush work: $1.50 per word" in out.text
    many = await render(project, "billing/invoice", "acme 12 a b c d e f")  # dir/name reaches it too
    assert "$5,000 per month (40 hours @ $125/hr)" in many.text


REPORT = """---
description: Summarise slow queries on one table
---
Find the slow queries that touch the $ARGUMENTS table.

```sql
SELECT query, ms FROM slow_log WHERE table_name = $1 AND ms > $2 ORDER BY ms DESC;
```

Count them per client with `awk '{print $1}' slow.log | sort | uniq -c`.
"""


async def test_opencode_command_with_sql_and_awk(project: Path) -> None:
    write(project / ".opencode" / "commands" / "db" / "report.md", REPORT)
    command, _ = await load(project, "db/report")
    assert command.syntax == "opencode" and command.hints == ["$ARGUMENTS"]
    out = await render(project, "db/report", "orders")
    assert "touch the orders table." in out.text
    assert "WHERE table_name = $1 AND ms > $2 ORDER BY" in out.text
    assert "`awk '{print $1}' slow.log | sort | uniq -c`" in out.text


XLSX = """---
name: xlsx
description: Work with spreadsheets, formulas and charts
---

# Spreadsheets

## Error values
- `#REF!`: Invalid cell references
- `#DIV/0!`: Division by zero
- `#VALUE!`: Wrong type of argument

Keep absolute references such as `=B5*(1+$B$6)` and `='Inputs'!$B$5` intact.

Workbooks here: !`ls *.xlsx`
"""


async def test_claude_skill_with_bangs_in_code_spans(project: Path) -> None:
    write(project / ".claude" / "skills" / "xlsx" / "SKILL.md", XLSX)
    write(project / "budget.xlsx", "x")
    out = await render(project, "xlsx", "fix formulas in budget.xlsx")
    assert [(b.command, b.status) for b in out.blocks] == [("ls *.xlsx", "ok")]  # no `#REF!` block
    assert "- `#REF!`: Invalid cell references\n- `#DIV/0!`: Division by zero" in out.text
    assert "`=B5*(1+$B$6)` and `='Inputs'!$B$5`" in out.text
    assert "Workbooks here: budget.xlsx" in out.text
    assert out.text.endswith("ARGUMENTS: fix formulas in budget.xlsx")


PID = '''description = "Explain a shell special parameter"
prompt = """
Explain what `$!` and `$$` mean in bash, using {{args}} as the example.
The current shell is: !{echo "$0" | tr -d '-'}
"""
'''


async def test_gemini_toml_only_brace_blocks(project: Path) -> None:
    write(project / ".gemini" / "commands" / "sh" / "pid.toml", PID)
    out = await render(project, "sh:pid", "sleep 10 &")
    assert "Explain what `$!` and `$$` mean in bash, using sleep 10 & as the example." in out.text
    assert [(b.command, b.status) for b in out.blocks] == [("echo \"$0\" | tr -d '-'", "ok")]
    assert out.text.endswith("sh") and "The current shell is: /" in out.text


JS = """---
description: Explain a JavaScript oddity
---
Explain why `if (!{a:1}.b)` is true, and why if (!{a:1}.b) in prose is not a shell block.
"""


async def test_markdown_brace_is_text(project: Path) -> None:
    write(project / ".opencode" / "command" / "js.md", JS)
    asks = Asks(project.parent, project, deny=True)
    out = await render(project, "js", "", asks)
    assert out.blocks == [] and out.warnings == []
    assert "if (!{a:1}.b) in prose" in out.text


SETTINGS_SKILL = """---
name: Plugin Settings
description: Read and write a plugin's settings file
---
Settings live in .claude/plugin-name.local.md; ask before changing $ARGUMENTS.
"""


async def test_skill_with_a_display_name(project: Path) -> None:
    write(project / ".claude" / "skills" / "plugin-settings" / "SKILL.md", SETTINGS_SKILL)
    command, registry = await load(project, "plugin-settings")
    assert command.source == "skill" and command.display_name == "Plugin Settings"
    assert await registry.get("skill:plugin-settings") is command
    assert [c.name for c in await registry.list()] == ["init", "plugin-settings", "review"]


async def test_opencode_skill_roots(project: Path, home: Path) -> None:
    write(
        project / ".opencode" / "skills" / "git-release" / "SKILL.md",
        "---\nname: git-release\ndescription: Draft release notes\n---\nDraft notes since $1.\n",
    )
    write(home / ".config" / "opencode" / "skill" / "tidy" / "SKILL.md", "---\nname: tidy\n---\nTidy up.\n")
    release, registry = await load(project, "git-release")
    assert release.syntax == "opencode" and release.source == "skill"
    out = await render(project, "git-release", "v1.2.0")
    assert out.text.startswith("Draft notes since v1.2.0.")
    assert (await registry.get("tidy")).origin == str(home / ".config/opencode/skill/tidy/SKILL.md")


PDF_SKILL = """---
name: pdf
description: Extract text and tables from PDF files
allowed-tools: Bash(python ${CLAUDE_SKILL_DIR}/scripts/extract.py:*)
---
Read @${CLAUDE_SKILL_DIR}/reference.md first, then extract $0.

Run `python ${CLAUDE_SKILL_DIR}/scripts/extract.py $0` and log to
logs/${CLAUDE_SESSION_ID}.txt (effort: ${CLAUDE_EFFORT}).
"""


async def test_claude_skill_dir_variables(project: Path, home: Path) -> None:
    folder = home / ".claude" / "skills" / "pdf"
    write(folder / "SKILL.md", PDF_SKILL)
    write(folder / "reference.md", "how to read PDFs")
    asks = Asks(project.parent, project, deny=True)  # the skill's own file is read without asking
    out = await render(project, "pdf", "report.pdf", asks, session_id="ses_42")
    assert asks.asked == []
    assert f"Read @{folder}/reference.md first, then extract report.pdf." in out.text
    assert f"`python {folder}/scripts/extract.py report.pdf`" in out.text
    assert "logs/ses_42.txt (effort: ${CLAUDE_EFFORT})" in out.text
    assert [(f.name, f.path) for f in out.files] == [(f"{folder}/reference.md", folder / "reference.md")]
    assert out.warnings == ["${CLAUDE_EFFORT}: not known to shellpilot; left as written"]
    command, _ = await load(project, "pdf")
    assert command.allowed_tools == ["Bash(python ${CLAUDE_SKILL_DIR}/scripts/extract.py:*)"]


async def test_skill_folder_with_a_space(project: Path, home: Path) -> None:
    folder = home / ".claude" / "skills" / "my notes"
    write(folder / "SKILL.md", "---\nname: my notes\n---\nSee @${CLAUDE_SKILL_DIR}/guide.md now.\n")
    write(folder / "guide.md", "g")
    out = await render(project, "my-notes")
    assert f'See @"{folder}/guide.md" now.' in out.text and [f.path for f in out.files] == [
        folder / "guide.md"
    ]


MIGRATE = """---
description: Migrate a component between frameworks
arguments: [component, source, target]
argument-hint: <component> <from> <to>
---
Migrate the $component component from $source to $target. Keep its tests ($0 is the component).
"""


async def test_claude_named_arguments(project: Path) -> None:
    write(project / ".claude" / "commands" / "migrate.md", MIGRATE)
    command, _ = await load(project, "migrate")
    assert command.syntax == "claude" and command.named_arguments == ["component", "source", "target"]
    assert command.hints == ["$0", "$component", "$source", "$target"]
    out = await render(project, "migrate", "SearchBar React")
    assert out.text == (
        "Migrate the SearchBar component from React to $target. Keep its tests (SearchBar is the component)."
    )


DRAFTPR = """---
description: Prep a branch, commit, and open a draft PR
argument-hint: FILES=<paths> PR_TITLE="<title>"
---
Create a branch for this work. Stage $FILES first.
Open a draft PR titled $PR_TITLE.
"""


async def test_codex_prompt_with_key_value(project: Path, home: Path) -> None:
    write(home / ".codex" / "prompts" / "draftpr.md", DRAFTPR)
    write(home / ".codex" / "prompts" / "nested" / "ignored.md", "Codex reads the top level only")
    command, registry = await load(project, "draftpr")
    assert command.syntax == "codex" and command.argument_hint == 'FILES=<paths> PR_TITLE="<title>"'
    assert await registry.get("prompts:draftpr") is command
    assert "nested/ignored" not in [c.name for c in await registry.list()]
    out = await render(project, "draftpr", "FILES=src/app.py 'PR_TITLE=Fix the parser'")
    assert (
        out.text
        == "Create a branch for this work. Stage src/app.py first.\nOpen a draft PR titled Fix the parser."
    )
    with pytest.raises(CommandArgumentError, match="missing PR_TITLE"):
        await render(project, "draftpr", "FILES=src/app.py")


async def test_codex_home_is_honoured(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    write(tmp_path / "codex" / "prompts" / "hi.md", "Say hi to $1")
    out = await render(project, "hi", "Ann")
    assert out.text == "Say hi to Ann"


async def test_symlinks_out_of_their_folder_are_skipped(project: Path, tmp_path: Path) -> None:
    secret = write(tmp_path / "outside" / "id_rsa", "-----BEGIN PRIVATE KEY-----")
    commands = project / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "leak.md").symlink_to(secret)
    write(commands / "real.md", "real")
    (commands / "alias.md").symlink_to(commands / "real.md")  # inside the folder: fine
    skill = project / ".claude" / "skills" / "leaky"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").symlink_to(secret)
    registry = CommandRegistry(project, load_config(project))
    names = [c.name for c in await registry.list()]
    assert "leak" not in names and "leaky" not in names and {"real", "alias"} <= set(names)
    warnings = [str(w) for w in registry.warnings]
    assert f"{commands / 'leak.md'}: skipped: a symlink to {secret}, outside {commands}" in warnings
    assert f"{skill / 'SKILL.md'}: skipped: a symlink to {secret}, outside {skill}" in warnings
    assert not any("PRIVATE KEY" in w for w in warnings)


async def test_folders_linked_out_of_an_untrusted_project_are_skipped(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # found by a helper: `.gemini/commands -> /elsewhere` loaded /elsewhere/cred.toml as a
    # command and sent its text to the model; the folder itself was never checked
    monkeypatch.delenv("SHELLPILOT_TRUST_PROJECT")
    outside = tmp_path / "outside"
    write(outside / "cred.toml", 'prompt = "toml secret: TOKEN-XYZ"\n')
    write(outside / "notes.md", "SECRET body")
    write(outside / "x" / "SKILL.md", "---\ndescription: d\n---\nSKILL SECRET")
    (project / ".gemini").mkdir()
    (project / ".gemini" / "commands").symlink_to(outside)
    (project / ".claude").mkdir()
    (project / ".claude" / "commands").symlink_to(outside)
    (project / ".shellpilot").symlink_to(outside)  # (a linked parent folder too)
    (outside / "skills").mkdir()
    (outside / "skills" / "x").symlink_to(outside / "x")
    (project / ".claude" / "skills").mkdir()
    (project / ".claude" / "skills" / "y").symlink_to(outside / "x")  # one skill linked out
    untrusted = CommandRegistry(project, load_config(project))
    assert [c.name for c in await untrusted.list()] == ["init", "review"]
    warnings = [str(w) for w in untrusted.warnings]
    for folder in (".gemini/commands", ".claude/commands", ".shellpilot/skills/x", ".claude/skills/y"):
        assert any(w.startswith(f"{project / folder}: skipped: it leads to") for w in warnings), folder
    trusted = CommandRegistry(project, load_config(project, trust=True))
    assert {"cred", "notes", "x"} <= {c.name for c in await trusted.list()}


async def test_files_with_nul_bytes_are_skipped(project: Path) -> None:
    write(project / ".opencode" / "commands" / "bin.md", b"Run this\x00\x01\x02 now")
    write(project / ".gemini" / "commands" / "bin.toml", 'prompt = "a\\u0000b"\n')
    write(project / ".claude" / "skills" / "blob" / "SKILL.md", b"---\nname: blob\n---\nx\x00y")
    registry = CommandRegistry(project, load_config(project))
    assert [c.name for c in await registry.list()] == ["init", "review"]
    warnings = [str(w) for w in registry.warnings]
    assert (
        f"{project / '.opencode/commands/bin.md'}: skipped: a binary file (NUL byte at offset 8)" in warnings
    )
    assert f"{project / '.gemini/commands/bin.toml'}: skipped: a binary prompt (NUL byte)" in warnings
    assert any(
        w.startswith(f"{project / '.claude/skills/blob/SKILL.md'}: skipped: a binary file") for w in warnings
    )


async def test_skill_not_user_invocable_is_not_a_command(project: Path) -> None:
    write(
        project / ".claude" / "skills" / "bg" / "SKILL.md",
        "---\nname: bg\nuser-invocable: false\n---\nBackground",
    )
    registry = CommandRegistry(project, load_config(project))
    assert [c.name for c in await registry.list()] == ["init", "review"]


async def test_claude_skill_wins_over_claude_command(project: Path) -> None:
    command_file = write(project / ".claude" / "commands" / "ship.md", "command ship")
    skill_file = write(
        project / ".claude" / "skills" / "ship" / "SKILL.md", "---\nname: ship\n---\nskill ship"
    )
    write(project / ".opencode" / "commands" / "lint.md", "opencode lint")
    write(project / ".claude" / "skills" / "lint" / "SKILL.md", "---\nname: lint\n---\nskill lint")
    registry = CommandRegistry(project, load_config(project))
    assert (await registry.get("ship")).source == "skill"
    assert (await registry.get("lint")).source == "command"  # only Claude's own command loses
    warnings = [str(w) for w in registry.warnings]
    assert any(str(skill_file) in w and str(command_file) in w and "skill wins" in w for w in warnings)


async def test_user_commands_of_other_agents_and_precedence(project: Path, home: Path) -> None:
    write(home / ".claude" / "commands" / "hello.md", "user claude hello")
    write(home / ".gemini" / "commands" / "hello.toml", 'prompt = "user gemini hello"')
    write(project / ".claude" / "commands" / "hello.md", "project claude hello")
    registry = CommandRegistry(project, load_config(project))
    assert (await registry.get("hello")).template == "project claude hello"
    warnings = [str(w) for w in registry.warnings]
    mine, theirs = project / ".claude/commands/hello.md", home / ".claude/commands/hello.md"
    assert f'command "hello" from {mine} overrides {theirs}' in warnings
