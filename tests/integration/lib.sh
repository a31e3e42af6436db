# lib.sh - shared helpers for the integration tests: start the real daemon
# on a free loopback port with a throw-away data dir, assertions that count
# instead of exiting, and the closing "N passed, N failed" line.
#   source "$(dirname "$0")/lib.sh"
# Needs PARITY_BIN (set by ctest).  Test data lives in this repository:
#   $F  tests/data   (fixtures with expected results: match/, train/)
#   $G  tests/tools  (the log generators gen_actlog.py, gen_trainlog.py)
# need TOOL...: a missing tool fails the test with its name (never a skip).
#
# Backends (issue 17, store/BACKENDS.md section 7): PARITY_BACKEND=sqlite
# (default) keeps the state in the data dir.  PARITY_BACKEND=pg (ctest's
# integration.pg.<name>) keeps it in fresh PostgreSQL databases on the
# server of PARITY_TEST_DB (a URL of a role that may create databases):
# one database per data dir ($DATA), made on first use and dropped at
# exit, passed to every daemon as --db (the data dir then holds only temp
# files) and exported as PARITY_DB (daemons started by hand); the CLI gets
# it from store_args (`parity token $(store_args)`).  Without
# PARITY_TEST_DB ctest skips integration.pg.* (fails them when CI=true:
# tests/pg/needs_db.sh); run by hand, skip_or_fail decides.  Daemons
# started with the same STORE_KEY (default: their data dir) share one
# database.  db_sql and db_dump read the state on either backend.
set -u
PARITY_BIN=${PARITY_BIN:?PARITY_BIN must point at the parity binary}
PARITY_TESTS=${PARITY_TESTS:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
F=$PARITY_TESTS/data
G=$PARITY_TESTS/tools
T_PASS=0
T_FAIL=0
WORK=$(mktemp -d /tmp/parity-it.XXXXXX)
DAEMON_PID=
DAEMON_PIDS=() # every daemon start_daemon started (cleanup stops those left)
BASE=
PARITY_BACKEND=${PARITY_BACKEND:-sqlite}
declare -A PG_DBS=() # STORE_KEY -> database name (PARITY_BACKEND=pg)

cleanup() {
	local pid
	for pid in "${DAEMON_PIDS[@]}"; do
		if kill -0 "$pid" 2>/dev/null; then
			kill -TERM "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
		fi
	done
	local name
	for name in "${PG_DBS[@]}"; do
		psql -X -q "$PARITY_TEST_DB" -c "DROP DATABASE IF EXISTS $name WITH (FORCE)" >/dev/null 2>&1
	done
	# PARITY_KEEP_WORK=1: keep the daemons' logs and data for a look
	if [ "${PARITY_KEEP_WORK:-0}" = 1 ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
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

# start_daemon [extra flags...]: data dir $DATA (default $WORK/data), sets
# BASE and DAEMON_PID; output appended to $DAEMON_LOG.out / .err (default
# $WORK/daemon).  PARITY_BACKEND=pg adds --db with the database of
# STORE_KEY (default $DATA).
start_daemon() {
	DATA=${DATA:-$WORK/data}
	local log=${DAEMON_LOG:-$WORK/daemon} db=()
	if [ "$PARITY_BACKEND" = pg ]; then
		store_db "${STORE_KEY:-$DATA}" || return 1
		db=(--db "$(store_url "${STORE_KEY:-$DATA}")")
	fi
	rm -f "$WORK/port"
	"$PARITY_BIN" serve --listen 127.0.0.1:0 --data "$DATA" "${db[@]}" --port-file "$WORK/port" "$@" \
		>>"$log.out" 2>>"$log.err" &
	DAEMON_PID=$!
	DAEMON_PIDS+=("$DAEMON_PID")
	for _ in $(seq 1 200); do
		[ -s "$WORK/port" ] && break
		if ! kill -0 "$DAEMON_PID" 2>/dev/null; then
			echo "daemon died at start:" >&2
			cat "$log.err" >&2
			return 1
		fi
		sleep 0.05
	done
	BASE="http://127.0.0.1:$(cat "$WORK/port")"
}

# store_db KEY: make KEY's database (PARITY_BACKEND=pg), a fresh one on
# PARITY_TEST_DB's server, unless made already.  Run it in the test's
# shell (not in $(...)), so that the name is remembered and dropped at exit.
store_db() {
	local key=$1 name
	[ -n "${PG_DBS[$key]:-}" ] && return 0
	name=parity_it_$(basename "$0" .sh | tr -c 'a-z0-9_\n' _ | cut -c1-24)_$$_${#PG_DBS[@]}
	PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 "$PARITY_TEST_DB" -c "DROP DATABASE IF EXISTS $name" \
		-c "CREATE DATABASE $name" >/dev/null || {
		echo "cannot create the database $name on PARITY_TEST_DB's server" >&2
		return 1
	}
	PG_DBS[$key]=$name
}

# store_url KEY: the URL of KEY's database (made by store_db)
store_url() {
	[ -n "${PG_DBS[$1]:-}" ] || { echo "store_url: no database for '$1' (store_db first)" >&2; return 1; }
	python3 -c 'import sys, urllib.parse as u
p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' \
		"$PARITY_TEST_DB" "${PG_DBS[$1]}"
}

# store_args: the CLI's options that name the daemon's store (`parity
# token`, `gc`): --data $DATA, or --db with its database (PARITY_BACKEND=pg)
store_args() {
	if [ "$PARITY_BACKEND" = pg ]; then
		echo "--db $(store_url "${STORE_KEY:-${DATA:-$WORK/data}}")"
	else
		echo "--data ${DATA:-$WORK/data}"
	fi
}

# db_cli: DB_CLI=(the command line tool on the daemon's store ($DATA's,
# or STORE_KEY's)); it takes one SQL statement as its last argument and
# prints rows with columns separated by | (sqlite3's and psql -A's format)
db_cli() {
	if [ "$PARITY_BACKEND" = pg ]; then
		DB_CLI=(psql -X -A -t -q -v ON_ERROR_STOP=1 "$(store_url "${STORE_KEY:-${DATA:-$WORK/data}}")" -c)
	else
		# wait for the daemon's write lock instead of failing "database is
		# locked" at once (a loaded machine: CI under ASan beside a second run)
		DB_CLI=(sqlite3 -cmd ".timeout 10000" "${DATA:-$WORK/data}/parity.db")
	fi
}

# db_sql SQL: run one statement on the daemon's store, print its rows
db_sql() {
	db_cli
	"${DB_CLI[@]}" "$1"
}

# db_dump: every byte the store keeps as text (the SQLite files, or a
# pg_dump of the database): for "this secret is not stored" checks
db_dump() {
	if [ "$PARITY_BACKEND" = pg ]; then
		pg_dump --data-only "$(store_url "${STORE_KEY:-${DATA:-$WORK/data}}")"
	else
		cat "${DATA:-$WORK/data}"/parity.db*
	fi
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

# cli WANT OUT -- ARGS...: run `parity ARGS` with stdout to OUT and stderr
# to OUT.err; check its exit status is WANT (on a mismatch the first lines
# of its stderr are shown)
cli() {
	local want=$1 out=$2
	shift 3
	"$PARITY_BIN" "$@" >"$out" 2>"$out.err"
	local rc=$?
	eq "parity $* exit status" "$rc" "$want"
	[ "$rc" = "$want" ] || head -n 5 "$out.err" >&2
}

# http METHOD URL [curl args...]: body to $WORK/body, prints the status code
http() {
	local method=$1 url=$2
	shift 2
	curl -s -o "$WORK/body" -w '%{http_code}' -X "$method" "$@" "$BASE$url"
}

# all_rows ID OUT [QUERY]: every row of a comparison (following the cursors),
# without rank/idx, one JSON per line
all_rows() {
	local id=$1 cursor="" out=$2
	: >"$out"
	while :; do
		http GET "/comparisons/$id/rows?limit=1000${cursor:+&cursor=$cursor}${3:-}" >/dev/null
		python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
with open(sys.argv[2],"a") as f:
    for r in d["rows"]:
        r.pop("rank",None); r.pop("idx",None)
        f.write(json.dumps(r,sort_keys=True)+"\n")
print(d["next_cursor"] or "")' "$WORK/body" "$out" >"$WORK/cursor"
		cursor=$(cat "$WORK/cursor")
		[ -z "$cursor" ] && break
	done
}
# cli_rows JSONFILE OUT: the rows of `parity compare --format json`, same form
cli_rows() {
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
with open(sys.argv[2],"w") as f:
    for r in d["rows"]: f.write(json.dumps(r,sort_keys=True)+"\n")' "$1" "$2"
}

# upload_run FILE NAME: POST /runs, prints the new run's id
upload_run() {
	curl -s -m 120 -F "log=@$1" -F "name=$2" "$BASE/runs" |
		python3 -c 'import json,sys;print(json.load(sys.stdin)["id"])'
}

# cmp_verdict BASELINE CANDIDATE POLICY: POST /comparisons of two runs,
# wait for it, print its verdict (the comparison stays in $WORK/body)
cmp_verdict() {
	local st id
	st=$(http POST /comparisons --json "{\"baseline\":$1,\"candidate\":$2,\"policy\":\"$3\"}")
	[ "$st" = 202 ] || { echo "status $st"; return; }
	id=$(json id)
	http GET "/comparisons/$id?wait=60" >/dev/null
	json verdict
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

# healthz_while PID...: probe /healthz (every 50 ms) while any of the
# processes runs; sets PROBES, SLOW_PROBES (not 200 in < 1 s) and SLOWEST
# (seconds), and prints each slow probe
healthz_while() {
	local hc hs p running
	PROBES=0 SLOW_PROBES=0 SLOWEST=0
	while :; do
		running=0
		for p in "$@"; do kill -0 "$p" 2>/dev/null && running=1; done
		[ "$running" = 1 ] || break
		read -r hc hs < <(curl -s -o /dev/null -w '%{http_code} %{time_total}' --max-time 30 "$BASE/healthz")
		PROBES=$((PROBES + 1))
		awk -v a="$SLOWEST" -v b="$hs" 'BEGIN { exit !(a + 0 < b + 0) }' && SLOWEST=$hs
		if [ "$hc" != 200 ] || ! awk -v a="$hs" 'BEGIN { exit !(a + 0 < 1) }'; then
			SLOW_PROBES=$((SLOW_PROBES + 1))
			echo "healthz: $hc in ${hs}s"
		fi
		sleep 0.05
	done
}

finish() {
	echo "$T_PASS passed, $T_FAIL failed"
	[ "$T_FAIL" -eq 0 ]
}

# PARITY_BACKEND=pg: the server must be there; the CLI's state is the
# default data dir's database
case $PARITY_BACKEND in
sqlite) ;;
pg)
	need psql pg_dump
	case "${PARITY_TEST_DB:-}" in
	postgresql://* | postgres://*) ;;
	*) skip_or_fail "PARITY_BACKEND=pg needs PARITY_TEST_DB, a postgresql:// URL (tests/pg/cluster.sh start gives one)" ;;
	esac
	store_db "$WORK/data" || exit 1
	PARITY_DB=$(store_url "$WORK/data")
	export PARITY_DB
	;;
*)
	echo "PARITY_BACKEND must be sqlite or pg, not '$PARITY_BACKEND'" >&2
	exit 2
	;;
esac
