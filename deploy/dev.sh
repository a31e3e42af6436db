#!/usr/bin/env bash
# deploy/dev.sh - the two commands of the README, for a fresh Debian machine.
#
#   deploy/dev.sh run    install missing packages, build, start the daemon
#                        (127.0.0.1:8080, data in ./parity-data/)
#   deploy/dev.sh test   install missing packages, build, run the whole suite:
#                        a normal build and an ASan+UBSan build, each under ctest
#   deploy/dev.sh build  install + build only
#   deploy/dev.sh format        clang-format -i every C file (.clang-format)
#   deploy/dev.sh format-check  fail when a C file is not formatted (CI)
#
# Packages are installed with apt-get only when missing (as root, or via
# sudo).  Environment: PARITY_JOBS (build parallelism, default nproc),
# PARITY_SKIP_SANITIZE=1 skips the sanitizer pass (local quick runs only),
# PARITY_ASAN_PG=1 also runs the integration tests on PostgreSQL
# (integration.pg.*) in the sanitizer pass (by default: normal build only),
# PARITY_FUZZ_SECONDS (default 30; 0 = skip) bounds each libFuzzer target,
# PARITY_TEST_DB (a postgresql:// URL of a role that may create databases)
# replaces the throwaway cluster `test` starts (tests/pg/cluster.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)

PACKAGES=(build-essential cmake pkg-config libmicrohttpd-dev libsqlite3-dev libjansson-dev
          libcurl4-openssl-dev libssl-dev zlib1g-dev libpcre2-dev python3 curl sqlite3 clang
          clang-format libclang-rt-14-dev chromium nodejs npm systemd nginx-light openssl wrk
          bsdutils strace protobuf-c-compiler libprotobuf-c-dev libpq-dev postgresql
          libcairo2-dev libpango1.0-dev fonts-wqy-microhei poppler-utils jq)

install_packages() {
	local missing=()
	for p in "${PACKAGES[@]}"; do
		# node may come from outside Debian (nvm, image): then skip its packages
		if [ "$p" = nodejs ] || [ "$p" = npm ]; then command -v "${p/nodejs/node}" >/dev/null && continue; fi
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "installing: ${missing[*]}"
	local SUDO=
	[ "$(id -u)" -ne 0 ] && SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

JOBS=${PARITY_JOBS:-$(nproc)}

build() { # build DIR [cmake args...]
	local dir=$1
	shift
	cmake -S "$ROOT" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@" >/dev/null
	cmake --build "$dir" -j "$JOBS"
}

# every C source of the tree (not build output, not node_modules)
c_sources() {
	find matcher server store web tests -name node_modules -prune -o \
		-type f \( -name '*.c' -o -name '*.h' \) -print | sort
}

format_check() {
	echo "=== format check (clang-format $(clang-format --version | grep -o '[0-9][0-9.]*' | head -n 1)) ==="
	c_sources | xargs clang-format --dry-run --Werror
}

cmd=${1:-}
case "$cmd" in
format)
	c_sources | xargs clang-format -i
	;;
format-check)
	format_check
	;;
run)
	install_packages
	build "$ROOT/build"
	shift
	exec "$ROOT/build/parity" serve "$@"
	;;
build)
	install_packages
	build "$ROOT/build"
	;;
test)
	install_packages
	# CI must run every test: a skip is only ever a local convenience
	if [ "${CI:-}" = true ] && [ "${PARITY_ALLOW_SKIP:-0}" = 1 ]; then
		echo "PARITY_ALLOW_SKIP=1 is not allowed in CI" >&2
		exit 2
	fi
	format_check
	# browser tests: playwright-core from npm, driving Debian's chromium
	if [ -f "$ROOT/tests/browser/package.json" ]; then
		(cd "$ROOT/tests/browser" && npm ci --no-audit --no-fund --loglevel=error)
	fi
	# fuzzing first, so the suite's ctest summary is the last thing printed
	if [ "${PARITY_FUZZ_SECONDS:-30}" != 0 ]; then
		echo "=== fuzzing (libFuzzer, ${PARITY_FUZZ_SECONDS:-30} s per target) ==="
		bash "$ROOT/tests/fuzz/run.sh" "${PARITY_FUZZ_SECONDS:-30}"
	fi
	# PostgreSQL for the test_pg_* tests (store/BACKENDS.md): a throwaway
	# cluster for both runs, removed on exit; PARITY_TEST_DB given by the
	# caller (a server of their own) is used as is
	if [ -z "${PARITY_TEST_DB:-}" ]; then
		PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/parity-pg.XXXXXX")
		trap 'bash "$ROOT/tests/pg/cluster.sh" stop "$PG_DIR"' EXIT
		echo "=== PostgreSQL test cluster ==="
		PARITY_TEST_DB=$(bash "$ROOT/tests/pg/cluster.sh" start "$PG_DIR")
		export PARITY_TEST_DB
	fi
	echo "=== test suite (normal build) ==="
	build "$ROOT/build" -DWERROR=ON
	(cd "$ROOT/build" && ctest --output-on-failure -j "$JOBS")
	if [ "${PARITY_SKIP_SANITIZE:-0}" != 1 ]; then
		echo "=== sanitizer build (ASan + UBSan) ==="
		build "$ROOT/build-asan" -DWERROR=ON -DSANITIZE=ON
		# the integration suite on PostgreSQL (integration.pg.*) runs in the
		# normal build only (measured there: 625 s of tests, ~5 min at -j2
		# on 2 loaded cores); under ASan, ~3x slower, it would add ~15 min
		# for code paths the normal build and the unit.pg.* tests (which do
		# run here) already cover; PARITY_ASAN_PG=1 runs them here too
		asan_exclude=()
		[ "${PARITY_ASAN_PG:-0}" = 1 ] || asan_exclude=(-E '^integration[.]pg[.]')
		(cd "$ROOT/build-asan" && PARITY_SANITIZED=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
			UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
			ctest --output-on-failure -j "$JOBS" "${asan_exclude[@]}")
	fi
	;;
*)
	echo "usage: deploy/dev.sh run|test|build|format|format-check" >&2
	exit 2
	;;
esac
