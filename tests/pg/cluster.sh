#!/usr/bin/env bash
# tests/pg/cluster.sh - a throwaway PostgreSQL cluster for the tests.
#
#   tests/pg/cluster.sh start [DIR]   initdb into DIR (default: a new temp
#                                     dir), start it on a free 127.0.0.1
#                                     port, print its postgresql:// URL
#   tests/pg/cluster.sh url [DIR]     print the URL of a started cluster
#   tests/pg/cluster.sh stop [DIR]    stop it and remove DIR entirely
#
# DIR may also come from PARITY_PG_DIR.  `start` without a DIR prints the
# URL and, on stderr, the DIR to pass to `stop`.
# The server runs from the Debian `postgresql` package's binaries
# (/usr/lib/postgresql/<newest>/bin, or PG_BIN).  PostgreSQL refuses to run
# as root: as root the cluster belongs to PARITY_PG_USER (default
# `postgres`, the package's system user; created as a system user when
# missing); otherwise to the current user.  It listens on 127.0.0.1 only,
# with its unix socket inside DIR; the role `parity` (superuser, so tests
# can create a database each) has a random password that is in the URL,
# and the database `parity` exists.  Collation C (byte order, like
# SQLite's BINARY) and UTF8.  fsync is off: the data is thrown away.
set -euo pipefail

die() { echo "cluster.sh: $*" >&2; exit 1; }

cmd=${1:-}
DIR=${2:-${PARITY_PG_DIR:-}}

pg_bin() {
	if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; return; fi
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[ -n "$d" ] && [ -x "$d/initdb" ] || die "no PostgreSQL server binaries (/usr/lib/postgresql/*/bin): install the Debian package postgresql"
	echo "$d"
}

# run a command as the cluster's owner
as_owner() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$OWNER" -- "$@"
	else
		"$@"
	fi
}

free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
	local bin
	bin=$(pg_bin)
	if [ -z "$DIR" ]; then
		DIR=$(mktemp -d "${TMPDIR:-/tmp}/parity-pg.XXXXXX")
		echo "cluster dir: $DIR" >&2
	fi
	mkdir -p "$DIR"
	[ -z "$(ls -A "$DIR")" ] || die "$DIR is not empty"
	OWNER=$(id -un)
	if [ "$(id -u)" -eq 0 ]; then
		OWNER=${PARITY_PG_USER:-postgres}
		id "$OWNER" >/dev/null 2>&1 ||
			useradd --system --no-create-home --shell /usr/sbin/nologin "$OWNER"
		chown "$OWNER" "$DIR"
	fi
	chmod 700 "$DIR"
	echo "$OWNER" >"$DIR/owner"
	local pass
	pass=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
	printf '%s\n' "$pass" >"$DIR/pwfile"
	chmod 644 "$DIR/pwfile"
	as_owner "$bin/initdb" -D "$DIR/data" -U parity --pwfile="$DIR/pwfile" \
		--auth-local=scram-sha-256 --auth-host=scram-sha-256 \
		--encoding=UTF8 --locale=C >"$DIR/initdb.log" 2>&1 ||
		{ cat "$DIR/initdb.log" >&2; die "initdb failed"; }
	rm -f "$DIR/pwfile"
	mkdir -p "$DIR/sock"
	[ "$(id -u)" -eq 0 ] && chown "$OWNER" "$DIR/sock"
	# a free port can be taken between the probe and the start: retry
	local port tries=0
	while :; do
		port=$(free_port)
		if as_owner "$bin/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 30 \
			-o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$DIR/sock -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
			start >/dev/null; then
			break
		fi
		tries=$((tries + 1))
		[ "$tries" -lt 5 ] || { cat "$DIR/server.log" >&2; die "server did not start"; }
	done
	local url="postgresql://parity:$pass@127.0.0.1:$port/parity"
	PGPASSWORD=$pass "$bin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U parity \
		-d postgres -c "CREATE DATABASE parity" >/dev/null ||
		die "creating the database failed"
	echo "$url" >"$DIR/url"
	chmod 600 "$DIR/url"
	echo "$url"
}

stop() {
	[ -n "$DIR" ] || die "stop: which cluster dir? (argument or PARITY_PG_DIR)"
	[ -d "$DIR" ] || return 0
	# only a directory this script made: it holds owner (and data/)
	[ -f "$DIR/owner" ] || die "$DIR is not a cluster made by cluster.sh"
	OWNER=$(cat "$DIR/owner")
	if [ -f "$DIR/data/postmaster.pid" ]; then
		as_owner "$(pg_bin)/pg_ctl" -D "$DIR/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
	fi
	rm -rf "$DIR"
}

case "$cmd" in
start) start ;;
stop) stop ;;
url)
	[ -n "$DIR" ] && [ -f "$DIR/url" ] || die "url: no started cluster in '${DIR}'"
	cat "$DIR/url"
	;;
*)
	echo "usage: tests/pg/cluster.sh start|stop|url [DIR]" >&2
	exit 2
	;;
esac
