"""Write docs/errors.md, every error code nika emits, from the one registry (`nika.codes`).

    python scripts/error_codes.py          # rewrite docs/errors.md
    python scripts/error_codes.py --check  # exit 1 when docs/errors.md is stale

`tests/test_error_codes_page.py` fails when the committed page is not what this renders.
"""

from __future__ import annotations

import sys
from pathlib import Path

from nika.codes import CODES
from nika.errors import namespace_of

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "errors.md"

_HEAD = """\
# Error codes

Every code nika emits, generated from the registry (`src/nika/codes.py`) by
`scripts/error_codes.py` — do not edit by hand. A refusal or failure carries its code, its
category and a detail that quotes the offending value and names the fix; `transient` says
whether a retry may help. `nika check --json` and the run report carry the same fields.
"""


def render() -> str:
    """The whole page: one table per namespace, codes in order."""
    out = [_HEAD.rstrip("\n")]
    namespace = ""
    for code in sorted(CODES):
        info = CODES[code]
        ns = namespace_of(code)
        if ns != namespace:
            namespace = ns
            out += ["", f"## {ns}", "", "| code | category | transient | what it means |",
                    "|---|---|---|---|"]
        summary = info.summary.replace("|", "\\|")
        out.append(f"| `{code}` | {info.category} | {'yes' if info.transient else 'no'} | "
                   f"{summary} |")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    page = render()
    if argv[1:] == ["--check"]:
        stale = not PAGE.exists() or PAGE.read_text(encoding="utf-8") != page
        if stale:
            print("docs/errors.md is stale: run python scripts/error_codes.py", file=sys.stderr)
        return 1 if stale else 0
    PAGE.write_text(page, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
