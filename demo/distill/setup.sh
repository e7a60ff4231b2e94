# Sourced by steps/50-distill.sh and record-fixtures.sh: the commits the demo sessions made, and
# the sessions themselves in the spool, their placeholder shas (c0ffee…01–03) replaced by the
# real ones. Needs DEMO_DIR, DEMO_REPO and TEAMBRAIN_HOME.
demo_commit() {  # demo_commit FILE SUBJECT: a small real change, committed; prints the sha
  (cd "$DEMO_REPO" && printf '%s\n' "# $2" >> "$1" && git add "$1" && git commit -qm "$2" && git rev-parse HEAD)
}
sha1=$(demo_commit src/shop/payments/gateway.py "payments: PaymentGateway.refund(order, amount_cents) for partial refunds")
sha2=$(demo_commit tests/test_checkout.py "tests: FakeGateway records refunds")
sha3=$(demo_commit tests/test_checkout.py "tests: checkout timeout advances fake_clock instead of sleeping")
mkdir -p "$TEAMBRAIN_HOME/spool/sessions"
umask 077  # spool files are private to the user, as tb-capture writes them (tb verify checks)
for session in "$DEMO_DIR"/sessions/*.jsonl; do
  sed -e "s/c0ffee0000000000000000000000000000000001/$sha1/" \
      -e "s/c0ffee0000000000000000000000000000000002/$sha2/" \
      -e "s/c0ffee0000000000000000000000000000000003/$sha3/" \
      "$session" > "$TEAMBRAIN_HOME/spool/sessions/$(basename "$session")"
done
