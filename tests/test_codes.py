"""One registry, one spelling: every code `src/` emits is a `nika.codes` name with a row.

The guards: a name and its row cannot drift, `src/` writes no code as a bare string (the
codemod's own scanner finds them), every `codes.X` that `src/` reads exists, and every code
that prose in `src/` names (docstrings, comments, messages) is registered.
"""

from __future__ import annotations

import ast
import re

import pytest
from tests._codemod import ROOT, load_codemod

from nika import codes
from nika.codes import CODES
from nika.errors import CATEGORIES, CODE_RE

PACKAGE = ROOT / "src" / "nika"


CODEMOD = load_codemod()


def _names() -> dict[str, str]:
    return {k: v for k, v in vars(codes).items() if k.isupper() and k != "CODES"}


def test_every_name_spells_its_row_and_every_row_has_a_name() -> None:
    names = _names()
    assert sorted(names.values()) == sorted(CODES)
    assert {CODEMOD.name_of(code): code for code in CODES} == names
    assert len(CODES) > 150  # the walk really sees the table


def test_every_row_is_well_formed() -> None:
    for code, row in CODES.items():
        assert CODE_RE.match(code), code
        assert row.category in CATEGORIES, (code, row.category)
        assert row.summary, code


def test_a_second_row_for_a_code_is_refused() -> None:
    before = dict(CODES)
    with pytest.raises(ValueError, match="two registry rows"):
        codes._row(codes.DAG_004, "validation_error", False, "again")
    assert before == CODES


def test_src_spells_no_code_as_a_bare_literal() -> None:
    files = CODEMOD.targets([PACKAGE])
    assert len(files) > 50 and PACKAGE / "codes.py" not in files
    found = [f"{file.relative_to(ROOT)}:{site.line}: {site.code}"
             for file in files for site in CODEMOD.literal_sites(file.read_text("utf-8"))]
    assert found == [], ("spell these by their registry name "
                         "(`.venv/bin/python scripts/codes_codemod.py` does it):\n"
                         + "\n".join(found))


def test_every_registry_name_src_reads_exists() -> None:
    missing = []
    for file in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(file.read_text("utf-8"))):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id == "codes" and not hasattr(codes, node.attr)):
                missing.append(f"{file.relative_to(ROOT)}:{node.lineno}: codes.{node.attr}")
    assert missing == []


def test_every_code_src_mentions_in_prose_is_registered() -> None:
    token = re.compile(CODE_RE.pattern.removeprefix("^").removesuffix("$"))
    unknown = sorted(
        f"{file.relative_to(ROOT)}: {code}"
        for file in PACKAGE.rglob("*.py")
        for code in {m.group() for m in token.finditer(file.read_text("utf-8"))}
        if code not in CODES
    )
    assert unknown == []
