"""The Ray executor (`nika run --executor ray`, the `nika-engine[ray]` extra): verb attempts run on
a Ray cluster's workers while this process keeps the scheduler, the journal and the report.

`ray` is imported only when a run asks for this executor; `import nika` and `nika check`
never load it. The modules: `config` (NIKA_RAY_* engine configuration), `driver` (the
`Placement` that ships attempts and replays their frames), `worker` (the Ray task body),
`sealing` (secrets cross the wire as names), `faults` (Ray's failures → codes; who owns
retries), `reaper` (a run-started local instance dies whole with the driver) and `keeper`
(an exec body on a worker dies with the worker).
"""

from __future__ import annotations

from nika.run.cluster.config import RayConfig
from nika.run.cluster.driver import RayPlacement, RaySession, ray_placement

__all__ = ["RayConfig", "RayPlacement", "RaySession", "ray_placement"]
