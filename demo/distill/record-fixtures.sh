#!/usr/bin/env bash
# Re-record demo/distill/fixtures/ after a change to the demo brain, its sessions, the prompt
# templates, or a demo step before 50 that changes the brain. Runs those steps in a throwaway
# workspace exactly as `make demo` does, then records. Offline; no model is called.
set -euo pipefail
DEMO_DIR=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$(dirname "$DEMO_DIR")
export DEMO_DIR PATH="$ROOT/.venv/bin:$PATH"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/teambrain-record.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
export TEAMBRAIN_HOME="$WORK/home" DEMO_REPO="$WORK/acme-shop"
export GIT_AUTHOR_NAME="Demo Dev" GIT_AUTHOR_EMAIL="dev@acme.example"
export GIT_COMMITTER_NAME="Demo Dev" GIT_COMMITTER_EMAIL="dev@acme.example"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$WORK/gitconfig"
printf '[init]\n\tdefaultBranch = main\n' > "$GIT_CONFIG_GLOBAL"
for step in "$DEMO_DIR"/steps/*.sh; do
  case "$(basename "$step")" in [0-4]*) bash "$step" >/dev/null 2>&1 ;; esac
done
source "$DEMO_DIR/distill/setup.sh"
# The model step 50 names (a fresh brain names none): a fixture's key covers the model.
sed -i -e 's/^  driver: none$/  driver: fake/' -e 's/^  model: none$/  model: fake-distiller-1/' "$DEMO_REPO/.teambrain/brain.yaml"
# Only the demo's own sessions are recorded; the fallback answers any other.
"$ROOT/.venv/bin/python" "$DEMO_DIR/distill/record.py" "$DEMO_REPO" "$TEAMBRAIN_HOME"
