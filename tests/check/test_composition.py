"""Rung `nika.check.composition`: static target, acyclic calls, typed call, containment."""

from __future__ import annotations

import textwrap
from pathlib import Path

from nika.check import composition
from nika.check.context import CheckContext
from nika.errors import NikaError
from nika.syntax.loader import load_document
from nika.syntax.model import build_workflow

CHILD = """
nika: child
permits: { exec: ["echo"] }
inputs:
  url: { type: string, required: true }
tasks:
  fetch:
    exec: { command: ["echo", "${{ inputs.url }}"] }
outputs:
  report: { value: "${{ tasks.fetch.output }}", type: string }
"""


def findings(
    tmp_path: Path, parent: str, child: str | None = CHILD, *, read_side_files: bool = True
) -> list[NikaError]:
    if child is not None:
        (tmp_path / "child.nika.yaml").write_text(textwrap.dedent(child))
    me = tmp_path / "parent.nika.yaml"
    me.write_text(textwrap.dedent(parent))
    doc = load_document(me.read_text(), path=str(me))
    wf, errors = build_workflow(doc)
    assert wf is not None and not errors
    ctx = CheckContext(doc, wf, me, tmp_path, read_side_files=read_side_files)
    return sorted(
        (f for f in composition.run(ctx) if isinstance(f, NikaError)), key=lambda f: f.code
    )


def codes(tmp_path: Path, parent: str, child: str | None = CHILD) -> list[str]:
    return [f.code for f in findings(tmp_path, parent, child)]


def parent(call: str, permits: str = 'permits: { exec: ["echo"] }') -> str:
    return f"nika: p\n{permits}\ntasks:\n  call:\n    {call}\n"


def test_valid_composition(tmp_path: Path) -> None:
    call = (
        "invoke: { workflow: ./child.nika.yaml, args: { url: 'https://e.com' } }\n"
        "    returns: { object: { report: string } }"
    )
    assert codes(tmp_path, parent(call)) == []


def test_static_target(tmp_path: Path) -> None:
    assert codes(tmp_path, parent("invoke: { workflow: './c-${{ const.w }}.nika.yaml' }")) == [
        "NIKA-COMP-001"
    ]
    assert codes(tmp_path, parent("invoke: { workflow: 'registry:acme/audit' }")) == [
        "NIKA-COMP-001"
    ]
    assert codes(tmp_path, parent("invoke: { workflow: 'registry:acme/audit@1.2.0' }")) == []
    assert codes(tmp_path, parent("invoke: { workflow: ./missing.nika.yaml }")) == ["NIKA-COMP-001"]
    assert codes(
        tmp_path, parent("invoke: { workflow: ./child.nika.yaml }"), child="nika: Bad\n"
    ) == ["NIKA-COMP-001"]


def test_self_launch_and_cycles(tmp_path: Path) -> None:
    assert codes(tmp_path, parent("invoke: { workflow: ./parent.nika.yaml }")) == ["NIKA-COMP-003"]
    back = "nika: c\ntasks:\n  back:\n    invoke: { workflow: ./parent.nika.yaml }\n"
    found = codes(tmp_path, parent("invoke: { workflow: ./child.nika.yaml }"), child=back)
    assert "NIKA-COMP-003" in found


def test_typed_call(tmp_path: Path) -> None:
    assert codes(tmp_path, parent("invoke: { workflow: ./child.nika.yaml }")) == ["NIKA-COMP-004"]
    assert codes(
        tmp_path, parent("invoke: { workflow: ./child.nika.yaml, args: { url: 42 } }")
    ) == ["NIKA-COMP-004"]
    extra = "invoke: { workflow: ./child.nika.yaml, args: { url: x, depth: 2 } }"
    assert codes(tmp_path, parent(extra)) == ["NIKA-COMP-004"]
    wrong = (
        "invoke: { workflow: ./child.nika.yaml, args: { url: x } }\n"
        "    returns: { object: { score: integer } }"
    )
    assert codes(tmp_path, parent(wrong)) == ["NIKA-COMP-004"]
    templated = "invoke: { workflow: ./child.nika.yaml, args: { url: '${{ inputs.u }}' } }"
    assert codes(tmp_path, parent(templated)) == []


def test_effect_containment(tmp_path: Path) -> None:
    call = "invoke: { workflow: ./child.nika.yaml, args: { url: x } }"
    assert codes(tmp_path, parent(call, 'permits: { net: { http: ["a.com"] } }')) == [
        "NIKA-COMP-002"
    ]
    assert codes(tmp_path, parent(call, "")) == ["NIKA-COMP-002"]
    assert codes(tmp_path, parent(call, "permits: { exec: true }")) == []


def test_a_child_that_is_not_a_regular_file_is_never_read(tmp_path: Path) -> None:
    found = findings(tmp_path, parent("invoke: { workflow: /dev/zero }"), child=None)
    assert [f.code for f in found] == ["NIKA-COMP-001"]
    assert "'/dev/zero'" in found[0].detail and "character device" in found[0].detail
    (tmp_path / "sub.nika.yaml").mkdir()
    found = findings(tmp_path, parent("invoke: { workflow: ./sub.nika.yaml }"), child=None)
    assert [f.code for f in found] == ["NIKA-COMP-001"] and "a directory" in found[0].detail


def test_a_child_past_the_document_cap_is_refused_after_cap_plus_one_bytes(
    tmp_path: Path,
) -> None:
    huge = CHILD + "# " + "x" * (1 << 20) + "\n"
    found = findings(tmp_path, parent("invoke: { workflow: ./child.nika.yaml }"), child=huge)
    assert [f.code for f in found] == ["NIKA-COMP-001"] and "1048576-byte cap" in found[0].detail


def test_without_side_files_no_child_is_opened(tmp_path: Path) -> None:
    calls = [
        "invoke: { workflow: ./child.nika.yaml }",  # exists, and would be a typed-call refusal
        "invoke: { workflow: ./missing.nika.yaml }",
        "invoke: { workflow: /dev/zero }",
        "invoke: { workflow: ./parent.nika.yaml }",
    ]
    for call in calls:
        assert findings(tmp_path, parent(call), read_side_files=False) == [], call
    templated = parent("invoke: { workflow: './c-${{ const.w }}.nika.yaml' }")
    assert [f.code for f in findings(tmp_path, templated, read_side_files=False)] == [
        "NIKA-COMP-001"
    ]


def test_a_child_runs_under_its_own_permits_intersected_with_the_parents(tmp_path: Path) -> None:
    call = "invoke: { workflow: ./child.nika.yaml }"
    child = (
        "nika: child\npermits: {{ {own} }}\ntasks:\n"
        '  run:\n    exec: {{ command: ["echo", "hi"] }}\n'
        '  get:\n    invoke: {{ tool: "nika:read", args: {{ path: "data/in.csv" }} }}\n'
    )
    wide = 'exec: ["echo"], tools: ["nika:read"], fs: { read: ["data/**"] }'
    # the parent grants the tool but not the file the child reads: refused
    narrow_parent = 'permits: { exec: ["echo"], tools: ["nika:read"], fs: { read: ["other/**"] } }'
    found = findings(tmp_path, parent(call, narrow_parent), child.format(own=wide))
    assert [f.code for f in found] == ["NIKA-COMP-002"]
    assert "fs.read data/in.csv" in found[0].detail and "this workflow's" in found[0].detail
    # the parent grants it all, but the child's own block does not name echo: refused too
    full_parent = f"permits: {{ {wide} }}"
    own_narrow = 'exec: ["git"], tools: ["nika:read"], fs: { read: ["data/**"] }'
    found = findings(tmp_path, parent(call, full_parent), child.format(own=own_narrow))
    assert [f.code for f in found] == ["NIKA-COMP-002"]
    assert "exec echo" in found[0].detail and "the child's own" in found[0].detail
    # inside both: clean; a child declaring MORE than it uses is fine (the meet is what runs)
    roomy = "exec: true, tools: ['nika:*'], fs: { read: ['**'] }"
    assert codes(tmp_path, parent(call, full_parent), child.format(own=wide)) == []
    assert codes(tmp_path, parent(call, full_parent), child.format(own=roomy)) == []


def test_a_target_no_os_can_name_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    # issue 14: a NUL byte once raised ValueError out of Path.resolve inside the rung.
    nul = findings(tmp_path, parent('invoke: { workflow: "\\x00" }'))
    assert [(f.code, "NUL" in f.detail) for f in nul] == [("NIKA-COMP-001", True)]
    long = parent(f"invoke: {{ workflow: ./{'d' * 5000}.nika.yaml }}")
    assert codes(tmp_path, long) == ["NIKA-COMP-001"]
    grandchild = 'nika: c\ntasks:\n  t:\n    invoke: { workflow: "\\x00" }\n'
    assert codes(tmp_path, parent("invoke: { workflow: ./child.nika.yaml }"), grandchild) == []
