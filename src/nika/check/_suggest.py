"""Naming what the author may have meant — bounded, so a file full of typos stays fast.

A `did you mean …?` compares one name with every declared one, and a finding may list
the declared names; both are per finding, so a file with a thousand dangling names
against a thousand declared ones would pay a million comparisons and print a million
names. Both are bounded per check: comparisons by a work budget (characters compared),
after which findings simply omit the suggestion, and listings by a cap on names shown.
Either way the outcome depends only on the document, never on timing.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

SUGGESTION_BUDGET: Final = 250_000
"""Characters compared for suggestions per check: about 0.1 s of difflib, enough for some
eighty typos against a hundred declared names."""

LISTED: Final = 12
"""Names a finding lists before it says how many more there are."""


class Suggestions:
    """One check's suggestion budget, and each candidate set sorted once."""

    def __init__(self, budget: int = SUGGESTION_BUDGET) -> None:
        self.left = budget
        self._pools: dict[int, tuple[Collection[str], tuple[str, ...], int]] = {}

    def _pool(self, candidates: Collection[str]) -> tuple[tuple[str, ...], int]:
        # Keyed by identity, and the collection is kept alive so its id stays its own.
        known = self._pools.get(id(candidates))
        if known is None or known[0] is not candidates:
            names = tuple(sorted(candidates))
            known = (candidates, names, sum(map(len, names)))
            self._pools[id(candidates)] = known
        return known[1], known[2]

    def closest(self, name: str, candidates: Collection[str]) -> str | None:
        """The declared name most like `name` (difflib's ratio), or None — also when this
        check has spent its budget."""
        if self.left <= 0 or not candidates:
            return None
        import difflib  # a clean workflow never suggests: `nika check` starts without it

        pool, chars = self._pool(candidates)
        self.left -= chars + len(name) * len(pool)
        close = difflib.get_close_matches(name, pool, n=1)
        return close[0] if close else None

    def listing(self, candidates: Collection[str], *, quote: str = "") -> str:
        """The sorted names, at most `LISTED` of them, then how many there are in all."""
        pool, _ = self._pool(candidates)
        shown = ", ".join(f"{quote}{n}{quote}" for n in pool[:LISTED])
        return shown if len(pool) <= LISTED else f"{shown}, … ({len(pool)} in all)"


def chain_text(members: Sequence[str], *, quote: str = "`", arrow: str = " → ") -> str:
    """An ordered chain (a cycle's witness) in full up to `LISTED` members; a longer one as
    its first `LISTED - 2`, how many are left out, and its last two (a closed chain's
    witness ends in the edge that closes it) — so a finding about a 16,000-task ring stays
    one line, not 16,000 names."""
    named = [f"{quote}{m}{quote}" for m in members]
    if len(named) > LISTED:
        named = [*named[: LISTED - 2], f"… {len(named) - LISTED} more", *named[-2:]]
    return arrow.join(named)
