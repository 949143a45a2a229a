"""Rung `nika.check.authority`: each code with a minimal failing and a minimal clean file."""

from __future__ import annotations

import pytest

from nika.check import check
from nika.check.authority import infer_permits
from nika.syntax.loader import load_document
from nika.syntax.model import build_workflow


def codes(src: str) -> list[str]:
    return [e.code for e in check("nika: x\n" + src).errors]


def hints(src: str) -> list[str]:
    return [e.code for e in check("nika: x\n" + src).hints]


READ = "tasks:\n  r:\n    invoke: { tool: nika:read, args: { path: '%s' } }\n"


def test_absent_block_with_effects_is_auth006_carrying_the_inferred_block() -> None:
    verdict = check("nika: x\n" + READ % "./data/in.json")
    (err,) = verdict.errors
    assert err.code == "NIKA-AUTH-006"
    assert err.details["inferred_permits"] == {
        "fs": {"read": ["./data/in.json"]},
        "tools": ["nika:read"],
    }
    assert 'read: ["./data/in.json"]' in err.detail


def test_absent_block_pure_compute_is_clean() -> None:
    assert codes("tasks:\n  t:\n    infer: { prompt: hi }\n") == []
    assert codes("tasks:\n  t:\n    invoke: { tool: nika:jq, args: { expression: '.' } }\n") == []


def test_inferred_block_round_trips_clean() -> None:
    body = (
        "tasks:\n  r:\n    invoke: { tool: nika:read, args: { path: ./d/a.csv } }\n"
        "  s:\n    exec: { command: [git, status] }\n"
    )
    wf, errors = build_workflow(load_document("nika: x\n" + body))
    assert wf is not None and not errors
    _, text = infer_permits(wf)
    assert codes(text + body) == []


def test_escape_under_present_block_is_sec004() -> None:
    src = "permits:\n  tools: ['nika:read']\n" + READ % "a.txt"
    assert codes(src) == ["NIKA-SEC-004"]
    ok = "permits:\n  tools: ['nika:read']\n  fs: { read: ['**'] }\n" + READ % "a.txt"
    assert codes(ok) == []


def test_interpolated_bound_is_auth007() -> None:
    head = "inputs:\n  h: { type: string, default: a.com }\n"
    bad = head + "permits:\n  env: ['${{ inputs.h }}']\ntasks:\n  t:\n    infer: { prompt: p }\n"
    assert codes(bad) == ["NIKA-AUTH-007"]
    assert codes("permits:\n  env: [CI_SHA]\ntasks:\n  t:\n    infer: { prompt: p }\n") == []


def test_untrusted_value_escaping_is_auth008_with_the_taint_path() -> None:
    head = (
        "permits:\n  fs: { read: ['datasets/**'] }\n  tools: ['nika:read']\n"
        "inputs:\n  p: { type: string, default: '%s' }\n"
    )
    verdict = check("nika: x\n" + head % "../../etc/passwd" + READ % "${{ inputs.p }}")
    (err,) = verdict.errors
    assert err.code == "NIKA-AUTH-008"
    assert err.details["taint_path"] == ["inputs.p", "invoke.args.path"]
    assert codes(head % "datasets/../datasets/q3.csv" + READ % "${{ inputs.p }}") == []


def test_untrusted_without_default_defers() -> None:
    src = (
        "permits:\n  fs: { read: ['datasets/**'] }\n  tools: ['nika:read']\n"
        "inputs:\n  p: { type: string }\n" + READ % "${{ inputs.p }}"
    )
    verdict = check("nika: x\n" + src)
    assert verdict.valid
    assert verdict.sections["effects"]["deferred"] == [
        {"task": "r", "effect": "fs.read", "value": "${{ inputs.p }}"}
    ]


def test_dangerous_env_name_is_auth009() -> None:
    tail = "tasks:\n  t:\n    exec: { command: [env] }\n"
    assert codes("permits:\n  exec: true\n  env: [LD_PRELOAD]\n" + tail) == ["NIKA-AUTH-009"]
    assert codes("permits:\n  exec: true\n  env: [CI_SHA]\n" + tail) == []


@pytest.mark.parametrize("host", ["*.github.com", "api.*.com", "api.github.*"])
def test_net_wildcard_is_auth010(host: str) -> None:
    tail = "tasks:\n  t:\n    infer: { prompt: p }\n"
    assert codes(f"permits:\n  net: {{ http: ['{host}'] }}\n" + tail) == ["NIKA-AUTH-010"]


def test_bare_star_host_is_the_visible_escape() -> None:
    src = (
        "permits:\n  net: { http: ['*'] }\n  tools: ['nika:fetch']\n"
        "tasks:\n  f:\n    invoke: { tool: nika:fetch, args: { url: 'https://a.example/x' } }\n"
    )
    assert codes(src) == []


def test_lift_that_lifts_nothing_is_auth011() -> None:
    head = (
        "permits:\n  fs: { read: ['d/**'] }\n  tools: ['nika:read']\n"
        "inputs:\n  p: { type: string, default: d/a }\nconst:\n  q: d/b\n"
    )
    lift = "    lift:\n      - { law: taint, from: inputs.p, because: reviewed }\n"
    assert codes(head + READ % "${{ const.q }}" + lift) == ["NIKA-AUTH-011"]
    assert codes(head + READ % "${{ inputs.p }}" + lift) == []


def test_floor_blocked_grant_and_target_are_sec005() -> None:
    tail = "tasks:\n  t:\n    infer: { prompt: p }\n"
    assert codes("permits:\n  net: { http: ['169.254.169.254'] }\n" + tail) == ["NIKA-SEC-005"]
    assert codes("permits:\n  net: { http: ['localhost'] }\n" + tail) == []
    fetch = "tasks:\n  f:\n    invoke: { tool: nika:fetch, args: { url: 'http://10.0.0.5/x' } }\n"
    assert "NIKA-SEC-005" in codes(
        "permits:\n  net: { http: ['*'] }\n  tools: ['nika:fetch']\n" + fetch
    )


@pytest.mark.parametrize(
    "url", ["https://d.example/m.pkl", "https://d.example/x%2epkl", "https://d.example/l.so.1.2"]
)
def test_code_bearing_fetch_is_sec008(url: str) -> None:
    head = "permits:\n  net: { http: ['d.example'] }\n  tools: ['nika:fetch']\n"
    task = f"tasks:\n  f:\n    invoke: {{ tool: nika:fetch, args: {{ url: '{url}' }} }}\n"
    assert codes(head + task) == ["NIKA-SEC-008"]
    door = "    lift:\n      - { law: data-as-code, because: 'archived, never loaded' }\n"
    assert codes(head + task + door) == []


def test_inert_fetch_is_clean_and_its_door_lifts_nothing() -> None:
    head = "permits:\n  net: { http: ['d.example'] }\n  tools: ['nika:fetch']\n"
    url = "https://d.example/m.pt.2"
    task = f"tasks:\n  f:\n    invoke: {{ tool: nika:fetch, args: {{ url: '{url}' }} }}\n"
    assert codes(head + task) == []
    door = "    lift:\n      - { law: data-as-code, because: archived }\n"
    assert codes(head + task + door) == ["NIKA-AUTH-011"]


def test_agent_whitelist_must_sit_inside_permits_tools() -> None:
    tail = "tasks:\n  a:\n    agent: { prompt: p, tools: ['nika:read'] }\n"
    assert codes("permits:\n  tools: ['nika:write']\n" + tail) == ["NIKA-SEC-004"]
    assert codes("permits:\n  tools: ['nika:*']\n" + tail) == []


def test_order_law_net_then_exec_is_sec015() -> None:
    head = "permits:\n  exec: [echo]\n  net: { http: [a.example] }\n  tools: ['nika:fetch']\n"
    fetch = "  f:\n    invoke: { tool: nika:fetch, args: { url: 'https://a.example/' } }\n"
    bad = (
        "  e:\n    with: { b: '${{ tasks.f.output }}' }\n"
        "    exec: { command: [echo, '${{ with.b }}'] }\n"
    )
    verdict = check("nika: x\n" + head + "tasks:\n" + fetch + bad)
    assert [e.code for e in verdict.errors] == ["NIKA-SEC-015"]
    assert verdict.errors[0].details["path"] == ["f", "e"]
    assert codes(head + "tasks:\n" + fetch + "  e:\n    exec: { command: [echo, hi] }\n") == []


GATE = (
    "permits:\n  exec: [git]\n  tools: ['nika:prompt']\ntasks:\n"
    "  ask:\n    invoke: { tool: nika:prompt, args: { mode: confirm, message: go? } }\n"
)


def test_consent_bare_after_is_sec014() -> None:
    bare = "  push:\n    after: { ask: success }\n    exec: { command: [git, push] }\n"
    assert codes(GATE + bare) == ["NIKA-SEC-014"]


def test_consent_affirmative_when_is_clean() -> None:
    ok = (
        "  push:\n    with: { go: '${{ tasks.ask.output }}' }\n"
        "    when: ${{ with.go == true }}\n    exec: { command: [git, push] }\n"
    )
    assert codes(GATE + ok) == []


def test_consent_when_true_on_refusal_is_refused() -> None:
    bad = (
        "  push:\n    with: { go: '${{ tasks.ask.output }}' }\n"
        "    when: ${{ with.go == true || with.go == false }}\n    exec: { command: [git, push] }\n"
    )
    assert codes(GATE + bad) == ["NIKA-SEC-014"]


def test_declared_but_unused_permit_is_a_drift_hint() -> None:
    src = "permits:\n  tools: ['nika:read', 'mcp:gh/x']\n  fs: { read: ['**'] }\n" + READ % "a"
    assert codes(src) == []
    assert hints(src) == ["NIKA-DRIFT-001"]


def test_effects_section_counts_escapes() -> None:
    verdict = check("nika: x\npermits:\n  tools: ['nika:read']\n" + READ % "a")
    assert verdict.sections["effects"]["boundary_declared"] is True
    assert verdict.sections["effects"]["escapes"] == 1
    assert verdict.sections["effects"]["needed"] == {"fs": {"read": ["a"]}, "tools": ["nika:read"]}


def test_a_compressed_pickle_is_code_bearing_at_check_and_at_run() -> None:
    from nika.netfloor import code_bearing_class

    src = (
        'nika: w\npermits: { tools: ["nika:fetch"], net: { http: ["x.test"] } }\ntasks:\n'
        '  get:\n    invoke:\n      tool: "nika:fetch"\n'
        '      args: { url: "https://x.test/m/model.pkl.gz" }\n'
    )
    (error,) = [e for e in check(src).errors if e.code == "NIKA-SEC-008"]
    assert "serialized-executable" in error.detail
    assert code_bearing_class("/m/model.pkl.gz") == "serialized-executable"  # the run's judge
