"""The variables rung: islands parsed and resolved on every surface, one case per code."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nika.check import variables
from nika.check.context import CheckContext
from nika.errors import NikaError
from nika.syntax.loader import load_document
from nika.syntax.model import build_workflow


def _errors(source: str) -> list[NikaError]:
    doc = load_document(textwrap.dedent(source))
    workflow, shape = build_workflow(doc)
    assert workflow is not None and not shape, [e.to_dict() for e in shape]
    ctx = CheckContext(document=doc, workflow=workflow, path=None, base_dir=Path("."))
    return [f for f in variables.run(ctx) if isinstance(f, NikaError)]


def _codes(source: str) -> list[str]:
    return sorted(e.code for e in _errors(source))


def _one(source: str, code: str) -> NikaError:
    errors = _errors(source)
    assert [e.code for e in errors] == [code], [e.to_dict() for e in errors]
    return errors[0]


def _prompt(text: str, envelope: str = "") -> str:
    return f'nika: t\n{envelope}tasks:\n  a:\n    infer: {{ prompt: "{text}" }}\n'


ENVELOPE = "inputs:\n  topic: { type: string }\nconst:\n  style: terse\n"


def test_declared_authorities_resolve() -> None:
    assert _codes(_prompt("${{ inputs.topic }} ${{ const.style }}", ENVELOPE)) == []


@pytest.mark.parametrize(
    ("reference", "fix"),
    [
        ("inputs.topik", "did you mean `topic`"),
        ("const.styel", "did you mean `style`"),
        ("secrets.api_key", "declare it under `secrets:`"),
        ("inputs", "is a namespace, not a value"),
    ],
)
def test_undeclared_authority_entries(reference: str, fix: str) -> None:
    err = _one(_prompt(f"${{{{ {reference} }}}}", ENVELOPE), "NIKA-VAR-001")
    assert fix in err.detail
    assert err.location is not None and err.location.line == 8


def test_unknown_namespace() -> None:
    err = _one(_prompt("${{ foo.bar }}"), "NIKA-VAR-001")
    assert "`inputs`, `const`, `secrets`, `with` and `tasks`" in err.detail


@pytest.mark.parametrize(
    ("root", "code"),
    [
        ("vars", "NIKA-VALUES-001"),
        ("env", "NIKA-VALUES-002"),
        ("config", "NIKA-VALUES-003"),
        ("params", "NIKA-VALUES-003"),
    ],
)
def test_dead_value_namespaces_teach_the_three_authorities(root: str, code: str) -> None:
    errors = _errors(_prompt(f"${{{{ {root}.x }}}}"))
    assert sorted(e.code for e in errors) == sorted([code, "NIKA-VAR-001"])
    assert "`inputs`, `const` and `secrets`" in next(e for e in errors if e.code == code).detail


def test_with_bindings_resolve_per_task() -> None:
    source = """
        nika: t
        tasks:
          a:
            with: { style: concise }
            infer: { prompt: "${{ with.style }} ${{ with.REF }}" }
        """
    assert _codes(source.replace("REF", "style")) == []
    err = _one(source.replace("REF", "styel"), "NIKA-VAR-001")
    assert "did you mean `style`" in err.detail


def test_a_binding_cannot_read_another_binding() -> None:
    assert _codes(
        """
        nika: t
        tasks:
          a:
            with: { x: "1", y: "${{ with.x }}" }
            infer: { prompt: "${{ with.y }}" }
        """
    ) == ["NIKA-VAR-001"]


def test_loop_locals_only_inside_for_each() -> None:
    assert _codes(_prompt("${{ item }}")) == ["NIKA-VAR-001"]
    assert (
        _codes(
            """
        nika: t
        tasks:
          a:
            for_each: { items: [1, 2] }
            with: { n: "${{ index }}" }
            infer: { prompt: "${{ item }} ${{ with.n }}" }
        """
        )
        == []
    )


def test_collection_is_pre_fan_out() -> None:
    direct = """
        nika: t
        tasks:
          a:
            for_each: { items: "${{ item }}" }
            infer: { prompt: "x" }
        """
    assert _codes(direct) == ["NIKA-VAR-005"]
    circular = """
        nika: t
        tasks:
          a:
            with: { each: "${{ item }}" }
            for_each: { items: "${{ with.each }}" }
            infer: { prompt: "x" }
        """
    err = _one(circular, "NIKA-VAR-005")
    assert "circular" in err.detail


def test_task_reads_outside_the_boundary_are_hoisted() -> None:
    source = """
        nika: t
        tasks:
          research: { infer: { prompt: r } }
          summarize:
            SURFACE
            infer: { prompt: "PROMPT" }
        """
    body = source.replace("SURFACE", "group: x").replace("PROMPT", "${{ tasks.research.output }}")
    err = _one(body, "NIKA-VAR-021")
    assert "hoist it into `with:`" in err.detail
    assert "with.research_output" in err.detail
    when = source.replace("SURFACE", 'when: "${{ tasks.research.duration_ms < 5 }}"')
    assert _codes(when.replace("PROMPT", "s")) == ["NIKA-VAR-021"]
    bound = source.replace("SURFACE", 'with: { r: "${{ tasks.research.output }}" }')
    assert _codes(bound.replace("PROMPT", "${{ with.r }}")) == []


def test_envelope_model_reads_only_authorities() -> None:
    assert _codes(
        'nika: t\nmodel: "${{ inputs.nope }}"\ntasks:\n  a: { infer: { prompt: x } }\n'
    ) == ["NIKA-VAR-001"]


def test_group_has_one_door() -> None:
    source = """
        nika: t
        tasks:
          leg: { group: probes, exec: { command: ["./x"] } }
          summary:
            SURFACE
            exec: { command: ["./y"] }
        """
    outside = source.replace("SURFACE", 'when: "${{ size(group.probes) > 0 }}"')
    assert _codes(outside) == ["NIKA-VAR-021"]
    assert _codes(source.replace("SURFACE", 'with: { legs: "${{ group.probes }}" }')) == []


def test_bare_task_record_is_not_a_value() -> None:
    source = """
        nika: t
        tasks:
          gather: { infer: { prompt: g } }
          think:
            with: { g: "${{ REF }}" }
            infer: { prompt: "${{ with.g }}" }
        """
    err = _one(source.replace("REF", "tasks.gather"), "NIKA-VAR-020")
    assert "pick one projection" in err.detail
    assert _codes(source.replace("REF", "tasks")) == ["NIKA-VAR-020"]
    assert _codes(source.replace("REF", "tasks.gather.output")) == []


def test_record_fields_and_extract_bindings() -> None:
    source = """
        nika: t
        tasks:
          api:
            exec: { command: ["./x"] }
            extract: { count: ".n" }
          use:
            with: { c: "${{ tasks.api.FIELD }}" }
            infer: { prompt: "${{ with.c }}" }
        """
    for ok in ("count", "status", "error", "duration_ms", "output"):
        assert _codes(source.replace("FIELD", ok)) == []
    err = _one(source.replace("FIELD", "cont"), "NIKA-VAR-001")
    assert "did you mean `count`" in err.detail


def test_unwind_task_reads_only_its_producer() -> None:
    source = """
        nika: t
        tasks:
          slow: { exec: { command: ["./slow"] } }
          fast: { exec: { command: ["./fast"] } }
          cleanup:
            after: { fast: unwind }
            exec: { command: ["echo", "${{ tasks.READ.status }}"] }
        """
    assert _codes(source.replace("READ", "fast")) == []
    err = _one(source.replace("READ", "slow"), "NIKA-VAR-021")
    assert "may still be running" in err.detail


def test_an_unwind_tasks_when_reads_its_producer_and_only_it() -> None:
    # issue 35 (spec example 12): 03 §unwind and 04 §the reference boundary let a cleanup task
    # read the producer it unwinds anywhere in the task, `when:` included; a sibling stays out.
    source = """
        nika: t
        tasks:
          slow: { exec: { command: ["./slow"] } }
          fast: { exec: { command: ["./fast"] } }
          cleanup:
            after: { fast: unwind }
            when: ${{ tasks.READ.FIELD != null }}
            exec: { command: ["echo", "${{ tasks.fast.status }}"] }
        """
    for field in ("status", "error", "output"):
        assert _codes(source.replace("READ", "fast").replace("FIELD", field)) == []
    err = _one(source.replace("READ", "slow").replace("FIELD", "status"), "NIKA-VAR-021")
    assert "`when:` of task `cleanup`" in err.detail and "may still be running" in err.detail


def test_an_ordinary_tasks_when_reads_no_task() -> None:
    # Off an unwind edge `when:` stays outside the boundary: the hoist into `with:` is the fix.
    source = """
        nika: t
        tasks:
          fast: { exec: { command: ["./fast"] } }
          next:
            after: { fast: terminal }
            when: ${{ tasks.fast.status != "success" }}
            exec: { command: ["echo", "x"] }
        """
    err = _one(source, "NIKA-VAR-021")
    assert "`when:` of task `next`" in err.detail and "hoist it into `with:`" in err.detail


def test_workflow_outputs_read_settled_tasks() -> None:
    source = """
        nika: t
        tasks:
          a: { infer: { prompt: a } }
        outputs:
          result: "${{ tasks.REF.output }}"
        """
    assert _codes(source.replace("REF", "a")) == []
    assert _codes(source.replace("REF", "b")) == ["NIKA-VAR-001"]


SCHEMA_PRODUCER = """
nika: t
tasks:
  extract:
    infer:
      prompt: "x"
      schema:
        type: object
        properties:
          entities: { type: array, items: { type: string } }
          meta: { type: object }
          open: { type: object, additionalProperties: true, properties: { a: { type: string } } }
          odd: { anyOf: [{ type: string }] }
  typed:
    exec: { command: ["./x"], decode: json }
    returns: { object: { id: string, tags: { array: string } } }
  use:
    with: { v: "${{ tasks.PATH }}" }
    infer: { prompt: "${{ with.v }}" }
"""


@pytest.mark.parametrize(
    ("path", "invalid"),
    [
        ("extract.output.entities", False),
        ("extract.output.entities[0]", False),
        ("extract.output.meta.anything", False),
        ("extract.output.open.b", False),
        ("extract.output.odd.x", False),
        ("extract.output.entitis", True),
        ("extract.output.entities.x", True),
        ("extract.output.meta[0]", True),
        ("typed.output.id", False),
        ("typed.output.tags[3]", False),
        ("typed.output.idd", True),
        ("typed.output.id.x", True),
        ("typed.output.tags.x", True),
    ],
)
def test_static_path_walk(path: str, invalid: bool) -> None:
    assert _codes(SCHEMA_PRODUCER.replace("PATH", path)) == (["NIKA-VAR-003"] if invalid else [])


def test_when_must_be_one_boolean_island() -> None:
    source = "nika: t\ntasks:\n  a:\n    when: WHEN\n    infer: { prompt: x }\n"
    env = "nika: t\nconst: { n: 5 }\ntasks:\n  a:\n    when: WHEN\n    infer: { prompt: x }\n"
    assert _codes(env.replace("WHEN", '"${{ const.n > 2 }}"')) == []
    assert _codes(env.replace("WHEN", '"${{ const.n }}"')) == ["NIKA-VAR-005"]
    assert _codes(source.replace("WHEN", '"literal string"')) == ["NIKA-VAR-005"]
    assert _codes(source.replace("WHEN", '"x ${{ true }}"')) == ["NIKA-VAR-005"]
    assert _codes(source.replace("WHEN", "true")) == []


def test_expression_grammar_and_unclosed_islands() -> None:
    assert _codes(_prompt("${{ inputs.topic + 1 }}", ENVELOPE)) == ["NIKA-VAR-005"]
    err = _one(_prompt("${{ inputs.topic", ENVELOPE), "NIKA-VAR-008")
    assert err.location is not None
    assert _codes(_prompt("\\\\${{ inputs.nope }}")) == []


def test_extract_is_pure_jq() -> None:
    source = "nika: t\ntasks:\n  a:\n    exec: { command: [x] }\n    extract: { v: 'PROG' }\n"
    assert _codes(source.replace("PROG", ".a.b")) == []
    assert _codes(source.replace("PROG", ".a | | b")) == ["NIKA-VAR-005"]
    assert _codes(source.replace("PROG", "${{ inputs.x }}")) == ["NIKA-VAR-005"]


_TEXT = st.text(alphabet=st.sampled_from(list("${}. \\'\"abcitemsnpuwhd_[]0()=!<>&|")), max_size=40)


@settings(max_examples=300, deadline=None)
@given(_TEXT)
def test_any_prompt_text_yields_located_findings_never_a_crash(text: str) -> None:
    source = f"nika: t\ntasks:\n  a:\n    infer:\n      prompt: {json.dumps(text)}\n"
    try:
        doc = load_document(source)
    except NikaError:
        return
    workflow, shape = build_workflow(doc)
    if workflow is None or shape:
        return
    ctx = CheckContext(document=doc, workflow=workflow, path=None, base_dir=Path("."))
    for finding in variables.run(ctx):
        assert isinstance(finding, NikaError)
        assert finding.location is not None
        assert finding.code.startswith(("NIKA-VAR-", "NIKA-VALUES-"))
