"""Fixtures for the provider wire tests: the scripted loopback server the real SDKs talk to."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.providers._servers import ScriptedServer, scripted_server


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    with scripted_server() as s:
        yield s
