"""Codex CLI custom prompts: ``$CODEX_HOME/prompts/*.md`` (default ``~/.codex/prompts``).

Owns: prompt file -> command (``description``, ``argument-hint`` or ``argument_hint``;
top-level files only, like Codex; also reachable as ``prompts:<name>``, Codex's own
spelling). Must not touch: precedence, expansion (the ``codex`` syntax does that).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from shellpilot.command.diagnostics import LoadWarning
from shellpilot.command.frontmatter import FrontmatterError, parse_markdown
from shellpilot.command.hints import hints
from shellpilot.command.model import Command
from shellpilot.command.sources.base import FileReader, Loaded, read_each, read_text, text_field, walk_files
from shellpilot.command.sources.claude import argument_hint


def codex_prompts_dir(home: Path, env: Mapping[str, str]) -> Path:
    """Where Codex keeps prompts: ``$CODEX_HOME/prompts``, else ``<home>/.codex/prompts``."""
    codex_home = env.get("CODEX_HOME", "").strip()
    return (Path(codex_home) if codex_home else home / ".codex") / "prompts"


def load_codex_file(name: str, path: Path) -> Loaded:
    """One command from one prompt file; an unusable file yields only a warning."""
    loaded = Loaded()
    origin = str(path)
    text = read_text(path)
    if isinstance(text, LoadWarning):
        loaded.warnings.append(text)
        return loaded
    try:
        parsed = parse_markdown(text, origin, warn_sanitised=False)
    except FrontmatterError as exc:
        loaded.warnings.append(LoadWarning(f"skipped: {exc.message}", origin, exc.line))
        return loaded
    warnings = list(parsed.warnings)
    data = parsed.data
    hint_key = "argument-hint" if "argument-hint" in data else "argument_hint"
    loaded.commands.append(
        Command(
            name=name,
            description=text_field(data, "description", origin, warnings),
            template=parsed.body,
            syntax="codex",
            hints=hints(parsed.body, "codex"),
            origin=origin,
            argument_hint=argument_hint(data.get(hint_key), origin, warnings),
            aliases=[f"prompts:{name}"],
            directory=str(path.parent),
        )
    )
    loaded.warnings.extend(warnings)
    return loaded


def load_codex_dir(root: Path, *, read: FileReader = read_each) -> Loaded:
    """Every top-level ``*.md`` of ``root`` (Codex ignores sub-folders), sorted by name;
    symlinks out of ``root`` are skipped with a warning; the files are read with
    ``load_codex_file`` by ``read`` (``read_each``, or a cache)."""
    skipped: list[LoadWarning] = []
    files = walk_files(root, ".md", skipped, nested=False)
    loaded = read(load_codex_file, files)
    return Loaded(loaded.commands, skipped + loaded.warnings)
