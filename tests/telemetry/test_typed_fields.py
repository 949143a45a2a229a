"""The OpenTelemetry sink reads typed fields: renaming a field of an agent event or of a frame
fails the type check at the line that reads it, instead of silently dropping an attribute."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "nika"

# (module, class, field, the sink file that reads the field)
RENAMES = (
    ("agent/observe.py", "ToolCompleted", "result_bytes", "otel.py"),
    ("agent/observe.py", "Finished", "turns", "otel.py"),
    ("agent/observe.py", "ModelCalled", "finish_reason", "otel.py"),
    ("journal/frames.py", "WorkflowStarted", "workflow", "otel_sink.py"),
    ("journal/frames.py", "WorkflowEnded", "error", "otel_sink.py"),
)


def _rename(text: str, cls: str, name: str) -> str:
    """`text` with the field `name` of class `cls` renamed `{name}_renamed`."""
    body = re.search(rf"^class {cls}\(.*?(?=^\S|\Z)", text, re.M | re.S)
    assert body is not None, cls
    declared = re.compile(rf"^    {name}:", re.M)
    assert declared.search(body.group()), f"{cls}.{name}"
    renamed = declared.sub(f"    {name}_renamed:", body.group(), count=1)
    return text[: body.start()] + renamed + text[body.end():]


def test_renaming_a_field_the_otel_sink_reads_fails_the_type_check(tmp_path: Path) -> None:
    shadows: list[str] = []
    for module in sorted({m for m, *_ in RENAMES}):
        text = (SRC / module).read_text(encoding="utf-8")
        for _, cls, name, _ in (r for r in RENAMES if r[0] == module):
            text = _rename(text, cls, name)
        shadow = tmp_path / module.replace("/", "_")
        shadow.write_text(text, encoding="utf-8")
        shadows += ["--shadow-file", str(SRC / module), str(shadow)]
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), *shadows,
         str(SRC / "telemetry" / "otel.py"), str(SRC / "telemetry" / "otel_sink.py")],
        cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stdout + result.stderr
    for _, cls, name, reader in RENAMES:
        pattern = rf"telemetry/{reader}:\d+: error: \"{cls}\" has no attribute \"{name}\""
        assert re.search(pattern, result.stdout), (cls, name, result.stdout)
