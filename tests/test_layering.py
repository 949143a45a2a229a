"""Dependencies point down: every `nika` import, read statically from the source with `ast`.

The layers, bottom to top, and what each may import besides itself:

| layer     | modules                                     | may import                      |
|-----------|---------------------------------------------|---------------------------------|
| bottom    | errors, codes, canonical, masking, backoff, | bottom                          |
|           | analyzer, bm25, netfloor, prices, energy,   |                                 |
|           | _gc, _term, packaged, guarded_read          |                                 |
| syntax    | nika.syntax.* (incl. the provider catalog)  | bottom                          |
| stdlib    | nika.stdlib.* (the builtins' declarations)  | bottom, syntax                  |
| decide    | nika.decide.* (the spec-11 kernel)          | bottom, syntax                  |
| media     | nika.media.* (asset writes, PNG, SVG)       | bottom, syntax                  |
| check     | nika.check.*                                | bottom, syntax, stdlib, decide, |
|           |                                             | media                           |
| agent     | nika.agent.*                                | bottom, syntax, stdlib, check   |
| providers | nika.providers.*                            | bottom, syntax, agent (seams)   |
| tools     | nika.tools.*                                | bottom, syntax, stdlib, check,  |
|           |                                             | agent, media                    |
| journal   | nika.journal.* (the spec-17 record, proofs) | all of the above ("below run")  |
| run       | nika.run.* (scheduling, verbs, Ray)         | below run, journal              |
| view      | nika.view.* (what a person reads)           | below run, journal              |
| telemetry | nika.telemetry.* (OpenTelemetry sink)       | below run, journal              |
| serve     | nika.serve.* (the language and MCP     | below run, journal, run         |
|           | servers, `inspect`, `schema`)               |                                 |
| cli       | nika.cli                                    | everything above                |
| warm      | nika.serve.* (the `nika` entry: the warm     | everything above                |
|           | check client, its server)                   |                                 |
| facade    | nika (the package `__init__`)               | below run, journal, run,        |
|           |                                             | telemetry, cli                  |

So `run → journal ← view`: the run writes the record, a view reads it, and neither imports the
other; only `cli` and `warm` import a view (the CLI assembles a run's views and hands them to
`run.launch`). `serve` sits below `cli` (the CLI dispatches `nika lsp`, `nika mcp`, `nika
inspect` to it); `warm` is the one room above `cli`: its server answers a check with `cli.main`.
`telemetry` is a sink over journal data like a view, wired by the CLI too.

`providers` and `tools` are siblings: neither imports the other. `check` in particular never
imports agent, providers, run or tools; it reads each builtin's argument contract from
`stdlib`, the same declarations the executor in `tools` judges calls by. The one sanctioned
upward edge is the version constant: `from nika import __version__` (journal headers,
telemetry resource, `--version`). Imports under `if TYPE_CHECKING:` and inside functions
count like any other: mypy reads them, and a deferred import is still a dependency. So does
`importlib.import_module`: a literal name is read where it stands; a computed one (the check
ladder's `RUNGS`, the facade's lazy `_HOMES`) must name, in `COMPUTED` below, the constant
table it loads from, and every module in that table is an edge of the caller.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

import pytest

import nika

SRC: Final = Path(nika.__file__).resolve().parent

BOTTOM: Final = frozenset(
    {"errors", "codes", "canonical", "masking", "backoff", "analyzer", "bm25", "netfloor",
     "prices", "energy", "_gc", "_term", "packaged",
     "guarded_read"}
)

_BELOW_RUN: Final = frozenset(
    {"bottom", "syntax", "stdlib", "decide", "media", "check", "agent", "providers", "tools"}
)

ALLOWED: Final[dict[str, frozenset[str]]] = {
    "bottom": frozenset({"bottom"}),
    "syntax": frozenset({"bottom", "syntax"}),
    "stdlib": frozenset({"bottom", "syntax", "stdlib"}),
    "decide": frozenset({"bottom", "syntax", "decide"}),
    "media": frozenset({"bottom", "syntax", "media"}),
    "check": frozenset({"bottom", "syntax", "stdlib", "decide", "media", "check"}),
    "agent": frozenset({"bottom", "syntax", "stdlib", "check", "agent"}),
    "providers": frozenset({"bottom", "syntax", "agent", "providers"}),
    "tools": frozenset(
        {"bottom", "syntax", "stdlib", "decide", "check", "agent", "media", "tools"}
    ),
    "journal": _BELOW_RUN | {"journal"},
    "run": _BELOW_RUN | {"journal", "run"},
    "view": _BELOW_RUN | {"journal", "view"},
    "telemetry": _BELOW_RUN | {"journal", "telemetry"},
    "serve": _BELOW_RUN | {"journal", "run", "serve"},
    "cli": _BELOW_RUN | {"journal", "run", "view", "telemetry", "serve", "cli"},
    "warm": _BELOW_RUN | {"journal", "run", "view", "telemetry", "serve", "cli", "warm"},
    "facade": _BELOW_RUN | {"journal", "run", "telemetry", "cli"},
}


COMPUTED: Final[dict[str, tuple[str, str]]] = {
    "nika": ("nika", "_HOMES"),  # the facade's lazy re-exports (PEP 562)
    "nika.check": ("nika.check", "RUNGS"),  # the ladder, one module per rung
    "nika.stdlib": ("nika.stdlib", "FAMILIES"),  # a builtin's family, loaded when looked up
    "nika.agent.compose": ("nika.check", "RUNGS"),  # warms the checker up, rung by rung
}
"""Each module that calls `import_module` with a computed name → (module, constant) holding
the names it may load: a tuple of module names, or a dict keyed by them."""


def layer_of(module: str) -> str:
    """The layer of a dotted `nika…` module name; a name outside every layer is an error."""
    parts = module.split(".")
    assert parts[0] == "nika", module
    if len(parts) == 1:
        return "facade"
    head = parts[1]
    if head in BOTTOM:
        return "bottom"
    if head in ALLOWED:
        return head
    raise AssertionError(f"module {module!r} belongs to no layer; place it in the matrix above")


def module_name(file: Path) -> str:
    rel = file.relative_to(SRC.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def source_of(module: str) -> str:
    """The source text of a `nika…` module."""
    base = SRC.parent.joinpath(*module.split("."))
    file = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
    return file.read_text(encoding="utf-8")


def table(tree: ast.Module, name: str) -> list[str]:
    """The strings of the module-level constant `name`: a tuple or list, or a dict's keys."""
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == name for t in targets):
            assert node.value is not None
            value = ast.literal_eval(node.value)
            assert all(isinstance(v, str) for v in value), name
            return list(value)
    raise AssertionError(f"no module-level constant {name!r} to read dynamic imports from")


def _is_import_module(func: ast.expr) -> bool:
    if isinstance(func, ast.Attribute):  # importlib.import_module(…)
        return func.attr == "import_module" and isinstance(func.value, ast.Name) \
            and func.value.id == "importlib"
    return isinstance(func, ast.Name) and func.id == "import_module"  # from importlib import …


def loaded(tree: ast.Module, module: str) -> list[tuple[int, str]]:
    """Every name the tree loads through `import_module`, with its line: a literal as it
    stands, a computed name as every entry of the table `COMPUTED` names for the module."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and _is_import_module(node.func)):
            continue
        arg = node.args[0] if node.args else None
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            out.append((node.lineno, arg.value))
            continue
        assert module in COMPUTED, (
            f"{module}:{node.lineno} imports a computed name: add the constant table it loads "
            "from to COMPUTED, so its edges are checked"
        )
        owner, name = COMPUTED[module]
        names = table(tree if owner == module else ast.parse(source_of(owner)), name)
        out.extend((node.lineno, target) for target in names)
    return out


def imported(tree: ast.Module, module: str, is_package: bool) -> list[tuple[int, str]]:
    """Every `nika…` name the tree imports, with its line, relative imports resolved, and
    every `nika…` module it loads by name (`loaded`)."""
    out: list[tuple[int, str]] = loaded(tree, module)
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, base] if base else anchor)
            if base == "nika":
                # `from nika import x`: x may be a subpackage or a facade attribute.
                out.extend((node.lineno, f"nika.{a.name}") for a in node.names)
            else:
                out.append((node.lineno, base))
    return [(line, name) for line, name in out if name == "nika" or name.startswith("nika.")]


def violations(source: str, module: str, *, is_package: bool = False) -> list[str]:
    """`module:line imports target (layer → layer)` for every import the matrix forbids."""
    mine = layer_of(module)
    found: list[str] = []
    for line, target in imported(ast.parse(source), module, is_package):
        if target == "nika.__version__":
            continue  # the sanctioned version constant
        head = target.split(".")[1] if "." in target else ""
        is_module = (SRC / head).is_dir() or (SRC / f"{head}.py").is_file()
        theirs = layer_of(target) if is_module else "facade"  # `from nika import check`
        if theirs not in ALLOWED[mine]:
            found.append(f"{module}:{line} imports {target} ({mine} → {theirs})")
    return found


def test_no_import_in_src_points_up() -> None:
    files = sorted(SRC.rglob("*.py"))
    assert len(files) > 50  # the walk really sees the package
    found: list[str] = []
    for file in files:
        found += violations(
            file.read_text(encoding="utf-8"),
            module_name(file),
            is_package=file.name == "__init__.py",
        )
    assert found == [], "upward imports:\n" + "\n".join(found)


def test_the_builtin_declarations_sit_below_check_and_tools() -> None:
    assert violations("from nika.stdlib import DECLARATIONS\n", "nika.check.builtins") == []
    assert violations("from nika.stdlib.net import FETCH\n", "nika.tools.builtins.fetch") == []
    assert violations("from nika.check import check\n", "nika.stdlib.core") != []
    assert violations("from nika.tools import builtins\n", "nika.stdlib.core") != []


def test_the_provider_catalog_is_language_data_below_check() -> None:
    assert layer_of("nika.syntax.providers") == "syntax"
    assert not (SRC / "providers" / "catalog.py").exists()


def test_an_upward_import_is_caught_in_every_spelling() -> None:
    cases = {
        "from nika.providers.catalog import parse_model\n": "check → providers",
        "import nika.agent.seams\n": "check → agent",
        "from nika import run\n": "check → run",
        "from nika import NikaError\n": "check → facade",
        "from ..tools import mcp\n": "check → tools",
        "def f():\n    from nika.agent import compose\n": "check → agent",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import nika.cli\n": (
            "check → cli"
        ),
    }
    for source, arrow in cases.items():
        found = violations(source, "nika.check.models")
        assert len(found) == 1 and arrow in found[0], (source, found)


def test_downward_and_sibling_rules_hold_both_ways() -> None:
    assert violations("from nika.check import check\n", "nika.agent.compose") == []
    assert violations("from nika.agent.seams import Provider\n", "nika.providers") == []
    assert violations("from nika import __version__\n", "nika.journal.writer") == []
    assert violations("from nika.tools import mcp\n", "nika.providers.mock") != []
    assert violations("from nika.providers import mock\n", "nika.tools.mcp") != []
    assert violations("from nika.telemetry import otel\n", "nika.run.runner") != []
    assert violations("from . import loader\n", "nika.syntax", is_package=True) == []


def _targets(module: str) -> set[str]:
    is_package = (SRC.parent.joinpath(*module.split(".")) / "__init__.py").is_file()
    return {t for _, t in imported(ast.parse(source_of(module)), module, is_package)}


def test_modules_loaded_by_name_are_edges_of_their_caller() -> None:
    from nika.check import RUNGS

    assert len(RUNGS) > 5 and set(RUNGS) <= _targets("nika.check")
    assert set(RUNGS) <= _targets("nika.agent.compose")
    assert {"nika.agent", "nika.check", "nika.errors", "nika.providers"} <= _targets("nika")


def test_every_computed_import_names_its_table_and_no_table_is_stale() -> None:
    computed = set()
    for file in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and _is_import_module(node.func) and not (
                node.args and isinstance(node.args[0], ast.Constant)
            ):
                computed.add(module_name(file))
    assert computed == set(COMPUTED)


def test_an_upward_import_by_name_is_caught() -> None:
    rungs = (
        "import importlib\n"
        'RUNGS = ("nika.check.models", "nika.run.runner")\n'
        "def _rung(name):\n"
        "    return importlib.import_module(name)\n"
    )
    [found] = violations(rungs, "nika.check", is_package=True)
    assert found == "nika.check:4 imports nika.run.runner (check → run)"
    literal = "from importlib import import_module\nimport_module('nika.tools.mcp')\n"
    [found] = violations(literal, "nika.check.models")
    assert "check → tools" in found
    unnamed = "import importlib\ndef load(name):\n    return importlib.import_module(name)\n"
    with pytest.raises(AssertionError, match="add the constant table"):
        violations(unnamed, "nika.check.dag")


def test_the_run_and_its_views_meet_only_in_the_journal() -> None:
    assert violations("from nika.journal.bus import RunEvent\n", "nika.view.progress") == []
    assert violations("from nika.journal.frames import Frame\n", "nika.run.runner") == []
    assert "view → run" in violations("from nika.run.runner import Runner\n", "nika.view.report")[0]
    assert "run → view" in violations("from nika.view.progress import ProgressSink\n",
                                      "nika.run.launch")[0]
    assert "journal → run" in violations("from nika.run import launch\n", "nika.journal.resume")[0]
    assert "telemetry → run" in violations("import nika.run.runner\n", "nika.telemetry.otel")[0]
    assert violations("from nika.view.console import Console\n", "nika.cli") == []
    assert violations("from nika.view import trace_html\n", "nika.warm.server") == []


def test_the_kernels_sit_below_check_and_tools() -> None:
    assert "decide" in ALLOWED["check"] and "check" not in ALLOWED["decide"]
    assert violations("from nika.media import assets\n", "nika.tools.builtins.image_fx") == []
    assert violations("from nika.media import assets\n", "nika.check.builtins") == []
    assert "media → tools" in violations("from nika.tools import mcp\n", "nika.media.png")[0]
