#!/usr/bin/env bash
# Issue 35's transcript (design-35 §11): delivery to your storage, deletion and retention, against a
# running local stack started with short local knobs (a retention "day" of 60 s, retries 2 s apart):
#   RETENTION_DAY_SECONDS=60 DELIVERY_RETRY_SCHEDULE=2,2,2 npm start
# then, in a second terminal:   bash bin/demo/storage.sh
# Each step prints the command it runs. Needs jq, curl and sha256sum. The fake stores listen on
# 127.0.0.1:9911 and :9912 (STORE_PORT_A, STORE_PORT_B to move them); the script stops them.
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE=${VIDGEN_BASE_URL:-http://127.0.0.1:3000/api/v1}
STORE_A=${STORE_PORT_A:-9911}
STORE_B=${STORE_PORT_B:-9912}
show() { { printf '\n$'; printf ' %q' "$@"; printf '\n'; } >&2; }
# Shows a command line as written (variables unexpanded), for commands with long URLs in them.
say() { printf '\n$ %s\n' "$1" >&2; }
run() { show "$@"; "$@"; }
vidgen() { npm run -s vidgen -- "$@"; }
presign() { npm run -s local:presign -- "$@"; }
code_of() { curl -s -o /dev/null -w '%{http_code}' "$1"; }
# Polls a task until its delivery ends (not pending), at most 120 s; prints the final view.
delivered() {
  local deadline=$((SECONDS + 120)) view
  while :; do
    view=$(vidgen status "$1" --json)
    [ "$(echo "$view" | jq -r '.delivery.status')" != pending ] && { echo "$view"; return; }
    [ $SECONDS -ge $deadline ] && { echo "the delivery of $1 did not end within 120 s" >&2; echo "$view"; return 1; }
    sleep 1
  done
}
stores=()
work=$(mktemp -d)
cleanup() { for pid in "${stores[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
# Starts a fake store (test/support/fake-store.ts) on port $1 answering $2, logging to $work/store-$1.log.
fake_store() {
  show node --import tsx test/support/fake-store-cli.ts --port "$1" --answers "$2"
  node --import tsx test/support/fake-store-cli.ts --port "$1" --answers "$2" >"$work/store-$1.log" 2>&1 &
  stores+=($!)
  local deadline=$((SECONDS + 30))
  until grep -q 'fake store at' "$work/store-$1.log"; do
    [ $SECONDS -ge $deadline ] && { cat "$work/store-$1.log" >&2; exit 1; }
    sleep 0.2
  done
  cat "$work/store-$1.log" >&2
}
run_id=$(date +%s)

show npm run -s admin -- account create --credits 1000 --paid
account=$(npm run -s admin -- account create --credits 1000 --paid)
echo "$account" | jq -c "{account_id, credits}"
acc=$(echo "$account" | jq -r .account_id)
export VIDGEN_BASE_URL=$BASE VIDGEN_CONFIG=/nonexistent/vidgen.json
export VIDGEN_API_KEY=$(echo "$account" | jq -r .api_key)

echo; echo '# 1. A start delivered into the second local bucket (customer-deliveries) through presigned PUT URLs.' >&2
say "URL=\$(npm run -s local:presign -- demo/$run_id/cat.mp4)"
URL=$(presign "demo/$run_id/cat.mp4")
echo "${URL%%\?*}?X-Amz-Algorithm=AWS4-HMAC-SHA256&…&X-Amz-Signature=…" >&2
say "THUMB=\$(npm run -s local:presign -- demo/$run_id/cat.jpg)"
THUMB=$(presign "demo/$run_id/cat.jpg")
say 'vidgen generate "a cat surfing" --deliver-to "$URL" --thumbnail-to "$THUMB" --wait --json'
t1=$(vidgen generate "a cat surfing" --deliver-to "$URL" --thumbnail-to "$THUMB" --wait --json)
echo "$t1" | jq -c '{video_id, status, credits_used, delivery}'
id1=$(echo "$t1" | jq -r .video_id)
show vidgen status "$id1" --json
v1=$(delivered "$id1")
echo "$v1" | jq -c '.delivery'
show vidgen status "$id1"
vidgen status "$id1"

echo; echo "# 2. The delivered objects read back: the same bytes as the result's URLs." >&2
say "curl -s \"\$(npm run -s local:presign -- --get demo/$run_id/cat.mp4)\" | sha256sum"
curl -sf "$(presign --get "demo/$run_id/cat.mp4")" | sha256sum
say "curl -s \"\$(jq -r .video_url <<<\"\$t1\")\" | sha256sum"
curl -sf "$(echo "$v1" | jq -r .video_url)" | sha256sum
say "curl -s \"\$(npm run -s local:presign -- --get demo/$run_id/cat.jpg)\" | sha256sum"
curl -sf "$(presign --get "demo/$run_id/cat.jpg")" | sha256sum
say "curl -s \"\$(jq -r .thumbnail_url <<<\"\$t1\")\" | sha256sum"
curl -sf "$(echo "$v1" | jq -r .thumbnail_url)" | sha256sum
a=$(curl -sf "$(presign --get "demo/$run_id/cat.mp4")" | sha256sum); b=$(curl -sf "$(echo "$v1" | jq -r .video_url)" | sha256sum)
c=$(curl -sf "$(presign --get "demo/$run_id/cat.jpg")" | sha256sum); d=$(curl -sf "$(echo "$v1" | jq -r .thumbnail_url)" | sha256sum)
[ "$a" = "$b" ] && [ "$c" = "$d" ] && echo "video and thumbnail: equal" >&2 || { echo "NOT EQUAL" >&2; exit 1; }

echo; echo '# 3. A store that answers 500 twice, then 200: delivered on the third attempt.' >&2
fake_store "$STORE_A" 500,500
t2=$(show vidgen generate "a cat surfing, again" --deliver-to "http://127.0.0.1:$STORE_A/a.mp4" --wait --json
  vidgen generate "a cat surfing, again" --deliver-to "http://127.0.0.1:$STORE_A/a.mp4" --wait --json)
echo "$t2" | jq -c '{video_id, status, delivery}'
id2=$(echo "$t2" | jq -r .video_id)
show vidgen status "$id2" --json
delivered "$id2" | jq -c '.delivery'
echo "# the store's log: three PUTs, the same Content-Length" >&2
grep '^PUT' "$work/store-$STORE_A.log"

echo; echo '# 4. A store that answers 403: failed after one attempt, one video.delivery_failed event, credits as charged.' >&2
fake_store "$STORE_B" 403:AccessDenied
before=$(vidgen credits --json | jq .credits)
show vidgen credits --json
echo "credits before: $before"
t3=$(show vidgen generate "a storm at sea" --deliver-to "http://127.0.0.1:$STORE_B/b.mp4" --wait --json
  vidgen generate "a storm at sea" --deliver-to "http://127.0.0.1:$STORE_B/b.mp4" --wait --json)
echo "$t3" | jq -c '{video_id, status, credits_used, delivery}'
id3=$(echo "$t3" | jq -r .video_id)
show vidgen status "$id3" --json
delivered "$id3" | jq -c '{status, delivery}'
grep '^PUT' "$work/store-$STORE_B.log"
say "vidgen events --json | jq '.events[] | select(.type == \"video.delivery_failed\")'"
deadline=$((SECONDS + 60))
until [ -n "$(vidgen events --json 2>/dev/null | jq -c ".events[] | select(.type == \"video.delivery_failed\" and .data.video_id == \"$id3\")")" ]; do
  [ $SECONDS -ge $deadline ] && { echo "no video.delivery_failed event within 60 s" >&2; exit 1; }
  sleep 1
done
vidgen events --json 2>/dev/null | jq -c '.events[] | select(.type == "video.delivery_failed") | {id, type, created_at, video_id: .data.video_id, delivery: .data.delivery}'
echo "video.delivery_failed events: $(vidgen events --json 2>/dev/null | jq '[.events[] | select(.type == "video.delivery_failed")] | length')" >&2
after=$(vidgen credits --json | jq .credits)
price=$(echo "$t3" | jq .credits_used)
show vidgen credits --json
echo "credits after: $after; before - after = $((before - after)); the start's price (credits_used) = $price"

echo; echo "# 5. DELETE the first video: its outputs go, the task stays; the old URLs answer 404." >&2
run vidgen delete "$id1" --yes --json > "$work/deleted-1.json"
jq -c '{video_id, status, output_deleted_at, video_url, thumbnail_url, credits_used}' "$work/deleted-1.json"
say 'curl -s -o /dev/null -w "%{http_code}" <old video_url>; the same on <old thumbnail_url>'
echo "$(code_of "$(echo "$v1" | jq -r .video_url)") $(code_of "$(echo "$v1" | jq -r .thumbnail_url)")"
echo "# a second DELETE: the same view" >&2
run vidgen delete "$id1" --yes --json > "$work/deleted-2.json"
jq -c '{video_id, status, output_deleted_at}' "$work/deleted-2.json"
diff "$work/deleted-1.json" "$work/deleted-2.json" && echo "identical" >&2

echo; echo '# 6. Retention: one day (60 s on this stack) expires a new task.' >&2
email="storage-demo-$run_id@example.com"
password="Demo-pass-$run_id!"
show npm run -s admin -- user create --email "$email" --password '…' --account "$acc"
npm run -s admin -- user create --email "$email" --password "$password" --account "$acc" | jq -c '{holder_id, email, account_id}'
show npm run -s admin -- user sign-in --email "$email" --password '…'
session=$(npm run -s admin -- user sign-in --email "$email" --password "$password" | jq -r .access_token)
say "curl -s -X PATCH -H \"Authorization: Bearer \$SESSION\" -H 'Content-Type: application/json' -d '{\"output_retention_days\":1}' $BASE/account"
curl -s -X PATCH -H "Authorization: Bearer $session" -H 'Content-Type: application/json' -d '{"output_retention_days":1}' "$BASE/account" | jq -c '.data | {account_id, output_retention_days}'
t4=$(show vidgen generate "a lighthouse at dusk" --wait --json; vidgen generate "a lighthouse at dusk" --wait --json)
echo "$t4" | jq -c '{video_id, status, completed_at, expires_at, output_deleted_at}'
id4=$(echo "$t4" | jq -r .video_id)
url4=$(echo "$t4" | jq -r .video_url)
echo "expires_at - completed_at = $(( $(date -d "$(echo "$t4" | jq -r .expires_at)" +%s) - $(date -d "$(echo "$t4" | jq -r .completed_at)" +%s) )) s" >&2
say "curl -s -o /dev/null -w '%{http_code}' <video_url>"
code_of "$url4"; echo
echo "# waiting for the expiry (the sweeper runs every 5 s here)..." >&2
show vidgen status "$id4" --json
deadline=$((SECONDS + 180))
until [ "$(vidgen status "$id4" --json | jq -r .output_deleted_at)" != null ]; do
  [ $SECONDS -ge $deadline ] && { echo "not expired within 180 s" >&2; exit 1; }
  sleep 2
done
vidgen status "$id4" --json | jq -c '{video_id, status, completed_at, expires_at, output_deleted_at, video_url}'
echo "expired $(( $(date -d "$(vidgen status "$id4" --json | jq -r .output_deleted_at)" +%s) - $(date -d "$(echo "$t4" | jq -r .completed_at)" +%s) )) s after completing" >&2
say "curl -s -o /dev/null -w '%{http_code}' <old video_url>"
code_of "$url4"; echo
