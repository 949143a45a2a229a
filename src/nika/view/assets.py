"""The files a run produced, as `nika trace show` and its HTML page list them.

Each task's terminal frame records its assets (`journal/assets.py`): path, sha256, bytes, and
a PNG's dimensions or a WAV's duration. The text view prints one line per asset; the page
lists them in an Assets section and, for a PNG only, shows a bounded thumbnail inline as a
`data:` image — the file read from the run's directory, kept only when its bytes still hash to
what the journal recorded, decoded by `nika.media.png` (its header judged first, and a view
budget below the decoder's), box-downscaled in integer arithmetic, and re-encoded by our own
PNG writer to at most `THUMB_MAX_BYTES`. The journal is untrusted: a task lists at most the
`MAX_ASSETS` a run records, a page makes at most `MAX_THUMBNAILS`. No file URL, no audio
element: the page stays one self-contained file under its CSP (which allows `img-src data:`,
nothing more).
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from nika._term import printable
from nika.journal.assets import MAX_ASSET_BYTES, MAX_ASSETS, within
from nika.media.png import PngError, decode, encode, read_header

THUMB_MAX_BYTES: Final = 64 * 1024
"""The most bytes one thumbnail's PNG may weigh (before base64)."""
THUMB_SIDE: Final = 160
"""A thumbnail's longest side, at most (smaller when the encoding would pass the byte cap)."""
_VIEW_PIXELS: Final = 1 << 24
"""A PNG past this many pixels gets no thumbnail: the view decodes less than a builtin may."""
MAX_THUMBNAILS: Final = 32
"""The most PNG rows of one page that may get a thumbnail: a crafted journal naming one big
PNG thousands of times never makes the page decode for hours or weigh gigabytes."""


@dataclass(frozen=True, slots=True)
class AssetRow:
    """One recorded asset as read from an untrusted journal (absent or ill-typed: None)."""

    path: str
    sha256: str | None
    size: int | None
    width: int | None
    height: int | None
    duration_s: float | None

    @property
    def is_png(self) -> bool:
        return self.width is not None and self.height is not None


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def rows(recorded: Iterable[Mapping[str, Any]] | None) -> tuple[AssetRow, ...]:
    """The typed rows of a terminal frame's `assets` (entries without a string path dropped),
    at most the `MAX_ASSETS` a run records: more came from a crafted journal."""
    out: list[AssetRow] = []
    for entry in recorded or ():
        if len(out) == MAX_ASSETS:
            break
        path, digest, duration = entry.get("path"), entry.get("sha256"), entry.get("duration_s")
        if not isinstance(path, str):
            continue
        out.append(AssetRow(
            path=path, sha256=digest if isinstance(digest, str) else None,
            size=_int(entry.get("bytes")), width=_int(entry.get("width")),
            height=_int(entry.get("height")),
            duration_s=float(duration) if isinstance(duration, int | float)
            and not isinstance(duration, bool) else None))
    return tuple(out)


def facts(row: AssetRow) -> list[str]:
    """What the journal says of the asset, in words (raw journal text: escape it to show)."""
    said = [f"{row.size:,} B" if row.size is not None else "size unrecorded"]
    if row.is_png:
        said.append(f"{row.width}×{row.height}")
    if row.duration_s is not None:
        said.append(f"{row.duration_s:.3f} s")
    said.append(f"sha256 {row.sha256[:12]}…" if row.sha256 else "sha256 unrecorded")
    return said


def text_line(row: AssetRow) -> str:
    """One line of `nika trace show` (escaped for the terminal, not for rich markup)."""
    return printable(f"asset {row.path} · {' · '.join(facts(row))}")


def shrink(pixels: npt.NDArray[np.uint8], side: int) -> npt.NDArray[np.uint8]:
    """`pixels` box-averaged so the longest side is at most `side` (rounded, integer math)."""
    height, width, _ = pixels.shape
    longest = max(height, width)
    if longest <= side:
        return pixels
    out_h = max(1, (height * side + longest // 2) // longest)
    out_w = max(1, (width * side + longest // 2) // longest)
    row_edges = (np.arange(out_h) * height) // out_h
    col_edges = (np.arange(out_w) * width) // out_w
    sums = np.add.reduceat(pixels.astype(np.uint32), row_edges, axis=0)
    sums = np.add.reduceat(sums, col_edges, axis=1)
    counts = (np.diff(np.append(row_edges, height))[:, None]
              * np.diff(np.append(col_edges, width))[None, :])[..., None]
    shrunk: npt.NDArray[np.uint8] = ((sums + counts // 2) // counts).astype(np.uint8)
    return shrunk


def thumbnail(root: Path, row: AssetRow) -> str | None:
    """A `data:image/png;base64,…` thumbnail of a PNG asset, or None (not a PNG, gone,
    changed since the run, too large, or unreadable)."""
    if not row.is_png or row.sha256 is None:
        return None
    found = within(root, row.path)
    try:
        if found is None:
            return None
        with found.open("rb") as handle:  # bounded read: the file may grow after a stat
            data = handle.read(MAX_ASSET_BYTES + 1)
        if len(data) > MAX_ASSET_BYTES or hashlib.sha256(data).hexdigest() != row.sha256:
            return None
        header = read_header(data)
        if header.width * header.height > _VIEW_PIXELS:
            return None
        pixels = decode(data)
    except (OSError, PngError):
        return None
    side = THUMB_SIDE
    while side >= 1:
        small = encode(shrink(pixels, side))
        if len(small) <= THUMB_MAX_BYTES:
            return "data:image/png;base64," + base64.b64encode(small).decode("ascii")
        side //= 2
    return None


def run_root(journal: Path) -> Path:
    """The directory a run ran in, from its journal's place (`<root>/.nika/traces/x.ndjson`);
    the working directory for a journal kept anywhere else."""
    traces = journal.resolve().parent
    if traces.name == "traces" and traces.parent.name == ".nika":
        return traces.parent.parent
    return Path.cwd()


def section(assets: Iterable[tuple[str, AssetRow]], root: Path | None) -> str:
    """The page's Assets section: one row per `(task, asset)`, a thumbnail for a PNG when
    `root` (the run's directory) still holds it — for the first `MAX_THUMBNAILS` PNG rows,
    each file decoded once however often rows name it; empty when the run recorded none."""
    items = []
    made: dict[tuple[str, str | None], str | None] = {}
    offered = 0
    for task, row in assets:
        thumb = None
        if root is not None and row.is_png and offered < MAX_THUMBNAILS:
            offered += 1
            key = (row.path, row.sha256)
            if key not in made:
                made[key] = thumbnail(root, row)
            thumb = made[key]
        image = (f"<img class=thumb alt='' src='{thumb}'>" if thumb is not None
                 else "<span class=thumb></span>")
        words = " · ".join(html.escape(printable(f)) for f in facts(row))
        items.append(f"<li>{image}<span><b>{html.escape(printable(row.path))}</b>"
                     f"<br><small>{html.escape(printable(task))} · {words}</small></span></li>")
    if not items:
        return ""
    return f"<section id=assets><h2>Assets</h2><ul class=assets>{''.join(items)}</ul></section>"
