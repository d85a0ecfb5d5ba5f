"""Expansion rules with exact expected strings: arguments, placeholders, blocks, @refs."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest

from shellpilot.command.hints import hints
from shellpilot.command.model import Command
from shellpilot.command.shellblocks import BlockRun
from shellpilot.command.template import ExpandContext, expand, split_arguments, substitute
from shellpilot.errors import PermissionDenied, PermissionRejected
from shellpilot.permission.request import AskRequest
from shellpilot.tool.gate import GateVerdict

# --- step 1: split_arguments ---------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", []),
        ("a b  c", ["a", "b", "c"]),
        ('"two words" x', ["two words", "x"]),
        ("'single q' y", ["single q", "y"]),
        ('say "it\'s" ok', ["say", "it's", "ok"]),
        ("[Image 1] describe", ["[Image 1]", "describe"]),
        ("[image 12]x", ["[image 12]", "x"]),
        ("don't stop", ["don", "t", "stop"]),  # unmatched quote dropped
        ('a "unterminated', ["a", "unterminated"]),
        ('""', [""]),
        ('x"y z"', ["x", "y z"]),
    ],
)
def test_split_arguments(text: str, expected: list[str]) -> None:
    assert split_arguments(text) == expected


# --- step 2: substitute ---------------------------------------------------------------

TWELVE = " ".join(f"<${n}>" for n in range(1, 13))


@pytest.mark.parametrize(
    ("template", "arguments", "expected"),
    [
        ("Fix $1 then $2", "a b", "Fix a then b"),
        ("Fix $1 then $2", "a b c d", "Fix a then b c d"),  # highest takes the rest
        ("Fix $1 then $2", "a", "Fix a then "),  # missing -> empty
        ("$2 before $1", "x y z", "y z before x"),
        ("$1 and $1", "x y", "x y and x y"),  # $1 is also the highest
        ("$0 stays, $1 goes", "a", "$0 stays, a goes"),
        ("all: $ARGUMENTS / again: $ARGUMENTS", 'a "b c"', 'all: a "b c" / again: a "b c"'),
        ("quoted $1|$2", '"one two" three', "quoted one two|three"),
        ("img $1 then $2", "[Image 1] look here", "img [Image 1] then look here"),
        ("no placeholders", "x y", "no placeholders\n\nx y"),
        ("no placeholders", "   ", "no placeholders"),
        ("only $0", "x", "only $0\n\nx"),
        ("$1abc", "X", "Xabc"),
        (
            TWELVE,
            " ".join(f"a{n}" for n in range(1, 14)),
            " ".join(f"<a{n}>" for n in range(1, 12)) + " <a12 a13>",
        ),
        (TWELVE, "a1 a2", "<a1> <a2> " + " ".join("<>" for _ in range(10))),
    ],
)
def test_substitute(template: str, arguments: str, expected: str) -> None:
    assert substitute(template, arguments) == expected


@pytest.mark.parametrize(
    "hazard",
    ["$1", "$ARGUMENTS", "$100", r"\1", r"\g<0>", "$&", "$$", "$`", "$'", "trailing\\", "!`id`", "@x"],
)
def test_inserted_text_is_never_reexpanded(hazard: str) -> None:
    q = '"' if "'" in hazard else "'"
    assert substitute("[$1] [$ARGUMENTS]", f"{q}{hazard}{q}") == f"[{hazard}] [{q}{hazard}{q}]"
    assert substitute("<$ARGUMENTS>", hazard) == f"<{hazard}>"


def test_inserted_text_is_not_expanded_again() -> None:
    # A second pass over inserted text would give "$ARGUMENTS z z $ARGUMENTS z".
    assert substitute("$1 $ARGUMENTS", "$ARGUMENTS z") == "$ARGUMENTS z $ARGUMENTS z"


def test_fallback_append_is_not_a_shell_block() -> None:
    assert substitute("Hello", "!`id`") == "Hello\n\n!`id`"


def test_gemini_args() -> None:
    assert substitute("Review {{args}} now, $1 stays", "a b", "gemini") == "Review a b now, $1 stays"
    assert substitute("Plain", "a b", "gemini") == "Plain\n\na b"
    assert substitute("!{grep -r {{args}} .}", "a b", "gemini") == "!{grep -r 'a b' .}"
    assert substitute("!{grep -r {{args}} .}", "it's", "gemini") == "!{grep -r {{args}} .}"  # refused


def test_values_inside_blocks_are_spliced_only_when_inert() -> None:
    assert (
        substitute("!`git log $1`", "feature/x,v1.2.3:a=b+c@d%e_f")
        == "!`git log feature/x,v1.2.3:a=b+c@d%e_f`"
    )
    assert substitute("!`git diff $1`", "") == "!`git diff `"  # missing: nothing inserted
    # spaces: quoted in a plain word, verbatim inside quotes, refused in other contexts
    assert substitute("!`echo $ARGUMENTS`", "a b") == "!`echo 'a b'`"
    assert substitute("!`echo '$ARGUMENTS'`", "a b") == "!`echo 'a b'`"
    assert substitute('!`echo "$ARGUMENTS"`', "a b") == '!`echo "a b"`'
    assert substitute("!`echo $(( $1 ))`", "'a b'") == "!`echo $(( $1 ))`"
    assert substitute("!`echo x # $1`", "'a b'") == "!`echo x # $1`"
    # ~ only where it cannot start a tilde expansion
    assert substitute("!`git show $1`", "HEAD~1") == "!`git show HEAD~1`"
    assert substitute("!`ls $1`", "~/x") == "!`ls $1`"
    assert substitute("!`ls $1`", "a:~") == "!`ls $1`"
    value = 'a\'b "c" $(x) `y`'
    for form in ("!`echo $ARGUMENTS`", "!`echo '$ARGUMENTS'`", '!`echo "$ARGUMENTS"`'):
        assert substitute(form, value) == form  # kept as written: it will not run


def test_escaped_block_is_literal() -> None:
    assert substitute("\\!`date` and $1", "x") == "!`date` and x"


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("$10 $2 $1 $2 $3 $ARGUMENTS", ["$1", "$2", "$3", "$ARGUMENTS"]),  # $10 breaks the run
        ("$3 $2 $1 $2 $4 $5 $6 $7 $8 $9 $10", [f"${n}" for n in range(1, 11)]),
        ("$0 only", []),
        (TWELVE, [f"${n}" for n in range(1, 13)]),
        ("nothing", []),
    ],
)
def test_hints_numeric_order(template: str, expected: list[str]) -> None:
    assert hints(template) == expected


# --- steps 3-5: expand ----------------------------------------------------------------


class Recorder:
    """A real asker that records each request and answers from a fixed verdict."""

    def __init__(self, verdict: str = "allow") -> None:
        self.verdict = verdict
        self.calls: list[tuple[str, list[str], list[str]]] = []

    async def __call__(self, request: AskRequest, /) -> None:
        permission, patterns = request.permission, request.patterns
        self.calls.append((permission, list(patterns), list(request.always)))
        if self.verdict == "deny":
            raise PermissionDenied(permission, patterns[0])
        if self.verdict == "reject":
            raise PermissionRejected()


async def sh(verdict: GateVerdict, timeout_ms: int, abort: asyncio.Event | None) -> BlockRun:
    """Run what the gate let through with /bin/sh for real (merged output), like the runner does."""
    done = subprocess.run(
        ["/bin/sh", "-c", verdict.plan.command],
        cwd=verdict.plan.cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return BlockRun(done.stdout, done.returncode)


def ctx_for(project: Path, ask: Recorder | None = None, **kw: Any) -> ExpandContext:
    return ExpandContext(project_dir=project, ask=ask or Recorder(), run=sh, **kw)


def cmd(template: str, **kw: Any) -> Command:
    return Command(name="t", template=template, **kw)


async def test_block_runs_in_project_dir_and_is_replaced(project: Path) -> None:
    ask = Recorder()
    out = await expand(cmd("Here: !`pwd` done"), "", ctx_for(project, ask))
    assert out.text == f"Here: {project} done"
    assert ask.calls == [("bash", ["pwd"], ["pwd *"])]
    assert [b.status for b in out.blocks] == ["ok"]


async def test_argument_injection_runs_nothing_extra(project: Path) -> None:
    ask = Recorder()
    out = await expand(
        cmd("Echo: !`echo $ARGUMENTS` / !`echo $1`"), "don't $(touch p)", ctx_for(project, ask)
    )
    assert not (project / "p").exists()
    assert out.text == "Echo: !`echo $ARGUMENTS` / !`echo $1`"
    assert ask.calls == []
    assert out.warnings == [
        "shell block not run: argument $ARGUMENTS contains shell metacharacters",
        "shell block not run: argument $1 contains shell metacharacters",
    ]
    assert [b.status for b in out.blocks] == ["denied", "denied"]


async def test_argument_block_syntax_stays_text(project: Path) -> None:
    ask = Recorder()
    out = await expand(cmd("Say $1"), "'!`touch q`'", ctx_for(project, ask))
    assert out.text == "Say !`touch q`"
    assert ask.calls == [] and not (project / "q").exists()


async def test_failing_block_keeps_output_and_exit_code_and_goes_on(project: Path) -> None:
    out = await expand(cmd("A !`echo oops >&2; exit 3` B !`echo ok`"), "", ctx_for(project))
    assert out.text == "A oops\n[exit code 3] B ok"
    assert [b.status for b in out.blocks] == ["failed", "ok"]
    assert out.warnings == ["shell block `echo oops >&2; exit 3`: failed"]


async def test_blocks_run_in_document_order(project: Path) -> None:
    out = await expand(cmd("!`echo 1 >> log; cat log` !`echo 2 >> log; cat log`"), "", ctx_for(project))
    assert out.text == "1 1\n2"


async def test_escaped_block_does_not_run(project: Path) -> None:
    ask = Recorder()
    out = await expand(cmd("Literal \\!`touch x` and !{touch y} then !`echo ran`"), "", ctx_for(project, ask))
    assert out.text == "Literal !`touch x` and !{touch y} then ran"  # markdown has no !{...} blocks
    assert [c[1] for c in ask.calls] == [["echo ran"]]
    assert not (project / "x").exists() and not (project / "y").exists()


@pytest.mark.parametrize(
    ("verdict", "reason"), [("deny", 'edit denied by rule for "y"'), ("reject", "rejected by the user")]
)
async def test_refused_block_does_not_run(project: Path, verdict: str, reason: str) -> None:
    out = await expand(cmd("X !`touch y` Y"), "", ctx_for(project, Recorder(verdict)))
    assert not (project / "y").exists()
    assert out.text == f"X [shell block not run: {reason}] Y"
    assert out.warnings == [f"shell block `touch y` not run: {reason}"]  # said once, not "rejected rejected"


async def test_rejection_keeps_the_askers_reason(project: Path) -> None:
    async def no_terminal(*args: Any, **kw: Any) -> None:
        raise PermissionRejected("not allowed without a terminal (pass --yes or --allow 'touch *')")

    out = await expand(cmd("X !`touch y`"), "", ExpandContext(project_dir=project, ask=no_terminal, run=sh))
    assert (
        out.text
        == "X [shell block not run: not allowed without a terminal (pass --yes or --allow 'touch *')]"
    )


async def test_external_directory_is_asked_first(project: Path) -> None:
    ask = Recorder()
    ctx = ExpandContext(project_dir=project, ask=ask, run=sh)
    await expand(cmd("!`cat /etc/hostname`"), "", ctx)
    assert ask.calls == [
        ("external_directory", ["/etc/*"], ["/etc/*"]),
        ("bash", ["cat /etc/hostname"], ["cat *"]),
    ]


async def test_no_shell_mode_reports_blocks(project: Path) -> None:
    ask = Recorder()
    out = await expand(cmd("Status: !`git status $1`"), "x y", ctx_for(project, ask, run_shell=False))
    assert out.text == "Status: !`git status 'x y'`"
    assert ask.calls == [] and out.blocks[0].status == "not_run"


async def test_references(project: Path, tmp_path: Path) -> None:
    (project / "src").mkdir()
    (project / "src" / "a.py").write_text("x = 1\n")
    (project / "with space.txt").write_text("s")
    (project / ".hidden").write_text("h")
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.md").write_text("n")
    template = (
        'Read @src/a.py, then (@src) and @"with space.txt". Ask @explore. '
        "Mail me@example.com. Code `@src/a.py`. Also @.hidden and @~/notes.md. Missing @nope."
    )
    out = await expand(cmd(template), "", ctx_for(project, agents={"explore": "subagent"}, home=home))
    assert [(f.name, f.kind) for f in out.files] == [
        ("src/a.py", "file"),
        ("src", "directory"),
        ("with space.txt", "file"),
        (".hidden", "file"),
        ("~/notes.md", "file"),
    ]
    assert out.files[0].mime == "text/x-python"
    assert out.files[1].listing == "a.py"
    assert out.files[4].path == home / "notes.md"
    assert out.agents == ["explore"]
    assert out.warnings == ["@nope: no such file, directory or agent; left as text"]
    assert out.text == template


async def test_reference_from_argument_but_not_from_shell_output(project: Path) -> None:
    (project / "a.txt").write_text("a")
    out = await expand(cmd("Look at @$1 and !`echo @a.txt`"), "a.txt", ctx_for(project))
    assert [f.name for f in out.files] == ["a.txt"]
    assert out.text == "Look at @a.txt and @a.txt"


async def test_gemini_file_reference_and_trim(project: Path) -> None:
    (project / "b.md").write_text("b")
    out = await expand(cmd("  Use @{b.md}\n\n", syntax="gemini"), "", ctx_for(project))
    assert out.text == "Use @{b.md}" and [f.name for f in out.files] == ["b.md"]


@pytest.mark.parametrize(
    ("subtask", "mode", "expected"),
    [(None, "subagent", True), (False, "subagent", False), (True, "primary", True), (None, "primary", False)],
)
async def test_subtask_decision(project: Path, subtask: bool | None, mode: str, expected: bool) -> None:
    command = cmd("x", agent="helper", subtask=subtask, model="p/m")
    out = await expand(command, "", ctx_for(project, agents={"helper": mode}))
    assert out.subtask is expected and out.agent == "helper" and out.model == "p/m"


async def test_lazy_template_is_plain_text(project: Path) -> None:
    seen: list[str] = []

    async def fetch(arguments: str) -> str:
        seen.append(arguments)
        return "server says $1 !`touch z` @/etc/hostname"

    out = await expand(
        Command(name="m", source="mcp", template=fetch, origin="mcp:s"), "a b", ctx_for(project)
    )
    assert seen == ["a b"]
    assert out.text == "server says $1 !`touch z` @/etc/hostname"
    assert not (project / "z").exists() and out.files == []


@pytest.mark.parametrize(
    "form", ["!`printf %s $ARGUMENTS`", "!`printf %s '$ARGUMENTS'`", '!`printf %s "$ARGUMENTS"`']
)
async def test_metacharacter_values_keep_the_block_from_running(project: Path, form: str) -> None:
    value = 'a\'b "c" $(touch x) `touch y` \\n $HOME'
    out = await expand(cmd(f"[{form}]"), value, ctx_for(project))
    assert out.text == f"[{form}]"
    assert out.warnings == ["shell block not run: argument $ARGUMENTS contains shell metacharacters"]
    assert not (project / "x").exists() and not (project / "y").exists()
    spaced = await expand(cmd(f"[{form}]"), "a  b c", ctx_for(project))
    assert spaced.text == "[a  b c]" and spaced.warnings == []


async def test_default_scanner_and_runner(project: Path) -> None:
    """No seams: the real scanner builds the asks and the real runner runs the block."""
    ask = Recorder()
    ctx = ExpandContext(project_dir=project, ask=ask)
    out = await expand(cmd("Files: !`ls -a $1` / !`echo $ARGUMENTS; exit 4`"), "no such", ctx)
    assert [c[0] for c in ask.calls] == ["bash", "bash"]
    assert ask.calls[0][1] == ["ls -a 'no such'"] and ask.calls[0][2] == ["ls *"]
    assert out.blocks[0].status == "failed" and out.blocks[1].status == "failed"
    assert out.blocks[1].exit_code == 4
    assert out.text.endswith("/ no such\n\n<shell_metadata>\nExit code: 4.\n</shell_metadata>")


async def test_default_scanner_asks_for_outside_dirs(project: Path, tmp_path: Path) -> None:
    ask = Recorder()
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    ctx = ExpandContext(project_dir=project, ask=ask)
    await expand(cmd(f"!`ls {outside}`"), "", ctx)
    assert ask.calls[0] == ("external_directory", [f"{outside}/*"], [f"{outside}/*"])
    assert ask.calls[1][0] == "bash"


async def test_block_timeout_is_reported_and_expansion_goes_on(project: Path) -> None:
    ctx = ExpandContext(project_dir=project, ask=allow_all_recorder(), timeout_ms=300)
    out = await expand(cmd("A !`echo started; sleep 5` B !`echo after`"), "", ctx)
    assert [b.status for b in out.blocks] == ["timed_out", "ok"]
    assert out.text.startswith("A started\n") and out.text.endswith(" B after")
    assert "300 ms" in out.text


def allow_all_recorder() -> Recorder:
    return Recorder("allow")


# --- @path outside the project asks external_directory --------------------------------


def outside_layout(project: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A secret next to the project, a home with ~/.ssh/id_rsa, a symlink out, a file in."""
    (project.parent / "secret.txt").write_text("s3cret")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("KEY")
    (project / "link.txt").symlink_to(project.parent / "secret.txt")
    (project / "in.txt").write_text("in")
    return project.parent / "secret.txt", home


@pytest.mark.parametrize("verdict", ["reject", "deny"])
async def test_outside_references_ask_and_stay_text_when_refused(
    project: Path, tmp_path: Path, verdict: str
) -> None:
    secret, home = outside_layout(project, tmp_path)
    ask = Recorder(verdict)
    template = "See @../secret.txt @~/.ssh/id_rsa @link.txt @in.txt"
    out = await expand(cmd(template), "", ctx_for(project, ask, home=home))
    assert [f.name for f in out.files] == ["in.txt"]
    outside = f"{secret.parent}/*"
    assert ask.calls == [
        ("external_directory", [outside], [outside]),
        ("external_directory", [f"{home}/.ssh/*"], [f"{home}/.ssh/*"]),
    ]
    why = "rejected by the user" if verdict == "reject" else f'denied by rule for "{outside}"'
    assert (
        out.warnings[0]
        == f"@../secret.txt: outside the project ({secret}), not attached: external_directory {why}"
    )
    assert len(out.warnings) == 3 and "@link.txt: outside the project" in out.warnings[2]
    assert out.text == template


async def test_outside_references_attach_when_allowed(project: Path, tmp_path: Path) -> None:
    secret, home = outside_layout(project, tmp_path)
    ask = Recorder()
    out = await expand(cmd("@../secret.txt @link.txt @~/.ssh/id_rsa"), "", ctx_for(project, ask, home=home))
    assert [(f.name, f.path) for f in out.files] == [
        ("../secret.txt", secret),
        ("link.txt", secret),
        ("~/.ssh/id_rsa", home / ".ssh" / "id_rsa"),
    ]
    assert [c[1] for c in ask.calls] == [[f"{secret.parent}/*"], [f"{home}/.ssh/*"]]  # asked once per dir
    assert out.warnings == []


async def test_inside_references_never_ask(project: Path) -> None:
    (project / "d").mkdir()
    (project / "d" / "f.txt").write_text("f")
    ask = Recorder("deny")
    out = await expand(cmd("@d @d/f.txt @./d/../d/f.txt"), "", ctx_for(project, ask))
    assert [f.name for f in out.files] == ["d", "d/f.txt", "./d/../d/f.txt"] and ask.calls == []


@pytest.mark.parametrize(
    ("words", "text"),
    [
        (["a", "b"], "a b"),
        (["two words", "x"], '"two words" x'),
        (["it's", "fine"], '"it\'s" fine'),
        (['say "hi" now'], "'say \"hi\" now'"),
        (["", "x"], '"" x'),
        (["[Image", "1]"], '"[Image" 1]'),
        (["[Image 1]"], '"[Image 1]"'),
        (["$1", "\\", "@x", "a=b"], "$1 \\ @x a=b"),
        ([], ""),
    ],
)
def test_join_arguments_round_trips(words: list[str], text: str) -> None:
    from shellpilot.command.arguments import join_arguments

    assert join_arguments(words) == text
    assert split_arguments(text) == words


# --- arguments spliced into shell blocks (tester's injections) ---------------------------


@pytest.mark.parametrize(
    ("template", "value", "placeholder"),
    [
        ("!`echo $(( $1 + 1 ))`", "a[$(touch P)]", "$1"),
        ("!`cat <<EOF\n$1\nEOF\n`", "$(touch P)", "$1"),
        ('!`echo "$(echo $1)"`', '"; touch P; "', "$1"),
        ("!`echo $'$1'`", "\\'; touch P; #", "$1"),
        ("!`echo hi # $1`", "x\ntouch P #", "$1"),
        ("!`echo hi # $ARGUMENTS`", "x\ntouch P #", "$ARGUMENTS"),
    ],
)
async def test_injected_arguments_never_run(
    project: Path, template: str, value: str, placeholder: str
) -> None:
    from shellpilot.command.arguments import join_arguments

    ask = allow_all_recorder()
    out = await expand(cmd(f"Out: {template} end"), join_arguments([value]), ExpandContext(project, ask=ask))
    assert not (project / "P").exists()
    assert out.warnings == [f"shell block not run: argument {placeholder} contains shell metacharacters"]
    assert out.text == f"Out: {template} end"
    assert ask.calls == []


async def test_an_escaped_dollar_in_a_block_is_the_shells(project: Path) -> None:
    from shellpilot.command.arguments import join_arguments

    ask = allow_all_recorder()
    out = await expand(
        cmd("Out: !`echo \\$1` end"), join_arguments(["x}; touch P; #"]), ExpandContext(project, ask=ask)
    )
    assert not (project / "P").exists()
    assert out.text == 'Out: $1 end\n\n"x}; touch P; #"' and out.warnings == []  # no placeholder: appended


@pytest.mark.parametrize("value", ["HEAD~1", "feature/x", "123", "v1.2.3", "a=b,c:d+e@f%g_h-i"])
async def test_ordinary_arguments_still_run(project: Path, value: str) -> None:
    out = await expand(cmd('[!`echo $1`] [!`echo "$1"`] [!`cat <<EOF\n$1\nEOF\n`]'), value, ctx_for(project))
    assert out.text == f"[{value}] [{value}] [{value}]" and out.warnings == []


async def test_numbers_run_in_arithmetic(project: Path) -> None:
    out = await expand(cmd("!`echo $(( $1 + 1 ))`"), "123", ExpandContext(project, ask=allow_all_recorder()))
    assert out.text == "124"


@pytest.mark.parametrize("value", ["~", "~/x", "a b", "x;y", "$HOME"])
async def test_a_tilde_or_space_where_it_matters_is_refused(project: Path, value: str) -> None:
    from shellpilot.command.arguments import join_arguments

    out = await expand(cmd("!`cat <<EOF\n$1\nEOF\n`"), join_arguments([value]), ctx_for(project))
    assert out.warnings == ["shell block not run: argument $1 contains shell metacharacters"]


async def test_an_unanalysed_block_under_a_deny_rule_needs_a_person(project: Path, tmp_path: Path) -> None:
    """``--yes`` (``TerminalAsk(yes=True)``) never allows a block the scanner could not read
    while a deny rule exists; without one it does."""
    from shellpilot.bus import Bus
    from shellpilot.cli.command_cmd import TerminalAsk
    from shellpilot.permission import PermissionService, rules_from_config

    (project / "victim").write_text("keep\n")
    service = PermissionService(Bus(), tmp_path / "grants.json", project_dir=project)
    guarded = rules_from_config({"bash": {"*": "allow", "rm *": "deny"}})
    ask = TerminalAsk(service, guarded, yes=True)
    out = await expand(cmd("!`X=r; ${X}m victim`"), "", ExpandContext(project_dir=project, ask=ask))
    assert out.blocks[0].status == "rejected" and "only a person may allow it" in out.blocks[0].reason
    assert (project / "victim").exists()
    ask = TerminalAsk(service, rules_from_config({"bash": {"*": "allow"}}), yes=True)
    out = await expand(cmd("!`X=r; ${X}m victim`"), "", ExpandContext(project_dir=project, ask=ask))
    assert out.blocks[0].status == "ok" and not (project / "victim").exists()
