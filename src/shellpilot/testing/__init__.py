"""A real local model server for tests: OpenAI chat-completions and Anthropic messages over HTTP.

Owns: the public face of the test server (server.py serves, wire.py encodes, record.py reads
requests back). Must not touch: shellpilot's providers or loop; only stdlib networking.

Use it from your own tests to check a command or an agent end to end without a real model::

    from shellpilot.testing import ScriptedModelServer, ToolCall, Turn

    def test_my_command(tmp_path):
        turns = [
            Turn(tool_calls=[ToolCall("bash", {"command": "ls"})]),
            Turn(text="Done."),
        ]
        with ScriptedModelServer(turns) as server:
            config = {"provider": {"fake": server.provider_config("openai")}, "model": "fake/any"}
            ...  # write config to shellpilot.json, run `shellpilot run ...`
            assert server.requests[1].tool_results()[0].content  # the model saw the ls output

``server.openai_base_url`` (``http://127.0.0.1:<port>/v1``) and ``server.anthropic_base_url``
(``http://127.0.0.1:<port>``) are the ``base_url`` values for either protocol; both are served
at once. ``Turn(error_status=500)`` answers one request with that HTTP error,
``Turn(drop_connection=True)`` closes the connection unanswered, ``Turn(cut_after=3)`` cuts
it after three SSE events. When the script runs out the server answers 400 with a message
naming the request number. OpenAI-compatible dialects (no usage, no ``finish_reason``, no
``[DONE]``, tool calls without ids...) are scripted with ``ScriptedModelServer(quirks=[...])``.
"""

from __future__ import annotations

from shellpilot.provider.scripted import ToolCall, Turn
from shellpilot.testing.record import RecordedRequest, RecordedToolResult, WireProtocol
from shellpilot.testing.server import ScriptedModelServer, ServerScript
from shellpilot.testing.wire import Quirk

__all__ = [
    "Quirk",
    "RecordedRequest",
    "RecordedToolResult",
    "ScriptedModelServer",
    "ServerScript",
    "ToolCall",
    "Turn",
    "WireProtocol",
]
