"""A literal view of an `exec:` command, for the rules that read its words.

Lints are deterministic on LITERAL fragments (spec 03 §Native-first): a word carrying a
`${{ }}` island is kept as written but makes no claim, and a templated head makes no
claim at all. The argv form is read as written; a shell line is split like a POSIX
shell would split it (falling back to whitespace when its quotes do not balance), and
leading `NAME=value` assignments (and an `env` wrapper) are stepped over to reach the
program that really runs.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from dataclasses import dataclass
from typing import Final, Literal

from nika.syntax.model import ExecBody

_ASSIGNMENT: Final = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True, slots=True)
class Command:
    """The words of one command, its form, and the program at its head.

    `words` are the argv elements (non-strings dropped) or the shell line's tokens from
    the program on; `head` is the program's basename, None when the head is templated
    or missing; `pathed` tells a path-qualified head (`./bin/cat`) from a bare one.
    """

    form: Literal["argv", "shell"]
    words: tuple[str, ...]
    head: str | None
    pathed: bool
    line: str | None = None

    @property
    def args(self) -> tuple[str, ...]:
        """The words after the program."""
        return self.words[1:]

    def literal_args(self) -> tuple[str, ...]:
        """The argument words that carry no `${{ }}` island (the ones that can claim)."""
        return tuple(w for w in self.args if "${{" not in w)


def command_of(body: ExecBody) -> Command:
    """The literal view of an `exec:` body (argv `command:` or `shell:` line)."""
    if body.command is not None:
        words = [w for w in body.command if isinstance(w, str)]
        return _headed("argv", _strip_prelude(words, shell=False), None)
    line = body.shell or ""
    try:
        tokens = shlex.split(line, comments=False, posix=True)
    except ValueError:  # unbalanced quotes: the shell would refuse it; read the words anyway
        tokens = line.split()
    return _headed("shell", _strip_prelude(tokens, shell=True), line)


def _strip_prelude(tokens: list[str], *, shell: bool) -> tuple[str, ...]:
    """Drop an `env NAME=value …` wrapper, and in a shell line leading `NAME=value`
    assignments (in argv a leading `A=b` would be the program's own name)."""
    i = 0
    while shell and i < len(tokens) and _ASSIGNMENT.match(tokens[i]):
        i += 1
    if i < len(tokens) and tokens[i] == "env":
        i += 1
        while i < len(tokens) and _ASSIGNMENT.match(tokens[i]):
            i += 1
    return tuple(tokens[i:])


def _headed(form: Literal["argv", "shell"], words: tuple[str, ...], line: str | None) -> Command:
    raw = words[0] if words else ""
    if not raw or "${{" in raw:
        return Command(form, words, None, False, line)
    name = posixpath.basename(raw.rstrip("/"))
    return Command(form, words, name or None, "/" in raw, line)
