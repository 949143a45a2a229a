"""The decision kernel (spec 11): Decision Bundles, evidence snapshots and Decision Receipts.

`validate` judges a bundle by its own laws (`NIKA-DECIDE-001`), `evaluate` applies it to an
evidence snapshot (`NIKA-DECIDE-002` for a snapshot the schema refuses) and returns the
receipt, `receipt_json` spells it canonically, `verify` is the bundle owners' check of a
bundle and its fixtures. Pure compute: no I/O, no clock, no float. Imports only the bottom
layer and `nika.syntax`.
"""

from __future__ import annotations

from nika.decide.bundle import Bundle, validate
from nika.decide.kernel import evaluate, receipt_json
from nika.decide.verify import Verification, verify

__all__ = ["Bundle", "Verification", "evaluate", "receipt_json", "validate", "verify"]
