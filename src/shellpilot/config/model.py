"""Pydantic models of every config section, one class per component.

Owns: the shape, defaults and docs of settings. Must not touch: files (see load.py).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

PermissionAction = Literal["allow", "ask", "deny"]
PermissionConfig = PermissionAction | dict[str, PermissionAction | dict[str, PermissionAction]]


class _Section(BaseModel):
    # Schemas are built on first use (``defer_build``), not at import: see session/models.py.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)


class ShellConfig(_Section):
    """The ``shell`` section; a bare string is taken as ``path``."""

    path: str | None = None
    """Shell binary to run commands with (bash, zsh, sh, dash, ksh, pwsh); None = detect."""
    timeout_ms: int = Field(120_000, gt=0)
    """Default timeout of a model's shell call, in ms (2 minutes)."""
    max_timeout_ms: int = Field(600_000, gt=0)
    """Largest timeout a call may ask for, in ms."""
    user_timeout_ms: int | None = Field(None, gt=0)
    """Timeout of the user's direct shell (``shellpilot shell``), in ms; None = no timeout."""
    kill_grace_ms: int = Field(3_000, ge=0)
    """Wait between SIGTERM and SIGKILL to the process group, in ms."""
    drain_ms: int = Field(1_000, ge=0)
    """After the shell exits, how long to keep reading output held open by background children."""
    env: dict[str, str] = Field(default_factory=dict)
    """Variables added to (and overriding) the non-interactive environment of every command."""

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, value: Any) -> Any:
        if isinstance(value, str):
            return {"path": value}
        return value


class ToolOutputConfig(_Section):
    """The ``tool_output`` section: limits of what a model sees of one tool's output."""

    max_lines: int = Field(2_000, gt=0)
    """Lines kept in the model-facing output before truncation."""
    max_bytes: int = Field(51_200, gt=0)
    """UTF-8 bytes kept in the model-facing output before truncation."""
    retention_days: float = Field(7, gt=0)
    """Spill files in ``<data>/tool-output`` older than this are removed at start-up."""
    max_spill_bytes: int = Field(2_147_483_648, gt=0)
    """Cap (bytes) on one spill file in ``<data>/tool-output`` (default 2 GiB): output past
    it is still counted and its tail still shown, but no longer written to the file."""


SandboxMode = Literal["auto", "workspace-write", "read-only", "off"]


class SandboxConfig(_Section):
    """The ``sandbox`` section: which kernel-enforced sandbox a model's command runs in.

    A project's own (untrusted) config may only tighten it (config/trust.py).
    """

    mode: SandboxMode = "auto"
    """``auto`` (default): a command allowed because it was judged read-only, and every
    command of an agent that denies ``edit``, runs ``read-only``; every other model command
    (shell blocks of slash commands too) runs ``workspace-write``; the user's own
    ``shellpilot shell`` runs unsandboxed. ``workspace-write`` / ``read-only`` apply that one
    profile to every model command; ``off`` runs without a sandbox (permission rules only)."""
    network: bool = True
    """Whether ``workspace-write`` commands reach the network (``read-only`` never does)."""
    writable: list[str] = Field(default_factory=list)
    """More paths ``workspace-write`` commands may write (``~`` expanded; relative to the
    project), besides the project, the tool-output folder and the session's temp dir."""
    protected: list[str] = Field(default_factory=list)
    """More paths that stay read-only inside writable ones (relative to the project or
    absolute), besides ``.git/hooks``, ``.git/config``, ``shellpilot.json(c)`` and ``.shellpilot/``."""
    required: bool = False
    """True: refuse a command that should be sandboxed when the sandbox cannot run here
    (the error names why and the fix). False: warn once per process and go on with rules alone."""


class CommandConfig(_Section):
    """One entry of the ``command`` section: a slash command defined inline."""

    template: str
    description: str | None = None
    agent: str | None = None
    model: str | None = None
    subtask: bool | None = None


class McpLocalConfig(_Section):
    """An MCP server started as a child process speaking stdio."""

    type: Literal["local"] = "local"
    command: list[str]
    environment: dict[str, str] = Field(default_factory=dict)
    enabled: bool = True
    timeout_ms: int = Field(10_000, gt=0)

    @field_validator("command")
    @classmethod
    def _non_empty(cls, value: list[str]) -> list[str]:
        if not value:
            raise ValueError('command must name the program to start, e.g. ["npx", "server"]')
        return value


class McpRemoteConfig(_Section):
    """An MCP server reached over streamable HTTP (or SSE)."""

    type: Literal["remote"]
    url: str
    headers: dict[str, str] = Field(default_factory=dict)
    enabled: bool = True
    timeout_ms: int = Field(10_000, gt=0)


McpConfig = Annotated[McpLocalConfig | McpRemoteConfig, Field(discriminator="type")]


class AgentConfig(_Section):
    """One entry of the ``agent`` section (overrides or adds an agent)."""

    mode: Literal["primary", "subagent", "all"] | None = None
    description: str | None = None
    model: str | None = None
    prompt: str | None = None
    temperature: float | None = None
    permission: PermissionConfig | None = None
    disable: bool = False


class ProviderConfig(_Section):
    """One entry of the ``provider`` section: an OpenAI-compatible or Anthropic endpoint."""

    type: Literal["openai", "anthropic"]
    base_url: str | None = None
    api_key_env: str | None = None
    """Name of the environment variable holding the key (never the key itself)."""
    api_key: str | None = None
    """A literal key; prefer ``api_key_env``. Local servers often accept any value."""
    models: dict[str, dict[str, Any]] = Field(default_factory=dict)
    max_retries: int = Field(3, ge=0)
    timeout_ms: int = Field(600_000, gt=0)


class ProjectRules(BaseModel):
    """Permission layers read from the project's own config files, kept apart from the
    user's: a project may only tighten rules (``permission.rules.evaluate`` gives their
    rules the ``project`` source), never replace or loosen a user's or an agent's rule.

    ``permission``: each project file's ``permission`` value, in file order; ``agent``:
    each file's ``agent.<name>.permission``, by agent name.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    permission: tuple[PermissionConfig, ...] = ()
    agent: dict[str, tuple[PermissionConfig, ...]] = Field(default_factory=dict)


class Config(_Section):
    """The merged configuration of one project (user file, then project files).

    ``permission`` and ``agent.<name>.permission`` hold the user's own rules only (and
    inline ones); the project files' rules are in ``project_rules`` (set by ``load_config``,
    never from a file's keys).
    """

    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    schema_: str | None = Field(None, alias="$schema")
    shell: ShellConfig = Field(default_factory=ShellConfig)
    tool_output: ToolOutputConfig = Field(default_factory=ToolOutputConfig)
    sandbox: SandboxConfig = Field(default_factory=SandboxConfig)
    permission: PermissionConfig | None = None
    command: dict[str, CommandConfig] = Field(default_factory=dict)
    mcp: dict[str, McpConfig] = Field(default_factory=dict)
    agent: dict[str, AgentConfig] = Field(default_factory=dict)
    provider: dict[str, ProviderConfig] = Field(default_factory=dict)
    model: str | None = None
    """Default model as ``provider/model``."""
    default_agent: str | None = None
    max_steps: int = Field(50, gt=0)
    """Most model turns one prompt may take before the loop stops."""
    trusted_projects: list[str] = Field(default_factory=list)
    """Absolute project paths (``~`` expanded) whose own config files may run code: read
    from the USER config only (see config/trust.py); a project file cannot trust itself."""

    _project_rules: ProjectRules = PrivateAttr(default_factory=ProjectRules)

    @property
    def project_rules(self) -> ProjectRules:
        """The project files' permission layers (see ``ProjectRules``); empty by default."""
        return self._project_rules

    def with_project_rules(self, rules: ProjectRules) -> Config:
        """A copy of this config carrying ``rules`` as its project layers."""
        copy = self.model_copy()
        copy._project_rules = rules
        return copy
