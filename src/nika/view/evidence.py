"""`nika trace receipt build|explain|verify`: the run receipt at the command line.

- `build JOURNAL --workflow FILE [--output OUT]` folds the journal's verdict and the
  workflow's certificate into a receipt (stdout, or OUT); a journal that did not run that
  workflow is refused (exit 2);
- `explain RECEIPT` is a READING: every field's projection, then `unprojected: …` — the
  fields the schema cannot render (exit 0, whatever it finds: a reading judges nothing);
- `verify RECEIPT [--journal J] [--workflow W]` is the PROOF: every claim re-derived (the
  digest; the trace verdict from the journal's walk; what it proves and its certificate from
  the workflow; that the journal ran the workflow, and the lock digest it booted with) and
  printed `holds`, `BROKEN` or `unchecked` — `VERIFIED` (exit 0) only when every claim
  holds, `FORGED` (exit 2) when one is broken, `UNVERIFIED` (exit 1) when none is broken but
  some went unchecked: a receipt given alone, without its journal and workflow, is never
  VERIFIED.

A receipt past a decode bound, or one that is not a receipt at all (not an object, a
duplicate key, `NaN` or `1e999`, a lone surrogate, a missing or mistyped field, another
`receipt_format`), is `REFUSED` with its typed class and why (exit 2), never read. One whose
digest is not spelled `blake3:receipt:1:<hex>` (an earlier nika's bare sha256, another
engine's) is `OLDER FORMAT` (exit 2): neither verified nor judged forged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final, TextIO

from nika._term import printable
from nika.errors import NikaError
from nika.journal.receipt import (
    ReceiptRefused,
    build,
    decode,
    ran,
    trace_verdict,
    verify_receipt,
    workflow_identity,
)
from nika.journal.receipt_schema import explain
from nika.journal.verify import read_journal

EXIT_OK: Final = 0
EXIT_UNVERIFIED: Final = 1
EXIT_FILE: Final = 2


def receipt_command(action: str, target: Path, *, journal: Path | None = None,
                    workflow: Path | None = None, output: Path | None = None,
                    out: TextIO, err: TextIO) -> int:
    """Run one `nika trace receipt` action; returns the exit status."""
    try:
        if action == "build":
            return _build(target, workflow, output, out, err)
        doc = decode(_read(target, 1 << 20))
        if action == "explain":
            out.write("".join(line + "\n" for line in explain(doc)))
            return EXIT_OK
        return _verify(doc, journal, workflow, out)
    except ReceiptRefused as refused:
        if refused.kind == "OlderFormat":
            out.write(printable(f"OLDER FORMAT · {refused}") + "\n")
        else:
            out.write(printable(f"REFUSED · {refused} — refused before it was read (15 §the "
                                "verifier is a fortress); pass a receipt `nika trace receipt "
                                "build` wrote") + "\n")
        return EXIT_FILE
    except (OSError, NikaError) as exc:
        why = exc.detail if isinstance(exc, NikaError) else (exc.strerror or str(exc))
        err.write(printable(f"nika trace receipt: {why}") + "\n")
        return EXIT_FILE


def _read(path: Path, cap: int) -> bytes:
    from nika.guarded_read import Unreadable, read_capped, refusal

    data = read_capped(path, cap, head=True)  # never a FIFO or device; the decoder judges size
    if isinstance(data, Unreadable):
        raise refusal("the receipt", str(path), data)
    return data


def _build(journal: Path, workflow: Path | None, output: Path | None, out: TextIO,
           err: TextIO) -> int:
    if workflow is None:
        err.write("nika trace receipt build: pass --workflow FILE, the workflow the journal "
                  "ran (its certificate is folded into the receipt)\n")
        return EXIT_FILE
    data = read_journal(journal)
    certificate, semantic, source = workflow_identity(workflow)
    _, prologue = trace_verdict(data)
    if not ran(prologue, semantic, source):
        err.write(printable(f"nika trace receipt build: the journal {journal.name} did not run "
                            f"{str(workflow)!r} (its boot manifest names another workflow); "
                            "pass the workflow it ran") + "\n")
        return EXIT_FILE
    text = json.dumps(build(data, certificate, semantic), indent=1, sort_keys=True,
                      ensure_ascii=False) + "\n"
    if not text.isascii():
        # a lone surrogate from a document's text is no UTF-8: escaped, never a failed write
        text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    if output is None:
        out.write(text)
    else:
        output.write_text(text, encoding="utf-8")
    return EXIT_OK


def _verify(doc: dict[str, object], journal: Path | None, workflow: Path | None,
            out: TextIO) -> int:
    data = read_journal(journal) if journal is not None else None
    certificate = proves = source = None
    if workflow is not None:
        certificate, proves, source = workflow_identity(workflow)
    checks = verify_receipt(doc, journal=data, proves=proves, certificate=certificate,
                            source=source)
    held = sum(c.status == "holds" for c in checks)
    broken = sum(c.status == "BROKEN" for c in checks)
    unchecked = len(checks) - held - broken
    tally = f"{held} of {len(checks)} claim(s) hold"
    if broken:
        out.write(f"FORGED · {tally} · {broken} broken · {unchecked} unchecked\n")
    elif unchecked:
        out.write(f"UNVERIFIED · {tally} · {unchecked} unchecked — pass --journal and "
                  "--workflow to re-derive them\n")
    else:
        out.write(f"VERIFIED · {tally}\n")
    out.write("".join(printable(f"  {c.claim}: {c.status} · {c.detail}") + "\n"
                      for c in checks))
    return EXIT_FILE if broken else EXIT_UNVERIFIED if unchecked else EXIT_OK
