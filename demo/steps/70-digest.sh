# Is the brain used, and does it help? Safe aggregates of a week of agent sessions.
source "$DEMO_DIR/lib.sh"
REPORTS="$(dirname "$DEMO_REPO")/reports"
mkdir -p "$REPORTS"

step "A week of agent sessions (synthetic here: a seeded generator fills the spool)"
show python "$DEMO_DIR/gen_sessions.py"

step "The weekly digest: no Slack webhook is configured, so this is a dry run"
show tb digest

step "The FlightDeck report as Markdown: a derived file, written outside the brain"
show tb digest --format markdown --out "$REPORTS/digest.md"
show cat "$REPORTS/digest.md"

step "Every format hides the same cells: the JSON has <5 exactly where the Markdown does"
printf '%s$ tb digest --format json | (tools, outcomes, candidates)%s\n' "$dim" "$reset"
(cd "$DEMO_REPO" && tb digest --format json) | python3 -c '
import json, sys
report = json.load(sys.stdin)
print("by_tool:   ", report["sessions"]["by_tool"])
print("by_outcome:", report["sessions"]["by_outcome"])
print("candidates:", report["candidates"])'

step "Reports never land in the brain, where they would be indexed as memory"
show_status tb digest --format markdown --out .teambrain/memories/learnings/digest.md

step "Local health and context efficiency"
show tb metrics
