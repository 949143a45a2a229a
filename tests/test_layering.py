"""Dependencies point down: every `nika` import, read statically from the source with `ast`.

The layers, bottom to top, and what each may import besides itself:

| layer     | modules                                     | may import                      |
|-----------|---------------------------------------------|---------------------------------|
| bottom    | errors, codes, canonical, masking, backoff, | bottom                          |
|           | analyzer, bm25, netfloor, prices, energy,   |                                 |
|           | _gc, _term                                  |                                 |
| syntax    | nika.syntax.* (incl. the provider catalog)  | bottom                          |
| check     | nika.check.*                                | bottom, syntax                  |
| agent     | nika.agent.*                                | bottom, syntax, check (compose) |
| providers | nika.providers.*                            | bottom, syntax, agent (seams)   |
| tools     | nika.tools.*                                | bottom, syntax, check, agent    |
| runtime   | nika.runtime.*                              | all of the above                |
| telemetry | nika.telemetry.* (renders run/agent events) | all of the above and runtime    |
| cli       | nika.cli                                    | everything below                |
| facade    | nika (the package `__init__`)               | everything below                |

`providers` and `tools` are siblings: neither imports the other. `check` in particular never
imports agent, providers, runtime or tools. The one sanctioned upward edge is the version
constant: `from nika import __version__` (journal headers, telemetry resource, `--version`).
Imports under `if TYPE_CHECKING:` and inside functions count like any other: mypy reads
them, and a deferred import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Final

import nika

SRC: Final = Path(nika.__file__).resolve().parent

BOTTOM: Final = frozenset(
    {"errors", "codes", "canonical", "masking", "backoff", "analyzer", "bm25", "netfloor",
     "prices", "energy", "_gc", "_term"}
)

ALLOWED: Final[dict[str, frozenset[str]]] = {
    "bottom": frozenset({"bottom"}),
    "syntax": frozenset({"bottom", "syntax"}),
    "check": frozenset({"bottom", "syntax", "check"}),
    "agent": frozenset({"bottom", "syntax", "check", "agent"}),
    "providers": frozenset({"bottom", "syntax", "agent", "providers"}),
    "tools": frozenset({"bottom", "syntax", "check", "agent", "tools"}),
    "runtime": frozenset({"bottom", "syntax", "check", "agent", "providers", "tools", "runtime"}),
    "telemetry": frozenset(
        {"bottom", "syntax", "check", "agent", "providers", "tools", "runtime", "telemetry"}
    ),
    "cli": frozenset(
        {"bottom", "syntax", "check", "agent", "providers", "tools", "runtime", "telemetry", "cli"}
    ),
    "facade": frozenset(
        {"bottom", "syntax", "check", "agent", "providers", "tools", "runtime", "telemetry", "cli"}
    ),
}


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


def imported(tree: ast.AST, module: str, is_package: bool) -> list[tuple[int, str]]:
    """Every `nika…` name the tree imports, with its line, relative imports resolved."""
    out: list[tuple[int, str]] = []
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


def test_the_provider_catalog_is_language_data_below_check() -> None:
    assert layer_of("nika.syntax.providers") == "syntax"
    assert not (SRC / "providers" / "catalog.py").exists()


def test_an_upward_import_is_caught_in_every_spelling() -> None:
    cases = {
        "from nika.providers.catalog import parse_model\n": "check → providers",
        "import nika.agent.seams\n": "check → agent",
        "from nika import runtime\n": "check → runtime",
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
    assert violations("from nika import __version__\n", "nika.runtime.journal") == []
    assert violations("from nika.tools import mcp\n", "nika.providers.mock") != []
    assert violations("from nika.providers import mock\n", "nika.tools.mcp") != []
    assert violations("from nika.telemetry import otel\n", "nika.runtime.runner") != []
    assert violations("from . import loader\n", "nika.syntax", is_package=True) == []
