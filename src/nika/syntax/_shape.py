"""A findings collector for the model builders: locate, report, and small shape probes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

from nika import codes
from nika.errors import NikaError
from nika.syntax.keypath import KeyPath

if TYPE_CHECKING:
    from nika.syntax.loader import Document

_T = TypeVar("_T")

_SUGGESTED = 64
"""Unknown fields a document gets a did-you-mean for: a file of typos stays cheap."""


def show(value: Any, limit: int = 60) -> str:
    """A short, quoted rendering of an offending value for a diagnostic."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def where(path: KeyPath) -> str:
    """`tasks.fetch.retry` — a key path as a reader writes it."""
    return ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in path).replace(".[", "[")


class Shape:
    """Collects located findings while a builder walks the document."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.errors: list[NikaError] = []
        self._typos: set[tuple[KeyPath, str]] = set()
        self._suggested = 0

    def report(self, code: str, detail: str, path: KeyPath) -> None:
        """Append one finding located at `path` (or its nearest located ancestor)."""
        location = None
        probe = path
        while location is None:
            location = self.doc.locate(probe)
            if not probe:
                break
            probe = probe[:-1]
        self.errors.append(NikaError(code, detail, location=location))

    def mapping(self, value: Any, path: KeyPath, what: str, code: str = codes.PARSE_019) -> bool:
        """Whether `value` is a mapping; reports `code` when it is not."""
        if isinstance(value, Mapping):
            return True
        self.misfit(code, what, "a mapping", value, path)
        return False

    def closed(
        self,
        value: Mapping[str, Any],
        allowed: Iterable[str],
        path: KeyPath,
        what: str,
        dead: Mapping[str, tuple[str, str]] | None = None,
    ) -> bool:
        """Refuse keys outside `allowed` (`NIKA-PARSE-005`, or a dead form's own code).

        `dead` maps a retired spelling to `(code, teaching)`. Returns True when clean.
        """
        allowed = frozenset(allowed)
        clean = True
        for key in value:
            if key in allowed:
                continue
            clean = False
            if dead and key in dead:
                code, teaching = dead[key]
                self.report(code, f"`{key}:` is not accepted in {what}; {teaching}", (*path, key))
            else:
                close = self._closest(str(key), allowed)
                if close is not None:
                    self._typos.add((path, close))
                meant = f"did you mean `{close}`? " if close else ""
                self.report(
                    codes.PARSE_005,
                    f"unknown field `{key}` in {what}; {meant}the accepted fields are "
                    f"{', '.join(sorted(allowed))} "
                    "(remove or rename it)",
                    (*path, key),
                )
        return clean

    def _closest(self, key: str, allowed: frozenset[str]) -> str | None:
        if self._suggested >= _SUGGESTED:
            return None
        self._suggested += 1
        import difflib  # only a misspelt field pays for it

        close = difflib.get_close_matches(key, sorted(allowed), n=1)
        return close[0] if close else None

    def misspelt(self, path: KeyPath, *names: str) -> bool:
        """Whether an unknown field at `path` was already reported as a typo of one of
        `names`: its missing-field finding would be the same mistake told twice."""
        return any((path, name) in self._typos for name in names)

    def misfit(self, code: str, what: str, wanted: str, value: Any, path: KeyPath) -> None:
        """Report that `value` is not `wanted` (the one sentence of every typed read)."""
        self.report(code, f"{what} must be {wanted}, got {show(value)}", path)

    def string(
        self, value: Any, path: KeyPath, what: str, code: str = codes.PARSE_019
    ) -> str | None:
        """`value` when it is a string, else report and return None."""
        return self._typed(str, "a string", value, path, what, code)

    def strings(
        self, value: Any, path: KeyPath, what: str, code: str = codes.PARSE_019
    ) -> tuple[str, ...] | None:
        """A list of strings as a tuple, else report and return None."""
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            return tuple(value)
        self.misfit(code, what, "a list of strings", value, path)
        return None

    def integer(
        self, value: Any, path: KeyPath, what: str, code: str, minimum: int | None = None
    ) -> int | None:
        """An integer (not a bool) at or above `minimum`, else report and return None."""
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and (minimum is None or value >= minimum)
        ):
            return value
        bound = f" ≥ {minimum}" if minimum is not None else ""
        self.misfit(code, what, f"an integer{bound}", value, path)
        return None

    def boolean(
        self, value: Any, path: KeyPath, what: str, code: str = codes.PARSE_019
    ) -> bool | None:
        """A YAML boolean, else report and return None."""
        return self._typed(bool, "true or false", value, path, what, code)

    def _typed(
        self, kind: type[_T], wanted: str, value: Any, path: KeyPath, what: str, code: str
    ) -> _T | None:
        if isinstance(value, kind):
            return value
        self.misfit(code, what, wanted, value, path)
        return None
