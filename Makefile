# teambrain — run `make help` for the targets.
# Uses the system Python (>= 3.11); uv is bootstrapped with pip when missing and never downloads
# a Python of its own.

.DEFAULT_GOAL := help
SHELL := /bin/bash
PYTHON ?= python3
UV := $(PYTHON) -m uv
# Another Python gets a venv of its own: `make test-versions` runs the unit tests in
# .venv-3.12 and .venv-3.13 (test-unit with PYTHON, VENV and UV set for each).
VENV := .venv
BIN := $(VENV)/bin
# The Pythons the packages support besides the one in .venv (their requires-python and
# classifiers say 3.11, 3.12, 3.13; a test keeps the three lists in step).
PYTHONS := 3.12 3.13
export UV_PYTHON_DOWNLOADS := never
export UV_PYTHON := $(PYTHON)
export TOKENIZERS_PARALLELISM := false
# pytest's workers: two per core, as tests wait for part of their time (the root conftest.py's
# pytest_xdist_auto_num_workers; pyproject.toml's --dist and the root conftest.py say which
# worker takes which test, and in what order); each run ends with its 25 slowest tests.
PYTEST := $(BIN)/python -m pytest -n auto --durations=25

.PHONY: help uv venv install inspector agents browser lock demo test test-unit test-integration test-versions test-models lint format types imports build-check changelog-check release-check check bench schemas exports adapters help-pages handshake clean

help: ## Show the targets
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "} {printf "  \033[1m%-12s\033[0m %s\n", $$1, $$2}'

uv: ## Install uv with pip when it is missing
	@$(UV) --version >/dev/null 2>&1 || $(PYTHON) -m pip install --quiet uv
	@$(UV) --version

# --compile-bytecode leaves the workspace's own (editable) packages out: compiled here, so a
# `tb` started where PYTHONDONTWRITEBYTECODE=1 is set does not compile them on every start.
venv: uv ## Create .venv with every workspace package and the dev tools (from uv.lock), no npm
	UV_PROJECT_ENVIRONMENT=$(VENV) $(UV) sync --all-packages --locked --compile-bytecode
	@$(VENV)/bin/python -m compileall -q packages/*/src

install: venv ## The venv, plus the MCP Inspector and the agent CLIs the integration tests drive (npm)
	@$(MAKE) --no-print-directory inspector agents

# $(call npm_lock_install,<folder>,<what>,<command run after npm ci, or empty>): install the
# folder's package-lock.json into its node_modules/ once (again only when the lock changes).
# --ignore-scripts: no package's install script runs, except the one named by the third argument.
define npm_lock_install
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "npm not found: the tests that need $(2) will be skipped"; \
	elif ! cmp -s $(1)/package-lock.json $(1)/node_modules/.teambrain-lock; then \
	  echo "Installing $(2) into $(1)/node_modules"; \
	  ( cd $(1) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error --prefer-offline $(if $(3),&& $(3)) ) \
	    && cp $(1)/package-lock.json $(1)/node_modules/.teambrain-lock \
	    || echo "warning: could not install $(2) (offline?); their tests will fail until it is"; \
	fi
endef

INSPECTOR := tests-integration/mcp-inspector
inspector: ## The MCP Inspector CLI for the integration tests, from its lock file (needs npm)
	$(call npm_lock_install,$(INSPECTOR),the MCP Inspector,)

# Claude Code and opencode ship their native binaries in platform packages that their own
# postinstall scripts put in place; those are the install scripts we run (Gemini CLI's optional
# node-pty would compile). The CLIs are listed in tests-integration/agents/README.md.
AGENTS := tests-integration/agents
agents: ## The agent CLIs the real-agent tests drive (eleven of them, from npm; needs npm)
	$(call npm_lock_install,$(AGENTS),the agent CLIs,node node_modules/@anthropic-ai/claude-code/install.cjs && (cd node_modules/opencode-ai && node postinstall.mjs))

# tb ui's browser tests (and the demo's screenshot) drive Debian's Chromium through Playwright's
# Python package, which never downloads a browser of its own. Installed with apt-get when it is
# missing and this is root; elsewhere the browser tests say why they are skipped.
browser: ## Debian's chromium for tb ui's browser tests and the demo's screenshot (apt-get, when missing)
	@if [ -n "$$TEAMBRAIN_CHROMIUM" ] || command -v chromium >/dev/null 2>&1 \
	    || command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1; then \
	  :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  echo "Installing Debian's chromium for tb ui's browser tests (apt-get)"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >/dev/null \
	    || echo "warning: could not install chromium: tb ui's browser tests will be skipped"; \
	else \
	  echo "chromium not found and apt-get cannot install it here: tb ui's browser tests will be skipped"; \
	fi

lock: uv ## Re-resolve uv.lock after changing dependencies
	$(UV) lock

demo: venv browser ## The main job, end to end, in a throwaway repository
	@bash demo/run.sh

test: install browser ## Run every test once (unit, property, integration)
	$(PYTEST)

# The fast loop: with no HYPOTHESIS_PROFILE set, the property tests draw a tenth of their
# examples, at least ten ("quick", conftest.py); `make test`, `make test-versions` and CI draw
# them all.
test-unit: venv ## The unit and property tests alone (packages/*/tests): the fast loop, no npm
	HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-quick} $(PYTEST) -m "not integration" packages

test-integration: install browser ## The integration tests alone (tests-integration/), for a CI split
	$(PYTEST) -m integration tests-integration

# Each version's venv is synced from uv.lock with that interpreter; .ci/find-python finds it
# (on PATH or installed by pyenv) and fails naming the missing one: PYTHONS="3.13" runs fewer.
test-versions: uv ## The unit tests again on each other supported Python (3.12, 3.13), each in .venv-<version>
	@set -e; for version in $(PYTHONS); do \
	  interpreter=$$(bash .ci/find-python $$version); \
	  echo "== the unit tests on Python $$version ($$interpreter)"; \
	  HYPOTHESIS_PROFILE=$${HYPOTHESIS_PROFILE:-teambrain} \
	    $(MAKE) --no-print-directory test-unit PYTHON=$$interpreter VENV=.venv-$$version UV="$(UV)"; \
	done

# The model lane: `tb distill` against a real llama-cpp-python server running SmolLM2-135M (and the
# ollama and anthropic drivers through stand-ins forwarding to it). Not part of `make test`: the
# server is built from source once (~7 minutes on 2 cores, cached in tests-integration/models/.cache/),
# and a CPU model answers slowly. docs/distill.md#the-model-lane says what it checks and how long.
test-models: venv ## The real-model lane: tb distill against a local llama.cpp server (slow; builds it once)
	@bash tests-integration/models/prepare.sh
	TEAMBRAIN_MODEL_LANE=1 $(BIN)/python -m pytest tests-integration/models -v

lint: venv ## ruff lint and format check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: venv ## Apply ruff fixes and formatting
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

types: venv ## mypy (strict) over every package's source
	$(BIN)/mypy packages/*/src

imports: venv ## import-linter: the layers and the LLM boundary
	$(BIN)/lint-imports

build-check: uv ## Build each package alone and import it from a clean venv
	@bash .ci/build-check

changelog-check: ## Every package's CHANGELOG says what changed since its last release tag
	@$(PYTHON) .ci/release_check.py changelogs

release-check: uv ## Dry-run one package's release: make release-check PKG=schema (docs/releasing.md)
	@test -n "$(PKG)" || { echo "usage: make release-check PKG=<kit|schema|capture|retrieval|distill|sync|mcp-server|cli>"; exit 1; }
	@$(PYTHON) .ci/release_check.py release $(PKG)

check: lint types imports test test-versions build-check changelog-check ## Everything CI and a reviewer would check

bench: venv ## Benchmarks: numbers side by side with their baselines
	$(BIN)/python benchmarks/run.py

schemas: venv ## Regenerate docs/schemas from the models
	$(BIN)/python -m teambrain_schema._schemas docs/schemas

# Each package's public names are its __init__.py's _EXPORTS table; this writes the re-exports
# type checkers read below it (ruff then orders and formats them).
exports: venv ## Regenerate each package's TYPE_CHECKING re-exports from its _EXPORTS table
	$(BIN)/python -c 'import sys, teambrain_kit.lazy as l; l.write_reexports(sys.argv[1:])' packages/*/src/*/__init__.py
	@$(BIN)/ruff check --quiet --fix --select I packages/*/src/*/__init__.py
	@$(BIN)/ruff format --quiet packages/*/src/*/__init__.py

adapters: venv ## Regenerate adapters.yaml and the docs' tables of tools from the agent-tool modules (cli _agent_tools/tools/)
	$(BIN)/python -m teambrain_cli._agent_tools.adapters_yaml --docs docs
	$(BIN)/python -m teambrain_cli._help.sync docs

help-pages: venv ## Copy docs/*.md and docs/cli/*.md into the cli package, where `tb help` reads them
	$(BIN)/python -m teambrain_cli._help.sync docs

handshake: venv ## Re-record the MCP handshake the server answers before the SDK loads
	$(BIN)/python -m teambrain_mcp_server._fastpath --write

clean: ## Remove the venv, build outputs and caches
	rm -rf $(VENV) .venv-3.* dist .pytest_cache .mypy_cache .ruff_cache tests-integration/.cache
