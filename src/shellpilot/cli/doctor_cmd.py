"""``shellpilot doctor``: what this machine and project give shellpilot, and what is missing.

Owns: the report (sandbox mechanisms and why the others fail, the shell, config files and
trust, the data dir). Must not touch: anything it reports on; it only reads and probes.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from shellpilot.cli.options import DataDirOption, DirOption, TrustOption

if TYPE_CHECKING:
    from shellpilot.config import LoadedConfig


def report(loaded: LoadedConfig, project: Path, data: Path) -> list[str]:
    """The doctor's lines: sandbox, shell, config (files read, trust, ignored keys), data."""
    from shellpilot.errors import ShellNotFound
    from shellpilot.process.bwrap import find_mechanism, mechanisms
    from shellpilot.process.detect import detect_shell

    config = loaded.config
    settings = config.sandbox
    lines = ["Sandbox"]
    found = mechanisms()
    for mechanism in found:
        lines.append(f"  {'ok ' if mechanism.works else 'no '} {mechanism.summary()}")
    chosen = find_mechanism()
    if settings.mode == "off":
        lines.append("  in use: none (sandbox.mode is off)")
    elif chosen.works:
        lines.append(f"  in use: {chosen.name} {chosen.path} (sandbox.mode {settings.mode})")
    elif settings.required:
        lines.append("  in use: none, and sandbox.required is true: model commands are refused")
    else:
        lines.append("  in use: none: model commands run with permission rules alone")
    network = "on" if settings.network else "off"
    lines.append(f"  network for workspace-write: {network}; required: {str(settings.required).lower()}")
    lines.append("Shell")
    try:
        shell = detect_shell(configured=config.shell.path)
        lines.append(f"  {shell.path} ({shell.name}, from {shell.source})")
        if shell.note:
            lines.append(f"  note: {shell.note}")
    except ShellNotFound as exc:
        lines.append(f"  none: {exc.message}")
    lines.append("Config")
    lines.append(f"  project: {project}")
    if loaded.sources:
        lines += [f"  read: {path}" for path in loaded.sources]
    else:
        lines.append("  read: no config file (defaults)")
    trusted = "trusted" if loaded.trusted else "not trusted (its own config may only tighten)"
    lines.append(f"  project config: {trusted}")
    lines += [f"  ignored: {key}" for key in loaded.ignored]
    lines.append("Data")
    lines.append(f"  {data}")
    return lines


def register(app: typer.Typer) -> None:
    """Add ``shellpilot doctor`` to the top-level app."""

    @app.command("doctor")
    def doctor(
        directory: DirOption = None, data_dir: DataDirOption = None, trust: TrustOption = False
    ) -> None:
        """Report which sandbox mechanisms work here (and why the others do not), the shell
        that will be used, the config files read and whether the project is trusted."""
        from shellpilot.cli.context import project_dir_of
        from shellpilot.config import load_config
        from shellpilot.paths import data_dir as resolve_data_dir

        project = project_dir_of(directory)
        loaded = load_config(project, trust=trust)
        data = resolve_data_dir(os.fspath(data_dir) if data_dir else None)
        sys.stdout.write("\n".join(report(loaded, project, data)) + "\n")
