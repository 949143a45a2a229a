"""A builtin's declaration: the one statement of its argument contract.

`Declaration` holds the JSON Schema of the args (the subset `_schema` judges, which is also
what a model reads as the tool's parameters), the few rules a schema cannot state as named
predicates (`Rule`), and the codes a violation carries. `nika check` asks it for every
refusal of the literal args (`static=True`); the executor asks it for the first refusal of
the resolved args before the builtin runs — the same judge, the same words, the same code.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, NamedTuple

from nika import codes
from nika.errors import NikaError
from nika.stdlib._schema import Misfit, json_type, misfits, templated

if TYPE_CHECKING:
    from nika.stdlib._paths import PathArg

CONTRACT: Final = codes.BUILTIN_001
"""The code of a broken static arg contract, where the stdlib names no builtin code."""

_SPOKEN: Final = {
    "null": "null", "boolean": "a boolean", "integer": "an integer", "number": "a number",
    "string": "a string", "object": "a map", "array": "a list",
}  # fmt: skip


class Problem(NamedTuple):
    """What a rule found: the prescriptive detail, the arg it points at, and a code of its
    own when the finding is another family's (a jq program that does not compile)."""

    detail: str
    arg: str | None = None
    code: str | None = None


Test = Callable[[Mapping[str, Any]], Problem | None]


@dataclass(frozen=True, slots=True)
class Rule:
    """A rule the schema cannot state — between args, or on what a value means — as a named
    predicate over the args (which fit the schema by then).

    `reads` names the args whose VALUES it reads: the check skips the rule while one of them
    is a `${{ }}` template (presence is always known) — unless the rule has a `templated`
    test, which judges the args as written, islands and all, for what every value the run
    can resolve them to holds. A `source` rule judges how the file SPELLS a value (a key
    that must be a secret reference), so only the check applies it. `paths` are the path args
    a path rule (`nika.stdlib._paths.path_rule`) judges.
    """

    name: str
    reads: tuple[str, ...]
    test: Test
    code: str | None = None
    source: bool = False
    templated: Test | None = None
    paths: tuple[PathArg, ...] = ()


@dataclass(frozen=True, slots=True)
class Refusal:
    """One broken contract: its code and detail, the top-level arg it concerns (None: the
    args as a whole), the path into the args, and the rule that found it (None: the schema)."""

    code: str
    detail: str
    arg: str | None = None
    path: tuple[str, ...] = ()
    rule: str | None = None

    def error(self, tool: str) -> NikaError:
        """The refusal as the executor raises it."""
        return NikaError(self.code, f"{tool}: {self.detail}",
                         details={"tool": tool, "path": list(self.path)})


@dataclass(frozen=True, slots=True)
class Declaration:
    """One builtin's argument contract (see the module docstring).

    `code` is what a violation carries; `codes` overrides it for a VALUE of one top-level
    arg where the stdlib names the builtin's own code (`nika:edit`'s `count:`).
    """

    name: str
    schema: Mapping[str, Any]
    rules: tuple[Rule, ...] = ()
    code: str = CONTRACT
    codes: Mapping[str, str] = field(default_factory=dict)

    @property
    def paths(self) -> tuple[PathArg, ...]:
        """Where its args name files and what it does with each: its path rules' path args."""
        return tuple(path for rule in self.rules for path in rule.paths)

    def refusals(self, args: Mapping[str, Any], *, static: bool = False) -> list[Refusal]:
        """Every refusal, schema first, then the rules. `static`: `args` are as the file
        writes them (templated values are the run's to judge); otherwise they are resolved,
        and the rules run only on args that fit the schema."""
        found = list(misfits(self.schema, args, static=static))
        meant = _meant(found, self.schema)
        # `contnet:` is one mistake: the unknown arg says what was meant, and the required
        # `content:` it stands for is not reported missing again (nor judged by a rule).
        found = [m for m in found
                 if not (m.keyword == "required" and not m.path and m.key in meant.values())]
        out = [self._misfit(m, meant.get(str(m.key))) for m in found]
        if found and not static:
            return out
        unfit = {m.path[0] if m.path else m.key for m in found}
        # as written, a value is unknown while it is unfit or templated
        unknown = unfit | {k for k, v in args.items() if templated(v)} if static else unfit
        for rule in self.rules:
            if rule.source and not static:
                continue  # how the file spells a value: the check's alone
            if not set(meant.values()).isdisjoint(rule.reads):
                continue  # it would judge an arg the author misspelt
            test = rule.test
            if static and not rule.source and not unknown.isdisjoint(rule.reads):
                if rule.templated is None or not unfit.isdisjoint(rule.reads):
                    continue
                test = rule.templated  # what the templates as written already settle
            problem = test(args)
            if problem is not None and any(f"`{v}:`" in problem.detail for v in meant.values()):
                continue  # it names the arg the author misspelt: reported once, as the typo
            if problem is not None and problem.arg not in unfit:
                out.append(Refusal(problem.code or rule.code or self.code, problem.detail,
                                   problem.arg, (problem.arg,) if problem.arg else (), rule.name))
        return out

    def refusal(self, args: Mapping[str, Any]) -> Refusal | None:
        """The first refusal of resolved args (None: the call may run)."""
        found = self.refusals(args)
        return found[0] if found else None

    def _misfit(self, m: Misfit, meant: str | None = None) -> Refusal:
        arg = str(m.path[0]) if m.path else m.key
        path = tuple(str(p) for p in m.path) + ((m.key,) if m.key is not None else ())
        code = self.codes.get(str(m.path[0]), self.code) if m.path else self.code
        return Refusal(code, _say(self.name, m, meant), arg, path)


def _meant(found: list[Misfit], schema: Mapping[str, Any]) -> dict[str, str]:
    """Each unknown top-level arg → the declared arg it most likely misspells."""
    unknown = [str(m.key) for m in found if m.keyword == "additionalProperties" and not m.path]
    if not unknown:
        return {}
    import difflib  # only a misspelt arg pays for it

    names = sorted(schema.get("properties", {}))
    out: dict[str, str] = {}
    for key in unknown:
        close = difflib.get_close_matches(key, names, n=1)
        if close:
            out[key] = close[0]
    return out


def _where(path: tuple[str | int, ...]) -> str:
    out = ""
    for p in path:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else p)
    return out


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:59] + "…"


def _spoken(kind: Any) -> str:
    kinds = [kind] if isinstance(kind, str) else list(kind)
    return " or ".join(_SPOKEN.get(k, k) for k in kinds)


def _say(tool: str, m: Misfit, meant: str | None = None) -> str:
    """The prescriptive detail of one misfit (`meant`: what an unknown arg misspells)."""
    where, s, value = _where(m.path), m.schema, m.value
    if m.keyword == "required":
        return (f"missing required arg `{m.key}:`" if not m.path
                else f"`{where}:` is missing its required `{m.key}:`")
    if m.keyword == "additionalProperties":
        names = ", ".join(sorted(s.get("properties", {}))) or "none"
        if not m.path:
            hint = f"did you mean `{meant}:`? " if meant else ""
            return f"unknown arg `{m.key}:`; {hint}the args are {names} (remove or rename it)"
        return f"unknown key `{m.key}:` in `{where}:`; its keys are {names}"
    if m.keyword == "type":
        return (f"`{where}: {_shown(value)}` is {_SPOKEN.get(json_type(value), json_type(value))}"
                f"; `{where}:` of `{tool}` is {_spoken(s['type'])}")
    if m.keyword == "enum":
        return f"`{where}: {_shown(value)}` is not one of {', '.join(map(str, s['enum']))}"
    if m.keyword == "pattern":
        return f"`{where}: {_shown(value)}` must match {s['pattern']}"
    if m.keyword in ("minLength", "maxLength"):
        if m.keyword == "minLength" and s["minLength"] == 1:
            return f"`{where}:` must not be empty"
        bound = "at least" if m.keyword == "minLength" else "at most"
        return f"`{where}:` must be {bound} {s[m.keyword]} characters (it has {len(value)})"
    if m.keyword in ("minimum", "maximum"):
        return f"`{where}: {_shown(value)}` must be {_span(s)}"
    if m.keyword in ("minItems", "maxItems"):
        bound = "at least" if m.keyword == "minItems" else "at most"
        return f"`{where}:` has {len(value)} items; it takes {bound} {s[m.keyword]}"
    return f"`{where}: {_shown(value)}` is not {s.get('description', 'of an allowed shape')}"


def _span(schema: Mapping[str, Any]) -> str:
    noun = "an integer" if schema.get("type") == "integer" else "a number"
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        return f"{noun} in {low}..={high}"
    return f"{noun} ≥ {low}" if low is not None else f"{noun} ≤ {high}"
