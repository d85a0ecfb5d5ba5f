"""What ScriptedModelServer received: each request, read the same way on both protocols.

Owns: ``RecordedRequest`` / ``RecordedToolResult`` (plain data + readers). Must not touch: sockets.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

WireProtocol = Literal["openai", "anthropic"]


@dataclass(frozen=True)
class RecordedToolResult:
    """A tool result the client sent back; ``is_error`` is None on the OpenAI wire (no flag there)."""

    call_id: str
    content: str
    is_error: bool | None


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server got it: ``headers`` have lower-case names, ``body`` is the JSON,
    ``raw_body`` the bytes as they arrived (to check the encoding itself).

    Properties ``messages`` and ``system`` read the body; the methods ``tool_names()``,
    ``tool_choice()``, ``user_texts()`` and ``tool_results()`` read it the same way on both
    protocols.
    """

    protocol: WireProtocol
    path: str
    headers: Mapping[str, str]
    body: Mapping[str, Any]
    raw_body: bytes = b""

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The request's ``messages`` list, as sent."""
        return list(self.body.get("messages") or [])

    @property
    def system(self) -> str:
        """The system prompt (OpenAI: the system messages joined; Anthropic: ``system``)."""
        if self.protocol == "anthropic":
            return _text_of(self.body.get("system") or "")
        return "\n".join(_text_of(m.get("content")) for m in self.messages if m.get("role") == "system")

    def tool_names(self) -> list[str]:
        """Names of the tools offered to the model."""
        tools = self.body.get("tools") or []
        if self.protocol == "openai":
            return [t.get("function", {}).get("name", "") for t in tools]
        return [t.get("name", "") for t in tools]

    def tool_choice(self) -> str | None:
        """``auto`` / ``required`` / ``none`` (Anthropic's ``any`` reads as ``required``), or None."""
        choice = self.body.get("tool_choice")
        if isinstance(choice, dict):
            choice = {"any": "required"}.get(choice.get("type", ""), choice.get("type"))
        return choice if isinstance(choice, str) else None

    def user_texts(self) -> list[str]:
        """Every text the user side sent, in order (tool results excluded)."""
        out: list[str] = []
        for message in self.messages:
            if message.get("role") != "user":
                continue
            content = message.get("content")
            if isinstance(content, list):
                out.extend(b.get("text", "") for b in content if b.get("type") == "text")
            else:
                out.append(_text_of(content))
        return out

    def tool_results(self) -> list[RecordedToolResult]:
        """Every tool result in the request, in order, on either protocol."""
        out: list[RecordedToolResult] = []
        for message in self.messages:
            if self.protocol == "openai" and message.get("role") == "tool":
                out.append(
                    RecordedToolResult(
                        message.get("tool_call_id", ""), _text_of(message.get("content")), None
                    )
                )
            elif self.protocol == "anthropic" and isinstance(message.get("content"), list):
                for block in message["content"]:
                    if block.get("type") == "tool_result":
                        out.append(
                            RecordedToolResult(
                                block.get("tool_use_id", ""),
                                _text_of(block.get("content")),
                                bool(block.get("is_error", False)),
                            )
                        )
        return out


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return "" if content is None else str(content)
