"""Secrets: resolved from their `env` / `file` sources (01 §secrets) and masked everywhere.

The `Masker` is the one place a secret's value is hidden: the bus masks every event, the
report masks itself, error details and stdout lines pass through it. It replaces every
occurrence of a resolved value inside any string, at any depth, with `••••••`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from nika.errors import NikaError
from nika.syntax.model import SecretRef

MASK: Final = "••••••"
UNRESOLVED: Final = "NIKA-SECRET-001"


class Masker:
    """Hides known secret values. Longest values first, so one secret inside another is
    still fully hidden. With no secrets it is the identity (the hot path of a clean run)."""

    def __init__(self, values: Iterable[str] = ()) -> None:
        self._values = tuple(sorted({v for v in values if v}, key=lambda v: (-len(v), v)))

    @property
    def active(self) -> bool:
        return bool(self._values)

    def text(self, text: str) -> str:
        """`text` with every secret value replaced."""
        for value in self._values:
            if value in text:
                text = text.replace(value, MASK)
        return text

    def __call__(self, value: Any) -> Any:
        """`value` (any JSON-shaped data) with every secret hidden, at any depth."""
        if not self._values:
            return value
        return self._mask(value)

    def _mask(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {self._mask(k) if isinstance(k, str) else k: self._mask(v)
                    for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._mask(v) for v in value]
        return value

    def error(self, error: NikaError) -> NikaError:
        """A copy of `error` whose detail and details carry no secret."""
        if not self._values:
            return error
        return NikaError(
            error.code,
            self.text(error.detail),
            category=error.category,
            transient=error.transient,
            details=self._mask(dict(error.details)),
            location=error.location,
        )


def resolve_secrets(
    secrets: Mapping[str, SecretRef], *, environ: Mapping[str, str], base_dir: Path
) -> dict[str, str]:
    """Read every declared secret from its store; a store that cannot answer is refused
    before the run starts (`NIKA-SECRET-001`), naming the store, never a value."""
    out: dict[str, str] = {}
    for name, ref in secrets.items():
        out[name] = _read(name, ref, environ, base_dir)
    return out


def _read(name: str, ref: SecretRef, environ: Mapping[str, str], base_dir: Path) -> str:
    if ref.source == "env":
        key = ref.key or ""
        value = environ.get(key)
        if value is None:
            raise NikaError(
                UNRESOLVED,
                f"secret {name!r} reads the environment variable {key!r}, which is not set; "
                f"export {key} before `nika run`",
                details={"secret": name, "source": "env", "key": key},
            )
        return value
    if ref.source == "file":
        raw = ref.file or ref.key or ""
        path = Path(os.path.expanduser(raw))
        if not path.is_absolute():
            path = base_dir / path
        try:
            return path.read_text(encoding="utf-8").rstrip("\r\n")
        except OSError as exc:
            raise NikaError(
                UNRESOLVED,
                f"secret {name!r} reads the file {str(path)!r}, which cannot be read "
                f"({exc.strerror or exc}); create it or fix `path:`",
                details={"secret": name, "source": "file", "path": str(path)},
            ) from None
    raise NikaError(
        UNRESOLVED,
        f"secret {name!r} uses source {ref.source!r}, which this engine cannot resolve at run "
        "time; use `source: env` or `source: file` (01 §secrets: vault is withdrawn)",
        details={"secret": name, "source": ref.source},
    )
