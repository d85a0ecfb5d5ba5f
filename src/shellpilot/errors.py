"""Every error shellpilot raises on purpose, in one hierarchy.

Owns: the error classes, their user-facing messages and CLI exit codes.
Must not touch: anything else; SDK, sqlite3 and OS errors are translated into these at
the boundary that meets them (provider/, storage/, process/runner.py).

    ShellpilotError                      exit 1
    +-- ConfigError                      exit 2   (path, line)
    +-- UsageError                       exit 2   bad input from a user or a model
    |   +-- InvalidTimeout                        (value)
    |   +-- ShellNotFound                         (shell)
    |   +-- WorkdirNotFound                       (path)
    |   +-- CommandNotFound                       (name, suggestions)
    |   +-- CommandArgumentError                  (command, argument)
    |   +-- TemplateError                         (origin)
    |   +-- AgentNotFound                         (name, available)
    |   +-- ModelNotFound                         (model, suggestions)
    +-- ProviderError                    exit 3   (provider, status)
    |   +-- ProviderNotConfigured                 (what to set)
    +-- PermissionError_                 exit 4   the permission engine said no
    |   +-- PermissionDenied                      (permission, pattern)
    |   +-- PermissionRejected                    the user answered "reject"
    |   |   +-- PermissionCorrected               (feedback for the model)
    |   +-- PermissionUnanalysed                  (permission, command, reasons)
    |   +-- PermissionRequestNotFound             (request_id)
    +-- SessionError                     exit 5
    |   +-- SessionNotFound                       (session_id)
    |   +-- SessionBusy                           (session_id)
    +-- StorageError                     exit 6   (path)
    |   +-- StorageFull                           (free_bytes, needed_bytes)
    +-- ToolError                        exit 1   a tool failed; the model sees the message
    |   +-- StructuredOutputError
    |   +-- SandboxUnavailable                    (reason, fix) sandbox.required and none runs
    +-- OracleError                      exit 1   the execution oracle cannot run (what is missing)
    +-- Aborted                          exit 130 the user cancelled
"""

from __future__ import annotations

from collections.abc import Sequence


class ShellpilotError(Exception):
    """Root of every error shellpilot raises on purpose.

    ``str(err)`` is the message for a model or a log; ``format_message()`` is what the CLI
    prints; ``exit_code`` is the process exit status the CLI uses for it.
    """

    exit_code: int = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def format_message(self) -> str:
        """The text the CLI shows a person (one or more lines, no trailing newline)."""
        return self.message


class ConfigError(ShellpilotError):
    """A config file, command file or agent file could not be used.

    ``path`` names the file (``None`` for inline config) and ``line`` the 1-based line
    when known, so the user can go and fix it.
    """

    exit_code = 2

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None) -> None:
        where = path or "<config>"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {message}" if path or line else message)
        self.path = path
        self.line = line
        self.reason = message


class UsageError(ShellpilotError):
    """Bad input from a person or a model: a value that cannot be used as given."""

    exit_code = 2


class InvalidTimeout(UsageError, ValueError):
    """A timeout that is zero, negative or above the configured maximum (ms)."""

    def __init__(self, value: object, maximum_ms: int | None = None) -> None:
        if maximum_ms is not None:
            text = (
                f"Invalid timeout value: {value}. Timeout must be a positive number of "
                f"milliseconds, at most {maximum_ms}."
            )
        else:
            text = f"Invalid timeout value: {value}. Timeout must be a positive number of ms."
        super().__init__(text)
        self.value = value
        self.maximum_ms = maximum_ms


class InvalidCommand(UsageError, ValueError):
    """A command text no shell can be given: empty, holding a NUL byte, or longer than the
    kernel passes as one argument (``process.runner.MAX_COMMAND_BYTES``)."""


class ShellNotFound(UsageError):
    """The shell binary to run commands with does not exist or cannot be executed."""

    def __init__(self, shell: str, reason: str = "") -> None:
        text = f"Shell not found or not executable: {shell}."
        if reason:
            text += f" {reason}"
        text += " Set `shell.path` in the config to an installed bash, zsh, sh, dash, ksh or pwsh."
        super().__init__(text)
        self.shell = shell


class WorkdirNotFound(UsageError):
    """The working directory of a command does not exist or is not a directory."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"Working directory does not exist or is not a directory: {path}. "
            "Pass an existing directory as workdir (relative paths are taken from the project)."
        )
        self.path = path


class CommandNotFound(UsageError):
    """No slash command has this name; ``suggestions`` lists close matches, ``skipped`` the
    load warnings (``path: skipped: why``) of files that would have given it the name."""

    def __init__(self, name: str, suggestions: Sequence[str] = (), skipped: Sequence[str] = ()) -> None:
        text = f'Command not found: "{name}".'
        if skipped:
            text += " A file for it was skipped: " + "; ".join(skipped) + "."
        if suggestions:
            text += " Did you mean: " + ", ".join(suggestions) + "?"
        super().__init__(text)
        self.name = name
        self.suggestions = list(suggestions)
        self.skipped = list(skipped)


class CommandArgumentError(UsageError):
    """A slash command was invoked without an argument it requires."""

    def __init__(self, command: str, argument: str, message: str | None = None) -> None:
        super().__init__(message or f'/{command}: missing required argument "{argument}".')
        self.command = command
        self.argument = argument


class TemplateError(UsageError):
    """A command template could not be expanded (``origin`` names its file or server)."""

    def __init__(self, message: str, *, origin: str | None = None) -> None:
        super().__init__(f"{origin}: {message}" if origin else message)
        self.origin = origin


class AgentNotFound(UsageError):
    """No agent has this name; ``available`` lists the ones that exist."""

    def __init__(self, name: str, available: Sequence[str] = ()) -> None:
        text = f'Agent not found: "{name}".'
        if available:
            text += " Available agents: " + ", ".join(available) + "."
        super().__init__(text)
        self.name = name
        self.available = list(available)


class ModelNotFound(UsageError):
    """A ``provider/model`` id that names no configured provider or model."""

    def __init__(self, model: str, suggestions: Sequence[str] = (), hint: str = "") -> None:
        text = f"Model not found: {model}."
        if suggestions:
            text += " Did you mean: " + ", ".join(suggestions) + "?"
        if hint:
            text += " " + hint
        super().__init__(text)
        self.model = model
        self.suggestions = list(suggestions)


class ProviderError(ShellpilotError):
    """A model provider failed (HTTP status when known); SDK errors are mapped here.

    ``retry_after_s`` is the server's ``Retry-After`` (seconds) when it sent one.
    """

    exit_code = 3

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status: int | None = None,
        retryable: bool = False,
        retry_after_s: float | None = None,
    ) -> None:
        super().__init__(message)
        self.provider = provider
        self.status = status
        self.retryable = retryable
        self.retry_after_s = retry_after_s


class ProviderNotConfigured(ProviderError):
    """No usable provider or key; the message says which setting or variable to set."""


class PermissionError_(ShellpilotError):
    """Base of the permission outcomes that stop a tool call."""

    exit_code = 4


class PermissionDenied(PermissionError_):
    """A rule denies this call. The message names the pattern, never the whole config."""

    def __init__(self, permission: str, pattern: str) -> None:
        super().__init__(
            f'The user has a rule that denies "{permission}" for "{pattern}". '
            "Do not retry this call; choose a different approach or ask the user."
        )
        self.permission = permission
        self.pattern = pattern


class PermissionRejected(PermissionError_):
    """The user answered "reject" to a permission request."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message or "The user rejected permission to use this specific tool call.")


class PermissionCorrected(PermissionRejected):
    """The user rejected with feedback; ``feedback`` goes back to the model."""

    def __init__(self, feedback: str) -> None:
        super().__init__(
            "The user rejected permission to use this specific tool call with the "
            f"following feedback: {feedback}"
        )
        self.feedback = feedback


class PermissionUnanalysed(PermissionError_):
    """A command the scanner could not analyse, under rules that deny some commands of the
    permission, with nobody to ask: only a person may allow it (never ``--yes``).

    ``reasons`` say what the scanner could not see; the message tells the model how to
    go on (rewrite it as plain commands, or leave it to the user).
    """

    def __init__(self, permission: str, command: str, reasons: Sequence[str] = ()) -> None:
        why = f" ({'; '.join(reasons)})" if reasons else ""
        super().__init__(
            f"This command could not be analysed{why}, and the user's rules deny some "
            f'"{permission}" commands, so it cannot be checked against them; nobody is at a '
            "terminal to approve it, so it was not run. Rewrite it as plain commands that can "
            "be read without running them (literal command names; no eval, aliases, functions, "
            "or scripts piped into a shell), or ask the user to run it."
        )
        self.permission = permission
        self.command = command
        self.reasons = tuple(reasons)


class PermissionRequestNotFound(PermissionError_):
    """A reply named a permission request that is not pending."""

    def __init__(self, request_id: str) -> None:
        super().__init__(f"No pending permission request with id {request_id}.")
        self.request_id = request_id


class SessionError(ShellpilotError):
    """Base of session errors."""

    exit_code = 5


class SessionNotFound(SessionError):
    """No session with this id exists in the store."""

    def __init__(self, session_id: str) -> None:
        super().__init__(f"Session not found: {session_id}. List sessions with `shellpilot session list`.")
        self.session_id = session_id


class SessionBusy(SessionError):
    """The session already runs something; cancel it or wait.

    ``pid``, ``kind`` (``shell``, ``loop``) and ``since_ms`` (epoch ms) name the other
    process holding it, when it is another process; all None when it is this one.
    """

    def __init__(
        self, session_id: str, *, pid: int | None = None, kind: str | None = None, since_ms: int | None = None
    ) -> None:
        if pid is None:
            text = f"Session {session_id} is busy; wait for it or cancel what runs."
        else:
            import time

            what = {"shell": "a shell command", "loop": "an agent turn"}.get(kind or "", "something")
            since = ""
            if since_ms is not None:
                since = " since " + time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(since_ms / 1000))
            text = (
                f"Session {session_id} is busy: process {pid} has been running {what} in it{since}. "
                f"Wait for it to finish, or stop it (Ctrl-C where it runs, or kill -INT {pid}); "
                "nothing was recorded for this request."
            )
        super().__init__(text)
        self.session_id = session_id
        self.pid = pid
        self.kind = kind
        self.since_ms = since_ms


class StorageError(ShellpilotError):
    """The session store could not be read or written (sqlite3/OS errors mapped here)."""

    exit_code = 6

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(f"{message} ({path})" if path else message)
        self.path = path


class StorageFull(StorageError):
    """The disk holding the session store (or a spill file) has no room left.

    ``free_bytes`` is what the disk had free when the write failed and ``needed_bytes`` a
    fair estimate of what the write needs; the message names the folder to clean up and
    how to choose another data dir.
    """

    def __init__(self, action: str, *, path: str, free_bytes: int, needed_bytes: int) -> None:
        import os

        folder = os.path.dirname(path) or "."
        super().__init__(
            f"cannot {action}: the disk holding {folder} is full ({_size(free_bytes)} free). Free at "
            f"least {_size(needed_bytes)} there, or choose another data dir with --data-dir DIR or "
            "SHELLPILOT_DATA_DIR",
            path=path,
        )
        self.free_bytes = free_bytes
        self.needed_bytes = needed_bytes


def _size(n: int) -> str:
    """``n`` bytes for a person: ``0 B``, ``512 KB``, ``1.5 MB``, ``78.3 GB`` (powers of 1024;
    KB rounded up, so a need is never understated)."""
    if n < 1024:
        return f"{n} B"
    if n < 1024**2:
        return f"{-(-n // 1024)} KB"
    if n < 1024**3:
        return f"{n / 1024**2:.1f} MB"
    return f"{n / 1024**3:.1f} GB"


class ToolError(ShellpilotError):
    """A tool call failed; the message is what the model sees as the tool's error."""


class StructuredOutputError(ToolError):
    """The model did not produce the structured output a prompt or command required."""


class SandboxUnavailable(ToolError):
    """A command had to run sandboxed (config ``sandbox.required``) but no sandbox can run
    here; ``reason`` says why (no bwrap, user namespaces disabled...) and ``fix`` what to do."""

    def __init__(self, reason: str, fix: str) -> None:
        super().__init__(
            f"The command was not run: the sandbox is required (sandbox.required) but cannot run "
            f"here: {reason}. Fix: {fix}"
        )
        self.reason = reason
        self.fix = fix


class OracleError(ShellpilotError):
    """The execution oracle (shellpilot.oracle) cannot run: a missing program
    (bwrap, strace, git), a fixture that cannot be built, or a sandbox that fails to start.
    The message names what to install or fix."""


class Aborted(ShellpilotError):
    """The user cancelled what was running."""

    exit_code = 130

    def __init__(self, message: str = "aborted by the user") -> None:
        super().__init__(message)


__all__ = [
    "Aborted",
    "AgentNotFound",
    "CommandArgumentError",
    "CommandNotFound",
    "ConfigError",
    "InvalidTimeout",
    "ModelNotFound",
    "OracleError",
    "PermissionCorrected",
    "PermissionDenied",
    "PermissionError_",
    "PermissionRejected",
    "PermissionRequestNotFound",
    "PermissionUnanalysed",
    "ProviderError",
    "ProviderNotConfigured",
    "SandboxUnavailable",
    "SessionBusy",
    "SessionError",
    "SessionNotFound",
    "ShellNotFound",
    "ShellpilotError",
    "StorageError",
    "StorageFull",
    "StructuredOutputError",
    "TemplateError",
    "ToolError",
    "UsageError",
    "WorkdirNotFound",
]
