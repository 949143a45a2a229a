"""YAML 1.2 core-schema scalar typing (YAML 1.2.2 §10.3), plus the profile's tag gate.

Plain scalars become null / bool / int / float / str by the core-schema regular
expressions only: `no`, `on`, `2024-01-01`, `3:22`, `1_000` and `0b1` stay strings.
"""

from __future__ import annotations

import math
import re
from typing import Any, Final

from nika import codes

_CORE_PREFIX: Final = "tag:yaml.org,2002:"
CORE_TAGS: Final = frozenset({"str", "int", "float", "bool", "null", "map", "seq"})
"""The tags (suffixes of `tag:yaml.org,2002:`) the profile admits."""

INT_DIGITS_CAP: Final = 4300
"""The longest decimal integer CPython converts safely (`sys.int_info.default_max_str_digits`)."""

_NULLS: Final = frozenset({"", "~", "null", "Null", "NULL"})
_TRUES: Final = frozenset({"true", "True", "TRUE"})
_FALSES: Final = frozenset({"false", "False", "FALSE"})
_INT10: Final = re.compile(r"[-+]?[0-9]+")
_INT8: Final = re.compile(r"0o[0-7]+")
_INT16: Final = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT: Final = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INF: Final = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
_NAN: Final = re.compile(r"\.(?:nan|NaN|NAN)")
# Only these first characters can start a non-string plain scalar: a cheap pre-filter.
_TYPED_STARTS: Final = frozenset("-+.0123456789~nNtTfF")


class ScalarRefusal(Exception):
    """A scalar the profile refuses; the caller attaches the code and the position."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def core_tag(tag: str) -> str | None:
    """`tag:yaml.org,2002:int` -> `int`; None for a tag outside the core schema."""
    if tag.startswith(_CORE_PREFIX):
        suffix = tag[len(_CORE_PREFIX) :]
        if suffix in CORE_TAGS:
            return suffix
    return None


def resolve_plain(text: str) -> Any:
    """Type an untagged plain scalar by the core schema; refuse non-finite floats."""
    if text and text[0] not in _TYPED_STARTS:
        return text
    value = _typed(text)
    return text if value is _UNTYPED else value


def resolve_tagged(text: str, kind: str) -> Any:
    """Apply an explicit core tag (`!!int 12`); refuse a value the tag cannot describe."""
    if kind == "str":
        return text
    value = _typed(text)
    fits = (
        (kind == "null" and value is None)
        or (kind == "bool" and isinstance(value, bool))
        or (kind == "int" and type(value) is int)
        or (kind == "float" and type(value) in (int, float))
    )
    if not fits:
        raise ScalarRefusal(
            codes.YAML_006,
            f"the tag !!{kind} does not fit the value {text!r}: drop the tag and let the "
            f"core schema type the value, or write a value that is a valid {kind}",
        )
    return float(value) if kind == "float" else value


class _Untyped:
    """Sentinel: the text matches no core-schema type, so it is a string."""


_UNTYPED: Final = _Untyped()


def _typed(text: str) -> Any:
    if text in _NULLS:
        return None
    if text in _TRUES:
        return True
    if text in _FALSES:
        return False
    if _INT10.fullmatch(text):
        return _decimal_int(text)
    if _INT8.fullmatch(text):
        return int(text[2:], 8)
    if _INT16.fullmatch(text):
        return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        value = float(text)
        if math.isinf(value):
            raise ScalarRefusal(
                codes.YAML_008,
                f"the number {_short(text)} overflows to infinity, and the Nika YAML profile "
                "admits only finite floats: write a smaller number, or quote it if you mean text",
            )
        return value
    if _INF.fullmatch(text) or _NAN.fullmatch(text):
        raise ScalarRefusal(
            codes.YAML_008,
            f"{text!r} is a non-finite float, which the Nika YAML profile refuses (the canonical "
            f"JSON has no NaN or Infinity): write a finite number, or quote it ('{text}') "
            "if you mean the text",
        )
    return _UNTYPED


def _decimal_int(text: str) -> int:
    digits = len(text) - (text[0] in "+-")
    if digits > INT_DIGITS_CAP:
        raise ScalarRefusal(
            codes.YAML_012,
            f"the integer {_short(text)} has {digits} digits, past the {INT_DIGITS_CAP}-digit "
            "cap: quote it to keep it as text",
        )
    return int(text)


def _short(text: str) -> str:
    return repr(text) if len(text) <= 40 else repr(text[:37] + "...")
