# Two entry points: `make demo` and `make test`. Each builds .venv when missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
NPM_PREFIX := .nika/npm
NPM_SERVERS := @modelcontextprotocol/server-filesystem@2026.8.31 @modelcontextprotocol/server-memory@2026.8.31

.PHONY: demo test install install-dev mcp-servers lint typecheck bench conformance clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.installed-dev: $(BIN)/python pyproject.toml
	$(BIN)/pip install -q -e '.[dev,otel]'
	touch $@

install: $(VENV)/.installed

install-dev: $(VENV)/.installed-dev mcp-servers

# Real third-party MCP servers from npm, for the MCP tests (PyPI ones come with `.[dev]`).
mcp-servers: $(NPM_PREFIX)/.installed

$(NPM_PREFIX)/.installed:
	mkdir -p $(NPM_PREFIX)
	npm install --silent --no-audit --no-fund --prefix $(NPM_PREFIX) $(NPM_SERVERS)
	touch $@

demo: install
	$(BIN)/nika check examples/demo.nika.yaml
	$(BIN)/nika run examples/demo.nika.yaml

# The whole suite: lint, strict types on src/, then every test.
test: install-dev
	$(BIN)/ruff check src tests bench
	$(BIN)/mypy
	$(BIN)/python -m pytest

typecheck: install-dev
	$(BIN)/mypy

lint: install-dev
	$(BIN)/ruff check src tests bench

bench: install-dev
	for b in bench/*_bench.py; do $(BIN)/python $$b || exit 1; done

conformance: install
	$(PY) ../shared/tools/conformance_score.py --engine $(BIN)/nika --root ../shared/conformance/tests

clean:
	rm -rf $(VENV) $(NPM_PREFIX)
