"""The error hierarchy carries what the user needs and maps to exit codes."""

from __future__ import annotations

import pytest

from shellpilot import errors


def test_every_error_is_a_shellpilot_error() -> None:
    for name in errors.__all__:
        cls = getattr(errors, name)
        assert issubclass(cls, errors.ShellpilotError), name


@pytest.mark.parametrize(
    ("err", "code", "needle"),
    [
        (errors.ConfigError("bad value", path="/p/shellpilot.json", line=3), 2, "/p/shellpilot.json:3"),
        (errors.CommandNotFound("reveiw", ["review"]), 2, "Did you mean: review"),
        (errors.PermissionDenied("bash", "rm -rf /"), 4, '"rm -rf /"'),
        (errors.PermissionCorrected("use git mv"), 4, "use git mv"),
        (errors.SessionBusy("ses_1"), 5, "ses_1"),
        (errors.InvalidTimeout(-5), 2, "-5"),
        (errors.Aborted(), 130, "aborted"),
    ],
)
def test_messages_and_exit_codes(err: errors.ShellpilotError, code: int, needle: str) -> None:
    assert err.exit_code == code
    assert needle in err.format_message()


def test_invalid_timeout_is_a_value_error() -> None:
    with pytest.raises(ValueError):
        raise errors.InvalidTimeout(0)


def test_corrected_is_a_rejection_with_feedback() -> None:
    err = errors.PermissionCorrected("no, run the tests first")
    assert isinstance(err, errors.PermissionRejected)
    assert err.feedback == "no, run the tests first"
