"""Model families: which configured provider can run a model a command file names bare.

Owns: recognising a family from a model name (``sonnet``, ``claude-*``, ``gpt-*``,
``gemini-*``), a provider's family from its settings, and the alias table. Must not
touch: SDKs, the network or the registry's cache (registry.py asks these functions).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

Family = Literal["anthropic", "openai", "google"]

ALIASES: dict[str, str] = {
    "sonnet": "claude-sonnet-4-5",
    "opus": "claude-opus-4-1",
    "haiku": "claude-haiku-4-5",
    "opusplan": "claude-opus-4-1",
}
"""Claude Code's model aliases and the Anthropic API model each means here, used when the
provider lists no model of that kind (list one under ``provider.<name>.models`` to choose)."""

_OPENAI = re.compile(r"^(gpt-|chatgpt-|codex-|o[1-9](-|$))")
_FAMILY_NAMES: dict[Family, tuple[str, ...]] = {
    "anthropic": ("anthropic", "claude"),
    "openai": ("openai",),
    "google": ("google", "gemini", "vertex"),
}


def family_of(model: str) -> Family | None:
    """The family a bare model name belongs to, or None (``llama3``: no known family).

    ``sonnet``, ``opus``, ``haiku``, ``opusplan`` and ``claude-*`` are Anthropic's;
    ``gpt-*``, ``chatgpt-*``, ``codex-*`` and ``o1``..``o9`` models OpenAI's; ``gemini-*`` Google's.
    """
    name = model.strip().lower()
    if name in ALIASES or name.startswith("claude-"):
        return "anthropic"
    if _OPENAI.match(name):
        return "openai"
    if name.startswith("gemini-"):
        return "google"
    return None


def provider_family(name: str, ptype: str, base_url: str | None) -> Family | None:
    """The family of models a provider serves: every ``anthropic`` provider Anthropic's;
    an ``openai`` one OpenAI's when it talks to OpenAI (no ``base_url``, or
    ``api.openai.com``), Google's when its ``base_url`` is Google's OpenAI-compatible
    endpoint; any other compatible server (Ollama, vLLM) none, unless its name says it
    (``openai``, ``google``, ``gemini``)."""
    if ptype == "anthropic":
        return "anthropic"
    url = (base_url or "").lower()
    if "googleapis.com" in url:
        return "google"
    if not url or "api.openai.com" in url:
        return "openai"
    lowered = name.lower()
    for family, names in _FAMILY_NAMES.items():
        if lowered in names:
            return family
    return None


def family_model(model: str, listed: Sequence[str] | Mapping[str, Any]) -> str:
    """The model id to ask a provider of the right family for: an alias (``sonnet``) becomes
    the newest-looking listed model holding that word, else ``ALIASES``; others as written."""
    name = model.strip()
    alias = name.lower()
    if alias in ALIASES:
        word = "opus" if alias == "opusplan" else alias
        matches = sorted((m for m in listed if word in m.lower()), reverse=True)
        return matches[0] if matches else ALIASES[alias]
    return name
