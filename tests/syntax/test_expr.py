from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nika.errors import NikaError
from nika.syntax.expr import (
    Binary,
    Call,
    Comparison,
    Ident,
    Literal,
    Member,
    Reference,
    StatusComparison,
    comparisons,
    evaluate,
    evaluate_source,
    is_statically_boolean,
    parse,
    references,
    require_boolean_shape,
    start_offset,
    status_comparisons,
    unparse,
    walk,
)

# -- parsing ---------------------------------------------------------------------------


def test_parse_shapes() -> None:
    assert parse("inputs.topic") == Member(Ident("inputs", 0), "topic", 7)
    tree = parse("with.coverage > 80")
    assert isinstance(tree, Binary) and tree.op == ">"
    assert tree.right == Literal(80, 16)
    call = parse("x.startsWith('a')")
    assert isinstance(call, Call) and call.function == "startsWith" and call.target is not None


@pytest.mark.parametrize(
    ("source", "canonical"),
    [
        ("a && b || c", "a && b || c"),
        ("a && (b || c)", "a && (b || c)"),
        ("!(a == b)", "!(a == b)"),
        ("!!a", "!!a"),
        ("(a == b) == c", "(a == b) == c"),
        ("a ? b : c ? d : e", "a ? b : c ? d : e"),
        ("(a ? b : c) ? d : e", "(a ? b : c) ? d : e"),
        ('obj["key-with-dash"]', "obj['key-with-dash']"),
        ("with.pages[0]", "with.pages[0]"),
        ("x in ['a', \"b\"]", "x in ['a', 'b']"),
        ("-5 < x", "-5 < x"),
        ("3.14 == x", "3.14 == x"),
        ("'it\\'s\\n'", "'it\\'s\\n'"),
        ("size(x) > 0 && x.size() < 9", "size(x) > 0 && x.size() < 9"),
        ("has(a.b) ? a.b : null", "has(a.b) ? a.b : null"),
        ("[]", "[]"),
        ("(x).y", "x.y"),
    ],
)
def test_canonical_unparse(source: str, canonical: str) -> None:
    assert unparse(parse(source)) == canonical
    assert unparse(parse(canonical)) == canonical


BAD = [
    ("const.mode == 'fast' == true", "do not chain"),
    ("a < b < c", "do not chain"),
    ("a in b == c", "do not chain"),
    ("const.data.matches('^a')", "matches"),
    ("foo(x)", "foo"),
    ("contains(a, 'b')", "method"),
    ("size(a, b)", "exactly 1"),
    ("size()", "exactly 1"),
    ("x.size(1)", "0 argument"),
    ("x.contains()", "1 argument"),
    ("x.contains('a', 'b')", "1 argument"),
    ("has(1)", "reference"),
    ("has(size(x))", "reference"),
    ("a + 1", "arithmetic"),
    ("a-1", "arithmetic"),
    ("a * b", "arithmetic"),
    ("{'a': 1}", "map literals"),
    ("a = b", "=="),
    ("a & b", "&&"),
    ("inputs.x | json", "pipe"),
    ("", "empty"),
    ("   ", "empty"),
    ("(a", "`)`"),
    ("a)", "unexpected"),
    ("[1, 2", "`]`"),
    ("[1, ]", "a value"),
    ("a ? b", "`:`"),
    ("'open", "never ends"),
    ("'bad \\q'", "escape"),
    ("1.", "field name"),
    ("1e5", "not a number"),
    ("99999999999999999999", "overflows"),
    ("a.", "field name"),
    ("a.1", "field name"),
    ("a.true", "field name"),
    ("a @ b", "'@'"),
    ("x in", "ends"),
    ("!", "ends"),
    ("(" * 150 + "x" + ")" * 150, "nests deeper"),
    ("!" * 150 + "x", "nests deeper"),
    (" && ".join(["x"] * 150), "nests deeper"),
]


@pytest.mark.parametrize(("source", "fragment"), BAD)
def test_static_violations_are_var_005(source: str, fragment: str) -> None:
    with pytest.raises(NikaError) as info:
        parse(source)
    err = info.value
    assert err.code == "NIKA-VAR-005"
    assert err.category == "validation_error"
    assert fragment in err.detail
    assert err.details["expression"] == source


def test_violation_names_offset() -> None:
    with pytest.raises(NikaError) as info:
        parse("a == b != c")
    assert info.value.details["offset"] == 7


# -- static analysis -------------------------------------------------------------------


def test_references() -> None:
    refs = references(
        parse("tasks.a.output.items[0].name == with.x[with.i] && has(inputs.style) && item")
    )
    assert refs == (
        Reference("tasks", ("a", "output", "items", 0, "name")),
        Reference("with", ("x",)),
        Reference("with", ("i",)),
        Reference("inputs", ("style",)),
        Reference("item", ()),
    )
    assert [r.presence for r in refs] == [False, False, False, True, False]
    assert refs[0].dotted == "tasks.a.output.items[0].name"
    assert refs[0].position == 0


def test_references_through_calls_and_ternary() -> None:
    refs = references(parse("x.contains(with.s) ? [const.a] : obj['k'].size()"))
    assert [r.dotted for r in refs] == ["x", "with.s", "const.a", "obj.k"]


def test_references_computed_step_cuts_the_suffix() -> None:
    assert references(parse("a.b[c].d")) == (Reference("a", ("b",)), Reference("c", ()))


def test_walk_is_preorder() -> None:
    kinds = [type(n).__name__ for n in walk(parse("!a && b"))]
    assert kinds == ["Binary", "Not", "Ident", "Ident"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("true", True),
        ("'production'", False),
        ("5", False),
        ("null", False),
        ("[1]", False),
        ("const.threshold", None),
        ("with.report", None),
        ("a == 1", True),
        ("!a", True),
        ("a || b", True),
        ("has(a)", True),
        ("a.contains('x')", True),
        ("size(a)", False),
        ("a.size()", False),
        ("c ? true : false", True),
        ("c ? a : false", None),
        ("c ? 'x' : true", False),
    ],
)
def test_is_statically_boolean(source: str, expected: bool | None) -> None:
    assert is_statically_boolean(parse(source)) is expected


@pytest.mark.parametrize("source", ["const.threshold", "with.report", "'production'", "5",
                                    "size(x)", "(inputs.flag)", "x[0]"])
def test_when_shape_refused(source: str) -> None:
    with pytest.raises(NikaError) as info:
        require_boolean_shape(parse(source))
    assert info.value.code == "NIKA-VAR-005"
    assert "when:" in info.value.detail


@pytest.mark.parametrize("source", ["a > 0", "true", "c ? a : b", "has(x) && x != ''"])
def test_when_shape_accepted(source: str) -> None:
    require_boolean_shape(parse(source))


def test_comparisons() -> None:
    got = comparisons(parse("'done' == tasks.p.status || with.s in ['success', 1, x] || a < b"))
    assert got == (
        Comparison(Reference("tasks", ("p", "status")), "==", "done"),
        Comparison(Reference("with", ("s",)), "in", "success"),
        Comparison(Reference("with", ("s",)), "in", 1),
    )


def test_status_comparisons_direct_and_aliased() -> None:
    tree = parse("tasks.p.status == 'done' && with.s != 'success' && with.t == 'x'")
    assert status_comparisons(tree, {"s": "q"}) == (
        StatusComparison("p", "done", "=="),
        StatusComparison("q", "success", "!="),
    )
    assert status_comparisons(parse("tasks.p.output == 'done'")) == ()


# -- evaluation ------------------------------------------------------------------------

ENV: dict[str, Any] = {
    "inputs": {"env": "prod", "n": 3, "ratio": 0.5, "flag": True, "style": None,
               "list": [1, 2, 3], "obj": {"key-with-dash": "v", "a": {"b": 1}}},
    "with": {"coverage": 80.5, "status": "success", "warnings": 0, "log": "an ERROR here",
             "pages": ["p0", "p1"], "empty": ""},
    "item": {"kind": "article", "url": "u"},
    "index": 1,
}

GOOD = [
    ("inputs.env == 'prod'", True),
    ("inputs.env != 'prod'", False),
    ("with.coverage > 80", True),
    ("with.coverage >= 80.5", True),
    ("inputs.n < 3.5", True),
    ("inputs.n == 3.0", True),
    ("'a' < 'b'", True),
    ("false < true", True),
    ("with.status in ['success', 'skipped']", True),
    ("2 in inputs.list", True),
    ("'2' in inputs.list", False),
    ("'a' in inputs.obj", True),
    ("'z' in inputs.obj", False),
    ("null in [1, null]", True),
    ("size(with.pages) > 0", True),
    ("with.pages.size() == 2", True),
    ("size('héllo')", 5),
    ("size(inputs.obj)", 2),
    ("with.log.contains('ERROR')", True),
    ("with.log.startsWith('an')", True),
    ("with.log.endsWith('x')", False),
    ("has(inputs.style)", False),
    ("has(inputs.env)", True),
    ("has(inputs.nope.deeper)", False),
    ("has(with.pages[5])", False),
    ("has(with.pages[1])", True),
    ("has(inputs.obj['a'].b)", True),
    ("has(nothing)", False),
    ("has(inputs.style) ? inputs.style : 'be concise'", "be concise"),
    ("inputs.env == 'prod' ? 'large' : 'small'", "large"),
    ("inputs.obj['key-with-dash']", "v"),
    ("inputs.obj.a", {"b": 1}),
    ("with.pages[index]", "p1"),
    ("item.kind == 'article'", True),
    ("!inputs.flag", False),
    ("inputs.style == null", True),
    ("inputs.n != null", True),
    ("null == null", True),
    ("[1, 'a'] == [1, 'a']", True),
    ("[1, 'a'] == [1, 2]", False),
    ("inputs.obj.a == inputs.obj.a", True),
    ("[1, [2]]", [1, [2]]),
    ("-3", -3),
    ("'x\\ty'", "x\ty"),
    # error absorption: a decisive side wins over an error on the other
    ("false && inputs.missing > 1", False),
    ("inputs.missing > 1 && false", False),
    ("true || inputs.missing", True),
    ("inputs.missing || true", True),
    ("has(inputs.style) && inputs.style.x == 1", False),
]


@pytest.mark.parametrize(("source", "expected"), GOOD)
def test_evaluate(source: str, expected: Any) -> None:
    assert evaluate_source(source, ENV) == expected


BAD_EVAL = [
    ("inputs.missing == 1", "NIKA-VAR-001", "no field `missing`"),
    ("ghost.x", "NIKA-VAR-001", "not bound"),
    ("with.pages[2]", "NIKA-VAR-001", "out of range"),
    ("with.pages[-1]", "NIKA-VAR-001", "out of range"),
    ("inputs.obj['zz']", "NIKA-VAR-001", "no key"),
    ("inputs.style.x", "NIKA-VAR-001", "null"),
    ("inputs.style[0]", "NIKA-VAR-001", "null"),
    ("42 == '42'", "NIKA-VAR-006", "no implicit coercion"),
    ("inputs.flag == 1", "NIKA-VAR-006", "bool with a int"),
    ("inputs.list == 'x'", "NIKA-VAR-006", "list with a string"),
    ("inputs.style < 3", "NIKA-VAR-006", "!= null"),
    ("'a' < 1", "NIKA-VAR-006", "cannot order"),
    ("[1] < [2]", "NIKA-VAR-006", "cannot order"),
    ("'a' in 'abc'", "NIKA-VAR-006", ".contains()"),
    ("1 in 2", "NIKA-VAR-006", "list or a map"),
    ("!inputs.n", "NIKA-VAR-006", "needs a bool"),
    ("inputs.n ? 1 : 2", "NIKA-VAR-006", "`?:` condition"),
    ("inputs.n && true", "NIKA-VAR-006", "needs a bool"),
    ("inputs.missing && true", "NIKA-VAR-001", "missing"),
    ("size(inputs.n)", "NIKA-VAR-006", "size()"),
    ("inputs.n.contains('a')", "NIKA-VAR-006", "strings"),
    ("with.log.contains(1)", "NIKA-VAR-006", "strings"),
    ("inputs.env.x", "NIKA-VAR-006", "no fields"),
    ("with.pages['a']", "NIKA-VAR-006", "cannot index"),
    ("inputs.obj[0]", "NIKA-VAR-006", "cannot index"),
    ("with.pages[true]", "NIKA-VAR-006", "cannot index"),
    ("has(with.pages[inputs.nope])", "NIKA-VAR-001", "no field `nope`"),
]


@pytest.mark.parametrize(("source", "code", "fragment"), BAD_EVAL)
def test_evaluation_errors(source: str, code: str, fragment: str) -> None:
    with pytest.raises(NikaError) as info:
        evaluate_source(source, ENV)
    assert info.value.code == code
    assert fragment in info.value.detail or fragment in str(info.value.details)


def test_ternary_evaluates_only_the_chosen_branch() -> None:
    assert evaluate(parse("true ? 1 : ghost.x"), {}) == 1


def test_evaluate_does_not_mutate_env() -> None:
    env = {"with": {"xs": [1, 2]}}
    evaluate(parse("with.xs == [1, 2] && size(with.xs) == 2"), env)
    assert env == {"with": {"xs": [1, 2]}}


# -- properties ------------------------------------------------------------------------

_TOKENS = [
    "inputs", "with", "tasks", "item", "index", ".", "x", "status", "[", "]", "(", ")", "0",
    "-1", "2.5", "'s'", '"t"', "true", "false", "null", "==", "!=", "<", "<=", ">", ">=",
    "in", "&&", "||", "!", "?", ":", ",", "size", "has", "contains", "startsWith", "+",
    "{", "}", "@", "matches", " ", "'", "\\",
]


@settings(max_examples=1000, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), max_size=20))
def test_token_soup_only_raises_nika_error(tokens: list[str]) -> None:
    source = " ".join(tokens)
    try:
        tree = parse(source)
    except NikaError as err:
        assert err.code == "NIKA-VAR-005"
        return
    text = unparse(tree)
    assert unparse(parse(text)) == text
    env: dict[str, Any] = {"inputs": {"x": 1}, "with": {"x": [1]}, "item": "s", "index": 0}
    outcomes: list[tuple[Any, ...]] = []
    for _ in range(2):
        try:
            outcomes.append(("ok", evaluate(tree, env)))
        except NikaError as err:
            assert err.code in ("NIKA-VAR-001", "NIKA-VAR-006")
            outcomes.append(("err", err.code, err.detail))
    assert outcomes[0] == outcomes[1]


@given(st.text(max_size=40))
def test_arbitrary_text_only_raises_nika_error(source: str) -> None:
    try:
        parse(source)
    except NikaError as err:
        assert err.code == "NIKA-VAR-005"


_LEAF = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1).map(lambda v: Literal(v)),
    st.floats(allow_nan=False, allow_infinity=False, min_value=0, max_value=1e6).map(
        lambda v: Literal(v)),
    st.text(max_size=5).map(lambda v: Literal(v)),
    st.sampled_from([True, False, None]).map(lambda v: Literal(v)),
    st.sampled_from(["inputs", "with", "item"]).map(lambda n: Ident(n)),
)


@settings(max_examples=300)
@given(st.recursive(
    _LEAF,
    lambda inner: st.one_of(
        st.tuples(st.sampled_from(["&&", "||", "==", "<", "in"]), inner, inner).map(
            lambda t: Binary(t[0], t[1], t[2])),
        st.tuples(inner, st.sampled_from(["a", "b"])).map(lambda t: Member(t[0], t[1])),
    ),
    max_leaves=8,
))
def test_unparse_parse_roundtrip(tree: Any) -> None:
    try:
        text = unparse(tree)
        reparsed = parse(text)
    except NikaError as err:
        # a generated tree may chain relations, which the grammar refuses by design
        assert err.code == "NIKA-VAR-005"
        return
    assert unparse(reparsed) == text


@pytest.mark.parametrize(
    ("source", "offset"),
    [("  a.b.c", 2), ("x == y", 0), ("(a) && b", 1), ("[a]", 0), ("!a", 0), ("size(a)", 0),
     ("a.size()", 0), ("a ? b : c", 0), ("a[0]", 0)],
)
def test_start_offset(source: str, offset: int) -> None:
    assert start_offset(parse(source)) == offset


def test_when_shape_quotes_the_source() -> None:
    with pytest.raises(NikaError) as info:
        require_boolean_shape(parse(" const.threshold"), " const.threshold")
    assert info.value.details == {"expression": " const.threshold", "offset": 1}
