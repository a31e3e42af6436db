#!/usr/bin/env bash
# tests/bench/storage.sh [BUILD_DIR] - what one activation comparison costs
# in database bytes, and whether writers wait for running comparisons.
#   1. Ingest two `gen_actlog.py --layers 2000 --scenario ulp` logs (~30 MB
#      each) as two runs, stop the daemon, checkpoint the WAL and note the
#      size of parity.db; run one comparison, stop, checkpoint, and print the
#      growth as a % of the two input logs' bytes (target <= 15%).
#   2. While 3 such comparisons run, 10 small uploads must each answer 201
#      in < 1 s, and the daemon log must not mention "database is locked".
# Needs sqlite3 (the CLI) for the checkpoint.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=${1:-$HERE/../../build}
BUILD=$(cd "$BUILD" && pwd)
TOOLS=$HERE/../tools
W=$(mktemp -d)
PID=
trap '[ -n "$PID" ] && kill $PID 2>/dev/null; rm -rf "$W"' EXIT

start() {
	rm -f "$W/port"
	"$BUILD/parity" serve --listen 127.0.0.1:0 --data "$W/data" --port-file "$W/port" \
		>/dev/null 2>>"$W/err" &
	PID=$!
	for _ in $(seq 1 200); do [ -s "$W/port" ] && break; sleep 0.05; done
	BASE="http://127.0.0.1:$(cat "$W/port")"
}
stop() {
	kill -TERM "$PID"
	wait "$PID" || true
	PID=
	sqlite3 "$W/data/parity.db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
}
db_bytes() { stat -c %s "$W/data/parity.db"; }
upload() { # upload FILE -> run id
	curl -sf -F "log=@$1" "$BASE/runs" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}
compare() { # compare A B -> comparison id
	curl -sf -H 'Content-Type: application/json' \
		--data "{\"baseline\":$1,\"candidate\":$2}" "$BASE/comparisons" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}
wait_done() {
	curl -sf "$BASE/comparisons/$1?wait=300" |
		python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["status"], d["verdict"])'
}

python3 "$TOOLS/gen_actlog.py" --layers 2000 --scenario ulp --out-a "$W/a.log" --out-b "$W/b.log" >/dev/null
IN=$(($(stat -c %s "$W/a.log") + $(stat -c %s "$W/b.log")))

echo "== storage of one comparison"
start
A=$(upload "$W/a.log")
B=$(upload "$W/b.log")
stop
before=$(db_bytes)
start
C=$(compare "$A" "$B")
echo "  comparison $C: $(wait_done "$C")"
stop
after=$(db_bytes)
echo "  input logs: $IN bytes; parity.db $before -> $after bytes"
python3 -c "g=$after-$before; print(f'  growth: {g} bytes = {100*g/$IN:.1f}% of the input logs (target <= 15%)')"

echo "== uploads while 3 comparisons run"
python3 "$TOOLS/gen_actlog.py" --layers 1 --out-a "$W/s.log" --out-b "$W/s_b.log" >/dev/null
start
: >"$W/err.run"
ids=()
for _ in 1 2 3; do ids+=("$(compare "$A" "$B")"); done
sleep 0.5
slow=0
for i in $(seq 1 10); do
	t=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -F "log=@$W/s.log" -F "name=small$i" "$BASE/runs")
	echo "  upload $i: status ${t% *}, ${t#* } s"
	if [ "${t% *}" != 201 ] || python3 -c "import sys; sys.exit(0 if ${t#* } >= 1 else 1)"; then
		slow=$((slow + 1))
	fi
done
for c in "${ids[@]}"; do echo "  comparison $c: $(wait_done "$c")"; done
stop
grep -E "locked|comparison [0-9]+ (done|failed|requeued)" "$W/err" | sed "s/^/  log: /"
locked=$(grep -c "database is locked" "$W/err" || true)
echo "  uploads not 201 within 1 s: $slow (target 0); \"database is locked\" in the log: $locked (target 0)"
