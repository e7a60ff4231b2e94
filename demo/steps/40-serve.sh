# Agents meet the brain over MCP: `tb serve`, driven by a real MCP client (the Python SDK's
# stdio client) inside a (simulated) Claude Code session, so the session records what it was shown.
source "$DEMO_DIR/lib.sh"
cd "$DEMO_REPO"

step "A new Claude Code session starts (through the real hook), on a branch about checkout"
sid="9d8e7f60-1a2b-4c3d-8e9f-a0b1c2d3e4f5"
git checkout -qb fix/checkout-timeout
printf '\n# TODO: use the fake clock in the timeout test\n' >> tests/test_checkout.py
printf '%s$ tb-capture claude-code < SessionStart payload%s\n' "$dim" "$reset"
printf '{"session_id":"%s","cwd":"%s","hook_event_name":"SessionStart","source":"startup","model":"claude-sonnet-4-5"}' \
  "$sid" "$DEMO_REPO" | tb-capture claude-code

step "Claude Code starts the teambrain MCP server from .mcp.json; the agent calls each tool"
# Claude Code hands its MCP servers the session id; the server attaches its events to it.
printf '%s$ CLAUDE_CODE_SESSION_ID=%s python demo/mcp_client.py%s\n' "$dim" "$sid" "$reset"
CLAUDE_CODE_SESSION_ID="$sid" python "$DEMO_DIR/mcp_client.py"

step "What the session recorded: which memories, at which brain commit (no query text)"
printf '{"session_id":"%s","cwd":"%s","hook_event_name":"SessionEnd","reason":"prompt_input_exit"}' \
  "$sid" "$DEMO_REPO" | tb-capture claude-code
python3 - "$TEAMBRAIN_HOME/spool/sessions/$sid.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1], encoding="utf-8"):
    event = json.loads(line)
    if event["ev"] in ("memory_retrieved", "candidate_proposed"):
        data = dict(event["data"])
        if "draft" in data:
            data["draft"] = {"title": data["draft"]["title"], "...": "..."}
        print(f"  {event['ev']:<19} {json.dumps(data)}")
PY

step "The proposal waits in the local spool for human review; the brain is untouched"
show ls "$TEAMBRAIN_HOME/spool/candidates"
show git status --short .teambrain
(cd "$DEMO_REPO" && git diff --quiet HEAD -- .teambrain) && echo "  (nothing changed under .teambrain/)"

step "The server's heartbeat, as tb metrics and tb doctor read it (read_heartbeat)"
python - <<'PY'
from teambrain_mcp_server import read_heartbeat

for server in read_heartbeat():
    index = server.index or {}
    print(f"  pid {server.pid}: {server.state}, {server.requests} requests, brain commit "
          f"{(server.brain_commit or '-')[:7]}, index {index.get('documents', '-')} memories "
          f"({index.get('embedder', '-')})")
PY
git checkout -q tests/test_checkout.py && git checkout -q main
