"""The Ray executor's engine configuration: where the cluster is, what each verb asks of a
node, how soon a silent cluster counts as lost. Never YAML: the same workflow file runs on a
laptop and on a cluster.

    NIKA_RAY_ADDRESS      the cluster (`ray://host:10001`, `host:6379`, `auto`); unset: the
                          run starts a local Ray instance and shuts it down at the end
    NIKA_RAY_RESOURCES    JSON, per verb: {"agent": {"num_gpus": 1},
                          "exec": {"num_cpus": 0.5, "resources": {"audit": 1}}}
    NIKA_RAY_LOST_AFTER   seconds without an answer from the cluster before the run ends
                          with NIKA-CLUSTER-002 (default 10)
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, get_args

from nika import codes
from nika.errors import NikaError
from nika.syntax.model import Verb

VERBS: Final = tuple(sorted(get_args(Verb)))
"""The verbs a resource hint may name: the language's four."""
_HINT_KEYS: Final = frozenset({"num_cpus", "num_gpus", "memory", "resources"})
DEFAULT_LOST_AFTER: Final = 10.0


@dataclass(frozen=True, slots=True)
class RayConfig:
    """`address` None starts a local instance; `resources` maps a verb to Ray task options
    (`num_cpus`, `num_gpus`, `memory`, `resources`); `lost_after` bounds the wait on a
    cluster that stopped answering."""

    address: str | None = None
    resources: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    lost_after: float = DEFAULT_LOST_AFTER

    @classmethod
    def from_env(cls, environ: Mapping[str, str], address: str | None = None) -> RayConfig:
        """The configuration from `--ray-address` (wins) and the NIKA_RAY_* variables."""
        return cls(
            address=address or environ.get("NIKA_RAY_ADDRESS") or None,
            resources=parse_resources(environ.get("NIKA_RAY_RESOURCES", "")),
            lost_after=_seconds(environ.get("NIKA_RAY_LOST_AFTER", "")),
        )

    def options(self, verb: str) -> dict[str, Any]:
        """The Ray task options for one verb attempt (a copy: Ray may keep it)."""
        hints = self.resources.get(verb, {})
        out = {k: v for k, v in hints.items() if k != "resources"}
        if "resources" in hints:
            out["resources"] = dict(hints["resources"])
        return out


def _refuse(detail: str, **details: Any) -> NikaError:
    return NikaError(codes.CLUSTER_003, detail, details=details)


def _seconds(text: str) -> float:
    if not text.strip():
        return DEFAULT_LOST_AFTER
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise _refuse(f"NIKA_RAY_LOST_AFTER={text!r} is not a positive number of seconds; "
                      "set it like NIKA_RAY_LOST_AFTER=10", variable="NIKA_RAY_LOST_AFTER")
    return value


def _amount(verb: str, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise _refuse(f"NIKA_RAY_RESOURCES: {verb}.{key} is {value!r}, not a non-negative "
                      f"number; write e.g. {{\"{verb}\": {{\"num_cpus\": 1}}}}",
                      variable="NIKA_RAY_RESOURCES", verb=verb, key=key)
    return float(value) if isinstance(value, float) else value


def parse_resources(text: str) -> dict[str, dict[str, Any]]:
    """Parse NIKA_RAY_RESOURCES; every refusal is `NIKA-CLUSTER-003` naming the fix."""
    if not text.strip():
        return {}
    try:
        raw = json.loads(text)
    except ValueError as exc:
        raise _refuse(f"NIKA_RAY_RESOURCES is not JSON ({exc}); write e.g. "
                      '{"agent": {"num_gpus": 1}}', variable="NIKA_RAY_RESOURCES") from None
    if not isinstance(raw, dict):
        raise _refuse("NIKA_RAY_RESOURCES must be a JSON object keyed by verb "
                      f"({', '.join(VERBS)})", variable="NIKA_RAY_RESOURCES")
    out: dict[str, dict[str, Any]] = {}
    for verb, hints in raw.items():
        if verb not in VERBS:
            raise _refuse(f"NIKA_RAY_RESOURCES names {verb!r}, which is no verb; use one of "
                          f"{', '.join(VERBS)}", variable="NIKA_RAY_RESOURCES", verb=verb)
        if not isinstance(hints, dict) or not set(hints) <= _HINT_KEYS:
            extra = sorted(set(hints) - _HINT_KEYS) if isinstance(hints, dict) else hints
            raise _refuse(f"NIKA_RAY_RESOURCES.{verb}: {extra!r} is not a resource hint; use "
                          f"{', '.join(sorted(_HINT_KEYS))}", variable="NIKA_RAY_RESOURCES",
                          verb=verb)
        parsed: dict[str, Any] = {k: _amount(verb, k, v) for k, v in hints.items()
                                  if k != "resources"}
        custom = hints.get("resources", {})
        if not isinstance(custom, dict):
            raise _refuse(f"NIKA_RAY_RESOURCES.{verb}.resources must map resource names to "
                          'amounts, e.g. {"audit": 1}', variable="NIKA_RAY_RESOURCES", verb=verb)
        if custom:
            parsed["resources"] = {str(k): _amount(verb, str(k), v) for k, v in custom.items()}
        out[verb] = parsed
    return out
