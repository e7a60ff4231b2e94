# The same brain, review queue, stale list and usage figures as a local web page: `tb ui`
# serves them on 127.0.0.1 behind a secret made for this run. Headless here: Chromium (Debian's,
# installed by `make demo` when it can be) saves a picture of the first page.
source "$DEMO_DIR/lib.sh"
OUT="$(dirname "$DEMO_DIR")/demo/out"
mkdir -p "$OUT"
ADDRESS="$(dirname "$DEMO_REPO")/ui-address"

step "tb ui: the brain, the review queue, what is stale and whether memory helps, in a page"
printf '%s$ tb ui --no-browser &%s\n' "$dim" "$reset"
(cd "$DEMO_REPO" && exec tb ui --no-browser >"$ADDRESS" 2>"$ADDRESS.log") &
ui_pid=$!
for _ in $(seq 1 300); do [ -s "$ADDRESS" ] && break; sleep 0.1; done
url=$(head -n 1 "$ADDRESS")
printf 'serving %s\n' "$(printf '%s' "$url" | sed -E 's#/[A-Za-z0-9_-]{32}/#/<secret>/#')"

printf '%s# the page without the secret in its address, then with it:%s\n' "$dim" "$reset"
python3 - "$url" <<'PY'
import sys, urllib.error, urllib.request
url = sys.argv[1]
base, page = url.rsplit("/", 1)
origin = base.rsplit("/", 1)[0]
for label, address in (("without the secret", f"{origin}/{page}"), ("with it", url)):
    try:
        status = urllib.request.urlopen(address, timeout=30).status
    except urllib.error.HTTPError as exc:
        status = exc.code
    print(f"{label}: {status}")
PY

chromium=""
for name in "${TEAMBRAIN_CHROMIUM:-}" chromium chromium-browser google-chrome; do
  [ -n "$name" ] && command -v "$name" >/dev/null 2>&1 && { chromium=$(command -v "$name"); break; }
done
if [ -n "$chromium" ]; then
  for page in brain queue usage; do
    printf '%s$ chromium --headless --screenshot %s%s\n' "$dim" "demo/out/tb-ui-$page.png" "$reset"
    "$chromium" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
      --disable-background-networking --disable-component-update --disable-sync --no-first-run \
      --user-data-dir="$(dirname "$DEMO_REPO")/chromium-profile" --window-size=1280,1100 --hide-scrollbars \
      --screenshot="$OUT/tb-ui-$page.png" "${url%/brain}/$page" >/dev/null 2>&1 \
      && printf 'saved %s\n' "demo/out/tb-ui-$page.png" \
      || printf 'chromium could not take the picture of %s\n' "$page"
  done
else
  echo "no Chromium here (make demo installs Debian's chromium with apt-get when run as root): no picture"
fi
kill -INT "$ui_pid"
wait "$ui_pid" || true
cat "$ADDRESS.log"
