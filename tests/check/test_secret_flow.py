"""Rung `nika.check.secret_flow`: taint paths to sinks, egress sanctions, no value ever."""

from __future__ import annotations

from typing import Any

import pytest

from nika.check import check
from nika.check.render import render_human

SECRET = "secrets:\n  api_key:\n    source: env\n    key: NIKA_TEST_FLOW_KEY\n%s"
EXEC = (
    "permits:\n  exec: [curl]\ntasks:\n  call:\n    with: { k: '${{ secrets.api_key }}' }\n"
    "    exec: { command: [curl, -H, 'Authorization: ${{ with.k }}', 'https://a.example'] }\n"
)


def verdict(egress: str, body: str) -> tuple[list[str], list[dict[str, Any]]]:
    v = check("nika: x\n" + SECRET % egress + body)
    return [e.code for e in v.errors], v.sections.get("secret_flows", [])


def test_secret_into_exec_is_sec006_with_path_and_clause() -> None:
    v = check("nika: x\n" + SECRET % "" + EXEC)
    (err,) = v.errors
    assert err.code == "NIKA-SEC-006"
    assert err.details["taint_path"] == ["secrets.api_key", "tasks.call.with.k", "exec.command"]
    assert 'egress: [{ to: "exec" }]' in err.detail
    assert v.sections["secret_flows"] == [
        {
            "secret": "api_key",
            "path": ["secrets.api_key", "tasks.call.with.k", "exec.command"],
            "sink": "exec",
            "sanctioned": False,
        }
    ]


def test_egress_to_exec_sanctions_the_send() -> None:
    got, flows = verdict("    egress: [{ to: exec }]\n", EXEC)
    assert got == [] and flows[0]["sanctioned"] is True


def test_clearance_is_specific_no_cross_tool_laundering() -> None:
    got, _ = verdict("    egress: [{ to: 'nika:fetch' }]\n", EXEC)
    assert got == ["NIKA-SEC-006"]


def test_prompt_is_a_sink_and_its_output_is_clean() -> None:
    body = (
        "tasks:\n  t:\n    infer: { prompt: 'key ${{ secrets.api_key }}' }\n"
        "outputs:\n  o: '${{ tasks.t.output }}'\n"
    )
    assert verdict("", body)[0] == ["NIKA-SEC-006"]
    assert verdict("    egress: [{ to: infer }]\n", body)[0] == []


def test_tainted_capture_reaching_outputs_is_sec007() -> None:
    body = EXEC + "outputs:\n  o: '${{ tasks.call.output }}'\n"
    got, flows = verdict("    egress: [{ to: exec }]\n", body)
    assert got == ["NIKA-SEC-007"]
    assert flows[-1]["path"] == [
        "secrets.api_key",
        "tasks.call.with.k",
        "tasks.call.output",
        "outputs.o",
    ]
    assert verdict("    egress: [{ to: exec }, { to: outputs }]\n", body)[0] == []


def test_capture_re_leaks_downstream() -> None:
    body = EXEC + (
        "  next:\n    with: { r: '${{ tasks.call.output }}' }\n"
        "    infer: { prompt: '${{ with.r }}' }\n"
    )
    got, flows = verdict("    egress: [{ to: exec }]\n", body)
    assert got == ["NIKA-SEC-006"]
    assert flows[-1]["path"][-3:] == ["tasks.call.output", "tasks.next.with.r", "infer.prompt"]


@pytest.mark.parametrize(
    ("rule", "url", "ok"),
    [
        ("{ to: 'nika:fetch', host: api.example.com }", "https://api.example.com/v1", True),
        ("{ to: 'nika:fetch', host: api.example.com }", "https://evil.example/v1", False),
        ("{ to: 'nika:fetch', host_from_self: true }", "${{ secrets.api_key }}", True),
        ("{ to: 'nika:fetch', host_from_self: true }", "https://${{ secrets.api_key }}/", False),
    ],
)
def test_network_sink_integrity_layer(rule: str, url: str, ok: bool) -> None:
    body = (
        "permits:\n  net: { http: [api.example.com, evil.example] }\n  tools: ['nika:fetch']\n"
        f"tasks:\n  f:\n    invoke:\n      tool: nika:fetch\n      args:\n        url: '{url}'\n"
        "        headers: { x: '${{ secrets.api_key }}' }\n"
    )
    got, _ = verdict(f"    egress: [{rule}]\n", body)
    assert ("NIKA-SEC-006" not in got) is ok


def test_no_secrets_no_flows() -> None:
    v = check("nika: x\ntasks:\n  t:\n    infer: { prompt: hi }\n")
    assert v.valid and v.sections["secret_flows"] == []


def test_secret_value_never_appears(monkeypatch: pytest.MonkeyPatch) -> None:
    value = "s3cr3t-VALUE-9f2c1e"
    monkeypatch.setenv("NIKA_TEST_FLOW_KEY", value)
    source = "nika: x\n" + SECRET % "" + EXEC + "outputs:\n  o: '${{ tasks.call.output }}'\n"
    v = check(source, "audit.nika.yaml")
    assert {e.code for e in v.errors} == {"NIKA-SEC-006", "NIKA-SEC-007"}
    assert value not in v.to_json()
    assert value not in render_human(v, "audit.nika.yaml")
