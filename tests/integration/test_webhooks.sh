#!/usr/bin/env bash
# Issue 6, webhooks: real HTTP receivers on loopback (receiver.py).  The
# signature verifies with the secret and not with another; payload fields
# and absolute URLs (--public-url); 500,500,200 is delivered on the third
# attempt with three attempts recorded; a 400 is final; a receiver that is
# down at first gets the delivery once it comes up; a daemon restarted with
# a pending delivery delivers it; github-status body, {sha} substitution and
# bearer token; request validation; secrets never returned.
source "$(dirname "$0")/lib.sh"
RECV="$(dirname "$0")/receiver.py"
RECEIVER_PIDS=()
trap 'for p in "${RECEIVER_PIDS[@]}"; do kill "$p" 2>/dev/null; done; cleanup' EXIT

# start_receiver NAME PORT [RESPONSES]: log in $WORK/NAME.jsonl
start_receiver() {
	local name=$1 port=$2
	: >>"$WORK/$name.jsonl"
	rm -f "$WORK/$name.port"
	python3 "$RECV" --port "$port" --port-file "$WORK/$name.port" --log "$WORK/$name.jsonl" \
		--responses "${3:-}" &
	RECEIVER_PIDS+=($!)
	for _ in $(seq 1 100); do [ -s "$WORK/$name.port" ] && return 0; sleep 0.05; done
	bad "receiver $name did not start"
}
free_port() { python3 "$RECV" --free-port; }
n_requests() { [ -f "$WORK/$1.jsonl" ] && wc -l <"$WORK/$1.jsonl" || echo 0; }
# request field: req NAME INDEX EXPR  (python expression over r = the request)
req() {
	python3 -c 'import json,sys
rs=[json.loads(l) for l in open(sys.argv[1])]
r=rs[int(sys.argv[2])]
b=json.loads(r["body"]) if r["body"] else None
v=eval(sys.argv[3])
print("null" if v is None else (str(v).lower() if isinstance(v,bool) else v))' "$WORK/$1.jsonl" "$2" "$3"
}
upload() { # upload FILE [name] [meta-json] -> run id
	curl -s -F "log=@$1" -F "name=${2:-run}" ${3:+-F "meta=$3"} "$BASE/runs" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}
compare() { # compare A B -> comparison id, waits for it to finish
	http POST /comparisons --json "{\"baseline\":$1,\"candidate\":$2}" >/dev/null
	local id
	id=$(json id)
	http GET "/comparisons/$id?wait=60" >/dev/null
	echo "$id"
}
hook() { # hook JSON -> webhook id (expects 201)
	local st
	st=$(http POST /webhooks --json "$1")
	[ "$st" == 201 ] || bad "create webhook $1: $st $(cat "$WORK/body")"
	json id
}
deliveries() { http GET "/webhooks/$1/deliveries" >/dev/null; }
delivery_field() { deliveries "$1"; json "deliveries.0.$2"; }
delivery_is() { [ "$(delivery_field "$1" status)" == "$2" ]; }
attempts_at_least() { [ "$(delivery_field "$1" attempts)" -ge "$2" ] 2>/dev/null; }
requests_at_least() { [ "$(n_requests "$1")" -ge "$2" ]; }

# the receivers are on loopback: allowed only with --webhook-allow-private
# (test_csrf.sh checks the refusal)
start_daemon --webhook-retry-base-ms 200 --public-url http://parity.example \
	--webhook-allow-private || exit 1
A=$(upload "$F/match/p4_a.log" base '{"commit":"1111aaaa","branch":"main"}')
B=$(upload "$F/match/p4_b.log" cand '{"commit":"abc123def456","branch":"pr-7"}')
A2=$(upload "$F/match/p4_a.log" same '{"commit":"feedbeef"}')
NOCOMMIT=$(upload "$F/match/p4_a.log" nocommit)

# --- validation and secrecy ----------------------------------------------------
eq "ftp url" "$(http POST /webhooks --json '{"url":"ftp://x/y","secret":"s"}')" 400
eq "relative url" "$(http POST /webhooks --json '{"url":"/hook","secret":"s"}')" 400
eq "generic needs a secret" "$(http POST /webhooks --json '{"url":"http://127.0.0.1:9/h"}')" 400
eq "unknown event" "$(http POST /webhooks --json '{"url":"http://127.0.0.1:9/h","secret":"s","events":["run.created"]}')" 400
eq "empty events" "$(http POST /webhooks --json '{"url":"http://127.0.0.1:9/h","secret":"s","events":[]}')" 400
eq "token on generic" "$(http POST /webhooks --json '{"url":"http://127.0.0.1:9/h","secret":"s","token":"t"}')" 400
eq "github-status needs a token" "$(http POST /webhooks --json '{"url":"http://127.0.0.1:9/{sha}","format":"github-status"}')" 400
eq "unknown format" "$(http POST /webhooks --json '{"url":"http://127.0.0.1:9/h","secret":"s","format":"slack"}')" 400
eq "unknown field" "$(http POST /webhooks --json '{"url":"http://127.0.0.1:9/h","secret":"s","x":1}')" 400
eq "bad json" "$(http POST /webhooks --json '{"url":')" 400
eq "delete missing webhook" "$(http DELETE /webhooks/999)" 404
eq "deliveries of missing webhook" "$(http GET /webhooks/999/deliveries)" 404

# --- generic delivery, signature, payload ---------------------------------------
P1=$(free_port)
start_receiver r1 "$P1"
H1=$(hook "{\"url\":\"http://127.0.0.1:$P1/hook?x=1\",\"secret\":\"It's a Secret\"}")
check "create response hides the secret" python3 -c 'import sys; b=open(sys.argv[1]).read(); assert "Secret" not in b and "has_secret" in b' "$WORK/body"
eq "default events" "$(json events.0)" comparison.completed
eq "default format" "$(json format)" generic
http GET /webhooks >/dev/null
check "list hides the secret" python3 -c 'import sys; b=open(sys.argv[1]).read(); assert "Secret" not in b and "\"url\"" in b' "$WORK/body"
C1=$(compare "$A" "$B")
check "receiver got the delivery" wait_for requests_at_least r1 1
check "delivery recorded as delivered" wait_for delivery_is "$H1" delivered
eq "path and query kept" "$(req r1 0 'r["path"]')" "/hook?x=1"
eq "content type" "$(req r1 0 'r["headers"]["content-type"]')" application/json
eq "event header" "$(req r1 0 'r["headers"]["x-parity-event"]')" comparison.completed
D1=$(delivery_field "$H1" id)
eq "delivery header = delivery id" "$(req r1 0 'r["headers"]["x-parity-delivery"]')" "$D1"
check "no Expect: 100-continue" python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).readline()); assert "expect" not in r["headers"]' "$WORK/r1.jsonl"
sigcheck() { # sigcheck SECRET -> true when the header verifies with SECRET
	python3 -c 'import json,sys,hmac,hashlib
r=json.loads(open(sys.argv[1]).readline())
want="sha256="+hmac.new(sys.argv[2].encode(),r["body"].encode(),hashlib.sha256).hexdigest()
sys.exit(0 if hmac.compare_digest(want,r["headers"]["x-parity-signature-256"]) else 1)' "$WORK/r1.jsonl" "$1"
}
check "signature verifies with the secret" sigcheck "It's a Secret"
if sigcheck "another secret"; then bad "signature verified with a wrong secret"; else ok; fi
eq "payload event" "$(req r1 0 'b["event"]')" comparison.completed
eq "payload delivery id" "$(req r1 0 'b["delivery_id"]')" "$D1"
eq "payload comparison id" "$(req r1 0 'b["comparison_id"]')" "$C1"
eq "payload verdict" "$(req r1 0 'b["verdict"]')" fail
eq "payload kind" "$(req r1 0 'b["kind"]')" activation
eq "payload policy" "$(req r1 0 'b["policy"]["name"]')" bitwise
eq "payload first reason" "$(req r1 0 'b["reasons"][0]["code"]')" diff_rows
eq "payload summary" "$(req r1 0 'b["summary"]["diff"]')" 3
eq "payload page url (absolute)" "$(req r1 0 'b["urls"]["page"]')" "http://parity.example/ui/comparisons/$C1"
eq "payload report url" "$(req r1 0 'b["urls"]["report"]')" "http://parity.example/comparisons/$C1/report.html"
eq "payload api url" "$(req r1 0 'b["urls"]["api"]')" "http://parity.example/comparisons/$C1"
eq "payload baseline name" "$(req r1 0 'b["runs"]["baseline"]["name"]')" base
eq "payload candidate commit" "$(req r1 0 'b["runs"]["candidate"]["meta"]["commit"]')" abc123def456
eq "payload candidate branch" "$(req r1 0 'b["runs"]["candidate"]["meta"]["branch"]')" pr-7
deliveries "$H1"
eq "one attempt" "$(json deliveries.0.attempts)" 1
eq "attempt status 200" "$(json deliveries.0.attempt_log.0.http_status)" 200
eq "attempt has no error" "$(json deliveries.0.attempt_log.0.error)" null
check "attempt has a time and duration" python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["deliveries"][0]["attempt_log"][0]; assert a["at"].endswith("Z") and a["duration_ms"]>=0' "$WORK/body"
check "deliveries hide the secret" python3 -c 'import sys; assert "Secret" not in open(sys.argv[1]).read()' "$WORK/body"
eq "delete webhook" "$(http DELETE "/webhooks/$H1")" 200

# --- 500, 500, 200: delivered on the third attempt ------------------------------
P2=$(free_port)
start_receiver r2 "$P2" 500,500,200
H2=$(hook "{\"url\":\"http://127.0.0.1:$P2/\",\"secret\":\"k2\"}")
compare "$A" "$B" >/dev/null
check "500,500,200 delivered" wait_for delivery_is "$H2" delivered
deliveries "$H2"
eq "three attempts recorded" "$(json deliveries.0.attempts)" 3
eq "attempt statuses" "$(python3 -c 'import json,sys; print(",".join(str(a["http_status"]) for a in json.load(open(sys.argv[1]))["deliveries"][0]["attempt_log"]))' "$WORK/body")" 500,500,200
check "a 500 attempt records an error" python3 -c 'import json,sys; a=json.load(open(sys.argv[1]))["deliveries"][0]["attempt_log"][0]; assert a["error"].startswith("HTTP 500")' "$WORK/body"
eq "receiver saw three requests" "$(n_requests r2)" 3
check "retries resend the same body and delivery id" python3 -c 'import json,sys
rs=[json.loads(l) for l in open(sys.argv[1])]
assert len({r["body"] for r in rs})==1 and len({r["headers"]["x-parity-delivery"] for r in rs})==1' "$WORK/r2.jsonl"
check "backoff grows" python3 -c 'import json,sys
from datetime import datetime
a=json.load(open(sys.argv[1]))["deliveries"][0]["attempt_log"]
t=[datetime.strptime(x["at"],"%Y-%m-%dT%H:%M:%S.%fZ").timestamp() for x in a]
assert t[1]-t[0] >= 0.1 and t[2]-t[1] >= 0.25, t' "$WORK/body"
http DELETE "/webhooks/$H2" >/dev/null

# --- 400 is final -------------------------------------------------------------------
P3=$(free_port)
start_receiver r3 "$P3" 400,200
H3=$(hook "{\"url\":\"http://127.0.0.1:$P3/\",\"secret\":\"k3\"}")
compare "$A" "$B" >/dev/null
check "400 marks the delivery failed" wait_for delivery_is "$H3" failed
# An absence cannot be polled for: give the sender several retry periods
# (200 ms each) to misbehave.  A slow machine can only hide a bug here, never
# fail a correct build.
sleep 1
deliveries "$H3"
eq "400: one attempt" "$(json deliveries.0.attempts)" 1
eq "400: receiver saw one request" "$(n_requests r3)" 1
check "400: last error" python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["deliveries"][0]; assert d["last_error"].startswith("HTTP 400")' "$WORK/body"
http DELETE "/webhooks/$H3" >/dev/null

# --- receiver down at first ------------------------------------------------------
P4=$(free_port)
H4=$(hook "{\"url\":\"http://127.0.0.1:$P4/late\",\"secret\":\"k4\"}")
compare "$A" "$B" >/dev/null
check "connection refused is retried" wait_for attempts_at_least "$H4" 2
eq "still pending" "$(delivery_field "$H4" status)" pending
check "pending has a next attempt time" python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["deliveries"][0]; assert d["next_attempt_at"] and d["attempt_log"][0]["http_status"] is None and d["attempt_log"][0]["error"]' "$WORK/body"
start_receiver r4 "$P4"
check "delivered once the receiver is up" wait_for delivery_is "$H4" delivered
eq "late receiver got it once" "$(n_requests r4)" 1
http DELETE "/webhooks/$H4" >/dev/null

# --- pending delivery survives a restart ------------------------------------------
P5=$(free_port)
H5=$(hook "{\"url\":\"http://127.0.0.1:$P5/restart\",\"secret\":\"k5\"}")
compare "$A" "$B" >/dev/null
check "first attempt failed" wait_for attempts_at_least "$H5" 1
stop_daemon
start_receiver r5 "$P5"
PARITY_WEBHOOK_ALLOW_PRIVATE=1 start_daemon --webhook-retry-base-ms 200 \
	--public-url http://parity.example || exit 1
check "restarted daemon delivers the pending delivery" wait_for delivery_is "$H5" delivered
eq "delivered exactly once" "$(n_requests r5)" 1
http DELETE "/webhooks/$H5" >/dev/null

# --- github-status -------------------------------------------------------------------
P6=$(free_port)
start_receiver r6 "$P6"
H6=$(hook "{\"url\":\"http://127.0.0.1:$P6/repos/o/r/statuses/{sha}\",\"format\":\"github-status\",\"token\":\"ghs_tok\"}")
eq "github hook format" "$(json format)" github-status
check "token never returned" python3 -c 'import sys; b=open(sys.argv[1]).read(); assert "ghs_tok" not in b and "\"has_token\":true" in b' "$WORK/body"
C6=$(compare "$A" "$B")
check "github-status delivered" wait_for delivery_is "$H6" delivered
eq "{sha} replaced by candidate meta.commit" "$(req r6 0 'r["path"]')" /repos/o/r/statuses/abc123def456
eq "bearer token sent" "$(req r6 0 'r["headers"]["authorization"]')" "Bearer ghs_tok"
eq "github accept header" "$(req r6 0 'r["headers"]["accept"]')" application/vnd.github+json
eq "state failure" "$(req r6 0 'b["state"]')" failure
eq "context" "$(req r6 0 'b["context"]')" parity/bitwise
eq "target_url" "$(req r6 0 'b["target_url"]')" "http://parity.example/ui/comparisons/$C6"
check "description = verdict + first reason, <= 140 chars" python3 -c 'import json,sys
r=json.loads(open(sys.argv[1]).readline()); d=json.loads(r["body"])["description"]
assert d.startswith("fail: 3 paired ops differ") and len(d)<=140, d' "$WORK/r6.jsonl"
eq "only the four status fields" "$(req r6 0 'sorted(b)')" "['context', 'description', 'state', 'target_url']"
compare "$A" "$A2" >/dev/null
check "second status delivered" wait_for requests_at_least r6 2
eq "pass -> success" "$(req r6 1 'b["state"]')" success
eq "pass sha" "$(req r6 1 'r["path"]')" /repos/o/r/statuses/feedbeef
compare "$A" "$NOCOMMIT" >/dev/null
check "no commit: delivery failed without an attempt" wait_for delivery_is "$H6" failed
deliveries "$H6"
eq "no commit: zero attempts" "$(json deliveries.0.attempts)" 0
check "no commit: reason" python3 -c 'import json,sys; assert "meta.commit" in json.load(open(sys.argv[1]))["deliveries"][0]["last_error"]' "$WORK/body"
eq "no extra request" "$(n_requests r6)" 2
http DELETE "/webhooks/$H6" >/dev/null

stop_daemon
finish
