"""The envelope's declarations: `inputs:`, `const:`, `secrets:` (with `egress:`), `permits:`,
`run:` and `outputs:` (spec 01).

Frozen dataclasses of the workflow model (`nika.syntax.model`), in a module of their own so
that a check of a document declaring none of them never builds their classes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from nika.syntax.keypath import KeyPath

if TYPE_CHECKING:
    from nika.syntax.types import TypeExpr


@dataclass(frozen=True, slots=True)
class InputDecl:
    """A typed `inputs:` entry."""

    name: str
    type: TypeExpr
    path: KeyPath
    required: bool = False
    has_default: bool = False
    default: Any = None
    description: str | None = None


@dataclass(frozen=True, slots=True)
class ConstDecl:
    """A `const:` entry: a bare literal (`type` None) or a typed `{ type, value }`."""

    name: str
    value: Any
    path: KeyPath
    type: TypeExpr | None = None


@dataclass(frozen=True, slots=True)
class Egress:
    """One sanctioned destination of a secret (spec 01 §egress)."""

    to: str
    host: str | None = None
    host_from_self: bool = False


@dataclass(frozen=True, slots=True)
class SecretRef:
    """A `secrets:` entry — always a reference to a store, never a value."""

    name: str
    source: Literal["env", "file", "vault"]
    path: KeyPath
    key: str | None = None
    file: str | None = None
    egress: tuple[Egress, ...] = ()


@dataclass(frozen=True, slots=True)
class Permits:
    """A present `permits:` block; an omitted category is `None` (default-deny once present).

    Entries are kept verbatim (an interpolated bound is the authority rung's refusal,
    `NIKA-AUTH-007`); `raw` is the authored mapping for anything finer.
    """

    path: KeyPath
    raw: Mapping[str, Any]
    fs_read: tuple[str, ...] | None = None
    fs_write: tuple[str, ...] | None = None
    net_http: tuple[str, ...] | None = None
    exec: bool | tuple[str, ...] | None = None
    tools: tuple[str, ...] | None = None
    env: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class RunDecl:
    """The `run:` block: entropy (`none` · `ambient` · a seed) × clock, as declared."""

    path: KeyPath
    entropy: Literal["none", "ambient"] | int | None = None
    clock: Literal["system", "virtual"] | None = None


@dataclass(frozen=True, slots=True)
class OutputDecl:
    """An `outputs:` entry, untyped (bare value) or typed (`{ value, type, description }`)."""

    name: str
    value: Any
    path: KeyPath
    type: TypeExpr | None = None
    description: str | None = None
