#!/usr/bin/env bash
# Issue 23 F10: promotion is a compare-and-swap.  PUT /baselines/{name}
# with a comparison moves the name only while the run that comparison was
# made against is still current, else 409 not_promotable naming the
# current run, with nothing changed: of two concurrent promotions from one
# run exactly one wins (8 rounds); a stale one is refused; a plain set
# (no comparison) stays unconditional.  `parity submit --promote-on-pass`
# whose baseline moved while its comparison waited in the queue exits 3
# and says the run was not promoted.
source "$(dirname "$0")/lib.sh"
need python3 curl
T=$F/train
# one worker: the submit's comparison queues behind the blockers below
start_daemon --workers 1 || exit 1

upload() { # upload FILE NAME -> run id
	curl -s -F "log=@$1" -F "name=$2" "$BASE/runs" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}
R1=$(upload "$T/q1_a.log" golden)
R2=$(upload "$T/q1_a.log" cand-2)
R3=$(upload "$T/q1_a.log" cand-3)
eq "set the baseline" "$(http PUT /baselines/race --json "{\"run\":$R1}")" 200

# passed CAND: a comparison of run CAND against the name, done and passed
passed() {
	http POST /comparisons --json "{\"baseline_name\":\"race\",\"candidate\":$1}" >/dev/null
	local id
	id=$(json id)
	http GET "/comparisons/$id?wait=60" >/dev/null
	[ "$(json verdict)" = pass ] || echo "comparison $id did not pass" >&2
	echo "$id"
}
C2=$(passed "$R2")
C3=$(passed "$R3")
changes() { http GET /baselines/race >/dev/null && json history | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
current() { http GET /baselines/race >/dev/null && json run; }

# promote RUN CMP OUT: PUT the promotion, "status" into OUT, body OUT.body
promote() {
	curl -s -o "$3.body" -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
		--data "{\"run\":$1,\"comparison\":$2}" "$BASE/baselines/race" >"$3"
}

# ---- two at once from the same current run: exactly one wins ---------------
for round in 1 2 3 4 5 6 7 8; do
	http PUT /baselines/race --json "{\"run\":$R1}" >/dev/null
	before=$(changes)
	promote "$R2" "$C2" "$WORK/p2" &
	p2=$!
	promote "$R3" "$C3" "$WORK/p3" &
	p3=$!
	wait "$p2" "$p3"
	got="$(cat "$WORK/p2") $(cat "$WORK/p3")"
	case $got in
	"200 409") winner=$R2 loser=$WORK/p3 ;;
	"409 200") winner=$R3 loser=$WORK/p2 ;;
	*) winner= loser= ;;
	esac
	eq "round $round: one promotion 200, the other 409" "$(echo "$got" | tr ' ' '\n' | sort | tr '\n' ' ')" "200 409 "
	[ -n "$loser" ] || continue
	eq "round $round: the loser's code" "$(json error.code "$loser.body")" not_promotable
	eq "round $round: the winner is current" "$(current)" "$winner"
	eq "round $round: one change recorded" "$(changes)" $((before + 1))
done

# ---- a stale promotion ---------------------------------------------------------
http PUT /baselines/race --json "{\"run\":$R1}" >/dev/null
eq "promotion from the current run" "$(http PUT /baselines/race --json "{\"run\":$R2,\"comparison\":$C2}")" 200
before=$(changes)
eq "stale promotion (its comparison was made against run $R1): 409" \
	"$(http PUT /baselines/race --json "{\"run\":$R3,\"comparison\":$C3}")" 409
eq "... code" "$(json error.code)" not_promotable
check "... the message names the current run" grep -q "is now run $R2, not run $R1" "$WORK/body"
eq "... nothing changed: current" "$(current)" "$R2"
eq "... nothing changed: history" "$(changes)" "$before"
eq "a plain set is unconditional" "$(http PUT /baselines/race --json "{\"run\":$R3}")" 200
eq "... current" "$(current)" "$R3"

# ---- parity submit --promote-on-pass whose baseline moved meanwhile -----------
http PUT /baselines/race --json "{\"run\":$R1}" >/dev/null
# blockers: big activation comparisons ahead of the submit's in the queue
python3 "$G/gen_actlog.py" --layers 400 --scenario ulp --out-a "$WORK/big_a.log" --out-b "$WORK/big_b.log"
BA=$(upload "$WORK/big_a.log" big-a)
BB=$(upload "$WORK/big_b.log" big-b)
for _ in 1 2 3 4 5 6; do
	http POST /comparisons --json "{\"baseline\":$BA,\"candidate\":$BB}" >/dev/null
done
before=$(changes)
n_before=$(db_sql "SELECT count(*) FROM comparisons WHERE baseline_name = 'race'")
"$PARITY_BIN" submit --server "$BASE" --baseline-name race --promote-on-pass \
	--candidate "$T/q1_a.log" --timeout 120 >"$WORK/submit.out" 2>"$WORK/submit.err" &
SUBMIT=$!
queued() { [ "$(db_sql "SELECT count(*) FROM comparisons WHERE baseline_name = 'race' AND status = 'queued'")" -gt 0 ]; }
check "the submit's comparison is queued behind the blockers" wait_for queued
# the client stops here (its long-poll answer, when it comes, waits in
# the socket), so the baseline surely moves before it can promote
kill -STOP "$SUBMIT"
eq "... made against run $R1" \
	"$(db_sql "SELECT baseline_id FROM comparisons WHERE baseline_name = 'race' ORDER BY id DESC LIMIT 1")" "$R1"
eq "... and not promoted yet (else the blockers were too short)" "$(changes)" "$before"
# another pipeline moves the baseline while it waits
eq "the baseline moves on" "$(http PUT /baselines/race --json "{\"run\":$R2}")" 200
kill -CONT "$SUBMIT"
rc=0
wait "$SUBMIT" || rc=$?
eq "submit: verdict pass but not promoted: exit 3 ($(tr '\n' ' ' <"$WORK/submit.err"))" "$rc" 3
check "submit: says it was not promoted" grep -q 'passed but was NOT promoted' "$WORK/submit.err"
check "submit: the server's reason" grep -q "is now run $R2" "$WORK/submit.err"
eq "submit: the baseline stays" "$(current)" "$R2"
eq "submit: made one comparison" \
	"$(db_sql "SELECT count(*) FROM comparisons WHERE baseline_name = 'race'")" $((n_before + 1))

stop_daemon
finish
