"""The strict YAML profile loader: refusals with exact codes and positions, core-schema
typing, node positions, caps at their exact boundaries, and parser robustness."""

from __future__ import annotations

import gc
import math
import unicodedata
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nika.codes import CODES
from nika.errors import Location, NikaError
from nika.syntax.loader import (
    MAX_DEPTH,
    MAX_DOCUMENT_BYTES,
    MAX_SCALAR_BYTES,
    Document,
    load_document,
)

WORKFLOW = """\
nika: sample
tasks:
  fetch:
    exec:
      command: ["curl", "-s", "https://example.com"]
    timeout: "30s"
  summarize:
    with:
      page: ${{ tasks.fetch.output }}
    infer:
      prompt: |
        Summarize:
        ${{ with.page }}
    after: { fetch: success }
outputs:
  summary: ${{ tasks.summarize.output }}
"""


def refusal(source: str | bytes) -> NikaError:
    with pytest.raises(NikaError) as caught:
        load_document(source)
    return caught.value


# (id, source, code, line, column, a fragment the detail must quote)
REFUSALS: list[tuple[str, str | bytes, str, int, int, str]] = [
    ("anchor-unreferenced", "nika: a\nbase: &shared {x: 1}\n", "NIKA-YAML-001", 2, 7, "&shared"),
    ("anchor-on-scalar", "nika: a\nk: &v 1\n", "NIKA-YAML-001", 2, 4, "&v"),
    ("alias", "nika: a\nk: 1\nj: *v\n", "NIKA-YAML-002", 3, 4, "*v"),
    ("merge-key", "nika: a\nt:\n  <<: {x: 1}\n", "NIKA-YAML-003", 3, 3, "'<<'"),
    ("duplicate-key", "nika: a\ntasks:\n  a: 1\n  b: 2\n  a: 3\n", "NIKA-PARSE-017", 5, 3,
     "first at line 3"),
    ("duplicate-quoted-vs-plain", "nika: a\n'k': 1\nk: 2\n", "NIKA-PARSE-017", 3, 1, "'k'"),
    ("duplicate-flow", "nika: a\nm: {x: 1, x: 2}\n", "NIKA-PARSE-017", 2, 11, "'x'"),
    ("custom-tag", "nika: a\nk: !foo bar\n", "NIKA-YAML-006", 2, 4, "!foo"),
    ("python-tag", "nika: a\nk: !!python/object:os.system x\n", "NIKA-YAML-006", 2, 4,
     "!!python/object:os.system"),
    ("non-core-yaml-tag", "nika: a\nk: !!binary aGk=\n", "NIKA-YAML-006", 2, 4, "!!binary"),
    ("tag-directive", "%TAG !e! tag:example.com,2000:\n---\nnika: a\nk: !e!x 1\n",
     "NIKA-YAML-006", 4, 4, "tag:example.com,2000:x"),
    ("tag-on-collection", "nika: a\nk: !!set {a: null}\n", "NIKA-YAML-006", 2, 4, "!!set"),
    ("seq-tag-on-map", "nika: a\nk: !!seq {a: 1}\n", "NIKA-YAML-006", 2, 4, "!!seq"),
    ("map-tag-on-scalar", "nika: a\nk: !!map x\n", "NIKA-YAML-006", 2, 4, "!!map"),
    ("tag-misfit", "nika: a\nk: !!int abc\n", "NIKA-YAML-006", 2, 4, "'abc'"),
    ("int-key", "nika: a\n1: x\n", "NIKA-YAML-007", 2, 1, "'1'"),
    ("null-key", "nika: a\nnull: x\n", "NIKA-YAML-007", 2, 1, "'null'"),
    ("bool-key", "nika: a\ntrue: x\n", "NIKA-YAML-007", 2, 1, "'true'"),
    ("float-key", "nika: a\n1.5: x\n", "NIKA-YAML-007", 2, 1, "'1.5'"),
    ("empty-key", "nika: a\n?\n: x\n", "NIKA-YAML-007", 2, 2, "empty key"),
    ("complex-seq-key", "nika: a\n? [a, b]\n: x\n", "NIKA-YAML-007", 2, 3, "sequence"),
    ("complex-map-key", "nika: a\n? {a: b}\n: x\n", "NIKA-YAML-007", 2, 3, "mapping"),
    ("nan", "nika: a\nk: .nan\n", "NIKA-YAML-008", 2, 4, "'.nan'"),
    ("inf", "nika: a\nk: [1, -.Inf]\n", "NIKA-YAML-008", 2, 8, "'-.Inf'"),
    ("float-overflow", "nika: a\nk: 1e400\n", "NIKA-YAML-008", 2, 4, "'1e400'"),
    ("tagged-nan", "nika: a\nk: !!float .NaN\n", "NIKA-YAML-008", 2, 4, "'.NaN'"),
    ("huge-int", "nika: a\nk: " + "7" * 4301 + "\n", "NIKA-YAML-012", 2, 4, "4301 digits"),
    ("bom", "\ufeffnika: a\n", "NIKA-YAML-011", 1, 1, "EF BB BF"),
    ("bom-bytes", b"\xef\xbb\xbfnika: a\n", "NIKA-YAML-011", 1, 1, "EF BB BF"),
    ("utf16-bom", b"\xff\xfen\x00", "NIKA-YAML-011", 1, 1, "UTF-16"),
    ("non-nfc", "nika: a\nk: caf\u0065\u0301\n", "NIKA-YAML-011", 2, 7, "U+0065 U+0301"),
    ("non-nfc-singleton", "nika: a\nk: \u212b\n", "NIKA-YAML-011", 2, 4, "U+212B"),
    ("invalid-utf8", b"nika: a\nk: caf\xc3\n", "NIKA-YAML-011", 2, 7, "C3"),
    ("lone-surrogate", "nika: a\nk: x\ud800\n", "NIKA-YAML-011", 2, 5, "U+D800"),
    ("syntax-unclosed-flow", "nika: a\nk: [1, 2\n", "NIKA-PARSE-001", 2, 4, "line 3"),  # at the `[`
    ("syntax-bad-indent", "nika: a\n  k: 1\n", "NIKA-PARSE-001", 2, 4, "line 2"),
    ("syntax-tab-indent", "nika: a\nk:\n\t- 1\n", "NIKA-PARSE-001", 3, 1, "tabs"),
    ("control-char", "nika: a\nk: \x07\n", "NIKA-PARSE-001", 2, 4, "U+0007"),
    ("multi-document", "nika: a\n---\nnika: b\n", "NIKA-PARSE-001", 2, 1, "second YAML document"),
    ("yaml-1.1-directive", "%YAML 1.1\n---\nnika: a\n", "NIKA-PARSE-001", 1, 1, "%YAML 1.1"),
    ("empty-file", "", "NIKA-PARSE-002", 1, 1, "'nika:'"),
    ("comments-only", "# nothing here\n", "NIKA-PARSE-002", 1, 1, "empty"),
    ("bare-document-marker", "---\n", "NIKA-PARSE-002", 2, 1, "empty"),
    ("sequence-root", "- nika: a\n", "NIKA-PARSE-019", 1, 1, "sequence"),
    ("scalar-root", "nika hello\n", "NIKA-PARSE-019", 1, 1, "'nika hello'"),
]


@pytest.mark.parametrize(
    ("source", "code", "line", "column", "quoted"),
    [pytest.param(*row[1:], id=row[0]) for row in REFUSALS],
)
def test_refusal_code_location_and_detail(
    source: str | bytes, code: str, line: int, column: int, quoted: str
) -> None:
    err = refusal(source)
    assert (err.code, err.location) == (code, Location(line, column))
    assert quoted in err.detail
    assert code in CODES
    wire = err.to_dict()
    assert (wire["line"], wire["column"]) == (line, column)


def test_every_yaml_profile_code_is_exercised() -> None:
    codes = {row[2] for row in REFUSALS}
    assert {f"NIKA-YAML-{n:03d}" for n in range(1, 13)} - codes == {
        "NIKA-YAML-004",  # the duplicate key's wire code is NIKA-PARSE-017 (spec 05 floor)
        "NIKA-YAML-005",
        "NIKA-YAML-009",
        "NIKA-YAML-010",  # the three caps: tested at their exact boundaries below
    }


def test_duplicate_key_matches_the_conformance_wire_shape() -> None:
    # deep/018-duplicate-mapping-key: namespace NIKA-PARSE, category validation_error.
    err = refusal(
        "nika: deep-018\ntasks:\n  a:\n    exec:\n      command: [\"echo\", \"the-real-one\"]\n"
        "    exec:\n      command: [\"echo\", \"the-shadow\"]\n"
    )
    assert (err.namespace, err.category, err.location) == (
        "NIKA-PARSE", "validation_error", Location(6, 5)
    )


def test_first_violation_in_document_order_wins() -> None:
    assert refusal("nika: a\nx: &a 1\nx: 2\n").code == "NIKA-YAML-001"
    assert refusal("nika: a\nx: 1\nx: &a 2\n").code == "NIKA-PARSE-017"
    # Byte-level gates run before any parsing, whatever the YAML holds.
    assert refusal("\ufeffa: &x 1\n").code == "NIKA-YAML-011"


def test_aliases_are_refused_before_any_expansion() -> None:
    bomb = "nika: a\nl0: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"l{i}: &{chr(97 + i)} [" + ", ".join([f"*{chr(96 + i)}"] * 9) + "]\n" for i in range(1, 9)
    )
    assert refusal(bomb).location == Location(2, 5)


# -- YAML 1.2 core schema (no Norway problem, no timestamps, 1.2 octal) ----------------------

CORE_SCHEMA: list[tuple[str, Any]] = [
    ("no", "no"), ("yes", "yes"), ("on", "on"), ("off", "off"), ("y", "y"), ("n", "n"),
    ("NO", "NO"), ("Yes", "Yes"),
    ("true", True), ("True", True), ("TRUE", True), ("false", False), ("FALSE", False),
    ("tRUE", "tRUE"),
    ("null", None), ("Null", None), ("NULL", None), ("~", None), ("", None), ("nULL", "nULL"),
    ("0o17", 15), ("017", 17), ("0x1F", 31), ("0xff", 255), ("-0x1F", "-0x1F"), ("0b101", "0b101"),
    ("+12", 12), ("-7", -7), ("0", 0), ("1_000", "1_000"), ("3:22", "3:22"),
    ("2024-01-01", "2024-01-01"), ("2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"),
    ("1.5", 1.5), (".5", 0.5), ("-.5", -0.5), ("1.", 1.0), ("1e3", 1000.0),
    ("6.8523015e+5", 685230.15),
    ("1e", "1e"), (".", "."), ("+", "+"), ("-x", "-x"), ("._", "._"),
    ("'1'", "1"), ('"true"', "true"), ("'.nan'", ".nan"), ('"null"', "null"),
    ("!!str 12", "12"), ("!!str true", "true"), ("! 12", "12"), ("!!float 3", 3.0),
    ("!!int '4'", 4), ("!!bool 'false'", False), ("!!null ''", None),
    ("|\n  text\n", "text\n"), (">-\n  folded\n  line\n", "folded line"),
]


@pytest.mark.parametrize(("text", "expected"), CORE_SCHEMA)
def test_core_schema_typing(text: str, expected: Any) -> None:
    value = load_document(f"nika: a\nv: {text}\n").root["v"]
    assert value == expected
    assert type(value) is type(expected)


def test_no_datetime_or_exotic_python_types_ever() -> None:
    doc = load_document("nika: a\nat: 2001-12-14 21:59:43.10 -5\nd: 2002-12-14\nb: !!str 1\n")
    assert doc.root == {"nika": "a", "at": "2001-12-14 21:59:43.10 -5", "d": "2002-12-14", "b": "1"}


def test_plain_data_and_key_order() -> None:
    doc = load_document(WORKFLOW, path="flows/sample.nika.yaml")
    assert list(doc.root) == ["nika", "tasks", "outputs"]
    assert list(doc.root["tasks"]) == ["fetch", "summarize"]
    assert doc.root["tasks"]["fetch"]["exec"]["command"][2] == "https://example.com"
    assert doc.root["tasks"]["summarize"]["infer"]["prompt"] == "Summarize:\n${{ with.page }}\n"
    assert (doc.source, doc.path) == (WORKFLOW, "flows/sample.nika.yaml")
    assert load_document(WORKFLOW.encode()) == Document(doc.root, WORKFLOW, None)


def test_yaml_1_2_directive_and_explicit_markers_are_fine() -> None:
    assert load_document("%YAML 1.2\n---\nnika: a\n...\n").root == {"nika": "a"}


# -- positions -------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("path", "line", "column"),
    [
        ((), 1, 1),
        (("nika",), 1, 1),
        (("tasks",), 2, 1),
        (("tasks", "fetch"), 3, 3),
        (("tasks", "fetch", "exec", "command"), 5, 7),
        (("tasks", "fetch", "exec", "command", 0), 5, 17),
        (("tasks", "fetch", "exec", "command", 2), 5, 31),
        (("tasks", "summarize", "infer", "prompt"), 11, 7),
        (("tasks", "summarize", "after", "fetch"), 14, 14),
        (("outputs", "summary"), 16, 3),
        # fallbacks: the nearest located ancestor
        (("tasks", "fetch", "nope", "deeper"), 3, 3),
        (("tasks", "fetch", "exec", "command", 9), 5, 7),
        (("tasks", "fetch", "exec", "command", -1), 5, 7),
        (("tasks", 0), 2, 1),
        (("nika", "x"), 1, 1),
        (("tasks", "fetch", "exec", "command", True), 5, 7),
    ],
)
def test_locate(path: tuple[str | int, ...], line: int, column: int) -> None:
    assert load_document(WORKFLOW).locate(path) == Location(line, column)


def test_locate_block_sequence_items_and_nested_collections() -> None:
    doc = load_document("nika: a\nsteps:\n  - run: x\n    env: {A: 1}\n  -\n    - deep\n")
    assert doc.locate(("steps", 0)) == Location(3, 5)
    assert doc.locate(("steps", 0, "env", "A")) == Location(4, 11)
    assert doc.locate(("steps", 1, 0)) == Location(6, 7)


def test_locate_columns_count_characters_not_bytes() -> None:
    doc = load_document("nika: a\nété: {clé: [ü, ok]}\n")
    assert doc.locate(("été", "clé", 1)) == Location(2, 16)


def test_locate_without_positions_is_none() -> None:
    assert Document({"a": 1}, "a: 1\n", None).locate(("a",)) is None


# -- caps at their exact boundaries ----------------------------------------------------------

def test_scalar_cap_boundary_in_bytes() -> None:
    at_cap = "é" * (MAX_SCALAR_BYTES // 2)  # 2 bytes each in UTF-8
    assert load_document(f"nika: a\nk: {at_cap}\n").root["k"] == at_cap
    err = refusal(f"nika: a\nk: '{at_cap}x'\n")
    assert (err.code, err.location) == ("NIKA-YAML-005", Location(2, 4))
    assert "65537 bytes" in err.detail
    long_key = refusal(f"nika: a\n? {'k' * (MAX_SCALAR_BYTES + 1)}\n: v\n")
    assert (long_key.code, long_key.location) == ("NIKA-YAML-005", Location(2, 3))


def _nested(levels: int) -> str:
    return "nika: a\nk: " + "[" * (levels - 1) + "]" * (levels - 1) + "\n"


def test_depth_cap_boundary_root_is_level_one() -> None:
    doc = load_document(_nested(MAX_DEPTH))
    node = doc.root["k"]
    for _ in range(MAX_DEPTH - 2):
        node = node[0]
    assert node == []
    err = refusal(_nested(MAX_DEPTH + 1))
    assert (err.code, err.location) == ("NIKA-YAML-009", Location(2, 4 + MAX_DEPTH - 1))


def test_flow_nesting_past_the_parser_guard_is_still_the_depth_cap() -> None:
    assert refusal("nika: a\nk: " + "[" * 100_000).code == "NIKA-YAML-009"


def test_deep_block_nesting_is_refused_not_a_recursion_error() -> None:
    source = "nika: a\n" + "".join(" " * i + f"k{i}:\n" for i in range(200)) + " " * 200 + "v: 1\n"
    err = refusal(source)
    # Level n (n >= 2) is the mapping under k{n-2}: line n + 1, column n.
    assert (err.code, err.location) == ("NIKA-YAML-009", Location(MAX_DEPTH + 2, MAX_DEPTH + 1))


def test_document_size_cap_boundary() -> None:
    head = "nika: a\nk: "
    filler = "x" * (MAX_DOCUMENT_BYTES - len(head) - 1)
    at_cap = head + filler + "\n"
    assert len(at_cap.encode()) == MAX_DOCUMENT_BYTES
    # At the cap the document itself is admitted; only the scalar cap can bite.
    assert refusal(at_cap).code == "NIKA-YAML-005"
    lines = "".join(f"k{i:06d}: {'v' * 40}\n" for i in range(MAX_DOCUMENT_BYTES // 50))
    fits = "nika: a\n" + lines
    fits += "z" * (MAX_DOCUMENT_BYTES - len(fits.encode()) - 4) + ": 1\n"
    assert len(fits.encode()) == MAX_DOCUMENT_BYTES
    assert len(load_document(fits).root) == MAX_DOCUMENT_BYTES // 50 + 2
    err = refusal(fits + "\n")
    assert (err.code, err.location) == ("NIKA-YAML-010", Location(1, 1))
    assert str(MAX_DOCUMENT_BYTES + 1) in err.detail


def test_collector_state_is_restored() -> None:
    assert gc.isenabled()
    load_document(WORKFLOW)
    assert gc.isenabled()
    refusal("nika: a\nk: *x\n")
    assert gc.isenabled()


# -- robustness properties -------------------------------------------------------------------

def _load_or_refuse(source: str | bytes) -> None:
    try:
        doc = load_document(source)
    except NikaError as err:
        assert err.code in CODES and err.code != "NIKA-IMPL-001", err
        assert err.location is not None and err.location.line >= 1 and err.location.column >= 1
    else:
        assert isinstance(doc.root, dict)


YAML_ALPHABET = st.sampled_from(
    [*"abk:- \n\t#&*!|>'\"[]{},?%@`.~01e", "<<", "---", "...", "é", "\u0301", "\x00", "\ufeff"]
)


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(st.text(max_size=200), st.binary(max_size=200), st.lists(YAML_ALPHABET).map("".join))
)
def test_random_input_is_a_document_or_a_nika_error(source: str | bytes) -> None:
    _load_or_refuse(source)


@st.composite
def mutated_workflow(draw: st.DrawFn) -> str:
    text = WORKFLOW
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        piece = draw(YAML_ALPHABET)
        if action == "insert":
            text = text[:at] + piece + text[at:]
        elif action == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 8)) :]
        else:
            text = text[:at] + piece + text[at + 1 :]
    return text


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_workflow())
def test_mutated_workflow_is_a_document_or_a_nika_error(source: str) -> None:
    _load_or_refuse(source)


# -- round trip through a minimal emitter ----------------------------------------------------

def _quote(text: str) -> str:
    """A double-quoted YAML scalar: ASCII printables raw, everything else escaped."""
    out = []
    for ch in text:
        if ch in '"\\':
            out.append("\\" + ch)
        elif " " <= ch <= "~":
            out.append(ch)
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(f"\\U{ord(ch):08x}")
    return '"' + "".join(out) + '"'


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return _quote(value)


def _emit(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(value, dict):
        if not value:
            return [pad + "{}"]
        lines = []
        for key, item in value.items():
            if isinstance(item, dict | list) and item:
                lines.append(f"{pad}{_quote(key)}:")
                lines.extend(_emit(item, indent + 2))
            else:
                lines.append(f"{pad}{_quote(key)}: {_emit(item, 0)[0]}")
        return lines
    if isinstance(value, list):
        if not value:
            return [pad + "[]"]
        lines = []
        for item in value:
            if isinstance(item, dict | list) and item:
                lines.append(f"{pad}-")
                lines.extend(_emit(item, indent + 2))
            else:
                lines.append(f"{pad}- {_emit(item, 0)[0]}")
        return lines
    return [pad + _scalar(value)]


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**30), 10**30),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(st.characters(exclude_categories=["Cs"]), max_size=20),
    st.sampled_from(["no", "yes", "on", "off", "0o17", "2024-01-01", "<<", "null", "~", ".nan"]),
)
KEYS = st.text(max_size=8)


def _data(levels: int) -> st.SearchStrategy[Any]:
    """Plain data nesting at most `levels` collections deep."""
    if levels == 0:
        return SCALARS
    inner = _data(levels - 1)
    return st.one_of(
        SCALARS, st.lists(inner, max_size=3), st.dictionaries(KEYS, inner, max_size=3)
    )


def _same(left: Any, right: Any) -> bool:
    if type(left) is not type(right):
        return False
    if isinstance(left, dict):
        return list(left) == list(right) and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, float):
        return left == right and math.copysign(1, left) == math.copysign(1, right)
    return bool(left == right)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(KEYS, _data(4), min_size=1, max_size=4))
def test_round_trip_through_a_simple_emitter(data: dict[str, Any]) -> None:
    text = "\n".join(_emit(data, 0)) + "\n"
    assert unicodedata.is_normalized("NFC", text)
    assert _same(load_document(text).root, data)


def test_node_reads_the_authored_data_at_a_key_path() -> None:
    doc = load_document(WORKFLOW)
    assert doc.node(("tasks", "fetch", "exec", "command", 0)) == "curl"
    assert doc.node(("tasks", "fetch", "timeout")) == "30s"
    assert doc.node(()) is doc.root
    # absent keys, out-of-range or non-int indexes, and steps into scalars are all None
    for path in [
        ("tasks", "nope"),
        ("tasks", "fetch", "exec", "command", 3),
        ("tasks", "fetch", "exec", "command", -1),
        ("tasks", "fetch", "exec", "command", "0"),
        ("tasks", "fetch", "timeout", "s"),
    ]:
        assert doc.node(path) is None, path
