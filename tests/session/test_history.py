"""Stored messages -> provider messages: text, tool calls + results, direct shell, files."""

from __future__ import annotations

import base64

from shellpilot.provider.base import AssistantMessage as MA
from shellpilot.provider.base import ToolCallRequest, ToolResultMessage
from shellpilot.provider.base import UserMessage as MU
from shellpilot.session.history import INTERRUPTED, render_file, to_model_messages
from shellpilot.session.models import (
    AgentPart,
    AssistantMessage,
    FilePart,
    MessageWithParts,
    SubtaskPart,
    TextPart,
    ToolCompleted,
    ToolFailed,
    ToolPart,
    ToolRunning,
    UserMessage,
)

S = "ses_1"


def _user(*texts: str, synthetic: bool = False) -> MessageWithParts:
    msg = UserMessage(session_id=S)
    return MessageWithParts(
        info=msg,
        parts=[TextPart(session_id=S, message_id=msg.id, text=t, synthetic=synthetic) for t in texts],
    )


def test_text_turns_and_tool_calls_with_results() -> None:
    asked = _user("list files")
    reply = AssistantMessage(session_id=S, parent_id=asked.info.id)
    parts = [
        TextPart(session_id=S, message_id=reply.id, text="Let me look. "),
        ToolPart(
            session_id=S,
            message_id=reply.id,
            tool="bash",
            call_id="call_a",
            state=ToolCompleted(input={"command": "ls"}, output="a.txt\n", start_ms=1),
        ),
        ToolPart(
            session_id=S,
            message_id=reply.id,
            tool="bash",
            call_id="call_b",
            state=ToolFailed(input={"command": "rm -rf /"}, error="denied by rule", start_ms=1),
        ),
    ]
    final = AssistantMessage(session_id=S, parent_id=asked.info.id)
    done = MessageWithParts(info=final, parts=[TextPart(session_id=S, message_id=final.id, text="Done.")])
    out = to_model_messages([asked, MessageWithParts(info=reply, parts=parts), done])
    assert out == [
        MU(content="list files"),
        MA(
            content="Let me look. ",
            tool_calls=[
                ToolCallRequest(id="call_a", name="bash", arguments={"command": "ls"}),
                ToolCallRequest(id="call_b", name="bash", arguments={"command": "rm -rf /"}),
            ],
        ),
        ToolResultMessage(call_id="call_a", name="bash", content="a.txt\n"),
        ToolResultMessage(call_id="call_b", name="bash", content="denied by rule", is_error=True),
        MA(content="Done."),
    ]


def test_users_direct_shell_is_visible_to_the_model() -> None:
    record = _user("The following tool was executed by the user", synthetic=True)
    shell = AssistantMessage(session_id=S, parent_id=record.info.id)
    part = ToolPart(
        session_id=S,
        message_id=shell.id,
        tool="bash",
        state=ToolCompleted(input={"command": "make test"}, output="3 passed\n", start_ms=1),
    )
    out = to_model_messages([record, MessageWithParts(info=shell, parts=[part]), _user("why?")])
    assert out[0] == MU(content="The following tool was executed by the user")
    assert isinstance(out[1], MA) and out[1].tool_calls[0].arguments == {"command": "make test"}
    assert out[2] == ToolResultMessage(call_id=part.call_id, name="bash", content="3 passed\n")
    assert out[3] == MU(content="why?")


def test_unfinished_tool_call_still_gets_a_result() -> None:
    msg = AssistantMessage(session_id=S)
    part = ToolPart(
        session_id=S, message_id=msg.id, tool="bash", state=ToolRunning(input={"command": "sleep 9"})
    )
    out = to_model_messages([MessageWithParts(info=msg, parts=[part])])
    assert out[1] == ToolResultMessage(call_id=part.call_id, name="bash", content=INTERRUPTED, is_error=True)


def test_empty_turns_are_left_out() -> None:
    aborted = AssistantMessage(session_id=S)
    assert to_model_messages([_user("  "), MessageWithParts(info=aborted)]) == []


def test_file_attachments_are_inlined_with_their_path() -> None:
    msg = UserMessage(session_id=S)
    data = "data:text/plain;base64," + base64.b64encode(b"print('hi')").decode()
    parts = [
        TextPart(session_id=S, message_id=msg.id, text="review these"),
        FilePart(session_id=S, message_id=msg.id, url="file:///p/src/a%23b.py", filename="src/a#b.py"),
        FilePart(session_id=S, message_id=msg.id, url=data, path="/p/snippet.py"),
        FilePart(session_id=S, message_id=msg.id, url="file:///p/gone.bin", mime="application/octet-stream"),
        AgentPart(session_id=S, message_id=msg.id, name="general"),
    ]
    contents = {"/p/src/a#b.py": "x = 1"}
    [user] = to_model_messages([MessageWithParts(info=msg, parts=parts)], read_file=contents.get)
    assert isinstance(user, MU)
    assert user.content.split("\n\n") == [
        "review these",
        '<file path="/p/src/a#b.py">\nx = 1\n</file>',
        "<file path=\"/p/snippet.py\">\nprint('hi')\n</file>",
        '<file path="/p/gone.bin" mime="application/octet-stream" />',
        'The user mentioned the @general agent: use the task tool with subagent_type "general".',
    ]


def test_subtask_part_is_described() -> None:
    msg = UserMessage(session_id=S)
    part = SubtaskPart(
        session_id=S, message_id=msg.id, agent="general", prompt="p", description="review", command="review"
    )
    [user] = to_model_messages([MessageWithParts(info=msg, parts=[part])])
    assert user == MU(content="The user ran /review as a subtask with the general agent: review")


def test_render_file_without_reader_gives_the_path() -> None:
    part = FilePart(session_id=S, message_id="m", url="file:///x/y.txt")
    assert render_file(part, None) == '<file path="/x/y.txt" mime="text/plain" />'
