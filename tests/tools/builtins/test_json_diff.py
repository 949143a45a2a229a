from __future__ import annotations

import copy
import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from nika.tools.builtins.json_diff import diff

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text("ab~/", max_size=2),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text("ab~/", max_size=2), inner, max_size=3)
    ),
    max_leaves=12,
)


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def apply_patch(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """A small RFC 6902 applier (add/remove/replace) to check the diff against."""
    doc = copy.deepcopy(doc)
    for op in ops:
        if op["path"] == "":
            doc = copy.deepcopy(op["value"])
            continue
        *parents, last = [_unescape(t) for t in op["path"].split("/")[1:]]
        node = doc
        for token in parents:
            node = node[int(token)] if isinstance(node, list) else node[token]
        key: Any = int(last) if isinstance(node, list) else last
        if op["op"] == "remove":
            del node[key]
        elif op["op"] == "add" and isinstance(node, list):
            node.insert(key, copy.deepcopy(op["value"]))
        else:
            node[key] = copy.deepcopy(op["value"])
    return doc


async def test_json_diff_emits_rfc6902(make):
    result = await make().call(
        "nika:json_diff",
        {
            "before": {"a": 1, "b": [1, 2, 3], "c": "x"},
            "after": {"a": 2, "b": [1], "d": True},
        },
    )
    assert result.structured == [
        {"op": "remove", "path": "/c"},
        {"op": "replace", "path": "/a", "value": 2},
        {"op": "remove", "path": "/b/2"},
        {"op": "remove", "path": "/b/1"},
        {"op": "add", "path": "/d", "value": True},
    ]


async def test_json_diff_refuses_non_json(make):
    err = (await make().call("nika:json_diff", {"before": {"x": b"\x00"}, "after": {}})).error
    assert err is not None and err.code == "NIKA-BUILTIN-JSON_DIFF-001"


@given(json_values, json_values)
def test_applying_the_diff_reproduces_after(before: Any, after: Any) -> None:
    patched = apply_patch(before, diff(before, after))
    # JSON-strict: `True` and `1` must not stand in for each other.
    assert json.dumps(patched, sort_keys=True) == json.dumps(after, sort_keys=True)
    assert diff(after, after) == []
