"""An append-only conversation shared by successive requests, with its wire form kept between them.

Owns: ``Transcript`` (immutable views over one shared, append-only list of items, generic in
the item type; base.py uses ``Transcript[Message]``) and the memo of folds over it, so a
provider maps each message to its wire form once. Must not touch: any message or wire type
(base.py, openai.py, anthropic.py), SDKs, sessions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any, Generic, TypeVar, get_args, overload

if TYPE_CHECKING:
    from pydantic import GetCoreSchemaHandler
    from pydantic_core import CoreSchema

T = TypeVar("T")
State = TypeVar("State")
Step = Callable[[Any, Any], None]
"""``step(state, item)``: fold one more item into a provider's wire state, in place."""


class _Log(Generic[T]):
    """The shared list the views read, and the fold states computed over a prefix of it."""

    __slots__ = ("folds", "items")

    def __init__(self, items: list[T]) -> None:
        self.items = items
        self.folds: dict[Step, tuple[int, Any]] = {}


class Transcript(Sequence[T]):
    """The messages of one request: a read-only sequence that later requests extend cheaply.

    ``extended(new)`` returns a longer transcript sharing this one's storage when this is the
    newest view (the usual case: each step appends its messages), else a copy. A view never
    changes: a request keeps showing the messages it was built with. ``fold(step, start)``
    is the state of ``step`` applied to every message in order, remembered between views of
    the same storage, so each message is folded once however many requests include it.
    Lists and other iterables of messages convert to a ``Transcript`` in ``ModelRequest``.
    """

    __slots__ = ("_log", "_size")

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._log: _Log[T] = _Log(list(items))
        self._size = len(self._log.items)

    @classmethod
    def _view(cls, log: _Log[T], size: int) -> Transcript[T]:
        view = cls.__new__(cls)
        view._log, view._size = log, size
        return view

    def extended(self, items: Iterable[T]) -> Transcript[T]:
        """This transcript followed by ``items`` (shares storage when nothing came after it)."""
        new = list(items)
        if not new:
            return self
        if self._size == len(self._log.items):
            self._log.items.extend(new)
            return self._view(self._log, self._size + len(new))
        return type(self)([*self, *new])

    def fold(self, step: Callable[[State, T], None], start: Callable[[], State]) -> State:
        """``step`` applied to ``start()`` and then to each message, in order; the result is
        remembered (keyed by ``step``) and advanced by later, longer views of the same storage.

        The state returned may be advanced in place by a later call on a longer view: read it
        at once (encode the request), do not keep it.
        """
        items = self._log.items
        memo = self._log.folds.get(step)
        if memo is not None and memo[0] <= self._size:
            done, state = memo
        else:
            done, state = 0, start()
        try:
            for item in islice(items, done, self._size):
                step(state, item)
        except BaseException:
            self._log.folds.pop(step, None)  # the state is half-advanced: start over next time
            raise
        if memo is None or memo[0] <= self._size:
            self._log.folds[step] = (self._size, state)
        return state  # type: ignore[no-any-return]

    def __len__(self) -> int:
        return self._size

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return self._log.items[: self._size][index]
        if index < 0:
            index += self._size
        if not 0 <= index < self._size:
            raise IndexError("Transcript index out of range")
        return self._log.items[index]

    def __iter__(self) -> Iterator[T]:
        return islice(self._log.items, self._size)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Transcript | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Transcript({list(self)!r})"

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        """As a field of type ``Transcript[X]``: a ``Transcript`` passes as it is (its items
        were validated once, when made); any other sequence is validated as ``list[X]`` and
        wrapped. Serialised as a list."""
        from pydantic_core import core_schema

        (item_type,) = get_args(source) or (Any,)
        items = handler.generate_schema(list[item_type])  # type: ignore[valid-type]
        return core_schema.union_schema(
            [core_schema.is_instance_schema(cls), core_schema.no_info_after_validator_function(cls, items)],
            serialization=core_schema.plain_serializer_function_ser_schema(list, return_schema=items),
        )
