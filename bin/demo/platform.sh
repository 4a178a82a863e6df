#!/usr/bin/env bash
# Issue 34's transcript, against a running local stack started with one simulated lane so that
# tasks queue:   SIM_CONCURRENCY=1 SIM_DELAY_SECONDS=8 npm start
# then, in a second terminal:   bash bin/demo/platform.sh
# Each step prints the command it runs. Needs jq and curl.
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE=${VIDGEN_BASE_URL:-http://127.0.0.1:3000/api/v1}
show() { { printf '\n$'; printf ' %q' "$@"; printf '\n'; } >&2; }
run() { show "$@"; "$@"; }
vidgen() { npm run -s vidgen -- "$@"; }

show npm run -s admin -- account create --credits 1000 --paid
account=$(npm run -s admin -- account create --credits 1000 --paid)
echo "$account" | jq -c "{account_id, credits}"
acc=$(echo "$account" | jq -r .account_id)
unlimited=$(echo "$account" | jq -r .api_key)
show npm run -s admin -- key create --account "$acc" --end-user-monthly-spend-limit 50
key=$(npm run -s admin -- key create --account "$acc" --end-user-monthly-spend-limit 50)
echo "$key" | jq -c '{key_id, end_user_monthly_spend_limit}'
export VIDGEN_BASE_URL=$BASE VIDGEN_CONFIG=/nonexistent/vidgen.json
export VIDGEN_API_KEY=$(echo "$key" | jq -r .api_key)

echo; echo '# 1. Three warm-up runs (the account key, no end-user limit), so the estimate has history.' >&2
for i in 1 2 3; do VIDGEN_API_KEY=$unlimited run vidgen generate "warm up $i" --end-user warmup --wait --json | jq -c '{video_id, status, end_user}'; done

echo; echo '# 2. Two end users on the limited key (50 credits each a month; a 5 s video costs 25).' >&2
a1=$(show vidgen generate "a red fox" --end-user alice --metadata order=1001 --json; vidgen generate "a red fox" --end-user alice --metadata order=1001 --json)
echo "$a1" | jq -c '{video_id, status, end_user, metadata, credits_used}'
a2=$(show vidgen generate "a red fox, again" --end-user alice --metadata order=1002 --json; vidgen generate "a red fox, again" --end-user alice --metadata order=1002 --json)
echo "$a2" | jq -c '{video_id, status, end_user, metadata, credits_used}'
show vidgen generate "a third fox" --end-user alice
vidgen generate "a third fox" --end-user alice || echo "(exit $?: alice is at her limit)" >&2
b1=$(show vidgen generate "a blue whale" --end-user bob --json; vidgen generate "a blue whale" --end-user bob --json)
echo "$b1" | jq -c '{video_id, status, end_user, credits_used}'
bob=$(echo "$b1" | jq -r .video_id)

echo; echo "# 3. Bob's task waits behind alice's on the one lane: its place and estimate." >&2
run vidgen status "$bob" --json | jq -c '{video_id, status, queue_position, estimated_completion_at}'
show vidgen status "$bob" --wait
vidgen status "$bob" --wait --json | jq -c '{video_id, status, queue_position, estimated_completion_at, completed_at}'

echo; echo '# 4. A failed task is refunded, and says so.' >&2
show vidgen generate "sim:fail a storm" --end-user bob --wait --json
# vidgen exits 1 when the task fails: its JSON still comes first.
{ vidgen generate "sim:fail a storm" --end-user bob --wait --json || true; } | jq -c '{video_id, status, error, credits_used, credits_refunded}'
run vidgen generate "a calm sea" --end-user bob --json | jq -c '{video_id, status, end_user}'

echo; echo "# 5. Alice's history, and the usage report by end user (JSON, CSV)." >&2
run vidgen videos --end-user alice --json | jq -c '.videos[] | {video_id, end_user, metadata}'
show curl -s -H "Authorization: Bearer \$VIDGEN_API_KEY" "$BASE/usage?group_by=end_user"
report=$(curl -s -H "Authorization: Bearer $VIDGEN_API_KEY" "$BASE/usage?group_by=end_user")
echo "$report" | jq '.data'
show curl -s -H "Authorization: Bearer \$VIDGEN_API_KEY" -H 'Accept: text/csv' "$BASE/usage?group_by=end_user"
curl -s -H "Authorization: Bearer $VIDGEN_API_KEY" -H 'Accept: text/csv' "$BASE/usage?group_by=end_user"
show vidgen usage --group-by end_user --csv
diff <(curl -s -H "Authorization: Bearer $VIDGEN_API_KEY" -H 'Accept: text/csv' "$BASE/usage?group_by=end_user") <(vidgen usage --group-by end_user --csv) && echo "identical" >&2

echo; echo '# 6. The totals agree with the ledger: net = -(charges + refunds).' >&2
ledger=$(vidgen transactions --limit 50 --json | jq '[.transactions[] | select(.type == "charge" or .type == "refund") | .amount] | add | -.')
echo "usage net: $(echo "$report" | jq .data.totals.credits_net); ledger: $ledger" >&2
