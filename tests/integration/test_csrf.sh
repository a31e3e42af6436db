#!/usr/bin/env bash
# Issue 11, hostile clients (CSRF and webhook destinations): on the default
# loopback daemon a cross-origin write is refused with 403 and creates
# nothing (Origin of another site, Origin: null, Sec-Fetch-Site:
# cross-site; the text/plain "simple request" a page can send without a
# preflight), whatever the route (comparisons, runs, webhooks, deletes);
# same-origin and Origin-less JSON requests work; JSON routes refuse other
# content types with 415 (multipart stays allowed where it was, raw uploads
# too); --public-url names the origin behind a proxy.  Webhooks to
# 127.0.0.1, [::1] and localhost are refused at creation without
# --webhook-allow-private and accepted with it; a stored loopback webhook
# is refused again at send time (a final failure, nothing connected); URLs
# are masked and receiver replies hidden for readers without a valid token,
# shown with one.  Only loopback destinations are ever used.
source "$(dirname "$0")/lib.sh"
RECV="$(dirname "$0")/receiver.py"
RECEIVER_PIDS=()
trap 'for p in "${RECEIVER_PIDS[@]}"; do kill "$p" 2>/dev/null; done; cleanup' EXIT
DATA=$WORK/data
EVIL=http://evil.example

count() { # count PATH KEY -> number of items on the first page
	curl -s "$BASE$1" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)[sys.argv[1]]))' "$2"
}
code() { json error.code; }
upload() { # upload FILE NAME -> run id
	curl -s -F "log=@$1" -F "name=$2" "$BASE/runs" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}

start_daemon || exit 1
ORIGIN=$BASE # what a page served by the daemon itself would send
A=$(upload "$F/match/p4_a.log" base)
B=$(upload "$F/match/p4_b.log" cand)
BODY="{\"baseline\":$A,\"candidate\":$B}"

# --- cross-origin writes: 403, nothing created --------------------------------------
# the request a page's fetch(url, {method:"POST", mode:"no-cors", body}) sends
eq "no-cors text/plain from another origin" "$(http POST /comparisons -H "Origin: $EVIL" \
	-H 'Content-Type: text/plain;charset=UTF-8' --data-binary "$BODY")" 403
eq "its error code" "$(code)" cross_origin
eq "cross-origin JSON" "$(http POST /comparisons -H "Origin: $EVIL" --json "$BODY")" 403
eq "cross-origin form" "$(http POST /comparisons -H "Origin: $EVIL" -F baseline="$A" -F candidate="$B")" 403
eq "Origin: null (sandboxed frame, file://)" "$(http POST /comparisons -H 'Origin: null' --json "$BODY")" 403
eq "another port of the same host" "$(http POST /comparisons -H "Origin: http://127.0.0.1:1" --json "$BODY")" 403
eq "localhost is another origin than 127.0.0.1" \
	"$(http POST /comparisons -H "Origin: ${BASE/127.0.0.1/localhost}" --json "$BODY")" 403
eq "Sec-Fetch-Site: cross-site without Origin" \
	"$(http POST /comparisons -H 'Sec-Fetch-Site: cross-site' --json "$BODY")" 403
eq "no comparison was created" "$(count /comparisons comparisons)" 0
eq "cross-origin raw upload" "$(http POST '/runs?name=evil' -H "Origin: $EVIL" -H 'Content-Type: text/plain' \
	--data-binary "@$F/match/p4_a.log")" 403
eq "cross-origin multipart upload" "$(http POST /runs -H "Origin: $EVIL" -F "log=@$F/match/p4_a.log")" 403
eq "no run was created" "$(count /runs runs)" 2
head -c 12000000 /dev/zero >"$WORK/big.bin"
eq "a large cross-origin upload is refused before its body" \
	"$(http POST /runs -H "Origin: $EVIL" --data-binary "@$WORK/big.bin")" 403
eq "cross-origin webhook" "$(http POST /webhooks -H "Origin: $EVIL" \
	--json '{"url":"http://127.0.0.1:9/h","secret":"s"}')" 403
eq "cross-origin delete" "$(http DELETE "/runs/$A" -H "Origin: $EVIL")" 403
eq "the run is still there" "$(http GET "/runs/$A")" 200
eq "reads are not affected by Origin" "$(http GET /runs -H "Origin: $EVIL")" 200

# --- content types on JSON routes: 415 -----------------------------------------------
eq "text/plain without Origin" "$(http POST /comparisons -H 'Content-Type: text/plain' --data-binary "$BODY")" 415
eq "415 error code" "$(code)" unsupported_media_type
# a form encoding now (the handler reads forms): the JSON text is no field
eq "curl -d (urlencoded JSON text)" "$(http POST /comparisons -d "$BODY")" 400
eq "no content type" "$(http POST /comparisons -H 'Content-Type:' --data-binary "$BODY")" 415
eq "webhooks: urlencoded" "$(http POST /webhooks -d '{"url":"http://127.0.0.1:9/h","secret":"s"}')" 415
eq "webhooks: multipart is not JSON" "$(http POST /webhooks -F url=http://127.0.0.1:9/h -F secret=s)" 415
eq "still nothing created" "$(count /comparisons comparisons)" 0
eq "no webhook created" "$(count /webhooks webhooks)" 0

# --- what stays allowed ----------------------------------------------------------------
eq "same-origin JSON" "$(http POST /comparisons -H "Origin: $ORIGIN" --json "$BODY")" 202
eq "no Origin, JSON" "$(http POST /comparisons --json "$BODY")" 202
eq "JSON with a charset" "$(http POST /comparisons -H 'Content-Type: application/json; charset=utf-8' \
	--data-binary "$BODY")" 202
eq "Sec-Fetch-Site: same-origin" "$(http POST /comparisons -H 'Sec-Fetch-Site: same-origin' \
	-H "Origin: $ORIGIN" --json "$BODY")" 202
eq "multipart comparison" "$(http POST /comparisons -F baseline="$A" -F candidate="$B")" 202
eq "raw upload with any content type" "$(http POST '/runs?name=raw' -H 'Content-Type: text/plain' \
	--data-binary "@$F/match/p4_a.log")" 201
RAW=$(json id)
eq "same-origin delete" "$(http DELETE "/runs/$RAW" -H "Origin: $ORIGIN")" 200
eq "five comparisons" "$(count /comparisons comparisons)" 5

# --- webhook destinations without --webhook-allow-private -----------------------------
for u in http://127.0.0.1:9/h 'http://[::1]:9/h' http://localhost:9/h http://127.1.2.3:9/h \
	'http://user:pw@127.0.0.1:9/h' 'http://[::ffff:127.0.0.1]:9/h' http://2130706433:9/h; do
	eq "refused at creation: $u" "$(http POST /webhooks --json "{\"url\":\"$u\",\"secret\":\"s\"}")" 400
	eq "code for $u" "$(code)" destination_not_allowed
done
check "the refusal names the address class" grep -q 'loopback' "$WORK/body"
eq "github-status to loopback refused too" "$(http POST /webhooks \
	--json '{"url":"http://127.0.0.1:9/r/{sha}","format":"github-status","token":"t"}')" 400
eq "nothing was stored" "$(count /webhooks webhooks)" 0
check "help names the flag" bash -c '"$1" serve --help-all | grep -q -- --webhook-allow-private' _ "$PARITY_BIN"
stop_daemon

# --- --public-url: the origin users reach through a proxy ------------------------------
start_daemon --public-url https://parity.example.org || exit 1
eq "public origin accepted" "$(http POST /comparisons -H 'Origin: https://parity.example.org' --json "$BODY")" 202
eq "public host over http is another origin" \
	"$(http POST /comparisons -H 'Origin: http://parity.example.org' --json "$BODY")" 403
eq "proxied Host header" "$(http POST /comparisons -H 'Host: parity.example.org' \
	-H 'Origin: https://parity.example.org' --json "$BODY")" 202
stop_daemon

# --- with --webhook-allow-private: loopback receivers, masking, hidden replies ---------
TOKEN=$("$PARITY_BIN" token create --name reader $(store_args))
AUTH=(-H "Authorization: Bearer $TOKEN")
start_daemon --webhook-allow-private --webhook-retry-base-ms 100 || exit 1
for u in http://127.0.0.1:9/h 'http://[::1]:9/h' http://localhost:9/h; do
	eq "allowed with the flag: $u" "$(http POST /webhooks --json "{\"url\":\"$u\",\"secret\":\"s\"}")" 201
	http DELETE "/webhooks/$(json id)" >/dev/null
done
P=$(python3 "$RECV" --free-port)
python3 "$RECV" --port "$P" --port-file "$WORK/r.port" --log "$WORK/r.jsonl" \
	--responses 400,400 --body 'internal-reply-XYZ' &
RECEIVER_PIDS+=($!)
check "receiver up" wait_for test -s "$WORK/r.port"
SECRET_URL="http://user:hunter2@127.0.0.1:$P/services/T000/B000/XXXX"
eq "create a webhook with credentials in its URL" \
	"$(http POST /webhooks --json "{\"url\":\"$SECRET_URL\",\"secret\":\"s\"}")" 201
H=$(json id)
eq "creation reply masks the URL (no token)" "$(json url)" "http://***@127.0.0.1:$P/***"
eq "list masks it" "$(http GET /webhooks >/dev/null; json webhooks.0.url)" "http://***@127.0.0.1:$P/***"
check "no credential or path in the list" bash -c '! grep -q "hunter2\|services\|XXXX" "$1"' _ "$WORK/body"
eq "an invalid token is not an error on an open read" \
	"$(http GET /webhooks -H 'Authorization: Bearer pty_nope')" 200
eq "...and sees the masked URL" "$(json webhooks.0.url)" "http://***@127.0.0.1:$P/***"
http GET /webhooks "${AUTH[@]}" >/dev/null
eq "a token holder sees the URL" "$(json webhooks.0.url)" "$SECRET_URL"
http POST /comparisons --json "$BODY" >/dev/null
C=$(json id)
http GET "/comparisons/$C?wait=60" >/dev/null
delivery_is() { http GET "/webhooks/$H/deliveries" >/dev/null && [ "$(json deliveries.0.status)" == "$1" ]; }
check "the receiver's 400 fails the delivery" wait_for delivery_is failed
http GET "/webhooks/$H/deliveries" >/dev/null
eq "no token: last_error without the reply" "$(json deliveries.0.last_error)" "HTTP 400"
eq "no token: attempt error without the reply" "$(json deliveries.0.attempt_log.0.error)" "HTTP 400"
eq "no token: delivery URL masked" "$(json deliveries.0.url)" "http://***@127.0.0.1:$P/***"
check "no token: nothing of the reply or the credentials" \
	bash -c '! grep -q "internal-reply\|hunter2" "$1"' _ "$WORK/body"
http GET "/webhooks/$H/deliveries" "${AUTH[@]}" >/dev/null
eq "token: the reply is shown" "$(json deliveries.0.last_error)" "HTTP 400: internal-reply-XYZ"
eq "token: attempt error with the reply" "$(json deliveries.0.attempt_log.0.error)" "HTTP 400: internal-reply-XYZ"
eq "token: the URL is shown" "$(json deliveries.0.url)" "$SECRET_URL"
N_BEFORE=$(wc -l <"$WORK/r.jsonl")
eq "the receiver got one request" "$N_BEFORE" 1
stop_daemon

# --- send time: a stored loopback webhook, daemon restarted without the flag ---------
start_daemon --webhook-retry-base-ms 100 || exit 1
http POST /comparisons --json "$BODY" >/dev/null
C2=$(json id)
http GET "/comparisons/$C2?wait=60" >/dev/null
last_comparison_is() { http GET "/webhooks/$H/deliveries" >/dev/null && [ "$(json deliveries.0.comparison_id)" == "$C2" ] && [ "$(json deliveries.0.status)" == "$1" ]; }
check "the delivery is refused at send time, for good" wait_for last_comparison_is failed
http GET "/webhooks/$H/deliveries" "${AUTH[@]}" >/dev/null
eq "one attempt, not retried" "$(json deliveries.0.attempts)" 1
check "the error names the refused address" python3 -c 'import json,sys
e=json.load(open(sys.argv[1]))["deliveries"][0]["last_error"]
assert e.startswith("destination refused: 127.0.0.1 is a loopback address"), e' "$WORK/body"
eq "no connection reached the receiver" "$(wc -l <"$WORK/r.jsonl")" "$N_BEFORE"
stop_daemon
finish
