"""Rung `nika.check.blocklist`: what the run refuses as written, the check refuses first."""

from __future__ import annotations

import pytest

from nika.check import check
from nika.check.blocklist import argv_blocked, blocked, privileged

PERMITS = "permits: { exec: true }\n"


def _codes(exec_body: str) -> list[str]:
    return [
        e.code for e in check(f"nika: w\n{PERMITS}tasks:\n  t:\n    exec: {exec_body}\n").errors
    ]


@pytest.mark.parametrize(
    "body",
    [
        '{ command: ["sudo", "apt-get", "install", "-y", "jq"] }',
        '{ command: ["/usr/bin/doas", "reboot"] }',
        '{ command: ["su", "-c", "id"] }',
        '{ command: ["env", "LANG=C", "pkexec", "id"] }',
        '{ command: ["timeout", "5", "run0", "id"] }',
        '{ command: ["sudo", "${{ inputs.x }}"] }',
        '{ command: ["bash", "-c", "rm -rf /"] }',
        '{ shell: "doas rm x" }',
        '{ shell: "cd /tmp && su -" }',
        '{ shell: "make && su" }',
    ],
)
def test_the_check_refuses_what_the_run_refuses(body: str) -> None:
    assert "NIKA-SEC-001" in _codes(body)


@pytest.mark.parametrize(
    "body",
    [
        '{ command: ["echo", "sudo"] }',
        '{ command: ["./pseudo.sh", "--user", "root"] }',
        '{ command: ["${{ inputs.tool }}", "x"] }',
        '{ command: ["bash", "-c", "${{ inputs.script }}"] }',
        '{ shell: "echo pseudocode | grep -c suds" }',
        '{ shell: "git log --since=yesterday" }',
        '{ shell: "${{ inputs.line }}" }',
    ],
)
def test_silent_on_names_in_arguments_and_on_what_only_the_run_knows(body: str) -> None:
    assert "NIKA-SEC-001" not in _codes(body)


def test_one_judge_for_both_forms() -> None:
    assert privileged(["nice", "-n", "5", "gosu", "app", "id"]) == "privilege escalation (gosu)"
    assert privileged(["git", "sudo"]) is None
    assert argv_blocked(["sh", "-c", "sudo id"]) == "privilege escalation"
    assert blocked("sudo id") == blocked("x; doas id") == "privilege escalation"


def test_the_refusal_is_located_and_named() -> None:
    verdict = check(f'nika: w\n{PERMITS}tasks:\n  t:\n    exec: {{ command: ["sudo", "id"] }}\n')
    (error,) = [e for e in verdict.errors if e.code == "NIKA-SEC-001"]
    assert error.location is not None and error.location.line == 5
    assert "privilege escalation (sudo)" in error.detail and error.category == "security_error"
