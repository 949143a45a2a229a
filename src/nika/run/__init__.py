"""Executing a workflow: `launch` (the `nika run` entry: check, pre-flight, execute), the
scheduler (`runner`, `execute`, `liveness`, `gates`), the four verbs (`verbs/`), the services a
run holds (providers, MCP, children, secrets, pauses) and Ray placement (`cluster/`).

It writes the journal through `nika.journal` (frames on the event bus) and never imports a
view: the CLI hands `launch` the sinks and the report a person sees (`launch.RunViews`)."""
