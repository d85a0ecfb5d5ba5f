"""``shellpilot run`` helpers: /command parsing, exit status, --schema, stdin message."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from shellpilot.cli.run_cmd import exit_code, load_schema, read_message, split_command
from shellpilot.errors import (
    Aborted,
    PermissionDenied,
    PermissionRejected,
    ProviderError,
    ProviderNotConfigured,
    StructuredOutputError,
    UsageError,
)
from shellpilot.session.models import AssistantMessage, MessageError
from shellpilot.session.turn import TurnResult


@pytest.mark.parametrize(
    ("message", "command", "expected"),
    [
        ("/review HEAD~1", None, ("review", "HEAD~1")),
        ("  /init  ", None, ("init", "")),
        ("/rate the code  now", None, ("rate", "the code  now")),
        ("fix /etc/hosts parsing", None, (None, "fix /etc/hosts parsing")),
        ("/ not a command", None, (None, "/ not a command")),
        ("//comment", None, (None, "//comment")),
        ("HEAD~1", "review", ("review", "HEAD~1")),
        ("x", "/review", ("review", "x")),
    ],
)
def test_split_command(message: str, command: str | None, expected: tuple[str | None, str]) -> None:
    assert split_command(message, command) == expected


def _result(error: BaseException | MessageError | None) -> TurnResult:
    record = MessageError.of(error) if isinstance(error, BaseException) else error
    return TurnResult("ses_x", AssistantMessage(session_id="ses_x", error=record), "")


@pytest.mark.parametrize(
    ("error", "code"),
    [
        (None, 0),
        (Aborted(), 130),
        (ProviderError("fake: HTTP 500", provider="fake"), 3),
        (ProviderNotConfigured("set a key", provider="fake"), 3),
        (PermissionRejected("no"), 4),
        (PermissionDenied("bash", "rm *"), 4),
        (StructuredOutputError("text instead"), 1),
        (MessageError(name="StepLimit", message="Stopped after max_steps"), 1),
        (RuntimeError("a bug"), 1),
    ],
)
def test_exit_code_comes_from_the_recorded_error_class(
    error: BaseException | MessageError | None, code: int
) -> None:
    assert exit_code(_result(error)) == code


def test_the_exit_code_survives_the_store_and_a_class_name_alone_is_not_looked_up() -> None:
    stored = MessageError.model_validate_json(MessageError.of(PermissionRejected("no")).model_dump_json())
    assert exit_code(_result(stored)) == 4
    assert exit_code(_result(MessageError(name="ProviderError", message="only a name"))) == 1


def test_sigterm_exits_143_and_sigint_130() -> None:
    import signal

    assert exit_code(_result(Aborted()), True, signal.SIGTERM) == 143
    assert exit_code(_result(ProviderError("x", provider="p")), True, signal.SIGINT) == 130
    assert exit_code(_result(None), True, signal.SIGTERM) == 0


def test_interrupt_wins_over_the_recorded_error() -> None:
    assert exit_code(_result(PermissionRejected("no")), interrupted=True) == 130


def test_load_schema_inline_file_and_errors(tmp_path: Path) -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string"}}}
    assert load_schema(json.dumps(schema)) == schema
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    assert load_schema(str(path)) == schema
    with pytest.raises(UsageError, match="cannot read"):
        load_schema(str(tmp_path / "missing.json"))
    with pytest.raises(UsageError, match="not valid JSON"):
        load_schema("{nope")
    path.write_text("[1]")
    with pytest.raises(UsageError, match="JSON object"):
        load_schema(str(path))


def test_read_message_from_words_or_stdin() -> None:
    assert read_message(["fix", "it"], io.StringIO("ignored")) == "fix it"
    assert read_message([], io.StringIO("  from stdin\n")) == "from stdin"


@pytest.mark.parametrize(
    ("words", "command", "expected"),
    [
        (["/ph", "a b", "c"], None, '/ph "a b" c'),
        (["/ph", "it's", ""], None, '/ph "it\'s" ""'),
        (["/ph a 'b c'"], None, "/ph a 'b c'"),  # one string: the text after the name is raw
        (["a b", "c"], "ph", '"a b" c'),
        (["say", "it's"], None, "say it's"),  # a plain message is prose
    ],
)
def test_read_message_joins_command_arguments_like_render(
    words: list[str], command: str | None, expected: str
) -> None:
    from shellpilot.command.arguments import split_arguments

    message = read_message(words, io.StringIO(""), command)
    assert message == expected
    name, text = split_command(message, command)
    if name is not None and len(words) > 1:
        assert split_arguments(text) == (words if command else words[1:])


def test_check_files(tmp_path: Path) -> None:
    from shellpilot.cli.run_cmd import check_files
    from shellpilot.errors import (
        UsageError,
    )

    (tmp_path / "a.py").write_text("x")
    (tmp_path / "d").mkdir()
    check_files([Path("a.py"), Path("d"), tmp_path / "a.py"], tmp_path)
    with pytest.raises(UsageError, match=r"--file gone\.py: no such file"):
        check_files([Path("a.py"), Path("gone.py")], tmp_path)
