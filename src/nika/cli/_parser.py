"""What every subcommand of the CLI shares: the exit codes and the argument parser."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from nika._term import terminal_columns

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2

Handler = Callable[[argparse.Namespace], int]


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, sized without `shutil`: argparse builds one per argument
    just to validate its metavar, and `shutil` (with bz2, lzma) is no part of a check."""

    def __init__(self, prog: str) -> None:
        super().__init__(prog, width=terminal_columns() - 2)


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error returns through `main` instead of calling `sys.exit`."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        raise _UsageError(f"{self.prog}: error: {message}")


class _UsageError(Exception):
    pass
