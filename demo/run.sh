#!/usr/bin/env bash
# make demo: the main job of teambrain, end to end, in a throwaway repository.
# Every step runs the installed `tb` exactly as a user would.
set -euo pipefail
DEMO_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(dirname "$DEMO_DIR")
export DEMO_DIR
export PATH="$ROOT/.venv/bin:$PATH"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/teambrain-demo.XXXXXX")
export TEAMBRAIN_HOME="$WORK/home"   # never the real ~/.teambrain
export HOME="$WORK/user-home"        # nor anything else of yours under ~
mkdir -p "$HOME"
if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$WORK"' EXIT; fi
export DEMO_REPO="$WORK/acme-shop"
export GIT_AUTHOR_NAME="Demo Dev" GIT_AUTHOR_EMAIL="dev@acme.example"
export GIT_COMMITTER_NAME="Demo Dev" GIT_COMMITTER_EMAIL="dev@acme.example"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$WORK/gitconfig"
printf '[init]\n\tdefaultBranch = main\n' > "$GIT_CONFIG_GLOBAL"

for step in "$DEMO_DIR"/steps/*.sh; do
  bash "$step"
done
if [ -n "${KEEP:-}" ]; then
  printf '\nDemo finished. Workspace kept at %s\n' "$WORK"
else
  printf '\nDemo finished (KEEP=1 make demo keeps the workspace to look around).\n'
fi
