"""`nika inspect --format mermaid` in a real Mermaid renderer: the npm `mermaid` package's
`mermaid.min.js` (`make mcp-servers` installs it, pinned) loaded into Debian's headless
Chromium, driven by Selenium by path (the browser harness of the HTML trace view). Mermaid's
own CLI downloads a browser of its own, which cannot install here.

Every buildable workflow of the corpora renders without a parse error, with one SVG node per
graph node and one edge label per edge.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import pytest
from selenium.webdriver.remote.webdriver import WebDriver
from tests._browser import chromium
from tests._corpus import ROOT, corpus

from nika.check._mermaid import render_mermaid
from nika.check.projection import inspect_source
from nika.cli import main

MERMAID: Final = ROOT / ".nika" / "npm" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
# Renders each diagram in turn and reports, per diagram, the error or what the SVG holds.
RENDER_ALL: Final = """
const [diagrams, done] = arguments;
mermaid.initialize({startOnLoad: false, securityLevel: 'strict'});
const out = [];
for (let i = 0; i < diagrams.length; i++) {
  try {
    const {svg} = await mermaid.render('d' + i, diagrams[i]);
    const box = document.createElement('div');
    box.innerHTML = svg;
    out.push({nodes: box.querySelectorAll('g.node').length,
               labels: box.querySelectorAll('g.edgeLabel').length,
               text: box.textContent});
  } catch (e) {
    out.push({error: String(e && e.message || e)});
  }
}
done(out);
"""


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    page = tmp_path_factory.mktemp("mermaid") / "page.html"
    page.write_text(f'<!doctype html><meta charset="utf-8"><script src="{MERMAID.as_uri()}">'
                    "</script><body></body>", encoding="utf-8")
    with chromium(tmp_path_factory, "--window-size=1300,1000", needs=(MERMAID,)) as driver:
        driver.set_script_timeout(120)
        driver.get(page.as_uri())
        yield driver


def _render(browser: WebDriver, diagrams: list[str]) -> list[dict[str, Any]]:
    result: list[dict[str, Any]] = browser.execute_async_script(RENDER_ALL, diagrams)
    return result


def test_every_buildable_corpus_graph_renders_in_mermaid(browser: WebDriver) -> None:
    graphs = [g for p in corpus() if (g := inspect_source(p.read_bytes(), str(p)).graph)]
    rendered = _render(browser, [render_mermaid(g) for g in graphs])
    assert len(rendered) == len(graphs) > 40
    for graph, shown in zip(graphs, rendered, strict=True):
        assert "error" not in shown, (graph["workflow"], shown)
        assert shown["nodes"] == len(graph["nodes"]), graph["workflow"]
        assert shown["labels"] == len(graph["edges"]), graph["workflow"]
        for node in graph["nodes"]:
            assert node["id"] in shown["text"]


def test_the_cli_diagram_renders_with_hostile_labels(
    browser: WebDriver, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Quotes, pipes, brackets and a comment marker in a binding name and a `when:` must stay
    # inside their labels.
    source = tmp_path / "odd.nika.yaml"
    source.write_text(
        'nika: odd\ntasks:\n  a:\n    infer: { model: mock/echo, prompt: "hi" }\n'
        '  b:\n    with:\n      "x|y\\"]%%z": "${{ tasks.a.output }}"\n'
        '    infer: { model: mock/echo, prompt: "go" }\n', encoding="utf-8")
    assert main(["inspect", str(source), "--format", "mermaid"]) == 0
    diagram = capsys.readouterr().out
    assert main(["inspect", str(source)]) == 0
    graph = json.loads(capsys.readouterr().out)
    [shown] = _render(browser, [diagram])
    assert "error" not in shown, shown
    assert shown["nodes"] == 2 and shown["labels"] == 1
    assert 'value: x|y"]%%z' in shown["text"], (graph, shown["text"])
