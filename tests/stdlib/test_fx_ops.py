"""`nika:image_fx`'s op vocabulary: the closed v1 set, its normative defaults and ranges,
judged at check (literal args, `${{ }}` left to the run) and at run alike."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from nika.check import check
from nika.stdlib import DECLARATIONS
from nika.stdlib._fx_ops import OPS, normalized, problem

FX = DECLARATIONS["nika:image_fx"]


def _codes(ops: Any, out: Any = "o.png", static: bool = False) -> list[str]:
    args = {"input": "i.png", "out": out, "ops": ops}
    return [r.code for r in FX.refusals(args, static=static)]


def test_the_closed_set_is_the_stdlib_pages():
    assert list(OPS) == ["resize", "crop", "levels", "grayscale", "palette_map", "dither",
                         "duotone", "pixelate", "halftone", "grain", "vignette",
                         "chromatic_aberration", "scanlines", "glitch", "ascii"]


def test_normative_defaults_fill_in():
    ops = [{"resize": {"width": 320}}, {"crop": {"width": 2, "height": 3}}, {"levels": None},
           {"dither": {}}, {"palette_map": {"palette": ["#ff0000", [0, 0, 255]]}},
           {"halftone": {}}, {"grain": {}}, {"vignette": {}}, {"chromatic_aberration": {}},
           {"scanlines": {}}, {"glitch": {"blocks": 2}}, {"ascii": {}}]
    assert normalized(ops) == [
        {"resize": {"width": 320, "filter": "auto"}},
        {"crop": {"x": 0, "y": 0, "width": 2, "height": 3}},
        {"levels": {"brightness": 0, "contrast": 0}},
        {"dither": {"mode": "floyd_steinberg", "palette": "bw"}},
        {"palette_map": {"palette": [[255, 0, 0], [0, 0, 255]]}},
        {"halftone": {"cell": 8, "angle": 45}},
        {"grain": {"intensity": 48}},
        {"vignette": {"strength": 160}},
        {"chromatic_aberration": {"shift": 4}},
        {"scanlines": {"strength": 96, "period": 4}},
        {"glitch": {"line_shift": 0, "channel_shift": 0, "blocks": 2}},
        {"ascii": {"cols": 96, "emit": "png"}},
    ]


@pytest.mark.parametrize(
    ("ops", "out", "words"),
    [
        ([{"blur": {}}], "o.png", "unknown op `blur`"),
        (["grayscale"], "o.png", "single-key op map"),
        ([{"grayscale": {}, "levels": {}}], "o.png", "single-key op map"),
        ([{"resize": {"widht": 3}}], "o.png", "unknown param `widht`"),
        ([{"resize": {}}], "o.png", "needs `width:`"),
        ([{"resize": {"width": 16385}}], "o.png", "1..=16384"),
        ([{"resize": {"width": 2.0}}], "o.png", "must be an integer"),
        ([{"levels": {"contrast": 129}}], "o.png", "-128..=128"),
        ([{"pixelate": {}}], "o.png", "missing its required `block:`"),
        ([{"pixelate": {"block": 1}}], "o.png", "2..=256"),
        ([{"halftone": {"angle": 30}}], "o.png", "0, 15, 45, 75"),
        ([{"grain": {"intensity": True}}], "o.png", "must be an integer"),
        ([{"glitch": {}}], "o.png", "at least one"),
        ([{"dither": {"palette": "sepia"}}], "o.png", "not a preset"),
        ([{"dither": {"palette": ["#000000"]}}], "o.png", "2..=256 colours"),
        ([{"palette_map": {"palette": ["#000000"] * 257}}], "o.png", "2..=256 colours"),
        ([{"duotone": {"dark": "#000", "light": "#ffffff"}}], "o.png", "not a colour"),
        ([{"ascii": {}}, {"grayscale": {}}], "o.png", "must be the last op"),
        ([{"ascii": {"emit": "text"}}], "o.png", "must end in .txt"),
        ([{"grayscale": {}}], "o.ans", "must end in .png"),
    ],
)
def test_each_broken_op_is_refused_with_the_builtins_code(ops, out, words):
    found = problem(ops, out)
    assert found is not None and words in found[0], found
    assert _codes(ops, out) == ["NIKA-BUILTIN-IMAGE_FX-001"]
    assert _codes(ops, out, static=True) == ["NIKA-BUILTIN-IMAGE_FX-001"]


def test_33_ops_and_none_are_refused():
    assert _codes([{"grayscale": {}}] * 33) == ["NIKA-BUILTIN-IMAGE_FX-001"]
    assert _codes([]) == ["NIKA-BUILTIN-IMAGE_FX-001"]
    assert _codes([{"grayscale": {}}] * 32) == []


def test_templated_values_are_the_runs_to_judge():
    assert _codes([{"pixelate": {"block": "${{ inputs.b }}"}}], static=True) == []
    assert _codes("${{ inputs.ops }}", static=True) == []
    assert _codes(["${{ inputs.op }}", {"grayscale": {}}], static=True) == []
    assert _codes([{"ascii": {"emit": "text"}}], "${{ inputs.out }}", static=True) == []
    # a literal error beside a template is still the check's
    assert _codes([{"pixelate": {"block": "${{ inputs.b }}"}}, {"blur": {}}],
                  static=True) == ["NIKA-BUILTIN-IMAGE_FX-001"]


@given(st.sampled_from(sorted(OPS)), st.dictionaries(st.text(max_size=8),
                                                      st.integers(-300, 20_000), max_size=3))
def test_any_int_params_are_judged_never_crash(name, params):
    found = problem([{name: params}], "o.png")
    if found is None:
        normalized([{name: params}])  # what passes normalizes


def test_check_refuses_first_with_the_same_code():
    verdict = check(
        'nika: t\npermits: { tools: ["nika:image_fx"], fs: { read: ["**"], write: ["**"] } }\n'
        "tasks:\n  a:\n    invoke:\n      tool: nika:image_fx\n      args:\n"
        "        input: a.png\n        out: b.png\n        ops:\n"
        "          - grayscale: {}\n          - dither: { mode: bayer3 }\n")
    assert [e.code for e in verdict.errors] == ["NIKA-BUILTIN-IMAGE_FX-001"]
    assert "bayer3" in verdict.errors[0].detail


def test_checking_an_image_fx_call_loads_no_numpy():
    probe = ("import sys\nfrom nika.check import check\n"
             "v = check('nika: t\\npermits: { tools: [\"nika:image_fx\"], fs: { read: [\"**\"], "
             "write: [\"**\"] } }\\ntasks:\\n  a:\\n    invoke: { tool: nika:image_fx, args: "
             "{ input: a.png, out: b.png, ops: [ { grayscale: {} } ] } }\\n')\n"
             "assert v.valid, v\nprint('numpy' in sys.modules, 'nika.media.image_fx' in "
             "sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=60)
    assert out.stdout.split() == ["False", "False"]
