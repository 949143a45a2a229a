"""`nika:prompt` — the human gate: confirm · input · choice (PROMPT-001..002).

Without a human (`prompt_io` is None: CI, a daemon, stdin not a TTY) the answer is the
declared `default:`; with no default the task fails PROMPT-001 — never hang, never guess.
A refusal (`false`) is a value, not an error.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any, TextIO

from nika import codes
from nika.stdlib.core import PROMPT
from nika.syntax.template import stringify
from nika.tools.builtins._base import Builtin, Context, PromptIO, fail
from nika.tools.builtins._files import offload

PROMPT_001 = codes.BUILTIN_PROMPT_001
_YES = frozenset({"y", "yes", "true"})
_NO = frozenset({"n", "no", "false"})


class TerminalPromptIO:
    """Asks on a terminal; the blocking read runs in a daemon worker thread, abandoned when the
    task is cancelled (a stopped run never waits for a human to press Enter)."""

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self._in, self._out = stdin, stdout

    @classmethod
    def if_tty(cls) -> TerminalPromptIO | None:
        """One over the process's stdin/stdout when both are terminals, else None."""
        if sys.stdin.isatty() and sys.stdout.isatty():
            return cls(sys.stdin, sys.stdout)
        return None

    async def ask(self, question: str) -> str:
        """Write the question, read one line; EOFError when the input is closed."""
        self._out.write(question)
        self._out.flush()
        line = await offload(lambda stop: self._in.readline(), drain=0)
        if not line:
            raise EOFError("the prompt's input is closed")
        return line.rstrip("\r\n")


async def _ask(io: PromptIO, args: Mapping[str, Any]) -> Any:
    mode, message = args.get("mode", "confirm"), args["message"]
    has_default, default = "default" in args, args.get("default")
    if mode == "input":
        answer = await io.ask(f"{message} ")
        return answer if answer or not has_default else default
    if mode == "confirm":
        hint = "[Y/n]" if default is True else "[y/N]" if default is False else "[y/n]"
        while True:
            answer = (await io.ask(f"{message} {hint} ")).strip().lower()
            if answer in _YES or answer in _NO:
                return answer in _YES
            if not answer and has_default:
                return default
    choices = list(args["choices"])
    menu = "\n".join(f"  {i}. {stringify(c)}" for i, c in enumerate(choices, start=1))
    while True:
        answer = (await io.ask(f"{message}\n{menu}\nchoose 1-{len(choices)}: ")).strip()
        if not answer and has_default:
            return default
        if answer.isdigit() and 1 <= int(answer) <= len(choices):
            return choices[int(answer) - 1]
        named = [c for c in choices if stringify(c) == answer]
        if named:
            return named[0]


def supplied_answer(args: Mapping[str, Any], text: str) -> Any:
    """The typed answer an operator supplied without a terminal (`--answer TASK=VALUE`):
    `input` takes the text, `confirm` yes/no/true/false, `choice` a 1-based number or the
    choice itself. An answer that fits nothing fails PROMPT-003 (never a guess); args its
    declaration refuses fail as the executor fails them."""
    refusal = PROMPT.refusal(args)
    if refusal is not None:
        raise refusal.error(PROMPT.name)
    mode = args.get("mode", "confirm")
    if mode == "input":
        return text
    if mode == "confirm":
        word = text.strip().lower()
        if word in _YES or word in _NO:
            return word in _YES
        raise fail(
            codes.BUILTIN_PROMPT_003,
            f"the supplied answer {text!r} does not fit a confirm prompt; answer yes or no",
        )
    choices = list(args["choices"])
    word = text.strip()
    if word.isdigit() and 1 <= int(word) <= len(choices):
        return choices[int(word) - 1]
    named = [c for c in choices if stringify(c) == word]
    if named:
        return named[0]
    shown = ", ".join(stringify(c) for c in choices)
    raise fail(
        codes.BUILTIN_PROMPT_003,
        f"the supplied answer {text!r} is not one of the choices ({shown}); "
        f"answer a number 1-{len(choices)} or a choice as written",
    )


async def run(args: Mapping[str, Any], ctx: Context) -> Any:
    """The human's answer, or the declared default when nobody can answer."""
    if ctx.prompt_io is not None:
        try:
            return await _ask(ctx.prompt_io, args)
        except EOFError:
            pass  # the terminal went away mid-question: answer as non-interactive
    if "default" in args:
        return args["default"]
    raise fail(
        PROMPT_001,
        f"nika:prompt {args['message']!r} needs a human, and this run is "
        "non-interactive (no terminal); declare a `default:` for unattended runs or run "
        "it from a terminal",
    )


BUILTIN = Builtin(
    PROMPT,
    description=(
        "Ask a human. mode: confirm (default; returns a boolean), input (returns the typed "
        "text), choice (returns the chosen element of `choices`). Non-interactive runs use "
        "`default`, and fail without one."
    ),
    run=run,
)
