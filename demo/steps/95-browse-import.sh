# Browsing the brain, and bringing in what the team already wrote for its agents.
source "$DEMO_DIR/lib.sh"

step "tb list: every live memory, one line each (marks say what is required or may be stale)"
show tb list
show tb list -c learning --status all

step "tb show: one memory in full — provenance, why it may be stale, its history in git"
show tb show 6F03

step "The team already has a CLAUDE.md and a Cursor rule: tb import turns them into candidates"
cat > "$DEMO_REPO/CLAUDE.md" <<'MD'
# CLAUDE.md

This file provides guidance to Claude Code (claude.ai/code) when working with code in this repository.

## Commands

- `make test` runs the suite; never run bare `pytest`.
- `make lint-all` before pushing.

## Gotchas

- The webhook tests need the Stripe fixtures in `tests/fixtures/stripe/`.
<private>staging login: demo / demo123</private>

## Deploying

Deploys use the key AKIAIOSFODNN7EXAMPLE from the vault.
MD
mkdir -p "$DEMO_REPO/.cursor/rules"
cat > "$DEMO_REPO/.cursor/rules/money.mdc" <<'MD'
---
description: Money
globs: src/shop/**/*.py
---
Amounts are integer cents everywhere; `money.py` formats them for display.
MD
(cd "$DEMO_REPO" && git add CLAUDE.md .cursor/rules && git commit -qm "CLAUDE.md and a Cursor rule")
show tb import

step "tb candidates: the review queue (the secret redacted where it was, the private line gone)"
show tb candidates
first=$(cd "$DEMO_REPO" && tb candidates list --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["candidates"][0]["candidate_id"])')
show tb candidates show "${first: -6}" --no-similar

step "Drop what should not be a memory; propose the rest through the reviewed path"
drop=$(cd "$DEMO_REPO" && tb candidates list --json | python3 -c 'import json,sys; print([c["candidate_id"] for c in json.load(sys.stdin)["candidates"] if "Stripe fixtures" in c["draft"]["title"]][0])')
show tb candidates drop "${drop: -6}" --reason "the fixtures moved"
show tb propose --all --no-push

step "For tools without MCP: the required memories in a marked section of AGENTS.md"
show tb export
show head -n 8 AGENTS.md
