"""Stored session messages -> the provider's conversation (what the model reads next turn).

Owns: that translation, as a pure function. Must not touch: the store, files (a reader is
passed in for ``file://`` attachments), providers' wire formats (see provider/).
"""

from __future__ import annotations

import base64
import urllib.parse
from collections.abc import Callable, Iterable
from typing import assert_never

from shellpilot.provider.base import (
    AssistantMessage as ModelAssistant,
)
from shellpilot.provider.base import (
    Message as ModelMessage,
)
from shellpilot.provider.base import (
    ToolCallRequest,
    ToolResultMessage,
)
from shellpilot.provider.base import (
    UserMessage as ModelUser,
)
from shellpilot.session.models import (
    AgentPart,
    AssistantMessage,
    FilePart,
    MessageWithParts,
    Part,
    SubtaskPart,
    TextPart,
    ToolCompleted,
    ToolFailed,
    ToolPart,
    ToolPending,
    ToolRunning,
    UserMessage,
)

FileReader = Callable[[str], str | None]
"""``read(path) -> text`` for a ``file://`` attachment; None when it cannot be read."""

INTERRUPTED = "Tool execution was interrupted before it finished."


def file_path(part: FilePart) -> str:
    """The filesystem path of a file part (``path``, else decoded from a ``file://`` url)."""
    if part.path:
        return part.path
    if part.url.startswith("file://"):
        return urllib.parse.unquote(urllib.parse.urlparse(part.url).path)
    return part.filename or part.url[:80]


def _data_url_text(url: str) -> str | None:
    """The text of a ``data:`` url (base64 or percent-encoded), None when not text."""
    head, _, body = url.partition(",")
    if not head.startswith("data:"):
        return None
    raw = base64.b64decode(body) if head.endswith(";base64") else urllib.parse.unquote_to_bytes(body)
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None


def render_file(part: FilePart, read: FileReader | None) -> str:
    """An attachment as ``<file path="...">content</file>`` (only the path when unreadable)."""
    path = file_path(part)
    content = _data_url_text(part.url)
    if content is None and read is not None and part.url.startswith("file://"):
        content = read(path)
    if content is None:
        return f'<file path="{path}" mime="{part.mime}" />'
    return f'<file path="{path}">\n{content}\n</file>'


def user_text(parts: Iterable[Part], read: FileReader | None) -> str:
    """What a user turn says: its parts' texts joined by blank lines (see ``to_model_messages``)."""
    chunks: list[str] = []
    for part in parts:
        if isinstance(part, TextPart):
            chunks.append(part.text)
        elif isinstance(part, FilePart):
            chunks.append(render_file(part, read))
        elif isinstance(part, AgentPart):
            hint = f'use the task tool with subagent_type "{part.name}"'
            chunks.append(f"The user mentioned the @{part.name} agent: {hint}.")
        elif isinstance(part, SubtaskPart):
            what = f"/{part.command}" if part.command else "a task"
            chunks.append(f"The user ran {what} as a subtask with the {part.agent} agent: {part.description}")
        elif isinstance(part, ToolPart):
            continue
        else:
            assert_never(part)
    return "\n\n".join(chunk for chunk in chunks if chunk)


def _tool_result(part: ToolPart) -> ToolResultMessage:
    state = part.state
    if isinstance(state, ToolCompleted):
        return ToolResultMessage(call_id=part.call_id, name=part.tool, content=state.output)
    if isinstance(state, ToolFailed):
        return ToolResultMessage(call_id=part.call_id, name=part.tool, content=state.error, is_error=True)
    if isinstance(state, ToolPending | ToolRunning):
        return ToolResultMessage(call_id=part.call_id, name=part.tool, content=INTERRUPTED, is_error=True)
    assert_never(state)


def _assistant(parts: Iterable[Part]) -> list[ModelMessage]:
    texts: list[str] = []
    calls: list[ToolCallRequest] = []
    results: list[ModelMessage] = []
    for part in parts:
        if isinstance(part, TextPart):
            texts.append(part.text)
        elif isinstance(part, ToolPart):
            calls.append(ToolCallRequest(id=part.call_id, name=part.tool, arguments=part.state.input))
            results.append(_tool_result(part))
    content = "".join(texts)
    if not content.strip() and not calls:
        return []
    return [ModelAssistant(content=content, tool_calls=calls), *results]


def reads_files(item: MessageWithParts) -> bool:
    """True when the message's model view reads files (``file://`` attachments), so it can
    change while the message does not."""
    return any(isinstance(p, FilePart) and p.url.startswith("file://") for p in item.parts)


def model_messages(item: MessageWithParts, *, read_file: FileReader | None = None) -> list[ModelMessage]:
    """The provider messages of one stored message (see ``to_model_messages``)."""
    info = item.info
    if isinstance(info, UserMessage):
        text = user_text(item.parts, read_file)
        return [ModelUser(content=text)] if text.strip() else []
    if isinstance(info, AssistantMessage):
        return _assistant(item.parts)
    assert_never(info)


def to_model_messages(
    history: Iterable[MessageWithParts], *, read_file: FileReader | None = None
) -> list[ModelMessage]:
    """The conversation a provider gets for ``history`` (messages in creation order).

    User turns: text parts (synthetic ones too, e.g. the record of a user's direct shell),
    file attachments inlined with their path, agent mentions and subtask notes, joined by
    blank lines. Assistant turns: their text plus one tool call per tool part, each followed
    by its result (completed output, error text, or "interrupted" for a call that never
    finished), so every call has a result. Empty turns are left out.
    """
    out: list[ModelMessage] = []
    for item in history:
        out.extend(model_messages(item, read_file=read_file))
    return out
