from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from nika.tools.builtins.json_merge_patch import merge_patch

scalars = st.booleans() | st.integers(-3, 3) | st.text("xy", max_size=2)
keys = st.text("abc", min_size=1, max_size=2)
values = st.recursive(
    scalars | st.none(),
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=10,
)
objects = st.dictionaries(keys, values, max_size=4)
null_free = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=10,
)
null_free_objects = st.dictionaries(keys, null_free, max_size=4)


def make_patch(source: Any, target: Any) -> Any:
    """The merge patch taking `source` to a null-free `target` (RFC 7396 in reverse)."""
    if not (isinstance(source, dict) and isinstance(target, dict)):
        return target
    patch: dict[str, Any] = {k: None for k in source if k not in target}
    for k, v in target.items():
        if k not in source or source[k] != v:
            patch[k] = make_patch(source.get(k), v)
    return patch


def object_nulls(value: Any) -> bool:
    """A null as an object member, at any object depth (arrays are replaced whole)."""
    if isinstance(value, dict):
        return any(v is None or object_nulls(v) for v in value.values())
    return False


async def test_merge_patch_deletes_on_null(make):
    result = await make().call(
        "nika:json_merge_patch",
        {
            "target": {"a": "b", "c": {"d": "e", "f": "g"}},
            "patch": {"a": "z", "c": {"f": None}},
        },
    )
    assert result.structured == {"a": "z", "c": {"d": "e"}}


async def test_merge_patch_refuses_non_objects(make):
    err = (await make().call("nika:json_merge_patch", {"target": [1], "patch": {}})).error
    assert err is not None and err.code == "NIKA-BUILTIN-JSON_MERGE_PATCH-001"


@given(objects)
def test_empty_patch_is_identity(target: dict[str, Any]) -> None:
    assert merge_patch(target, {}) == target


@given(objects, objects)
def test_merge_patch_is_idempotent_and_leaves_no_patched_nulls(
    target: dict[str, Any], patch: dict[str, Any]
) -> None:
    once = merge_patch(target, patch)
    assert merge_patch(once, patch) == once
    assert all(k not in once for k, v in patch.items() if v is None)
    assert not object_nulls(merge_patch({}, patch))


@given(objects, null_free_objects)
def test_patch_from_a_diff_reaches_the_target(source: dict[str, Any], target: dict[str, Any]):
    assert merge_patch(source, make_patch(source, target)) == target


@given(objects, objects)
def test_merge_patch_never_mutates_its_inputs(target: dict[str, Any], patch: dict[str, Any]):
    before = (repr(target), repr(patch))
    merge_patch(target, patch)
    assert (repr(target), repr(patch)) == before
