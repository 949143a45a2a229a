"""A small MCP server (the SDK's `MCPServer`, stdio) whose tool surface a test steers through
`LOCK_VARIANT`: `base` lists `echo`; `extra` adds `extra`; `drift` re-describes `echo`."""

from __future__ import annotations

import os

from mcp.server.mcpserver import MCPServer

server = MCPServer("pins", log_level="WARNING")
VARIANT = os.environ.get("LOCK_VARIANT", "base")


@server.tool(description="Echo the text back, word for word." if VARIANT == "drift" else None)
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


if VARIANT == "extra":

    @server.tool()
    def extra(text: str) -> str:
        """A tool the lock never saw."""
        return text.upper()


if __name__ == "__main__":
    server.run()
