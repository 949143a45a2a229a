"""Network builtins: fetch · notify (stdlib §nika:fetch, extract-modes-v0.1, §nika:notify)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from nika import codes
from nika.stdlib._declare import Declaration, Problem, Rule
from nika.stdlib._paths import path_rule, reads
from nika.stdlib._shapes import BOOLEAN, anything, choice, integer, obj, text
from nika.stdlib.data import jq_rule

METHODS: Final = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD")
"""The HTTP methods `method:` accepts (GET by default)."""

BODY_METHODS: Final = ("POST", "PUT", "PATCH")
"""The methods that may carry a `form:` or `multipart:` body."""

PAYLOADS: Final = ("body", "form", "multipart")
"""The request-body args; at most one is set."""

EXTRACT_MODES: Final = (
    "markdown", "article", "text", "selector", "jq", "metadata", "links", "feed", "sitemap", "raw",
)  # fmt: skip
"""The `mode:` values, `markdown` by default."""

TRAVERSE_EXCLUDES: Final = ("mode", "selector", "jq", *PAYLOADS)
"""The args a `traverse:` crawl cannot be combined with."""

MAX_PARTS: Final = 64
"""The most parts one `multipart:` body carries."""

MAX_PAGES: Final = 25
"""The ceiling of `traverse.max_pages` (the floor is 1)."""

_SCALAR: Final = {"type": ["string", "number", "boolean"]}


def url_problem(arg: str, raw: str) -> str | None:
    """Why `raw` is not an absolute http(s) URL (None when it is one)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(raw)
        host = parts.hostname
    except ValueError:
        return f"`{arg}: {raw!r}` is not a valid URL"
    if parts.scheme not in ("http", "https") or not host:
        return f"`{arg}: {raw!r}` must be an absolute http(s) URL (e.g. https://example.com/page)"
    return None


def _url(a: Mapping[str, Any]) -> Problem | None:
    problem = url_problem("url", a["url"])
    return None if problem is None else Problem(problem, "url")


def _one_payload(a: Mapping[str, Any]) -> Problem | None:
    payloads = [k for k in PAYLOADS if k in a]
    if len(payloads) > 1:
        return Problem(f"at most one of body/form/multipart, got {' and '.join(payloads)}",
                       payloads[1])
    return None


def _body_method(a: Mapping[str, Any]) -> Problem | None:
    method = a.get("method", "GET")
    for key in ("form", "multipart"):
        if key in a and method not in BODY_METHODS:
            return Problem(f"`{key}:` needs a body-bearing method (POST, PUT, PATCH); the "
                           f"method is {method}", key)
    return None


def _own_content_type(a: Mapping[str, Any]) -> Problem | None:
    headers = a.get("headers", {})
    for key in ("form", "multipart"):
        if key in a and any(str(h).lower() == "content-type" for h in headers):
            return Problem(f"`{key}:` sets its own content-type; drop the content-type header",
                           "headers")
    return None


def _mode_pairs(a: Mapping[str, Any]) -> Problem | None:
    mode = a.get("mode", "markdown")
    if "jq" in a and mode != "jq":
        return Problem(f"`jq:` applies only with `mode: jq` (the mode is {mode})", "jq")
    if mode == "jq" and "jq" not in a:
        return Problem("`mode: jq` needs a `jq:` expression", "mode")
    if mode == "selector" and "selector" not in a:
        return Problem("`mode: selector` needs a `selector:` CSS selector", "mode")
    if "selector" in a and mode != "selector":
        return Problem(f"`selector:` applies only with `mode: selector` (the mode is {mode})",
                       "selector")
    return None


def _selector_is_css(a: Mapping[str, Any]) -> Problem | None:
    if "selector" not in a:
        return None
    import soupsieve  # only a workflow with a selector pays for the CSS engine

    try:
        soupsieve.compile(a["selector"])
    except soupsieve.SelectorSyntaxError as err:
        return Problem(f"`selector: {a['selector']!r}` is not a CSS selector "
                       f"({str(err).splitlines()[0]})", "selector")
    return None


def _crawl_alone(a: Mapping[str, Any]) -> Problem | None:
    clash = [k for k in TRAVERSE_EXCLUDES if k in a]
    if "traverse" in a and clash:
        return Problem(f"`traverse:` excludes {', '.join(clash)}", "traverse")
    return None


def _crawl_gets(a: Mapping[str, Any]) -> Problem | None:
    method = a.get("method", "GET")
    if "traverse" in a and method != "GET":
        return Problem(f"`traverse:` crawls with GET only (method is {method})", "method")
    return None


_PARTS: Final = {
    "oneOf": [
        obj({"name": text(), "value": _SCALAR}, ("name", "value")),
        obj({"name": text(), "path": text(), "filename": text(), "content_type": text()},
            ("name", "path")),
    ],
    "description": "a text part `{name, value}` or a file part `{name, path, filename?, "
                   "content_type?}` — exactly one of `value:` and `path:`",
}

FETCH = Declaration("nika:fetch", obj({
    "url": text(minLength=1),
    "method": choice(*METHODS),
    "headers": {"type": "object", "additionalProperties": _SCALAR},
    "body": anything("The request body (objects are sent as JSON)."),
    "form": {"type": "object", "additionalProperties": _SCALAR},
    "multipart": {"type": "array", "maxItems": MAX_PARTS, "items": _PARTS},
    "mode": choice(*EXTRACT_MODES),
    "jq": text(minLength=1),
    "selector": text(minLength=1),
    "traverse": obj({"max_pages": integer(1, MAX_PAGES), "respect_robots": BOOLEAN},
                    ("max_pages",)),
}, ("url",)), rules=(
    Rule("url-is-http", ("url",), _url),
    Rule("one-payload", (), _one_payload),
    Rule("payload-needs-a-body-method", ("method",), _body_method),
    Rule("payload-sets-its-content-type", ("headers",), _own_content_type),
    Rule("mode-and-its-arg", ("mode",), _mode_pairs),
    Rule("selector-is-css", ("selector",), _selector_is_css),
    Rule("crawl-alone", (), _crawl_alone),
    Rule("crawl-gets", ("method",), _crawl_gets),
    jq_rule("jq"),
    path_rule(reads("multipart", each=True, key="path")),
))  # fmt: skip


def _webhook_target(a: Mapping[str, Any]) -> Problem | None:
    if a["channel"] == "webhook" and "target" not in a:
        return Problem("`channel: webhook` needs `target:` (the webhook URL)", "target")
    return None


def _target_url(a: Mapping[str, Any]) -> Problem | None:
    problem = url_problem("target", a["target"]) if "target" in a else None
    return None if a["channel"] != "webhook" or problem is None else Problem(problem, "target")


NOTIFY = Declaration("nika:notify", obj({
    "channel": choice("webhook", "slack", "email", "discord", "sms"),
    "target": text(minLength=1),
    "message": text(),
    "severity": text(default="info"),
    "data": anything("Structured context (any JSON value)."),
}, ("channel", "message")), rules=(
    Rule("webhook-needs-a-target", ("channel",), _webhook_target,
         code=codes.BUILTIN_NOTIFY_001),
    Rule("webhook-target-is-http", ("channel", "target"), _target_url),
))  # fmt: skip

DECLARATIONS: Final = (FETCH, NOTIFY)
