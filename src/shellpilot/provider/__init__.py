"""Model providers: one streaming protocol over OpenAI-compatible and Anthropic endpoints.

Owns: the public face of ``shellpilot.provider``. Must not touch: HTTP at import time (httpx2
loads when a provider first sends; no provider SDK is imported at all).

Public names:

- Request data (pydantic, frozen): ``ModelRequest`` (model, system, messages, tools,
  tool_choice ``auto | required | none``, temperature, max_tokens), ``Message`` =
  ``UserMessage | AssistantMessage | ToolResultMessage`` (by ``role``), ``ToolCallRequest``,
  ``ToolSpec`` (name, description, parameters JSON schema).
- Events (frozen dataclasses, by ``type``): ``ProviderEvent`` = ``TextDelta | ToolCallStart |
  ToolCallDelta | ToolCallEnd | Usage | Finish``; ``FinishReason`` = ``stop | tool_calls |
  length | error | other``.
- ``Provider``: ``name``, ``stream(request) -> AsyncIterator[ProviderEvent]``, ``aclose()``.
  Implementations: ``OpenAIProvider``, ``AnthropicProvider``, ``ScriptedProvider`` (tests).
- ``ProviderRegistry(config, env=os.environ)``: ``resolve("provider/model") -> ResolvedModel``
  (raises ``ModelNotFound`` / ``ProviderNotConfigured`` before anything runs),
  ``default_model()``, ``provider(name)``, ``aclose()``; ``provider_settings``, ``SETUP_HELP``.
- ``RetryPolicy`` (bounded exponential backoff, injectable sleep), ``Turn`` / ``ToolCall``
  (scripts for ``ScriptedProvider`` and ``shellpilot.testing.ScriptedModelServer``).
"""

from __future__ import annotations

from shellpilot.provider.anthropic import AnthropicProvider
from shellpilot.provider.base import (
    AssistantMessage,
    Finish,
    FinishReason,
    Message,
    ModelRequest,
    Provider,
    ProviderEvent,
    TextDelta,
    ToolCallDelta,
    ToolCallEnd,
    ToolCallRequest,
    ToolCallStart,
    ToolChoice,
    ToolResultMessage,
    ToolSpec,
    Usage,
    UserMessage,
)
from shellpilot.provider.openai import OpenAIProvider
from shellpilot.provider.registry import (
    SETUP_HELP,
    ProviderRegistry,
    ProviderSettings,
    ResolvedModel,
    provider_settings,
)
from shellpilot.provider.retry import RetryPolicy
from shellpilot.provider.scripted import ScriptedProvider, ToolCall, Turn

__all__ = [
    "SETUP_HELP",
    "AnthropicProvider",
    "AssistantMessage",
    "Finish",
    "FinishReason",
    "Message",
    "ModelRequest",
    "OpenAIProvider",
    "Provider",
    "ProviderEvent",
    "ProviderRegistry",
    "ProviderSettings",
    "ResolvedModel",
    "RetryPolicy",
    "ScriptedProvider",
    "TextDelta",
    "ToolCall",
    "ToolCallDelta",
    "ToolCallEnd",
    "ToolCallRequest",
    "ToolCallStart",
    "ToolChoice",
    "ToolResultMessage",
    "ToolSpec",
    "Turn",
    "Usage",
    "UserMessage",
    "provider_settings",
]
