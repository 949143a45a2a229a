"""The stdlib's family table: each builtin's module, loaded only when it is looked up."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys

from nika.stdlib import DECLARATIONS, FAMILIES, NAMES


def test_the_family_table_is_each_modules_declarations() -> None:
    for module, names in FAMILIES.items():
        declared = importlib.import_module(module).DECLARATIONS
        assert sorted(d.name for d in declared) == sorted(names), module
    assert len(NAMES) == sum(len(names) for names in FAMILIES.values()) == 28
    assert list(DECLARATIONS) == sorted(NAMES) and len(DECLARATIONS) == 28
    assert all(DECLARATIONS[name].name == name for name in NAMES)


def test_a_check_loads_only_the_families_it_looks_up() -> None:
    probe = (
        "import sys\nfrom nika.check import check\n"
        "check('nika: t\\ntasks:\\n  a:\\n    infer: { prompt: hi }\\n')\n"
        "before = sorted(m for m in sys.modules if m.startswith('nika.stdlib.'))\n"
        "check('nika: t\\npermits: { tools: [\"nika:read\"], fs: { read: [\"**\"] } }\\n"
        "tasks:\\n  a:\\n    invoke: { tool: \"nika:read\", args: { path: x } }\\n')\n"
        "after = sorted(m for m in sys.modules if m.startswith('nika.stdlib.'))\n"
        "print(repr((before, after)))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("COVERAGE_")}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=120, env=env).stdout
    before, after = ast.literal_eval(out)
    assert before == []
    assert "nika.stdlib.files" in after  # the builtins rung's lookup, which effects reuse
    assert "nika.stdlib.net" not in after and "nika.stdlib.media" not in after
