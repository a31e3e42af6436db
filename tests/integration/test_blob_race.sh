#!/usr/bin/env bash
# Issue 11, raw-file lifetime: runs with the same bytes share one raw file
# (<data>/raw/<aa>/<sha256>).  Deleting the last run that references it
# must never remove the file under a concurrent upload of the same bytes
# that was answered 201 by re-using it.
#
# Each round has its own bytes: a victim run is uploaded; the victim is
# deleted and, as soon as it is gone from the API, a keeper with the same
# bytes is uploaded.  Parallel workers run the rounds, first against
# DELETE /runs/{id}, then against `parity gc` (another process).  strace
# delays every unlink of the deleting process by 50 ms, which widens the
# window a deleter without the blob rule leaves between its commit and its
# unlink so that most rounds hit it.  Every keeper must keep its raw log
# byte for byte, at once and at the end.
source "$(dirname "$0")/lib.sh"
need curl sha256sum strace
ROUNDS=${RACE_ROUNDS:-120}
WORKERS=4
DELAY_US=50000
mkdir -p "$WORK/logs"
for r in $(seq 1 "$ROUNDS"); do
	{
		cat "$F/train/q1_a.log"
		echo "[rank0]:[titan] 2026-11-29 10:09:00,000 - root - INFO - round $r"
	} >"$WORK/logs/$r.log"
done

# upload FILE NAME: prints the new run id (nothing unless 201)
upload() {
	local out
	out=$(curl -s -o /dev/null -w '%{http_code} %header{location}' --data-binary "@$1" "$BASE/runs?name=$2")
	case $out in "201 "*) echo "${out##*/}" ;; *) echo "upload $2: $out" >>"$WORK/refused" ;; esac
}

# intact ID FILE: the run's raw log is FILE byte for byte
intact() {
	[ "$(curl -s -f "$BASE/runs/$1/logs/0" | sha256sum | cut -d' ' -f1)" = "$(sha256sum <"$2" | cut -d' ' -f1)" ]
}

# gone ID: poll (no pause: the window is 50 ms) until the run is deleted
gone() {
	local end=$((SECONDS + 30))
	until [ "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/runs/$1")" = 404 ]; do
		[ $SECONDS -lt $end ] || return 1
	done
	return 0
}

STRACE_ARGS=(-f -e trace=unlink,unlinkat -e "inject=unlink,unlinkat:delay_enter=$DELAY_US")

# worker PHASE N: rounds N, N+WORKERS, ...: delete the victim (HTTP phase),
# wait until it is gone, upload the keeper, check it
worker() {
	local phase=$1 n=$2 r v k
	for ((r = n; r <= ROUNDS; r += WORKERS)); do
		v=$(cat "$WORK/victim.$phase.$r" 2>/dev/null)
		[ -n "$v" ] || continue
		if [ "$phase" = http ]; then
			curl -s -o /dev/null -X DELETE "$BASE/runs/$v" &
		fi
		gone "$v" || echo "$r" >>"$WORK/not_deleted.$phase"
		k=$(upload "$WORK/logs/$r.log" "keeper-$r")
		[ -n "$k" ] || continue
		echo "$k $r" >>"$WORK/keepers.$phase"
		intact "$k" "$WORK/logs/$r.log" || echo "$k" >>"$WORK/lost.$phase"
		wait
	done
}

# victims PHASE: one victim per round
victims() {
	local r
	for r in $(seq 1 "$ROUNDS"); do
		upload "$WORK/logs/$r.log" "victim-$r" >"$WORK/victim.$1.$r"
	done
}

# verify PHASE: every keeper answered 201 and kept its bytes
verify() {
	local phase=$1 k r final=0
	eq "$phase: every upload answered 201" "$(cat "$WORK/refused" 2>/dev/null)" ""
	rm -f "$WORK/refused"
	eq "$phase: every victim was deleted" "$(cat "$WORK/not_deleted.$phase" 2>/dev/null)" ""
	eq "$phase: keepers uploaded" "$(wc -l <"$WORK/keepers.$phase")" "$ROUNDS"
	eq "$phase: no keeper lost its raw log right after its 201" "$(cat "$WORK/lost.$phase" 2>/dev/null | wc -l)" 0
	while read -r k r; do
		intact "$k" "$WORK/logs/$r.log" || final=$((final + 1))
	done <"$WORK/keepers.$phase"
	eq "$phase: no keeper lost its raw log (checked at the end)" "$final" 0
}

run_workers() {
	local pids=() n
	for n in $(seq 1 $WORKERS); do
		worker "$1" "$n" &
		pids+=($!)
	done
	for n in "${pids[@]}"; do wait "$n"; done
}

start_daemon || exit 1

# --- DELETE /runs/{id} ----------------------------------------------------------
victims http
strace "${STRACE_ARGS[@]}" -p "$DAEMON_PID" -o /dev/null 2>"$WORK/strace.err" &
STRACE_PID=$!
attached() { grep -q attached "$WORK/strace.err"; }
wait_for attached 2>/dev/null || skip_or_fail "strace cannot attach to the daemon (needs ptrace)"
run_workers http
kill -INT "$STRACE_PID"
wait "$STRACE_PID" 2>/dev/null
verify http
# the gc phase starts from no runs: gc would take these keepers too
deleted=0
while read -r k _; do
	[ "$(http DELETE "/runs/$k")" = 200 ] && deleted=$((deleted + 1))
done <"$WORK/keepers.http"
eq "http keepers deleted before the gc phase" "$deleted" "$ROUNDS"

# --- parity gc, another process ---------------------------------------------------
victims gc
# gc --older-than 0 takes runs created before the current second
t=$(date +%s)
next_second() { [ "$(date +%s)" -gt "$t" ]; }
wait_for next_second
# LeakSanitizer cannot run under ptrace: the sanitizer build checks gc's
# leaks in test_retention.sh and test_quarantine.sh instead
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
	strace "${STRACE_ARGS[@]}" -o /dev/null "$PARITY_BIN" gc --older-than 0 --data "$DATA" >"$WORK/gc.out" 2>"$WORK/gc.err" &
GC_PID=$!
run_workers gc
gc_rc=0
wait "$GC_PID" || gc_rc=$?
eq "gc exit status" "$gc_rc" 0
check "gc deleted the victims" grep -q "and $ROUNDS run(s)" "$WORK/gc.out"
verify gc

eq "daemon healthy" "$(http GET /healthz)" 200
stop_daemon
finish
