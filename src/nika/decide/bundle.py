"""Decision Bundle validation: a bundle that violates its own laws is `NIKA-DECIDE-001`
(spec 11 §the Decision Bundle · §Decision IR), the refusal naming the failing law.

The laws, in the order they are judged: the six mandatory regions; a manifest naming `id`,
`version`, `owner` and `license`; a non-empty evidence schema whose every key has a spec-09
type and an integrity floor in the lattice; bounded integer transforms; rules that read only
declared keys, never an identity key, through a declared transform at an integer weight;
thresholds on declared dimensions; governance over real outcomes; fixtures of the five classes
with a contradictory one; and declared monotonicity holding on the bundle's own fixtures.

Each region must be the JSON kind the format names (a map, a list): the spec's reference
evaluator crashes on most other kinds, and the kernel refuses them all under the law
`structure`. `decision_bundle_format` is not required: the reference does not require it,
and receipts must stay byte-equal with it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from nika import codes
from nika.decide import _monotone, _transform
from nika.decide._types import TypeRefusal, parse
from nika.errors import NikaError
from nika.syntax.types import TypeExpr

REGIONS: Final = ("manifest", "evidence_schema", "transforms", "rules", "governance", "fixtures")
INTEGRITY: Final = ("untrusted", "observed", "verified", "authoritative")
"""The integrity lattice, lowest first."""
TRANSFORMS: Final = frozenset({"clamp", "linear", "bucket"})
OUTCOMES: Final = frozenset({"recommend", "defer", "human_required", "opted_out", "overridden"})
FIXTURE_CLASSES: Final = frozenset(
    {"positive", "negative", "ambiguous", "contradictory", "adversarial"})
MONOTONICITY: Final = ("increases", "decreases", "none")


@dataclass(frozen=True, slots=True)
class Bundle:
    """A bundle that holds its laws: the document, and each evidence key's parsed type."""

    raw: Mapping[str, Any]
    types: Mapping[str, TypeExpr]


def refusal(law: str, detail: str) -> NikaError:
    """The `NIKA-DECIDE-001` refusal of `law`."""
    return NikaError(codes.DECIDE_001, f"the decision bundle breaks its law `{law}`: {detail}",
                     details={"law": law})


def validate(bundle: Any) -> Bundle:
    """`bundle` judged by every law (see the module docstring); raises `NIKA-DECIDE-001`."""
    if not isinstance(bundle, Mapping):
        raise refusal("structure", f"a bundle is one JSON object, got {_kind(bundle)}; write "
                      f"the six regions {', '.join(REGIONS)}")
    bad = next(non_json(bundle, "bundle"), None)
    if bad is not None:
        raise refusal("structure", f"{bad} is not a finite JSON number; write an integer")
    missing = [r for r in REGIONS if r not in bundle]
    if missing:
        raise refusal("regions", f"the mandatory region `{missing[0]}` is missing; a bundle "
                      f"carries all six: {', '.join(REGIONS)}")
    _manifest(_map(bundle, "manifest"))
    types = _schema(bundle["evidence_schema"])
    transforms = _map(bundle, "transforms")
    for name, transform in transforms.items():
        _transform_law(name, transform)
    _rules(_map(bundle, "rules"), bundle["evidence_schema"], transforms)
    _governance(_map(bundle, "governance"))
    _fixtures(bundle["fixtures"])
    broken = _monotone.violation(bundle)
    if broken is not None:
        raise refusal("monotonicity", broken.detail())
    return Bundle(bundle, types)


def load(data: bytes, name: str) -> Any:
    """The JSON document of a bundle file named `name` (NIKA-DECIDE-001 when it is not one):
    a bundle is JSON data, never YAML or code."""
    import json  # loaded with the first bundle file

    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as err:
        raise refusal("structure", f"the bundle file {name!r} is not one JSON document "
                      f"({type(err).__name__}: {err}); write the bundle as JSON") from None


def _manifest(manifest: Mapping[str, Any]) -> None:
    for key in ("id", "version", "owner", "license"):
        value = manifest.get(key)
        if not isinstance(value, str) or not value:
            raise refusal("manifest", f"`manifest.{key}` must be a non-empty string, got "
                          f"{value!r:.60}")


def _schema(schema: Any) -> dict[str, TypeExpr]:
    if not isinstance(schema, Mapping) or not schema:
        raise refusal("evidence-schema", "`evidence_schema` must be a non-empty map of the "
                      "evidence keys the rules may read")
    types = {}
    for key, decl in schema.items():
        if not isinstance(decl, Mapping):
            raise refusal("structure", f"`evidence_schema.{key}` must be a map (type, "
                          f"required, sources, integrity), got {_kind(decl)}")
        if decl.get("type") is None:
            raise refusal("evidence-schema", f"`evidence_schema.{key}.type` is required: a "
                          "spec-09 type such as integer or bool")
        try:
            types[key] = parse(decl["type"], f"evidence_schema.{key}.type")
        except TypeRefusal as err:
            raise refusal("evidence-type", str(err)) from None
        except RecursionError:
            raise refusal("evidence-type", f"`evidence_schema.{key}.type` is nested too deep "
                          "to read; an evidence value is a flat fact") from None
        floor = decl.get("integrity", "observed")
        if not isinstance(floor, str) or floor not in INTEGRITY:
            raise refusal("integrity-lattice", f"`evidence_schema.{key}.integrity` "
                          f"{floor!r:.40} is not in the lattice {' ⊑ '.join(INTEGRITY)}")
    return types


def _transform_law(name: str, transform: Any) -> None:
    where = f"transforms.{name}"
    if not isinstance(transform, Mapping):
        raise refusal("structure", f"`{where}` must be a map, got {_kind(transform)}")
    kind = transform.get("kind")
    if not isinstance(kind, str) or kind not in TRANSFORMS:
        raise refusal("transform", f"`{where}.kind` {kind!r:.40} is not a v1 transform; "
                      "use clamp, linear or bucket")
    for bound in ("min", "max"):
        if bound not in transform:
            raise refusal("transform", f"`{where}` needs `{bound}:`: a transform is total on "
                          "its declared integer range and clamps to it")
        _integer(transform[bound], f"{where}.{bound}")
    if transform["min"] > transform["max"]:
        raise refusal("transform", f"`{where}` has an empty range: min {transform['min']} > "
                      f"max {transform['max']}")
    if kind == "linear":
        _integer(transform.get("scale_bp", _transform.BASIS), f"{where}.scale_bp")
        _integer(transform.get("offset", 0), f"{where}.offset")
    if kind == "bucket":
        edges, values = transform.get("edges"), transform.get("values")
        if not (isinstance(edges, list) and isinstance(values, list)
                and len(values) == len(edges) + 1):
            raise refusal("transform", f"`{where}` is a bucket: it needs `edges:` (n sorted "
                          "integers) and `values:` (n + 1 integers)")
        for i, edge in enumerate(edges):
            _integer(edge, f"{where}.edges[{i}]")
        if edges != sorted(edges):
            raise refusal("transform", f"`{where}.edges` {edges!r:.60} must be sorted ascending")
        for i, value in enumerate(values):
            _integer(value, f"{where}.values[{i}]")


def _rules(rules: Mapping[str, Any], schema: Mapping[str, Any],
           transforms: Mapping[str, Any]) -> None:
    dimensions = rules.get("dimensions")
    if not isinstance(dimensions, Mapping) or not dimensions:
        raise refusal("rules", "`rules.dimensions` must be a non-empty map of named dimensions")
    for name, dimension in dimensions.items():
        if not isinstance(dimension, Mapping):
            raise refusal("structure", f"`rules.dimensions.{name}` must be a map with `terms:`")
        for i, term in enumerate(_list(dimension, "terms", f"rules.dimensions.{name}")):
            _term(term, f"rules.dimensions.{name}.terms[{i}]", schema, transforms)
    for i, threshold in enumerate(_list(rules, "thresholds", "rules")):
        where = f"rules.thresholds[{i}]"
        if not isinstance(threshold, Mapping):
            raise refusal("structure", f"`{where}` must be a map (dimension, recommend_gte_bp)")
        dimension = threshold.get("dimension")
        if not isinstance(dimension, str) or dimension not in dimensions:
            raise refusal("threshold", f"`{where}.dimension` {dimension!r:.40} is not a "
                          f"dimension; the dimensions are {', '.join(map(str, dimensions))}")
        _integer(threshold.get("recommend_gte_bp"), f"{where}.recommend_gte_bp")


def _term(term: Any, where: str, schema: Mapping[str, Any],
          transforms: Mapping[str, Any]) -> None:
    if not isinstance(term, Mapping):
        raise refusal("structure", f"`{where}` must be a map (evidence, transform, weight_bp)")
    key = term.get("evidence")
    if not isinstance(key, str) or key not in schema:
        raise refusal("closed-rules", f"`{where}.evidence` {key!r:.40} is not a declared "
                      "evidence key; rules read only evidence_schema keys — declare it there")
    if schema[key].get("identity") is True:
        raise refusal("identity-invariance", f"`{where}` feeds identity key {key!r} into a "
                      "technical dimension; identity keys never change a technical decision")
    name = term.get("transform")
    if not isinstance(name, str) or name not in transforms:
        raise refusal("rules", f"`{where}.transform` {name!r:.40} is not a declared transform")
    _integer(term.get("weight_bp"), f"{where}.weight_bp")
    mono = term.get("monotonicity", "none")
    if not isinstance(mono, str) or mono not in MONOTONICITY:
        raise refusal("rules", f"`{where}.monotonicity` {mono!r:.40} is not one of "
                      f"{', '.join(MONOTONICITY)}")


def _governance(governance: Mapping[str, Any]) -> None:
    for outcome in _list(governance, "never_automatic", "governance"):
        if not isinstance(outcome, str) or outcome not in OUTCOMES:
            raise refusal("governance", f"`governance.never_automatic` lists {outcome!r:.40}, "
                          f"not an outcome; the outcomes are {', '.join(sorted(OUTCOMES))}")


def _fixtures(fixtures: Any) -> None:
    if not isinstance(fixtures, list):
        raise refusal("structure", f"`fixtures` must be a list, got {_kind(fixtures)}")
    for i, fixture in enumerate(fixtures):
        if not isinstance(fixture, Mapping) or not isinstance(fixture.get("evidence", {}),
                                                              Mapping):
            raise refusal("structure", f"`fixtures[{i}]` must be a map whose `evidence:` maps "
                          "evidence keys to values")
        kind = fixture.get("class")
        if not isinstance(kind, str) or kind not in FIXTURE_CLASSES:
            raise refusal("fixtures", f"`fixtures[{i}].class` {kind!r:.40} is not one of "
                          f"{', '.join(sorted(FIXTURE_CLASSES))}")
    if not any(f["class"] == "contradictory" for f in fixtures):
        raise refusal("contradictory-fixture", "a contradictory fixture is mandatory: a bundle "
                      "that cannot prove its Conflict handling is unpublishable — add one with "
                      "`class: contradictory`")


def _integer(value: Any, where: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise refusal("fixed-point", f"`{where}` is {value!r:.40}; weights, thresholds and "
                      "transform fields are integer basis points (8735 = 87.35%), never a "
                      "float")


def _map(bundle: Mapping[str, Any], region: str) -> Mapping[str, Any]:
    value = bundle[region]
    if not isinstance(value, Mapping):
        raise refusal("structure", f"`{region}` must be a map, got {_kind(value)}")
    return value


def _list(owner: Mapping[str, Any], key: str, where: str) -> list[Any]:
    value = owner.get(key, [])
    if not isinstance(value, list):
        raise refusal("structure", f"`{where}.{key}` must be a list, got {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    if isinstance(value, Mapping):
        return "a map"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    return "null" if value is None else "a number"


def non_json(value: Any, where: str) -> Iterator[str]:
    """Where a value holds a number JSON cannot spell (NaN, an infinity); iterative, so a deep
    document costs no recursion. The paths are spelled only once such a number is found."""
    if _finite(value):
        return
    stack = [(value, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            yield at
        elif isinstance(item, Mapping):
            stack.extend((v, f"{at}.{k}") for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((v, f"{at}[{i}]") for i, v in enumerate(item))


def _finite(value: Any) -> bool:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, float):
            if not math.isfinite(item):
                return False
        elif isinstance(item, Mapping):
            stack.extend(item.values())
    return True
