"""The loop's append-only transcript and the O(1) frozen views it hands to providers."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice
from typing import overload

from nika.agent.seams import Message


class TranscriptView(Sequence[Message]):
    """The first `length` messages of an append-only list, as an immutable Sequence.

    Creating one is O(1): the loop never copies the history per turn. Because the backing
    list only ever grows, the view keeps showing exactly what the request carried.
    """

    __slots__ = ("_items", "_length")

    def __init__(self, items: list[Message], length: int) -> None:
        self._items = items
        self._length = length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Message: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Message, ...]: ...

    def __getitem__(self, index: int | slice) -> Message | tuple[Message, ...]:
        if isinstance(index, slice):
            return tuple(self._items[: self._length][index])
        position = index + self._length if index < 0 else index
        if not 0 <= position < self._length:
            raise IndexError(f"transcript index {index} out of range (length {self._length})")
        return self._items[position]

    def __iter__(self) -> Iterator[Message]:
        return islice(self._items, self._length)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        return len(other) == self._length and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"TranscriptView({list(self)!r})"


class Transcript:
    """The run's messages, appended in order and never rewritten."""

    __slots__ = ("_items",)

    def __init__(self) -> None:
        self._items: list[Message] = []

    def append(self, message: Message) -> None:
        self._items.append(message)

    def extend(self, messages: Sequence[Message]) -> None:
        self._items.extend(messages)

    def view(self) -> TranscriptView:
        """The transcript as it stands now, frozen at its current length."""
        return TranscriptView(self._items, len(self._items))

    def freeze(self) -> tuple[Message, ...]:
        return tuple(self._items)
