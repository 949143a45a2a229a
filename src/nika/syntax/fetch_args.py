"""The argument vocabulary of `nika:fetch` (stdlib §nika:fetch, extract-modes-v0.1).

One table for the two places that judge a fetch: the static contract (`nika check`) and the
builtin's own run-time shape check and JSON Schema.
"""

from __future__ import annotations

from typing import Final

METHODS: Final = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD")
"""The HTTP methods `method:` accepts (GET by default)."""

BODY_METHODS: Final = ("POST", "PUT", "PATCH")
"""The methods that may carry a `form:` or `multipart:` body."""

PAYLOADS: Final = ("body", "form", "multipart")
"""The request-body args; at most one is set."""

EXTRACT_MODES: Final = (
    "markdown",
    "article",
    "text",
    "selector",
    "jq",
    "metadata",
    "links",
    "feed",
    "sitemap",
    "raw",
)
"""The `mode:` values, `markdown` by default."""

TRAVERSE_EXCLUDES: Final = ("mode", "selector", "jq", *PAYLOADS)
"""The args a `traverse:` crawl cannot be combined with."""

MULTIPART_TEXT: Final = ("name", "value")
"""The keys of a text part of `multipart:`."""

MULTIPART_FILE: Final = ("name", "path", "filename", "content_type")
"""The keys of a file part of `multipart:` (its `path` rides the fs.read boundary)."""

MAX_PARTS: Final = 64
"""The most parts one `multipart:` body carries."""

MAX_PAGES: Final = 25
"""The ceiling of `traverse.max_pages` (the floor is 1)."""
