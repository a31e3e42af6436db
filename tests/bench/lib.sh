# tests/bench/lib.sh - shared set-up of the daemon benchmarks (sourced).
# bench_init ARG: sets BIN (ARG or $PARITY_BIN, must be executable), TOOLS
# (the log generators), tmp (a temp dir removed on exit, with the daemon).
# bench_serve: starts `parity serve` on a free loopback port with its data
# in $tmp/data and sets pid and base (http://127.0.0.1:PORT).
# idof: the "id" of the JSON document on stdin.
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
