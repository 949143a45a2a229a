"""The one permits judge: canonical comparison on both sides, default-deny, the floor."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nika.check.effects import SHELL, Effect
from nika.check.judge import PermitJudge, canonical_glob, canonical_host, canonical_path


def verdict(permits: Mapping[str, Any] | None, kind: str, target: str) -> str | None:
    err = PermitJudge.from_permits(permits).judge(Effect(kind, target, "t"))  # type: ignore[arg-type]
    return None if err is None else err.code


@pytest.mark.parametrize(
    ("grant", "path", "admitted"),
    [
        ("datasets/**", "datasets/../datasets/q3.csv", True),
        ("datasets/**", "../../etc/passwd", False),
        ("datasets/**", "datasets/../../etc/passwd", False),
        ("./**", "../../etc/passwd", False),  # `**` never grants an escape
        ("./**", "a/b.txt", True),
        ("**", "/etc/passwd", False),  # nor an absolute path
        ("./examples/f.csv", "./examples/f.csv", True),  # canonical on both sides
        ("examples/f.csv", ".//examples/./f.csv", True),
        ("src/**", "src", True),  # a walk root the grant covers wholly
        ("/tmp/**", "/tmp/x", True),
        ("../shared/**", "../shared/x", True),
        ("../shared/**", "../../shared/x", False),
    ],
)
def test_path_canonicalisation_table(grant: str, path: str, admitted: bool) -> None:
    got = verdict({"fs": {"read": [grant]}}, "fs.read", path)
    assert (got is None) is admitted


@pytest.mark.parametrize(
    ("grant", "host", "admitted"),
    [
        ("API.Example.com", "api.example.com", True),
        ("api.example.com.", "API.EXAMPLE.COM", True),
        ("api.example.com", "api.example.com:8443", True),
        ("api.example.com", "evil.example.com", False),
        ("*.example.com", "api.example.com", False),  # a wildcard grants nothing
        ("*", "anything.example", True),
    ],
)
def test_host_canonicalisation_table(grant: str, host: str, admitted: bool) -> None:
    assert (verdict({"net": {"http": [grant]}}, "net", host) is None) is admitted


def test_canonical_forms() -> None:
    assert canonical_path("./a//b/../c") == "a/c"
    assert canonical_path("//etc") == "/etc"
    assert canonical_glob("./**") == "**"
    assert canonical_glob("!./a/../b/*.md") == "!b/*.md"
    assert canonical_host("https://user@Bücher.example:443/x") == "xn--bcher-kva.example"


def test_absent_block_is_zero_authority_but_pure_builtins_pass() -> None:
    assert verdict(None, "exec", "git") == "NIKA-SEC-004"
    assert verdict(None, "tool", "nika:jq") is None
    assert verdict({}, "tool", "nika:jq") is None  # {} ≡ absent, and jq needs no grant
    assert verdict({}, "tool", "mcp:x/y") == "NIKA-SEC-004"


def test_default_deny_per_category() -> None:
    permits = {"tools": ["nika:read"]}
    assert verdict(permits, "fs.read", "a") == "NIKA-SEC-004"
    assert verdict(permits, "tool", "nika:write") == "NIKA-SEC-004"


def test_tools_negation_last_rule_wins() -> None:
    permits = {"tools": ["nika:*", "!nika:write"]}
    assert verdict(permits, "tool", "nika:read") is None
    assert verdict(permits, "tool", "nika:write") == "NIKA-SEC-004"


def test_exec_forms() -> None:
    assert verdict({"exec": ["git"]}, "exec", "git") is None
    assert verdict({"exec": ["git"]}, "exec", "rm") == "NIKA-SEC-004"
    assert verdict({"exec": ["git"]}, "exec", SHELL) == "NIKA-SEC-004"
    assert verdict({"exec": True}, "exec", SHELL) is None
    assert verdict({"exec": False}, "exec", "git") == "NIKA-SEC-004"


def test_reentry_tokens_need_an_explicit_grant() -> None:
    assert not PermitJudge.from_permits({"exec": ["find"]}).admits_argv_token("--exec")
    assert PermitJudge.from_permits({"exec": ["find", "--exec"]}).admits_argv_token("--exec")
    assert PermitJudge.from_permits({"exec": ["find"]}).admits_argv_token("-name")


def test_env_exact_names_and_dangerous_floor() -> None:
    assert verdict({"env": ["CI_SHA"]}, "env", "CI_SHA") is None
    assert verdict({"env": ["CI_SHA"]}, "env", "OTHER") == "NIKA-SEC-004"
    assert verdict({"env": ["LD_PRELOAD"]}, "env", "LD_PRELOAD") == "NIKA-SEC-004"


def test_ssrf_floor_and_exact_loopback_carve_out() -> None:
    assert verdict({"net": {"http": ["*"]}}, "net", "169.254.169.254") == "NIKA-SEC-005"
    assert verdict({"net": {"http": ["localhost"]}}, "net", "localhost") is None
    # exact-host: a granted `localhost` does not clear 127.0.0.1
    assert verdict({"net": {"http": ["localhost"]}}, "net", "127.0.0.1") == "NIKA-SEC-005"
    assert verdict({"net": {"http": ["10.0.0.1"]}}, "net", "10.0.0.1") == "NIKA-SEC-005"


def test_refusal_names_task_effect_and_the_line_to_add() -> None:
    err = PermitJudge.from_permits({"tools": []}).judge(Effect("fs.write", "./out/x", "save"))
    assert err is not None and err.code == "NIKA-SEC-004"
    assert "save" in err.detail and "out/x" in err.detail
    assert 'permits: { fs: { write: ["out/x"] } }' in err.detail


def test_dynamic_target_defers_only_inside_an_open_category() -> None:
    judge = PermitJudge.from_permits({"net": {"http": []}})
    assert judge.judge(Effect("net", "${{ inputs.u }}", "t", dynamic=True)) is None
    assert (
        PermitJudge.from_permits({}).judge(Effect("net", "${{ inputs.u }}", "t", dynamic=True))
        is not None
    )


_SEG = st.sampled_from(["a", "b", "data", ".", "..", "", "x.csv"])
_PATH = st.lists(_SEG, min_size=1, max_size=6).map("/".join)
_LITERAL = st.lists(st.sampled_from(["a", "b", "data", "..", "."]), min_size=0, max_size=3)
_TAIL = st.sampled_from(["**", "*", "*.csv", "**/*.csv", "x.csv"])


@settings(max_examples=300, deadline=None)
@given(prefix=_LITERAL, tail=_TAIL, path=_PATH, absolute=st.booleans())
def test_never_grants_outside_the_literal_prefix(
    prefix: list[str], tail: str, path: str, absolute: bool
) -> None:
    raw = "/".join([*prefix, tail])
    glob = ("/" if absolute else "") + raw
    judge = PermitJudge.from_permits({"fs": {"read": [glob]}})
    if not judge.admits(Effect("fs.read", path, "t")):
        return
    canon = canonical_path(path)
    segments = canonical_glob(glob).split("/")
    cut = next((i for i, seg in enumerate(segments) if "*" in seg), len(segments))
    literal = "/".join(segments[:cut])
    if literal == "":
        # A wildcard right at the root: the path stays under that same root.
        assert canon.startswith("/") if absolute else not canon.startswith(("/", ".."))
    elif cut == len(segments):
        assert canon == literal
    else:
        assert canon == literal or canon.startswith(literal + "/"), (glob, path, canon)
