"""Spell every error code in `src/nika` by its registry name (issue 18 · item 5).

    .venv/bin/python scripts/codes_codemod.py [FILE_OR_DIR ...]     (default: src/nika)

A string literal that is exactly a code, `"NIKA-DAG-004"`, becomes `codes.DAG_004`, and the
module gains `from nika import codes` (placed by ruff's import sorter). Prose keeps its codes:
docstrings, comments and f-string text name codes for a reader, and the guard test checks
that every code they name is registered. `nika/codes.py` itself, where the names are made,
is never rewritten. Then a module constant that only repeats a registry name
(`READ_001 = codes.BUILTIN_READ_001`) is retired and its reads say `codes.BUILTIN_READ_001`,
unless another module imports it; a statement the longer name pushes past the line limit is
re-broken by ruff's formatter. A constant naming a role (`SSRF_CODE`) stays.

Deterministic and idempotent: a second run changes nothing. It refuses (exit 1, file
untouched) a literal whose code has no registry row, and a module that already binds the
name `codes` to something else. `tests/test_codes.py` fails on any bare literal left in
`src/nika` and points here.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from nika.errors import CODE_RE

ROOT: Final = Path(__file__).resolve().parent.parent
PACKAGE: Final = ROOT / "src" / "nika"
REGISTRY: Final = PACKAGE / "codes.py"
IMPORT: Final = "from nika import codes"
REFERRERS: Final = ("src", "tests", "bench", "examples", "scripts")
RUFF_CONFIG: Final = ("--config", str(ROOT / "pyproject.toml"))  # the project's, for any file


def name_of(code: str) -> str:
    """The registry name of a code: `NIKA-BUILTIN-READ-001` -> `BUILTIN_READ_001`."""
    return code.removeprefix("NIKA-").replace("-", "_")


@dataclass(frozen=True, slots=True)
class Site:
    """One bare code literal: its 1-based line, its UTF-8 byte span, the code."""

    line: int
    start: int
    end_line: int
    end: int
    code: str


def _docstrings(tree: ast.AST) -> set[int]:
    """`id`s of the string nodes that are statements (docstrings and bare prose strings)."""
    return {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }


def literal_sites(source: str) -> list[Site]:
    """Every string literal of `source` that is exactly a code, outside prose and f-strings."""
    tree = ast.parse(source)
    prose = _docstrings(tree)
    in_fstring = {
        id(part)
        for node in ast.walk(tree)
        if isinstance(node, ast.JoinedStr)
        for part in ast.walk(node)
    }
    sites = [
        Site(node.lineno, node.col_offset, node.end_lineno or node.lineno,
             node.end_col_offset or 0, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and CODE_RE.fullmatch(node.value)
        and id(node) not in prose and id(node) not in in_fstring
    ]
    return sorted(sites, key=lambda s: (s.line, s.start))


def _bound_names(node: ast.AST) -> list[str]:
    """The names `node` binds in its scope (imports, assignments, parameters, definitions)."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [a.asname or a.name.split(".")[0] for a in node.names]
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    return []


def _is_our_import(node: ast.AST) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "nika" and node.level == 0 and any(
        a.name == "codes" and a.asname is None for a in node.names
    )


def _binds_codes(tree: ast.Module) -> str | None:
    """How the module binds the name `codes`: "ours" (`from nika import codes`), "other", None."""
    if any(_is_our_import(node) for node in tree.body):
        return "other" if "codes" in _own_bindings(tree, ours_too=False) else "ours"
    return "other" if "codes" in _own_bindings(tree) else None


_SCOPES: Final = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
                  ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _own_bindings(scope: ast.AST, *, ours_too: bool = True) -> set[str]:
    """The names bound directly in `scope` (a nested scope's names are its own)."""
    names: set[str] = set()
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        if ours_too or not _is_our_import(node):
            names.update(_bound_names(node))
        if isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            names.add(node.name)
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return names


def _runs_inside(scope: ast.AST, child: ast.AST) -> bool:
    """Whether `child` of `scope` runs in its namespace: a def's defaults, annotations and
    decorators (a class's bases) run in the enclosing one."""
    if isinstance(scope, ast.Lambda):
        return child is scope.body
    if isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return any(child is stmt for stmt in scope.body)
    return True  # a comprehension


def _shadowed_at(tree: ast.Module) -> set[int]:
    """`id`s of the nodes where `codes` would not mean the module's import: an enclosing
    function, lambda or comprehension binds it, or the class body the node sits in does."""
    parent = {id(c): p for p in ast.walk(tree) for c in ast.iter_child_nodes(p)}
    binders = {id(s) for s in ast.walk(tree) if isinstance(s, _SCOPES)
               and "codes" in _own_bindings(s)}
    shadowed: set[int] = set()
    for node in ast.walk(tree):
        child, up, innermost = node, parent.get(id(node)), True
        while up is not None:
            if isinstance(up, _SCOPES) and _runs_inside(up, child):
                if id(up) in binders and (innermost or not isinstance(up, ast.ClassDef)):
                    shadowed.add(id(node))
                    break
                innermost = False
            child, up = up, parent.get(id(up))
    return shadowed


def _insert_at(tree: ast.Module) -> int:
    """The 1-based line that ends the module's first top-level import block (0: none)."""
    body = tree.body
    first = next((i for i, n in enumerate(body) if isinstance(n, ast.Import | ast.ImportFrom)),
                 None)
    if first is None:  # no import yet: after the docstring, if any
        doc = body[0] if body and isinstance(body[0], ast.Expr) else None
        return doc.end_lineno or 0 if doc else 0
    last = first
    while last + 1 < len(body) and isinstance(body[last + 1], ast.Import | ast.ImportFrom):
        last += 1
    return body[last].end_lineno or 0


class Refusal(Exception):
    """The codemod cannot rewrite a module safely; the message says why and where."""


def rewrite(source: str, registry: frozenset[str], where: str = "<source>") -> str:
    """`source` with every bare code literal spelled `codes.NAME`, importing `codes` if needed.

    The import is appended to the first import block; `run` lets ruff sort it into place.
    """
    sites = literal_sites(source)
    if not sites:
        return source
    unknown = sorted({s.code for s in sites} - registry)
    if unknown:
        raise Refusal(f"{where}: {', '.join(unknown)} has no row in nika/codes.py; add the row "
                      "first (the codemod never invents a code)")
    tree = ast.parse(source)
    binding = _binds_codes(tree)
    if binding == "other":
        raise Refusal(f"{where}: the module already binds the name `codes`; rename that binding")
    hidden = _shadowed_at(tree)
    shadowed = sorted(n.lineno for n in ast.walk(tree) if id(n) in hidden
                      and isinstance(n, ast.Constant) and isinstance(n.value, str)
                      and CODE_RE.fullmatch(n.value))
    if shadowed:
        raise Refusal(f"{where}:{shadowed[0]}: a local `codes` hides the module's there; rename "
                      "that binding")
    # ast counts lines at "\n" (a "\r\n" keeps its "\r") and columns in UTF-8 bytes.
    lines = source.encode("utf-8").split(b"\n")
    for site in reversed(sites):
        first, last = lines[site.line - 1], lines[site.end_line - 1]
        merged = first[: site.start] + f"codes.{name_of(site.code)}".encode() + last[site.end :]
        lines[site.line - 1 : site.end_line] = [merged]
    if binding is None:
        lines.insert(_insert_at(tree), IMPORT.encode())
    return b"\n".join(lines).decode("utf-8")


def redundant_aliases(tree: ast.Module) -> dict[str, tuple[ast.stmt, str]]:
    """Module constants that only repeat a registry name: `READ_001 = codes.BUILTIN_READ_001`.

    A constant whose name is the registry name, or its tail after an underscore, says nothing
    the registry name does not; one naming a role (`SSRF_CODE`, `UNKNOWN_PROVIDER`) stays.
    """
    found: dict[str, tuple[ast.stmt, str]] = {}
    body = tree.body
    for i, stmt in enumerate(body):
        target = _target(stmt)
        value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
        if not (isinstance(target, ast.Name) and isinstance(value, ast.Attribute)
                and isinstance(value.value, ast.Name) and value.value.id == "codes"):
            continue
        alias, name = target.id.lstrip("_"), value.attr
        # Kept: a constant with its own docstring, or sharing its line with another statement.
        documented = i + 1 < len(body) and isinstance(body[i + 1], ast.Expr)
        crowded = any(other is not stmt and other.lineno <= (stmt.end_lineno or 0)
                      and (other.end_lineno or 0) >= stmt.lineno for other in body)
        if (name == alias or name.endswith("_" + alias)) and not documented and not crowded:
            found[target.id] = (stmt, name)
    return found


def inline_aliases(source: str, keep: frozenset[str] = frozenset()) -> str:
    """`source` with each redundant alias (but those in `keep`) replaced by its registry name.

    `keep` holds the aliases another module imports: those stay, or the importer would break.
    An alias rebound, shadowed by a parameter, read inside an f-string or where a local `codes`
    hides the module's stays too (its reads could not be rewritten safely).
    """
    tree = ast.parse(source)
    aliases = {k: v for k, v in redundant_aliases(tree).items() if k not in keep}
    in_fstring = {id(n) for f in ast.walk(tree) if isinstance(f, ast.JoinedStr)
                  for n in ast.walk(f)}
    hidden = _shadowed_at(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.arg in aliases:  # a parameter shadows it
            del aliases[node.arg]
        elif isinstance(node, ast.Name) and node.id in aliases and (
            id(node) in in_fstring or id(node) in hidden
            or isinstance(node.ctx, ast.Store) and node is not _target(aliases[node.id][0])
        ):
            del aliases[node.id]
    if not aliases:
        return source
    edits: list[tuple[int, int, int, bytes]] = []  # (line, start, end, replacement)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in aliases and isinstance(node.ctx, ast.Load):
            edits.append((node.lineno, node.col_offset, node.end_col_offset or 0,
                          f"codes.{aliases[node.id][1]}".encode()))
    lines = source.encode("utf-8").split(b"\n")
    for line, start, end, text in sorted(edits, reverse=True):
        lines[line - 1] = lines[line - 1][:start] + text + lines[line - 1][end:]
    for stmt in sorted((s for s, _ in aliases.values()), key=lambda s: s.lineno, reverse=True):
        at = stmt.lineno - 1
        del lines[at : stmt.end_lineno or stmt.lineno]
        while 0 < at < len(lines) and not lines[at].strip() and _blank_run(lines, at) > 2:
            del lines[at]
    return b"\n".join(lines).decode("utf-8")


def _target(stmt: ast.stmt) -> ast.expr | None:
    """The one target of a module-level assignment, else None."""
    if isinstance(stmt, ast.Assign):
        return stmt.targets[0] if len(stmt.targets) == 1 else None
    return stmt.target if isinstance(stmt, ast.AnnAssign) else None


def _blank_run(lines: list[bytes], at: int) -> int:
    """How many blank lines the run through index `at` holds."""
    lo, hi = at, at
    while lo > 0 and not lines[lo - 1].strip():
        lo -= 1
    while hi + 1 < len(lines) and not lines[hi + 1].strip():
        hi += 1
    return hi - lo + 1


def registry_codes() -> frozenset[str]:
    """The codes `nika/codes.py` registers, read from its `_row("NIKA-…", …)` lines."""
    tree = ast.parse(REGISTRY.read_text(encoding="utf-8"))
    return frozenset(
        node.args[0].value
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        and node.func.id == "_row" and node.args and isinstance(node.args[0], ast.Constant)
        and isinstance(node.args[0].value, str)
    )


def targets(paths: list[Path]) -> list[Path]:
    """The Python files under `paths`, sorted, the registry itself left out."""
    files = {f for p in paths for f in (sorted(p.rglob("*.py")) if p.is_dir() else [p])}
    return sorted(f.resolve() for f in files if f.resolve() != REGISTRY)


def _read_from_outside() -> dict[str, set[Path]]:
    """Each name the repository's modules import by name or read as an attribute, with the
    files that do: an alias read there is part of its module's interface."""
    readers: dict[str, set[Path]] = {}
    for file in sorted(f.resolve() for d in REFERRERS for f in (ROOT / d).rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.ImportFrom) else \
                [node.attr] if isinstance(node, ast.Attribute) else []
            for name in names:
                readers.setdefault(name, set()).add(file)
    return readers


def _rewrap(file: Path) -> None:
    """Let ruff's formatter re-break each statement a longer name pushed past the line limit.

    Bottom-up, so the line numbers still to visit do not move; nothing else is reformatted.
    """
    limit = tomllib.loads(Path(RUFF_CONFIG[1]).read_text(encoding="utf-8"))["tool"]["ruff"][
        "line-length"]
    lines = file.read_text(encoding="utf-8").split("\n")
    for number, line in reversed([(i, t) for i, t in enumerate(lines, 1) if len(t) > limit]):
        subprocess.run([sys.executable, "-m", "ruff", "format", "--quiet", *RUFF_CONFIG,
                        f"--range={number}:1-{number}:{len(line) + 1}", str(file)],
                       check=True, cwd=ROOT)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one run did: literals spelled by name, repeating names retired, files changed."""

    converted: int
    retired: int
    changed: tuple[Path, ...]
    refusals: tuple[str, ...]


def run(paths: list[Path]) -> Outcome:
    """Rewrite `paths` in place."""
    registry = registry_codes()
    converted, retired, changed, refusals = 0, 0, set(), []
    for file in targets(paths):
        source = file.read_text(encoding="utf-8")
        try:
            where = file.relative_to(ROOT) if file.is_relative_to(ROOT) else file
            new = rewrite(source, registry, str(where))
        except Refusal as exc:
            refusals.append(str(exc))
            continue
        if new != source:
            converted += len(literal_sites(source))
            file.write_text(new, encoding="utf-8")
            changed.add(file)
    readers = _read_from_outside()
    for file in targets(paths):  # every literal is a name now: retire the names that repeat it
        source = file.read_text(encoding="utf-8")
        aliases = set(redundant_aliases(ast.parse(source)))
        keep = frozenset(a for a in aliases if readers.get(a, set()) - {file})
        if aliases - keep:
            new = inline_aliases(source, keep)
            retired += len(aliases - set(redundant_aliases(ast.parse(new))))
            if new != source:
                file.write_text(new, encoding="utf-8")
                changed.add(file)
                _rewrap(file)
    if changed:
        # Only the added import is out of place: the tree is kept isort-clean by `make lint`.
        subprocess.run([sys.executable, "-m", "ruff", "check", "--quiet", *RUFF_CONFIG,
                        "--select", "I", "--fix", *map(str, sorted(changed))],
                       check=True, cwd=ROOT)
    return Outcome(converted, retired, tuple(sorted(changed)), tuple(refusals))


def main(argv: list[str]) -> int:
    done = run([Path(a) for a in argv] or [PACKAGE])
    print(f"{done.converted} code literals spelled by name, {done.retired} names repeating the "
          f"registry retired, in {len(done.changed)} files")
    for refusal in done.refusals:
        print(f"refused: {refusal}", file=sys.stderr)
    return 1 if done.refusals else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
