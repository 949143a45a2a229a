"""THE serializer of frames, and their masking.

The two sinks that write the wire (the journal, the `--json` stream) go through ONE
serializer, `wire`: the frame's fields as ordered `(key, value)` pairs, in the order the
journal has always written them. How a field reaches the wire is said once, on the field, in
`frames` (`absent()`, `spliced()`); a frame's `task` is its address, not a pair; `node`,
`parent` and `depth` close the pairs. An `AgentStep`'s pairs are every field of its event —
named `agent_event` and `agent_seq` for its kind and sequence. Content — a field declared
`content()`, and an agent run's prompt and system text, each model call's reply, each tool
call's arguments and result — is written whole up to `content.CONTENT_CAP`, else as its head
with the size and digest of the whole (`content.captured`); the bus masked it whole before, so
a cut never splits a secret the mask would have caught and a digest never commits to one.

Masking is typed too (`mask_frame`): the mask applies to every value field of a frame, at any
depth of its groups and events, and gives back a frame of the same type.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from typing import Any, Final, TypeVar

from nika.agent.observe import ModelCalled, RunStarted, ToolCompleted, TurnStarted
from nika.errors import NikaError
from nika.journal.content import captured
from nika.journal.frames import (
    _ABSENT,
    _CONTENT,
    _D,
    _RULE,
    AgentStep,
    Frame,
    Pair,
)
from nika.masking import Masker

_BASE: Final = ("task", "node", "parent", "depth")
_TRAILER: Final = _BASE[1:]
_layouts: dict[type[Any], tuple[tuple[str, str | None], ...]] = {}
_AGENT_CONTENT: Final[Mapping[type[Any], frozenset[str]]] = {
    RunStarted: frozenset({"prompt", "system"}),
    ModelCalled: frozenset({"reply"}),
    ToolCompleted: frozenset({"arguments", "result"}),
}
"""The agent events' content fields (the agent room declares no wire rules of its own)."""


def _layout(cls: type[Any]) -> tuple[tuple[str, str | None], ...]:
    """`(name, rule)` of each field of a frame or group class, in wire order."""
    found = _layouts.get(cls)
    if found is None:
        rules = {f.name: f.metadata.get(_RULE) for f in dataclasses.fields(cls)}
        names = [n for n in rules if n not in _BASE]
        if issubclass(cls, Frame):
            names += _TRAILER
        found = _layouts[cls] = tuple((n, rules[n]) for n in names)
    return found


def _value(value: Any) -> Any:
    if isinstance(value, str | int | float | None):
        return value
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, NikaError):
        return value.to_dict()
    return value


def _pairs(obj: Any) -> Iterator[Pair]:
    for name, rule in _layout(type(obj)):
        value = getattr(obj, name)
        if rule is None:
            yield name, _value(value)
        elif value is None:
            continue
        elif rule == _ABSENT:
            yield name, _value(value)
        elif rule == _CONTENT:
            yield name, captured(_value(value))
        elif isinstance(value, Mapping):
            yield from ((str(k), _value(v)) for k, v in value.items())
        else:
            yield from _pairs(value)


def _agent_pairs(step: AgentStep) -> Iterator[Pair]:
    event, unit = step.event, step.unit
    yield "agent_event", event.kind
    yield "agent_seq", event.seq
    yield "attempt", unit.attempt
    if unit.iteration is not None:
        yield "iteration", unit.iteration
    content = _AGENT_CONTENT.get(type(event), frozenset())
    for f in dataclasses.fields(event):
        if f.name in ("seq", "task"):  # `task` is the frame's own address
            continue
        value = getattr(event, f.name)
        if f.name in content:
            if value is not None:
                yield f.name, captured(_value(value))
            continue
        yield f.name, _value(value)
    if isinstance(event, RunStarted | TurnStarted):
        yield "verb", "agent"
    elif isinstance(event, ToolCompleted):
        yield "tool", event.name
    for name in _TRAILER:
        value = getattr(step, name)
        if value is not None:
            yield name, value


def wire(frame: Frame) -> list[Pair]:
    """THE serialization of a frame: its fields as ordered `(key, JSON value)` pairs (the
    task excluded: it is the frame's address). The journal and `--json` both write these."""
    if isinstance(frame, AgentStep):
        return list(_agent_pairs(frame))
    return list(_pairs(frame))


# -- masking ---------------------------------------------------------------------------------

_F = TypeVar("_F", bound=Frame)


def _masked(value: Any, mask: Masker) -> Any:
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, str):
        return mask.text(value)
    if isinstance(value, tuple):
        return tuple(mask(list(value)))
    if isinstance(value, NikaError):
        return mask.error(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _mask_fields(value, mask)
    return mask(value)


def _mask_fields(obj: _D, mask: Masker) -> _D:
    changes = {}
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        masked = _masked(value, mask)
        if masked is not value:
            changes[f.name] = masked
    return dataclasses.replace(obj, **changes) if changes else obj


def mask_frame(frame: _F, mask: Masker) -> _F:
    """`frame` with the mask applied to every value field (its groups and its agent event
    included); the frame itself when the mask hides nothing."""
    return _mask_fields(frame, mask) if mask.active else frame

