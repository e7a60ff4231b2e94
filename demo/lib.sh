# Shared helpers for demo steps (sourced).
set -euo pipefail
bold=$'\033[1m'; dim=$'\033[2m'; reset=$'\033[0m'
[ -t 1 ] || { bold=""; dim=""; reset=""; }

step() { printf '\n%s== %s ==%s\n' "$bold" "$*" "$reset"; }
# show CMD...: print the command as a user would type it, then run it from the demo repo.
show() { printf '%s$ %s%s\n' "$dim" "$*" "$reset"; (cd "$DEMO_REPO" && "$@"); }
# show_status CMD...: like show, but a non-zero exit is expected and printed, not fatal.
show_status() { printf '%s$ %s%s\n' "$dim" "$*" "$reset"; local rc=0; (cd "$DEMO_REPO" && "$@") || rc=$?; printf '%s(exit %s)%s\n' "$dim" "$rc" "$reset"; }
