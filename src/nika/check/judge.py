"""The permits judge: required ⊆ permitted, one effect at a time (01 §permits · 10).

`PermitJudge` is THE judge: the authority rung asks it statically, the runtime asks it
at dispatch with the resolved value. Its rules:

- an absent `permits:` block grants nothing (zero authority, fail-closed); a present
  block is default-deny per category; pure-compute builtins need no grant at all;
- paths compare in canonical form on BOTH sides (`./a/../b` ≡ `b`), and a path that
  lexically escapes (`../x`, `/etc/x`) is only ever admitted by a grant rooted the same
  way: `**` never grants an escape;
- hosts compare canonically (case-insensitive, no trailing dot, no port, IDNA); entries
  carrying a `*` other than the bare `*` grant nothing (`NIKA-AUTH-010` at check);
- the SSRF floor sits beneath every grant (`NIKA-SEC-005`), with the one carve-out of an
  exact loopback literal named in `net.http`;
- a shell string is admitted only by `exec: true` (an allowlist verifies argv only).

A refusal is `NIKA-SEC-004` naming the task, the effect and the exact grant to add.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from nika import codes
from nika.check.effects import SHELL, Effect, needs_grant
from nika.errors import NikaError
from nika.syntax.model import Workflow

if TYPE_CHECKING:
    from nika.syntax.globs import Whitelist

ESCAPE: Final = codes.SEC_004
SSRF: Final = codes.SEC_005

# fmt: off
DANGEROUS_ENV_VARS: Final = frozenset({
    # dynamic-linker injection
    "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "DYLD_INSERT_LIBRARIES",
    "DYLD_LIBRARY_PATH", "DYLD_FRAMEWORK_PATH",
    # shell startup sourcing and field splitting
    "BASH_ENV", "ENV", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "IFS", "CDPATH",
    # interpreter pre-exec hooks
    "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "RUBYOPT",
    "RUBYLIB", "NODE_OPTIONS", "NODE_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS",
    # tool command hooks
    "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXEC_PATH", "GIT_ASKPASS", "SSH_ASKPASS",
    "EDITOR", "VISUAL", "PAGER", "GIT_PAGER", "LESSOPEN", "LESSCLOSE",
})
"""The dangerous-name floor: never passable through `permits.env` (`NIKA-AUTH-009`)."""

REENTRY_TOKENS: Final = frozenset({
    "-c", "-e", "--eval", "eval", "exec", "--exec", "-exec", "-execdir", "-ok", "-okdir",
    "--command", "-command",
})
"""argv tokens that re-enter an interpreter or spawn a sub-command: an untrusted one is
covered only when the program allowlist names it explicitly (10 §permit taint)."""
# fmt: on

_WILD: Final = frozenset("*?[\\")


def canonical_path(raw: str) -> str:
    """The lexical canonical form of a path: `.`/`..` resolved, separators collapsed,
    no leading `./` (`.` for the root itself); a leading `..` that escapes is kept."""
    text = raw.strip()
    if not text:
        return "."
    absolute = text.startswith("/")
    norm = posixpath.normpath(text)
    # POSIX keeps a leading `//` as-is; a permit path has no such namespace.
    norm = "/" + norm.lstrip("/") if absolute else norm
    return norm


def canonical_glob(pattern: str) -> str:
    """A path glob with its literal prefix canonicalised (`./data/**` → `data/**`,
    `./**` → `**`); the wildcard tail is kept verbatim."""
    negated = pattern.startswith("!")
    body = pattern[1:] if negated else pattern
    segments = body.split("/")
    cut = next((i for i, s in enumerate(segments) if _WILD & set(s)), len(segments))
    prefix = "/".join(segments[:cut])
    tail = "/".join(segments[cut:])
    if cut == 0:
        canon = tail
    else:
        head = canonical_path(prefix) if prefix else "/"
        canon = head if not tail else ("" if head == "." else head.rstrip("/") + "/") + tail
    return ("!" if negated else "") + canon


def root_class(path: str) -> str:
    """Where a canonical path (or glob) is rooted: `/` absolute, else `..`×k escapes
    (empty for inside the workflow directory)."""
    body = path.lstrip("!")
    if body.startswith("/"):
        return "/"
    k = 0
    for seg in body.split("/"):
        if seg != "..":
            break
        k += 1
    return "../" * k


def canonical_host(raw: str) -> str:
    """The canonical host: userinfo, port and trailing dot stripped, lower-case, IDNA."""
    # The network floor (and `ipaddress` under it) loads with the first host a check reads.
    from nika.netfloor import normalise_host

    text = raw.strip()
    if "://" in text:
        text = text.split("://", 1)[1]
    text = text.split("/", 1)[0].rpartition("@")[2]
    if text.startswith("["):
        return normalise_host(text.split("]", 1)[0] + "]")
    if text.count(":") == 1:
        text = text.split(":", 1)[0]
    host = normalise_host(text)
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        return host


def floor_blocked(host: str) -> bool:
    """Is this literal host always below the SSRF floor (a non-public IP literal, or the
    `localhost` family)? A DNS name is judged on its resolution, at run time."""
    from nika.netfloor import is_blocked_address, normalise_host

    name = normalise_host(host)
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return is_blocked_address(name)
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class PathGrant:
    """The compiled `fs.read` or `fs.write` globs: one whitelist per root class, so a
    wildcard can never carry a path across a root it was not written under."""

    globs: tuple[str, ...]
    by_root: Mapping[str, Whitelist]

    @classmethod
    def compile(cls, globs: Sequence[str]) -> PathGrant:
        """Canonicalise and compile `globs` (raises `NikaError` on a malformed one)."""
        from nika.syntax.globs import Whitelist  # the glob engine, with the first grant

        canon = [canonical_glob(g) for g in globs]
        groups: dict[str, list[str]] = {}
        for g in canon:
            groups.setdefault(root_class(g), []).append(g)
        compiled = {root: Whitelist.compile_paths(gs) for root, gs in groups.items()}
        return cls(tuple(globs), compiled)

    def admits(self, path: str) -> bool:
        """Is the canonical form of `path` inside the grant? A directory root is admitted
        when the grant covers everything beneath it (`src/**` admits a walk of `src`)."""
        canon = canonical_path(path)
        rules = self.by_root.get(root_class(canon))
        if rules is None:
            return False
        under = "**" if canon == "." else f"{canon.rstrip('/')}/**"
        return rules.allows(canon) or rules.allows(under)


@dataclass(frozen=True, slots=True)
class PermitJudge:
    """The declared boundary, compiled; `None` per category = not granted.

    `declared` is False for an absent `permits:` block (zero authority).
    """

    declared: bool
    fs_read: PathGrant | None = None
    fs_write: PathGrant | None = None
    net_http: frozenset[str] | None = None
    exec: bool | frozenset[str] = False
    tools: Whitelist | None = None
    env: frozenset[str] | None = None

    @classmethod
    def from_workflow(cls, workflow: Workflow) -> PermitJudge:
        """The judge of `workflow`'s `permits:` block (absent → zero authority)."""
        return cls.from_permits(None if workflow.permits is None else workflow.permits.raw)

    @classmethod
    def from_permits(cls, permits: Mapping[str, Any] | None) -> PermitJudge:
        """Compile an authored `permits:` mapping. Interpolated or malformed bounds grant
        nothing here (they are the authority rung's `NIKA-AUTH-007`/`-010` refusals)."""
        if permits is None:
            return cls(declared=False)
        fs = permits.get("fs")
        fs = fs if isinstance(fs, Mapping) else {}
        net = permits.get("net")
        net = net if isinstance(net, Mapping) else {}
        raw_exec = permits.get("exec")
        exec_grant: bool | frozenset[str] = (
            raw_exec
            if isinstance(raw_exec, bool) or raw_exec is None
            else frozenset(_literals(raw_exec))
        ) or False
        hosts = _literals(net.get("http")) if "http" in net else None
        return cls(
            declared=True,
            fs_read=_paths(fs.get("read")) if "read" in fs else None,
            fs_write=_paths(fs.get("write")) if "write" in fs else None,
            net_http=None
            if hosts is None
            else frozenset(
                "*" if h == "*" else canonical_host(h) for h in hosts if h == "*" or "*" not in h
            ),
            exec=exec_grant,
            tools=_tools(permits.get("tools")) if "tools" in permits else None,
            env=frozenset(_literals(permits.get("env"))) if "env" in permits else None,
        )

    def admits(self, effect: Effect) -> bool:
        """Does the boundary admit `effect`? A dynamic target is admitted when its category
        is open at all: the run re-gates the resolved value."""
        return self.judge(effect) is None

    def judge(self, effect: Effect) -> NikaError | None:
        """`None` when `effect` fits the boundary, else the refusal (`NIKA-SEC-004`, or
        `NIKA-SEC-005` for a target below the SSRF floor)."""
        kind = effect.kind
        if kind == "tool" and not needs_grant(effect.target):
            return None
        if kind == "net" and not effect.dynamic:
            floor = self._floor(effect)
            if floor is not None:
                return floor
        if self._category_open(effect) and (effect.dynamic or self._fits(effect)):
            return None
        return self.refusal(effect)

    def admits_argv_token(self, token: str) -> bool:
        """May an UNTRUSTED argv token ride under the exec grant? A re-entry token
        (`--exec`, `-c`, `eval`, …) is covered only by `exec: true` or by naming it."""
        if token not in REENTRY_TOKENS or self.exec is True:
            return True
        return isinstance(self.exec, frozenset) and token in self.exec

    def loopback_hosts(self) -> frozenset[str]:
        """The exact loopback literals the author declassified (for the run-time floor)."""
        from nika.netfloor import is_loopback_literal

        return frozenset(h for h in self.net_http or () if is_loopback_literal(h))

    def refusal(self, effect: Effect) -> NikaError:
        """The `NIKA-SEC-004` refusal of `effect`: the task, the effect, the line to add."""
        who = f"task `{effect.task}`" if effect.task else "the workflow"
        missing, line = grant_for(effect)
        if effect.kind == "exec" and effect.target == SHELL and isinstance(self.exec, frozenset):
            why = (
                "a shell string is opaque to a program allowlist (only the argv form is "
                "verifiable); write `command: [program, args...]` or grant `exec: true`"
            )
        elif not self.declared:
            why = f"no permits: block is declared (zero authority); add {line}"
        else:
            why = f"it is outside permits.{missing}; add {line}"
        return NikaError(
            ESCAPE,
            f"{who} needs {effect.kind} {effect.target!r}: {why}",
            details={
                "task": effect.task,
                "effect": effect.kind,
                "target": effect.target,
                "missing_grant": missing,
                "grant": line,
            },
        )

    def _category_open(self, effect: Effect) -> bool:
        if effect.kind == "fs.read":
            return self.fs_read is not None
        if effect.kind == "fs.write":
            return self.fs_write is not None
        if effect.kind == "net":
            return self.net_http is not None
        if effect.kind == "exec":
            return self.exec is not False
        if effect.kind == "tool":
            return self.tools is not None
        return self.env is not None

    def _fits(self, effect: Effect) -> bool:
        target = effect.target
        if effect.kind == "fs.read" and self.fs_read is not None:
            return self.fs_read.admits(target)
        if effect.kind == "fs.write" and self.fs_write is not None:
            return self.fs_write.admits(target)
        if effect.kind == "net" and self.net_http is not None:
            return "*" in self.net_http or canonical_host(target) in self.net_http
        if effect.kind == "exec":
            if self.exec is True:
                return True
            return isinstance(self.exec, frozenset) and target != SHELL and target in self.exec
        if effect.kind == "tool" and self.tools is not None:
            return self.tools.allows(target)
        if effect.kind == "env" and self.env is not None:
            return target in self.env and target not in DANGEROUS_ENV_VARS
        return False

    def _floor(self, effect: Effect) -> NikaError | None:
        host = canonical_host(effect.target)
        if not floor_blocked(host):
            return None
        from nika.netfloor import is_loopback_literal

        if is_loopback_literal(host) and host in (self.net_http or ()):
            return None
        who = f"task `{effect.task}`" if effect.task else "the workflow"
        return NikaError(
            SSRF,
            f"{who} reaches {host!r}, below the SSRF floor (loopback · private · link-local · "
            "metadata): no grant admits it; for a local service name its exact loopback literal "
            "(localhost, 127.0.0.1, ::1) in permits.net.http, otherwise target a public host",
            details={"task": effect.task, "host": host},
        )


@dataclass(frozen=True, slots=True)
class NestedJudge:
    """A child workflow's boundary under its callers' (spec 14 law 3: Authority(child) ⊆
    Authority(parent) ∩ declared): an effect must fit the child's own `permits:` and
    every caller's, innermost first. A caller's refusal keeps its code (`NIKA-SEC-004` at
    run) and says whose boundary it is."""

    own: PermitJudge
    callers: tuple[PermitJudge, ...]

    @classmethod
    def under(cls, own: PermitJudge, caller: PermitJudge | NestedJudge) -> NestedJudge:
        """`own` nested in `caller` (itself possibly a child of another workflow)."""
        if isinstance(caller, NestedJudge):
            return cls(own, (caller.own, *caller.callers))
        return cls(own, (caller,))

    @property
    def env(self) -> frozenset[str] | None:
        """The env passthrough every level grants (None when one level grants none)."""
        out = self.own.env
        for caller in self.callers:
            out = None if out is None or caller.env is None else out & caller.env
        return out

    def judge(self, effect: Effect) -> NikaError | None:
        """`None` when every level admits `effect`, else the innermost refusal."""
        refusal = self.own.judge(effect)
        if refusal is not None:
            return refusal
        for caller in self.callers:
            refusal = caller.judge(effect)
            if refusal is not None:
                return NikaError(
                    refusal.code,
                    f"{refusal.detail} — in the calling workflow's permits: a child runs under "
                    "its own permits ∩ its caller's, and never gains authority its caller lacks",
                    details={**refusal.details, "boundary": "caller"},
                )
        return None

    def admits(self, effect: Effect) -> bool:
        """Does every level admit `effect`?"""
        return self.judge(effect) is None

    def loopback_hosts(self) -> frozenset[str]:
        """The loopback literals every level declassified."""
        out = self.own.loopback_hosts()
        for caller in self.callers:
            out &= caller.loopback_hosts()
        return out


def grant_for(effect: Effect) -> tuple[str, str]:
    """The category an effect needs and the exact YAML line that grants it."""
    t = effect.target
    if effect.kind in ("fs.read", "fs.write"):
        sub = effect.kind.split(".")[1]
        canon = canonical_path(t) if not effect.dynamic else t
        return f"fs.{sub}", f'permits: {{ fs: {{ {sub}: ["{canon}"] }} }}'
    if effect.kind == "net":
        host = t if effect.dynamic else canonical_host(t)
        return "net.http", f'permits: {{ net: {{ http: ["{host}"] }} }}'
    if effect.kind == "exec":
        if t == SHELL or effect.dynamic:
            return "exec", "permits: { exec: true }"
        return "exec", f'permits: {{ exec: ["{t}"] }}'
    if effect.kind == "tool":
        return "tools", f'permits: {{ tools: ["{t}"] }}'
    return "env", f'permits: {{ env: ["{t}"] }}'


def _literals(value: Any) -> list[str]:
    """The literal string entries of a bound list (an interpolated one grants nothing)."""
    if not isinstance(value, list | tuple):
        return []
    return [v for v in value if isinstance(v, str) and "${{" not in v]


def _paths(value: Any) -> PathGrant:
    return PathGrant.compile([g for g in _literals(value) if _well_formed(g, paths=True)])


def _tools(value: Any) -> Whitelist:
    from nika.syntax.globs import Whitelist

    return Whitelist.compile([g for g in _literals(value) if _well_formed(g, paths=False)])


def _well_formed(glob: str, *, paths: bool) -> bool:
    """A malformed entry grants nothing; the rest of its list still stands."""
    from nika.syntax.globs import Whitelist

    try:
        if paths:
            Whitelist.compile_paths([canonical_glob(glob)])
        else:
            Whitelist.compile([glob])
    except NikaError:
        return False
    return True
