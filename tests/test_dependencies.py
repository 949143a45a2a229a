"""Every import is declared: what `src/`, `tests/` and `bench/` import, `pyproject.toml` names.

Each third-party module named by an `import` (read statically with `ast`, wherever it sits:
module level, a function, `TYPE_CHECKING`) maps to the distribution that installs it
(`importlib.metadata`), and that distribution must be declared where the importing file can
count on it:

- `src/`: the core `dependencies`, or the extra that guards the importing module. A guarded
  module (`GUARDED`) is one the rest of nika imports only inside a function, so a core install
  never loads it; this test checks that too.
- `tests/`: the core, `dev`, and the extras `make test` installs (read from the Makefile).
- `bench/`: the same plus the extras `make bench` installs.

A module that is not installed here is taken to come from the distribution of its own name.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from functools import cache
from importlib.metadata import PackageNotFoundError, distribution, packages_distributions
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parent.parent
PROJECT: Final = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

GUARDED: Final[dict[str, str]] = {
    "nika.agent.embed": "embed",
    "nika.run.cluster": "ray",
    "nika.telemetry": "otel",
}
"""Modules (and packages, with everything under them) an extra guards → that extra."""


def canonical(name: str) -> str:
    """A distribution name as PEP 503 compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_names(requirements: list[str]) -> frozenset[str]:
    return frozenset(canonical(re.split(r"[\s\[<>=!~;]", r, maxsplit=1)[0]) for r in requirements)


CORE: Final = requirement_names(PROJECT["dependencies"])
EXTRAS: Final = {
    extra: requirement_names(reqs) for extra, reqs in PROJECT["optional-dependencies"].items()
}


def make_extras(target: str) -> frozenset[str]:
    """The extras a Makefile rule installs (`pip install -e '.[a,b]'` in its recipe)."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe is not None, f"no `{target}:` rule in the Makefile"
    found = re.findall(r"-e '\.\[([\w,-]+)\]'", recipe.group(1))
    assert found, f"the `{target}:` rule installs no extras"
    return frozenset(extra for group in found for extra in group.split(","))


def imports(file: Path) -> Iterator[tuple[int, str, bool]]:
    """Every absolute import of `file`: (line, dotted module, inside a function body)."""
    tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))

    def walk(node: ast.AST, lazy: bool) -> Iterator[tuple[int, str, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                yield from ((child.lineno, alias.name, lazy) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                # `from pkg import sub` may name a submodule: the finer name resolves first.
                for alias in child.names:
                    yield child.lineno, f"{child.module}.{alias.name}", lazy
            is_function = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            yield from walk(child, lazy or is_function)

    yield from walk(tree, False)


@cache
def distribution_of(module: str) -> str | None:
    """The installed distribution providing `module` (a namespace package's top name can map
    to several: the one whose files hold the module wins), or None when nothing installed has
    it."""
    owners = packages_distributions().get(module.split(".")[0], [])
    if len(owners) <= 1:
        return canonical(owners[0]) if owners else None
    parts = module.split(".")
    for depth in range(len(parts), 1, -1):
        stem = "/".join(parts[:depth])
        for owner in owners:
            files = {str(f) for f in distribution(owner).files or ()}
            if f"{stem}.py" in files or f"{stem}/__init__.py" in files:
                return canonical(owner)
    return None


def third_party(file: Path, local: frozenset[str]) -> Iterator[tuple[int, str, str]]:
    """(line, top module, distribution) for each import of `file` from outside the stdlib and
    the project; an uninstalled module is taken to be its own distribution."""
    for line, module, _ in imports(file):
        top = module.split(".")[0]
        if top in sys.stdlib_module_names or top in local:
            continue
        dist = distribution_of(module) or distribution_of(module.rsplit(".", 1)[0])
        yield line, top, dist or canonical(top)


def module_name(file: Path) -> str:
    rel = file.relative_to(ROOT / "src").with_suffix("")
    return ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)


def guard_of(module: str) -> str | None:
    for home, extra in GUARDED.items():
        if module == home or module.startswith(home + "."):
            return extra
    return None


def undeclared(files: list[Path], allowed_for: dict[Path, frozenset[str]], local: frozenset[str]
               ) -> list[str]:
    problems = []
    for file in files:
        for line, top, dist in third_party(file, local):
            if dist not in allowed_for[file]:
                shown = file.relative_to(ROOT) if file.is_relative_to(ROOT) else file
                problems.append(f"{shown}:{line}: `{top}` ({dist})")
    return sorted(set(problems))


SRC_FILES: Final = sorted((ROOT / "src").rglob("*.py"))


def test_every_import_under_src_is_declared_in_core_or_its_guarding_extra() -> None:
    allowed = {}
    for file in SRC_FILES:
        extra = guard_of(module_name(file))
        allowed[file] = CORE | EXTRAS[extra] if extra else CORE
    problems = undeclared(SRC_FILES, allowed, frozenset({"nika"}))
    assert problems == [], "imported but not declared in pyproject.toml:\n" + "\n".join(problems)


def test_guarded_modules_are_imported_only_lazily_from_the_rest_of_nika() -> None:
    eager = []
    for file in SRC_FILES:
        here = module_name(file)
        for line, module, lazy in imports(file):
            extra = guard_of(module)
            if extra and not lazy and guard_of(here) != extra:
                eager.append(f"{file.relative_to(ROOT)}:{line} imports {module} at module level")
    assert eager == [], "\n".join(eager)


@pytest.mark.parametrize(("folder", "rule"), [("tests", "$(VENV)/.installed-dev"),
                                              ("bench", "bench")])
def test_every_import_of_the_tests_and_benches_is_declared(folder: str, rule: str) -> None:
    files = sorted((ROOT / folder).rglob("*.py"))
    local = frozenset({"nika", "tests", *(f.stem for f in files)})
    extras = make_extras(rule)
    unknown = extras - EXTRAS.keys()
    assert not unknown, f"the Makefile installs extras pyproject.toml lacks: {sorted(unknown)}"
    reachable = CORE.union(*(EXTRAS[e] for e in extras))
    problems = undeclared(files, dict.fromkeys(files, reachable), local)
    assert problems == [], f"the Makefile's `{rule}` installs none of:\n" + "\n".join(problems)


@pytest.mark.parametrize("dist", sorted(CORE))
def test_every_core_dependency_is_imported(dist: str) -> None:
    """A declared dependency nothing imports is dead weight on every install."""
    used = {d for file in SRC_FILES for _, _, d in third_party(file, frozenset({"nika"}))}
    assert dist in used, f"{dist} is declared in `dependencies` but src/ never imports it"


def test_the_checker_notices_an_undeclared_import(tmp_path: Path) -> None:
    probe = tmp_path / "probe.py"
    probe.write_text("import json\n\ndef f():\n    import ruamel.yaml\n    import yaml\n")
    assert [(line, top) for line, top, _ in third_party(probe, frozenset())] == [
        (4, "ruamel"), (5, "yaml")
    ]
    problems = undeclared([probe], {probe: CORE}, frozenset())
    assert len(problems) == 1 and "`ruamel`" in problems[0]


def test_a_namespace_package_resolves_to_the_distribution_holding_the_module() -> None:
    try:
        distribution("opentelemetry-sdk")
    except PackageNotFoundError:  # pragma: no cover - the dev install has it
        pytest.fail("the dev install lacks opentelemetry-sdk")
    assert distribution_of("opentelemetry.trace") == "opentelemetry-api"
    assert distribution_of("opentelemetry.sdk.trace") == "opentelemetry-sdk"


def test_the_agent_library_loads_no_cli_only_or_per_feature_dependency() -> None:
    """An embedder's `import nika.agent` pays for the loop (numpy and the stemmer for the router)
    and nothing of the CLI (argparse, rich), the SDKs or a per-task feature (jsonschema for
    `schema:`, YAML)."""
    probe = "import json, sys\nimport nika.agent\nprint(json.dumps(sorted(sys.modules)))\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=60).stdout
    loaded = {m.split(".")[0] for m in json.loads(out)}
    assert "numpy" in loaded  # the probe really imported the loop
    unwanted = {"argparse", "rich", "jsonschema", "yaml", "openai", "anthropic", "mcp", "httpx2"}
    assert sorted(loaded & unwanted) == []
