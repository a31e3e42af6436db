# lib.sh - shared helpers for the integration tests: start the real daemon
# on a free loopback port with a throw-away data dir, assertions that count
# instead of exiting, and the closing "N passed, N failed" line.
#   source "$(dirname "$0")/lib.sh"
# Needs PARITY_BIN (set by ctest); PARITY_SHARED for fixtures/generators.
set -u
PARITY_BIN=${PARITY_BIN:?PARITY_BIN must point at the parity binary}
PARITY_SHARED=${PARITY_SHARED:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../shared" && pwd)}
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

finish() {
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}
