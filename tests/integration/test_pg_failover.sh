#!/usr/bin/env bash
# test_pg_failover.sh - issue 17 "done when": two daemons A and B share one
# PostgreSQL database (PARITY_TEST_DB's server, a fresh database) with a
# short job lease.  Two big activation logs are uploaded through A, the
# comparison is created through B and long-polled on A.  The daemon that
# claimed the job (comparisons.lease_owner, "host:pid:rand") is killed with
# SIGKILL while the job runs; the other daemon then claims it within
# lease + 5 s and completes it (in about the time the same job takes when
# nobody is killed), with rows identical to `parity compare` (the CLI),
# each row once, and a webhook receiver gets exactly one
# comparison.completed.
# A long-poll on A started before the kill answers "done" when A survives
# (B finished it: a wake-up across daemons); the survivor's own long-poll
# answers "done" in any case.
# Without PARITY_TEST_DB ctest skips it, or fails it when CI=true
# (tests/pg/needs_db.sh); run by hand it fails (PARITY_ALLOW_SKIP=1 skips).
PARITY_BACKEND=pg
source "$(dirname "$0")/lib.sh"
need curl python3
LEASE=${FAILOVER_LEASE:-3}
# big enough that the job runs long enough for the watcher below to catch
# it running and read its owner (the kill must land while it runs), small
# enough that the suite stays quick.  After issue 24's store changes a
# 700-layer job ran for ~0.3 s on PostgreSQL and the watcher missed it 3
# times in a row (CI and here); 1400 layers runs ~0.6 s.
LAYERS=${FAILOVER_LAYERS:-1400}
RECV="$(dirname "$0")/receiver.py"
RECV_PID=
trap '[ -n "$RECV_PID" ] && kill "$RECV_PID" 2>/dev/null; cleanup' EXIT

# --- two daemons, one database ------------------------------------------------
python3 "$RECV" --port-file "$WORK/recv.port" --log "$WORK/recv.jsonl" &
RECV_PID=$!
wait_for test -s "$WORK/recv.port" || bad "receiver did not start"
FLAGS=(--job-lease "$LEASE" --webhook-allow-private --webhook-retry-base-ms 200)
DATA=$WORK/a DAEMON_LOG=$WORK/a start_daemon "${FLAGS[@]}" || exit 1
PID_A=$DAEMON_PID BASE_A=$BASE
DATA=$WORK/b STORE_KEY=$WORK/a DAEMON_LOG=$WORK/b start_daemon "${FLAGS[@]}" || exit 1
PID_B=$DAEMON_PID BASE_B=$BASE
DATA=$WORK/a # db_sql: the shared database

# on: run http against daemon X (A or B)
on() {
	local b=BASE_$1
	BASE=${!b}
}
on B
eq "webhook through B" "$(http POST /webhooks --json "{\"url\":\"http://127.0.0.1:$(cat "$WORK/recv.port")/hook\",\"secret\":\"s\",\"events\":[\"comparison.completed\"]}")" 201

python3 "$G/gen_actlog.py" --layers "$LAYERS" --scenario eager-traced \
	--out-a "$WORK/big_a.log" --out-b "$WORK/big_b.log" >/dev/null
on A
upload() { curl -s -F "log=@$1" "$BASE/runs" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
RA=$(upload "$WORK/big_a.log")
RB=$(upload "$WORK/big_b.log")
on B
eq "B sees A's runs" "$(http GET "/runs/$RB")" 200

# --- calibration: the same job on these daemons, nobody killed ---------------
# How long the survivor's recomputation may take is measured, not guessed:
# on an idle machine the job takes ~2 s, at load 6 or under ASan several
# times that.  The bound on "done" below scales with this measurement.
t0=$(date +%s%N)
eq "calibration comparison created through B" "$(http POST /comparisons --json "{\"baseline\":$RA,\"candidate\":$RB}")" 202
CAL=$(json id)
eq "calibration comparison done" "$(http GET "/comparisons/$CAL?wait=120"; json status)" 200done
JOB_MS=$((($(date +%s%N) - t0) / 1000000))
echo "calibration: the job alone takes $JOB_MS ms (created -> done)"

# --- compare through B, wait on A, kill the owner mid-job -------------------
# A job of this size runs for about 0.6 s; on a loaded machine the watcher
# below can miss that window (the job is done before it is seen running):
# then the attempt is repeated with a new comparison, up to 3 times.
for attempt in 1 2 3; do
	eq "comparison created through B" "$(http POST /comparisons --json "{\"baseline\":$RA,\"candidate\":$RB}")" 202
	C=$(json id)
	curl -s "$BASE_A/comparisons/$C?wait=120" >"$WORK/wait_a.json" &
	WAIT_A=$!
	# the claim: status running and a live lease naming one of the daemons
	owner_pid() {
		local o
		o=$(db_sql "SELECT lease_owner FROM comparisons WHERE id = $C AND status = 'running'")
		[ -n "$o" ] || return 1
		echo "$o" | cut -d: -f2 >"$WORK/owner"
	}
	# One python process catches the job running (HTTP, every 5 ms), reads its
	# owner (lease_owner "host:pid:rand", one psql) and kills that daemon at
	# once: a loaded machine must not let the job finish in between.  Prints
	# "owner-pid killed" or "owner-pid -" (not A's or B's) or "- status".
	db_cli
	python3 - "$BASE_A" "$C" "$PID_A" "$PID_B" "${DB_CLI[@]}" >"$WORK/kill" <<'PY'
import json, os, signal, subprocess, sys, time, urllib.request
base, cid, pids, cli = sys.argv[1], int(sys.argv[2]), sys.argv[3:5], sys.argv[5:]
end = time.time() + 30
st = None
while time.time() < end:
    st = json.load(urllib.request.urlopen("%s/comparisons/%d" % (base, cid)))["status"]
    if st == "running":
        sql = "SELECT lease_owner FROM comparisons WHERE id = %d AND status = 'running'" % cid
        owner = subprocess.run(cli + [sql], capture_output=True, text=True).stdout.strip()
        if owner:
            pid = owner.split(":")[1]
            if pid in pids:
                os.kill(int(pid), signal.SIGKILL)
                print(pid, "killed")
            else:
                print(pid, "-")
            sys.exit(0)
    elif st != "queued":
        break
    time.sleep(0.005)
print("-", st)
PY
	grep -q ' killed$' "$WORK/kill" && break
	echo "attempt $attempt: the job was not caught running ($(cat "$WORK/kill")); again"
	wait "$WAIT_A" 2>/dev/null
done
OWNER=$(cut -d' ' -f1 "$WORK/kill")
t_kill=$(date +%s%N)
check "the job is claimed (running, lease_owner set): $(cat "$WORK/kill")" grep -q ' killed$' "$WORK/kill"
case $OWNER in
"$PID_A") VICTIM=A SURVIVOR=B ;;
"$PID_B") VICTIM=B SURVIVOR=A ;;
*) VICTIM= ;;
esac
check "lease_owner names daemon A or B (host:pid:rand, pid $OWNER; A $PID_A, B $PID_B)" test -n "$VICTIM"
[ -n "$VICTIM" ] || { finish; exit 1; }
V=PID_$VICTIM
wait "${!V}" 2>/dev/null
# the dead owner cannot finish it: still running means it was killed mid-job
eq "still running after the kill" "$(db_sql "SELECT status FROM comparisons WHERE id = $C")" running
echo "killed $VICTIM (pid ${!V}) mid-job; $SURVIVOR takes over"

# --- the survivor claims it within lease + 5 s, then completes it ----------
S=PID_$SURVIVOR
# after the lease ran out the survivor claims it (its pid in lease_owner);
# POLL_MS_MAX: the longest check, i.e. how late this watcher can see a
# claim (two psql runs: slow on a loaded machine)
POLL_MS_MAX=0
taken_over() {
	local t0 rc=1 d
	t0=$(date +%s%N)
	if owner_pid && [ "$(cat "$WORK/owner")" = "${!S}" ]; then
		rc=0
	elif [ "$(db_sql "SELECT status FROM comparisons WHERE id = $C")" = done ]; then
		echo done >"$WORK/owner"
	fi
	d=$((($(date +%s%N) - t0) / 1000000))
	[ "$d" -gt "$POLL_MS_MAX" ] && POLL_MS_MAX=$d
	return $rc
}
WAIT_SECONDS=$((LEASE + 30)) wait_for taken_over
t_claim=$(date +%s%N)
[ "$(cat "$WORK/owner")" = done ] && echo "(done before its claim was seen)"
check "the survivor ($SURVIVOR, pid ${!S}) claimed the job (lease_owner pid: $(cat "$WORK/owner"))" \
	test "$(cat "$WORK/owner")" = "${!S}"
# The daemons' bound is lease + 5 s: the victim's last heartbeat leaves at
# most a lease to run, and an idle worker tries a claim at least every 5 s
# (server/workers.c IDLE_RECHECK_MS); the take-over itself is instant.  A
# run on a loaded machine once measured 8.2 s against 8 s: what it adds is
# measured here and added, nothing else is forgiven:
#  - the watcher sees a claim up to one check (POLL_MS_MAX) + 50 ms late;
#  - the survivor's worker and the database wake late under load: 100 ms
#    per unit of load average per core (load 6 on 2 cores: 300 ms).
# A take-over that waits for a second lease or a second idle period (a
# lost heartbeat expiry, a missed wake-up) is seconds late, and still fails.
read -r LOAD1 _ </proc/loadavg
LOAD_MS=$(awk -v l="$LOAD1" -v c="$(nproc)" 'BEGIN {printf "%d", 100 * l / c}')
CLAIM_BOUND=$(((LEASE + 5) * 1000 + POLL_MS_MAX + 50 + LOAD_MS))
ms_claim=$(((t_claim - t_kill) / 1000000))
echo "kill -> the survivor's claim: $ms_claim ms (lease $LEASE s; watcher slack $((POLL_MS_MAX + 50)) ms, load $LOAD1: $LOAD_MS ms)"
check "taken over within lease + 5 s of the kill ($ms_claim ms, bound $CLAIM_BOUND ms)" \
	test "$ms_claim" -le "$CLAIM_BOUND"
on "$SURVIVOR"
eq "long-poll on the survivor" "$(http GET "/comparisons/$C?wait=120")" 200
t_done=$(date +%s%N)
eq "completed by the survivor" "$(json status)" done
ms=$(((t_done - t_kill) / 1000000))
# once claimed, the survivor computes the job again: about the calibration
# job's time (it scales with load and with ASan, where the computation is
# 3 to 5 times slower); twice that + 1 s before it counts as stalled
DONE_BOUND=$((ms_claim + 2 * JOB_MS + 1000))
echo "kill -> done: $ms ms (claim $ms_claim ms + the job, $JOB_MS ms when calibrated)"
check "done within the claim + 2 x the calibrated job + 1 s ($ms ms, bound $DONE_BOUND ms)" \
	test "$ms" -le "$DONE_BOUND"
if [ "$VICTIM" = B ]; then
	# A survived: its long-poll, started before the kill, answers done
	wait "$WAIT_A"
	eq "A's long-poll (started before the kill) answers done" "$(json status "$WORK/wait_a.json")" done
fi

# --- rows identical to the CLI, each once -------------------------------------
"$PARITY_BIN" compare "$WORK/big_a.log" "$WORK/big_b.log" --format json >"$WORK/cli.json"
cli_rows "$WORK/cli.json" "$WORK/cli.rows"
all_rows "$C" "$WORK/svc.rows"
n_cli=$(wc -l <"$WORK/cli.rows")
check "rows identical to the CLI's ($n_cli rows)" cmp -s "$WORK/cli.rows" "$WORK/svc.rows"
eq "each row stored once" "$(db_sql "SELECT count(*), count(DISTINCT (rank, idx)) FROM comparison_rows WHERE comparison_id = $C")" "$n_cli|$n_cli"
check "there are rows to compare" test "$n_cli" -gt 1000

# --- exactly one comparison.completed --------------------------------------
n_completed() { # comparison.completed requests for C the receiver got
	python3 -c 'import json,sys
rs=[json.loads(l) for l in open(sys.argv[1])]
print(sum(1 for r in rs if r["headers"].get("x-parity-event")=="comparison.completed"
          and json.loads(r["body"]).get("comparison_id")==int(sys.argv[2])))' "$WORK/recv.jsonl" "$C"
}
completed() { [ -s "$WORK/recv.jsonl" ] && [ "$(n_completed)" -ge 1 ]; }
check "the receiver got comparison.completed" wait_for completed
# a duplicate would come from the other daemon's sender: give it a lease
# and a retry period to show up (the tests wait for conditions, but "no
# second request" can only be watched for a while)
sleep $((LEASE + 2))
eq "comparison.completed requests for comparison $C" "$(n_completed)" 1
eq "one delivery row, delivered" "$(db_sql "SELECT count(*), min(status) FROM webhook_deliveries WHERE comparison_id = $C")" "1|delivered"

DAEMON_PID=${!S}
stop_daemon
finish
