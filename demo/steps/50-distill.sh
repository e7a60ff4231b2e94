# The distiller turns what agent sessions learned into memory candidates for review.
# Offline: the fake driver replays answers recorded in demo/distill/fixtures/
# (re-record them with demo/distill/record-fixtures.sh).
source "$DEMO_DIR/lib.sh"

step "Agents worked in the repository; their sessions are in the spool"
source "$DEMO_DIR/distill/setup.sh"
show git log --oneline -3
show ls "$TEAMBRAIN_HOME/spool/sessions"
show head -c 400 "$TEAMBRAIN_HOME/spool/sessions/checkout-timeout.jsonl"
printf '\n'

step "A fresh brain names no model yet: tb distill says how to pick one (local or hosted)"
show_status tb distill

step "tb distill: sessions → memory candidates (fake driver, recorded answers, offline)"
mkdir -p "$DEMO_REPO/.teambrain/fixtures"
cp "$DEMO_DIR"/distill/fixtures/*.json "$DEMO_REPO/.teambrain/fixtures/"
# The demo's "model": the fake driver replaying answers recorded from a real one.
sed -i -e 's/^  driver: none$/  driver: fake/' -e 's/^  model: none$/  model: fake-distiller-1/' "$DEMO_REPO/.teambrain/brain.yaml"
(cd "$DEMO_REPO" && git add .teambrain && git commit -qm "teambrain: distiller fixtures for the demo")
show grep -A3 '^  driver' .teambrain/brain.yaml
show tb distill
queued=$(grep -l '"proposer": "distiller"' "$TEAMBRAIN_HOME"/spool/candidates/*.json 2>/dev/null | wc -l)
if [ "$queued" -lt 2 ]; then
  echo "demo: the distiller queued $queued candidate(s); are the fixtures stale? run demo/distill/record-fixtures.sh" >&2
  exit 1
fi
first=$(grep -l '"proposer": "distiller"' "$TEAMBRAIN_HOME"/spool/candidates/*.json | head -1)
show cat "$first"

step "A second run proposes nothing new"
show tb distill
