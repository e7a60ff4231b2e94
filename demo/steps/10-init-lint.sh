# A team adopts teambrain: init the brain, add reviewed memories, lint them.
source "$DEMO_DIR/lib.sh"

step "A repository and its brain"
cp -R "$DEMO_DIR/app" "$DEMO_REPO"
(cd "$DEMO_REPO" && git init -q && git add -A && git commit -qm "acme-shop: first commit")
show tb init
show tb init   # idempotent: nothing changes

step "The team's first memories (normally added through reviewed pull requests)"
cp -R "$DEMO_DIR/brain/memories/." "$DEMO_REPO/.teambrain/memories/"
show find .teambrain/memories -name '*.md'
show cat .teambrain/memories/learnings/01KB2F0A1S9Y4Q7V3C8D5E6F04-test-checkout-timeout-is-flaky-without-the-fake-clock.md
show_status tb lint        # INDEX.md lags until reindex: a note, not a failure
show tb reindex
show tb lint
show sed -n '1,16p' .teambrain/INDEX.md

step "The brain as a graph: who owns what, what depends on what, which memory documents it"
cp -R "$DEMO_DIR/brain/graph/." "$DEMO_REPO/.teambrain/graph/"
show cat .teambrain/graph/services/checkout.yaml
show tb lint               # every record against the ontology tb init wrote
show tb graph service:checkout --depth 2

step "Lint catches what review must not miss"
bad="$DEMO_REPO/.teambrain/memories/learnings/01KB2F0A1S9Y4Q7V3C8D5E6F99-deploy-token.md"
token="ghp_""a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"   # split so this file holds no token
cat > "$bad" <<MEMORY
---
id: 01KB2F0A1S9Y4Q7V3C8D5E6F99
class: decision
scope: team
status: active
priority: advisory
title: Deploy with the CI token
created: 2026-11-20
---

Deploy with \`DEPLOY_TOKEN=$token make deploy\`.
MEMORY
show_status tb lint
rm "$bad"
show tb lint
(cd "$DEMO_REPO" && git add -A && git commit -qm "teambrain: initial brain")
