"""The long-lived surfaces over the checker: the MCP server (`nika mcp`) and the language
server (`nika lsp`), each serving the one canonical projection (`nika.check.projection`)."""
