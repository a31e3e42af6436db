#!/usr/bin/env bash
# Hostile clients, round 3 (issue 23 F2): a key regex cannot outgrow its
# budget inside one long key.  One op key of 200 KB makes `(?=.*z)`
# quadratic (PCRE2's match limit counts per start position: 26 s of CPU
# before the fix); /runs/{id}/ops, /comparisons/{id}/rows and rows.csv
# now answer (400 regex_too_costly) in < 3 s; a later page of rows.csv
# (the long key past the first 1000 rows) runs on a reader thread, under
# the budget, and ends the transfer with an error; eight such downloads at
# once leave /healthz answering in < 1 s.
source "$(dirname "$0")/lib.sh"
need curl python3 awk
start_daemon || exit 1

# 1500 ops "model.layers.N.mlp/op_N_mm" (no z) with, at op 1200, one key
# of 200 KB of "a" (no z, no m)
python3 - "$WORK/a.log" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1500):
        key = "a" * 200000 + "/op_0_add" if i == 1200 else f"model.layers.{i}.mlp/op_{i}_mm"
        f.write(f"[{key}]\n  Shape: torch.Size([2]), Dtype: torch.float32\n"
                f"  L2 norm: {1.0 + i:e}\n  Min: 0.0\n  Max: 1.0\n  Mean: 0.5\n"
                f"  Output hash: {2.0 + i:e}\n  Location: m.py:{i + 1}\n\n")
PY
upload() { curl -s -F "log=@$1" "$BASE/runs" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
A=$(upload "$WORK/a.log")
B=$(upload "$WORK/a.log")
eq "create comparison" "$(http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$B}")" 202
C=$(json id)
http GET "/comparisons/$C?wait=120" >/dev/null
eq "comparison done" "$(json status)" done
http GET "/runs/$A" >/dev/null
eq "the run has the 1500 ops" "$(json logs.0.entries)" 1500

under() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'; }
# qget PATH PATTERN [curl args...]: body in $WORK/body, prints "code seconds curl-exit"
qget() {
	local path=$1 pat=$2 rc=0 out
	shift 2
	out=$(curl -s -G -o "$WORK/body" -w '%{http_code} %{time_total}' --max-time 60 \
		--data-urlencode "q=$pat" "$@" "$BASE$path") || rc=$?
	echo "$out $rc"
}

# --- one read over the long key: too costly within the budget -------------
for path in "/runs/$A/ops" "/comparisons/$C/rows" "/comparisons/$C/rows.csv"; do
	read -r code secs _ < <(qget "$path" '(?=.*z)')
	echo "timing: $path q=(?=.*z) -> $code in ${secs}s"
	eq "$path (?=.*z): 400 regex_too_costly" "$code $(json error.code)" "400 regex_too_costly"
	check "$path (?=.*z): < 3 s (${secs}s)" under "$secs" 3
done
# cheap patterns still see the long key, whole
read -r code _ _ < <(qget "/runs/$A/ops" 'a{1000}/op_0_add$' --data-urlencode limit=10)
eq "the long key matches a whole-key pattern" "$code $(json ops.0.key | wc -c)" "200 200010"

# --- rows.csv: the long key on a later page --------------------------------
# (?=.*m) matches the first 1000 rows at once; the second page reaches
# the long key (no m): it runs on a reader thread and fails at the budget
read -r code secs rc < <(qget "/comparisons/$C/rows.csv" '(?=.*m)')
echo "timing: rows.csv q=(?=.*m) -> $code in ${secs}s, curl exit $rc"
eq "rows.csv: 200, then a broken transfer (curl 18)" "$code $rc" "200 18"
check "rows.csv: the first page was sent ($(wc -l <"$WORK/body") lines)" [ "$(wc -l <"$WORK/body")" -ge 1000 ]
check "rows.csv: ended in < 3 s (${secs}s)" under "$secs" 3

# a client that leaves stops the later page: the daemon's CPU time (user +
# system ticks) stays flat once curl is gone, where the page would run on
# to its budget (before: ~25 s on a libmicrohttpd worker)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$DAEMON_PID/stat"; }
curl -s -G -o /dev/null --max-time 0.5 --data-urlencode 'q=(?=.*m)' "$BASE/comparisons/$C/rows.csv"
sleep 0.2
t0=$(cpu_ticks)
sleep 1
ticks=$(($(cpu_ticks) - t0))
echo "timing: daemon CPU in the second after the client left: $ticks ticks"
check "the later page stopped with its client ($ticks ticks of CPU in 1 s)" [ "$ticks" -lt 30 ]

# eight at once: two reader threads (http_threads 4 / 2) take the later
# pages (1.5 s each), the libmicrohttpd workers stay free and /healthz
# answers at once (before, each later page held a worker ~25 s: with the
# four workers busy nothing else was answered)
N=8
pids=()
for i in $(seq 1 $N); do
	qget "/comparisons/$C/rows.csv" '(?=.*m)' -o "$WORK/csv$i.body" >"$WORK/csv$i.out" &
	pids+=($!)
done
healthz_while "${pids[@]}"
wait "${pids[@]}"
echo "timing: /healthz during $N rows.csv: $PROBES probes, slowest ${SLOWEST}s"
check "healthz probed while the downloads ran ($PROBES probes)" [ "$PROBES" -ge 1 ]
eq "healthz answered 200 in < 1 s every time" "$SLOW_PROBES" 0
for i in $(seq 1 $N); do
	read -r code secs rc <"$WORK/csv$i.out"
	echo "timing: concurrent rows.csv $i -> $code in ${secs}s, curl exit $rc"
	# 200 + broken transfer, or 503 busy when the first page found no
	# reader; at most N / 2 budgets of queueing
	check "rows.csv $i: 200 then curl 18, or 503 (got $code $rc)" \
		[ "$code $rc" = "200 18" -o "$code" = 503 ]
	check "rows.csv $i: < 10 s (${secs}s)" under "$secs" 10
done
check "daemon alive" kill -0 "$DAEMON_PID"
stop_daemon
finish
