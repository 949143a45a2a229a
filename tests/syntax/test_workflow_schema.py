"""The shipped workflow JSON Schema: generated from the builder's key tables, equal to the
file in the package, and true to the checker — every workflow `nika check` accepts fits it,
and the structural mistakes the builder refuses do not."""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files

import jsonschema
import pytest
from tests._corpus import corpus

from nika.check import check
from nika.syntax.loader import load_document
from nika.syntax.workflow_schema import schema_text, workflow_schema


@cache
def validator() -> jsonschema.Draft202012Validator:
    schema = json.loads(files("nika").joinpath("data/workflow.schema.json").read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_shipped_file_is_the_generated_schema() -> None:
    shipped = files("nika").joinpath("data/workflow.schema.json").read_text("utf-8")
    assert shipped == schema_text(), (
        "regenerate: python -m nika.syntax.workflow_schema > src/nika/data/workflow.schema.json")
    assert json.loads(shipped) == workflow_schema()


def test_every_valid_corpus_workflow_fits_the_schema() -> None:
    valid = [p for p in corpus() if check(p.read_bytes(), str(p)).valid]
    assert len(valid) > 40
    for path in valid:
        errors = list(validator().iter_errors(load_document(path.read_bytes()).root))
        assert not errors, (path, errors[0].message)


@pytest.mark.parametrize("text", [
    "nika: x\ntasks:\n  a:\n    infer: { prompt: hi }\n    exec: { command: [ls] }\n",
    "nika: x\ntasks:\n  a:\n    infer: { prompt: hi, bogus: 1 }\n",
    "nika: x\ntasks:\n  A:\n    infer: { prompt: hi }\n",
    "nika: x\nworkflow: y\ntasks:\n  a:\n    infer: { prompt: hi }\n",
    "nika: x\ntasks:\n  a:\n    after: { b: maybe }\n    infer: { prompt: hi }\n",
    "nika: x\ntasks:\n  a:\n    exec: { command: [ls], capture: everything }\n",
])
def test_what_the_builder_refuses_the_schema_refuses(text: str) -> None:
    assert not check(text).valid
    assert list(validator().iter_errors(load_document(text).root))
