# lib.sh - shared helpers for the integration tests: start the real daemon
# on a free loopback port with a throw-away data dir, assertions that count
# instead of exiting, and the closing "N passed, N failed" line.
#   source "$(dirname "$0")/lib.sh"
# Needs PARITY_BIN (set by ctest).  Test data lives in this repository:
#   $F  tests/data   (fixtures with expected results: match/, train/)
#   $G  tests/tools  (the log generators gen_actlog.py, gen_trainlog.py)
# need TOOL...: a missing tool fails the test with its name (never a skip).
set -u
PARITY_BIN=${PARITY_BIN:?PARITY_BIN must point at the parity binary}
PARITY_TESTS=${PARITY_TESTS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
F=$PARITY_TESTS/data
G=$PARITY_TESTS/tools
T_PASS=0
T_FAIL=0
WORK=$(mktemp -d /tmp/parity-it.XXXXXX)
DAEMON_PID=
BASE=

cleanup() {
	if [ -n "$DAEMON_PID" ] && kill -0 "$DAEMON_PID" 2>/dev/null; then
		kill -TERM "$DAEMON_PID" 2>/dev/null
		wait "$DAEMON_PID" 2>/dev/null
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

ok() { T_PASS=$((T_PASS + 1)); }
bad() { T_FAIL=$((T_FAIL + 1)); echo "FAIL: $*" >&2; }

# check "description" command...   (passes when the command succeeds)
check() {
	local what=$1
	shift
	if "$@"; then ok; else bad "$what"; fi
}

# eq "description" got want
eq() {
	if [ "$2" == "$3" ]; then ok; else bad "$1: got '$2', want '$3'"; fi
}

# start_daemon [extra flags...]: data dir $WORK/data, sets BASE and DAEMON_PID
start_daemon() {
	DATA=${DATA:-$WORK/data}
	rm -f "$WORK/port"
	"$PARITY_BIN" serve --listen 127.0.0.1:0 --data "$DATA" --port-file "$WORK/port" "$@" \
		>>"$WORK/daemon.out" 2>>"$WORK/daemon.err" &
	DAEMON_PID=$!
	for _ in $(seq 1 200); do
		[ -s "$WORK/port" ] && break
		if ! kill -0 "$DAEMON_PID" 2>/dev/null; then
			echo "daemon died at start:" >&2
			cat "$WORK/daemon.err" >&2
			return 1
		fi
		sleep 0.05
	done
	BASE="http://127.0.0.1:$(cat "$WORK/port")"
}

# stop_daemon: SIGTERM, expect exit status 0
stop_daemon() {
	kill -TERM "$DAEMON_PID"
	local rc=0
	wait "$DAEMON_PID" || rc=$?
	DAEMON_PID=
	eq "daemon exit status after SIGTERM" "$rc" 0
	[ "$rc" == 0 ] || grep -v '^    #[0-9]' "$WORK/daemon.err" | tail -n 40 >&2
}

# http METHOD URL [curl args...]: body to $WORK/body, prints the status code
http() {
	local method=$1 url=$2
	shift 2
	curl -s -o "$WORK/body" -w '%{http_code}' -X "$method" "$@" "$BASE$url"
}

# jq-free JSON field access through python3
json() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    if k=="": continue
    d=d[int(k)] if isinstance(d,list) else d.get(k) if isinstance(d,dict) else None
print("null" if d is None else (json.dumps(d) if isinstance(d,(dict,list)) else (str(d).lower() if isinstance(d,bool) else d)))' "${2:-$WORK/body}" "$1"
}

# wait_for CMD...: poll (every 50 ms) until the command succeeds; gives up
# after WAIT_SECONDS (default 30) and returns 1.  Tests wait for a condition,
# never for a fixed time: a loaded machine only makes them slower.
wait_for() {
	local end=$((SECONDS + ${WAIT_SECONDS:-30}))
	while :; do
		"$@" && return 0
		[ $SECONDS -ge $end ] && return 1
		sleep 0.05
	done
}

# no_temp_files: the daemon's upload temp directory is empty
no_temp_files() { [ -z "$(find "$DATA/tmp" -type f 2>/dev/null | head -n 1)" ]; }

# skip_or_fail WHY: a test that cannot run fails, naming what is missing.
# Only with PARITY_ALLOW_SKIP=1 (never in CI) does it exit 77, which ctest
# shows as "Skipped" in its summary (SKIP_RETURN_CODE).
skip_or_fail() {
	if [ "${PARITY_ALLOW_SKIP:-0}" = 1 ]; then
		echo "SKIP: $*"
		exit 77
	fi
	bad "$* (deploy/dev.sh installs it; PARITY_ALLOW_SKIP=1 skips visibly)"
	finish
	exit 1
}

# need TOOL...: every tool must be on PATH, else skip_or_fail naming it
need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || skip_or_fail "$t is not installed"
	done
}

finish() {
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}
