"""PermissionService: ask/reply lifecycle with a real bus and a real grants file."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable
from pathlib import Path

import pytest

from shellpilot.bus import Bus, Event
from shellpilot.errors import (
    PermissionCorrected,
    PermissionDenied,
    PermissionRejected,
    PermissionRequestNotFound,
    StorageError,
    UsageError,
)
from shellpilot.permission import (
    PermissionAsked,
    PermissionReplied,
    PermissionRequest,
    PermissionService,
    Rule,
    default_rules,
    merge,
    rules_from_config,
)
from shellpilot.permission.request import AskRequest
from shellpilot.tool.base import ToolContext
from shellpilot.tool.gate import plan_command

BASH_ASK = rules_from_config({"bash": {"*": "ask", "git status *": "allow", "rm *": "deny"}})


class Harness:
    """A service plus a record of every permission event, on one bus."""

    def __init__(self, grants: Path) -> None:
        self.bus = Bus()
        self.grants = grants
        self.service = PermissionService(self.bus, grants)
        self.events: list[Event] = []
        self.asked: asyncio.Queue[PermissionRequest] = asyncio.Queue()
        self.bus.listen(self._record, ["permission.asked", "permission.replied"])

    def _record(self, event: Event) -> None:
        self.events.append(event)
        if isinstance(event, PermissionAsked):
            self.asked.put_nowait(event.request)

    def start(self, coro: Awaitable[None]) -> asyncio.Future[None]:
        return asyncio.ensure_future(coro)

    async def next_request(self) -> PermissionRequest:
        return await asyncio.wait_for(self.asked.get(), 5)

    def replies(self) -> list[PermissionReplied]:
        return [e for e in self.events if isinstance(e, PermissionReplied)]


@pytest.fixture
def h(tmp_path: Path) -> Harness:
    return Harness(tmp_path / "grants" / "project.json")


async def _done(task: asyncio.Future[None]) -> None:
    await asyncio.wait_for(task, 5)


async def test_allowed_returns_without_asking(h: Harness) -> None:
    await h.service.ask(
        AskRequest("bash", ["git status", "git status -s"], ["git status *"]),
        session_id="ses_1",
        ruleset=BASH_ASK,
    )
    await h.service.ask(
        AskRequest("bash", [], []), session_id="ses_1", ruleset=BASH_ASK
    )  # nothing to ask about passes
    assert h.events == []


async def test_deny_names_the_pattern_and_not_the_config(h: Harness) -> None:
    with pytest.raises(PermissionDenied) as caught:
        await h.service.ask(
            AskRequest("bash", ["ls", "rm -rf build"], ["ls *", "rm *"]), session_id="ses_1", ruleset=BASH_ASK
        )
    assert caught.value.pattern == "rm -rf build"
    assert "rm -rf build" in str(caught.value)
    assert "git status" not in str(caught.value)  # the config is not dumped
    assert h.events == [] and h.service.pending() == []


async def test_once_resolves_only_that_request(h: Harness) -> None:
    task = h.start(
        h.service.ask(
            AskRequest("bash", ["git status", "npm test"], ["npm test *"], {"command": "x"}),
            session_id="ses_1",
            ruleset=BASH_ASK,
        )
    )
    request = await h.next_request()
    assert request.id.startswith("per_")
    assert request.patterns == ("npm test",)  # only what needs an answer
    assert request.always == ("npm test *",)
    assert request.metadata == {"command": "x"}
    assert h.service.pending("ses_1") == [request]
    h.service.reply(request.id, "once")
    await _done(task)
    assert h.service.pending() == []
    assert h.replies()[-1].reply == "once" and h.replies()[-1].reason == "user"
    assert h.service.grants == []
    # once remembers nothing: the same ask asks again
    again = h.start(
        h.service.ask(AskRequest("bash", ["npm test"], ["npm test *"]), session_id="ses_1", ruleset=BASH_ASK)
    )
    second = await h.next_request()
    h.service.reply(second.id, "once")
    await _done(again)


async def test_always_grants_persist_and_cascade_within_the_session(h: Harness) -> None:
    first = h.start(
        h.service.ask(AskRequest("bash", ["npm test"], ["npm test *"]), session_id="ses_1", ruleset=BASH_ASK)
    )
    r1 = await h.next_request()
    covered = h.start(
        h.service.ask(
            AskRequest("bash", ["npm test --watch"], ["npm test *"]), session_id="ses_1", ruleset=BASH_ASK
        )
    )
    r2 = await h.next_request()
    uncovered = h.start(
        h.service.ask(
            AskRequest("bash", ["npm publish"], ["npm publish *"]), session_id="ses_1", ruleset=BASH_ASK
        )
    )
    r3 = await h.next_request()
    other_session = h.start(
        h.service.ask(
            AskRequest("bash", ["npm test -x"], ["npm test *"]), session_id="ses_2", ruleset=BASH_ASK
        )
    )
    r4 = await h.next_request()

    h.service.reply(r1.id, "always")
    await _done(first)
    await _done(covered)  # now fully allowed by the grant
    assert {r.id for r in h.service.pending()} == {r3.id, r4.id}  # others stay pending
    cascade = [e for e in h.replies() if e.request_id == r2.id]
    assert cascade and cascade[0].reason == "cascade" and cascade[0].reply == "always"

    stored = json.loads(h.grants.read_text())
    assert stored["grants"] == [{"permission": "bash", "pattern": "npm test *"}]

    # a later ask from another session is allowed by the project's grant
    await asyncio.wait_for(
        h.service.ask(AskRequest("bash", ["npm test"], ["npm test *"]), session_id="ses_3", ruleset=BASH_ASK),
        5,
    )

    # a restart (a new service on the same file) remembers
    restarted = Harness(h.grants)
    await restarted.service.ask(
        AskRequest("bash", ["npm test -k x"], ["npm test *"]), session_id="ses_9", ruleset=BASH_ASK
    )
    assert restarted.events == []
    assert restarted.service.grants == [Rule("bash", "npm test *", "allow", "grant")]

    h.service.cancel_session("ses_1")
    h.service.cancel_session("ses_2")
    for task in (uncovered, other_session):
        with pytest.raises(PermissionRejected):
            await _done(task)


async def test_a_grant_never_beats_a_more_specific_deny(h: Harness) -> None:
    rules = merge(default_rules(h.grants.parent), rules_from_config({"bash": {"rm -rf *": "deny"}}))
    task = h.start(h.service.ask(AskRequest("bash", ["rm foo"], ["rm *"]), session_id="ses_1", ruleset=rules))
    h.service.reply((await h.next_request()).id, "always")
    await _done(task)
    await h.service.ask(
        AskRequest("bash", ["rm bar"], ["rm *"]), session_id="ses_1", ruleset=rules
    )  # the grant allows
    with pytest.raises(PermissionDenied):
        await h.service.ask(AskRequest("bash", ["rm -rf /"], ["rm *"]), session_id="ses_1", ruleset=rules)


async def test_reject_fails_the_asker_and_the_sessions_other_requests(h: Harness) -> None:
    a = h.start(
        h.service.ask(
            AskRequest("bash", ["make deploy"], ["make deploy *"]), session_id="ses_1", ruleset=BASH_ASK
        )
    )
    ra = await h.next_request()
    b = h.start(
        h.service.ask(
            AskRequest("bash", ["make clean"], ["make clean *"]), session_id="ses_1", ruleset=BASH_ASK
        )
    )
    await h.next_request()
    c = h.start(
        h.service.ask(AskRequest("bash", ["make all"], ["make all *"]), session_id="ses_2", ruleset=BASH_ASK)
    )
    rc = await h.next_request()

    h.service.reply(ra.id, "reject")
    with pytest.raises(PermissionRejected) as caught:
        await _done(a)
    assert not isinstance(caught.value, PermissionCorrected)
    with pytest.raises(PermissionRejected):
        await _done(b)
    assert [r.id for r in h.service.pending()] == [rc.id]  # another session is untouched
    h.service.reply(rc.id, "once")
    await _done(c)


async def test_reject_with_a_message_corrects_the_model(h: Harness) -> None:
    task = h.start(
        h.service.ask(
            AskRequest("bash", ["pip install x"], ["pip install *"]), session_id="ses_1", ruleset=BASH_ASK
        )
    )
    request = await h.next_request()
    h.service.reply(request.id, "reject", "use uv instead")
    with pytest.raises(PermissionCorrected) as caught:
        await _done(task)
    assert caught.value.feedback == "use uv instead"
    assert "use uv instead" in str(caught.value)
    assert h.replies()[-1].message == "use uv instead"


async def test_unknown_id_and_bad_reply(h: Harness) -> None:
    task = h.start(
        h.service.ask(AskRequest("bash", ["make"], ["make *"]), session_id="ses_1", ruleset=BASH_ASK)
    )
    request = await h.next_request()
    with pytest.raises(PermissionRequestNotFound) as caught:
        h.service.reply("per_nope", "once")
    assert caught.value.request_id == "per_nope"
    with pytest.raises(UsageError):
        h.service.reply(request.id, "sometimes")  # type: ignore[arg-type]
    assert h.service.pending() == [request]  # unchanged
    h.service.reply(request.id, "once")
    await _done(task)
    with pytest.raises(PermissionRequestNotFound):
        h.service.reply(request.id, "once")  # already answered


async def test_cancel_session_rejects_its_pending_requests(h: Harness) -> None:
    a = h.start(h.service.ask(AskRequest("bash", ["make a"], []), session_id="ses_1", ruleset=BASH_ASK))
    await h.next_request()
    b = h.start(h.service.ask(AskRequest("bash", ["make b"], []), session_id="ses_2", ruleset=BASH_ASK))
    rb = await h.next_request()
    assert h.service.cancel_session("ses_1") == 1
    with pytest.raises(PermissionRejected):
        await _done(a)
    assert h.replies()[-1].reason == "cancelled"
    assert h.service.pending() == [rb]
    assert h.service.cancel_session("ses_1") == 0
    h.service.reply(rb.id, "once")
    await _done(b)


async def test_cancelling_the_waiting_task_removes_its_request(h: Harness) -> None:
    task = h.start(h.service.ask(AskRequest("bash", ["sleep 100"], []), session_id="ses_1", ruleset=BASH_ASK))
    request = await h.next_request()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert h.service.pending() == []
    assert [e.reason for e in h.replies() if e.request_id == request.id] == ["cancelled"]
    with pytest.raises(PermissionRequestNotFound):
        h.service.reply(request.id, "once")


async def test_concurrent_requests_in_two_sessions(h: Harness) -> None:
    tasks = {
        sid: h.start(
            h.service.ask(
                AskRequest("bash", [f"make {sid}"], [f"make {sid} *"]), session_id=sid, ruleset=BASH_ASK
            )
        )
        for sid in ("ses_a", "ses_b")
    }
    requests = {r.session_id: r for r in [await h.next_request(), await h.next_request()]}
    assert set(requests) == {"ses_a", "ses_b"}
    h.service.reply(requests["ses_b"].id, "reject")
    with pytest.raises(PermissionRejected):
        await _done(tasks["ses_b"])
    assert not tasks["ses_a"].done()
    h.service.reply(requests["ses_a"].id, "once")
    await _done(tasks["ses_a"])


async def test_read_only_allowance(h: Harness, project: Path) -> None:
    defaults = default_rules(h.grants.parent)
    # decided by the default catch-all ask: allowed without a prompt
    await h.service.ask(
        AskRequest("bash", ["ls -la", "git log -1"], [], read_only=["ls -la", "git log -1"]),
        session_id="s",
        ruleset=defaults,
    )
    # a user's catch-all ask keeps the allowance
    user_catch_all = merge(defaults, rules_from_config({"bash": "ask"}))
    await h.service.ask(
        AskRequest("bash", ["ls -la"], [], read_only=["ls -la"]), session_id="s", ruleset=user_catch_all
    )
    assert h.events == []
    # a rule written for the command is obeyed
    specific = merge(defaults, rules_from_config({"bash": {"ls *": "ask"}}))
    asked = h.start(
        h.service.ask(
            AskRequest("bash", ["ls -la"], [], read_only=["ls -la"]), session_id="s", ruleset=specific
        )
    )
    h.service.reply((await h.next_request()).id, "once")
    await _done(asked)
    # the judgement itself is the gate's alone: a redirect is never listed as read-only
    plan = plan_command("echo x > f", cwd=project, project_dir=project)
    assert plan.patterns == ("echo x > f",) and plan.read_only == ()
    redirect = h.start(h.service.ask(plan.asks()[-1], session_id="s", ruleset=defaults))
    assert (await h.next_request()).patterns == ("echo x > f",)
    h.service.cancel_session("s")
    with pytest.raises(PermissionRejected):
        await _done(redirect)
    # patterns not listed as read-only still ask
    mixed = h.start(
        h.service.ask(
            AskRequest("bash", ["ls", "make"], [], read_only=["ls"]), session_id="s", ruleset=defaults
        )
    )
    assert (await h.next_request()).patterns == ("make",)
    h.service.cancel_session("s")
    with pytest.raises(PermissionRejected):
        await _done(mixed)


async def test_asker_is_a_tool_context_ask(h: Harness, project: Path) -> None:
    ctx = ToolContext(session_id="ses_1", call_id="call_1", project_dir=project)
    ctx.ask = h.service.asker("ses_1", BASH_ASK)
    await ctx.ask(AskRequest("bash", ["git status"], ["git status *"]))
    task = h.start(ctx.ask(AskRequest("bash", ["curl x"], ["curl *"], {"command": "curl x"})))
    request = await h.next_request()
    assert request.session_id == "ses_1" and request.metadata == {"command": "curl x"}
    h.service.reply(request.id, "once")
    await _done(task)


def test_a_broken_grants_file_is_set_aside_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "grants.json"
    path.write_text('{"version": 1,\n "grants": [}')
    service = PermissionService(Bus(), path)
    assert service.grants == [] and not path.exists()
    [warning] = service.grant_warnings
    assert warning.startswith(f"{path}:2: ") and "not valid JSON" in warning
    path.write_text('{"grants": [{"permission": 1}]}')
    [warning] = PermissionService(Bus(), path).grant_warnings
    assert "bad grant entry" in warning
    assert len(list(tmp_path.glob("grants.json.broken-*"))) == 2  # both kept, neither emptied


async def test_an_unwritable_grants_file_keeps_the_request_pending(tmp_path: Path) -> None:
    h = Harness(tmp_path / "later-a-file" / "grants.json")
    (tmp_path / "later-a-file").write_text("")  # the grants dir cannot be created now
    task = h.start(h.service.ask(AskRequest("bash", ["make"], ["make *"]), session_id="s", ruleset=BASH_ASK))
    request = await h.next_request()
    with pytest.raises(StorageError):
        h.service.reply(request.id, "always")
    assert h.service.pending() == [request]
    h.service.reply(request.id, "once")
    await _done(task)


TESTER_BLOCK = "git status --short\ntouch Q4\n'"


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({"bash": {"git status *": "allow"}}, "ask"),  # a specific allow does not decide it
        ({"bash": {"git *": "allow", "*": "ask"}}, "ask"),
        ({"bash": {"*": "allow", "git status *": "allow"}}, "allow"),  # catch-all: every command
        ({"bash": "allow"}, "allow"),
        ({"*": "allow"}, "allow"),
        ({"bash": {"*": "allow", "git *": "deny"}}, "deny"),  # deny rules still deny
        ({"bash": {"git *": "deny", "git status *": "allow"}}, "deny"),  # the allow no longer shields it
        ({"bash": {"*": "deny"}}, "deny"),
        ({"bash": {"*": "ask"}}, "ask"),
    ],
)
def test_an_unanalysed_text_is_allowed_only_by_a_catch_all(
    tmp_path: Path, config: dict[str, object], expected: str
) -> None:
    from shellpilot.permission.service import check

    rules = merge(default_rules(tmp_path), rules_from_config(config))
    verdict = check(AskRequest("bash", [TESTER_BLOCK], unanalysed=[TESTER_BLOCK]), rules)
    assert verdict.action == expected
    if expected == "ask":
        assert verdict.needs == (TESTER_BLOCK,)


def test_unanalysed_only_guards_the_listed_patterns() -> None:
    from shellpilot.permission.service import check

    rules = rules_from_config({"bash": {"*": "ask", "git status *": "allow"}})
    verdict = check(AskRequest("bash", ["git status -s", TESTER_BLOCK], unanalysed=[TESTER_BLOCK]), rules)
    assert verdict.needs == (TESTER_BLOCK,)
    assert check(AskRequest("bash", [TESTER_BLOCK]), rules).action == "allow"  # the hole, without the guard


async def test_a_grant_does_not_allow_an_unanalysed_text(h: Harness) -> None:
    rules = rules_from_config({"bash": {"*": "ask"}})
    first = h.start(
        h.service.ask(AskRequest("bash", ["git status"], ["git status *"]), session_id="s", ruleset=rules)
    )
    h.service.reply((await h.next_request()).id, "always")
    await _done(first)
    assert h.service.check(AskRequest("bash", ["git status x"]), rules).action == "allow"
    verdict = h.service.check(AskRequest("bash", [TESTER_BLOCK], unanalysed=[TESTER_BLOCK]), rules)
    assert verdict.action == "ask"


async def test_always_on_an_unanalysed_text_stores_nothing(h: Harness) -> None:
    rules = rules_from_config({"bash": {"*": "ask", "git status *": "allow"}})
    ask = h.service.asker("s", rules)
    task = h.start(ask(AskRequest("bash", [TESTER_BLOCK], [TESTER_BLOCK], unanalysed=[TESTER_BLOCK])))
    request = await h.next_request()
    assert request.patterns == (TESTER_BLOCK,)
    assert request.always == ()  # never offered for remembering
    h.service.reply(request.id, "always")
    await _done(task)
    assert h.service.grants == [] and not h.grants.exists()
    assert h.replies()[-1].reply == "once"
    # so the same text asks again
    again = h.start(ask(AskRequest("bash", [TESTER_BLOCK], [TESTER_BLOCK], unanalysed=[TESTER_BLOCK])))
    h.service.reply((await h.next_request()).id, "reject")
    with pytest.raises(PermissionRejected):
        await _done(again)


@pytest.mark.parametrize(
    ("text", "denied"),
    [
        ("true && " * 300 + "touch /tmp/X", "touch /tmp/X"),  # what a scanner failure left
        ("echo $($($(touch x)))", "touch x"),
        ("/usr/bin/touch y; ls", "touch y"),
        ("x | rm -rf /\n'", "rm -rf /"),
    ],
)
async def test_an_unanalysed_text_hiding_a_denied_command_is_denied(
    h: Harness, text: str, denied: str
) -> None:
    # With a catch-all allow (or --yes answering the ask), the deny rules must still win.
    from shellpilot.permission.service import Verdict, check

    rules = rules_from_config({"bash": {"*": "allow", "touch *": "deny", "rm -rf /": "deny"}})
    assert check(AskRequest("bash", [text], unanalysed=[text]), rules) == Verdict("deny", denied=denied)
    with pytest.raises(PermissionDenied) as caught:
        await h.service.ask(AskRequest("bash", [text], [], unanalysed=[text]), session_id="s", ruleset=rules)
    assert caught.value.pattern == denied and h.events == []


@pytest.mark.parametrize(
    "text",
    [
        "git-touch x; retouch y",  # inside longer names
        "x; rm -rf /tmp; y",  # an exact deny matches only itself
    ],
)
def test_embedded_deny_needs_a_command_the_rule_matches(text: str) -> None:
    from shellpilot.permission.service import check

    rules = rules_from_config({"bash": {"*": "ask", "touch *": "deny", "rm -rf /": "deny"}})
    assert check(AskRequest("bash", [text], unanalysed=[text]), rules).action == "ask"
    assert check(AskRequest("bash", ["touch a"]), rules).action == "deny"  # the rule itself works


def test_embedded_deny_respects_a_more_specific_allow() -> None:
    from shellpilot.permission.service import check

    rules = rules_from_config({"bash": {"*": "ask", "rm *": "deny", "rm -rf build *": "allow"}})
    text = "a=$(( x )); rm -rf build dist\n'"
    assert check(AskRequest("bash", [text], unanalysed=[text]), rules).action == "ask"  # asked, not denied
    hidden = "a=$(( x )); rm -rf src\n'"
    assert check(AskRequest("bash", [hidden], unanalysed=[hidden]), rules).action == "deny"


def test_a_deny_rule_makes_an_unanalysed_text_a_question_for_a_person() -> None:
    """A catch-all allow never allows an unanalysed text when any deny rule exists for the
    permission; without a deny rule it still does."""
    from shellpilot.permission.service import Verdict, check

    text = "X=r; ${X}m victim"
    guarded = rules_from_config({"bash": {"*": "allow", "rm *": "deny"}})
    verdict = check(AskRequest("bash", [text], unanalysed=[text]), guarded)
    assert verdict == Verdict("ask", needs=(text,), person_only=True)
    other_permission = rules_from_config({"bash": "allow", "edit": {"*.lock": "deny"}})
    assert check(AskRequest("bash", [text], unanalysed=[text]), other_permission).action == "allow"
    wildcard = rules_from_config({"bash": "allow", "*": {"rm *": "deny"}})
    assert check(AskRequest("bash", [text], unanalysed=[text]), wildcard).person_only
    # the scanner's own pattern (not the whole text) is judged by every rule as before
    assert check(AskRequest("bash", ["${X}m victim"]), guarded).action == "allow"
