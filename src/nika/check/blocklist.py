"""The `exec:` blocklist (02 §exec Security · `NIKA-SEC-001`), one judge for check and run.

A detector, not a guarantee: the argv form is the structural fix for injection. It judges
every `shell:` line, an argv whose program is a shell given an inline script (`sh -c …`),
since that is the same door spelled as a list, and an argv whose program is a privilege
tool (`sudo`, `doas`, `su`, … — also behind `env`/`nice`/`timeout`-style wrappers).
Patterns are matched on the line with runs of whitespace collapsed, so spacing tricks do
not slip past.

As a check rung it judges what the file states literally (a line or argv with no
`${{ }}` island, an argv program); the run judges the resolved command again before the
spawn, with the same rules and the same code.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Final

from nika import codes
from nika.check.context import CheckContext, Finding
from nika.errors import NikaError, task_error
from nika.syntax.model import ExecBody

_SHELLS: Final = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "fish"})

PRIVILEGE_TOOLS: Final = frozenset(
    {
        "sudo", "sudoedit", "doas", "su", "pkexec", "run0", "runuser", "ksu", "dzdo",
        "pbrun", "pfexec", "gosu", "su-exec", "calife",
    }
)  # fmt: skip
"""Programs whose job is to run something as another (usually the super) user."""

_WRAPPERS: Final = frozenset(
    {"env", "nice", "nohup", "timeout", "stdbuf", "time", "ionice", "setsid", "exec", "command"}
)
"""Programs that run their argument as the command: a privilege tool behind one still runs."""
_WRAPPER_ARG: Final = re.compile(r"^(-.*|[A-Za-z_][A-Za-z0-9_]*=.*|[0-9.]+[smhd]?)$")
_PRIVILEGED_LINE: Final = "|".join(re.escape(t) for t in sorted(PRIVILEGE_TOOLS - {"su"}))

_RULES: Final[tuple[tuple[str, str], ...]] = (
    (
        r"\brm\s+(\S+\s+)*?(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\s+(\S+\s+)*?(/\*?|~/?|\$HOME/?|\*)(\s|;|&|\||$)",
        "recursive delete of a root, home or wildcard",
    ),
    (r"\brm\s+.*--no-preserve-root", "rm --no-preserve-root"),
    (r"\bmkfs(\.\w+)?\b", "formatting a filesystem (mkfs)"),
    (r"\bdd\s+.*\bof=/dev/(sd|hd|nvme|xvd|vd|disk|mmcblk)", "dd onto a block device"),
    (r">\s*/dev/(sd|hd|nvme|xvd|vd|disk|mmcblk)", "writing onto a block device"),
    (r":\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:", "a fork bomb"),
    (r"\bchmod\s+(-[a-zA-Z]*\s+)*0?777\s+/(\s|$)", "chmod 777 on the root"),
    (r"\bchmod\s+-[a-zA-Z]*R[a-zA-Z]*\s+0?777\b", "recursive chmod 777"),
    (r"\bchown\s+-[a-zA-Z]*R[a-zA-Z]*\s+\S+\s+/(\s|$)", "recursive chown of the root"),
    (
        r"\b(curl|wget|fetch)\b[^|]*\|\s*(sudo\s+)?(ba|da|z|k)?sh\b",
        "piping a download into a shell",
    ),
    (
        r"\b(curl|wget)\b[^|]*\|\s*(sudo\s+)?(python|perl|ruby|node)\d*\b",
        "piping a download into an interpreter",
    ),
    (r"\b(ba|z|k)?sh\s+<\(\s*(curl|wget)\b", "running a downloaded script"),
    (r"\bbase64\s+(-d|--decode)\b[^|]*\|\s*(ba|z|k)?sh\b", "running a decoded payload"),
    (r"(^|[;&|(]\s*)(shutdown|reboot|halt|poweroff)(\s|;|&|$)", "halting or rebooting the machine"),
    (r"(^|[;&|(]\s*)init\s+[06]\b", "changing the runlevel"),
    (r"\bkill\s+-9\s+-1\b", "killing every process"),
    (rf"(?<![\w-])({_PRIVILEGED_LINE})(?![\w-])", "privilege escalation"),
    (r"\bsu\s+(-|root)\b", "privilege escalation (su)"),
    (r"(^|[;&|(`]\s*|\$\(\s*)(\S*/)?su(\s|;|&|\||\)|$)", "privilege escalation (su)"),
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


@cache
def _compiled() -> tuple[tuple[re.Pattern[str], str], ...]:
    # Compiled on the first command judged: a workflow without `exec:` never pays for them.
    return tuple((re.compile(pattern), why) for pattern, why in _RULES)


def blocked(line: str) -> str | None:
    """Why `line` is refused, or None when no rule matches."""
    text = " ".join(line.split())
    for pattern, why in _compiled():
        if pattern.search(text):
            return why
    return None


def inline_script(argv: list[str]) -> str | None:
    """The script of an argv that runs a shell with `-c`, else None."""
    if (
        len(argv) >= 3
        and argv[0].rsplit("/", 1)[-1] in _SHELLS
        and argv[1].startswith("-")
        and "c" in argv[1]
    ):
        return argv[2]
    return None


def privileged(argv: Sequence[str]) -> str | None:
    """Why an argv is refused for running a privilege tool (directly or behind a wrapper
    such as `env`, `nice` or `timeout 5`), or None."""
    for word in argv:
        name = word.rsplit("/", 1)[-1]
        if name in PRIVILEGE_TOOLS:
            return f"privilege escalation ({name})"
        if name not in _WRAPPERS and not _WRAPPER_ARG.match(word):
            return None
    return None


def argv_blocked(argv: Sequence[str]) -> str | None:
    """Why an argv command is refused: a privilege tool, or a shell's blocked inline script."""
    why = privileged(argv)
    if why is not None:
        return why
    script = inline_script(list(argv))
    return blocked(script) if script is not None else None


def refusal(task: str, why: str) -> NikaError:
    """The `NIKA-SEC-001` refusal of one task's command."""
    return task_error(
        codes.SEC_001, task,
        f"the exec command is refused by the blocklist ({why}); this command is "
        "never run by nika — rewrite the step so it does not need it",
        rule=why,
    )


def refuse_blocked(task: str, line: str) -> None:
    """Raise `NIKA-SEC-001` when `line` matches the blocklist."""
    why = blocked(line)
    if why is not None:
        raise refusal(task, why)


def refuse_argv(task: str, argv: Sequence[str]) -> None:
    """Raise `NIKA-SEC-001` when an argv command is blocked."""
    why = argv_blocked(argv)
    if why is not None:
        raise refusal(task, why)


def run(ctx: CheckContext) -> Iterator[Finding]:
    """The rung: refuse, before any run, the commands the run would refuse as written."""
    for task in ctx.workflow.tasks.values():
        body = task.body
        if not isinstance(body, ExecBody):
            continue
        if body.command is not None:
            # only the literal prefix can be judged: a templated word ends what is known
            known: list[str] = []
            for word in body.command:
                if not isinstance(word, str) or "${{" in word:
                    break
                known.append(word)
            why = privileged(known) if len(known) < len(body.command) else argv_blocked(known)
            at = (*task.path, "exec", "command")
        elif body.shell is not None and "${{" not in body.shell:
            why, at = blocked(body.shell), (*task.path, "exec", "shell")
        else:
            continue
        if why is not None:
            err = refusal(task.id, why)
            yield ctx.error(err.code, err.detail, at, **err.details)
