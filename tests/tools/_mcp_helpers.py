"""Helpers shared by the McpExecutor tests: registries over the fault server, its HTTP mode,
and a view of this process's child processes (to prove no server outlives its executor)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from nika.agent.seams import ToolResult
from nika.tools.mcp_registry import McpRegistry, parse_registry

FAULT_SERVER = Path(__file__).with_name("_fault_server.py")
TOKEN = "s3cret-token-0123456789"
START = 90.0  # generous: the suite shares two cores with everything else


def fault_entry(**env: str) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(FAULT_SERVER)], "env": env}


def make_registry(servers: dict[str, Any], project: Path) -> McpRegistry:
    text = json.dumps({"mcpServers": servers})
    return parse_registry(text, path=project / "mcp.json", project_dir=project, environ={})


def _stat(pid: str) -> tuple[str, str] | None:
    """(state, parent pid) of a process, or None once it is gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    state, ppid = stat.rsplit(")", 1)[1].split()[:2]  # the fields after "(command)"
    return state, ppid


def live_children() -> set[int]:
    """Pids of this process's running children (a zombie counts as gone)."""
    me = str(os.getpid())
    found = set()
    for entry in Path("/proc").iterdir():
        info = _stat(entry.name) if entry.name.isdigit() else None
        if info is not None and info[1] == me and info[0] != "Z":
            found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    info = _stat(str(pid))
    return info is not None and info[0] != "Z"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@contextmanager
def http_fault_server() -> Iterator[str]:
    """The fault server over streamable HTTP on a free loopback port; yields its URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(FAULT_SERVER), "http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + START
        while True:
            assert proc.poll() is None, "the HTTP fault server exited during start-up"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP fault server never listened"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def text_of(result: ToolResult) -> str:
    assert not result.is_error, result.content
    return result.content
