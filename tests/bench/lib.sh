# tests/bench/lib.sh - shared set-up of the daemon benchmarks (sourced).
# bench_init ARG: sets BIN (ARG or $PARITY_BIN, must be executable), TOOLS
# (the log generators), tmp (a temp dir removed on exit, with the daemon).
# bench_serve: starts `parity serve` on a free loopback port with its data
# in $tmp/data and sets pid and base (http://127.0.0.1:PORT).
# idof: the "id" of the JSON document on stdin.
# bench_bin ARG: sets BIN from ARG, a build directory (its parity) or the
# binary; exits 2 when it is not executable or GNU time is missing.
# bench_time OUT CMD...: runs CMD under /usr/bin/time -v (exit 0 or 1, the
# verdict, expected; else exit 2) and appends "wall_s rss_kb cpu_s" to OUT;
# needs $tmp.
bench_init() {
	BIN=${1:-${PARITY_BIN:-}}
	TOOLS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../tools" && pwd)
	if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
		echo "usage: $0 path/to/parity (or set PARITY_BIN)" >&2
		exit 2
	fi
	tmp=$(mktemp -d)
	pid=
	trap bench_cleanup EXIT
}
bench_cleanup() {
	if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
bench_serve() {
	"$BIN" serve --listen 127.0.0.1:0 --data "$tmp/data" --port-file "$tmp/port" 2>"$tmp/daemon.err" &
	pid=$!
	for _ in $(seq 1 200); do [ -s "$tmp/port" ] && break; sleep 0.05; done
	base="http://127.0.0.1:$(cat "$tmp/port")"
}
idof() { python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }
bench_bin() {
	if [ -d "${1:-}" ]; then BIN=$1/parity; else BIN=${1:-}; fi
	if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
		echo "usage: $0 BUILD_DIR (holding the parity binary)" >&2
		exit 2
	fi
	[ -x /usr/bin/time ] || { echo "$0: /usr/bin/time (GNU time) is required" >&2; exit 2; }
}
bench_time() {
	local out=$1 rc=0
	shift
	/usr/bin/time -v -o "$tmp/time" "$@" >/dev/null 2>"$tmp/err" || rc=$?
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
		echo "$0: '$*' failed (exit $rc):" >&2
		cat "$tmp/err" >&2
		exit 2
	fi
	awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0;
	                for (i = 1; i <= n; i++) s = s * 60 + t[i]; w = s}
	            /Maximum resident set size/ {r = $2}
	            /User time \(seconds\)|System time \(seconds\)/ {c += $2}
	            END {print w, r, c}' "$tmp/time" >>"$out"
}
