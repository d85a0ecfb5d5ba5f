"""How ``--help`` names arguments and option values: ``COMMAND``, ``--timeout MS``, no type tags.

Owns: the click command/group classes the app uses so help reads like a person wrote it
(typer would show ``<str>``, ``<bool>``, ``<list[Path]>`` and ``{command}`` markers).
Must not touch: what any option does, or the help texts themselves (each command's own).
"""

from __future__ import annotations

import inspect
from typing import Any

from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption


def _name(param: TyperArgument | TyperOption) -> str:
    return (param.name or "value").upper()


class _Argument(TyperArgument):
    """An argument shown by its metavar (``COMMAND``, ``[MESSAGE]...``), with no type tag."""

    def display_type_rich(self, ctx: Any) -> str | None:
        return None

    def get_usage_pieces(self, ctx: Any) -> list[str]:
        name = self.metavar or _name(self)
        if self.nargs != 1 and not name.endswith("..."):
            name += "..."
        return [name if self.required else f"[{name}]"]


class _Option(TyperOption):
    """A flag shown bare (``--yes``); an option with a value by its metavar (``--timeout MS``)."""

    def display_type_rich(self, ctx: Any) -> str | None:
        if self.is_flag or self.count:
            return None
        return self.metavar or _name(self)


def _plain(params: list[Any]) -> list[Any]:
    for param in params:
        if type(param) is TyperArgument:
            param.__class__ = _Argument
            if param.metavar is None:
                param.metavar = _name(param)
        elif type(param) is TyperOption:
            param.__class__ = _Option
    return params


def _one_line_summary(command: Any) -> None:
    """Give a command listed in its group's help a one-paragraph summary with its line breaks
    joined: typer's rich listing keeps a docstring's hard wraps, which breaks a table cell
    mid-sentence ("the shell" / "that will be used")."""
    if command is None or command.short_help or not command.help:
        return
    first = inspect.cleandoc(command.help).partition("\f")[0].split("\n\n")[0]
    command.short_help = " ".join(first.split())


def _plain_command(command: Any) -> Any:
    _one_line_summary(command)
    if type(command) is TyperCommand:
        command.__class__ = PlainCommand
    elif type(command) is TyperGroup:
        command.__class__ = PlainGroup
    return command


class PlainCommand(TyperCommand):
    """A sub-command whose help names values the way a person would (see module doc)."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain(super().get_params(ctx))


class PlainGroup(TyperGroup):
    """A command group whose own help and every sub-command's help read plainly."""

    def get_params(self, ctx: Any) -> list[Any]:
        return _plain(super().get_params(ctx))

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return _plain_command(super().get_command(ctx, cmd_name))


__all__ = ["PlainCommand", "PlainGroup"]
