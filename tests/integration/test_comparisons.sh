#!/usr/bin/env bash
# Issues 3 and 4 through the service: activation comparisons (CLI and
# service give identical rows, with an override file), filters and paging,
# policies, multi-rank, request validation, long-poll, kill -9 of the
# daemon mid-job, delete rules; training comparisons for every generator
# scenario (service result == CLI result), steps JSON and CSV.
source "$(dirname "$0")/lib.sh"

upload() { # upload FILE... -> prints run id
	local args=()
	for f in "$@"; do args+=(-F "log=@$f"); done
	curl -s "${args[@]}" "$BASE/runs" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}
compare() { # compare JSON -> prints comparison id (expects 202)
	local st
	st=$(http POST /comparisons --json "$1")
	if [ "$st" != 202 ]; then
		bad "create comparison $1: status $st $(cat "$WORK/body")"
		echo 0
		return
	fi
	json id
}
wait_done() { http GET "/comparisons/$1?wait=120" >/dev/null; json status; }
# PostgreSQL: a job whose daemon died is taken over when its lease runs
# out (no requeue at start-up: other daemons may be running it), so the
# kill -9 below needs a short lease
LEASE=()
[ "$PARITY_BACKEND" = pg ] && LEASE=(--job-lease 3)
start_daemon "${LEASE[@]}" || exit 1

# --- CLI and service identical, with an override file ------------------------
A=$(upload "$F/match/p4_a.log")
B=$(upload "$F/match/p4_b.log")
st=$(http POST /comparisons -F baseline="$A" -F candidate="$B" -F "overrides=@$F/match/p4_overrides.csv")
eq "multipart create with overrides" "$st" 202
C=$(json id)
eq "p4 done" "$(wait_done "$C")" done
eq "p4 verdict" "$(json verdict)" fail
"$PARITY_BIN" compare "$F/match/p4_a.log" "$F/match/p4_b.log" --overrides "$F/match/p4_overrides.csv" --format json >"$WORK/p4.json"
eq "cli exit code on fail" "$?" 1
cli_rows "$WORK/p4.json" "$WORK/p4.cli"
all_rows "$C" "$WORK/p4.svc"
check "p4: service rows == CLI rows" cmp -s "$WORK/p4.cli" "$WORK/p4.svc"
eq "override used" "$(json result.overrides.used "$WORK/body")" null # body is the rows page
http GET "/comparisons/$C" >/dev/null
eq "override row method" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["rows"][2]["method"])' "$WORK/p4.json")" override

# a bigger generated pair (eager-traced), same check, plus filters
python3 "$G/gen_actlog.py" --layers 6 --scenario eager-traced --out-a "$WORK/ea.log" --out-b "$WORK/eb.log" >/dev/null
A=$(upload "$WORK/ea.log")
B=$(upload "$WORK/eb.log")
C=$(compare "{\"baseline\":$A,\"candidate\":$B,\"name\":\"eager vs traced\"}")
eq "eager-traced done" "$(wait_done "$C")" done
eq "name kept" "$(json name)" "eager vs traced"
"$PARITY_BIN" compare "$WORK/ea.log" "$WORK/eb.log" --format json >"$WORK/et.json"
cli_rows "$WORK/et.json" "$WORK/et.cli"
all_rows "$C" "$WORK/et.svc"
check "eager-traced: service rows == CLI rows" cmp -s "$WORK/et.cli" "$WORK/et.svc"
n_diff=$(python3 -c 'import json,sys; print(sum(1 for r in json.load(open(sys.argv[1]))["rows"] if r["status"]=="diff"))' "$WORK/et.json")
all_rows "$C" "$WORK/diff.svc" "&status=diff"
eq "status filter" "$(wc -l <"$WORK/diff.svc")" "$n_diff"
n_origin=$(python3 -c 'import json,sys; print(sum(1 for r in json.load(open(sys.argv[1]))["rows"] if r["origin"]))' "$WORK/et.json")
all_rows "$C" "$WORK/origin.svc" "&origin=true"
eq "origin filter" "$(wc -l <"$WORK/origin.svc")" "$n_origin"
n_only=$(python3 -c 'import json,sys; print(sum(1 for r in json.load(open(sys.argv[1]))["rows"] if r["status"] in ("a_only","b_only")))' "$WORK/et.json")
all_rows "$C" "$WORK/only.svc" "&status=a_only,b_only"
eq "status list filter" "$(wc -l <"$WORK/only.svc")" "$n_only"
n_fuzzy_bwd=$(python3 -c 'import json,sys; print(sum(1 for r in json.load(open(sys.argv[1]))["rows"] if r["method"]=="fuzzy" and r["phase"]=="backward"))' "$WORK/et.json")
all_rows "$C" "$WORK/fb.svc" "&method=fuzzy&phase=backward"
eq "method+phase filter" "$(wc -l <"$WORK/fb.svc")" "$n_fuzzy_bwd"
all_rows "$C" "$WORK/q.svc" "&q=feed_forward%5C.w2"
check "regex filter keeps only matching keys" python3 -c 'import json,sys,re
rows=[json.loads(l) for l in open(sys.argv[1])]
assert rows and all(re.search(r"feed_forward\.w2", (r["a_key"] or "")+" "+(r["b_key"] or "")) for r in rows)' "$WORK/q.svc"
eq "bad regex" "$(http GET "/comparisons/$C/rows?q=%5B")" 400
eq "bad status" "$(http GET "/comparisons/$C/rows?status=nope")" 400
eq "bad origin" "$(http GET "/comparisons/$C/rows?origin=maybe")" 400
eq "rows of missing comparison" "$(http GET /comparisons/9999/rows)" 404
http GET "/comparisons/$C/rows?limit=7" >/dev/null
eq "page size" "$(json rows | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" 7

# --- policies -------------------------------------------------------------------
python3 "$G/gen_actlog.py" --layers 3 --scenario ulp --out-a "$WORK/ua.log" --out-b "$WORK/ub.log" >/dev/null
A=$(upload "$WORK/ua.log")
B=$(upload "$WORK/ub.log")
C=$(compare "{\"baseline\":$A,\"candidate\":$B}")
wait_done "$C" >/dev/null
eq "ulp under bitwise fails" "$(json verdict)" fail
C=$(compare "{\"baseline\":$A,\"candidate\":$B,\"policy\":{\"max_hash_distance\":1e-5}}")
wait_done "$C" >/dev/null
eq "ulp under tolerance passes" "$(json verdict)" pass
eq "policy stored" "$(json policy.max_hash_distance)" 1e-05

# --- multi-rank ------------------------------------------------------------------
python3 "$G/gen_actlog.py" --layers 2 --ranks 3 --scenario identical --out-a "$WORK/m3a" --out-b "$WORK/m3b" >/dev/null
A=$(upload "$WORK"/m3a/rank_*_activations.log)
B=$(upload "$WORK"/m3b/rank_0_activations.log "$WORK"/m3b/rank_1_activations.log)
C=$(compare "{\"baseline\":$A,\"candidate\":$B}")
wait_done "$C" >/dev/null
eq "missing rank -> error" "$(json verdict)" error
check "rank_missing reason" grep -q '"rank_missing"' "$WORK/body"
B2=$(upload "$WORK"/m3b/rank_*_activations.log)
C=$(compare "{\"baseline\":$A,\"candidate\":$B2}")
wait_done "$C" >/dev/null
eq "3 identical ranks pass" "$(json verdict)" pass
eq "3 rank documents" "$(json result.ranks | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" 3
http GET "/comparisons/$C/rows?rank=2&limit=1" >/dev/null
eq "rank filter" "$(json rows.0.rank)" 2
# four ranks where only rank 3 diverges: the report of rank N shows rank N's
# counts, first divergence and rows (not rank 0's next to rank N's rows)
python3 "$G/gen_actlog.py" --layers 2 --ranks 4 --scenario identical --out-a "$WORK/r4a" --out-b "$WORK/r4b" >/dev/null
python3 "$G/gen_actlog.py" --layers 2 --ranks 4 --scenario diverge --out-a "$WORK/r4da" --out-b "$WORK/r4db" >/dev/null
cp "$WORK/r4db/rank_3_activations.log" "$WORK/r4b/rank_3_activations.log"
A=$(upload "$WORK"/r4a/rank_*_activations.log)
B=$(upload "$WORK"/r4b/rank_*_activations.log)
C=$(compare "{\"baseline\":$A,\"candidate\":$B}")
wait_done "$C" >/dev/null
eq "4 ranks, rank 3 diverges: fail" "$(json verdict)" fail
n3=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["result"]["ranks"]; print([r for r in d if r["rank"]==3][0]["summary"]["diff"])' "$WORK/body")
check "rank 3 has diff rows" test "$n3" -gt 0
report_facts() { # report_facts RANK -> "<rank N diff count> <first fwd divergence> <diff rows in the table>"
	http GET "/comparisons/$C/report.html?rank=$1" >/dev/null
	python3 -c 'import json,re,sys
h=open(sys.argv[1]).read(); n=sys.argv[2]
m=re.search(r"<h3>Rank "+n+r"</h3>.*?<td class=\"c-diff\">(\d+)</td>", h, re.S)
j=re.search(r"id=\"jump-fwd\"[^>]*>[^<]*row (\d+)", h)
none="First forward divergence: none" in h
rows=[r for b in re.findall(r"<script type=\"application/json\" class=\"vrows\"[^>]*>(.*?)</script>", h, re.S) for r in json.loads(b)]
print(m.group(1) if m else "?", j.group(1) if j else ("none" if none else "?"), sum(r[1] == "diff" for r in rows))' "$WORK/body" "$1"
}
f0=$(report_facts 0)
f3=$(report_facts 3)
eq "report rank 0: its counts, no divergence, no diff rows" "$f0" "0 none 0"
http GET "/comparisons/$C?wait=1" >/dev/null
first3=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["result"]["ranks"]; print([r for r in d if r["rank"]==3][0]["first_divergence"]["forward"]["row"])' "$WORK/body")
eq "report rank 3: its counts, its first divergence, its diff rows" "$f3" "$n3 $first3 $n3"
# without ?rank the report holds every rank: a section each with its own
# counts, first divergence and every row (data blocks prefixed k<rank>-)
http GET "/comparisons/$C?wait=1" >/dev/null
cp "$WORK/body" "$WORK/cmp4.json"
eq "every-rank report 200" "$(http GET "/comparisons/$C/report.html")" 200
every=$(python3 -c 'import json,re,sys
h=open(sys.argv[1]).read(); d=json.load(open(sys.argv[2]))["result"]["ranks"]
out=[]
for r in d:
    k=r["rank"]; p="k%d-" % k
    sec=re.search(r"<section class=\"rank-report\" id=\""+p+r"rank\".*?(?=<section class=\"rank-report\"|$)", h, re.S)
    s=sec.group(0) if sec else ""
    m=re.search(r"<h3>Rank %d</h3>.*?<td class=\"c-diff\">(\d+)</td>" % k, s, re.S)
    j=re.search(r"id=\""+p+r"jump-fwd\" href=\"#"+p+r"r(\d+)\"", s)
    fd=(r["first_divergence"].get("forward") or {}).get("row")
    data=[r for b in re.findall(r"<script type=\"application/json\" class=\"vrows\" data-prefix=\""+p+r"\">(.*?)</script>", s, re.S) for r in json.loads(b)]
    rows=len(data)
    diffs=sum(r[1] == "diff" for r in data)
    ok=(m and int(m.group(1))==r["summary"]["diff"] and rows==r["summary"]["rows"]
        and diffs==r["summary"]["diff"] and (j.group(1) if j else None)==(str(fd) if fd is not None else None))
    out.append("%d:%s" % (k, "ok" if ok else "bad(%s %s %s %s)" % (m and m.group(1), j and j.group(1), rows, diffs)))
print(" ".join(out))' "$WORK/body" "$WORK/cmp4.json")
eq "every-rank report: each rank's counts, first divergence, rows" "$every" "0:ok 1:ok 2:ok 3:ok"
check "every-rank report: row ids unique" python3 -c 'import re,sys
ids=re.findall(r" id=\"([^\"]+)\"", open(sys.argv[1]).read()); sys.exit(len(ids)!=len(set(ids)))' "$WORK/body"

# --- request validation -------------------------------------------------------------
T=$(upload "$F/train/q1_a.log")
eq "unknown run" "$(http POST /comparisons --json '{"baseline":9999,"candidate":1}')" 400
eq "unknown run code" "$(json error.code)" unknown_run
eq "kinds differ" "$(http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$T}")" 400
eq "kinds differ code" "$(json error.code)" kind_mismatch
eq "bad policy" "$(http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$B2,\"policy\":\"lenient\"}")" 400
eq "bad json" "$(http POST /comparisons --json '{"baseline":1,')" 400
eq "bad json code" "$(json error.code)" bad_json
eq "unknown field" "$(http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$B2,\"colour\":1}")" 400
eq "training field on activation" "$(http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$B2,\"min_steps\":3}")" 400
head -c $((5 * 1024 * 1024)) /dev/zero | tr '\0' 'x' >"$WORK/bigov.csv"
eq "override file too large" "$(http POST /comparisons -F baseline="$A" -F candidate="$B2" -F "overrides=@$WORK/bigov.csv")" 413
eq "missing comparison" "$(http GET /comparisons/9999)" 404
eq "bad wait" "$(http GET "/comparisons/1?wait=-1")" 400

# --- delete rules -------------------------------------------------------------------
eq "run in use cannot be deleted" "$(http DELETE "/runs/$A")" 409
eq "delete comparison" "$(http DELETE "/comparisons/$C")" 200
eq "deleted comparison gone" "$(http GET "/comparisons/$C")" 404
eq "list comparisons" "$(http GET '/comparisons?limit=2')" 200
check "list has next_cursor" test "$(json next_cursor)" != null

# --- training comparisons: every generator scenario, service == CLI ----------------------
for s in identical noise regress nan crash duplicate malformed gap; do
	python3 "$G/gen_trainlog.py" --steps 120 --scenario "$s" --at 40 --out-a "$WORK/t_a_$s.log" --out-b "$WORK/t_b_$s.log" >/dev/null
	TA=$(upload "$WORK/t_a_$s.log")
	TB=$(upload "$WORK/t_b_$s.log")
	C=$(compare "{\"baseline\":$TA,\"candidate\":$TB}")
	wait_done "$C" >/dev/null
	cp "$WORK/body" "$WORK/svc_$s.json"
	"$PARITY_BIN" compare "$WORK/t_a_$s.log" "$WORK/t_b_$s.log" --format json >"$WORK/cli_$s.json"
	summary='import json,sys
d=json.load(open(sys.argv[1])); d=d.get("result",d)
print(d["verdict"], ",".join(r["code"] for r in d["reasons"]), d["metrics"]["loss"]["first_over"], d["metrics"]["grad_norm"]["first_over"], d["metrics"]["loss"]["max_abs_exact"] if "max_abs_exact" in d["metrics"]["loss"] else "")'
	eq "training $s: service == CLI" "$(python3 -c "$summary" "$WORK/svc_$s.json")" "$(python3 -c "$summary" "$WORK/cli_$s.json")"
done
want() { python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))["result"]
print(d["verdict"], ",".join(sorted(set(r["code"] for r in d["reasons"]))), d["metrics"]["loss"]["first_over"])' "$WORK/svc_$1.json"; }
eq "identical" "$(want identical)" "pass  None"
eq "regress" "$(want regress)" "fail threshold_exceeded 40"
eq "nan" "$(want nan)" "fail nan_inf_mismatch,threshold_exceeded 40"
eq "crash" "$(want crash)" "error step_sets_differ,warnings None"
eq "duplicate" "$(want duplicate)" "error warnings None"
eq "malformed" "$(want malformed)" "error step_sets_differ,warnings None"
eq "gap" "$(want gap)" "error step_sets_differ None"
# steps table of the regress comparison
TA=$(upload "$WORK/t_a_regress.log")
TB=$(upload "$WORK/t_b_regress.log")
C=$(compare "{\"baseline\":$TA,\"candidate\":$TB,\"thresholds\":{\"loss\":1e-2},\"allow_warnings\":true}")
wait_done "$C" >/dev/null
eq "custom threshold passes loss" "$(json result.metrics.loss.pass)" true
eq "steps page" "$(http GET "/comparisons/$C/steps?limit=50")" 200
eq "steps page size" "$(json steps | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" 50
eq "step 40 over for grad_norm" "$(python3 -c 'import json,sys; print([s for s in json.load(open(sys.argv[1]))["steps"] if s["step"]==40][0]["grad_norm"]["over"])' "$WORK/body")" True
eq "csv" "$(http GET "/comparisons/$C/steps.csv")" 200
eq "csv rows" "$(wc -l <"$WORK/body")" 121
check "csv header" grep -q '^step,loss_baseline,loss_candidate,loss_abs,loss_rel,loss_over' "$WORK/body"
eq "steps of an activation comparison" "$(http GET "/comparisons/1/steps")" 400

# --- long-poll and kill -9 mid-job -----------------------------------------------------
python3 "$G/gen_actlog.py" --layers 600 --scenario eager-traced --out-a "$WORK/ba.log" --out-b "$WORK/bb.log" >/dev/null
A=$(upload "$WORK/ba.log")
B=$(upload "$WORK/bb.log")
# one python process creates the comparison, catches it running and kills
# the daemon (a curl + python per poll is slower than the job)
python3 - "$BASE" "$A" "$B" "$DAEMON_PID" >"$WORK/killed" <<'PY'
import json, os, signal, sys, time, urllib.request
base, a, b, pid = sys.argv[1:5]
req = urllib.request.Request(base + "/comparisons", method="POST",
                             data=json.dumps({"baseline": int(a), "candidate": int(b)}).encode(),
                             headers={"Content-Type": "application/json"})
cid = json.load(urllib.request.urlopen(req))["id"]
end = time.time() + 20
while True:
    st = json.load(urllib.request.urlopen("%s/comparisons/%d" % (base, cid)))["status"]
    if st != "queued" or time.time() > end:
        break
    time.sleep(0.002)
if st == "running":
    os.kill(int(pid), signal.SIGKILL)
print(cid, st)
PY
C=$(cut -d' ' -f1 "$WORK/killed")
eq "job is running before the kill" "$(cut -d' ' -f2 "$WORK/killed")" running
kill -9 "$DAEMON_PID" 2>/dev/null # (already dead unless the poll missed the job)
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PID=
# (SQLite's file check; PostgreSQL's own recovery is not ours to test)
[ "$PARITY_BACKEND" = sqlite ] && eq "integrity after kill -9" "$(sqlite3 "$DATA/parity.db" 'pragma integrity_check')" ok
start_daemon "${LEASE[@]}" || exit 1
t0=$(date +%s%N)
eq "resumed job completes" "$(wait_done "$C")" done
t1=$(date +%s%N)
check "long-poll returned when done (under 100 s)" test $(((t1 - t0) / 1000000000)) -lt 100
"$PARITY_BIN" compare "$WORK/ba.log" "$WORK/bb.log" --format json >"$WORK/big.json"
cli_rows "$WORK/big.json" "$WORK/big.cli"
all_rows "$C" "$WORK/big.svc"
check "after kill -9: same rows as the CLI" cmp -s "$WORK/big.cli" "$WORK/big.svc"
# --- someone else holds the write lock while a job finishes -------------------------
# SQLite only: its single writer lock (BEGIN IMMEDIATE from another
# process) makes the finish give up (busy) and requeue.  PostgreSQL has
# no database-wide write lock; its owner-checked finish is tested by
# unit.test_pg_jobs and test_pg_failover.sh.
if [ "$PARITY_BACKEND" = sqlite ]; then
# The job computes with plain reads, then cannot take the write lock (busy
# for longer than its tries): it goes back to 'queued' (never 'failed'),
# and once the lock is gone it is computed again to the same rows.  One
# python process creates the comparison, catches it running and takes the
# lock, so nothing slow sits between the job's start and the lock.
python3 - "$BASE" "$A" "$B" "$DATA/parity.db" >"$WORK/busy" <<'PY'
import json, sqlite3, sys, time, urllib.request
base, a, b, db = sys.argv[1:5]
req = urllib.request.Request(base + "/comparisons", method="POST",
                             data=json.dumps({"baseline": int(a), "candidate": int(b)}).encode(),
                             headers={"Content-Type": "application/json"})
cid = json.load(urllib.request.urlopen(req))["id"]
url = "%s/comparisons/%d" % (base, cid)
end = time.time() + 20
while True:
    st = json.load(urllib.request.urlopen(url))["status"]
    if st != "queued" or time.time() > end:
        break
    time.sleep(0.002)
if st != "running":
    print(cid, "missed:" + st)
    sys.exit(0)
con = sqlite3.connect(db, isolation_level=None, timeout=10)
con.execute("BEGIN IMMEDIATE")  # taken while the job is still computing
seen = set()
end = time.time() + 12
while time.time() < end:
    seen.add(json.load(urllib.request.urlopen(url))["status"])  # reads still work
    time.sleep(0.2)
con.rollback()
print(cid, ",".join(sorted(seen)))
PY
C=$(cut -d' ' -f1 "$WORK/busy")
check "lock taken while the job ran, never failed: $(cat "$WORK/busy")" grep -Eq '^[0-9]+ (queued|running)(,(queued|running))*$' "$WORK/busy"
eq "busy job completes once the lock is gone" "$(wait_done "$C")" done
check "busy job was requeued, not failed" grep -q "comparison $C requeued" "$WORK/daemon.err"
all_rows "$C" "$WORK/busy.svc"
check "requeued job: same rows as the CLI" cmp -s "$WORK/big.cli" "$WORK/busy.svc"
fi
# long-poll that times out on a queued job: stop workers by queueing behind... use wait=1 on a done one
t0=$(date +%s%N)
http GET "/comparisons/$C?wait=5" >/dev/null
t1=$(date +%s%N)
check "wait on a finished comparison answers at once" test $(((t1 - t0) / 1000000)) -lt 1000
stop_daemon
finish
