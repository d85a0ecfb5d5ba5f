"""Each command file format with a realistic file, and broken files that must not break loading."""

from __future__ import annotations

from pathlib import Path

from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.frontmatter import parse_markdown, sanitise
from shellpilot.command.sources import builtin_commands, load_gemini_dir, load_markdown_dir
from shellpilot.command.sources.base import walk_files
from shellpilot.command.sources.config import config_commands
from shellpilot.command.substitution import substitute
from shellpilot.config import load_config
from shellpilot.skill import discover_skills, skill_dirs


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_shellpilot_markdown_nested_names(tmp_path: Path) -> None:
    root = tmp_path / "command"
    write(
        root / "git" / "commit.md",
        "---\ndescription: Commit staged work\nagent: build\nmodel: openai/gpt-x\nsubtask: false\n---\n\n"
        "Write a commit message for:\n!`git diff --cached`\n$ARGUMENTS\n",
    )
    write(root / "plain.md", "Just a body with $1 and $2\n")
    loaded = load_markdown_dir(root)
    assert loaded.warnings == []
    commit, plain = loaded.commands
    assert commit.name == "git/commit" and commit.description == "Commit staged work"
    assert (commit.agent, commit.model, commit.subtask) == ("build", "openai/gpt-x", False)
    assert commit.template == "Write a commit message for:\n!`git diff --cached`\n$ARGUMENTS"
    assert commit.hints == ["$ARGUMENTS"] and commit.origin == str(root / "git" / "commit.md")
    assert plain.name == "plain" and plain.description is None and plain.hints == ["$1", "$2"]


def test_opencode_file_loads_unchanged(tmp_path: Path) -> None:
    root = tmp_path / ".opencode" / "command"
    write(
        root / "test.md",
        '---\ndescription: "Run tests with coverage"\nagent: build\nsubtask: true\n---\n'
        "Run the full test suite with coverage report and show any failures.\n"
        "Focus on the failing tests and suggest fixes. @package.json\n",
    )
    (cmd,) = load_markdown_dir(root, "opencode").commands
    assert cmd.name == "test" and cmd.subtask is True and cmd.description == "Run tests with coverage"
    assert cmd.template.endswith("suggest fixes. @package.json")  # type: ignore[union-attr]


def test_claude_command_fields(tmp_path: Path) -> None:
    root = tmp_path / ".claude" / "commands"
    write(
        root / "frontend" / "fix-issue.md",
        "---\n"
        "allowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)\n"
        "argument-hint: [issue-number] [priority]\n"
        "description: Fix a GitHub issue\n"
        "model: claude-3-5-haiku-20241022\n"
        "---\n\n"
        "## Context\n\n- Current status: !`git status`\n\nFix issue #$1 with priority $2. $ARGUMENTS\n",
    )
    write(root / "optimize.md", "# Analyze this code for performance issues\n\nLook at @src/main.py\n")
    loaded = load_markdown_dir(root, "claude")
    assert loaded.warnings == []
    fix, optimize = loaded.commands
    assert fix.name == "frontend:fix-issue" and fix.aliases == ["frontend/fix-issue"]  # Claude's dir:name
    assert fix.description == "Fix a GitHub issue" and fix.argument_hint == "[issue-number] [priority]"
    assert fix.model == "claude-3-5-haiku-20241022"  # resolved to a provider when it runs
    assert fix.allowed_tools == ["Bash(git add:*)", "Bash(git status:*)", "Bash(git commit:*)"]
    assert fix.hints == ["$1", "$2", "$ARGUMENTS"] and fix.agent is None
    assert fix.syntax == "claude-legacy"  # numbers from $1, never $0: written before Claude Code 2.1.19
    assert optimize.description == "Analyze this code for performance issues"  # first line


def test_gemini_toml(tmp_path: Path) -> None:
    root = tmp_path / ".gemini" / "commands"
    write(
        root / "git" / "commit.toml",
        'description = "Generates a Git commit message based on staged changes."\n'
        'prompt = """\nPlease generate a Conventional Commit message for:\n\n'
        "```diff\n!{git diff --staged}\n```\n"
        'Extra: {{args}}\nStyle: @{docs/style.md}\n"""\n',
    )
    write(root / "simple.toml", 'prompt = "Summarise the repo"\n')
    loaded = load_gemini_dir(root)
    assert loaded.warnings == []
    commit, simple = loaded.commands
    assert commit.name == "git:commit" and commit.aliases == ["git/commit"] and commit.syntax == "gemini"
    assert commit.hints == ["{{args}}"]
    assert isinstance(commit.template, str)
    assert substitute(commit.template, "$1 'x'", "gemini").endswith("Extra: $1 'x'\nStyle: @{docs/style.md}")
    assert simple.template == "Summarise the repo" and simple.hints == []


def test_broken_gemini_files(tmp_path: Path) -> None:
    root = tmp_path / "g"
    write(root / "bad.toml", 'description = "unterminated\nprompt = "still here"\n')
    write(root / "hopeless.toml", "prompt = [1, 2\n")
    write(root / "noprompt.toml", 'description = "x"\n')
    loaded = load_gemini_dir(root)
    assert [c.name for c in loaded.commands] == ["bad"]
    assert loaded.commands[0].template == "still here"
    messages = [str(w) for w in loaded.warnings]
    assert messages[0].startswith(f"{root / 'bad.toml'}:1: invalid TOML")
    assert messages[0].endswith("read key by key")
    assert messages[1].startswith(f"{root / 'hopeless.toml'}:") and "skipped: invalid TOML" in messages[1]
    assert messages[2] == f'{root / "noprompt.toml"}: skipped: no "prompt" string'


def test_unquoted_colon_is_sanitised(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c" / "deploy.md",
        "---\ndescription: Deploy: build then push\nsubtask: true\n---\nDo it\n",
    )
    loaded = load_markdown_dir(tmp_path / "c")
    (cmd,) = loaded.commands
    assert cmd.description == "Deploy: build then push" and cmd.subtask is True
    (warning,) = loaded.warnings
    assert (warning.path, warning.line) == (str(path), 2)
    assert warning.message.startswith("frontmatter is not valid YAML (mapping values are not allowed")
    assert warning.message.endswith("; values quoted")


def test_sanitiser_rules() -> None:
    text = "a: b: c\nb: 'q: r'\nc: |\n  x: y\n# note: n\n  indented: i: j\nd:\ne: plain\nf: [x] [y]"
    assert sanitise(text) == (
        "a: |-\n  b: c\nb: 'q: r'\nc: |\n  x: y\n# note: n\n  indented: i: j\nd:\ne: plain\nf: |-\n  [x] [y]"
    )


def test_key_by_key_keeps_what_parses(tmp_path: Path) -> None:
    path = write(
        tmp_path / "c" / "odd.md",
        "---\ndescription: [unclosed\nagent: plan\ntags:\n  - a\n - b\nsubtask: maybe\n---\nBody\n",
    )
    loaded = load_markdown_dir(tmp_path / "c")
    (cmd,) = loaded.commands
    assert cmd.description == "[unclosed" and cmd.agent == "plan" and cmd.subtask is None
    assert cmd.template == "Body"
    first, second = (str(w) for w in loaded.warnings)
    assert first.startswith(f"{path}:") and first.endswith("; read key by key")
    assert second == f"{path}: \"subtask\" must be true or false, got 'maybe'; ignored"


def test_unusable_files_are_skipped_with_path_and_line(tmp_path: Path) -> None:
    root = tmp_path / "c"
    write(root / "good.md", "fine\n")
    write(root / "open.md", "---\ndescription: never closed\nbody\n")
    write(root / "list.md", "---\n- a\n- b\n---\nbody\n")
    (root / "binary.md").write_bytes(b"\xff\xfe\x00bad")
    loaded = load_markdown_dir(root)
    assert [c.name for c in loaded.commands] == ["good"]
    assert sorted(str(w) for w in loaded.warnings) == sorted(
        [
            f"{root / 'open.md'}:1: skipped: frontmatter starts with --- but never ends",
            f"{root / 'list.md'}:2: skipped: frontmatter must be a mapping of keys to values",
            f"{root / 'binary.md'}:1: skipped: not UTF-8 text (byte 0xff at column 1); save it as UTF-8",
        ]
    )


def test_parse_markdown_without_frontmatter() -> None:
    parsed = parse_markdown("\ufeffHello\n---\nnot frontmatter\n", "x.md")
    assert parsed.data == {} and parsed.body == "Hello\n---\nnot frontmatter"


def test_builtins(project: Path) -> None:
    init, review = builtin_commands(project)
    assert init.name == "init" and init.hints == ["$ARGUMENTS"] and str(project) in str(init.template)
    assert review.subtask is True and review.hints == ["$ARGUMENTS"]
    assert "git diff --cached" in str(review.template) and "gh pr diff" in str(review.template)


def test_config_commands_name_their_file(project: Path) -> None:
    write(
        project / "shellpilot.json",
        '{"command": {"deploy": {"template": "Deploy $1", "description": "ship", "subtask": true}}}',
    )
    loaded = load_config(project)
    (cmd,) = config_commands(loaded.config, loaded.sources).commands
    assert (cmd.name, cmd.template, cmd.subtask, cmd.hints) == ("deploy", "Deploy $1", True, ["$1"])
    assert cmd.origin == str(project / "shellpilot.json")
    (bare,) = config_commands(loaded.config).commands
    assert bare.origin == "config:command.deploy"


def test_skills(project: Path, tmp_path: Path) -> None:
    user = tmp_path / "user-config"
    write(user / "skills" / "pdf" / "SKILL.md", "---\nname: pdf\ndescription: user pdf\n---\nUser pdf body\n")
    write(
        project / ".shellpilot" / "skill" / "pdf" / "SKILL.md",
        "---\nname: pdf\ndescription: Extract text from PDFs\n---\nUse scripts/extract.py\n",
    )
    write(project / ".claude" / "skills" / "charts" / "SKILL.md", "Make charts\n")
    write(project / ".claude" / "skills" / "broken" / "SKILL.md", "---\nname: x\n")
    skills, warnings = discover_skills(skill_dirs(project, user))
    by_name = {s.name: s for s in skills}
    assert set(by_name) == {"pdf", "charts"}
    pdf = by_name["pdf"]
    assert pdf.description == "Extract text from PDFs"
    folder = project / ".shellpilot" / "skill" / "pdf"
    assert pdf.template() == f"Use scripts/extract.py\n\nBase directory for this skill: {folder}"
    assert by_name["charts"].description is None
    assert any("broken" in str(w) and "never ends" in str(w) for w in warnings)
    assert any("replaces the one in" in str(w) for w in warnings)


def test_walk_files_lists_what_os_walk_would(tmp_path: Path) -> None:
    root = tmp_path / "commands"
    for rel in ("b.md", "a/z.md", "a/b/c.md", "notes.txt", "a/.md", "A.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.md").write_text("secret")
    (root / "linked").symlink_to(outside, target_is_directory=True)  # a folder link out: warned
    (root / "leak.md").symlink_to(outside / "secret.md")  # a file link out: skipped, with a warning
    (root / "same.md").symlink_to(root / "b.md")  # a file link inside: listed
    (root / "gone.md").symlink_to(root / "missing.md")  # a broken link inside: listed, fails to read
    (root / "team").symlink_to(root / "a" / "b", target_is_directory=True)  # a folder link inside: walked
    (root / "a" / "b" / "up").symlink_to(root / "a", target_is_directory=True)  # a loop: not walked again
    warnings: list[LoadWarning] = []
    found = walk_files(root, ".md", warnings)
    names = ("A", "a/b/c", "a/z", "b", "gone", "same", "team/c")
    assert found == [(name, str(root / f"{name}.md")) for name in names]
    assert sorted(str(w) for w in warnings) == [
        f"{root / 'leak.md'}: skipped: a symlink to {outside / 'secret.md'}, outside {root}",
        f"{root / 'linked'}: skipped: a folder symlink to {outside}, outside {root}",
    ]
    assert walk_files(root, ".md", nested=False) == [
        (name, str(root / f"{name}.md")) for name in ("A", "b", "gone", "same")
    ]
    assert walk_files(tmp_path / "absent", ".md") == []


def test_gemini_names_and_descriptions_as_gemini_cli_shows_them(tmp_path: Path) -> None:
    """Gemini CLI's FileCommandLoader: a missing description is ``Custom command from
    <file>``; a description loses escape sequences, its whitespace runs become one space and
    it is cut at 100 UTF-16 units; a name part is cut at 50 (non-ASCII: ``_`` per unit)."""
    root = tmp_path / ".gemini" / "commands"
    write(root / "plain.toml", 'prompt = "Summarise"\n')
    write(
        root / "multi.toml",
        'description = """\nReview the diff.\n\tThen\\u001b[31m fix\\u001b[0m it.\n"""\nprompt = "x"\n',
    )
    write(root / "long.toml", f'description = "{"d" * 150}"\nprompt = "x"\n')
    write(root / ("a" * 60 + ".toml"), 'prompt = "x"\n')
    write(root / "ops" / "déployer 🚀.toml", 'prompt = "x"\n')
    write(root / "num.toml", 'description = 42\nprompt = "x"\n')
    loaded = load_gemini_dir(root)
    by_name = {c.name: c for c in loaded.commands}
    assert by_name["plain"].description == "Custom command from plain.toml"
    assert by_name["multi"].description == "Review the diff. Then fix it."
    assert by_name["long"].description == "d" * 97 + "..."
    assert by_name["a" * 47 + "..."].aliases == ["a" * 60]
    assert by_name["ops:d_ployer___"].aliases == ["ops/déployer 🚀"]
    assert by_name["num"].description == "42"
    (warning,) = loaded.warnings
    assert warning.path == str(root / "num.toml")
    assert warning.message == (
        '"description" must be a TOML string, got int 42 (Gemini CLI skips this file); quote it'
    )


def test_an_unescaped_backslash_in_toml_says_how_to_fix_it(tmp_path: Path) -> None:
    """Real Gemini files put ``grep -E "^\\[x\\]"`` in a ``\"\"\"`` prompt: invalid TOML, which
    Gemini CLI skips too; the warning names the line and the two ways to write it."""
    root = tmp_path / "g"
    write(root / "sdd.toml", 'description = "d"\nprompt = """\nRun:\ngrep -E "^- \\[x\\]" spec.md\n"""\n')
    loaded = load_gemini_dir(root)
    assert loaded.commands == []
    (warning,) = loaded.warnings
    assert warning.line == 4 and "Gemini CLI skips it too" in warning.message
    assert warning.message.endswith(
        "; write \\\\ for a backslash inside \"...\", or quote the prompt with '''...'''"
    )
