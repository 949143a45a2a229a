"""ProviderPool: one adapter per (model, deadline), closed with the run."""

from __future__ import annotations

from nika.agent.fakes import ScriptedProvider
from nika.run.services import ProviderPool


class _Closable(ScriptedProvider):
    def __init__(self) -> None:
        super().__init__([])
        self.closed = 0

    async def aclose(self) -> None:
        self.closed += 1


async def test_the_pool_reuses_adapters_and_closes_each_once() -> None:
    made: list[_Closable] = []

    def factory(model: str, timeout: float | None) -> _Closable:
        made.append(_Closable())
        return made[-1]

    pool = ProviderPool(factory)
    assert pool.get("openai/a", None) is pool.get("openai/a", None)
    pool.get("openai/b", 5.0)
    pool.get("mock/echo", None)
    await pool.aclose()
    assert [p.closed for p in made] == [1, 1, 1]
