"""The MCP server registry: file resolution, the two server shapes, secrets kept out of sight."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from nika.errors import NikaError
from nika.tools.mcp_registry import (
    HttpServer,
    StdioServer,
    load_registry,
    parse_registry,
    safe_url,
)

TOKEN = "tok-9f8e7d6c5b4a"


def _write(path: Path, doc: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    return path


def _parse(doc: Any, project: Path = Path("/proj"), **environ: str) -> Any:
    text = doc if isinstance(doc, str) else json.dumps(doc)
    path = Path("/proj/.nika/mcp.json")
    return parse_registry(text, path=path, project_dir=project, environ=environ)


def test_default_location_absent_means_no_servers(tmp_path: Path) -> None:
    registry = load_registry(tmp_path, environ={})
    assert registry.servers == {}
    assert registry.path is None
    assert ".nika/mcp.json" in registry.where()


def test_default_location_is_read(tmp_path: Path) -> None:
    _write(tmp_path / ".nika" / "mcp.json", {"mcpServers": {"time": {"command": "srv"}}})
    registry = load_registry(tmp_path, environ={})
    assert list(registry.servers) == ["time"]
    assert registry.path == tmp_path / ".nika" / "mcp.json"


def test_a_server_name_may_start_with_a_digit() -> None:
    # `mcp:21st/<tool>` is a valid tool reference, so its server must be declarable
    registry = _parse({"mcpServers": {"21st": {"command": "srv"}}})
    assert list(registry.servers) == ["21st"]


def test_env_var_overrides_default_and_explicit_overrides_env(tmp_path: Path) -> None:
    _write(tmp_path / ".nika" / "mcp.json", {"mcpServers": {"a": {"command": "a"}}})
    from_env = _write(tmp_path / "env.json", {"mcpServers": {"b": {"command": "b"}}})
    explicit = _write(tmp_path / "flag.json", {"mcpServers": {"c": {"command": "c"}}})
    env = {"NIKA_MCP_CONFIG": str(from_env)}
    assert list(load_registry(tmp_path, environ=env).servers) == ["b"]
    assert list(load_registry(tmp_path, explicit=explicit, environ=env).servers) == ["c"]


def test_relative_explicit_path_resolves_against_the_project(tmp_path: Path) -> None:
    _write(tmp_path / "conf" / "m.json", {"mcpServers": {"x": {"command": "x"}}})
    registry = load_registry(tmp_path, explicit=Path("conf/m.json"), environ={})
    assert registry.path == tmp_path / "conf" / "m.json"


@pytest.mark.parametrize("how", ["explicit", "env"])
def test_a_named_registry_must_exist(tmp_path: Path, how: str) -> None:
    missing = tmp_path / "missing.json"
    with pytest.raises(NikaError) as err:
        if how == "explicit":
            load_registry(tmp_path, explicit=missing, environ={})
        else:
            load_registry(tmp_path, environ={"NIKA_MCP_CONFIG": str(missing)})
    assert err.value.code == "NIKA-MCP-001"
    assert str(missing) in err.value.detail
    assert "NIKA_MCP_CONFIG" in err.value.detail


def test_stdio_entry_paths_resolve_against_the_project() -> None:
    registry = _parse(
        {
            "mcpServers": {
                "local": {"command": "bin/srv", "args": ["--x", "1"], "cwd": "data"},
                "onpath": {"command": "mcp-server-time"},
            }
        }
    )
    local = registry.servers["local"]
    assert local == StdioServer(
        name="local", command="/proj/bin/srv", args=("--x", "1"), cwd=Path("/proj/data")
    )
    onpath = registry.servers["onpath"]
    assert isinstance(onpath, StdioServer)
    assert onpath.command == "mcp-server-time"
    assert onpath.cwd == Path("/proj")


def test_http_entry_and_env_references_are_expanded() -> None:
    registry = _parse(
        {
            "mcpServers": {
                "search": {
                    "url": "https://mcp.example.com/mcp",
                    "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"},
                },
                "db": {"command": "db-mcp", "env": {"DB_PASSWORD": "${DB_PW}"}},
            }
        },
        SEARCH_TOKEN=TOKEN,
        DB_PW=TOKEN,
    )
    search = registry.servers["search"]
    assert isinstance(search, HttpServer)
    assert search.headers == {"Authorization": f"Bearer {TOKEN}"}
    db = registry.servers["db"]
    assert isinstance(db, StdioServer)
    assert db.env == {"DB_PASSWORD": TOKEN}


def test_secrets_never_show_in_repr_or_description() -> None:
    registry = _parse(
        {
            "mcpServers": {
                "h": {"url": f"https://u:{TOKEN}@h.example/mcp?k={TOKEN}", "headers": {"X": TOKEN}},
                "s": {"command": "srv", "env": {"K": TOKEN}},
            }
        }
    )
    for spec in registry.servers.values():
        assert TOKEN not in repr(spec)
        assert TOKEN not in spec.describe()
        assert TOKEN in spec.secrets
    assert TOKEN not in repr(registry)


def test_missing_env_reference_names_the_variable_not_a_value() -> None:
    with pytest.raises(NikaError) as err:
        _parse({"mcpServers": {"s": {"command": "srv", "env": {"K": "${NOT_SET_ANYWHERE}"}}}})
    assert "NOT_SET_ANYWHERE" in err.value.detail
    assert "export" in err.value.detail


@pytest.mark.parametrize(
    ("doc", "needle"),
    [
        ("{not json", "not valid JSON: Expecting property name enclosed in double quotes (line 1"),
        ({"servers": {}}, '"mcpServers"'),
        ({"mcpServers": []}, '"mcpServers"'),
        ({"mcpServers": {"Bad_Name": {"command": "x"}}}, "rename it"),
        ({"mcpServers": {"s": "x"}}, "must be an object"),
        ({"mcpServers": {"s": {}}}, "neither 'command' (stdio) nor 'url' (HTTP)"),
        ({"mcpServers": {"s": {"command": "x", "url": "http://h"}}}, "keep exactly one"),
        ({"mcpServers": {"s": {"command": "x", "headers": {}}}}, "unknown field(s) ['headers']"),
        ({"mcpServers": {"s": {"command": ""}}}, "non-empty string"),
        ({"mcpServers": {"s": {"command": "x", "args": "a b"}}}, "list of strings"),
        ({"mcpServers": {"s": {"url": "ftp://h/mcp"}}}, "http(s)://"),
        ({"mcpServers": {"s": {"command": "x", "env": {"K": 1}}}}, "quote it"),
    ],
)
def test_malformed_registry_is_a_prescriptive_error(doc: Any, needle: str) -> None:
    with pytest.raises(NikaError) as err:
        _parse(doc)
    assert err.value.code == "NIKA-MCP-001"
    assert err.value.transient is False
    assert "/proj/.nika/mcp.json" in err.value.detail
    assert needle in err.value.detail


def test_a_value_given_in_the_wrong_type_is_not_quoted() -> None:
    with pytest.raises(NikaError) as err:
        _parse({"mcpServers": {"s": {"url": "https://h/mcp", "headers": {"X": TOKEN, "Y": 3}}}})
    assert TOKEN not in err.value.detail


def test_safe_url_drops_credentials_query_and_fragment() -> None:
    assert safe_url("https://u:p@host:8443/a/mcp?token=t#f") == "https://host:8443/a/mcp"
    assert safe_url("http://127.0.0.1:9/mcp") == "http://127.0.0.1:9/mcp"
