"""Shell completion scripts for bash, zsh and fish, written from the CLI's own parser.

`commands_of` reads the argparse tree once (subcommands, their options, a positional's fixed
choices, nested actions such as `trace verify`); each shell's writer turns that into its
native script, so a new subcommand or flag completes without touching this module. Help
text is reduced to one safe line per entry (no quotes, brackets or colons to escape).
"""

from __future__ import annotations

import argparse
import re
from dataclasses import dataclass, field
from typing import Final

_UNSAFE: Final = re.compile(r"[^A-Za-z0-9 ,.;()/+=_-]")


@dataclass(frozen=True, slots=True)
class Command:
    """One subcommand as completion sees it."""

    name: str
    help: str
    options: tuple[str, ...] = ()
    choices: tuple[str, ...] = ()
    subcommands: tuple[Command, ...] = field(default=())


def _safe(text: str | None) -> str:
    plain = _UNSAFE.sub("", (text or "").split("\n")[0]).strip()
    return plain[:70]


def _sub_action(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[
        argparse.ArgumentParser] | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def commands_of(parser: argparse.ArgumentParser) -> tuple[Command, ...]:
    """The subcommands of `parser`, in registration order, with their own subcommands."""
    action = _sub_action(parser)
    if action is None:
        return ()
    helps = {choice.dest: choice.help for choice in action._choices_actions}
    out = []
    for name, sub in action.choices.items():
        options = tuple(opt for a in sub._actions for opt in a.option_strings
                        if opt.startswith("--"))
        choices = tuple(str(c) for a in sub._actions if not a.option_strings
                        and a.choices and not isinstance(a, argparse._SubParsersAction)
                        for c in a.choices)
        out.append(Command(name, _safe(helps.get(name)), options, choices, commands_of(sub)))
    return tuple(out)


def script(shell: str, commands: tuple[Command, ...]) -> str:
    """The completion script for `shell` (bash · zsh · fish)."""
    writers = {"bash": _bash, "zsh": _zsh, "fish": _fish}
    return writers[shell](commands)


def _words(command: Command) -> str:
    return " ".join((*(c.name for c in command.subcommands), *command.choices,
                     *command.options))


def _bash(commands: tuple[Command, ...]) -> str:
    cases = []
    for command in commands:
        cases.append(f"    {command.name}) words=\"{_words(command)}\" ;;")
        for sub in command.subcommands:
            cases.append(f"    {command.name}/{sub.name}) words=\"{_words(sub)}\" ;;")
    names = " ".join(c.name for c in commands)
    fallback = "\n".join(f'      {c.name}) words="{" ".join(c.options)}" ;;' for c in commands)
    listed = "\n".join(cases)
    return f"""# nika completion for bash: eval "$(nika completion bash)"
_nika() {{
  local cur="${{COMP_WORDS[COMP_CWORD]}}" words=""
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "{names} --help --version" -- "$cur"))
    return
  fi
  local key="${{COMP_WORDS[1]}}"
  if [ "$COMP_CWORD" -gt 2 ]; then key="${{COMP_WORDS[1]}}/${{COMP_WORDS[2]}}"; fi
  case "$key" in
{listed}
    *) case "${{COMP_WORDS[1]}}" in
{fallback}
       esac ;;
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
  if [ "${{cur:0:1}}" != "-" ]; then COMPREPLY+=($(compgen -f -- "$cur")); fi
}}
complete -o filenames -F _nika nika
"""


def _zsh(commands: tuple[Command, ...]) -> str:
    described = "\n".join(f"    '{c.name}:{c.help}'" for c in commands)
    cases = []
    for command in commands:
        specs = [f"'{opt}'" for opt in command.options]
        if command.subcommands:
            names = " ".join(s.name for s in command.subcommands)
            specs.append(f"'1:action:({names})'")
        if command.choices:
            specs.append(f"'1:{command.name}:({' '.join(command.choices)})'")
        specs.append("'*:file:_files'")
        cases.append(f"    {command.name}) _arguments {' '.join(specs)} ;;")
    listed = "\n".join(cases)
    return f"""#compdef nika
# nika completion for zsh: eval "$(nika completion zsh)" (after compinit)
_nika() {{
  local -a commands
  commands=(
{described}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  local cmd=$words[2]
  shift words
  (( CURRENT-- ))
  case $cmd in
{listed}
  esac
}}
compdef _nika nika
"""


def _fish(commands: tuple[Command, ...]) -> str:
    names = " ".join(c.name for c in commands)
    lines = ["# nika completion for fish: nika completion fish | source",
             "complete -c nika -f"]
    for command in commands:
        lines.append(f"complete -c nika -n 'not __fish_seen_subcommand_from {names}' "
                     f"-a {command.name} -d '{command.help}'")
        seen = f"__fish_seen_subcommand_from {command.name}"
        for opt in command.options:
            lines.append(f"complete -c nika -n '{seen}' -l {opt[2:]}")
        for choice in command.choices:
            lines.append(f"complete -c nika -n '{seen}' -a {choice}")
        for sub in command.subcommands:
            lines.append(f"complete -c nika -n '{seen}' -a {sub.name} -d '{sub.help}'")
        lines.append(f"complete -c nika -n '{seen}' -F")
    return "\n".join(lines) + "\n"
