"""The bytes of a request body, encoded as the official SDKs encode JSON, from pre-encoded parts.

Owns: the one JSON encoder of request bodies (compact separators, non-ASCII kept, no NaN: the
settings both SDKs use) and assembling a body whose long parts (the messages) were encoded
earlier. Must not touch: any protocol's fields (openai.py, anthropic.py build those) or SDKs.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def encode(value: Any) -> str:
    """``value`` as compact JSON text. Raises ValueError (NaN/inf) or TypeError (not JSON data)."""
    return _ENCODER.encode(value)


def json_array(encoded: Iterable[str]) -> str:
    """A JSON array of items that are already JSON text."""
    return "[" + ",".join(encoded) + "]"


def body_bytes(params: Mapping[str, Any], encoded: Mapping[str, str]) -> bytes:
    """The UTF-8 JSON of ``params`` (keys in their order), where a key found in ``encoded``
    takes that already-encoded text as its value. Equals ``encode(params)`` when each such
    text is ``encode`` of the value it stands for. Raises UnicodeEncodeError for text holding
    unpaired surrogates (as the SDKs do)."""
    fields = [
        f"{encode(key)}:{encoded[key] if key in encoded else encode(value)}" for key, value in params.items()
    ]
    return ("{" + ",".join(fields) + "}").encode()
