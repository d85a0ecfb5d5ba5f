"""The request bodies a model server receives stay byte-for-byte what they were.

One scripted conversation per protocol runs through the real loop, the real SDK providers and
the real shell tool against ``ScriptedModelServer``: a user's direct shell, an attached file,
several tool calls per turn (one failing, one unknown, one with broken JSON), a transient 500
that is retried, a ``task`` subagent, a subtask command, structured output (invalid, then
valid), the last allowed step, and a plain follow-up turn. Every request's body and headers are
compared with a golden file recorded from the code before the request path was reworked.
Values that legitimately vary (temp paths, ids, the date, the platform, SDK version headers)
are normalised. ``SHELLPILOT_REGOLDEN=1`` rewrites the golden files instead of comparing.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from shellpilot.bus import Bus
from shellpilot.config import Config
from shellpilot.provider.registry import ProviderRegistry
from shellpilot.session.loop import AgentLoop
from shellpilot.session.run_state import RunState
from shellpilot.session.service import SessionService
from shellpilot.storage.store import SessionStore
from shellpilot.testing import RecordedRequest, ScriptedModelServer, ToolCall, Turn, WireProtocol

GOLDEN = Path(__file__).parent / "golden"
SCHEMA = {
    "type": "object",
    "properties": {"verdict": {"enum": ["pass", "fail"]}},
    "required": ["verdict"],
}
VARYING_HEADERS = frozenset(
    {
        "user-agent",
        "x-stainless-package-version",
        "x-stainless-os",
        "x-stainless-arch",
        "x-stainless-runtime",
        "x-stainless-runtime-version",
    }
)
"""Headers naming the SDK, Python and machine: present, but their values are not compared."""
DROPPED_HEADERS = frozenset({"host", "content-length"})
"""The port changes every run; the length follows the (normalised) body."""
LONG = 300
"""Strings longer than this many characters go to the golden file's ``texts`` table once."""


def bash(command: str) -> ToolCall:
    return ToolCall("bash", {"command": command, "description": "run it"})


def script() -> list[Turn]:
    """The model's side, in the order the requests arrive (parent and children share it)."""
    return [
        # prompt 1 (max_steps 4): two calls, one failing
        Turn(text="Checking.", tool_calls=[bash("echo one"), bash("printf 'two\\n'; exit 3")]),
        # a transient failure, retried with the same body
        Turn(error_status=500, error_message="try again"),
        Turn(tool_calls=[ToolCall("nope", {"x": 1}), ToolCall("bash", "{not json")]),
        Turn(
            tool_calls=[
                ToolCall(
                    "task",
                    {"description": "count things", "prompt": "Count to two.", "subagent_type": "general"},
                )
            ]
        ),
        # the child session of the task call
        Turn(tool_calls=[bash("echo child")]),
        Turn(text="Counted: one, two."),
        # the last allowed step (tool choice none)
        Turn(text="All done."),
        # prompt 2: a subtask command runs in a child, then the parent summarises
        Turn(text="Inspected: nothing odd."),
        Turn(text="Summary: the inspection found nothing."),
        # prompt 3: structured output, invalid then valid
        Turn(tool_calls=[ToolCall("structured_output", {"verdict": "maybe"})]),
        Turn(tool_calls=[ToolCall("structured_output", {"verdict": "pass"})]),
        # prompt 4: a plain follow-up sees everything above
        Turn(text="Still here."),
    ]


async def converse(protocol: WireProtocol, tmp_path: Path) -> list[RecordedRequest]:
    project = tmp_path / "project"
    (project / ".shellpilot" / "command").mkdir(parents=True)
    (project / "notes.txt").write_text("remember the milk\n")
    (project / ".shellpilot" / "command" / "inspect.md").write_text(
        "---\ndescription: inspect the tree\nsubtask: true\nagent: general\n---\nInspect $1 carefully.\n"
    )
    with ScriptedModelServer(script()) as server:
        cfg = Config.model_validate(
            {
                "provider": {"fake": server.provider_config(protocol)},
                "model": "fake/golden-model",
                "max_steps": 4,
                "agent": {"build": {"temperature": 0.25}},
            }
        )
        data = tmp_path / "data"
        store = SessionStore(data / "db.sqlite")
        bus = Bus()
        service = SessionService(store, bus, cfg, data, RunState(bus, lease=store))
        providers = ProviderRegistry(cfg, env={}, retry_base_delay_s=0.01)
        loop = AgentLoop(service, project_dir=project, providers=providers, shell="bash")
        session = service.create(project)
        try:
            await service.shell(session.id, "echo from-the-user")
            first = await loop.prompt(session.id, "Look around.", files=[Path("notes.txt")])
            assert first.ok and first.text == "All done.", first.error
            second = await loop.command(session.id, "inspect", "src")
            assert second.ok and second.text == "Summary: the inspection found nothing.", second.error
            third = await loop.prompt(
                session.id, "Judge it.", format={"type": "json_schema", "schema": SCHEMA}
            )
            assert third.ok and third.structured == {"verdict": "pass"}, third.error
            fourth = await loop.prompt(session.id, "Anything else?")
            assert fourth.ok and fourth.text == "Still here.", fourth.error
            assert server.remaining == 0
        finally:
            await providers.aclose()
            store.close()
        return server.requests


class Normaliser:
    """Replaces what legitimately differs between runs with stable placeholders."""

    _ID = re.compile(r"\b(ses|msg|prt|call|tool)_[0-9a-f]{26}\b")

    def __init__(self, tmp_path: Path) -> None:
        self.tmp = str(tmp_path)
        self.ids: dict[str, str] = {}
        self.texts: dict[str, str] = {}
        """Long texts (prompts, tool descriptions) repeated in every request, stored once."""

    def _id(self, match: re.Match[str]) -> str:
        found = match.group(0)
        if found not in self.ids:
            self.ids[found] = f"{match.group(1)}_<{len(self.ids) + 1}>"
        return self.ids[found]

    def text(self, value: str) -> str:
        value = value.replace(self.tmp, "<TMP>")
        value = re.sub(r"tool-output/[0-9a-f]{16}", "tool-output/<PROJECT>", value)  # (a path hash)
        value = self._ID.sub(self._id, value)
        value = re.sub(r"Platform: [^\n]*", "Platform: <PLATFORM>", value)
        # The shell is found on PATH: /bin/bash on one machine, /usr/bin/bash on another.
        value = re.sub(r"\b(bash|zsh|sh|dash|fish|pwsh) \(/[^)\s]*\)", r"\1 (<SHELL>)", value)
        return re.sub(r"Today's date: \d{4}-\d{2}-\d{2}", "Today's date: <DATE>", value)

    def value(self, value: Any) -> Any:
        if isinstance(value, str):
            value = self.text(value)
            if len(value) <= LONG:
                return value
            return self.texts.setdefault(value, f"<text {len(self.texts) + 1}>")
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {self.text(k): self.value(v) for k, v in value.items()}
        return value

    def request(self, request: RecordedRequest) -> dict[str, Any]:
        headers = {
            name: ("<varies>" if name in VARYING_HEADERS else self.text(value))
            for name, value in sorted(request.headers.items())
            if name not in DROPPED_HEADERS
        }
        return {"path": request.path, "headers": headers, "body": self.value(dict(request.body))}


def compact(body: Any) -> bytes:
    """The body as both SDKs encode JSON: no spaces, non-ASCII kept, keys in insertion order."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()


@pytest.mark.parametrize("protocol", ["openai", "anthropic"])
async def test_request_bodies_match_the_golden_file(protocol: WireProtocol, tmp_path: Path) -> None:
    requests = await converse(protocol, tmp_path)
    for request in requests:  # byte-level: the encoding itself (spacing, escapes, key order)
        assert request.raw_body == compact(request.body)
    normalise = Normaliser(tmp_path)
    recorded = [normalise.request(r) for r in requests]
    texts = {name: text for text, name in normalise.texts.items()}
    # Key order is part of the bytes: compare the JSON text, not just the parsed values.
    got = json.dumps({"requests": recorded, "texts": texts}, indent=1, ensure_ascii=False) + "\n"
    golden = GOLDEN / f"requests_{protocol}.json"
    if os.environ.get("SHELLPILOT_REGOLDEN") == "1":
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(got, encoding="utf-8")
        pytest.skip(f"rewrote {golden.name}")
    expected = golden.read_text(encoding="utf-8")
    if got != expected:
        mine, theirs = json.loads(got), json.loads(expected)
        assert mine["texts"] == theirs["texts"]
        for number, (one, other) in enumerate(zip(mine["requests"], theirs["requests"], strict=False)):
            assert one == other, f"request #{number + 1} differs"
        assert len(mine["requests"]) == len(theirs["requests"])
    assert got == expected
