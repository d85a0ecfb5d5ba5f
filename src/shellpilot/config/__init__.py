"""Configuration: pydantic models and the loader that applies file precedence.

Owns: reading and merging ``shellpilot.json``/``.jsonc`` files. Must not touch: what
the settings do; each component reads its own section.
"""

from shellpilot.config.jsonc import parse_jsonc
from shellpilot.config.load import LoadedConfig, load_config
from shellpilot.config.model import (
    AgentConfig,
    CommandConfig,
    Config,
    McpConfig,
    McpLocalConfig,
    McpRemoteConfig,
    ProviderConfig,
    SandboxConfig,
    ShellConfig,
    ToolOutputConfig,
)

__all__ = [
    "AgentConfig",
    "CommandConfig",
    "Config",
    "LoadedConfig",
    "McpConfig",
    "McpLocalConfig",
    "McpRemoteConfig",
    "ProviderConfig",
    "SandboxConfig",
    "ShellConfig",
    "ToolOutputConfig",
    "load_config",
    "parse_jsonc",
]
