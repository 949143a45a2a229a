from __future__ import annotations

import os
from pathlib import Path

import pytest

from nika.media.assets import file_sha256, sha256_hex, write_asset


def test_writes_then_skips_equal_bytes(tmp_path: Path) -> None:
    target = tmp_path / "a.svg"
    first = write_asset(target, b"<svg/>")
    assert first.wrote and first.bytes == 6 and first.sha256 == sha256_hex(b"<svg/>")
    os.utime(target, (1, 1))
    again = write_asset(target, b"<svg/>")
    assert not again.wrote and again.sha256 == first.sha256
    assert target.stat().st_mtime == 1  # untouched
    changed = write_asset(target, b"<svg></svg>")
    assert changed.wrote and target.read_bytes() == b"<svg></svg>"
    assert [p.name for p in tmp_path.iterdir()] == ["a.svg"]  # no temp file left


def test_a_failed_write_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "dir"
    target.mkdir()
    with pytest.raises(OSError):
        write_asset(target, b"x")  # a rename onto a directory fails
    assert [p.name for p in tmp_path.iterdir()] == ["dir"]


def test_file_sha256_refuses_what_cannot_match(tmp_path: Path) -> None:
    assert file_sha256(tmp_path / "absent", 10) is None
    assert file_sha256(tmp_path, 10) is None
    big = tmp_path / "big"
    big.write_bytes(b"x" * 11)
    assert file_sha256(big, 10) is None
    assert file_sha256(big, 11) == sha256_hex(b"x" * 11)
