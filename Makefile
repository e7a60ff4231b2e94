# teambrain — run `make help` for the targets.
# Uses the system Python (>= 3.11); uv is bootstrapped with pip when missing and never downloads
# a Python of its own.

.DEFAULT_GOAL := help
SHELL := /bin/bash
PYTHON ?= python3
UV := $(PYTHON) -m uv
VENV := .venv
BIN := $(VENV)/bin
export UV_PYTHON_DOWNLOADS := never
export UV_PYTHON := $(PYTHON)
export TOKENIZERS_PARALLELISM := false

.PHONY: help uv install inspector lock demo test lint format types imports build-check check bench schemas clean

help: ## Show the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  \033[1m%-12s\033[0m %s\n", $$1, $$2}'

uv: ## Install uv with pip when it is missing
	@$(UV) --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet uv
	@$(UV) --version

install: uv ## Create .venv with every workspace package and the dev tools (from uv.lock)
	$(UV) sync --all-packages --locked
	@$(MAKE) --no-print-directory inspector

INSPECTOR := tests-integration/mcp-inspector
inspector: ## The MCP Inspector CLI for the integration tests, from its lock file (needs npm)
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "npm not found: the MCP Inspector test will be skipped"; \
	elif ! cmp -s $(INSPECTOR)/package-lock.json $(INSPECTOR)/node_modules/.teambrain-lock; then \
	  echo "Installing the MCP Inspector into $(INSPECTOR)/node_modules"; \
	  ( cd $(INSPECTOR) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error --prefer-offline ) \
	    && cp $(INSPECTOR)/package-lock.json $(INSPECTOR)/node_modules/.teambrain-lock \
	    || echo "warning: could not install the MCP Inspector (offline?); its test will fail until it is"; \
	fi

lock: uv ## Re-resolve uv.lock after changing dependencies
	$(UV) lock

demo: install ## The main job, end to end, in a throwaway repository
	@bash demo/run.sh

test: install ## Run every test (unit, property, integration)
	$(BIN)/python -m pytest -n auto

lint: install ## ruff lint and format check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: install ## Apply ruff fixes and formatting
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

types: install ## mypy (strict) over every package's source
	$(BIN)/mypy packages/*/src

imports: install ## import-linter: the layers and the LLM boundary
	$(BIN)/lint-imports

build-check: uv ## Build each package alone and import it from a clean venv
	@bash .ci/build-check

check: lint types imports test build-check ## Everything CI and a reviewer would check

bench: install ## Benchmarks: numbers side by side with their baselines
	$(BIN)/python benchmarks/run.py

schemas: install ## Regenerate docs/schemas from the models
	$(BIN)/python -m teambrain_schema._schemas docs/schemas

clean: ## Remove the venv, build outputs and caches
	rm -rf $(VENV) dist .pytest_cache .mypy_cache .ruff_cache
