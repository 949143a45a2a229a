"""`nika:image_fx`'s op vocabulary: the closed v1 set of 15 ops, each param's normative
default and range (stdlib §image_fx) — the argument contract the check and the run judge
`ops:` by, and the normal form (`normalized`) the renderer (`nika.media.image_fx`) and the
artifact's recipe read: every default filled in, every colour an `[r, g, b]` list.

For a byte-deterministic builtin the defaults ARE the wire contract: a second engine choosing
other defaults renders other bytes for the same YAML.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

PRESETS: Final = ("bw", "gray4", "gameboy", "cga", "okabe_ito")
"""The named palettes (their colours are the renderer's: `nika.media._oklab.PRESETS`)."""
MAX_OPS: Final = 32
_HEX: Final = re.compile(r"#[0-9a-fA-F]{6}")


@dataclass(frozen=True, slots=True)
class Param:
    """One op parameter: `kind` (int · enum · palette · colour), its range or choices, and
    its default (None: the op needs it, or — `optional` — may leave it out)."""

    kind: str
    low: int = 0
    high: int = 0
    choices: tuple[Any, ...] = ()
    default: Any = None
    optional: bool = False


def _int(low: int, high: int, default: int | None = None, *, optional: bool = False) -> Param:
    return Param("int", low, high, default=default, optional=optional)


_PALETTE: Final = Param("palette", default="bw")
_COLOUR: Final = Param("colour")

OPS: Final[Mapping[str, Mapping[str, Param]]] = {
    "resize": {"width": _int(1, 16_384, optional=True), "height": _int(1, 16_384, optional=True),
               "filter": Param("enum", choices=("auto", "nearest", "bilinear"), default="auto")},
    "crop": {"x": _int(0, 16_383, 0), "y": _int(0, 16_383, 0), "width": _int(1, 16_384),
             "height": _int(1, 16_384)},
    "levels": {"brightness": _int(-255, 255, 0), "contrast": _int(-128, 128, 0)},
    "grayscale": {},
    "palette_map": {"palette": _PALETTE},
    "dither": {"mode": Param("enum", choices=("bayer2", "bayer4", "bayer8", "blue_noise", "ign",
                                              "floyd_steinberg", "atkinson", "jjn"),
                             default="floyd_steinberg"),
               "palette": _PALETTE},
    "duotone": {"dark": _COLOUR, "light": _COLOUR},
    "pixelate": {"block": _int(2, 256)},
    "halftone": {"cell": _int(3, 64, 8), "angle": Param("enum", choices=(0, 15, 45, 75),
                                                        default=45)},
    "grain": {"intensity": _int(0, 128, 48)},
    "vignette": {"strength": _int(0, 255, 160)},
    "chromatic_aberration": {"shift": _int(1, 16, 4)},
    "scanlines": {"strength": _int(0, 255, 96), "period": _int(2, 64, 4)},
    "glitch": {"line_shift": _int(0, 64, 0), "channel_shift": _int(0, 16, 0),
               "blocks": _int(0, 64, 0)},
    "ascii": {"cols": _int(2, 1024, 96), "emit": Param("enum", choices=("png", "text", "ansi"),
                                                       default="png")},
}  # fmt: skip
"""Every op and its params, in the stdlib page's order."""

EXTENSIONS: Final = {"png": ".png", "text": ".txt", "ansi": ".ans"}
"""The artifact extension of each pipeline ending (ascii's emit, else png)."""


def _templated(value: Any) -> bool:
    return isinstance(value, str) and "${{" in value


def _colour(value: Any, where: str) -> str | None:
    if isinstance(value, str) and _HEX.fullmatch(value):
        return None
    if (isinstance(value, list) and len(value) == 3
            and all(type(c) is int and 0 <= c <= 255 for c in value)):
        return None
    return f"`{where}: {value!r}` is not a colour; write \"#rrggbb\" or [r, g, b] (0..=255)"


def _palette(value: Any, where: str) -> str | None:
    if isinstance(value, str):
        if value in PRESETS:
            return None
        return f"`{where}: {value!r}` is not a preset ({', '.join(PRESETS)}) nor a colour list"
    if not isinstance(value, list) or not 2 <= len(value) <= 256:
        return (f"`{where}:` must be a preset ({', '.join(PRESETS)}) or a list of 2..=256 "
                "colours")
    for i, colour in enumerate(value):
        if not _templated(colour) and (problem := _colour(colour, f"{where}[{i}]")):
            return problem
    return None


def _param(param: Param, value: Any, where: str) -> str | None:
    if _templated(value):
        return None
    if param.kind == "int":
        if type(value) is not int or not param.low <= value <= param.high:
            return f"`{where}: {value!r}` must be an integer in {param.low}..={param.high}"
    elif param.kind == "enum":
        if value not in param.choices or type(value) is bool:
            return f"`{where}: {value!r}` is not one of {', '.join(map(str, param.choices))}"
    elif param.kind == "palette":
        return _palette(value, where)
    else:
        return _colour(value, where)
    return None


def split(entry: Any) -> tuple[str, Any] | None:
    """An op entry's name and params (None when it is not a single-key map)."""
    if isinstance(entry, Mapping) and len(entry) == 1:
        ((name, params),) = entry.items()
        return str(name), params
    return None


def _op(entry: Any, at: str, last: bool) -> str | None:
    if _templated(entry):
        return None  # a whole op from a `${{ }}`: the run's to judge
    pair = split(entry)
    if pair is None:
        return (f"`{at}: {entry!r}` is not a single-key op map; write e.g. `- grayscale: {{}}` "
                f"or `- pixelate: {{ block: 4 }}` (ops: {', '.join(OPS)})")
    name, params = pair
    table = OPS.get(name)
    if table is None:
        return f"`{at}`: unknown op `{name}`; the v1 ops are {', '.join(OPS)}"
    if params is None:
        params = {}
    if _templated(params):
        return None
    if not isinstance(params, Mapping):
        return f"`{at}.{name}:` must be a map of params ({', '.join(table) or 'none'})"
    for key, value in params.items():
        if key not in table:
            return (f"`{at}.{name}`: unknown param `{key}`; {name} takes "
                    f"{', '.join(table) or 'no params'} (no silent style lies)")
        if (problem := _param(table[key], value, f"{at}.{name}.{key}")) is not None:
            return problem
    missing = [k for k, p in table.items() if p.default is None and not p.optional
               and k not in params]
    if missing:
        return f"`{at}.{name}:` is missing its required `{missing[0]}:`"
    if name == "resize" and not ({"width", "height"} & set(params)):
        return f"`{at}.resize:` needs `width:`, `height:` or both"
    if name == "glitch" and not any(_templated(v) or v for v in params.values()):
        return f"`{at}.glitch:` needs at least one of line_shift, channel_shift, blocks > 0"
    if name == "ascii" and not last:
        return f"`{at}`: `ascii` must be the last op (it changes the artifact type)"
    return None


def problem(ops: Any, out: Any) -> tuple[str, str] | None:
    """The first thing wrong with `ops:` (or with `out:`'s extension for them) and the arg it
    concerns; None when they hold. A `${{ }}` value is the run's to judge."""
    if not isinstance(ops, list) or _templated(ops):
        return None
    for i, entry in enumerate(ops):
        if (found := _op(entry, f"ops[{i}]", i == len(ops) - 1)) is not None:
            return found, "ops"
    if isinstance(out, str) and out and not _templated(out) and ops:  # "" is the path rule's
        last = split(ops[-1])
        emit = "png"
        if last is not None and last[0] == "ascii" and isinstance(last[1], Mapping):
            emit = last[1].get("emit", "png")
        want = EXTENSIONS.get(emit) if isinstance(emit, str) else None
        if want is not None and not out.lower().endswith(want):
            return (f"`out: {out!r}` must end in {want} for this pipeline (it renders "
                    f"{'ascii ' + emit if emit != 'png' else 'a PNG'})"), "out"
    return None


def _colour_value(value: Any) -> list[int]:
    if isinstance(value, str):
        return [int(value[i:i + 2], 16) for i in (1, 3, 5)]
    return [int(c) for c in value]


def normalized(ops: Sequence[Any]) -> list[dict[str, dict[str, Any]]]:
    """`ops` (already judged by `problem`) with every default filled and every colour as an
    `[r, g, b]` list: what the renderer runs and the recipe records."""
    out: list[dict[str, dict[str, Any]]] = []
    for entry in ops:
        pair = split(entry)
        assert pair is not None  # judged
        name, params = pair
        given = dict(params or {})
        full: dict[str, Any] = {}
        for key, param in OPS[name].items():
            if key not in given and param.default is None:
                continue  # an optional param left out (resize's other side)
            value = given.get(key, param.default)
            if param.kind == "colour":
                value = _colour_value(value)
            elif param.kind == "palette" and not isinstance(value, str):
                value = [_colour_value(c) for c in value]
            full[key] = value
        out.append({name: full})
    return out
