"""A command file's ``model:`` resolved by family to whatever provider the user configured."""

from __future__ import annotations

from typing import Any

import pytest

from shellpilot.config.model import Config
from shellpilot.provider.family import family_model, family_of, provider_family
from shellpilot.provider.registry import ProviderRegistry


def registry(providers: dict[str, Any], **env: str) -> ProviderRegistry:
    return ProviderRegistry(Config.model_validate({"provider": providers}), env=env)


@pytest.mark.parametrize(
    ("model", "family"),
    [
        ("sonnet", "anthropic"),
        ("Opus", "anthropic"),
        ("haiku", "anthropic"),
        ("claude-sonnet-4-0", "anthropic"),
        ("claude-3-5-haiku-20241022", "anthropic"),
        ("gpt-4o", "openai"),
        ("o3-mini", "openai"),
        ("o1", "openai"),
        ("gemini-2.5-pro", "google"),
        ("llama3.2", None),
        ("omni", None),
    ],
)
def test_family_of(model: str, family: str | None) -> None:
    assert family_of(model) == family


def test_provider_family_is_its_type_and_endpoint_not_its_name() -> None:
    assert provider_family("work-claude", "anthropic", "https://gateway.example/v1") == "anthropic"
    assert provider_family("mine", "openai", None) == "openai"
    assert (
        provider_family("gem", "openai", "https://generativelanguage.googleapis.com/v1beta/openai/")
        == "google"
    )
    assert provider_family("local", "openai", "http://localhost:11434/v1") is None


def test_alias_picks_a_listed_model_of_its_kind() -> None:
    assert (
        family_model("sonnet", ["claude-haiku-4-5", "claude-sonnet-4-5", "claude-sonnet-4-0"])
        == "claude-sonnet-4-5"
    )
    assert family_model("sonnet", []) == "claude-sonnet-4-5"
    assert family_model("claude-sonnet-4-0", []) == "claude-sonnet-4-0"


def test_claude_model_goes_to_an_anthropic_provider_whatever_its_name() -> None:
    reg = registry({"corp": {"type": "anthropic", "base_url": "http://127.0.0.1:9", "api_key": "k"}})
    assert reg.command_model("sonnet") == ("corp/claude-sonnet-4-5", None)
    assert reg.command_model("claude-3-5-haiku-20241022") == ("corp/claude-3-5-haiku-20241022", None)
    assert reg.command_model("anthropic/claude-opus-4-1") == ("corp/claude-opus-4-1", None)
    assert reg.resolve(reg.command_model("haiku")[0]).provider_name == "corp"


def test_only_an_openai_compatible_provider_gives_one_warning() -> None:
    reg = registry({"local": {"type": "openai", "base_url": "http://127.0.0.1:9/v1"}})
    model, warning = reg.command_model("sonnet", "/think")
    assert (
        model is None and warning is not None and "no Anthropic provider" in warning and "/think" in warning
    )
    assert reg.command_model("sonnet", "/think") == (None, None)  # once
    assert reg.command_model("local/llama3.2") == ("local/llama3.2", None)
    assert reg.command_model("llama3.2")[0] is None


def test_listed_model_and_restricted_lists() -> None:
    reg = registry(
        {
            "openai": {"type": "openai", "api_key": "k", "models": {"gpt-4o": {}}},
            "lab": {"type": "openai", "base_url": "http://127.0.0.1:9/v1", "models": {"qwen2.5": {}}},
        }
    )
    assert reg.command_model("qwen2.5") == ("lab/qwen2.5", None)
    assert reg.command_model("gpt-4o") == ("openai/gpt-4o", None)
    model, warning = reg.command_model("gpt-5", note=False)
    assert model is None and warning is None  # not listed by the one OpenAI provider; note=False is silent
