#!/usr/bin/env bash
# Issue 36's transcript, against a running local stack whose authorizer cache is short, so that a
# removed member's session visibly loses the account:   AUTH_CACHE_TTL_SECONDS=10 npm start
# then, in a second terminal:   bash bin/demo/teams.sh
# The invitation mails are printed in the stack's log (its terminal), as verification codes are.
# Each step prints the command it runs. Needs jq and curl.
set -euo pipefail
cd "$(dirname "$0")/../.."
BASE=${VIDGEN_BASE_URL:-http://127.0.0.1:3000/api/v1}
PASSWORD='Demo-pass-2026!'
run_id=$(date +%s)
show() { { printf '\n$'; printf ' %q' "$@"; printf '\n'; } >&2; }
admin() { npm run -s admin -- "$@"; }
# api TOKEN METHOD PATH [JSON] [extra curl args...]: prints the status line, then the body.
api() {
  local token=$1 method=$2 path=$3 body=${4:-}
  shift 4 2>/dev/null || shift $#
  local args=(-s -X "$method" -H "Authorization: Bearer $token" -w '\n%{http_code}' "$@")
  [ -n "$body" ] && args+=(-H 'Content-Type: application/json' -d "$body")
  local shown=(curl -s -X "$method" -H 'Authorization: Bearer $TOKEN' "$@")
  [ -n "$body" ] && shown+=(-d "$body")
  show "${shown[@]}" "$BASE$path"
  local out; out=$(curl "${args[@]}" "$BASE$path")
  local code=${out##*$'\n'}
  echo "HTTP $code" >&2
  printf '%s\n' "${out%$'\n'*}"
}

echo '# 1. Three holders: alice (who opens an account), dev and view; a session token each.' >&2
declare -A token holder
for who in alice dev view; do
  email="$who-$run_id@example.com"
  show npm run -s admin -- user create --email "$email" --password '…'
  made=$(admin user create --email "$email" --password "$PASSWORD")
  echo "$made" | jq -c '{holder_id, email, account_id, role}'
  holder[$who]=$(echo "$made" | jq -r .holder_id)
  token[$who]=$(admin user sign-in --email "$email" --password "$PASSWORD" | jq -r .access_token)
done
acc=$(api "${token[alice]}" GET /account | jq -r .data.account_id)

echo; echo "# 2. Alice invites dev as a developer and view as a viewer (the mails are in the stack's log)." >&2
api "${token[alice]}" POST /account/members "{\"email\":\"dev-$run_id@example.com\",\"role\":\"developer\"}" | jq -c .data
api "${token[alice]}" POST /account/members "{\"email\":\"view-$run_id@example.com\",\"role\":\"viewer\"}" | jq -c .data

echo; echo '# 3. Each finds the invitation and accepts it; then has two accounts.' >&2
for who in dev view; do
  invitations=$(api "${token[$who]}" GET /invitations)
  echo "$invitations" | jq -c '.data.invitations[] | {invitation_id, account_id, role, invited_by, expires_at}'
  invitation=$(echo "$invitations" | jq -r '.data.invitations[0].invitation_id')
  api "${token[$who]}" POST "/invitations/$invitation/accept" | jq -c .data
  api "${token[$who]}" GET /accounts | jq -c .data
  # A new token, as the console takes one after accepting: the old token's authorization, cached
  # up to the TTL, lists the accounts it had.
  show npm run -s admin -- user sign-in --email "$who-$run_id@example.com" --password '…'
  token[$who]=$(admin user sign-in --email "$who-$run_id@example.com" --password "$PASSWORD" | jq -r .access_token)
done

echo; echo "# 4. The viewer may not generate in alice's account: 403 naming the roles that may." >&2
api "${token[view]}" POST /generate '{"prompt":"a heron over the marsh","duration":5}' -H "Vidgen-Account: $acc" | jq -c .

echo; echo "# 5. The developer makes a key there; alice sees who made it, in the keys and the audit log." >&2
api "${token[dev]}" POST /keys '{"name":"made by dev"}' -H "Vidgen-Account: $acc" | jq -c '.data | {key_id, name, created_by}'
api "${token[alice]}" GET /keys | jq -c '.data.keys[] | {key_id, name, created_by}'
api "${token[alice]}" 'GET' '/audit-events?limit=1' | jq -c '.data.events[0] | {action, actor, target, ip, user_agent}'

echo; echo "# 6. Alice removes the developer; dev's session loses alice's account within the cache TTL." >&2
api "${token[alice]}" DELETE "/account/members/${holder[dev]}" | jq -c .data
start=$(date +%s%N)
show curl -s -H 'Authorization: Bearer $TOKEN' -H "Vidgen-Account: $acc" "$BASE/account"   '# every 500 ms'
while :; do
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer ${token[dev]}" -H "Vidgen-Account: $acc" "$BASE/account")
  printf '%s ' "$code" >&2
  [ "$code" = 403 ] && break
  sleep 0.5
done
echo "after $(( ($(date +%s%N) - start) / 1000000 )) ms" >&2
curl -s -H "Authorization: Bearer ${token[dev]}" -H "Vidgen-Account: $acc" "$BASE/account" | jq -c .

echo; echo '# 7. The last owner can neither leave nor step down: 409 last_owner.' >&2
api "${token[alice]}" DELETE "/account/members/${holder[alice]}" | jq -c .
api "${token[alice]}" PATCH "/account/members/${holder[alice]}" '{"role":"admin"}' | jq -c .

echo; echo "# 8. Alice's audit log, as JSON and as CSV." >&2
api "${token[alice]}" GET '/audit-events' | jq -c '.data.events[] | {at, action, actor: (.actor.email // .actor.type), target: "\(.target.type) \(.target.id)"}'
api "${token[alice]}" GET '/audit-events' '' -H 'Accept: text/csv'
