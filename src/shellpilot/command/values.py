"""What each placeholder of one invocation stands for, by the rules of the command's format.

Owns: argument values per syntax (positional, the rest, ``KEY=value``, named), the
``${CLAUDE_*}`` variables and the text appended when nothing takes the arguments.
Must not touch: finding placeholders (placeholders.py) or shell blocks (substitution.py).
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from shellpilot.command.arguments import split_arguments
from shellpilot.command.model import TemplateSyntax
from shellpilot.command.placeholders import Placeholder, required_keys
from shellpilot.errors import CommandArgumentError

KNOWN_VARIABLES = ("CLAUDE_PLUGIN_ROOT", "CLAUDE_SKILL_DIR", "CLAUDE_SESSION_ID")
"""The ``${CLAUDE_*}`` names Claude Code substitutes in command and skill text that we know."""


@dataclass(frozen=True)
class Variables:
    """Values of the ``${CLAUDE_*}`` variables for one expansion (None: unknown here)."""

    plugin_root: str | None = None
    skill_dir: str | None = None
    session_id: str | None = None

    def get(self, name: str) -> str | None:
        """The value of ``CLAUDE_<...>`` ``name``, None when it has none here."""
        return {
            "CLAUDE_PLUGIN_ROOT": self.plugin_root,
            "CLAUDE_SKILL_DIR": self.skill_dir,
            "CLAUDE_SESSION_ID": self.session_id,
        }.get(name)


def _codex_words(text: str) -> list[str]:
    """Codex splits arguments like a POSIX shell (``PR_TITLE="Fix it"`` is one word);
    text it cannot split (an open quote) falls back to ``split_arguments``."""
    try:
        return shlex.split(text)
    except ValueError:
        return split_arguments(text)


class Values:
    """The value of each placeholder for one invocation (``of``), and what is appended.

    ``arguments`` is the raw text typed after the name; it is split like
    ``split_arguments`` (quotes group words; Codex: like a shell). Raises CommandArgumentError for a Codex
    prompt with ``$KEY`` placeholders when a word is not ``KEY=value`` or a key used
    outside code is missing (Codex refuses such an invocation too).
    """

    def __init__(
        self,
        syntax: TemplateSyntax,
        arguments: str,
        placeholders: Sequence[Placeholder],
        *,
        name: str = "",
        variables: Variables | None = None,
    ) -> None:
        self.syntax = syntax
        self.raw = arguments
        self.args = _codex_words(arguments) if syntax == "codex" else split_arguments(arguments)
        self.name = name
        self.variables = variables or Variables()
        self.warnings: list[str] = []
        self._warned: set[str] = set()
        numbered = [
            p.index for p in placeholders if p.kind == "index" and not p.text.startswith("$ARGUMENTS[")
        ]
        self.highest = max(numbered) if numbered and syntax in ("shellpilot", "opencode") else None
        self.keys: dict[str, str] = {}
        self.keyed = bool(required_keys(placeholders))
        if self.keyed:
            self.keys = self._key_values(required_keys(placeholders))
        elif any(p.kind == "key" for p in placeholders):
            self.keys = dict(w.split("=", 1) for w in self.args if "=" in w and not w.startswith("="))

    def _key_values(self, required: list[str]) -> dict[str, str]:
        keys: dict[str, str] = {}
        for word in self.args:
            key, sep, value = word.partition("=")
            if not sep or not key:
                raise CommandArgumentError(
                    self.name,
                    key or word,
                    f"/{self.name}: expected KEY=value but found {word!r}; this prompt takes "
                    + " ".join(f"{k}=..." for k in required)
                    + " (quote a value that holds spaces).",
                )
            keys[key] = value
        missing = [k for k in required if k not in keys]
        if missing:
            raise CommandArgumentError(
                self.name,
                missing[0],
                f"/{self.name}: missing {', '.join(missing)}; give them as "
                + " ".join(f"{k}=..." for k in missing)
                + " (quote a value that holds spaces).",
            )
        return keys

    def of(self, p: Placeholder) -> str | None:
        """The text for ``p``, or None when it stays as written."""
        if p.kind == "escape":
            return p.text[1:]
        if p.kind == "variable":
            return self._variable(p.name)
        if p.kind == "key":
            return self.keys.get(p.name)
        if self.keyed:
            return None  # Codex: a prompt with $KEY placeholders takes only KEY=value
        if p.kind == "all":
            return " ".join(self.args) if self.syntax == "codex" else self.raw
        return self._positional(p.index)

    def _positional(self, index: int) -> str | None:
        if index < len(self.args):
            if index == self.highest:
                return " ".join(self.args[index:])
            return self.args[index]
        return None if self.syntax in ("claude", "claude-legacy") else ""

    def _variable(self, name: str) -> str | None:
        value = self.variables.get(name)
        if value is None and name not in self._warned:
            self._warned.add(name)
            why = "no session yet" if name == "CLAUDE_SESSION_ID" else "not known to shellpilot"
            self.warnings.append(f"${{{name}}}: {why}; left as written")
        return value

    def appended(self, placeholders: Sequence[Placeholder]) -> str:
        """What follows the template when no placeholder takes the arguments: nothing for
        blank arguments; Claude Code ``\\n\\nARGUMENTS: <raw>``; Gemini the invocation
        ``\\n\\n/<name> <raw>``; the others ``\\n\\n<raw>``."""
        if not self.raw.strip() or any(p.takes_arguments for p in placeholders):
            return ""
        if self.syntax in ("claude", "claude-legacy"):
            return f"\n\nARGUMENTS: {self.raw}"
        if self.syntax == "gemini" and self.name:
            return f"\n\n/{self.name} {self.raw}"
        return f"\n\n{self.raw}"
