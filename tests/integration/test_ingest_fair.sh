#!/usr/bin/env bash
# Issue 23 F8: ingest slots are fair.  Uploads that trickle just above
# --min-upload-rate (20 KB/s > 16 KiB/s) used to hold every --max-ingests
# slot, and every other upload got 503 at once.  Now one client (address,
# or token) holds at most half of the slots, and an upload that finds no
# slot waits up to --ingest-wait (suspended, holding no thread) for one;
# past it, 503 with Retry-After.  Clients are told apart by their loopback
# address (curl --interface 127.0.0.N).
source "$(dirname "$0")/lib.sh"
need curl
DATA=$WORK/data
python3 "$G/gen_actlog.py" --layers 200 --scenario ulp --out-a "$WORK/big.log" --out-b "$WORK/big_b.log" || exit 1
TRICKLES=()
trickle() { # trickle FROM NAME: a raw upload at 20 KB/s from address FROM
	curl -s -o "$WORK/$2.out" -w '%{http_code}' --interface "$1" --limit-rate 20K \
		--data-binary "@$WORK/big.log" "$BASE/runs?name=$2" >"$WORK/$2.code" 2>/dev/null &
	TRICKLES+=($!)
}
stop_trickles() {
	local p
	for p in "${TRICKLES[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${TRICKLES[@]}"; do wait "$p" 2>/dev/null; done
	TRICKLES=()
}
active() { curl -s "$BASE/metrics" | awk '/^parity_uploads_in_progress /{print $2}'; }
normal() { # normal FROM: a normal upload from address FROM, prints the status
	curl -s -o "$WORK/normal.out" -D "$WORK/normal.hdr" -w '%{http_code}' --interface "$1" \
		-F "log=@$F/match/p4_a.log" "$BASE/runs"
}
curl -s --interface 127.0.0.2 -o /dev/null "http://127.0.0.1:9/" 2>/dev/null
[ $? = 45 ] && skip_or_fail "curl cannot bind 127.0.0.2 (a loopback alias is needed)"

# --- four trickles from one address, a normal upload from another ---------------------------
start_daemon --max-ingests 4 --ingest-wait 3 || exit 1
for i in 1 2 3 4; do trickle 127.0.0.1 "t$i"; done
sleep 1
eq "one address holds half of the slots" "$(active)" 2
eq "a normal upload from another address" "$(normal 127.0.0.2)" 201
eq "and another" "$(normal 127.0.0.3)" 201
# the trickles past the share waited for a slot of their address, then 503
check "the trickles over the share got 503 after the wait" \
	wait_for bash -c "[ \"\$(grep -l 503 '$WORK'/t?.code | wc -l)\" = 2 ]"
stop_trickles
stop_daemon

# --- every slot held by others: a normal upload waits, and gets the first free one --------
start_daemon --max-ingests 2 --ingest-wait 20 || exit 1
trickle 127.0.0.1 a
trickle 127.0.0.3 b
wait_for bash -c "[ \"\$(curl -s '$BASE/metrics' | awk '/^parity_uploads_in_progress /{print \$2}')\" = 2 ]"
eq "both slots held" "$(active)" 2
normal 127.0.0.2 >"$WORK/waiting.code" &
NPID=$!
sleep 1
check "the normal upload waits (no 503 at once)" kill -0 "$NPID"
eq "healthz answers while it waits" "$(http GET /healthz)" 200
kill "${TRICKLES[0]}" # a slot comes free
wait "$NPID"
eq "the waiting upload got the freed slot" "$(cat "$WORK/waiting.code")" 201
# past the wait: 503 with Retry-After
trickle 127.0.0.1 c
wait_for bash -c "[ \"\$(curl -s '$BASE/metrics' | awk '/^parity_uploads_in_progress /{print \$2}')\" = 2 ]"
stop_daemon
start_daemon --max-ingests 2 --ingest-wait 1 || exit 1
stop_trickles
trickle 127.0.0.1 d
trickle 127.0.0.3 e
wait_for bash -c "[ \"\$(curl -s '$BASE/metrics' | awk '/^parity_uploads_in_progress /{print \$2}')\" = 2 ]"
t0=$SECONDS
eq "past --ingest-wait: 503" "$(normal 127.0.0.2)" 503
check "after the wait, not at once" [ $((SECONDS - t0)) -ge 1 ]
check "Retry-After" grep -qi '^Retry-After: 5' "$WORK/normal.hdr"
check "the 503 says why" grep -q 'none came free in time' "$WORK/normal.out"
stop_trickles
wait_for bash -c "[ \"\$(curl -s '$BASE/metrics' | awk '/^parity_uploads_in_progress /{print \$2}')\" = 0 ]"
eq "slots all free again" "$(active)" 0
eq "an upload after the trickles" "$(normal 127.0.0.2)" 201
stop_daemon
finish
