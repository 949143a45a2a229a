"""The lethal-trifecta law (`NIKA-SEC-009`): three declared legs and a realized flow.

Every green case below is the refused baseline with exactly one thing changed, so each
test pins the one ingredient the law depends on.
"""

from __future__ import annotations

from nika.check import check
from nika.errors import NikaError

HEAD = """\
nika: t
model: mock/echo
permits:
  fs: { read: ["data/**"] }
  net: { http: ["example.com"] }
  tools: ["nika:fetch", "nika:notify", "nika:prompt"]
tasks:
"""
PAGE = """\
  page:
    invoke: { tool: "nika:fetch", args: { url: "https://example.com/x" } }
"""
DIGEST = """\
  digest:
    with: { body: "${{ tasks.page.output }}" }
    infer: { prompt: "summarize ${{ with.body }}" }
"""
POST = """\
  post:
    with: { text: "${{ tasks.digest.output }}" }
    invoke:
      tool: "nika:notify"
      args: { channel: webhook, target: "https://example.com/hook", message: "${{ with.text }}" }
"""
TRIFECTA = HEAD + PAGE + DIGEST + POST

GATE = """\
  approve:
    invoke: { tool: "nika:prompt", args: { message: "fetch and post?" } }
"""
GATED_PAGE = """\
  page:
    after: { approve: success }
    with: { go: "${{ tasks.approve.output }}" }
    when: ${{ with.go == true }}
    invoke: { tool: "nika:fetch", args: { url: "https://example.com/x" } }
"""


def sec009(src: str) -> list[NikaError]:
    return [e for e in check(src).errors if e.code == "NIKA-SEC-009"]


def test_a_complete_trifecta_is_refused_with_the_witness_path() -> None:
    (err,) = sec009(TRIFECTA)
    assert err.details == {"source": "page", "sink": "post", "path": ["page", "digest", "post"]}
    assert "page → digest → post" in err.detail
    assert "invoke: nika:prompt" in err.detail and "permits.fs.read" in err.detail
    assert err.location is not None and err.location.line == POST_LINE
    assert [e.code for e in check(TRIFECTA).errors] == ["NIKA-SEC-009"]  # nothing else refuses


POST_LINE = TRIFECTA.splitlines().index("  post:") + 1


def test_without_a_private_read_the_boundary_is_clean() -> None:
    src = TRIFECTA.replace('  fs: { read: ["data/**"] }\n', "")
    assert sec009(src) == []
    assert check(src).valid


def test_without_untrusted_ingress_it_is_clean() -> None:
    # The same flow, but the root is the workflow's own model call, not a fetch.
    own = '  page:\n    infer: { prompt: "write a haiku" }\n'
    src = HEAD + own + DIGEST + POST
    assert sec009(src) == []


MCP = """\
nika: t
model: mock/echo
permits:
  fs: { read: ["data/**"], write: [WRITE] }
  tools: ["mcp:web/get", "nika:write"]
tasks:
  page:
    invoke: { tool: "mcp:web/get", args: { q: "news" } }
  keep:
    with: { body: "${{ tasks.page.output }}" }
    invoke: { tool: "nika:write", args: { path: PATH, content: "${{ with.body }}" } }
"""


def test_without_external_egress_it_is_clean_and_an_escaping_write_is_the_leg() -> None:
    inside = MCP.replace("WRITE", '"out/**"').replace("PATH", '"out/page.txt"')
    assert sec009(inside) == []
    assert check(inside).valid
    escaping = MCP.replace("WRITE", '"../out/**"').replace("PATH", '"../out/page.txt"')
    (err,) = sec009(escaping)
    assert err.details is not None and err.details["path"] == ["page", "keep"]
    assert "an escaping permits.fs.write glob" in err.detail


def test_without_a_realized_flow_it_is_clean() -> None:
    cut = POST.replace("${{ tasks.digest.output }}", "hello").replace(
        'message: "${{ with.text }}"', 'message: "done"'
    )
    assert sec009(HEAD + PAGE + DIGEST + cut) == []


def test_a_binding_read_only_by_when_decides_and_does_not_transmit() -> None:
    gated_only = POST.replace(
        'message: "${{ with.text }}"', 'message: "a new digest is ready"'
    ).replace("  post:\n", "  post:\n    when: ${{ with.text != null }}\n")
    assert sec009(HEAD + PAGE + DIGEST + gated_only) == []


def test_a_blocking_prompt_dominating_the_path_is_clean() -> None:
    src = HEAD + GATE + GATED_PAGE + DIGEST + POST
    verdict = check(src)
    assert sec009(src) == []
    assert verdict.valid


def test_a_prompt_with_a_default_does_not_gate() -> None:
    defaulted = GATE.replace(
        'message: "fetch and post?"', 'message: "fetch and post?", default: true'
    )
    (err,) = sec009(HEAD + defaulted + GATED_PAGE + DIGEST + POST)
    assert err.details is not None and err.details["path"] == ["page", "digest", "post"]


def test_a_gate_on_a_sibling_branch_dominates_nothing() -> None:
    # The sink waits on the gate, but the content reaches it along its own data edge.
    sibling = POST.replace("  post:\n", "  post:\n    after: { approve: success }\n")
    (err,) = sec009(HEAD + GATE + PAGE + DIGEST + sibling)
    assert err.details is not None and err.details["sink"] == "post"


def test_a_terminal_route_fires_without_the_answer() -> None:
    # `terminal` admits a cancelled producer: a run paused at the gate and cancelled
    # still reaches the ping, so the gate does not stand on that route.
    always = POST.replace("  post:\n", "  post:\n    after: { digest: terminal }\n")
    assert sec009(HEAD + GATE + GATED_PAGE + DIGEST + POST) == []
    (err,) = sec009(HEAD + GATE + GATED_PAGE + DIGEST + always)
    assert err.details is not None and err.details["sink"] == "post"


def test_two_tainted_egress_tasks_are_two_findings_in_declaration_order() -> None:
    second = POST.replace("  post:", "  also:").replace("tasks.digest.output", "tasks.page.output")
    src = HEAD + PAGE + DIGEST + POST + second
    found = sec009(src)
    assert [e.details["sink"] for e in found if e.details] == ["post", "also"]
    assert [e.details["path"] for e in found if e.details] == [
        ["page", "digest", "post"],
        ["page", "also"],
    ]
    assert [e.to_dict() for e in sec009(src)] == [e.to_dict() for e in found]


def test_a_fetch_chained_onto_a_fetch_is_the_sink_and_the_first_is_not() -> None:
    chained = """\
  again:
    with: { next: "${{ tasks.page.output }}" }
    invoke: { tool: "nika:fetch", args: { url: "https://example.com/y?q=${{ with.next }}" } }
"""
    (err,) = sec009(HEAD + PAGE + chained)
    assert err.details == {"source": "page", "sink": "again", "path": ["page", "again"]}


def test_an_exec_task_is_itself_an_ingress_channel() -> None:
    src = HEAD.replace('  tools: ["nika:fetch"', '  exec: ["git"]\n  tools: ["nika:fetch"') + (
        '  log:\n    exec: { command: ["git", "log", "-5"] }\n'
        + POST.replace("tasks.digest.output", "tasks.log.output")
    )
    (err,) = sec009(src)
    assert err.details == {"source": "log", "sink": "post", "path": ["log", "post"]}
    assert "permits.net.http, permits.exec" in err.detail
