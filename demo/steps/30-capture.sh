# Wire agent tools into the repository, let a (simulated) Claude Code session run through the
# real capture hook, and check what was recorded.
source "$DEMO_DIR/lib.sh"
cd "$DEMO_REPO"

step "The team already uses Claude Code: a GitHub MCP server and a formatter hook"
mkdir -p .claude
cat > .mcp.json <<'JSON'
{
  "mcpServers": {
    "github": {"type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}
  }
}
JSON
cat > .claude/settings.json <<'JSON'
{
  "permissions": {"allow": ["Bash(make test)"]},
  "hooks": {
    "PostToolUse": [
      {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "ruff format --quiet"}]}
    ]
  }
}
JSON
git add -A && git commit -qm "Claude Code settings"

step "tb install merges teambrain in, keeping their server and hook"
show tb install claude-code
show tb install claude-code   # idempotent: nothing changes
show tb install cursor

step "Teammates use other agents: every tool tb install knows, and two more wired"
show tb install --list
show tb install qwen-code   # hooks in the same file as its MCP server; Qwen Code asks to approve it
show tb install continue    # a YAML config block of its own
(git add -A && git commit -qm "Wire teambrain into Claude Code, Cursor, Qwen Code and Continue")

step "A Claude Code session, piped through the real hook (tb-capture claude-code)"
sid="5f2c9e0a-7b1d-4c3e-9a8f-0d1e2f3a4b5c"
token="ghp_""a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"   # split so this file holds no token
# agent EVENT JSON-FIELDS WHAT: what Claude Code sends on stdin for one hook event.
agent() {
  local payload
  payload=$(printf '{"session_id":"%s","transcript_path":"%s/transcript.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"%s",%s}' \
    "$sid" "$TEAMBRAIN_HOME" "$DEMO_REPO" "$1" "$2")
  printf '%s$ tb-capture claude-code < %s payload   # %s%s\n' "$dim" "$1" "$3" "$reset"
  printf '%s' "$payload" | tb-capture claude-code
}
prompt=$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "Hi! Please fix the cart total: discounts are ignored. The CI token is $token if you need it.
\`\`\`python
def total(items): return sum(p * q for _, p, q in items)
\`\`\`
Traceback (most recent call last):
  File \"tests/test_checkout.py\", line 9, in test_discount
AssertionError: 900 != 810
<private>the old discount code was written by our CTO and nobody dares touch it</private>
Keep amounts in integer cents.")
printf 'The prompt the developer types:\n%s\n' "$(python3 -c 'import json,sys; print(json.loads(sys.argv[1]))' "$prompt" | sed 's/^/  | /')"
agent SessionStart '"source":"startup","model":"claude-sonnet-4-5"' "session starts"
agent UserPromptSubmit "\"prompt\":$prompt" "the prompt above"
agent PostToolUse "\"tool_name\":\"Read\",\"tool_input\":{\"file_path\":\"$DEMO_REPO/src/shop/checkout/cart.py\"},\"tool_response\":{\"file\":{\"content\":\"...\"}}" "Read src/shop/checkout/cart.py"
agent PostToolUse "\"tool_name\":\"Grep\",\"tool_input\":{\"pattern\":\"discount\",\"path\":\"$DEMO_REPO/src\"},\"tool_response\":{\"numFiles\":1}" "Grep 'discount' in src/"
cat >> src/shop/checkout/cart.py <<'PY'


def total_with_discount(items: list[tuple[str, int, int]], percent: int) -> int:
    return total(items) * (100 - percent) // 100
PY
agent PostToolUse "\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$DEMO_REPO/src/shop/checkout/cart.py\",\"old_string\":\"...\",\"new_string\":\"...\"},\"tool_response\":{}" "Edit cart.py"
agent PostToolUse '"tool_name":"Bash","tool_input":{"command":"make test"},"tool_response":{"stdout":"4 passed"}' "Bash: make test"
git commit -qam "checkout: apply discounts to the cart total"
agent PostToolUse '"tool_name":"Bash","tool_input":{"command":"git commit -am \"checkout: apply discounts\""},"tool_response":{"stdout":"[main 1a2b3c4] checkout"}' "Bash: git commit"
agent SessionEnd '"reason":"prompt_input_exit"' "the developer quits"

step "tb audit: exactly what was kept (no prompt, no code, no secret, no private text)"
show tb audit --last-session
show tb audit
