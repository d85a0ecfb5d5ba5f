"""Package faces that load a name's module on first use (PEP 562), so importing one module of a
package does not import all of its siblings.

Owns: ``lazy``. Must not touch: what the packages export; each lists its own names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy(
    package: str, where: Mapping[str, str], namespace: dict[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``where`` maps a public name to the
    submodule (relative to ``package``) that defines it; a loaded name is cached in
    ``namespace`` (the package's globals). Unknown names raise AttributeError."""

    def getattr_(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(f"{package}.{module}"), name)
        namespace[name] = value
        return value

    def dir_() -> list[str]:
        return sorted({*namespace, *where})

    return getattr_, dir_
