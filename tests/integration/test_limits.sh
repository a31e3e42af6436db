#!/usr/bin/env bash
# Hostile clients, part 6-8: a long-poll storm is answered from one read
# without a database connection per waiter; the connection pool is bounded
# (503 + Retry-After past --max-db-connections); names and meta have size
# limits; list pages stay under their byte budget while cursors still reach
# every item; out-of-range path numbers are 404s; CSV cells are quoted and
# formula-neutralised (steps.csv and `parity check --format csv`).
source "$(dirname "$0")/lib.sh"
need python3 curl

# the daemon's database connections: SQLite's file descriptors (parity.db,
# -wal, -shm: three per connection), or PostgreSQL's sessions on the
# database (pg_stat_activity, less the one asking)
db_conns() {
	if [ "$PARITY_BACKEND" = pg ]; then
		db_sql "SELECT count(*) - 1 FROM pg_stat_activity WHERE datname = current_database()"
		return
	fi
	local n=0 f
	for f in /proc/"$DAEMON_PID"/fd/*; do
		case $(readlink "$f" 2>/dev/null) in *parity.db*) n=$((n + 1)) ;; esac
	done
	echo "$n"
}
metric() { curl -s "$BASE/metrics" | awk -v m="$1" '$1 == m {print $2}'; }
# a training log: 12 steps with loss, grad_norm and the metric "-A1"
train_log() { # train_log FILE SHIFT
	local i
	for i in $(seq 1 12); do
		printf 'step: %d  loss: %d.%d  grad_norm: 2.5  -A1: -0.%d\n' "$i" $((10 - i % 7)) "$2" "$i"
	done >"$1"
}
upload() { # upload FILE [curl args...] -> prints the run id
	local f=$1
	shift
	curl -s -F "log=@$f" "$@" "$BASE/runs" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}

train_log "$WORK/a.log" 0
train_log "$WORK/b.log" 1
start_daemon --webhook-allow-private || exit 1
A=$(upload "$WORK/a.log")
B=$(upload "$WORK/b.log")

# --- CSV: quoted and formula-neutralised cells -------------------------------
evil='=HYPERLINK("http://x.example/","a,b")'
body=$(python3 -c 'import json,sys; print(json.dumps({"baseline":int(sys.argv[1]),"candidate":int(sys.argv[2]),"metrics":["-A1",sys.argv[3]]}))' "$A" "$B" "$evil")
eq "training comparison with odd metric names" "$(http POST /comparisons --json "$body")" 202
C=$(json id)
eq "it finishes" "$(http GET "/comparisons/$C?wait=60" >/dev/null; json status)" done
eq "steps.csv" "$(http GET "/comparisons/$C/steps.csv")" 200
cp "$WORK/body" "$WORK/steps.csv"
check_csv() { # check_csv FILE SUFFIX NAME: header and cells as a spreadsheet reads them
	python3 - "$1" "$2" "$3" <<'PY'
import csv, sys
path, sfx, evil = sys.argv[1], sys.argv[2], sys.argv[3]
rows = list(csv.reader(open(path, newline="")))
head = rows[0]
ok = True
def want(cond, what):
    global ok
    if not cond:
        print("csv: " + what, file=sys.stderr)
        ok = False
want(all(len(r) == len(head) for r in rows), "every row has the header's column count")
want("'-A1" + sfx in head, "a metric name starting with - is neutralised: %r" % head)
want("'" + evil + sfx in head, "=HYPERLINK(...) with , and \" is one neutralised cell")
want(not any(c[:1] in "=+-@" for c in head if c), "no header cell starts a formula")
col = head.index("'-A1" + sfx)
want(rows[1][col] == "-0.1", "a negative value stays a number: %r" % rows[1][col])
raw = open(path, newline="").read()
want('"\'' + evil.replace('"', '""') + sfx + '"' in raw, "RFC 4180 quoting with doubled quotes")
sys.exit(0 if ok else 1)
PY
}
check "steps.csv cells quoted and neutralised" check_csv "$WORK/steps.csv" _baseline "$evil"
# the CLI takes metric names up to the first '=': one with @ , and "
"$PARITY_BIN" check "$WORK/a.log" "$WORK/b.log" --threshold '-A1=1' --threshold '@SUM(1,2)"x=1' \
	--format csv >"$WORK/cli.csv"
check "parity check --format csv: the same cell writer" check_csv "$WORK/cli.csv" _a '@SUM(1,2)"x'

# --- out-of-range path numbers ----------------------------------------------
eq "rank 0 downloads" "$(http GET "/runs/$A/logs/0")" 200
eq "rank 2^32 is not rank 0" "$(http GET "/runs/$A/logs/4294967296")" 404
eq "rank past INT_MAX" "$(http GET "/runs/$A/logs/2147483648")" 404
eq "id past INT64_MAX" "$(http GET /runs/99999999999999999999)" 404
eq "id past INT64_MAX (comparison)" "$(http GET /comparisons/9223372036854775808)" 404

# --- names and meta -----------------------------------------------------------
n1000=$(head -c 1000 /dev/zero | tr '\0' n)
n1001=${n1000}n
eq "comparison name of 1000 bytes" "$(http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$B,\"name\":\"$n1000\"}")" 202
eq "comparison name of 1001 bytes" "$(http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$B,\"name\":\"$n1001\"}")" 400
eq "its error code" "$(json error.code)" bad_parameter
eq "multipart name of 1001 bytes" "$(http POST /comparisons -F baseline="$A" -F candidate="$B" -F name="$n1001")" 400
eq "name with NUL" "$(http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$B,\"name\":\"a\\u0000b\"}")" 400
eq "run name of 1001 bytes" "$(http POST /runs -F "log=@$WORK/a.log" -F name="$n1001")" 400
python3 -c 'import json; print(json.dumps({"pad": "m" * (65 * 1024)}))' >"$WORK/meta65k.json"
eq "meta of 65 KiB" "$(http POST /runs -F "log=@$WORK/a.log" -F "meta=<$WORK/meta65k.json")" 400
eq "its error code" "$(json error.code)" bad_meta
python3 -c 'import json; print(json.dumps({"pad": "m" * (60 * 1024)}))' >"$WORK/meta60k.json"
eq "meta of 60 KiB" "$(http POST /runs -F "log=@$WORK/a.log" -F "meta=<$WORK/meta60k.json")" 201

# --- list pages stay under the byte budget; cursors reach every item ---------
fat=()
for _ in $(seq 1 24); do
	fat+=("$(upload "$WORK/a.log" -F "meta=<$WORK/meta60k.json")")
done
for i in $(seq 0 2 22); do
	eq "comparison of fat runs" "$(http POST /comparisons --json "{\"baseline\":${fat[$i]},\"candidate\":${fat[$((i + 1))]}}")" 202
done
walk() { # walk PATH ITEMS: follows cursors with limit=1000; prints pages total max_bytes
	python3 - "$BASE" "$1" "$2" <<'PY'
import json, sys, urllib.request
base, path, items = sys.argv[1], sys.argv[2], sys.argv[3]
cursor, pages, ids, biggest = "", 0, [], 0
while True:
    url = base + path + "?limit=1000" + ("&cursor=" + cursor if cursor else "")
    raw = urllib.request.urlopen(url, timeout=30).read()
    biggest = max(biggest, len(raw))
    d = json.loads(raw)
    pages += 1
    ids += [x["id"] for x in d[items]]
    cursor = d["next_cursor"]
    if not cursor or pages > 100:
        break
dups = len(ids) - len(set(ids))
print(pages, len(ids), biggest, dups)
PY
}
read -r pages total biggest dups < <(walk /runs runs)
runs_now=$(db_sql "SELECT count(*) FROM runs")
check "runs list: several pages ($pages)" [ "$pages" -ge 2 ]
eq "runs list: cursors reach every run" "$total" "$runs_now"
eq "runs list: no run twice" "$dups" 0
check "runs list: pages under 1 MiB of items + URLs ($biggest bytes)" [ "$biggest" -le $((1024 * 1024 + 128 * 1024)) ]
read -r pages total biggest dups < <(walk /comparisons comparisons)
cmp_now=$(db_sql "SELECT count(*) FROM comparisons")
check "comparisons list: several pages ($pages)" [ "$pages" -ge 2 ]
eq "comparisons list: cursors reach every comparison" "$total" "$cmp_now"
eq "comparisons list: none twice" "$dups" 0
check "comparisons list: pages under the budget ($biggest bytes)" [ "$biggest" -le $((1024 * 1024 + 128 * 1024)) ]
HOOK=()
for i in 1 2 3; do
	eq "webhook $i" "$(http POST /webhooks --json "{\"url\":\"http://127.0.0.1:9/h$i\",\"secret\":\"s\"}")" 201
	HOOK[$i]=$(json id)
done
eq "webhooks list is paged" "$(http GET '/webhooks?limit=2'; json webhooks.1.id)" "200${HOOK[2]}"
cur=$(json next_cursor)
eq "webhooks next page" "$(http GET "/webhooks?limit=2&cursor=$cur"; json webhooks.0.id; json next_cursor)" "200${HOOK[3]}
null"

# --- long-poll storm: 300 waiters, one read, bounded connections -------------
eq "comparison for the storm" "$(http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$B}")" 202
S=$(json id)
eq "it is done" "$(http GET "/comparisons/$S?wait=60" >/dev/null; json status)" done
# make it look unfinished again, as if a worker were still computing it
db_sql "UPDATE comparisons SET status='running', verdict=NULL, result=NULL, finished_at=NULL WHERE id=$S"
db_cli
python3 - "$BASE" "$S" "$A" "$B" "${DB_CLI[@]}" >"$WORK/storm.out" 2>&1 <<'PY'
import asyncio, json, subprocess, sys, time, urllib.request
base, cid, a, b, db_cli = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5:]
host, port = base.split("//")[1].split(":")
N = 300

def metric(name):
    for line in urllib.request.urlopen(base + "/metrics", timeout=10).read().decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    return -1

async def poll(i):
    r, w = await asyncio.open_connection(host, int(port))
    w.write(("GET /comparisons/%d?wait=120 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n" % cid).encode())
    await w.drain()
    data = await r.read()
    w.close()
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split()[1]) if head else 0
    try:
        st = json.loads(body)["status"]
    except Exception:
        st = None
    return status, st

async def main():
    tasks = [asyncio.create_task(poll(i)) for i in range(N)]
    deadline = time.monotonic() + 60
    while metric("parity_long_polls_waiting") < N and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    print("waiting", int(metric("parity_long_polls_waiting")))
    print("open_while_waiting", int(metric("parity_db_connections_open")))
    # the comparison is queued again; a new comparison wakes a worker
    subprocess.run(db_cli + ["UPDATE comparisons SET status='queued', started_at=NULL WHERE id=%d" % cid],
                   check=True)
    req = urllib.request.Request(base + "/comparisons", data=json.dumps(
        {"baseline": int(a), "candidate": int(b)}).encode(), method="POST",
        headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req, timeout=30).read()
    done, _ = await asyncio.wait(tasks, timeout=90)
    res = [t.result() for t in done]
    print("answered", len(res))
    print("ok", sum(1 for s, st in res if s == 200 and st == "done"))

asyncio.run(main())
PY
sed 's/^/storm: /' "$WORK/storm.out"
eq "all 300 long-polls were suspended at once" "$(awk '$1=="waiting"{print $2}' "$WORK/storm.out")" 300
check "suspended waiters hold no connections" [ "$(awk '$1=="open_while_waiting"{print $2}' "$WORK/storm.out")" -le 8 ]
eq "every waiter got an answer" "$(awk '$1=="answered"{print $2}' "$WORK/storm.out")" 300
eq "every answer: 200, status done" "$(awk '$1=="ok"{print $2}' "$WORK/storm.out")" 300
fds=$(db_conns)
check "database connections (SQLite: fds) after the storm: $fds <= 64" [ "$fds" -le 64 ]
eq "no waiter left" "$(metric parity_long_polls_waiting)" 0
stop_daemon

# --- the pool bound: 503 + Retry-After, never more connections ---------------
start_daemon --max-db-connections 1 || exit 1
# hold SQLite's write lock (PostgreSQL: a lock on the comparisons table
# that every insert waits for): a write request then keeps the only
# connection busy while other requests find none free
if [ "$PARITY_BACKEND" = pg ]; then
	{
		echo "BEGIN;"
		echo "LOCK TABLE comparisons IN EXCLUSIVE MODE;"
		echo "\\! touch $WORK/locked"
		end=$((SECONDS + 60))
		while [ ! -e "$WORK/unlock" ] && [ $SECONDS -lt $end ]; do sleep 0.05; done
		echo "ROLLBACK;"
	} | psql -X -q "$(store_url "$DATA")" &
else
	python3 - "$DATA/parity.db" "$WORK/locked" "$WORK/unlock" <<'PY' &
import os, sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], timeout=10, isolation_level=None)
c.execute("BEGIN IMMEDIATE")
open(sys.argv[2], "w").close()
end = time.monotonic() + 60
while not os.path.exists(sys.argv[3]) and time.monotonic() < end:
    time.sleep(0.05)
c.execute("ROLLBACK")
PY
fi
LOCK_PID=$!
wait_for test -e "$WORK/locked"
writer() { # bounded: write requests that each wait out the busy timeout
	local i
	for i in $(seq 1 10); do
		[ -e "$WORK/unlock" ] && break
		curl -s -o /dev/null --max-time 20 --json "{\"baseline\":$A,\"candidate\":$B}" "$BASE/comparisons"
	done
}
writer &
WRITER_PID=$!
refused() {
	local st
	st=$(curl -s -D "$WORK/hdr" -o "$WORK/body" -w '%{http_code}' --max-time 10 "$BASE/runs")
	[ "$st" = 503 ] && grep -qi '^Retry-After: 1' "$WORK/hdr"
}
check "past --max-db-connections: 503 with Retry-After" wait_for refused
eq "its error code" "$(json error.code)" busy
fds=$(db_conns)
# (SQLite: one connection's 3 files; PostgreSQL: the pool's one, the
# lock holder's and the daemon's LISTEN connection)
check "one connection at most ($fds fds or sessions)" [ "$fds" -le 3 ]
touch "$WORK/unlock"
wait "$LOCK_PID" "$WRITER_PID"
ok_again() { [ "$(http GET /runs)" = 200 ]; }
check "served again once the connection is back" wait_for ok_again
stop_daemon
finish
