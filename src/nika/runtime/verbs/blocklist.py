"""The `exec:` shell blocklist (02 §exec Security · `NIKA-SEC-001`).

A detector, not a guarantee: the argv form is the structural fix for injection. It judges
every `shell:` line, and an argv whose program is a shell given an inline script (`sh -c …`),
since that is the same door spelled as a list. Patterns are matched on the line with runs of
whitespace collapsed, so spacing tricks do not slip past.
"""

from __future__ import annotations

import re
from typing import Final

from nika.errors import NikaError

_SHELLS: Final = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "fish"})

_RULES: Final[tuple[tuple[str, str], ...]] = (
    (r"\brm\s+(\S+\s+)*?(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\s+(\S+\s+)*?(/\*?|~/?|\$HOME/?|\*)(\s|;|&|\||$)",
     "recursive delete of a root, home or wildcard"),
    (r"\brm\s+.*--no-preserve-root", "rm --no-preserve-root"),
    (r"\bmkfs(\.\w+)?\b", "formatting a filesystem (mkfs)"),
    (r"\bdd\s+.*\bof=/dev/(sd|hd|nvme|xvd|vd|disk|mmcblk)", "dd onto a block device"),
    (r">\s*/dev/(sd|hd|nvme|xvd|vd|disk|mmcblk)", "writing onto a block device"),
    (r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:", "a fork bomb"),
    (r"\bchmod\s+(-[a-zA-Z]*\s+)*0?777\s+/(\s|$)", "chmod 777 on the root"),
    (r"\bchmod\s+-[a-zA-Z]*R[a-zA-Z]*\s+0?777\b", "recursive chmod 777"),
    (r"\bchown\s+-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+/(\s|$)", "recursive chown of the root"),
    (r"\b(curl|wget|fetch)\b[^|]*\|\s*(sudo\s+)?(ba|da|z|k)?sh\b",
     "piping a download into a shell"),
    (r"\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(python|perl|ruby|node)\d*\b",
     "piping a download into an interpreter"),
    (r"\b(ba|z|k)?sh\s+<\(\s*(curl|wget)\b", "running a downloaded script"),
    (r"\bbase64\s+(-d|--decode)\b[^|]*\|\s*(ba|z|k)?sh\b", "running a decoded payload"),
    (r"(^|[;&|(]\s*)(shutdown|reboot|halt|poweroff)(\s|;|&|$)", "halting or rebooting the machine"),
    (r"(^|[;&|(]\s*)init\s+[06]\b", "changing the runlevel"),
    (r"\bkill\s+-9\s+-1\b", "killing every process"),
    (r"\bsudo\b", "privilege escalation (sudo)"),
    (r"\bsu\s+(-|root)\b", "privilege escalation (su)"),
    (r"/dev/tcp/", "a /dev/tcp socket (reverse shell)"),
    (r"\b(nc|ncat|netcat)\b.*\s-[a-zA-Z]*e\s", "netcat with -e (reverse shell)"),
    (r">\s*/etc/(passwd|shadow|sudoers|hosts)\b", "overwriting a system file"),
    (r"\bauthorized_keys\b", "touching ssh authorized_keys"),
    (r"\bcrontab\s+-r\b", "deleting the crontab"),
    (r"\bhistory\s+-c\b", "clearing the shell history"),
    (r"\biptables\s+-F\b", "flushing the firewall"),
    (r"\bsetenforce\s+0\b", "disabling SELinux"),
    (r"\bmv\s+(\S+\s+)*/(\s|$)", "moving the root"),
    (r"\bfind\s+/\s+.*-delete\b", "deleting from the root with find"),
    (r"\bchattr\s+-i\b", "removing immutability flags"),
    (r"\beval\s+\"?\$\((curl|wget)\b", "evaluating a download"),
)

_COMPILED: Final = tuple((re.compile(pattern), why) for pattern, why in _RULES)


def blocked(line: str) -> str | None:
    """Why `line` is refused, or None when no rule matches."""
    text = " ".join(line.split())
    for pattern, why in _COMPILED:
        if pattern.search(text):
            return why
    return None


def inline_script(argv: list[str]) -> str | None:
    """The script of an argv that runs a shell with `-c`, else None."""
    if len(argv) >= 3 and argv[0].rsplit("/", 1)[-1] in _SHELLS and argv[1].startswith("-") \
            and "c" in argv[1]:
        return argv[2]
    return None


def refuse_blocked(task: str, line: str) -> None:
    """Raise `NIKA-SEC-001` when `line` matches the blocklist."""
    why = blocked(line)
    if why is not None:
        raise NikaError(
            "NIKA-SEC-001",
            f"task {task!r}: the exec line is refused by the blocklist ({why}); this command is "
            "never run by nika — rewrite the step so it does not need it",
            details={"task": task, "rule": why},
        )
