"""The receipt schema as readable projections, and `nika trace receipt explain` (15 §the one
receipt: every field carries a readable projection, and the projection is never the evidence).

The schema is a tree: each field names the stable human text that renders it; a field with
children is walked into (an array is transparent: each element is read with the same node);
a LEAF covers its whole subtree — a map keyed by run-time names (task ids, effect kinds,
symbols) is projected as a container, never guessed key by key. The walk names every
field path the schema holds no projection for (`unprojected`, dotted, array steps omitted):
a receipt that grew a field no one can read is said so, field by field.

It holds the fields of this engine's receipts (`receipt.build`) and of the reference
engine's (its resource-axis certificate: `task_attempts`, `llm_calls`, `effect_calls`,
`usd_micros`, `span_attempts`, `derivation`), so a receipt from either reads fully.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from nika._term import printable


@dataclass(frozen=True, slots=True)
class SchemaField:
    """One schema field: its projection, and its children (None: a leaf)."""

    text: str
    children: Mapping[str, SchemaField] | None = field(default=None)


def leaf(text: str) -> SchemaField:
    return SchemaField(text)


def node(text: str, **children: SchemaField) -> SchemaField:
    return SchemaField(text, children)


def _axis(what: str) -> SchemaField:
    return node(what, constant=leaf("the known part of the bound"),
                terms=leaf("the run-time terms of the bound (per fan-out size)"))


SCHEMA: Final = node(
    "the one run receipt (receipt_format 1)",
    receipt_format=leaf("the receipt dialect's version"),
    proves=leaf("the workflow identity this receipt attests (the semantic hash)"),
    digest=leaf("the self-binding digest — verify recomputes it over the folded fields"),
    lock_digest=leaf("the nika.lock digest the run resolved under (unrecorded when the "
                     "journal never carried it)"),
    certificate=node(
        "the check-time resource certificate folded into this receipt",
        terminates=leaf("whether the workflow provably terminates"),
        reasons=leaf("why it terminates, or what has no bound"),
        tasks=leaf("the per-task worst case (attempts, calls, tokens, dollars)"),
        total=node("the run's worst case, floor and ceiling per resource",
                   attempts=leaf("task-body executions (iterations × retries)"),
                   model_calls=leaf("model calls"), tool_calls=leaf("tool calls"),
                   output_tokens=leaf("output tokens"), cost_usd=leaf("dollars")),
        unbounded=node("the tasks with no provable bound, each with its why",
                       task=leaf("the task"), why=leaf("what is missing")),
        unpriced=node("the tasks that spend without a sourced rate",
                      task=leaf("the task"), model=leaf("its model"), why=leaf("why")),
        never_run=leaf("tasks that provably never run (an empty fan-out)"),
        symbols=leaf("the run-time quantities the bounds are written in"),
        rates=leaf("the sourced rates the dollars were computed at"),
        effects=node("the authority projection (spec 10 · re-derived at audit, never trusted)",
                     boundary_declared=leaf("whether a permits: boundary is declared"),
                     escapes=leaf("effects outside the boundary"),
                     deferred=leaf("effects judged at run time"),
                     needed=leaf("the effects the body needs, by kind")),
        task_attempts=_axis("upper bound on task-body executions (attempts × fan-out)"),
        llm_calls=_axis("upper bound on LLM calls (infer + agent turns)"),
        effect_calls=_axis("upper bound on effect calls (exec + invoke dispatches)"),
        usd_micros=_axis("the parametric spend bound in micro-USD (absent when unpriceable)"),
        span_attempts=leaf("the longest sequential dependency chain, in attempts"),
        derivation=node(
            "the per-task witness rows the audit re-checks",
            task=leaf("the task"), attempts=leaf("its attempts"),
            deps=leaf("the tasks it waits on"), fanout=leaf("its fan-out size"),
            main_llm=leaf("its LLM calls"), main_effect=leaf("its effect calls"),
            main_spend_micros=leaf("its spend bound in micro-USD"),
            finally_llm=leaf("its cleanup's LLM calls"),
            finally_effect=leaf("its cleanup's effect calls"),
            finally_spend_micros=leaf("its cleanup's spend bound in micro-USD")),
    ),
    trace_verdict=node(
        "the trace-verify result folded into this receipt",
        outcome=leaf("the run's terminal outcome"),
        chain=leaf("the journal chain status the verdict names"),
        events=leaf("the journaled event count"),
        head=leaf("the chain head the verdict names"),
        sealed=leaf("whether the journal is sealed (attributable)"),
        verdict=leaf("the walk's verdict (clean · finding · incomplete · forged · refused)"),
    ),
    assertions=node("the assert: obligations, each judged at its honest level",
                    level=leaf("the level the evidence earns"),
                    **{"assert": leaf("the obligation")}),
)

HEADER: Final = ("receipt · the one run receipt (receipt_format 1)",
                 "  a READING, never a proof — the digest is NOT recomputed here · "
                 "`nika trace receipt verify` is the proof")


def unprojected(doc: Any, schema: SchemaField = SCHEMA, prefix: str = "") -> list[str]:
    """Every field path of `doc` the schema holds no projection for, sorted."""
    out: set[str] = set()
    _walk(doc, schema, prefix, out)
    return sorted(out)


def _walk(value: Any, schema: SchemaField, prefix: str, out: set[str]) -> None:
    if schema.children is None:
        return  # a leaf covers its subtree
    if isinstance(value, list):
        for item in value:
            _walk(item, schema, prefix, out)
        return
    if not isinstance(value, Mapping):
        return
    for key, child in value.items():
        path = f"{prefix}{key}"
        sub = schema.children.get(key)
        if sub is None:
            out.add(path)
        else:
            _walk(child, sub, path + ".", out)


def _shown(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and not value:
        return "none"
    if isinstance(value, list):
        return f"{len(value)} row(s)"
    if isinstance(value, Mapping) and "constant" in value:  # a bound: known part + terms
        terms = value.get("terms")
        more = f" + {len(terms)} run-time term(s)" if isinstance(terms, list) and terms else ""
        return f"≤ {_shown(value['constant'])}{more}"
    if isinstance(value, Mapping) and "boundary_declared" in value:
        declared = "boundary declared" if value.get("boundary_declared") else "no boundary"
        return f"{declared} · {_shown(value.get('escapes'))} escapes"
    if isinstance(value, Mapping):
        return f"{len(value)} field(s)"
    return json.dumps(value)


def explain(doc: Mapping[str, Any]) -> list[str]:
    """The readable projection of a decoded receipt, ending with its `unprojected` line."""
    lines = [*HEADER, ""]
    children = SCHEMA.children or {}
    flat = [k for k in doc if k in children and children[k].children is None]
    width = max((len(k) for k in flat), default=0)
    for key in flat:
        lines.append(f"{key:<{width}}  {_shown(doc[key])} — {children[key].text}")
    for key, value in doc.items():
        sub = children.get(key)
        if sub is None or sub.children is None:
            continue
        lines += ["", f"{key} — {sub.text}"]
        if isinstance(value, Mapping):
            inner = [k for k in value if k in sub.children]
            pad = max((len(k) for k in inner), default=0)
            lines += [f"  {k:<{pad}}  {_shown(value[k])} — {sub.children[k].text}"
                      for k in inner]
        else:
            lines.append(f"  {_shown(value)}")
    missing = unprojected(doc)
    lines += ["", f"unprojected: {', '.join(missing) if missing else 'none'}"]
    return [printable(line) for line in lines]
