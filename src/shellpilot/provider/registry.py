"""Resolve ``provider/model`` ids to a ready ``Provider`` from config and the environment.

Owns: which providers exist (config entries plus ``OPENAI_*`` / ``ANTHROPIC_*`` defaults), where
each key comes from, model-id checks, the clear errors for what is missing, the provider cache.
Must not touch: SDKs or the network (providers build their clients lazily), os.environ (passed in).
"""

from __future__ import annotations

import asyncio
import difflib
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, assert_never

from shellpilot.config.model import Config, ProviderConfig
from shellpilot.errors import ModelNotFound, ProviderError, ProviderNotConfigured
from shellpilot.provider.base import Provider
from shellpilot.provider.retry import RetryPolicy

ProviderType = Literal["openai", "anthropic"]

ENV_KEYS: dict[str, str] = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
"""The key variable of the provider *named* openai / anthropic (other names never read these)."""
ENV_BASE_URLS: dict[str, str] = {"openai": "OPENAI_BASE_URL", "anthropic": "ANTHROPIC_BASE_URL"}

SETUP_HELP = (
    "Configure a model in one of these ways:\n"
    "  - export OPENAI_API_KEY=sk-...  and use --model openai/gpt-4o-mini\n"
    "  - export ANTHROPIC_API_KEY=sk-ant-...  and use --model anthropic/claude-sonnet-4-5\n"
    "  - an OpenAI-compatible server (Ollama, vLLM, llama.cpp) in your user config,\n"
    "    $SHELLPILOT_CONFIG_DIR/shellpilot.json or ~/.config/shellpilot/shellpilot.json\n"
    "    (a project's own shellpilot.json may set base_url only when trusted: --trust):\n"
    '      {"provider": {"local": {"type": "openai", "base_url": "http://localhost:11434/v1"}},\n'
    '       "model": "local/llama3.2"}'
)
"""What a user sees when no model or provider is configured."""
_ID_HINT = 'Model ids are "provider/model", e.g. "openai/gpt-4o-mini" or "local/llama3.2".'


@dataclass(frozen=True)
class ProviderSettings:
    """One provider's effective settings; ``problem`` says what is missing (None = usable)."""

    name: str
    type: ProviderType
    base_url: str | None
    api_key: str | None
    key_hint: str
    models: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    max_retries: int = 3
    timeout_ms: int = 600_000
    problem: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    """Extra headers for every request (OpenAI's organization and project, from the environment)."""


@dataclass(frozen=True)
class ResolvedModel:
    """A model ready to stream: ``id`` is ``provider/model``; ``api_model`` goes on the wire.

    ``options`` is the model's entry under ``provider.<name>.models`` (``{}`` when unlisted);
    an ``"id"`` key there renames the model on the wire.
    """

    id: str
    provider_name: str
    model: str
    api_model: str
    provider: Provider
    options: Mapping[str, Any]


def _env_headers(ptype: ProviderType, env: Mapping[str, str]) -> dict[str, str]:
    """``OpenAI-Organization`` / ``OpenAI-Project`` from ``$OPENAI_ORG_ID`` / ``$OPENAI_PROJECT_ID``
    for an OpenAI-protocol provider, as the openai SDK's own client adds them."""
    if ptype != "openai":
        return {}
    names = {"OpenAI-Organization": "OPENAI_ORG_ID", "OpenAI-Project": "OPENAI_PROJECT_ID"}
    return {header: env[var] for header, var in names.items() if env.get(var)}


def _settings_from_config(name: str, entry: ProviderConfig, env: Mapping[str, str]) -> ProviderSettings:
    ptype: ProviderType = entry.type
    base_url = entry.base_url
    if base_url is None and name == ptype and env.get(ENV_BASE_URLS[ptype]):
        base_url = env[ENV_BASE_URLS[ptype]]
    problem: str | None = None
    key: str | None = None
    if entry.api_key:
        key, hint = entry.api_key, f'"provider.{name}.api_key" in shellpilot.json'
    elif entry.api_key_env:
        var = entry.api_key_env
        key, hint = env.get(var) or None, f"${var}"
        if key is None:
            problem = (
                f'Provider "{name}" reads its API key from ${var}, which is not set. '
                f'Run `export {var}=...`, or change "provider.{name}.api_key_env" in shellpilot.json.'
            )
    elif name == ptype:
        var = ENV_KEYS[ptype]
        key, hint = env.get(var) or None, f"${var}"
        if key is None and base_url is None:
            problem = (
                f'Provider "{name}" has no API key. Run `export {var}=...`, or set '
                f'"provider.{name}.api_key_env" to the variable holding it in shellpilot.json.'
            )
    else:
        hint = f'"provider.{name}.api_key_env"'
        if base_url is None:
            problem = (
                f'Provider "{name}" has neither an API key nor a base_url. Set "provider.{name}.api_key_env" '
                f'(e.g. "MY_KEY") or "provider.{name}.base_url" (e.g. "http://localhost:11434/v1").'
            )
    return ProviderSettings(
        name=name,
        type=ptype,
        base_url=base_url,
        api_key=key,
        key_hint=hint,
        models=dict(entry.models),
        max_retries=entry.max_retries,
        timeout_ms=entry.timeout_ms,
        problem=problem,
        headers=_env_headers(ptype, env),
    )


def provider_settings(config: Config, env: Mapping[str, str]) -> dict[str, ProviderSettings]:
    """Every provider: the config's entries, plus ``openai`` / ``anthropic`` implied by env vars.

    Pure: reads only ``config`` and ``env``. A provider missing its key is still listed, with
    ``problem`` set, so that only the provider actually used fails.
    """
    out = {name: _settings_from_config(name, entry, env) for name, entry in config.provider.items()}
    for ptype in ("openai", "anthropic"):
        if ptype not in out and (env.get(ENV_KEYS[ptype]) or env.get(ENV_BASE_URLS[ptype])):
            out[ptype] = ProviderSettings(
                name=ptype,
                type=ptype,
                base_url=env.get(ENV_BASE_URLS[ptype]) or None,
                api_key=env.get(ENV_KEYS[ptype]) or None,
                key_hint=f"${ENV_KEYS[ptype]}",
                headers=_env_headers(ptype, env),
            )
    return out


def split_model_id(model_id: str) -> tuple[str, str]:
    """``"openrouter/openai/gpt-4o"`` -> ``("openrouter", "openai/gpt-4o")``; ModelNotFound if malformed."""
    provider, sep, model = model_id.strip().partition("/")
    if not sep or not provider or not model:
        raise ModelNotFound(model_id, hint=_ID_HINT)
    return provider, model


def make_provider(settings: ProviderSettings, retry: RetryPolicy) -> Provider:
    """Build the provider object for ``settings`` (no HTTP client, no network yet)."""
    common: dict[str, Any] = {
        "api_key": settings.api_key,
        "base_url": settings.base_url,
        "timeout_s": settings.timeout_ms / 1000,
        "retry": retry,
        "key_hint": settings.key_hint,
    }
    if settings.type == "openai":
        from shellpilot.provider.openai import OpenAIProvider

        return OpenAIProvider(settings.name, **common, headers=settings.headers)
    if settings.type == "anthropic":
        from shellpilot.provider.anthropic import AnthropicProvider

        return AnthropicProvider(settings.name, **common)
    assert_never(settings.type)


class ProviderRegistry:
    """The providers of one run, built once at start-up and passed down.

    ``env`` is the environment to read keys from (pass ``os.environ`` at the CLI edge).
    ``providers`` adds ready-made providers by name (e.g. a ``ScriptedProvider`` in tests);
    they win over config entries and accept any model name. ``retry_base_delay_s`` and
    ``sleep`` shape the retry backoff (tests pass a tiny delay); ``on_retry(error, n, delay_s)``
    hears of each retry. Providers are cached by name.
    """

    def __init__(
        self,
        config: Config,
        *,
        env: Mapping[str, str],
        providers: Mapping[str, Provider] | None = None,
        retry_base_delay_s: float = 0.5,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        on_retry: Callable[[ProviderError, int, float], None] | None = None,
    ) -> None:
        self._config = config
        self._settings = provider_settings(config, env)
        self._cache: dict[str, Provider] = dict(providers or {})
        self._given = frozenset(self._cache)
        self._base_delay = retry_base_delay_s
        self._sleep = sleep
        self._on_retry = on_retry
        self._warned: set[str] = set()

    def names(self) -> list[str]:
        """Names of the providers that exist (usable or not), sorted."""
        return sorted(set(self._settings) | self._given)

    def settings(self, name: str) -> ProviderSettings | None:
        """The effective settings of provider ``name`` (None for given or unknown providers)."""
        return self._settings.get(name)

    def default_model(self) -> str:
        """The ``model`` config value; else the only model listed across providers.

        Raises ``ProviderNotConfigured`` (with ``SETUP_HELP``) when neither exists.
        """
        if self._config.model:
            return self._config.model
        listed = [f"{s.name}/{m}" for s in self._settings.values() for m in s.models]
        if len(listed) == 1:
            return listed[0]
        if listed:
            raise ProviderNotConfigured(
                'No default model. Set "model" in shellpilot.json or pass --model, one of: '
                + ", ".join(listed)
            )
        if self._settings:
            names = ", ".join(sorted(self._settings))
            raise ProviderNotConfigured(
                f"No model selected (providers available: {names}). Pass --model <provider>/<model> or set "
                f'"model": "{sorted(self._settings)[0]}/<model>" in shellpilot.json.'
            )
        raise ProviderNotConfigured("No model provider is configured.\n" + SETUP_HELP)

    def resolve(self, model_id: str | None = None) -> ResolvedModel:
        """Check ``model_id`` (default: ``default_model()``) and return it ready to stream.

        Raises ``ModelNotFound`` (malformed id, or a model the provider's ``models`` list lacks,
        with close matches) or ``ProviderNotConfigured`` (unknown provider, missing key) — each
        names the config key or environment variable to set. Nothing is contacted.
        """
        wanted = model_id or self.default_model()
        if "/" not in wanted and wanted.strip():
            owners = [s.name for s in self._settings.values() if wanted in s.models]
            if len(owners) != 1:
                usable = owners or [
                    n for n in self.names() if n in self._given or not self._settings[n].problem
                ]
                raise ModelNotFound(wanted, [f"{n}/{wanted}" for n in usable], hint=_ID_HINT)
            wanted = f"{owners[0]}/{wanted}"
        name, model = split_model_id(wanted)
        if name in self._given:
            return ResolvedModel(wanted, name, model, model, self._cache[name], {})
        settings = self._settings.get(name)
        if settings is None:
            raise ProviderNotConfigured(self._unknown_provider_text(name))
        if settings.problem:
            raise ProviderNotConfigured(settings.problem)
        if settings.models and model not in settings.models:
            close = difflib.get_close_matches(model, list(settings.models), n=3, cutoff=0.5)
            listed = ", ".join(settings.models)
            raise ModelNotFound(
                wanted,
                [f"{name}/{m}" for m in close],
                hint=f'Provider "{name}" lists: {listed}. Add it under "provider.{name}.models" to use it.',
            )
        options = dict(settings.models.get(model, {}))
        api_model = str(options.get("id") or model)
        return ResolvedModel(f"{name}/{model}", name, model, api_model, self.provider(name), options)

    def command_model(
        self, model: str, where: str = "", *, note: bool = True
    ) -> tuple[str | None, str | None]:
        """The ``provider/model`` id that runs a command file's ``model:`` value, and a warning.

        ``provider/model`` of a configured provider is kept. A bare model (or one whose
        provider is not configured, like ``anthropic/claude-x`` without an ``anthropic``
        provider) goes to a provider listing it, else to a usable provider of its family
        (``family.family_of``/``provider_family``: ``sonnet`` to any Anthropic-type
        provider, whatever its name; aliases via ``family.family_model``). When none can
        run it the id is None (the caller uses the session's model) and the warning says
        so, once per model name for this registry (``note=False``: a look that neither
        warns nor counts as the once). ``where`` names the command.
        """
        from shellpilot.provider.family import family_model, family_of, provider_family

        raw = model.strip()
        head, sep, tail = raw.partition("/")
        if sep and (head in self._given or head in self._settings):
            return raw, None
        bare = tail if sep and tail else raw
        usable = {n: s for n, s in self._settings.items() if not s.problem}
        owners = [n for n, s in usable.items() if bare in s.models]
        if owners:
            return f"{sorted(owners)[0]}/{bare}", None
        family = family_of(bare)
        if family is not None:
            candidates = sorted(
                (n for n, s in usable.items() if provider_family(n, s.type, s.base_url) == family),
                key=lambda n: (n != family, n),
            )
            candidates += [n for n in sorted(self._given) if n == family]
            for name in candidates:
                settings = usable.get(name)
                chosen = family_model(bare, settings.models if settings else ())
                if settings is None or not settings.models or chosen in settings.models:
                    return f"{name}/{chosen}", None
        if raw in self._warned or not note:
            return None, None
        self._warned.add(raw)
        source = f" (from {where})" if where else ""
        if family is None:
            return None, (
                f'model "{raw}"{source} is not a provider/model id that a configured provider has; '
                "using the session's model instead"
            )
        article, kind = {
            "anthropic": ("an", "Anthropic"),
            "openai": ("an", "OpenAI"),
            "google": ("a", "Google"),
        }[family]
        return None, (
            f'model "{raw}"{source} is {article} {kind} model, but no {kind} provider is configured that '
            "can run it; using the session's model instead"
        )

    def provider(self, name: str) -> Provider:
        """The cached provider ``name`` (built on first use); ProviderNotConfigured if unusable."""
        cached = self._cache.get(name)
        if cached is not None:
            return cached
        settings = self._settings.get(name)
        if settings is None:
            raise ProviderNotConfigured(self._unknown_provider_text(name))
        if settings.problem:
            raise ProviderNotConfigured(settings.problem)
        retry = RetryPolicy(
            max_retries=settings.max_retries,
            base_delay_s=self._base_delay,
            sleep=self._sleep,
            on_retry=self._on_retry,
        )
        built = make_provider(settings, retry)
        self._cache[name] = built
        return built

    def _unknown_provider_text(self, name: str) -> str:
        if name in ENV_KEYS:
            var = ENV_KEYS[name]
            extra = " (and OPENAI_BASE_URL for a compatible server)" if name == "openai" else ""
            return (
                f'Provider "{name}" is not configured. Run `export {var}=...`{extra}, or add '
                f'"provider": {{"{name}": {{"type": "{name}", "api_key_env": "{var}"}}}} to shellpilot.json.'
            )
        known = self.names()
        close = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        text = f'No provider named "{name}" is configured'
        text += f" (did you mean: {', '.join(close)}?)." if close else "."
        if known:
            text += f" Configured: {', '.join(known)}."
        return (
            text + f' Add it to shellpilot.json, e.g. "provider": {{"{name}": {{"type": "openai", '
            '"base_url": "http://localhost:11434/v1"}}.'
        )

    async def aclose(self) -> None:
        """Close every provider's HTTP client."""
        for provider in list(self._cache.values()):
            await provider.aclose()
