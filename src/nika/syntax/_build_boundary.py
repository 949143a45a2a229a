"""Build the declared boundary of the envelope (spec 01): `secrets:` store references and "
"`permits:`. Their classes (`nika.syntax.declarations`) load with the first one built."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from nika import codes
from nika.syntax._shape import Shape, show
from nika.syntax.keypath import KeyPath

if TYPE_CHECKING:
    from nika.syntax.declarations import Egress, Permits, SecretRef

_SECRET_SOURCES: Final = ("env", "file", "vault")


def entries(shape: Shape, raw: Any, key: str) -> Mapping[str, Any]:
    """The entries of an envelope map block (absent → empty; not a map → refused)."""
    if raw is None:
        return {}
    return raw if shape.mapping(raw, (key,), f"`{key}:`") else {}


def build_secrets(shape: Shape, raw: Any) -> dict[str, SecretRef]:
    out: dict[str, SecretRef] = {}
    for name, ref in entries(shape, raw, "secrets").items():
        at: KeyPath = ("secrets", name)
        if not isinstance(ref, Mapping):
            shape.report(
                codes.PARSE_014,
                f"secret `{name}` is an inline value; a secret is a store reference — write "
                "`{ source: env, key: VAR_NAME }` or `{ source: file, path: ./secret }`",
                at,
            )
            continue
        shape.closed(ref, ("source", "key", "path", "egress"), at, f"secret `{name}`")
        source = ref.get("source")
        if source not in _SECRET_SOURCES:
            got = "no `source:`" if "source" not in ref else f"source {show(source)}"
            shape.report(
                codes.PARSE_014,
                f"secret `{name}` has {got}; `source:` is one of env, file, vault (e.g. "
                "`source: env` + `key: VAR`)",
                (*at, "source") if "source" in ref else at,
            )
            continue
        need, forbid = ("path", "key") if source == "file" else ("key", "path")
        if not isinstance(ref.get(need), str) or not ref.get(need):
            shape.report(
                codes.PARSE_014,
                f"secret `{name}` with `source: {source}` needs a non-empty `{need}:`",
                at,
            )
            continue
        if forbid in ref:
            shape.report(
                codes.PARSE_014,
                f"secret `{name}` with `source: {source}` takes `{need}:`, not `{forbid}:`",
                (*at, forbid),
            )
            continue
        egress = _egress(shape, ref.get("egress"), (*at, "egress"), name)
        from nika.syntax.declarations import SecretRef

        out[name] = SecretRef(name, source, at, ref.get("key"), ref.get("path"), egress)
    return out


def _egress(shape: Shape, raw: Any, at: KeyPath, secret: str) -> tuple[Egress, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        shape.report(
            codes.PARSE_019,
            f"`egress:` of secret `{secret}` must be a list of `{{ to: … }}` entries",
            at,
        )
        return ()
    out: list[Egress] = []
    for i, entry in enumerate(raw):
        here = (*at, i)
        if not shape.mapping(entry, here, f"egress entry {i} of secret `{secret}`"):
            continue
        shape.closed(
            entry, ("to", "host", "host_from_self"), here, f"egress entry {i} of secret `{secret}`"
        )
        to = shape.string(
            entry.get("to"),
            (*here, "to"),
            "`egress[].to:` (a sink: a tool id, `exec`, `infer`, `agent`, `outputs`)",
        )
        host = entry.get("host")
        from_self = entry.get("host_from_self", False)
        if host is not None and from_self:
            shape.report(
                codes.PARSE_019,
                "`host:` and `host_from_self:` are mutually exclusive; keep one",
                here,
            )
            continue
        if host is not None and not isinstance(host, str):
            shape.misfit(codes.PARSE_019, "`egress[].host:`", "a literal host name", host,
                         (*here, "host"))
            continue
        if not isinstance(from_self, bool):
            shape.misfit(codes.PARSE_019, "`host_from_self:`", "true or false", from_self,
                         (*here, "host_from_self"))
            continue
        if to is not None:
            from nika.syntax.declarations import Egress

            out.append(Egress(to, host, from_self))
    return tuple(out)


def build_permits(shape: Shape, raw: Any) -> Permits | None:
    at: KeyPath = ("permits",)
    if raw is None:
        raw = {}
    if not shape.mapping(raw, at, "`permits:`"):
        return None
    shape.closed(raw, ("fs", "net", "exec", "tools", "env"), at, "`permits:`")
    fs = raw.get("fs", {})
    net = raw.get("net", {})
    read = write = http = None
    if shape.mapping(fs, (*at, "fs"), "`permits.fs`"):
        shape.closed(fs, ("read", "write"), (*at, "fs"), "`permits.fs`")
        read = _globs(shape, fs, "read", (*at, "fs"))
        write = _globs(shape, fs, "write", (*at, "fs"))
    if shape.mapping(net, (*at, "net"), "`permits.net`"):
        shape.closed(net, ("http",), (*at, "net"), "`permits.net`")
        http = _globs(shape, net, "http", (*at, "net"))
    exec_: bool | tuple[str, ...] | None = None
    if "exec" in raw:
        value = raw["exec"]
        if isinstance(value, bool):
            exec_ = value
        else:
            exec_ = shape.strings(
                value, (*at, "exec"), "`permits.exec` (false, true or a list of program names)"
            )
    tools = _globs(shape, raw, "tools", at)
    env = _globs(shape, raw, "env", at)
    from nika.syntax.declarations import Permits

    return Permits(at, raw, read, write, http, exec_, tools, env)


def _globs(shape: Shape, block: Mapping[str, Any], key: str, at: KeyPath) -> tuple[str, ...] | None:
    if key not in block:
        return None
    return shape.strings(block[key], (*at, key), f"`{'.'.join(map(str, (*at, key)))}`") or ()
