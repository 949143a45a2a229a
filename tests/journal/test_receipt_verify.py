"""`nika trace receipt verify` re-derives every claim it reports (issue 28 item 3), through
the real CLI: a claim it was not given the evidence for is `unchecked`, never holding; a
forged claim is BROKEN even under a recomputed digest; a malformed receipt is REFUSED with
its class, never a traceback."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from nika.journal.receipt import digest_of
from nika.view.evidence import receipt_command

NIKA = [sys.executable, "-m", "nika.cli"]

FLOW = """\
nika: receipt-demo
model: mock/echo
permits:
  exec: ["echo"]
tasks:
  think:
    infer: { prompt: "one infer", max_tokens: 50 }
  stamp:
    after: { think: success }
    exec: { command: ["echo", "sealed"] }
"""


def _nika(root: Path, *args: str) -> tuple[int, str, str]:
    done = subprocess.run([*NIKA, *args], cwd=root, capture_output=True, text=True,
                          timeout=120, check=False, env={**os.environ, "NO_COLOR": "1"})
    return done.returncode, done.stdout, done.stderr


class Runs:
    """Two workflows, each run once, and the receipt of the first."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "flow.nika.yaml").write_text(FLOW, encoding="utf-8")
        (root / "other.nika.yaml").write_text(FLOW.replace("one infer", "another infer"),
                                              encoding="utf-8")
        self.journal = self._run("flow.nika.yaml")
        self.other = self._run("other.nika.yaml")
        code, out, err = _nika(root, "trace", "receipt", "build", str(self.journal),
                               "--workflow", "flow.nika.yaml")
        assert code == 0, err
        self.receipt: dict[str, Any] = json.loads(out)

    def _run(self, flow: str) -> Path:
        before = set((self.root / ".nika" / "traces").glob("*.ndjson"))
        code, _, err = _nika(self.root, "run", flow)
        assert code == 0, err
        [journal] = set((self.root / ".nika" / "traces").glob("*.ndjson")) - before
        return journal

    def verify(self, doc: dict[str, Any] | bytes, *args: str) -> tuple[int, str, str]:
        path = self.root / "receipt.json"
        if isinstance(doc, bytes):
            path.write_bytes(doc)
        else:
            doc = {k: v for k, v in doc.items() if k != "digest"}
            doc["digest"] = digest_of(doc)  # a forger recomputes the unkeyed digest
            path.write_text(json.dumps(doc), encoding="utf-8")
        return _nika(self.root, "trace", "receipt", "verify", str(path), *args)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    return Runs(tmp_path_factory.mktemp("receipts"))


def _both(runs: Runs) -> tuple[str, ...]:
    return ("--journal", str(runs.journal), "--workflow", "flow.nika.yaml")


def _line(out: str, claim: str) -> str:
    [line] = [x for x in out.splitlines() if x.startswith(f"  {claim}: ")]
    return line


def test_the_genuine_receipt_verifies_only_with_its_evidence(runs: Runs) -> None:
    code, out, _ = runs.verify(runs.receipt, *_both(runs))
    assert code == 0 and out.startswith("VERIFIED") and "unchecked" not in out
    code, out, _ = runs.verify(runs.receipt)  # alone: nothing but its own consistency
    assert code == 1 and out.startswith("UNVERIFIED · ")
    assert _line(out, "digest").startswith("  digest: holds")
    for claim in ("proves", "certificate", "journal ran the workflow", "trace_verdict.head"):
        assert ": unchecked · " in _line(out, claim)
    code, out, _ = runs.verify(runs.receipt, "--journal", str(runs.journal))
    assert code == 1 and ": holds" in _line(out, "trace_verdict.verdict")
    assert ": unchecked" in _line(out, "certificate")


def test_a_receipt_invented_from_scratch_never_verifies_alone(runs: Runs) -> None:
    invented = {"assertions": [], "certificate": {"terminates": True},
                "lock_digest": "unrecorded", "proves": "0" * 64, "receipt_format": 1,
                "trace_verdict": {"chain": "intact", "events": 1, "head": "1" * 64,
                                  "outcome": "completed", "sealed": True, "verdict": "clean"}}
    code, out, _ = runs.verify(invented)
    assert code == 1 and out.startswith("UNVERIFIED")
    code, out, _ = runs.verify(invented, *_both(runs))
    assert code == 2 and out.startswith("FORGED")


@pytest.mark.parametrize(("edit", "claim"), [
    (lambda r: r.update(certificate={**r["certificate"], "terminates": False}), "certificate"),
    (lambda r: r["trace_verdict"].update(verdict="finding"), "trace_verdict.verdict"),
    (lambda r: r["trace_verdict"].update(sealed=True), "trace_verdict.sealed"),
    (lambda r: r["trace_verdict"].update(outcome="failed"), "trace_verdict.outcome"),
], ids=["certificate", "verdict", "sealed", "outcome"])
def test_a_forged_claim_is_broken_under_a_recomputed_digest(
        runs: Runs, edit: Any, claim: str) -> None:
    forged = json.loads(json.dumps(runs.receipt))
    edit(forged)
    code, out, _ = runs.verify(forged, *_both(runs))
    assert code == 2 and out.startswith("FORGED"), out
    assert ": BROKEN" in _line(out, claim) and ": holds" in _line(out, "digest")


def test_a_receipt_whose_journal_never_ran_its_workflow_is_forged(runs: Runs) -> None:
    # the trace verdict of another workflow's run, the certificate and hash of this one:
    # every claim but the one joining them holds
    _, out, _ = _nika(runs.root, "trace", "receipt", "build", str(runs.other),
                      "--workflow", "other.nika.yaml")
    mixed = {**runs.receipt, "trace_verdict": json.loads(out)["trace_verdict"]}
    code, out, _ = runs.verify(mixed, "--journal", str(runs.other), "--workflow",
                               "flow.nika.yaml")
    assert code == 2 and out.startswith("FORGED")
    assert ": BROKEN" in _line(out, "journal ran the workflow")
    assert ": holds" in _line(out, "certificate") and ": holds" in _line(out, "proves")
    assert ": holds" in _line(out, "trace_verdict.head")


@pytest.mark.parametrize("data", [
    b'{"receipt_format":1,"a":NaN}  ',
    b'{"receipt_format":1,"n":1e999}',
    b'{"receipt_format":1,"":"\\ud800"}',
    b'{"proves":"\\udfff","x":[1,2]} ',
    b"\xff\xfe{[\x00junk\"\\\x80]]}}}}{{{\x01\x02",
    b'[{"receipt_format":1}, 2, 3]  ',
    b'{"receipt_format":2,"digest":""}',
    b'{"receipt_format":true,"a":[]}',
])
def test_a_malformed_receipt_is_refused_never_a_traceback(runs: Runs, data: bytes) -> None:
    assert len(data) <= 32
    for action in ("verify", "explain"):
        path = runs.root / "bad.json"
        path.write_bytes(data)
        code, out, err = _nika(runs.root, "trace", "receipt", action, str(path))
        assert code == 2 and out.startswith("REFUSED · "), (out, err)
        assert "Traceback" not in err and err == ""


def test_a_format_2_receipt_without_a_certificate_is_refused(runs: Runs) -> None:
    doc = {k: v for k, v in runs.receipt.items() if k != "certificate"}
    doc["receipt_format"] = 2
    code, out, _ = runs.verify(doc, *_both(runs))
    assert code == 2 and out.startswith("REFUSED · Malformed") and "receipt_format" in out
    doc["receipt_format"] = 1
    code, out, _ = runs.verify(doc, *_both(runs))
    assert code == 2 and out.startswith("REFUSED · Malformed") and "`certificate`" in out


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
    | st.text(max_size=8) | st.sampled_from(["intact", "clean", "completed", "unrecorded"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["receipt_format", "proves", "certificate", "trace_verdict",
                         "assertions", "lock_digest", "digest", "chain", "events", "head",
                         "sealed", "verdict", "outcome", "x"]), inner, max_size=7),
    max_leaves=24)


_RECEIPTISH = st.fixed_dictionaries({
    "receipt_format": st.just(1) | _JSONISH, "proves": st.text(max_size=70) | _JSONISH,
    "certificate": st.dictionaries(st.text(max_size=6), _JSONISH, max_size=3),
    "trace_verdict": st.dictionaries(st.sampled_from(
        ["chain", "events", "head", "outcome", "sealed", "verdict", "x"]), _JSONISH,
        max_size=7),
    "assertions": st.lists(_JSONISH, max_size=3), "lock_digest": st.text(max_size=12),
    "digest": st.text(max_size=70)})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=_JSONISH | _RECEIPTISH, raw=st.binary(max_size=64), pick=st.booleans(),
       evidence=st.booleans())
def test_any_input_ends_in_an_exit_code_never_an_exception(
        runs: Runs, doc: Any, raw: bytes, pick: bool, evidence: bool) -> None:
    path = runs.root / "fuzz.json"
    path.write_bytes(json.dumps(doc).encode() if pick else raw)
    for action in ("verify", "explain"):
        out, err = io.StringIO(), io.StringIO()
        code = receipt_command(action, path, out=out, err=err,
                               journal=runs.journal if evidence else None,
                               workflow=runs.root / "flow.nika.yaml" if evidence else None)
        assert code in (0, 1, 2) and (out.getvalue() or err.getvalue())
