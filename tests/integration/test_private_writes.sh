#!/usr/bin/env bash
# Issue 23 F7: with --private-reads --open-writes an anonymous client may
# write but not read.  Every write that reads is authorised as a read: a
# subscription (webhook or email) is 401 without a token; PUT /baselines
# and POST /comparisons answer an anonymous writer with a receipt (ids and
# state, no run meta, no policy, no history); a 409 names no record the
# client may not read.  With a token every answer is whole, as before.
source "$(dirname "$0")/lib.sh"
DATA=$WORK/data

TOKEN=$("$PARITY_BIN" token create --name ci $(store_args))
AUTH=(-H "Authorization: Bearer $TOKEN")
SECRET=meta-secret-7f3a
start_daemon --private-reads --open-writes --webhook-allow-private \
	--smtp-url smtp://127.0.0.1:9 --mail-from parity@ci.example || exit 1

upload() { # upload FILE -> run id (anonymous, meta holding $SECRET)
	curl -s -F "log=@$1" -F "meta={\"commit\":\"$SECRET\"}" "$BASE/runs" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}
R1=$(upload "$F/match/p4_a.log")
R2=$(upload "$F/match/p4_a.log")
check "anonymous uploads" [ "${R1:-0}" -gt 0 ] && [ "${R2:-0}" -gt 0 ]
eq "anonymous read refused" "$(http GET "/runs/$R1")" 401

# --- subscriptions are reads -------------------------------------------------------------
eq "anonymous webhook" "$(http POST /webhooks --json '{"url":"http://127.0.0.1:9/hook","secret":"s"}')" 401
eq "anonymous webhook: code" "$(json error.code)" unauthorized
eq "anonymous email" "$(http POST /webhooks --json '{"format":"email","to":["a@example.com"]}')" 401
eq "webhook with a token" "$(http POST /webhooks "${AUTH[@]}" --json '{"url":"http://127.0.0.1:9/hook","secret":"s"}')" 201
http GET /webhooks "${AUTH[@]}" >/dev/null
eq "nothing subscribed anonymously" "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["webhooks"]))' "$WORK/body")" 1

# --- write replies carry no stored data ----------------------------------------------
no_secret() { ! grep -qF "$SECRET" "$WORK/body"; }
eq "anonymous PUT /baselines" "$(http PUT /baselines/main --json "{\"run\":$R1}")" 200
check "PUT /baselines: no run meta" no_secret
eq "PUT /baselines: receipt name" "$(json name)" main
eq "PUT /baselines: receipt run" "$(json run)" "$R1"
eq "PUT /baselines: no run_doc" "$(json run_doc)" null
eq "PUT /baselines: no history" "$(json history)" null
eq "anonymous POST /comparisons" "$(http POST /comparisons --json "{\"baseline\":$R1,\"candidate\":$R2,\"name\":\"c\"}")" 202
check "POST /comparisons: no run meta" no_secret
C=$(json id)
check "POST /comparisons: receipt id" [ "${C:-0}" -gt 0 ]
check "POST /comparisons: receipt status" grep -qE "\"status\": *\"(queued|running|done)\"" "$WORK/body"
eq "POST /comparisons: no policy" "$(json policy)" null
eq "POST /comparisons: no name" "$(json name)" null
eq "POST /comparisons by baseline name" "$(http POST /comparisons --json "{\"baseline_name\":\"main\",\"candidate\":$R2}")" 202
check "by baseline name: no run meta" no_secret
# with a token the documents are whole
eq "PUT /baselines with a token" "$(http PUT /baselines/main "${AUTH[@]}" --json "{\"run\":$R1}")" 200
check "with a token: run meta" grep -qF "$SECRET" "$WORK/body"
eq "POST /comparisons with a token" "$(http POST /comparisons "${AUTH[@]}" --json "{\"baseline\":$R1,\"candidate\":$R2}")" 202
check "with a token: policy" [ "$(json policy)" != null ]

# --- conflicts name nothing ----------------------------------------------------------
eq "anonymous DELETE of a run in use" "$(http DELETE "/runs/$R2")" 409
eq "409 code" "$(json error.code)" in_use
names_no_comparison() { ! grep -qE "comparison [0-9]|baseline '" "$WORK/body"; }
check "409 names no comparison" names_no_comparison
eq "DELETE of a run in use with a token" "$(http DELETE "/runs/$R2" "${AUTH[@]}")" 409
check "with a token the 409 names it" grep -qE "comparison [0-9]+" "$WORK/body"
stop_daemon

finish
