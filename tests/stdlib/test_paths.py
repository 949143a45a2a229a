"""A path arg no file system can hold: `check` refuses the literal with the code and words the
run's executor gives the same value, and a template whose text outside the islands holds a NUL
byte (every value it can resolve to does); any other template is the run's to judge."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nika.check import check
from nika.cli import main
from nika.errors import NikaError
from nika.stdlib._paths import unusable, unusable_as_written, unusable_detail
from nika.tools.builtins import BuiltinExecutor
from nika.tools.builtins._base import Context
from nika.tools.builtins._paths import resolve

PERMITS = ('permits: { tools: ["nika:read", "nika:fetch"], fs: { read: ["**"] }, '
           'net: { http: ["a.example"] } }\n')
READ_NUL = (f"nika: p\n{PERMITS}tasks:\n  t:\n"
            '    invoke: { tool: "nika:read", args: { path: "in\\x00.txt" } }\n')
# The same NUL byte in the text around an island: whatever `with.x` is, the path holds it.
READ_NUL_TEMPLATE = (f"nika: p\n{PERMITS}tasks:\n  t:\n    with: {{ x: b }}\n"
                     '    invoke: { tool: "nika:read", args: { path: "in\\x00${{ with.x }}" } }\n')


def test_unusable_is_empty_or_nul_and_a_directory_may_be_empty() -> None:
    assert unusable("") and unusable("a\x00b") and unusable("\x00", directory=True)
    assert not unusable("data/in.txt") and not unusable("", directory=True)


def test_as_written_a_template_is_judged_by_its_text_outside_the_islands() -> None:
    assert unusable_as_written("in\x00${{ with.x }}") and unusable_as_written("${{ a }}/\x00")
    assert unusable_as_written("") and unusable_as_written("a\x00")  # a literal: judged whole
    assert unusable_as_written("\\${{ escaped }}\x00")  # no live island: all of it is text
    assert not unusable_as_written("${{ with.x }}") and not unusable_as_written("a/${{ b }}")
    assert not unusable_as_written("\x00${{ unclosed")  # the variables rung's refusal, not this


def test_check_refuses_a_literal_unusable_path_with_the_runs_code_and_words(
    tmp_path: Path,
) -> None:
    verdict = check(READ_NUL)
    assert [e.code for e in verdict.errors] == ["NIKA-INVOKE-002"]
    said = unusable_detail("path", "in\x00.txt")
    assert "holds a NUL byte" in said and "pass a path" in said
    assert verdict.errors[0].detail.endswith(said)


async def test_the_executor_refuses_the_same_value_with_the_same_code_and_words(
    tmp_path: Path,
) -> None:
    executor = BuiltinExecutor(Context(base_dir=tmp_path))
    result = await executor.call("nika:read", {"path": "in\x00.txt"})
    assert result.error is not None and result.error.code == "NIKA-INVOKE-002"
    assert result.error.detail.endswith(unusable_detail("path", "in\x00.txt"))
    assert check(READ_NUL).errors[0].detail.endswith(result.error.detail.split(": ", 1)[1])


@pytest.mark.parametrize("args", [
    '{ path: "${{ inputs.p }}" }',
    '{ url: "https://a.example", method: POST, multipart: [{ name: f, path: "${{ inputs.p }}" }] }',
])
def test_a_templated_path_is_the_runs_to_judge(args: str) -> None:
    tool = "nika:fetch" if "url" in args else "nika:read"
    source = (f"nika: p\n{PERMITS}inputs:\n  p: {{ type: string, default: x }}\ntasks:\n  t:\n"
              f'    invoke: {{ tool: "{tool}", args: {args} }}\n')
    assert check(source).valid


def test_check_refuses_a_nul_byte_around_an_island_with_the_runs_code_and_words() -> None:
    verdict = check(READ_NUL_TEMPLATE)
    assert [e.code for e in verdict.errors] == ["NIKA-INVOKE-002"]
    assert verdict.errors[0].detail.endswith(unusable_detail("path", "in\x00${{ with.x }}"))


async def test_the_executor_refuses_the_resolved_value_with_the_same_code_and_words(
    tmp_path: Path,
) -> None:
    executor = BuiltinExecutor(Context(base_dir=tmp_path))
    result = await executor.call("nika:read", {"path": "in\x00b"})  # with.x resolved
    assert result.error is not None and result.error.code == "NIKA-INVOKE-002"
    run_words = result.error.detail.split(": ", 1)[1].replace(repr("in\x00b"), "VALUE")
    check_words = check(READ_NUL_TEMPLATE).errors[0].detail.split(": ", 1)[1]
    assert check_words.replace(repr("in\x00${{ with.x }}"), "VALUE") == run_words


def test_the_resolver_refuses_a_derived_unusable_path(tmp_path: Path) -> None:
    with pytest.raises(NikaError) as refused:
        resolve(Context(base_dir=tmp_path), "", "output_dir")
    assert refused.value.code == "NIKA-INVOKE-002"
    assert refused.value.detail == unusable_detail("output_dir", "")


@pytest.mark.parametrize("source", [READ_NUL, READ_NUL_TEMPLATE], ids=["literal", "template"])
def test_an_unusable_path_is_no_effect_to_permit(source: str) -> None:
    verdict = check(source.replace(PERMITS, ""))
    assert sorted(e.code for e in verdict.errors) == ["NIKA-AUTH-006", "NIKA-INVOKE-002"]
    suggested = next(e.detail for e in verdict.errors if e.code == "NIKA-AUTH-006")
    assert 'tools: ["nika:read"]' in suggested and "fs:" not in suggested


@pytest.mark.parametrize("source", [READ_NUL, READ_NUL_TEMPLATE], ids=["literal", "template"])
def test_the_cli_check_and_run_refuse_it_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], source: str
) -> None:
    flow = tmp_path / "p.nika.yaml"
    flow.write_text(source, encoding="utf-8")
    assert main(["check", "--json", str(flow)]) == 1
    checked = json.loads(capsys.readouterr().out)
    assert [e["code"] for e in checked["errors"]] == ["NIKA-INVOKE-002"]
    report = tmp_path / "report.json"
    assert main(["run", str(flow), "--report", str(report)]) == 1
    capsys.readouterr()
    assert "NIKA-INVOKE-002" in report.read_text(encoding="utf-8")
    assert not (tmp_path / "in").exists()  # nothing was read or written: refused up front
