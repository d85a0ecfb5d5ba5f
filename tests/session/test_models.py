"""Session, message and part models: discriminated unions, ids, JSON round trips."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from shellpilot.session.models import (
    AgentPart,
    AssistantMessage,
    FilePart,
    Message,
    MessageWithParts,
    Part,
    Session,
    SubtaskPart,
    TextPart,
    ToolCompleted,
    ToolFailed,
    ToolPart,
    ToolPending,
    ToolRunning,
    UserMessage,
)

MESSAGE: TypeAdapter[Message] = TypeAdapter(Message)
PART: TypeAdapter[Part] = TypeAdapter(Part)


def test_ids_have_prefixes_and_sort_by_creation() -> None:
    sessions = [Session(project_dir="/p") for _ in range(50)]
    assert all(s.id.startswith("ses_") for s in sessions)
    assert [s.id for s in sessions] == sorted(s.id for s in sessions)
    msg = UserMessage(session_id=sessions[0].id)
    part = TextPart(session_id=msg.session_id, message_id=msg.id, text="hi")
    assert msg.id.startswith("msg_") and part.id.startswith("prt_")
    tool = ToolPart(session_id="s", message_id="m", tool="bash", state=ToolPending())
    assert tool.call_id.startswith("call_")


def test_message_union_dispatches_on_role() -> None:
    user = UserMessage(session_id="ses_1", agent="plan")
    assistant = AssistantMessage(session_id="ses_1", parent_id=user.id, finish="stop", structured={"a": 1})
    assert isinstance(MESSAGE.validate_json(user.model_dump_json()), UserMessage)
    back = MESSAGE.validate_json(assistant.model_dump_json())
    assert isinstance(back, AssistantMessage)
    assert back == assistant
    with pytest.raises(ValidationError):
        MESSAGE.validate_python({"role": "system", "session_id": "s"})


@pytest.mark.parametrize(
    "part",
    [
        TextPart(
            session_id="s", message_id="m", text="The following tool was executed by the user", synthetic=True
        ),
        ToolPart(session_id="s", message_id="m", tool="bash", state=ToolPending(input={"command": "ls"})),
        ToolPart(
            session_id="s",
            message_id="m",
            tool="bash",
            state=ToolRunning(input={"command": "ls"}, metadata={"output": "a\n"}),
        ),
        ToolPart(
            session_id="s",
            message_id="m",
            tool="bash",
            state=ToolCompleted(input={"command": "ls"}, output="a\n", start_ms=1, metadata={"exit": 0}),
        ),
        ToolPart(session_id="s", message_id="m", tool="bash", state=ToolFailed(error="boom", start_ms=1)),
        FilePart(session_id="s", message_id="m", url="file:///tmp/a%20b.txt", filename="a b.txt"),
        AgentPart(session_id="s", message_id="m", name="general"),
        SubtaskPart(session_id="s", message_id="m", agent="general", prompt="review", command="review"),
    ],
)
def test_every_part_round_trips_through_json(part: Part) -> None:
    assert PART.validate_json(part.model_dump_json()) == part


def test_tool_state_dispatches_on_status_and_rejects_unknown_fields() -> None:
    raw = {
        "type": "tool",
        "session_id": "s",
        "message_id": "m",
        "tool": "bash",
        "state": {"status": "completed", "output": "x", "start_ms": 5, "end_ms": 9},
    }
    part = PART.validate_python(raw)
    assert isinstance(part, ToolPart) and isinstance(part.state, ToolCompleted)
    assert part.state.end_ms - part.state.start_ms == 4
    raw["state"] = {"status": "completed", "start_ms": 5}  # output missing
    with pytest.raises(ValidationError):
        PART.validate_python(raw)
    with pytest.raises(ValidationError):
        TextPart(session_id="s", message_id="m", text="x", colour="red")  # type: ignore[call-arg]


def test_message_with_parts_keeps_order() -> None:
    msg = UserMessage(session_id="s")
    parts: list[Part] = [TextPart(session_id="s", message_id=msg.id, text=str(i)) for i in range(3)]
    item = MessageWithParts(info=msg, parts=parts)
    back = MessageWithParts.model_validate_json(item.model_dump_json())
    assert [p.text for p in back.parts if isinstance(p, TextPart)] == ["0", "1", "2"]
