#!/usr/bin/env bash
# Charts of extreme training series (issue 23 F1) against a real daemon:
# a loss series holding +1e308 and -1e308 (its range overflows to +inf)
# once sent the SVG chart code into an endless loop, so /ui/runs/{id},
# /ui/comparisons/{id} and report.html never answered (the thread spun
# until kill -9) and `parity compare a b -o x.html` never exited.  Now
# every page and chart answers (within a bound generous for a loaded
# machine), /healthz still answers afterwards, the daemon stops on
# SIGTERM, and the offline report exits; ditto +-DBL_MAX, inf and
# subnormal series.
source "$(dirname "$0")/lib.sh"
need curl python3

T=$WORK/t
mkdir -p "$T"
printf '1 1e308\n2 -1e308\n3 1.0\n' >"$T/x.txt"
printf '1 1.0\n2 -1e308\n3 2.0\n' >"$T/y.txt"
printf '1 1.7976931348623157e308\n2 -1.7976931348623157e308\n3 inf\n4 1e-310\n' >"$T/max.txt"
printf '1 1e-310\n2 1e-310\n3 2e-310\n4 4.9e-324\n' >"$T/sub.txt"

start_daemon
R1=$(upload_run "$T/x.txt" x)
R2=$(upload_run "$T/y.txt" y)
R3=$(upload_run "$T/max.txt" max)
R4=$(upload_run "$T/sub.txt" sub)
check "uploads" test -n "$R1" -a -n "$R2" -a -n "$R3" -a -n "$R4"

# get URL: the status within 20 s (000 when it did not answer)
get() { curl -s -m 20 -o "$WORK/body" -w '%{http_code}' "$BASE$1"; }
# a request that did not answer left a thread spinning: SIGTERM would not
# stop the daemon, so kill it and stop here
hung() {
	bad "$1 did not answer within 20 s (hang)"
	kill -KILL "$DAEMON_PID" 2>/dev/null
	wait "$DAEMON_PID" 2>/dev/null
	DAEMON_PIDS=()
	finish
	exit 1
}
page_ok() { # URL what: 200 and a whole document with no non-finite coordinate
	local s
	s=$(get "$1")
	[ "$s" != 000 ] || hung "$2"
	eq "$2" "$s" 200
	check "$2: whole page" grep -q '</html>' "$WORK/body"
	check "$2: no nan/inf coordinate" bash -c \
		"! grep -Eq '(x|y|x1|x2|y1|y2|d)=\"[^\"]*(nan|inf)' \"\$1\"" _ "$WORK/body"
}
for r in "$R1" "$R3" "$R4"; do
	page_ok "/ui/runs/$r" "run page $r"
done

compare() { # BASELINE CANDIDATE -> comparison id, done
	curl -s -m 60 -X POST "$BASE/comparisons?wait=30" -H 'Content-Type: application/json' \
		-d "{\"baseline\":$1,\"candidate\":$2}" >"$WORK/cmp.json"
	local c
	c=$(json id "$WORK/cmp.json")
	wait_for bash -c "curl -s -m 10 $BASE/comparisons/$c | grep -q '\"status\":\"done\"'" || true
	echo "$c"
}
for pair in "$R1 $R2" "$R3 $R1" "$R4 $R3" "$R4 $R4"; do
	# shellcheck disable=SC2086
	C=$(compare $pair)
	page_ok "/ui/comparisons/$C" "comparison page $C ($pair)"
	page_ok "/comparisons/$C/report.html" "report.html $C ($pair)"
	eq "report.pdf $C" "$(get "/comparisons/$C/report.pdf")" 200
	eq "loss.png $C" "$(get "/comparisons/$C/charts/loss.png")" 200
	eq "loss-diff.png $C" "$(get "/comparisons/$C/charts/loss-diff.png")" 200
done
# no thread was left spinning: the daemon still answers, and stops
eq "healthz after the extreme pages" "$(get /healthz)" 200
kill -TERM "$DAEMON_PID"
stopped=0
for _ in $(seq 1 200); do
	kill -0 "$DAEMON_PID" 2>/dev/null || {
		stopped=1
		break
	}
	sleep 0.1
done
check "daemon stops on SIGTERM" test $stopped = 1
[ $stopped = 1 ] || kill -KILL "$DAEMON_PID" 2>/dev/null
wait "$DAEMON_PID" 2>/dev/null
DAEMON_PIDS=()

# the offline report exits (a verdict: 0 pass, 1 fail; 124 = timed out)
for pair in "x.txt y.txt" "max.txt sub.txt"; do
	set -- $pair
	rc=0
	timeout -k 5 60 "$PARITY_BIN" compare "$T/$1" "$T/$2" -o "$T/r.html" >/dev/null 2>&1 || rc=$?
	check "parity compare $pair -o r.html exits (rc $rc)" test "$rc" -le 1
	check "offline report $pair written" grep -q '</html>' "$T/r.html"
	rm -f "$T/r.html"
done
finish
