#!/usr/bin/env bash
# Heavy renders off the HTTP threads (issue 23 F5): 12 concurrent
# report.pdf of a large training comparison once ran on the 4
# libmicrohttpd workers and stalled /healthz for up to 61 s.  Now they go
# to the bounded render pool (server/http/offload.c): while the 12 render,
# /healthz and a small JSON document answer in under 1 s (one probe up
# to 1.5 s is forgiven: the machine may be loaded; the old code stalled
# them for seconds), every PDF answered gets 200, or 503 with Retry-After
# past the queue, and at least two are rendered; 30 more at once get 503
# busy with Retry-After for those past the queue.  The probing stops after
# 15 s; the PDFs still queued then are given up.  Steps: 200k on SQLite,
# 20k on PostgreSQL (its step reads are slower).  Runs in under a minute.
source "$(dirname "$0")/lib.sh"
need curl python3

STEPS=${STEPS:-$([ "$PARITY_BACKEND" = pg ] && echo 20000 || echo 200000)}
T=$WORK/t
mkdir -p "$T"
python3 "$G/gen_trainlog.py" --steps "$STEPS" --scenario regress --at $((STEPS / 3)) \
	--no-color --out-a "$T/a.log" --out-b "$T/b.log" >/dev/null

start_daemon
R1=$(upload_run "$T/a.log" a)
R2=$(upload_run "$T/b.log" b)
curl -s -m 120 -X POST "$BASE/comparisons?wait=120" -H 'Content-Type: application/json' \
	-d "{\"baseline\":$R1,\"candidate\":$R2}" >"$WORK/cmp.json"
C=$(json id "$WORK/cmp.json")
wait_for bash -c "curl -s $BASE/comparisons/$C | grep -q '\"status\":\"done\"'"
eq "one PDF (warm-up)" "$(curl -s -m 120 -o /dev/null -w '%{http_code}' "$BASE/comparisons/$C/report.pdf")" 200

# 12 PDFs at once
pids=()
for i in $(seq 1 12); do
	curl -s -m 120 -D "$T/h$i" -o "$T/p$i.pdf" -w '%{http_code}' \
		"$BASE/comparisons/$C/report.pdf" >"$T/s$i" &
	pids+=($!)
done
running() {
	local p
	for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && return 0; done
	return 1
}
# probe the cheap requests while the PDFs render (for at most 15 s: the
# PDFs still queued then are given up, their renders skipped)
slow=0 worst=0 probes=0 end=$((SECONDS + 15))
sleep 0.3
while running && [ $SECONDS -lt $end ]; do
	for u in /healthz "/runs/$R1"; do
		t=$(curl -s -m 30 -o /dev/null -w '%{http_code} %{time_total}' "$BASE$u")
		probes=$((probes + 1))
		s=${t%% *} t=${t#* }
		[ "$s" = 200 ] || bad "$u during the renders: $s"
		if python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) >= 1.0 else 1)" "$t"; then
			slow=$((slow + 1))
			echo "slow: $u took $t s" >&2
		fi
		worst=$(python3 -c "print(max(float('$worst'), float('$t')))")
	done
	sleep 0.2
done
echo "probes during the renders: $probes, slowest $worst s, $slow over 1 s ($SECONDS s in)"
check "probed while the PDFs rendered ($probes probes)" test $probes -ge 2
# a loaded machine may delay one probe past 1 s, never by seconds
check "cheap requests answer < 1 s during 12 PDFs (slow: $slow, worst $worst s)" \
	python3 -c "import sys; sys.exit(0 if $slow <= 1 and $worst < 1.5 else 1)"
for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
for p in "${pids[@]}"; do wait "$p"; done
ok_pdfs=0
for i in $(seq 1 12); do
	s=$(cat "$T/s$i")
	case $s in
	"" | 000) ;; # given up above
	200)
		ok_pdfs=$((ok_pdfs + 1))
		head -c 5 "$T/p$i.pdf" | grep -q '%PDF-' || bad "PDF $i: not a PDF"
		;;
	503) grep -qi '^retry-after:' "$T/h$i" || bad "PDF $i: 503 without Retry-After" ;;
	*) bad "PDF $i: status $s" ;;
	esac
done
check "PDFs rendered ($ok_pdfs of 12)" test $ok_pdfs -ge 2
# past the render queue (2 running + 16 waiting): 503 busy with
# Retry-After at once, not a wait
pids=()
for i in $(seq 1 30); do
	curl -s -m 60 -D "$T/q$i" -o /dev/null "$BASE/comparisons/$C/report.pdf" &
	pids+=($!)
done
busy() { [ "$(grep -l '^HTTP/1.1 503' "$T"/q* 2>/dev/null | wc -l)" -ge 10 ]; }
check "30 PDFs at once: 503 past the queue" wait_for busy
check "503 busy carries Retry-After" bash -c \
	'for f in $(grep -l "^HTTP/1.1 503" "$1"/q*); do grep -qi "^retry-after: 5" "$f" || exit 1; done' _ "$T"
for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
# a page of many steps is built on a render thread too: it answers (once
# the given-up PDFs above have left the queue)
page() { [ "$(curl -s -m 120 -o /dev/null -w '%{http_code}' "$BASE/ui/runs/$R1")" = 200 ]; }
check "run page of $STEPS steps" wait_for page
stop_daemon
finish
