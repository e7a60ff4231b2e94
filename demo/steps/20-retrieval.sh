# Agents and people ask the brain: hybrid search over the memories, fresh without reindex.
source "$DEMO_DIR/lib.sh"

step "Index the brain (keywords + local embeddings, all offline)"
show tb reindex

step "Ask questions"
show tb relevant --query "why does the checkout timeout test fail sometimes?" --k 1
show tb relevant --query "we get ConnectionError: Too many connections" --k 1
show tb relevant --query "can I call the Stripe SDK directly?" --k 1

step "Which memories are about the files I am touching?"
printf '%s$ tb relevant --paths %s tests/test_checkout.py --k 3 --json | (titles only)%s\n' "$dim" "'src/shop/checkout/**'" "$reset"
(cd "$DEMO_REPO" && tb relevant --paths 'src/shop/checkout/**' tests/test_checkout.py --k 3 --json) \
  | python3 -c 'import json,sys; [print(m["id"], m["class"], "-", m["title"]) for m in json.load(sys.stdin)]'

step "The index follows the files: a new memory is found without reindex"
cat > "$DEMO_REPO/.teambrain/memories/learnings/01KB2F0A1S9Y4Q7V3C8D5E6F08-orders-api-is-rate-limited.md" <<'MEMORY'
---
id: 01KB2F0A1S9Y4Q7V3C8D5E6F08
class: learning
scope: team
status: active
priority: advisory
title: The orders API is rate limited to 20 requests per second
created: 2026-11-20
tags: [api, orders]
---

The upstream orders API answers HTTP 429 above 20 requests per second. Batch order lookups
through `shop.orders.client.fetch_many` instead of looping over `fetch`.
MEMORY
show tb relevant --query "HTTP 429 from the orders service" --k 1
rm "$DEMO_REPO/.teambrain/memories/learnings/01KB2F0A1S9Y4Q7V3C8D5E6F08-orders-api-is-rate-limited.md"
