"""``shellpilot command list|show|render``: see and try slash commands from the terminal.

Owns: the command sub-commands and how they print. Must not touch: loading or expansion
rules (command/), permission decisions (permission/); heavy imports stay in functions.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from shellpilot.cli.command_listing import as_dict, print_listing, registry_for
from shellpilot.cli.options import PASS_THROUGH, DirOption, PassThroughCommand, TrustOption

if TYPE_CHECKING:
    from shellpilot.command.model import Command
    from shellpilot.command.registry import CommandRegistry
    from shellpilot.command.template import ExpandedPrompt
    from shellpilot.config.load import LoadedConfig
    from shellpilot.permission.request import AskRequest
    from shellpilot.permission.rules import Rule
    from shellpilot.permission.service import PermissionService, Verdict
    from shellpilot.tool.gate import ShellPlan


def _warn_all(registry: CommandRegistry) -> None:
    from shellpilot.cli.render import print_warning

    for warning in registry.warnings:
        print_warning(str(warning))


def _model_note(command: Command, loaded: LoadedConfig) -> str:
    """``model: X`` and where it runs (``-> provider/model``, or the session's model)."""
    import os

    from shellpilot.provider.registry import ProviderRegistry

    assert command.model is not None
    resolved, _ = ProviderRegistry(loaded.config, env=os.environ).command_model(command.model, note=False)
    where = (
        f"runs on {resolved}"
        if resolved
        else "no configured provider can run it: the session's model is used"
    )
    return f"model: {command.model} ({where}; -m overrides it)"


def _tool_lines(command: Command) -> list[str]:
    """What ``allowed-tools`` / ``disallowed-tools`` do for this command's turn."""
    from shellpilot.command.toolrules import bash_pattern

    lines: list[str] = []
    for key, specs, verb in (
        ("allowed-tools", command.allowed_tools, "allowed"),
        ("disallowed-tools", command.disallowed_tools, "denied"),
    ):
        if not specs:
            continue
        shown = []
        for spec in specs:
            pattern = bash_pattern(spec, command)
            shown.append(f"{spec} -> bash {pattern!r}" if pattern else f"{spec} (not a shellpilot tool)")
        if verb == "allowed" and not command.trusted:
            scope = "ignored: the project is not trusted"
        else:
            scope = f"{verb} while this command's turn runs"
        lines.append(f"{key} ({scope}): " + ", ".join(shown))
    return lines


def list_commands(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON: commands and warnings.")] = False,
    directory: DirOption = None,
    trust: TrustOption = False,
) -> None:
    """List every slash command: name, source, origin, description, placeholders."""
    print_listing(as_json=as_json, directory=directory, trust=trust)


def show_command(
    name: Annotated[str, typer.Argument(help="Command name, e.g. review or git/commit.")],
    directory: DirOption = None,
    trust: TrustOption = False,
) -> None:
    """Show a command's metadata, the rules its template is expanded with, and the raw template."""

    async def load() -> tuple[Command, LoadedConfig]:
        registry, loaded = registry_for(directory, trust)
        async with registry:
            return await registry.get(name), loaded

    import asyncio

    from shellpilot.command.syntax import describe

    command, loaded = asyncio.run(load())
    fields = as_dict(command)
    for key in ("name", "display_name", "source", "origin", "description", "agent"):
        if fields[key] is not None:
            typer.echo(f"{key}: {fields[key]}")
    if command.model:
        typer.echo(_model_note(command, loaded))
    for key in ("subtask", "argument_hint"):
        if fields[key] is not None:
            typer.echo(f"{key}: {fields[key]}")
    if not command.is_lazy:
        typer.echo(f"rules: {describe(command.syntax)}")
    for key in ("hints", "aliases", "named_arguments"):
        if fields[key]:
            typer.echo(f"{key}: {' '.join(fields[key])}")
    for line in _tool_lines(command):
        typer.echo(line)
    for spec in command.arguments:
        need = "required" if spec.required else "optional"
        typer.echo(f"argument {spec.name} ({need})" + (f": {spec.description}" if spec.description else ""))
    typer.echo("")
    raw = command.raw_template()
    typer.echo(
        raw if raw is not None else "(the template is rendered by the MCP server when the command runs)"
    )


Confirm = Callable[["AskRequest", "Verdict"], bool]
"""``confirm(request, verdict) -> bool``: a once-or-reject question to a person about the
patterns ``verdict.needs`` of ``request``."""


def _terminal_confirm(request: AskRequest, verdict: Verdict) -> bool:
    from shellpilot.cli.permission_prompt import confirm

    return confirm(request, verdict)


class TerminalAsk:
    """The ``Ask`` of ``command render``: rules (and the project's grants) decide; what they
    leave open is allowed once by ``--yes``, put to the person via ``confirm`` on a TTY
    (the shared permission prompt), or rejected otherwise: PermissionRejected whose message
    says it is not allowed without a terminal and which ``--allow`` would cover it (``allow``:
    the patterns already given, never suggested again). A deny always stands."""

    def __init__(
        self,
        service: PermissionService,
        rules: list[Rule],
        *,
        yes: bool,
        confirm: Confirm | None = None,
        allow: Sequence[str] = (),
    ) -> None:
        self.service = service
        self.rules = rules
        self.yes = yes
        self.confirm = confirm
        self.allow = tuple(allow)

    async def __call__(self, request: AskRequest, /) -> None:
        from shellpilot.errors import PermissionDenied, PermissionRejected

        verdict = self.service.check(request, self.rules)
        if verdict.action == "deny":
            raise PermissionDenied(request.permission, verdict.denied or "")
        if verdict.action == "allow" or (self.yes and not verdict.person_only):
            return
        if self.confirm is not None:
            if self.confirm(request, verdict):
                return
            raise PermissionRejected()  # the person said no
        from shellpilot.cli.permission_prompt import refusal

        raise refusal(request, verdict, self.allow)

    def denies_all(self, permission: str, /) -> bool:
        """Whether the rules (and grants) deny ``permission`` outright (``RuleAware``)."""
        return self.service.denies_all(permission, self.rules)


def _print_expanded(out: ExpandedPrompt, decisions: list[str]) -> None:
    typer.echo(out.text)
    if out.files or out.agents:
        typer.echo("\n--- attachments ---")
        for ref in out.files:
            typer.echo(f"{ref.kind}: {ref.name} ({ref.mime}) {ref.path}")
        for agent in out.agents:
            typer.echo(f"agent: {agent}")
    if decisions:
        typer.echo("\n--- shell blocks (not run) ---")
        for line in decisions:
            typer.echo(line)
    notes = [f"subtask: {'yes' if out.subtask else 'no'}"]
    if out.agent:
        notes.append(f"agent: {out.agent}")
    if out.model:
        notes.append(f"model: {out.model}")
    sys.stderr.write("# " + ", ".join(notes) + "\n")
    from shellpilot.cli.render import print_warning

    for warning in out.warnings:
        print_warning(warning)


def render_command(
    name: Annotated[str, typer.Argument(help="Command name.")],
    args: Annotated[
        list[str] | None, typer.Argument(help="Arguments, as you would type after /NAME.")
    ] = None,
    no_shell: Annotated[
        bool, typer.Option("--no-shell", help="Do not run shell blocks; show the decision each would get.")
    ] = False,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Allow every shell block no rule denies.")] = False,
    allow: Annotated[
        list[str] | None,
        typer.Option(
            "--allow", metavar="PATTERN", help="Allow shell commands matching PATTERN (repeatable)."
        ),
    ] = None,
    directory: DirOption = None,
    trust: TrustOption = False,
) -> None:
    """Print the prompt a command expands to, as the model would receive it.

    Words after NAME are the command's, including ones that start with - (put -- before
    them to pass one of these options on). The command's allowed-tools apply to its
    shell blocks. Exits 4 (after printing) when a shell block was denied or not allowed.
    """
    from shellpilot.agent import AgentRegistry
    from shellpilot.bus import Bus
    from shellpilot.cli.render import print_warning
    from shellpilot.command.template import ExpandContext, expand
    from shellpilot.command.toolrules import turn_rules
    from shellpilot.paths import data_dir, tool_output_dir
    from shellpilot.permission import PermissionService, Rule, grants_path, merge

    async def main() -> bool:
        registry, loaded = registry_for(directory, trust)
        async with registry:
            command = await registry.get(name)
            agents = AgentRegistry(loaded.config)
            agent = agents.get(command.agent) if command.agent in agents.names() else agents.default()
            data = data_dir()
            rules = agents.ruleset(agent, data, registry.project_dir)
            if allow:  # like `run --allow`: shell commands and outside folders (`/data/*`)
                granted = [
                    Rule(p, pattern, "allow", "config")
                    for p in ("bash", "external_directory")
                    for pattern in allow
                ]
                rules = merge(rules, granted)
            scoped = turn_rules(command)
            rules = merge(rules, scoped.rules)
            for note in scoped.warnings:
                print_warning(note)
            service = PermissionService(
                Bus(), grants_path(data, registry.project_dir), project_dir=registry.project_dir
            )
            for warning in service.grant_warnings:
                sys.stderr.write(f"warning: {warning}\n")
            interactive = sys.stdin.isatty() and sys.stderr.isatty()
            ask = TerminalAsk(
                service, rules, yes=yes, confirm=_terminal_confirm if interactive else None, allow=allow or ()
            )
            ctx = ExpandContext(
                project_dir=registry.project_dir,
                ask=ask,
                config=loaded.config,
                output_dir=tool_output_dir(data, registry.project_dir),
                agents={a.name: a.mode for a in agents.agents()},
                default_agent=agents.default().name,
                run_shell=not no_shell,
            )
            from shellpilot.command.arguments import join_arguments

            out = await expand(command, join_arguments(args or []), ctx)
            decisions: list[str] = []
            for block in out.blocks if no_shell else []:
                refused = f"not run: {block.reason}" if block.status == "denied" else ""
                decisions.append(f"!`{block.command}` -> {refused or _decision(service, rules, block.plan)}")
            _print_expanded(out, decisions)
            return any(block.status in ("denied", "rejected") for block in out.blocks)

    import asyncio

    if asyncio.run(main()):
        # The prompt is printed, but a block did not run: scripts must notice (PermissionError_).
        raise typer.Exit(4)


def _decision(service: PermissionService, rules: list[Rule], plan: ShellPlan | None) -> str:
    """What the gate's asks for ``plan`` would get, without asking: the first ask that is
    not allowed decides (``deny (..)``, ``ask (..)``), else ``allow``."""
    if plan is None:
        return "unknown (the command could not be scanned)"
    for request in plan.asks():
        verdict = service.check(request, rules)
        where = f"{request.permission} " if request.permission != "bash" else ""
        if verdict.action == "deny":
            return f"deny ({where}{verdict.denied})"
        if verdict.action == "ask":
            return f"ask ({where}{', '.join(verdict.needs)})"
    return "allow" + (" (read-only)" if plan.judged_read_only else "")


def register(app: typer.Typer) -> None:
    """Add ``shellpilot command ...`` to the top-level app."""
    command_app = typer.Typer(help="List, show and render slash commands.", no_args_is_help=True)
    command_app.command("list")(list_commands)
    command_app.command("show")(show_command)
    command_app.command("render", cls=PassThroughCommand, context_settings=PASS_THROUGH)(render_command)
    app.add_typer(command_app, name="command")
