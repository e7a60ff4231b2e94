# A shared index (issue 40): CI fills a PostgreSQL + pgvector index, a teammate's fresh clone
# answers without embedding, and a merge reaches a running `tb serve` by notification.
source "$DEMO_DIR/lib.sh"

step "A team's shared index on PostgreSQL + pgvector (tb help deploying-postgres)"
if ! python -c "import pgserver, psycopg" 2>/dev/null; then
  echo "  (skipped: the pgserver wheel is not installed here; \`make install\` brings it as a dev dependency)"
  exit 0
fi
python "$DEMO_DIR/shared_index.py"
