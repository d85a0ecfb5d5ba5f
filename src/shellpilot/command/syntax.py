"""What each template syntax means, in words: shown by ``shellpilot command show``.

Owns: the one-paragraph summary of each format's rules. Must not touch: the rules
themselves (layout.py, placeholders.py, values.py implement them).
"""

from __future__ import annotations

from shellpilot.command.model import TemplateSyntax

SUMMARY: dict[TemplateSyntax, str] = {
    "shellpilot": (
        "shellpilot: $1..$N are the arguments (the highest takes the rest, a missing one is "
        "empty), $ARGUMENTS the text as typed; !`cmd` and ```! fences run (never inside code); "
        "\\$ and \\! escape; the arguments are appended when nothing takes them."
    ),
    "opencode": (
        "OpenCode: $1..$N are the arguments (the highest takes the rest, a missing one is empty), "
        "$ARGUMENTS the text as typed; !`cmd` runs (never inside code); the arguments are "
        "appended when nothing takes them."
    ),
    "claude": (
        "Claude Code: $0 is the first argument ($N = $ARGUMENTS[N]), names from `arguments:` are "
        "$name, $ARGUMENTS the text as typed, a missing one stays as written; !`cmd` and ```! "
        "fences run (never inside code); ${CLAUDE_SKILL_DIR}, ${CLAUDE_PLUGIN_ROOT} and "
        "${CLAUDE_SESSION_ID} expand; 'ARGUMENTS: ...' is appended when nothing takes them."
    ),
    "claude-legacy": (
        "Claude Code, written before 2.1.19: $1 is the first argument (this file never uses $0), "
        "otherwise as Claude Code: a missing one stays as written; !`cmd` and ```! fences run; "
        "${CLAUDE_*} variables expand; 'ARGUMENTS: ...' is appended when nothing takes them."
    ),
    "gemini": (
        "Gemini CLI: {{args}} is the text as typed (shell-quoted inside !{...}); !{...} runs when "
        "its braces balance; @{path} attaches a file; without {{args}} the invocation is appended."
    ),
    "codex": (
        "Codex prompt: $1..$9 are the arguments (a missing one is empty), $ARGUMENTS all of them "
        "joined by spaces, $KEY comes from KEY=value (required when used outside code); $$ is a "
        "dollar sign; no shell blocks."
    ),
}
"""One paragraph per syntax, the rules ``command show`` says apply."""


def describe(syntax: TemplateSyntax) -> str:
    """The summary of ``syntax``'s rules (see ``SUMMARY``)."""
    return SUMMARY[syntax]
