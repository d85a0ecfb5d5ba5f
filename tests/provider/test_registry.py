"""Model-id resolution from config and env, and the errors that say what to set."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from shellpilot.config.model import Config
from shellpilot.errors import ModelNotFound, ProviderNotConfigured
from shellpilot.provider.anthropic import AnthropicProvider
from shellpilot.provider.openai import OpenAIProvider
from shellpilot.provider.registry import (
    SETUP_HELP,
    ProviderRegistry,
    provider_settings,
    split_model_id,
)
from shellpilot.provider.scripted import ScriptedProvider


def registry(config: dict[str, Any] | None = None, **env: str) -> ProviderRegistry:
    return ProviderRegistry(Config.model_validate(config or {}), env=env)


def test_openai_from_environment_key_and_base_url() -> None:
    reg = registry(OPENAI_API_KEY="sk-env", OPENAI_BASE_URL="http://127.0.0.1:9/v1")
    resolved = reg.resolve("openai/gpt-4o-mini")
    assert (resolved.id, resolved.provider_name, resolved.model, resolved.api_model) == (
        "openai/gpt-4o-mini",
        "openai",
        "gpt-4o-mini",
        "gpt-4o-mini",
    )
    assert isinstance(resolved.provider, OpenAIProvider)
    assert resolved.provider.base_url == "http://127.0.0.1:9/v1"
    settings = reg.settings("openai")
    assert settings is not None and (settings.api_key, settings.key_hint) == ("sk-env", "$OPENAI_API_KEY")


def test_anthropic_from_environment_key() -> None:
    resolved = registry(ANTHROPIC_API_KEY="sk-ant").resolve("anthropic/claude-sonnet-4-5")
    assert isinstance(resolved.provider, AnthropicProvider)
    assert resolved.provider.base_url == "https://api.anthropic.com"


def test_config_model_is_the_default_and_providers_are_cached() -> None:
    reg = registry(
        {
            "provider": {"local": {"type": "openai", "base_url": "http://127.0.0.1:11434/v1"}},
            "model": "local/qwen",
        }
    )
    first = reg.resolve()
    assert first.id == "local/qwen"
    assert reg.resolve("local/llama3.2").provider is first.provider
    assert reg.provider("local") is first.provider


def test_model_options_may_rename_the_wire_model() -> None:
    config = {
        "provider": {
            "router": {
                "type": "openai",
                "base_url": "http://127.0.0.1:1/v1",
                "models": {"fast": {"id": "openai/gpt-4o-mini", "max_tokens": 512}},
            }
        }
    }
    resolved = registry(config).resolve("router/fast")
    assert resolved.api_model == "openai/gpt-4o-mini"
    assert resolved.options == {"id": "openai/gpt-4o-mini", "max_tokens": 512}


def test_model_names_with_slashes_keep_everything_after_the_provider() -> None:
    assert split_model_id("openrouter/meta-llama/llama-3-8b") == ("openrouter", "meta-llama/llama-3-8b")
    reg = registry({"provider": {"openrouter": {"type": "openai", "base_url": "http://127.0.0.1:1/v1"}}})
    assert reg.resolve("openrouter/meta-llama/llama-3-8b").api_model == "meta-llama/llama-3-8b"


def test_a_bare_model_name_suggests_it_under_each_usable_provider() -> None:
    reg = registry({"provider": {"broken": {"type": "openai"}}}, OPENAI_API_KEY="k", ANTHROPIC_API_KEY="k")
    with pytest.raises(ModelNotFound) as info:
        reg.resolve("gpt-4o")
    assert info.value.suggestions == ["anthropic/gpt-4o", "openai/gpt-4o"]
    assert str(info.value).startswith(
        "Model not found: gpt-4o. Did you mean: anthropic/gpt-4o, openai/gpt-4o?"
    )


def test_a_bare_model_name_listed_by_one_provider_is_found() -> None:
    config = {"provider": {"local": {"type": "openai", "base_url": "http://x/v1", "models": {"qwen3": {}}}}}
    assert registry(config).resolve("qwen3").id == "local/qwen3"


@pytest.mark.parametrize("bad", ["gpt-4o", "openai/", "/gpt-4o", ""])
def test_malformed_model_id_explains_the_format(bad: str) -> None:
    with pytest.raises(ModelNotFound, match=r'Model ids are "provider/model", e.g. "openai/gpt-4o-mini"'):
        registry(OPENAI_API_KEY="k").resolve(bad or " ")


def test_missing_openai_key_names_the_variable() -> None:
    with pytest.raises(ProviderNotConfigured) as info:
        registry().resolve("openai/gpt-4o")
    text = str(info.value)
    assert 'Provider "openai" is not configured' in text
    assert "export OPENAI_API_KEY=" in text
    assert '"provider": {"openai": {"type": "openai", "api_key_env": "OPENAI_API_KEY"}}' in text


def test_missing_anthropic_key_names_the_variable() -> None:
    with pytest.raises(ProviderNotConfigured, match=r"export ANTHROPIC_API_KEY=\.\.\."):
        registry(OPENAI_API_KEY="k").resolve("anthropic/claude-sonnet-4-5")


def test_configured_openai_entry_without_key_or_base_url_names_the_variable() -> None:
    reg = registry({"provider": {"openai": {"type": "openai"}}})
    with pytest.raises(
        ProviderNotConfigured, match=r'Provider "openai" has no API key\. Run `export OPENAI_API_KEY'
    ):
        reg.resolve("openai/gpt-4o")


def test_api_key_env_that_is_unset_names_that_variable() -> None:
    reg = registry({"provider": {"work": {"type": "anthropic", "api_key_env": "WORK_CLAUDE_KEY"}}})
    with pytest.raises(ProviderNotConfigured) as info:
        reg.resolve("work/claude-opus-4")
    assert "$WORK_CLAUDE_KEY, which is not set" in str(info.value)
    assert '"provider.work.api_key_env"' in str(info.value)


def test_api_key_env_and_literal_key_are_used() -> None:
    reg = registry(
        {
            "provider": {
                "a": {"type": "anthropic", "api_key_env": "A_KEY"},
                "b": {"type": "openai", "api_key": "literal", "base_url": "http://x/v1"},
            }
        },
        A_KEY="from-env",
    )
    a, b = reg.settings("a"), reg.settings("b")
    assert a is not None and (a.api_key, a.key_hint) == ("from-env", "$A_KEY")
    assert b is not None and (b.api_key, b.key_hint) == ("literal", '"provider.b.api_key" in shellpilot.json')


def test_other_provider_names_never_read_the_openai_key() -> None:
    reg = registry(
        {"provider": {"ollama": {"type": "openai", "base_url": "http://127.0.0.1:11434/v1"}}},
        OPENAI_API_KEY="sk-real-secret",
    )
    settings = reg.settings("ollama")
    assert settings is not None and settings.api_key is None and settings.problem is None
    reg.resolve("ollama/llama3.2")


def test_custom_provider_without_key_or_base_url_says_which_to_set() -> None:
    reg = registry({"provider": {"corp": {"type": "openai"}}})
    with pytest.raises(ProviderNotConfigured, match=r'"provider.corp.api_key_env".*"provider.corp.base_url"'):
        reg.resolve("corp/gpt")


def test_only_the_used_provider_must_be_usable() -> None:
    reg = registry(
        {"provider": {"broken": {"type": "openai"}, "ok": {"type": "openai", "base_url": "http://x/v1"}}}
    )
    assert reg.resolve("ok/m").provider_name == "ok"


def test_unknown_provider_suggests_close_names_and_shows_an_example() -> None:
    reg = registry({"provider": {"ollama": {"type": "openai", "base_url": "http://x/v1"}}})
    with pytest.raises(ProviderNotConfigured) as info:
        reg.resolve("olama/llama3")
    text = str(info.value)
    assert 'No provider named "olama" is configured (did you mean: ollama?)' in text
    assert '"provider": {"olama": {"type": "openai", "base_url": "http://localhost:11434/v1"}}' in text


def test_model_missing_from_the_list_suggests_close_ones() -> None:
    config = {
        "provider": {
            "local": {
                "type": "openai",
                "base_url": "http://x/v1",
                "models": {"llama3.2": {}, "qwen2.5-coder": {}},
            }
        }
    }
    with pytest.raises(ModelNotFound) as info:
        registry(config).resolve("local/llama3")
    err = info.value
    assert err.suggestions == ["local/llama3.2"]
    assert str(err).startswith("Model not found: local/llama3. Did you mean: local/llama3.2?")
    assert 'Add it under "provider.local.models"' in str(err)


def test_no_provider_at_all_shows_setup_help() -> None:
    with pytest.raises(ProviderNotConfigured) as info:
        registry().resolve()
    assert SETUP_HELP in str(info.value)
    assert "OPENAI_API_KEY" in str(info.value) and "http://localhost:11434/v1" in str(info.value)


def test_no_model_with_a_provider_says_how_to_pick_one() -> None:
    with pytest.raises(
        ProviderNotConfigured, match=r'--model <provider>/<model> or set "model": "openai/<model>"'
    ):
        registry(OPENAI_API_KEY="k").resolve()


def test_a_single_listed_model_is_the_default() -> None:
    config = {"provider": {"local": {"type": "openai", "base_url": "http://x/v1", "models": {"qwen3": {}}}}}
    assert registry(config).default_model() == "local/qwen3"


def test_given_providers_win_and_accept_any_model() -> None:
    scripted = ScriptedProvider(name="fake")
    reg = ProviderRegistry(Config(), env={}, providers={"fake": scripted})
    resolved = reg.resolve("fake/anything")
    assert resolved.provider is scripted and resolved.api_model == "anything"
    assert "fake" in reg.names()


def test_config_retry_settings_reach_the_provider() -> None:
    config = Config.model_validate(
        {
            "provider": {
                "x": {"type": "openai", "base_url": "http://x/v1", "max_retries": 7, "timeout_ms": 1500}
            }
        }
    )
    settings = provider_settings(config, {})["x"]
    assert (settings.max_retries, settings.timeout_ms) == (7, 1500)
    heard: list[int] = []
    reg = ProviderRegistry(config, env={}, retry_base_delay_s=0.01, on_retry=lambda e, n, d: heard.append(n))
    provider = reg.provider("x")
    assert isinstance(provider, OpenAIProvider)
    assert provider._retry.max_retries == 7 and provider._retry.base_delay_s == 0.01
    assert provider._retry.on_retry is not None
    assert provider.endpoint.timeout_s == 1.5


def test_resolving_imports_no_sdk() -> None:
    code = (
        "import sys\nfrom shellpilot.config.model import Config\n"
        "from shellpilot.provider import ProviderRegistry\n"
        "r = ProviderRegistry(Config(), env={'OPENAI_API_KEY': 'k', 'ANTHROPIC_API_KEY': 'k'})\n"
        "r.resolve('openai/gpt-4o'); r.resolve('anthropic/claude')\n"
        "import json; print(json.dumps([m for m in ('openai', 'anthropic', 'httpx2') if m in sys.modules]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
async def test_resolved_model_streams_from_the_configured_server_with_retry_notice(protocol: str) -> None:
    from shellpilot.provider.base import ModelRequest, TextDelta, UserMessage
    from shellpilot.testing import ScriptedModelServer, Turn

    heard: list[tuple[int | None, int, float]] = []
    with ScriptedModelServer([Turn(error_status=503), Turn(text="hello from the server")]) as server:
        config = Config.model_validate(
            {"provider": {"srv": server.provider_config(protocol)}, "model": "srv/scripted-1"}
        )

        async def no_wait(_: float) -> None:
            return None

        reg = ProviderRegistry(
            config, env={}, sleep=no_wait, on_retry=lambda err, n, delay: heard.append((err.status, n, delay))
        )
        resolved = reg.resolve()
        request = ModelRequest(model=resolved.api_model, messages=[UserMessage(content="hi")])
        events = [e async for e in resolved.provider.stream(request)]
        await reg.aclose()
        assert [r.body["model"] for r in server.requests] == ["scripted-1", "scripted-1"]
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "hello from the server"
    assert heard == [(503, 1, 0.5)]


def test_openai_organization_and_project_come_from_the_environment() -> None:
    env = {"OPENAI_API_KEY": "k", "OPENAI_ORG_ID": "org-1", "OPENAI_PROJECT_ID": "proj-2"}
    env["ANTHROPIC_API_KEY"] = "k"
    settings = provider_settings(Config(), env)
    assert settings["openai"].headers == {"OpenAI-Organization": "org-1", "OpenAI-Project": "proj-2"}
    assert settings["anthropic"].headers == {}
    provider = ProviderRegistry(Config(), env=env).provider("openai")
    assert isinstance(provider, OpenAIProvider)
    assert provider.endpoint.headers["OpenAI-Project"] == "proj-2"
