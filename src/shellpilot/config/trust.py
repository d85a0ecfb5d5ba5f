"""Workspace trust: which keys of an untrusted project's config files are dropped, and why.

Owns: the trust decision and the pure filter over parsed config data. Must not touch: files,
the terminal (the CLI prints ``trust_warning``); load.py reads files and calls these.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

TRUST_ENV = "SHELLPILOT_TRUST_PROJECT"
"""Set to ``1`` to trust the project's own config files for this process."""

_PROVIDER_ENDPOINT_KEYS = ("base_url", "api_key_env", "api_key")
_MODE_STRICTNESS = {"off": 0, "workspace-write": 1, "auto": 2, "read-only": 3}
"""How much each sandbox mode confines (higher = tighter); unknown values are left to validation."""


def env_trusts(env: Mapping[str, str]) -> bool:
    """True when ``SHELLPILOT_TRUST_PROJECT`` is ``1`` (also ``true``/``yes``) in ``env``."""
    return env.get(TRUST_ENV, "").strip().lower() in ("1", "true", "yes")


def listed_as_trusted(project: Path, trusted_projects: Any) -> bool:
    """True when ``project`` (already resolved) is one of the user config's ``trusted_projects``.

    Each entry is ``~``-expanded and resolved before comparing; non-string entries are skipped
    (validation reports them). Only exact paths count: trusting a folder does not trust its
    sub-folders (like ``direnv allow`` / ``mise trust``).
    """
    if not isinstance(trusted_projects, list):
        return False
    for entry in trusted_projects:
        if isinstance(entry, str) and entry.strip() and Path(os.path.expanduser(entry)).resolve() == project:
            return True
    return False


def _drop_allow(value: Any, where: str, dropped: list[str]) -> Any:
    """``value`` (a permission config) without its ``allow`` actions; None if nothing is left
    of a bare action. Appends each dropped key path to ``dropped``."""
    if value == "allow":
        dropped.append(where)
        return None
    if not isinstance(value, dict):
        return value
    kept: dict[str, Any] = {}
    for key, inner in value.items():
        rest = _drop_allow(inner, f"{where}.{key}", dropped)
        if rest is not None:
            kept[key] = rest
    return kept


def _tighten_sandbox(value: Any, base: Any, dropped: list[str]) -> Any:
    """An untrusted ``sandbox`` section reduced to what only tightens ``base`` (the
    ``sandbox`` section merged from the files before it, or None).

    ``mode`` stays only when it confines at least as much as the base mode (off <
    workspace-write < auto < read-only); ``network: true`` and ``required: false`` are
    dropped when the base says otherwise; ``writable`` stays only when every entry is
    already in the base list; ``protected`` is added to the base list, never replacing it.
    """
    if not isinstance(value, dict):
        return value
    prior: dict[str, Any] = base if isinstance(base, dict) else {}
    out = dict(value)
    mode = _MODE_STRICTNESS.get(str(out.get("mode")))
    prior_mode = _MODE_STRICTNESS.get(str(prior.get("mode", "auto")))
    if mode is not None and prior_mode is not None and mode < prior_mode:
        dropped.append("sandbox.mode")
        del out["mode"]
    if out.get("network") is True:
        if prior.get("network", True) is not True:
            dropped.append("sandbox.network")
        del out["network"]
    if out.get("required") is False:
        if prior.get("required") is True:
            dropped.append("sandbox.required")
        del out["required"]
    writable = out.get("writable")
    if isinstance(writable, list):
        known = prior.get("writable")
        allowed: list[Any] = known if isinstance(known, list) else []
        if any(entry not in allowed for entry in writable):
            dropped.append("sandbox.writable")
            del out["writable"]
    protected = out.get("protected")
    if isinstance(protected, list) and isinstance(prior.get("protected"), list):
        out["protected"] = list(dict.fromkeys([*prior["protected"], *protected]))
    return out


def strip_untrusted(
    data: dict[str, Any], base: Mapping[str, Any] | None = None
) -> tuple[dict[str, Any], list[str]]:
    """Drop from one untrusted project file's data every key that could run code or loosen
    prompts or the sandbox; return the rest and the dotted key paths dropped (in file order).

    Dropped: every ``mcp`` server, ``shell.path`` (also a bare ``"shell": "..."``),
    ``shell.env``, ``provider.<name>.base_url/api_key_env/api_key``, ``trusted_projects``,
    ``tool_output.retention_days`` (the start-up clean-up it sets removes every project's
    spill files),
    each permission rule whose action is ``allow`` (top-level ``permission`` and
    ``agent.<name>.permission``), and whatever of ``sandbox`` would loosen it compared with
    ``base`` (the config data merged from the files read before this one; see
    ``_tighten_sandbox``). ``deny``/``ask`` rules and everything else stay: a repo may make
    things stricter, never looser. Pure: ``data`` and ``base`` are not modified.
    """
    out = dict(data)
    dropped: list[str] = []
    mcp = out.get("mcp")
    if isinstance(mcp, dict) and mcp:
        dropped += [f"mcp.{name}" for name in mcp]
    out.pop("mcp", None)
    shell = out.get("shell")
    if isinstance(shell, str):
        dropped.append("shell.path")
        del out["shell"]
    elif isinstance(shell, dict):
        kept_shell = dict(shell)
        for key in ("path", "env"):
            if key in kept_shell:
                dropped.append(f"shell.{key}")
                del kept_shell[key]
        out["shell"] = kept_shell
    providers = out.get("provider")
    if isinstance(providers, dict):
        kept_providers: dict[str, Any] = {}
        for name, entry in providers.items():
            if isinstance(entry, dict):
                entry = dict(entry)
                for key in _PROVIDER_ENDPOINT_KEYS:
                    if key in entry:
                        dropped.append(f"provider.{name}.{key}")
                        del entry[key]
            kept_providers[name] = entry
        out["provider"] = kept_providers
    if "trusted_projects" in out:
        dropped.append("trusted_projects")
        del out["trusted_projects"]
    output = out.get("tool_output")
    if isinstance(output, dict) and "retention_days" in output:
        # the clean-up at start-up covers every project's spill files in the data dir
        dropped.append("tool_output.retention_days")
        out["tool_output"] = {k: v for k, v in output.items() if k != "retention_days"}
    if "permission" in out:
        rest = _drop_allow(out["permission"], "permission", dropped)
        if rest is None:
            del out["permission"]
        else:
            out["permission"] = rest
    agents = out.get("agent")
    if isinstance(agents, dict):
        kept_agents: dict[str, Any] = {}
        for name, agent in agents.items():
            if isinstance(agent, dict) and "permission" in agent:
                agent = dict(agent)
                rest = _drop_allow(agent["permission"], f"agent.{name}.permission", dropped)
                if rest is None:
                    del agent["permission"]
                else:
                    agent["permission"] = rest
            kept_agents[name] = agent
        out["agent"] = kept_agents
    if "sandbox" in out:
        out["sandbox"] = _tighten_sandbox(out["sandbox"], (base or {}).get("sandbox"), dropped)
    return out, dropped


def trust_warning(ignored: list[str], project: Path | None, user_file: Path) -> str | None:
    """The one-line warning naming what an untrusted project's config had ignored and the
    three ways to trust it; None when nothing was ignored.

    ``ignored`` holds ``LoadedConfig.ignored`` entries (``key (file)``); ``user_file`` is the
    user config file where ``trusted_projects`` goes.
    """
    if not ignored:
        return None
    where = f'"{project}"' if project is not None else "the project path"
    return (
        f"ignored settings from this untrusted project's config: {', '.join(ignored)}. "
        f"To trust this project pass --trust, set {TRUST_ENV}=1, or add {where} to "
        f'"trusted_projects" in {user_file}.'
    )


__all__ = ["TRUST_ENV", "env_trusts", "listed_as_trusted", "strip_untrusted", "trust_warning"]
