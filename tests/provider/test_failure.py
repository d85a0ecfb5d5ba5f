"""Failure helpers shared by both SDK boundaries: transport errors are judged by type."""

from __future__ import annotations

import httpx2
import pytest

from shellpilot.provider.failure import is_transport_error, other_error


class TransportError(Exception):
    """Same name as httpx2's, unrelated class: must not count as a lost connection."""


@pytest.mark.parametrize(
    "exc",
    [
        httpx2.ReadError("peer closed"),
        httpx2.RemoteProtocolError("incomplete chunked read"),
        httpx2.ConnectError("refused"),
        httpx2.StreamClosed(),
        ConnectionResetError(104, "reset"),
        EOFError(),
    ],
)
def test_transport_errors_are_retryable_lost_connections(exc: BaseException) -> None:
    assert is_transport_error(exc)
    mapped = other_error(exc, "fake")
    assert mapped.retryable and "connection lost" in str(mapped)


@pytest.mark.parametrize("exc", [TransportError("look-alike"), ValueError("bad"), httpx2.DecodingError("x")])
def test_other_errors_are_not_transport_errors(exc: BaseException) -> None:
    assert not is_transport_error(exc)
    assert not other_error(exc, "fake").retryable
