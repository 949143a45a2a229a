"""The graph document as a Mermaid flowchart (`nika inspect --format mermaid`).

A rendering of the canonical projection, never of the workflow: it reads the graph document
`projection.build_graph` produced, so the picture and the JSON cannot disagree. Node ids are
positional (`n0`, `n1`, …) and every label is quoted with Mermaid's entity codes, so no
character of a task id, tool or binding can end a label or start a directive.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

_ARROWS: Final[Mapping[str, str]] = {
    "value": "-->",
    "terminal-observation": "-->",
    "failure-observation": "-->",
    "fan-in": "==>",
    "control": "-.->",
    "recovery": "-.->",
    "finally": "-.->",
}
"""Data flows are solid (a fan-in fold thick), ordering on state and cleanup dotted."""

_ENTITIES: Final = {'"': "#quot;", "#": "#35;", "<": "#lt;", ">": "#gt;", "&": "#amp;",
                    "|": "#124;", "`": "#96;",
                    "\n": " ", "\r": " "}


def render_mermaid(graph: Mapping[str, Any]) -> str:
    """A `flowchart TD` with one node per graph node (waves top to bottom, cleanup units
    as stadiums) and one labelled arrow per edge."""
    nodes: list[Mapping[str, Any]] = list(graph.get("nodes", ()))
    ids = {str(node["id"]): f"n{i}" for i, node in enumerate(nodes)}
    lines = ["flowchart TD"]
    for node in nodes:
        label = _label(node)
        ref = ids[str(node["id"])]
        if node.get("kind") == "finally":
            lines.append(f'    {ref}(["{label}"])')
        else:
            lines.append(f'    {ref}["{label}"]')
    for edge in graph.get("edges", ()):
        source, target = ids.get(str(edge["from"])), ids.get(str(edge["to"]))
        if source is None or target is None:
            continue
        kind = str(edge["kind"])
        detail = edge.get("binding") or edge.get("predicate")
        text = kind if detail is None else f"{kind}: {detail}"
        lines.append(f'    {source} {_ARROWS.get(kind, "-->")}|"{_escape(text)}"| {target}')
    finals = [ids[str(n["id"])] for n in nodes if n.get("kind") == "finally"]
    if finals:
        lines.append("    classDef cleanup stroke-dasharray: 4 3")
        lines.append(f"    class {','.join(finals)} cleanup")
    return "\n".join(lines) + "\n"


def _label(node: Mapping[str, Any]) -> str:
    head = f"{node['id']} · {node['verb']}"
    what = node.get("tool") or node.get("model")
    parts = [_escape(head)]
    if what:
        parts.append(_escape(str(what)))
    if node.get("kind") == "finally":
        parts.append("finally")
    return "<br/>".join(parts)


def _escape(text: str) -> str:
    return "".join(_ENTITIES.get(ch, ch) for ch in text)
