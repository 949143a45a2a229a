# Entry points: `make demo`, `make tour` and `make test`. Each builds .venv when missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
NPM_PREFIX := .nika/npm
NPM_SERVERS := @modelcontextprotocol/server-filesystem@2026.8.31 @modelcontextprotocol/server-memory@2026.8.31 mermaid@12.3.0

.PHONY: demo tour test install install-dev mcp-servers browser shells voice lint typecheck bench conformance clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e .
	touch $@

# torch first, pinned: the CPU wheel (a bare range would pull a CUDA build of several GB).
$(VENV)/.installed-dev: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[dev,otel,ray,embed]'
	touch $@

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev mcp-servers browser shells voice

# Real third-party MCP servers from npm, for the MCP tests (PyPI ones come with `.[dev]`).
mcp-servers: $(NPM_PREFIX)/.installed

$(NPM_PREFIX)/.installed:
	mkdir -p $(NPM_PREFIX)
	npm install --silent --no-audit --no-fund --prefix $(NPM_PREFIX) $(NPM_SERVERS)
	touch $@

# Debian's headless Chromium and its driver, for the HTML trace view's browser test (Selenium
# drives them by path: nothing is downloaded at run time). Installed once, skipped after.
browser:
	@if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
			-o DPkg::Lock::Timeout=600 chromium chromium-driver >/dev/null; \
	fi

# zsh and fish for the `nika completion` tests (each script is loaded in its real shell), and
# luac for the Neovim block of docs/editors.md.
shells:
	@if [ ! -x /usr/bin/zsh ] || [ ! -x /usr/bin/fish ] || [ ! -x /usr/bin/luac5.4 ]; then \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
			-o DPkg::Lock::Timeout=600 zsh fish lua5.4 >/dev/null; \
	fi

# espeak-ng, a real local voice for `nika:tts_generate` `provider: local`: the tests put it
# behind a small OpenAI-speech shim (tests/tools/builtins/_espeak_shim.py).
voice:
	@if [ ! -x /usr/bin/espeak-ng ]; then \
		SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
		$$SUDO apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq \
			-o DPkg::Lock::Timeout=600 espeak-ng >/dev/null; \
	fi

demo: install
	$(BIN)/nika check examples/demo.nika.yaml
	$(BIN)/nika run examples/demo.nika.yaml
	@echo "next: make tour (the agent loop, step by step), or write your own: README.md §Your first workflow"

# The agent's intelligence layer, offline: routing, nudge, stall, compose, then a real run's
# journal (text and HTML, under build/tour/).
tour: install
	$(BIN)/python examples/agent_tour.py

# Branch coverage of src/ under `make test` (CLI subprocesses and Ray workers included) may
# not fall below this; the per-module table prints lowest first.
COV_FLOOR := 90

# The whole suite: lint, types (strict on src/, relaxed on tests/), then every test, measured.
test: install-dev
	$(BIN)/ruff check src tests bench examples scripts
	$(BIN)/mypy
	$(BIN)/python -m pytest --cov --cov-branch --cov-report=term --cov-fail-under=$(COV_FLOOR)

typecheck: install-dev
	$(BIN)/mypy

lint: install-dev
	$(BIN)/ruff check src tests bench examples scripts

# BFCL's data for the router's quality section: --no-deps, as its ~30 pinned dependencies
# (numpy==1.26.4, vllm, ...) are for running its evaluation; the bench reads its JSON files only.
bench: install-dev
	$(BIN)/pip install -q -e '.[dev,otel,ray,embed,bench]'
	$(BIN)/pip install -q --no-deps bfcl-eval==2026.3.23
	for b in bench/*_bench.py; do $(BIN)/python $$b || exit 1; done

# The spec's static conformance fixtures, judged by our own runner (scripts/conformance.py,
# conformance/runner-protocol.md): per-tier results, and the spec-07 claim line only when the
# whole suite passed at a named spec commit. SUITE: a nika-spec checkout's conformance/tests.
SUITE ?= ../shared/conformance/tests
conformance: install
	@if [ ! -d "$(SUITE)" ]; then \
		echo "make conformance: no suite at $(SUITE); clone https://github.com/supernovae-st/nika-spec" \
		"and run make conformance SUITE=/path/to/nika-spec/conformance/tests"; exit 2; fi
	$(BIN)/python scripts/conformance.py $(SUITE) $(if $(SPEC_COMMIT),--spec-commit $(SPEC_COMMIT))

clean:
	rm -rf $(VENV) $(NPM_PREFIX)
