#!/usr/bin/env bash
# test_pg_serve.sh - `parity serve --db postgresql://...` against the server
# of PARITY_TEST_DB: two daemons started at once on one fresh database both
# apply the migrations (each version once) and serve; what one writes the
# other reads (token from `parity token --db`, webhook through daemon A
# listed by daemon B, token revoked for both); a delivery queued with a
# NOTIFY wakes a sender at once (LISTEN thread), not after the senders'
# 5 s re-check, also after the LISTEN connections broke; each daemon names itself for its claims; `parity gc --db`
# deletes raw logs no log references, one gc at a time; `parity backup
# --db` exits 2 with the pg_dump hint (password masked); PARITY_DB serves
# the same; SIGTERM exits 0 with nothing claimed left behind; a non-URL
# --db is a usage error (exit 2); an unreachable server is an error that
# names it, without the password.
# Without PARITY_TEST_DB ctest skips it, or fails it when CI=true
# (tests/pg/needs_db.sh); run by hand it fails (PARITY_ALLOW_SKIP=1 skips).
source "$(dirname "$0")/lib.sh"
need psql python3 curl
case "${PARITY_TEST_DB:-}" in
postgresql://* | postgres://*) ;;
*) skip_or_fail "PARITY_TEST_DB is not a postgresql:// URL (tests/pg/cluster.sh start gives one)" ;;
esac

# a fresh database next to the test server's: same URL, other name
DBNAME=parity_it_serve_$$
URL=$(python3 -c 'import sys, urllib.parse as u
p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path="/" + sys.argv[2])))' \
	"$PARITY_TEST_DB" "$DBNAME")
psql -X -q "$PARITY_TEST_DB" -c "DROP DATABASE IF EXISTS $DBNAME" -c "CREATE DATABASE $DBNAME" 2>/dev/null
PIDS=()
RECV_PID=
stop_all() {
	local p
	for p in "${PIDS[@]}" $RECV_PID; do kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	psql -X -q "$PARITY_TEST_DB" -c "DROP DATABASE IF EXISTS $DBNAME WITH (FORCE)" 2>/dev/null
	cleanup
}
trap stop_all EXIT
q() { psql -X -A -t -q "$URL" -c "$1"; }

# serve N [flags...]: daemon N on the database, port in $WORK/port.N
serve() {
	local n=$1
	shift
	"$PARITY_BIN" serve --listen 127.0.0.1:0 --data "$WORK/d$n" --port-file "$WORK/port.$n" \
		--require-tokens --webhook-allow-private --webhook-workers 1 "$@" \
		>"$WORK/o$n" 2>"$WORK/e$n" &
	PIDS[$n]=$!
}
up() { [ -s "$WORK/port.$1" ]; }
base() { echo "http://127.0.0.1:$(cat "$WORK/port.$1")"; }
# stop N: SIGTERM, expect exit status 0
stop() {
	kill -TERM "${PIDS[$1]}"
	local rc=0
	wait "${PIDS[$1]}" || rc=$?
	unset "PIDS[$1]"
	eq "daemon $1 exit status after SIGTERM" "$rc" 0
	[ "$rc" == 0 ] || tail -n 20 "$WORK/e$1" >&2
}

# two daemons at once on the fresh database
serve 1 --db "$URL"
serve 2 --db "$URL"
check "daemon 1 listens" wait_for up 1
check "daemon 2 listens" wait_for up 2
A=$(base 1)
B=$(base 2)
# the migration files (versions need not be contiguous while a branch
# holds a later number than main)
NMIG=$(ls "$PARITY_SRC"/migrations/postgresql/*.sql | wc -l)
VMAX=$(ls "$PARITY_SRC"/migrations/postgresql/*.sql | sed 's|.*/0*\([0-9]*\)_.*|\1|' | sort -n | tail -n 1)
eq "versions recorded" "$(q 'SELECT count(*) FROM schema_migrations')" "$NMIG"
eq "each version once" "$(q 'SELECT count(DISTINCT version) FROM schema_migrations')" "$NMIG"
eq "the newest version" "$(q 'SELECT max(version) FROM schema_migrations')" "$VMAX"
for n in 1 2; do
	check "daemon $n logs its schema version" grep -q "PostgreSQL schema at version $VMAX" "$WORK/e$n"
	check "daemon $n: no password in its log" bash -c "! grep -q '$(python3 -c 'import sys, urllib.parse as u
print(u.urlsplit(sys.argv[1]).password or "no-password-in-url")' "$URL")' '$WORK/e$n'"
done
o1=$(sed -n 's/.*claims owned as \([^ ,]*\).*/\1/p' "$WORK/e1")
o2=$(sed -n 's/.*claims owned as \([^ ,]*\).*/\1/p' "$WORK/e2")
check "owner names are host:pid:random ($o1)" bash -c "[[ '$o1' =~ ^[^:]+:${PIDS[1]}:[0-9a-f]{8}$ ]]"
check "the two daemons have different owner names" test -n "$o2" -a "$o1" != "$o2"
eq "daemon 1 /healthz" "$(curl -s "$A/healthz")" '{"status":"ok"}'
eq "daemon 2 /healthz" "$(curl -s "$B/healthz")" '{"status":"ok"}'
check "/metrics: the database size from PostgreSQL" \
	bash -c "curl -s '$B/metrics' | grep -Eq '^parity_db_size_bytes [1-9][0-9]{5,}$'"

# one database: a token made with the CLI works on both daemons
TOKEN=$("$PARITY_BIN" token create --name ci --db "$URL")
check "token created" test -n "$TOKEN"
auth=(-H "Authorization: Bearer $TOKEN")
hook='{"url":"http://127.0.0.1:PORT/hook","events":["comparison.completed"],"secret":"s"}'
RPORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
eq "webhook created through daemon 1" "$(curl -s -o "$WORK/hook" -w '%{http_code}' "${auth[@]}" \
	-H 'Content-Type: application/json' -d "${hook/PORT/$RPORT}" "$A/webhooks")" 201
HOOK=$(json id "$WORK/hook")
curl -s "${auth[@]}" "$B/webhooks" >"$WORK/hooks"
eq "daemon 2 lists it" "$(json webhooks.0.id "$WORK/hooks")" "$HOOK"
eq "no token: a write is 401 on daemon 2" "$(curl -s -o /dev/null -w '%{http_code}' \
	-H 'Content-Type: application/json' -d "${hook/PORT/$RPORT}" "$B/webhooks")" 401

# a delivery queued elsewhere (psql here, a worker of another daemon in
# production) with its NOTIFY is sent within 1 s: the senders' own
# re-check is 5 s, so only the LISTEN thread can be that fast (4 rounds,
# one sender per daemon: chance alone passes all four with p ~ 0.36^4 < 2 %;
# the time is measured from just after the COMMIT, so it may read < 0)
python3 - "$RPORT" "$WORK/received" <<'EOF' &
import http.server, sys, time
out = sys.argv[2]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0))).decode()
        with open(out, "a") as f:
            f.write("%s %.3f\n" % (body, time.time()))
        self.send_response(200)
        self.end_headers()
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
EOF
RECV_PID=$!
: >"$WORK/received"
for round in 1 2 3 4; do
	if [ $round = 4 ]; then
		# the LISTEN connections break (server restart, network): each
		# daemon reconnects, listens again and wakes everything once
		eq "LISTEN backends ended" "$(q "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE datname = '$DBNAME' AND query LIKE 'LISTEN%'")" 2
		for n in 1 2; do
			check "daemon $n listens again" wait_for grep -q "wake-ups: listening again" "$WORK/e$n"
		done
	fi
	sleep 1.2 # both senders idle again
	t=$(q "BEGIN; INSERT INTO webhook_deliveries(webhook_id, comparison_id, event, url, payload,
		next_attempt_at, created_at) VALUES ($HOOK, 0, 'comparison.completed',
		'http://127.0.0.1:$RPORT/hook', 'round-$round',
		(extract(epoch FROM clock_timestamp()) * 1000)::bigint, 'now');
		SELECT pg_notify('parity_delivery', ''); COMMIT;
		SELECT extract(epoch FROM clock_timestamp());" | tail -n 1)
	check "round $round delivered" wait_for grep -q "^round-$round " "$WORK/received"
	lat=$(awk -v t="$t" -v r="round-$round" '$1 == r { printf "%d", ($2 - t) * 1000 }' "$WORK/received")
	echo "wake-up to delivery, round $round: ${lat} ms"
	check "round $round: woken by the notification (${lat} ms < 1000)" test "${lat:-99999}" -lt 1000
done
eq "each delivery once, recorded delivered" \
	"$(q "SELECT count(*) FILTER (WHERE status = 'delivered' AND attempts = 1), count(*) FROM webhook_deliveries")" "4|4"
eq "every attempt recorded" "$(q 'SELECT count(*) FROM webhook_attempts')" 4

# gc: raw logs no log references go (one gc at a time)
q "INSERT INTO raw_blobs(sha256, bytes, zbytes, n_chunks, stored_at_ms)
   VALUES (repeat('a', 64), 10, 7, 1, 0);
   INSERT INTO raw_chunks(sha256, seq, data) VALUES (repeat('a', 64), 0, '\\x00'::bytea)"
LOCK=$((0x7061726974796763))
psql -X -q "$URL" -c "SELECT pg_advisory_lock($LOCK)" -c "SELECT pg_sleep(30)" >/dev/null 2>&1 &
HOLDER=$!
advisory_held() { test "$(q "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted")" = 1; }
check "another session holds the gc lock" wait_for advisory_held
rc=0
"$PARITY_BIN" gc --db "$URL" >"$WORK/gc1" 2>"$WORK/gc1.err" || rc=$?
eq "gc while another runs: exit status" "$rc" 2
check "gc while another runs: says so" grep -q "another gc is running" "$WORK/gc1.err"
eq "gc while another runs: the blob is kept" "$(q 'SELECT count(*) FROM raw_blobs')" 1
# the holder's backend sleeps on: end it on the server side
q "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory'" >/dev/null
wait "$HOLDER" 2>/dev/null
rc=0
"$PARITY_BIN" gc --db "$URL" --dry-run >"$WORK/gc2" 2>&1 || rc=$?
eq "gc --dry-run exit status" "$rc" 0
check "gc --dry-run counts the blob" grep -q "; 1 raw file(s), 7 bytes" "$WORK/gc2"
eq "gc --dry-run keeps it" "$(q 'SELECT count(*) FROM raw_blobs')" 1
rc=0
PARITY_DB=$URL "$PARITY_BIN" gc >"$WORK/gc3" 2>&1 || rc=$?
eq "gc exit status" "$rc" 0
check "gc reports the blob" grep -q "; 1 raw file(s), 7 bytes freed" "$WORK/gc3"
eq "gc deleted the blob and its chunks" "$(q 'SELECT (SELECT count(*) FROM raw_blobs) + (SELECT count(*) FROM raw_chunks)')" 0

# backup: pg_dump's job
rc=0
"$PARITY_BIN" backup --db "$URL" 2>"$WORK/b1" || rc=$?
eq "backup --db exit status" "$rc" 2
check "backup --db: the pg_dump hint" grep -q "use pg_dump: pg_dump -Fc 'postgresql://.*/$DBNAME' > parity.dump (restore with pg_restore into an empty database, then start parity: migrations bring it up to date)" "$WORK/b1"
check "backup --db: no password" bash -c "! grep -q '$(python3 -c 'import sys, urllib.parse as u
print(u.urlsplit(sys.argv[1]).password or "no-password-in-url")' "$URL")' '$WORK/b1'"

# revoking the token shows on both daemons
"$PARITY_BIN" token revoke ci --db "$URL" >/dev/null
eq "revoked: a write is 401 on daemon 1" "$(curl -s -o /dev/null -w '%{http_code}' "${auth[@]}" \
	-X DELETE "$A/webhooks/$HOOK")" 401
eq "revoked: the webhook is still there" "$(q 'SELECT count(*) FROM webhooks')" 1

stop 1
stop 2
eq "no claim left behind" "$(q 'SELECT count(*) FROM webhook_deliveries WHERE claimed_by IS NOT NULL')" 0
for n in 1 2; do
	check "daemon $n stopped cleanly" grep -q "stopped" "$WORK/e$n"
done

# PARITY_DB: the same, nothing left to apply
PARITY_DB=$URL serve 3
check "PARITY_DB: daemon listens" wait_for up 3
eq "PARITY_DB: /healthz" "$(curl -s "$(base 3)/healthz")" '{"status":"ok"}'
stop 3

# usage errors and an unreachable server
rc=0
"$PARITY_BIN" serve --db "$WORK/parity.db" 2>"$WORK/e4" || rc=$?
eq "--db with a path: usage error" "$rc" 2
check "--db with a path: explains" grep -q "takes a postgresql:// URL" "$WORK/e4"
rc=0
"$PARITY_BIN" serve --data "$WORK/d5" --db "postgresql://parity:s3cret-pw@127.0.0.1:1/none" 2>"$WORK/e5" || rc=$?
eq "unreachable server: exit status" "$rc" 1
check "unreachable server: named" grep -q "connecting to PostgreSQL: .*127.0.0.1.*port 1" "$WORK/e5"
check "unreachable server: no password in the message" bash -c "! grep -q s3cret-pw '$WORK/e5'"
eq "unreachable server: one line" "$(wc -l <"$WORK/e5")" 1
finish
