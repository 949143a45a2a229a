"""The permit taint, the data-as-code sink and the authored doors (10-authority).

- `NIKA-AUTH-008`: under a present `permits:` block, an untrusted value (`inputs.*`, a
  task result) reaching a permitted verb's argument is re-gated on its canonical
  RESOLVED form; when that form is known at check and escapes, the check refuses with
  the taint path. Unresolvable values defer to the run-time re-gate (`NIKA-SEC-004`).
  A trusted (or lifted) value is matched like a literal: an escape is `NIKA-SEC-004`.
- `NIKA-SEC-008`: a `nika:fetch` whose resolved URL path names a code-bearing class.
- `NIKA-AUTH-011`: a `lift:` whose named law would not have fired on its task.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from nika import codes
from nika.check._flow import Source, Unresolved, is_untrusted, resolve, sources
from nika.check.context import CheckContext
from nika.check.effects import Effect, is_dynamic, task_effects, url_host
from nika.check.judge import PermitJudge
from nika.errors import NikaError
from nika.syntax.model import ExecBody, InvokeBody, KeyPath, Task


def code_class(url: str) -> str | None:
    """The data-as-code class of a URL (10 §data-as-code): the path is decoded exactly
    once, and a versioned native library (`lib.so.1.2.3`) is the native class."""
    # URL parsing and the network floor load with the first URL a check reads.
    from urllib.parse import unquote, urlsplit

    from nika.netfloor import code_bearing_class

    try:
        path = unquote(urlsplit(url.strip()).path)
    except ValueError:
        return None
    return code_bearing_class(path)


def run(ctx: CheckContext, judge: PermitJudge) -> Iterator[NikaError]:
    """Every taint, data-as-code and door finding of the workflow."""
    for task in ctx.workflow.tasks.values():
        fired: set[str] = set()
        yield from _regate(ctx, judge, task, fired)
        yield from _argv_tail(ctx, judge, task, fired)
        yield from _code_bearing(ctx, task)
        for i, lift in enumerate(task.lift):
            if lift.law == "taint" and lift.from_ not in fired:
                yield ctx.error(
                    codes.AUTH_011,
                    f"task `{task.id}` lifts the taint law from {lift.from_!r}, but that value "
                    "never reaches one of its permitted arguments untrusted — the lift lifts "
                    "nothing; remove the entry (a door must carry its weight to stay reviewable)",
                    (*task.path, "lift", i),
                )


def _lifted(task: Task) -> frozenset[str]:
    return frozenset(x.from_ for x in task.lift if x.law == "taint" and x.from_)


def _label(task: Task, site: KeyPath) -> str:
    return ".".join(str(k) for k in site[len(task.path) :])


def _regate(
    ctx: CheckContext, judge: PermitJudge, task: Task, fired: set[str]
) -> Iterator[NikaError]:
    for effect in task_effects(task):
        if not effect.dynamic or effect.kind == "tool":
            continue
        found = list(sources(effect.target, task))
        untrusted = [s for s in found if is_untrusted(s)]
        fired.update(s.root for s in untrusted)
        if ctx.workflow.permits is None or not found:
            continue
        try:
            value = resolve(effect.target, ctx.workflow, task)
        except Unresolved:
            continue
        resolved = _resolved(effect, value)
        if resolved is None:
            continue
        refusal = judge.judge(resolved)
        if refusal is None:
            continue
        live = [s for s in untrusted if s.root not in _lifted(task)]
        if refusal.code != codes.SEC_004 or not live:
            yield NikaError(
                refusal.code,
                refusal.detail,
                details=refusal.details,
                location=ctx.locate(effect.site),
            )
            continue
        yield _auth008(ctx, task, effect, live[0], value, resolved, refusal)


def _resolved(effect: Effect, value: Any) -> Effect | None:
    if not isinstance(value, str) or not value:
        return None
    if effect.kind == "net":
        host = url_host(value)
        return None if host is None else Effect("net", host, effect.task, site=effect.site)
    return Effect(effect.kind, value, effect.task, site=effect.site)


def _auth008(
    ctx: CheckContext,
    task: Task,
    effect: Effect,
    source: Source,
    value: str,
    resolved: Effect,
    refusal: NikaError,
) -> NikaError:
    path = " → ".join((*source.path, _label(task, effect.site)))
    grant = str(refusal.details.get("grant", ""))
    missing = refusal.details.get("missing_grant")
    return ctx.error(
        codes.AUTH_008,
        f"task `{task.id}`: the untrusted value {source.root} reaches "
        f"{_label(task, effect.site)} (taint path {path}); it resolves to {value!r}, "
        f"canonical {resolved.target!r}, which escapes permits.{missing}. "
        f"Keep the value inside the bound, widen the bound ({grant}), or — if the value is "
        f"deployment-controlled — add `lift: [{{ law: taint, from: {source.root}, "
        'because: "<why it is safe>" }]`',
        effect.site,
        taint_path=[*source.path, _label(task, effect.site)],
        value=value,
        canonical=resolved.target,
    )


def _argv_tail(
    ctx: CheckContext, judge: PermitJudge, task: Task, fired: set[str]
) -> Iterator[NikaError]:
    body = task.body
    if not isinstance(body, ExecBody) or body.command is None:
        return
    for i, token in enumerate(body.command[1:], start=1):
        if not is_dynamic(token):
            continue
        untrusted = [s for s in sources(token, task) if is_untrusted(s)]
        fired.update(s.root for s in untrusted)
        live = [s for s in untrusted if s.root not in _lifted(task)]
        if ctx.workflow.permits is None or not live:
            continue
        try:
            value = resolve(token, ctx.workflow, task)
        except Unresolved:
            continue
        if isinstance(value, str) and not judge.admits_argv_token(value):
            site = (*task.path, "exec", "command", i)
            path = " → ".join((*live[0].path, f"exec.command[{i}]"))
            yield ctx.error(
                codes.AUTH_008,
                f"task `{task.id}`: the untrusted value {live[0].root} reaches exec.command[{i}] "
                f"(taint path {path}) and resolves to {value!r}, a re-entry token that spawns a "
                f"sub-command the program allowlist does not cover; pass a fixed literal, or "
                f'add `lift: [{{ law: taint, from: {live[0].root}, because: "<why>" }}]`',
                site,
                taint_path=[*live[0].path, f"exec.command[{i}]"],
                value=value,
            )


def _code_bearing(ctx: CheckContext, task: Task) -> Iterator[NikaError]:
    doors = [i for i, x in enumerate(task.lift) if x.law == "data-as-code"]
    body = task.body
    url: Any = None
    if isinstance(body, InvokeBody) and body.tool == "nika:fetch":
        url = body.args.get("url")
    klass: str | None = None
    known = False
    if isinstance(url, str):
        try:
            value = resolve(url, ctx.workflow, task) if is_dynamic(url) else url
        except Unresolved:
            value = None
        if isinstance(value, str):
            known = True
            klass = code_class(value)
    if klass is not None and not doors:
        yield ctx.error(
            codes.SEC_008,
            f"task `{task.id}` fetches {url!r}, a {klass} artifact (code-bearing: it executes "
            "when loaded) — a fetch would hide an execution sink; model the acquisition as the "
            "exec it feeds, under a program permit review can see, or, if the artifact is never "
            'loaded, add `lift: [{ law: data-as-code, because: "<why it is inert>" }]`',
            (*task.path, "invoke", "args", "url"),
            klass=klass,
        )
    if klass is None and (known or url is None):
        for i in doors:
            yield ctx.error(
                codes.AUTH_011,
                f"task `{task.id}` lifts the data-as-code law, but it fetches no code-bearing "
                "artifact — the lift lifts nothing; remove the entry",
                (*task.path, "lift", i),
            )
