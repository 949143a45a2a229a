"""Every code block of the README and docs/ is either run by a test or marked illustrative
(issue 35): a block added to a page without one of the two fails here. A run block is listed
in `RUN_BY` with the test that runs it (that test must read the page); an illustrative one
carries `<!-- illustrative: why -->` on the line above its fence."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parent.parent
PAGES: Final = ("README.md", *sorted(f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")))
MARK: Final = re.compile(r"^<!-- illustrative: \S.* -->$")

RUN_BY: Final = {
    ("README.md", 0): "tests/test_readme_first_workflow.py",  # the first screen's workflow
    **{("README.md", n): "tests/test_readme_first_workflow.py" for n in range(2, 8)},
    ("docs/guide.md", 0): "tests/test_readme_first_workflow.py",  # secrets:
    ("docs/guide.md", 1): "tests/test_readme_first_workflow.py",  # permits:
    ("docs/agent.md", 0): "tests/test_readme_example.py",  # the library example
    # every configuration block parses in its language; the MCP one starts the server
    **{("docs/editors.md", n): "tests/serve/test_editors_doc.py" for n in range(9)},
}
"""(page, the block's index on it) → the test that runs it."""


def blocks(page: str, root: Path = ROOT) -> list[tuple[int, str, bool]]:
    """Each opening fence of `page`: its index, its language, whether it is marked."""
    out: list[tuple[int, str, bool]] = []
    fenced, before = False, ""
    for line in (root / page).read_text(encoding="utf-8").splitlines():
        if not fenced and line.startswith("```"):
            out.append((len(out), line[3:].strip(), bool(MARK.match(before))))
            fenced = True
        elif fenced and line.startswith("```"):
            fenced = False
        before = line
    return out


def test_every_block_is_run_or_marked_illustrative() -> None:
    loose = [(page, n, lang) for page in PAGES for n, lang, marked in blocks(page)
             if not marked and (page, n) not in RUN_BY]
    assert loose == [], "run these blocks in a test (and list them in RUN_BY) or mark them"


def test_each_listed_block_exists_unmarked_and_its_test_reads_the_page() -> None:
    for (page, n), test in RUN_BY.items():
        found = {i: marked for i, _, marked in blocks(page)}
        assert n in found and not found[n], (page, n)
        assert Path(page).name in (ROOT / test).read_text(encoding="utf-8"), (page, test)


def test_a_block_without_either_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "docs" / "new.md"
    page.parent.mkdir()
    page.write_text("# x\n\n```sh\nnika run x.nika.yaml\n```\n\n<!-- illustrative: y -->\n"
                    "```sh\nmake z\n```\n")
    assert blocks("docs/new.md", tmp_path) == [(0, "sh", False), (1, "sh", True)]
