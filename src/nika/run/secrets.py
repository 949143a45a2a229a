"""Secrets: resolved from their `env` / `file` sources (01 §secrets); `nika.masking.Masker`
hides their values everywhere the run shows anything.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Final

from nika import codes
from nika.errors import NikaError
from nika.syntax.declarations import SecretRef

UNRESOLVED: Final = codes.SECRET_001


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
