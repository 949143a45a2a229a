from __future__ import annotations

import json

GRANT = frozenset({"127.0.0.1"})


async def test_webhook_posts_the_json_payload(make, server, judge):
    server.route("/hook", "ok")
    result = await make(loopback_grants=GRANT).call(
        "nika:notify",
        {
            "channel": "webhook",
            "target": server.url("/hook"),
            "message": 'done "quoted"\nline',
            "severity": "warn",
            "data": {"run": 1},
        },
    )
    assert not result.is_error and result.structured is None
    assert json.loads(server.requests[0].body) == {
        "message": 'done "quoted"\nline',
        "severity": "warn",
        "data": {"run": 1},
    }
    assert [(e.kind, e.target) for e in judge.seen] == [("net", "127.0.0.1")]


async def test_notify_refusals(make, server):
    server.route("/fail", "no", status=502)
    ex = make(loopback_grants=GRANT)
    slack = (await ex.call("nika:notify", {"channel": "slack", "message": "x"})).error
    failed = (
        await ex.call(
            "nika:notify", {"channel": "webhook", "message": "x", "target": server.url("/fail")}
        )
    ).error
    private = (
        await ex.call(
            "nika:notify", {"channel": "webhook", "message": "x", "target": "http://10.0.0.1/hook"}
        )
    ).error
    assert slack is not None and slack.code == "NIKA-BUILTIN-NOTIFY-001"
    assert failed is not None and failed.code == "NIKA-BUILTIN-NOTIFY-002"
    assert failed.transient is True and failed.category == "network_error"
    assert private is not None and private.code == "NIKA-SEC-005"
