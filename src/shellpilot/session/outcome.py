"""How a model step ends: the verdict that stops the loop, and closing the assistant message.

Owns: the end-of-step rules (rejected permission, structured output missing or exhausted,
step limit) and the final write of an assistant message (aborted parts included). Must
not touch: providers, tool execution, the loop's control flow.
"""

from __future__ import annotations

from shellpilot.errors import PermissionRejected
from shellpilot.session.dispatch import ABORTED as TOOL_ABORTED
from shellpilot.session.dispatch import CallOutcome
from shellpilot.session.models import (
    AssistantMessage,
    MessageError,
    ToolFailed,
    ToolPart,
    ToolPending,
    ToolRunning,
    now_ms,
)
from shellpilot.session.step import StepResult
from shellpilot.session.writer import SessionWriter
from shellpilot.tool.structured import StructuredOutputTool


def error_of(exc: BaseException) -> MessageError:
    """The ``MessageError`` recorded for an exception (name = its class, e.g. ``ProviderError``)."""
    return MessageError.of(exc)


def verdict(
    result: StepResult,
    outcomes: list[CallOutcome],
    structured: StructuredOutputTool | None,
    *,
    last: bool,
    max_steps: int,
) -> MessageError | None:
    """The error that ends the loop after a step; None to go on (or to finish normally).

    A rejected permission without feedback ends the turn (``PermissionRejected``); a
    structured-output turn that answered in text, or ran out of retries, is a
    ``StructuredOutputError``; tool calls on the last allowed step are ``StepLimit``.
    """
    captured = structured is not None and structured.captured is not None
    if CallOutcome.REJECTED in outcomes:
        return error_of(PermissionRejected("The user rejected a tool call."))
    if structured is not None and not captured and (structured.exhausted or not result.calls):
        return error_of(structured.error())
    if last and result.calls and not captured:
        return MessageError(
            name="StepLimit",
            message=f"Stopped after max_steps ({max_steps}) model turns; "
            "raise max_steps in shellpilot.json to allow more.",
        )
    return None


def close_message(
    writer: SessionWriter,
    message: AssistantMessage,
    result: StepResult | None,
    *,
    error: MessageError | None = None,
    structured: StructuredOutputTool | None = None,
) -> AssistantMessage:
    """Complete ``message`` (time, finish, tokens, structured output, error) and save it.

    For an ``Aborted`` message, its tool parts still pending or running become errors
    ("aborted by the user", live metadata kept), so no part stays open.
    """
    if error is not None and error.name == "Aborted":
        abort_open_parts(writer, message)
    captured = structured.captured if structured is not None else None
    done = message.model_copy(
        update={
            "completed_ms": now_ms(),
            "finish": "stop" if captured is not None else (result.finish if result else None),
            "tokens": result.tokens if result else {},
            "error": error,
            "structured": captured,
        }
    )
    writer.message(done)
    return done


def abort_open_parts(writer: SessionWriter, message: AssistantMessage) -> None:
    """Mark ``message``'s pending/running tool parts as aborted errors."""
    for part in writer.store.parts_of(message.id):
        if isinstance(part, ToolPart) and isinstance(part.state, ToolPending | ToolRunning):
            state = part.state
            if isinstance(state, ToolRunning):
                failed = ToolFailed(
                    input=state.input,
                    error=TOOL_ABORTED,
                    title=state.title,
                    metadata=state.metadata,
                    start_ms=state.start_ms,
                )
            else:
                failed = ToolFailed(input=state.input, error=TOOL_ABORTED, start_ms=now_ms())
            writer.part(part.model_copy(update={"state": failed}))
