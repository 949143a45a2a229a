"""The run-time JSON Schemas agree with the checker's static arg contracts
(`nika.check._builtin_contracts`) on the stdlib page's own examples, both ways."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from nika.check._builtin_contracts import CONTRACTS
from nika.tools.builtins import BUILTINS

VALID: list[tuple[str, dict[str, Any]]] = [
    ("nika:log", {"level": "info", "message": "Processing", "data": {"foo": "bar"}}),
    ("nika:emit", {"event_type": "custom.event", "payload": {"a": 1}}),
    ("nika:assert", {"condition": True, "message": "Expected non-empty result"}),
    ("nika:prompt", {"message": "Approve deploy to production?", "default": False}),
    ("nika:prompt", {"mode": "choice", "message": "Which?", "choices": ["a", "b"]}),
    ("nika:wait", {"duration": "5s"}),
    ("nika:wait", {"until": "2026-05-23T09:00:00Z", "timeout": "1h"}),
    ("nika:read", {"path": "./config.yaml", "encoding": "utf-8"}),
    ("nika:write", {"path": "./out.md", "content": "...", "create_dirs": True, "overwrite": True}),
    ("nika:edit", {"path": "./file.md", "find": "old", "replace": "new"}),
    ("nika:glob", {"pattern": "./src/**/*.rs", "exclude": ["**/target/**"]}),
    ("nika:grep", {"pattern": "TODO:", "path": "./src", "case_insensitive": False}),
    ("nika:jq", {"expression": ".items | map(.price) | add", "input": {"items": []}}),
    ("nika:json_diff", {"before": {"a": 1}, "after": {"a": 2}}),
    ("nika:validate", {"data": {}, "schema": {"type": "object"}, "format": "json"}),
    ("nika:json_merge_patch", {"target": {}, "patch": {}}),
    (
        "nika:convert",
        {"input": "a,b\n", "from": "csv", "to": "json", "has_header": True, "formula_guard": False},
    ),
    ("nika:uuid", {"version": "v7"}),
    ("nika:date", {"op": "now"}),
    ("nika:hash", {"algo": "blake3", "content": "x", "encoding": "hex"}),
    ("nika:fetch", {"url": "https://example.com/article", "mode": "article"}),
    (
        "nika:fetch",
        {"url": "https://api.example.com/v1/users", "mode": "jq", "jq": "[.data.users[].email]"},
    ),
    ("nika:fetch", {"url": "https://example.com", "traverse": {"max_pages": 5}}),
    (
        "nika:notify",
        {
            "channel": "webhook",
            "target": "https://hooks.example.com/x",
            "message": "Done",
            "severity": "info",
            "data": {"run": 1},
        },
    ),
    ("nika:inspect", {"view": "cost"}),
]

INVALID: list[tuple[str, dict[str, Any]]] = [
    ("nika:log", {"level": "loud", "message": "x"}),
    ("nika:emit", {"event_type": "Bad Type"}),
    ("nika:read", {}),
    ("nika:jq", {"expression": ".", "query": "."}),
    ("nika:convert", {"input": "x", "from": "xml", "to": "json"}),
    ("nika:uuid", {"version": "v1"}),
    ("nika:hash", {"content": "x", "algo": "md5"}),
    ("nika:fetch", {"url": "https://example.com", "mode": "llm-txt"}),
    ("nika:fetch", {"url": "https://example.com", "traverse": {"max_pages": 26}}),
    ("nika:inspect", {"view": "memory"}),
]


def _static(name: str, args: dict[str, Any]) -> list[str]:
    found: list[str] = []
    CONTRACTS[name](args, lambda code, detail, key: found.append(f"{code} {detail}"))
    return found


def _schema(name: str, args: dict[str, Any]) -> list[str]:
    validator = Draft202012Validator(BUILTINS[name].schema)
    return [e.message for e in validator.iter_errors(args)]


@pytest.mark.parametrize(("name", "args"), VALID)
def test_both_accept_the_documented_examples(name: str, args: dict[str, Any]) -> None:
    assert _static(name, args) == []
    assert _schema(name, args) == []


@pytest.mark.parametrize(("name", "args"), INVALID)
def test_both_refuse_the_same_violations(name: str, args: dict[str, Any]) -> None:
    assert _static(name, args) != []
    assert _schema(name, args) != []
