"""The exec ledger: a header row keeps an `exec:` that legitimately stays (spec 03)."""

from __future__ import annotations

from collections.abc import Callable

from nika.check.lint.ledger import read_ledger

Lints = Callable[..., list[tuple[str, str]]]

HEADER = """\
# SPDX-License-Identifier: Apache-2.0
#
# EXEC LEDGER ·
# The rows below say why each exec stays.
# | task | command | why no native path | unlock that removes it |
# |------|---------|--------------------|------------------------|
# | `pull` | curl -sL https://x.test/a.tgz | needs a client cert | fetch client certs |
# | wipe | cat | | |
#
# | late | cat x | a row after the table ended | never read |
nika: w
tasks:
  pull:
    exec: { command: ["curl", "-sL", "https://x.test/a.tgz"] }
  wipe:
    exec: { command: ["cat", "x"] }
  helper:
    exec: { command: ["node", "bin/helper.mjs"] }
  late:
    exec: { command: ["cat", "x"] }
"""


def test_only_complete_rows_inside_the_header_table_are_read() -> None:
    rows = read_ledger(HEADER)
    assert list(rows) == ["pull"]
    assert rows["pull"].why == "needs a client cert"
    assert rows["pull"].unlock == "fetch client certs"


def test_a_ledger_row_clears_the_task_warning(lints: Lints) -> None:
    assert ("native-first/001", "pull") not in lints(HEADER)
    assert ("native-first/002", "wipe") in lints(HEADER)  # an incomplete row clears nothing
    assert ("native-first/002", "late") in lints(HEADER)


def test_a_ledger_row_never_clears_a_helper_script(lints: Lints) -> None:
    row = "| helper | node bin/helper.mjs | legacy | port it |"
    src = HEADER.replace("| wipe | cat | | |", row)
    assert ("native-first/005", "helper") in lints(src)


def test_a_comment_below_the_first_yaml_line_is_not_a_ledger() -> None:
    assert read_ledger("nika: w\n# EXEC LEDGER ·\n# | t | c | why | unlock |\n") == {}
