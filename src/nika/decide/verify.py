"""`nika decide verify`: the bundle owners' check of a Decision Bundle (spec 11 §ownership).

Every law is judged (monotonicity over the bundle's own fixtures included); then each fixture
is evaluated and its class and outcome reported. Neither spec 11 nor the reference evaluator
maps a fixture class to an expected outcome, so none is asserted: the owners read the table.

A fixture is a flat map `{key: value}`; it is evaluated as the snapshot holding one item per
key — from the key's first declared source (`fixture` when it declares none), at exactly the
key's integrity floor, with the digest `fixture:<name>:<key>` — and no `t`. A fixture whose
values the schema refuses is reported with its `NIKA-DECIDE-002`, and fails the verification:
a bundle must be able to evaluate its own fixtures.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nika._term import printable
from nika.decide.bundle import Bundle, validate
from nika.decide.kernel import evaluate
from nika.errors import NikaError


@dataclass(frozen=True, slots=True)
class FixtureRun:
    """One fixture's evaluation: its receipt's outcome, or the refusal of its snapshot."""

    name: str
    kind: str
    outcome: str | None
    refusal: NikaError | None = None


@dataclass(frozen=True, slots=True)
class Verification:
    """A bundle's verification: the refusal of its laws, or every fixture's run."""

    refusal: NikaError | None
    fixtures: tuple[FixtureRun, ...] = ()
    label: str = ""

    @property
    def ok(self) -> bool:
        """Every law holds and every fixture evaluates."""
        return self.refusal is None and all(f.refusal is None for f in self.fixtures)


def fixture_snapshot(bundle: Bundle, fixture: Mapping[str, Any]) -> dict[str, Any]:
    """The snapshot a fixture stands for (see the module docstring)."""
    schema = bundle.raw["evidence_schema"]
    items = []
    for key, value in fixture.get("evidence", {}).items():
        decl = schema.get(key, {})
        sources = decl.get("sources") if isinstance(decl, Mapping) else None
        items.append({
            "key": key, "value": value,
            "source": sources[0] if isinstance(sources, list) and sources else "fixture",
            "integrity": decl.get("integrity", "observed") if isinstance(decl, Mapping)
            else "observed",
            "digest": f"fixture:{fixture.get('name')}:{key}",
        })
    return {"evidence": items}


def verify(document: Any) -> Verification:
    """Judge `document` by every law, then evaluate each of its fixtures."""
    try:
        bundle = validate(document)
    except NikaError as err:
        return Verification(err)
    runs = []
    for fixture in bundle.raw["fixtures"]:
        name, kind = str(fixture.get("name", "?")), fixture["class"]
        try:
            receipt = evaluate(bundle, fixture_snapshot(bundle, fixture))
        except NikaError as err:
            runs.append(FixtureRun(name, kind, None, err))
            continue
        runs.append(FixtureRun(name, kind, receipt["outcome"]))
    manifest = bundle.raw["manifest"]
    return Verification(None, tuple(runs), f"{manifest['id']} {manifest['version']}")


def render(result: Verification, name: str) -> str:
    """The human report (document text escaped for the terminal)."""
    if result.refusal is not None:
        return (f"refused {printable(name)}: {result.refusal.code} — "
                f"{printable(result.refusal.detail)}\n")
    width = max((len(printable(f.name)) for f in result.fixtures), default=0)
    lines = []
    for run in result.fixtures:
        said = run.outcome if run.refusal is None else (
            f"refused {run.refusal.code} — {printable(run.refusal.detail)}")
        lines.append(f"  {run.kind:<13} {printable(run.name):<{width}}  {said}")
    failed = sum(f.refusal is not None for f in result.fixtures)
    head = (f"ok {printable(name)} · {printable(result.label)} · every law holds · "
            f"{len(result.fixtures)} fixtures evaluated" if failed == 0 else
            f"refused {printable(name)} · {printable(result.label)} · every law holds, but "
            f"{failed} of {len(result.fixtures)} fixtures cannot be evaluated")
    return "\n".join([head, *lines]) + "\n"
