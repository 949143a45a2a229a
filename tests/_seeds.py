"""One script run in fresh interpreters under several `PYTHONHASHSEED`s, for the tests that a
ranking depends on no process or hash order."""

from __future__ import annotations

import os
import subprocess
import sys


def outputs_across_hash_seeds(script: str, seeds: tuple[str, ...] = ("0", "1", "4242")) -> set[str]:
    """The distinct standard outputs of `script` run once per seed (one when deterministic)."""
    return {
        subprocess.run(
            [sys.executable, "-c", script], env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True, text=True, check=True,
        ).stdout
        for seed in seeds
    }
