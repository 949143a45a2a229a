"""Where `nika:image_generate`'s assets land, and how (stdlib §image_generate · Filenames).

Names follow the normative grammar `{stem}-{provider}-{modelslug}-{index}-{sha8}.{ext}`, every
component sanitized to `[a-z0-9._-]` (no separator, no leading dot: traversal-free by
construction). A name already holding OTHER bytes probes `-2` … `-99`; one holding the SAME
bytes is an idempotent re-run (nothing written). Every final path is judged against
`permits.fs.write` before anything touches it, and each file lands atomically (temp + rename:
a failure never leaves a partial file). The manifest (`manifest_version: 1`) lands beside them
as `{stem}-{provider}-{modelslug}-{batchsha8}.manifest.json`.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Final

from nika import codes
from nika.guarded_read import special_kind
from nika.media.assets import Written, file_sha256, sha256_hex, write_asset
from nika.tools.builtins._base import Context, fail
from nika.tools.builtins._files import offload
from nika.tools.builtins._paths import judged

IG_006 = codes.BUILTIN_IMAGE_GENERATE_006
_STEM: Final = re.compile(r"[^a-z0-9._-]+")
_MODEL: Final = re.compile(r"[^a-z0-9.]+")
_PROBES: Final = 99


def stem_slug(text: str, fallback: str) -> str:
    """A filename component: lowercase `[a-z0-9._-]`, no leading or trailing dot or dash, at
    most 64 characters, `fallback` when nothing is left."""
    slug = _STEM.sub("-", text.lower()).strip("-.")[:64].strip("-.")
    return slug or fallback


def model_slug(model: str) -> str:
    """The model's filename component: `gpt-image-2` → `gptimage2`."""
    return _MODEL.sub("", model.lower()).strip(".")[:64].strip(".") or "model"


@dataclass(frozen=True, slots=True)
class Landed:
    """One file as written (or found already there): its path as the workflow spells it."""

    path: str
    filename: str
    written: Written


def _write(target: Path, data: bytes, raw: str) -> Written:
    kind = special_kind(target)
    if kind is not None or target.is_dir():
        raise fail(IG_006, f"{raw!r} is {kind or 'a directory'}, not a regular file; clear "
                   "the name or pick another `output_dir:`", path=raw)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        return write_asset(target, data)
    except OSError as err:
        raise fail(IG_006, f"cannot write {raw!r}: {err.strerror}", path=raw) from None


def _claim(target: Path, data: bytes, digest: str, raw: str,
           stop: threading.Event) -> Written | None:
    """Write `data` at `target` when the name is free or already holds these bytes (then
    nothing is written); None when it holds other bytes."""
    taken = target.exists() or target.is_symlink()
    if taken and file_sha256(target, len(data)) != digest:
        return None
    return _write(target, data, raw)


async def land(ctx: Context, output_dir: str, base: str, ext: str, data: bytes) -> Landed:
    """Write `data` as `{output_dir}/{base}.{ext}`, probing `-2..-99` past a name that holds
    other bytes; each candidate judged before it is looked at."""
    digest = sha256_hex(data)
    for probe in range(1, _PROBES + 1):
        name = f"{base}.{ext}" if probe == 1 else f"{base}-{probe}.{ext}"
        raw = f"{output_dir}/{name}"
        candidate = judged(ctx, raw, "fs.write", "output_dir")
        written = await offload(partial(_claim, candidate.real, data, digest, raw))
        if written is not None:
            return Landed(raw, name, written)
    raise fail(IG_006, f"{output_dir}/{base}.{ext} and its -2..-{_PROBES} probes all hold other "
               "files; clear the directory or set another `filename_prefix:`", path=output_dir)


async def land_manifest(ctx: Context, output_dir: str, name: str,
                        body: Mapping[str, Any]) -> str:
    """Write the batch's manifest (sorted keys, two-space indent): the same batch re-run
    replaces its own record rather than probing past it."""
    raw = f"{output_dir}/{name}"
    target = judged(ctx, raw, "fs.write", "output_dir")
    data = (json.dumps(body, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode()
    await offload(lambda stop: _write(target.real, data, raw))
    return raw
