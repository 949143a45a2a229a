"""Media and decision builtins: chart · image_generate · image_fx · tts_generate · decide
(stdlib §Media, §Audio, spec 11 §nika:decide).

This engine serves all five, every provider included: `provider:` of `image_generate` and
`tts_generate` is an enum of exactly the ones served (anything else is the builtin's own `-001`
at check and run), and one left out is inferred from `model:` (`call_provider`); `image_fx`
serves its op vocabulary (`_fx_ops`). `image_generate`'s args are closed: a misspelt knob
is refused, never silently dropped (`-001`). `chart`'s spec is closed (stdlib §chart:
« closed » type set, closed semantics): a misfit of `chart:`, `semantics:` or `compile_to:`
is its CHART-004.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from nika import codes
from nika.stdlib._declare import Declaration, Problem, Rule
from nika.stdlib._paths import path_rule, reads, writes
from nika.stdlib._shapes import BOOLEAN, OBJECT, anything, choice, integer, obj, text

IMAGE_PROVIDERS: Final = ("local", "openai", "gemini", "xai", "mock")
TTS_PROVIDERS: Final = ("local", "openai", "elevenlabs", "mock")
INFERRED: Final[Mapping[str, tuple[tuple[str, str], ...]]] = {
    "nika:image_generate": (("gpt-image", "openai"), ("dall-e", "openai"), ("gemini-", "gemini"),
                            ("grok", "xai"), ("mock", "mock")),
    "nika:tts_generate": (("eleven", "elevenlabs"), ("gpt-", "openai"), ("tts-", "openai"),
                          ("mock", "mock")),
}
"""A provider left out is inferred from `model:` by prefix (stdlib §image_generate, §Audio);
`local` never is: its model names are server-specific."""
MAX_SPEECH: Final = 4096
"""The most characters one `nika:tts_generate` speaks (fan longer scripts out with for_each)."""


def call_provider(tool: str, args: Mapping[str, Any]) -> str | None:
    """A media call's provider: as written, else inferred from `model:` by prefix (None when
    neither says)."""
    written = args.get("provider")
    if isinstance(written, str):
        return written
    model = args.get("model")
    if not isinstance(model, str):
        return None
    return next((p for prefix, p in INFERRED.get(tool, ()) if model.startswith(prefix)), None)


def _provider_known(tool: str, served: tuple[str, ...]) -> Rule:
    """A literal call whose provider is neither written nor inferable from `model:` — what
    the run refuses with the builtin's `-001`, named by the check first (a templated
    `model:` is the run's to judge)."""
    def test(a: Mapping[str, Any]) -> Problem | None:
        if "provider" in a or call_provider(tool, a) is not None:
            return None
        return Problem(f"name a `provider:` ({', '.join(served)}): it cannot be inferred from "
                       f"`model: {a.get('model', '')!r}` (local is never inferred — its model "
                       "names are server-specific)", "provider")

    return Rule("provider-is-known", ("provider", "model"), test)


def _svg(a: Mapping[str, Any]) -> Problem | None:
    if not a["out"].endswith(".svg"):
        return Problem(f"`out: {a['out']!r}` must end in .svg (SVG is the attestation surface)",
                       "out")
    return None


def _rows_hold_the_fields(a: Mapping[str, Any]) -> Problem | None:
    """Literal rows (a list, not `{path:}`): not empty, and every field `chart:` and
    `semantics:` name held by some row — what the run refuses, named by the check first."""
    rows = a["data"]
    if not isinstance(rows, list):
        return None  # `{path: …}`, or a shape the run refuses with its CHART-006
    if not rows:
        return Problem("`data:` holds no rows; chart a non-empty list, or guard the task on "
                       "the upstream result being non-empty", "data", codes.BUILTIN_CHART_001)
    chart = a.get("chart") or {}
    named = [v for k, v in chart.items() if k not in ("type", "title") and isinstance(v, str)]
    wanted = set(named) | set(a.get("semantics") or {})
    if set(map(type, rows)) != {dict}:  # at C speed; else find the row that is no map
        for i, row in enumerate(rows):
            if not isinstance(row, Mapping):
                return Problem(f"row {i} is {row!r:.60}, not a map of field values", "data",
                               codes.BUILTIN_CHART_006)
    for row in rows:
        if not wanted:
            return None
        wanted.difference_update(row)
    if not wanted:
        return None
    field = sorted(wanted)[0]
    return Problem(f"no row holds the field {field!r}; name a field the rows hold",
                   "chart", codes.BUILTIN_CHART_002)


_FIELD = text(minLength=1)
CHART = Declaration("nika:chart", obj({
    "data": anything("The rows: a list of flat objects, or {path: <json file>}."),
    "out": text(),
    "semantics": {"type": "object", "additionalProperties": choice(
        "usd", "duration_ms", "tokens", "delta", "percent", "timestamp", "count", "category")},
    "chart": obj({
        "type": choice("bar", "line", "area_band", "scatter", "heatmap"),
        "x": _FIELD, "y": _FIELD, "y_lo": _FIELD, "y_hi": _FIELD, "y2": _FIELD,
        "color": _FIELD, "title": text(),
    }, ("type",)),
    "compile_to": choice("vega_lite"),
}, ("data", "out", "chart")), rules=(
    Rule("out-is-svg", ("out",), _svg, code=codes.BUILTIN_CHART_004),
    Rule("rows-hold-the-fields", ("data", "chart", "semantics"), _rows_hold_the_fields),
    path_rule(writes("out"), reads("data", key="path")),  # rows inline, or a file to read
), codes={"chart": codes.BUILTIN_CHART_004, "semantics": codes.BUILTIN_CHART_004,
          "compile_to": codes.BUILTIN_CHART_004})  # fmt: skip

DECIDE = Declaration("nika:decide", obj({
    "bundle": {"type": ["string", "object"]},
    "evidence": anything("The evidence snapshot."),
}, ("bundle", "evidence"), closed=False), rules=(
    path_rule(reads("bundle")),  # the bundle's JSON file, or the bundle inline (no file)
))  # fmt: skip


def _save_reserved(a: Mapping[str, Any]) -> Problem | None:
    if a.get("save") is False:
        return Problem("`save: false` is reserved in v0.1; images are always saved to "
                       "`output_dir:`", "save")
    return None


def _references_reserved(a: Mapping[str, Any]) -> Problem | None:
    if "reference_images" in a:
        return Problem("`reference_images:` is reserved in v0.1", "reference_images")
    return None


def _edit_sources(a: Mapping[str, Any]) -> Problem | None:
    sources = [k for k in ("image", "images") if k in a]
    if a.get("mode", "generate") == "edit":
        if len(sources) != 1:
            return Problem("`mode: edit` needs exactly one source: `image:` (one path) XOR "
                           "`images:` (paths)", "mode")
    elif sources or "mask" in a:
        return Problem("`image:`/`images:`/`mask:` apply only with `mode: edit`",
                       sources[0] if sources else "mask")
    return None


IMAGE_GENERATE = Declaration("nika:image_generate", obj({
    "prompt": text(minLength=1),
    "output_dir": text(),
    "provider": choice(*IMAGE_PROVIDERS),
    "model": text(minLength=1),
    "mode": choice("generate", "edit"),
    "aspect_ratio": choice("1:1", "16:9", "9:16", "4:3", "3:4", "3:2", "2:3", "21:9"),
    "size": text(pattern="^(auto|[1-9][0-9]{1,4}x[1-9][0-9]{1,4})$"),
    "quality": choice("auto", "low", "medium", "high", "ultra"),
    "format": choice("png", "jpeg", "webp"),
    "background": choice("auto", "transparent", "opaque"),
    "n": integer(1, 10),
    "compression": integer(0, 100),
    "seed": integer(),
    "save": BOOLEAN,
    "image": text(),
    "images": {"type": "array", "minItems": 1, "items": {"type": "string"}},
    "mask": text(),
    "reference_images": anything("Reserved in v0.1."),
    "provider_options": OBJECT,
    "filename_prefix": text(),
    "manifest": BOOLEAN,
    "metadata": OBJECT,
    "timeout_ms": integer(1_000, 600_000),
    "debug": BOOLEAN,
}, ("prompt", "output_dir")), rules=(
    Rule("save-is-reserved", ("save",), _save_reserved),
    Rule("reference-images-are-reserved", (), _references_reserved),
    Rule("edit-needs-one-source", ("mode",), _edit_sources),
    _provider_known("nika:image_generate", IMAGE_PROVIDERS),
    # Check judges the `output_dir:` ARGUMENT (builtins §image_generate); the run gates each
    # final file under it. Edit sources (`image:` XOR `images:`, optional `mask:`) are read.
    path_rule(writes("output_dir", directory=True), reads("image"), reads("mask"),
              reads("images", each=True)),
), code=codes.BUILTIN_IMAGE_GENERATE_001)  # fmt: skip

def _ops(a: Mapping[str, Any]) -> Problem | None:
    from nika.stdlib import _fx_ops

    found = _fx_ops.problem(a["ops"], a["out"])
    return Problem(*found) if found else None


def _ops_as_written(a: Mapping[str, Any]) -> Problem | None:
    from nika.stdlib import _fx_ops  # judges each literal op; `${{ }}` values are the run's

    found = _fx_ops.problem(a.get("ops"), a.get("out"))
    return Problem(*found) if found else None


IMAGE_FX = Declaration("nika:image_fx", obj({
    "input": text(description="the source PNG (8-bit gray, RGB or RGBA; not interlaced)"),
    "out": text(description="the artifact: .png, or .txt/.ans for an ascii text/ansi emit"),
    "ops": {"type": "array", "minItems": 1, "maxItems": 32,
            "items": {"type": "object", "description": "one op: `{name: {params}}`"},
            "description": "an ordered list of single-key operations: resize, crop, levels, "
                           "grayscale, palette_map, dither, duotone, pixelate, halftone, grain, "
                           "vignette, chromatic_aberration, scanlines, glitch, ascii (last)"},
    "seed": integer(description="the seed of grain and glitch (default 0)"),
}, ("input", "out", "ops")), rules=(
    Rule("ops-are-v1", ("ops", "out"), _ops, templated=_ops_as_written),
    path_rule(reads("input"), writes("out")),
), code=codes.BUILTIN_IMAGE_FX_001)  # fmt: skip

TTS_GENERATE = Declaration("nika:tts_generate", obj({
    "provider": choice(*TTS_PROVIDERS),
    "model": text(),
    "text": text(minLength=1, maxLength=MAX_SPEECH),
    "voice": text(pattern="^[A-Za-z0-9_-]{1,64}$"),
    "format": choice("mp3", "wav", "auto"),
    "speed": {"type": "number", "minimum": 0.25, "maximum": 4.0},
    "output_dir": text(),
    "filename_prefix": text(),
    "metadata": OBJECT,
    "manifest": BOOLEAN,
    "timeout_ms": integer(1, 600_000),
}, ("text", "output_dir")), rules=(
    _provider_known("nika:tts_generate", TTS_PROVIDERS),
    path_rule(writes("output_dir", directory=True)),
), code=codes.BUILTIN_TTS_GENERATE_001)  # fmt: skip

DECLARATIONS: Final = (CHART, DECIDE, IMAGE_GENERATE, IMAGE_FX, TTS_GENERATE)
