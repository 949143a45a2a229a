"""Run the Nika conformance suite's static fixtures against this engine (runner-protocol.md).

    python scripts/conformance.py SUITE [--spec-commit SHA] [--verbose]

SUITE is a nika-spec checkout's `conformance/tests` (or any directory of fixtures). A fixture
is a directory holding `input.yaml` and `expected.json`; the engine's verdict is what
`nika check --json` prints, judged by the protocol's matching rule: `valid: true` passes on a
valid verdict with no errors; `valid: false` on a refused verdict where every expected entry
matches an emitted error (by `code`, else by `namespace` — an emitted code's prefix or its
namespace —, else by `category` alone). Fixtures are grouped by tier (their first directory
under SUITE: `core`, `deep`, `stdlib`, …); a tier line, then `conformance: P/T passed`.

The claim line of spec 07 §claiming conformance — « Nika v1 Conformant — <Level> (spec
<commit>) » — is printed only when the whole suite passed (no fixture failed) and the spec
commit is named: by --spec-commit, or by SUITE being inside a git checkout. Level: `Core`
when the `core` tier passed, `Stdlib v0.1` when `stdlib` did too. Exit 0 when every fixture
passed, 1 otherwise, 2 on bad arguments.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nika.check import check


def fixtures(suite: Path) -> list[Path]:
    """Every static fixture directory under `suite`, sorted."""
    return sorted(p.parent for p in suite.rglob("expected.json")
                  if (p.parent / "input.yaml").is_file())


def matches(entry: Mapping[str, Any], emitted: list[Mapping[str, Any]]) -> bool:
    """The protocol's matching rule for one expected entry."""
    if "code" in entry:
        return any(e.get("code") == entry["code"] for e in emitted)
    if "namespace" in entry:
        ns = entry["namespace"]
        return any(str(e.get("code", "")).startswith(f"{ns}-") or e.get("namespace") == ns
                   for e in emitted)
    if "category" in entry:
        return any(e.get("category") == entry["category"] for e in emitted)
    return False


def judge(fixture: Path) -> str | None:
    """None when `fixture` passes, else why not."""
    expected = json.loads((fixture / "expected.json").read_text(encoding="utf-8"))
    source = fixture / "input.yaml"
    verdict = json.loads(check(source.read_bytes(), path=str(source)).to_json())
    emitted = verdict.get("errors", [])
    if expected.get("valid"):
        if verdict["valid"] and not emitted:
            return None
        return f"expected valid, got {[e.get('code') for e in emitted]}"
    if verdict["valid"]:
        return "expected refused, got valid"
    missing = [e for e in expected.get("errors", []) if not matches(e, emitted)]
    if not missing:
        return None
    return f"no emitted error matches {missing} (emitted {[e.get('code') for e in emitted]})"


def spec_commit(suite: Path) -> str | None:
    """The commit of the git checkout holding `suite`, if it is one."""
    try:
        done = subprocess.run(["git", "-C", str(suite), "rev-parse", "HEAD"],
                              capture_output=True, text=True, timeout=10, check=False)
    except OSError:
        return None
    head = done.stdout.strip()
    return head if done.returncode == 0 and head else None


def main(argv: list[str]) -> int:
    args = argv[1:]
    verbose = "--verbose" in args
    args = [a for a in args if a != "--verbose"]
    commit: str | None = None
    if "--spec-commit" in args:
        at = args.index("--spec-commit")
        if at + 1 >= len(args):
            print("conformance: --spec-commit needs a commit", file=sys.stderr)
            return 2
        commit = args[at + 1]
        del args[at:at + 2]
    if len(args) != 1 or not Path(args[0]).is_dir():
        print("usage: python scripts/conformance.py SUITE [--spec-commit SHA] [--verbose] "
              "(SUITE: a nika-spec checkout's conformance/tests)", file=sys.stderr)
        return 2
    suite = Path(args[0]).resolve()
    found = fixtures(suite)
    if not found:
        print(f"conformance: no fixture (input.yaml + expected.json) under {suite}",
              file=sys.stderr)
        return 2
    passed: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for fixture in found:
        tier = fixture.relative_to(suite).parts[0]
        total[tier] += 1
        why = judge(fixture)
        if why is None:
            passed[tier] += 1
            if verbose:
                print(f"PASS {fixture.relative_to(suite)}")
        else:
            print(f"FAIL {fixture.relative_to(suite)}: {why}")
    for tier in sorted(total):
        print(f"{tier:<8} {passed[tier]}/{total[tier]}")
    ok, all_ = sum(passed.values()), sum(total.values())
    print(f"conformance: {ok}/{all_} passed")
    commit = commit or spec_commit(suite)
    if ok == all_ and commit is not None and "core" in total:
        level = "Stdlib v0.1" if "stdlib" in total else "Core"
        print(f"Nika v1 Conformant — {level} (spec {commit})")
    return 0 if ok == all_ else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
