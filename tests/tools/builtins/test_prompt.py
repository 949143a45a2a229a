from __future__ import annotations

import io

from nika.tools.builtins import TerminalPromptIO


class Scripted:
    def __init__(self, *answers: str) -> None:
        self.answers = list(answers)
        self.asked: list[str] = []

    async def ask(self, question: str) -> str:
        self.asked.append(question)
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)


async def test_prompt_confirm_input_and_choice_on_a_terminal(make):
    confirm = await make(prompt_io=Scripted("maybe", "y")).call(
        "nika:prompt", {"message": "Deploy?"}
    )
    typed = await make(prompt_io=Scripted("123456")).call(
        "nika:prompt", {"mode": "input", "message": "OTP:"}
    )
    picked = await make(prompt_io=Scripted("2")).call(
        "nika:prompt", {"mode": "choice", "message": "Title?", "choices": ["A", "B"]}
    )
    assert confirm.structured is True
    assert typed.structured == "123456"
    assert picked.structured == "B"


async def test_prompt_refusal_is_a_value(make):
    result = await make(prompt_io=Scripted("no")).call("nika:prompt", {"message": "Deploy?"})
    assert not result.is_error and result.structured is False


async def test_prompt_non_interactive_uses_default_or_fails(make):
    ex = make()
    with_default = await ex.call("nika:prompt", {"message": "Deploy?", "default": False})
    without = (await ex.call("nika:prompt", {"message": "Deploy?"})).error
    assert with_default.structured is False
    assert without is not None and without.code == "NIKA-BUILTIN-PROMPT-001"
    assert "default" in without.detail


async def test_prompt_closed_terminal_falls_back_to_default(make):
    result = await make(prompt_io=Scripted()).call(
        "nika:prompt", {"mode": "input", "message": "x", "default": "d"}
    )
    assert result.structured == "d"


async def test_prompt_choice_default_outside_choices(make):
    err = (
        await make().call(
            "nika:prompt", {"mode": "choice", "message": "x", "choices": ["a"], "default": "b"}
        )
    ).error
    assert err is not None and err.code == "NIKA-BUILTIN-PROMPT-002"


async def test_terminal_prompt_io_reads_a_line():
    out = io.StringIO()
    term = TerminalPromptIO(io.StringIO("yes\n"), out)
    assert await term.ask("Go? ") == "yes"
    assert out.getvalue() == "Go? "


def test_a_cancelled_terminal_prompt_never_holds_the_process_at_exit() -> None:
    # Nobody ever answers: cancelling the ask (a SIGTERM stopping the run) must let the event
    # loop close and the process exit, not wait for a line in a worker thread.
    import subprocess
    import sys

    script = (
        "import asyncio, os\n"
        "from nika.tools.builtins import TerminalPromptIO\n"
        "r, w = os.pipe()\n"
        "io = TerminalPromptIO(os.fdopen(r), open(os.devnull, 'w'))\n"
        "async def main():\n"
        "    task = asyncio.create_task(io.ask('continue? '))\n"
        "    await asyncio.sleep(0.2)\n"
        "    task.cancel()\n"
        "    try:\n"
        "        await task\n"
        "    except asyncio.CancelledError:\n"
        "        print('cancelled')\n"
        "asyncio.run(main())\n"
        "print('exited')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.split() == ["cancelled", "exited"], done.stderr
