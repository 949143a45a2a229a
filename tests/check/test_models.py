"""Rung `nika.check.models`: `<provider>/<name>` strings name a known provider."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from nika.check import models
from nika.check.context import CheckContext
from nika.errors import NikaError
from nika.syntax.loader import load_document
from nika.syntax.model import build_workflow


def codes(src: str) -> list[str]:
    doc = load_document(textwrap.dedent(src))
    wf, errors = build_workflow(doc)
    assert wf is not None and not errors
    return [
        f.code
        for f in models.run(CheckContext(doc, wf, None, Path(".")))
        if isinstance(f, NikaError)
    ]


@pytest.mark.parametrize(
    "src",
    [
        "nika: x\nmodel: acme/gpt\ntasks: { a: { infer: { prompt: p } } }",
        "nika: x\ntasks: { a: { infer: { prompt: p, model: claude-sonnet } } }",
        "nika: x\ntasks: { a: { agent: { prompt: p, model: nope/m } } }",
    ],
)
def test_unknown_provider_refused(src: str) -> None:
    assert codes(src) == ["NIKA-PROVIDER-001"]


@pytest.mark.parametrize(
    "src",
    [
        "nika: x\nmodel: ollama/qwen3.5:4b\ntasks: { a: { infer: { prompt: p } } }",
        "nika: x\ntasks: { a: { infer: { prompt: p, model: 'openrouter/meta-llama/llama-3.1' } } }",
        "nika: x\ntasks: { a: { infer: { prompt: p, model: '${{ inputs.m }}' } } }",
        "nika: x\ntasks: { a: { infer: { prompt: p } } }",
    ],
)
def test_clean(src: str) -> None:
    assert codes(src) == []
