#!/usr/bin/env bash
# test_deploy.sh - checks for the files in deploy/, in the integration-test
# environment (PARITY_BIN = built binary, PARITY_SRC = source tree):
#   1. systemd-analyze verify accepts parity.service (on a copy whose
#      ExecStart points at PARITY_BIN: verify insists the binary exists);
#   2. the daemon accepts parity.env's settings: started with them (listen
#      address and data directory swapped for a free loopback port and a
#      temporary directory) it answers GET /healthz with 200
#      {"status":"ok"} and exits 0 on SIGTERM;
#   3. install.sh --destdir installs binary, unit (ExecStart rewritten to
#      the prefix), docs and env file; a second run changes nothing; an
#      existing env file is never overwritten; --dry-run touches nothing;
#   4. nginx -t accepts nginx-parity.conf (with a throwaway self-signed
#      certificate), when nginx is installed;
#   5. deploy/postgres: compose.yaml sets only settings `parity serve`
#      knows (PARITY_DB and PARITY_JOB_LEASE among them), and nginx -t
#      accepts its nginx.conf.
# A step whose tool is missing fails the test naming the tool; only with
# PARITY_ALLOW_SKIP=1 (never in CI) it exits 77, a skip ctest shows.
set -euo pipefail

: "${PARITY_BIN:?set PARITY_BIN to the built parity binary}"
src=${PARITY_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
deploy=$src/deploy
tmp=$(mktemp -d)
daemon_pid=
cleanup() {
	if [ -n "$daemon_pid" ]; then
		kill "$daemon_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
ok() {
	echo "ok: $*"
}
skip() {
	if [ "${PARITY_ALLOW_SKIP:-0}" = 1 ]; then
		echo "SKIP: $*"
		exit 77
	fi
	fail "$* (deploy/dev.sh installs it; PARITY_ALLOW_SKIP=1 skips visibly)"
}

# ---- 1. systemd unit ---------------------------------------------------
if command -v systemd-analyze >/dev/null; then
	bin_abs=$(readlink -f "$PARITY_BIN")
	sed "s#^ExecStart=/usr/local/bin/parity #ExecStart=$bin_abs #" \
		"$deploy/parity.service" >"$tmp/parity.service"
	grep -q "^ExecStart=$bin_abs serve" "$tmp/parity.service" ||
		fail "ExecStart line not found in parity.service"
	# verify prints problems but may still exit 0 for some: any output fails
	if ! out=$(systemd-analyze verify "$tmp/parity.service" 2>&1) || [ -n "$out" ]; then
		echo "$out" >&2
		fail "systemd-analyze verify parity.service"
	fi
	ok "systemd-analyze verify"
	for key in User=parity StateDirectory=parity ProtectSystem=strict ProtectHome=yes \
		NoNewPrivileges=yes PrivateTmp=yes Restart=on-failure; do
		grep -qx "$key" "$deploy/parity.service" || fail "parity.service lacks $key"
	done
	grep -q '^RestrictAddressFamilies=' "$deploy/parity.service" || fail "no RestrictAddressFamilies"
	grep -q '^MemoryMax=' "$deploy/parity.service" || fail "no MemoryMax"
	ok "unit hardening settings present"
else
	skip "systemd-analyze not installed"
fi

# ---- 2. the env file against the real daemon ---------------------------
if command -v curl >/dev/null; then
	mkdir -p "$tmp/data"
	(
		# systemd EnvironmentFile= syntax: KEY=value lines, # comments
		while IFS= read -r line; do
			case $line in '' | '#'*) continue ;; esac
			export "${line?}"
		done <"$deploy/parity.env"
		export PARITY_LISTEN=127.0.0.1:0 PARITY_DATA=$tmp/data
		exec "$PARITY_BIN" serve >"$tmp/serve.out" 2>"$tmp/serve.err"
	) &
	daemon_pid=$!
	port=
	for _ in $(seq 1 300); do
		port=$(sed -n 's/^PORT=//p' "$tmp/serve.out" 2>/dev/null | head -n 1 || true)
		[ -n "$port" ] && break
		kill -0 "$daemon_pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -z "$port" ]; then
		cat "$tmp/serve.err" >&2
		fail "daemon did not start with parity.env's settings"
	fi
	body=$(curl -sS -w ' %{http_code}' "http://127.0.0.1:$port/healthz")
	case $body in
	*'"status"'*'"ok"'*' 200') ;;
	*) fail "GET /healthz gave: $body" ;;
	esac
	[ -f "$tmp/data/parity.db" ] || fail "no parity.db in the data directory"
	kill -TERM "$daemon_pid"
	rc=0
	wait "$daemon_pid" || rc=$?
	daemon_pid=
	[ $rc -eq 0 ] || fail "daemon exited $rc on SIGTERM"
	ok "daemon runs with parity.env, /healthz 200, SIGTERM exits 0"
else
	skip "curl not installed"
fi

# ---- 3. installer ------------------------------------------------------
stage=$tmp/stage
"$deploy/install.sh" --destdir "$stage" --prefix /opt/parity --binary "$PARITY_BIN" \
	>"$tmp/install1.out" || fail "install.sh (first run)"
for f in opt/parity/bin/parity etc/systemd/system/parity.service etc/parity/parity.env \
	opt/parity/share/doc/parity/deploy-README.md; do
	[ -f "$stage/$f" ] || fail "install.sh did not install /$f"
done
[ -x "$stage/opt/parity/bin/parity" ] || fail "installed binary not executable"
grep -qx 'ExecStart=/opt/parity/bin/parity serve' "$stage/etc/systemd/system/parity.service" ||
	fail "installed unit's ExecStart not rewritten to the prefix"
cmp -s "$deploy/parity.env" "$stage/etc/parity/parity.env" || fail "env file differs"
echo "# local edit" >>"$stage/etc/parity/parity.env"
"$deploy/install.sh" --destdir "$stage" --prefix /opt/parity --binary "$PARITY_BIN" \
	>"$tmp/install2.out" || fail "install.sh (second run)"
grep -q 'everything already up to date' "$tmp/install2.out" || {
	cat "$tmp/install2.out" >&2
	fail "second install.sh run changed something"
}
grep -q '^# local edit$' "$stage/etc/parity/parity.env" || fail "install.sh overwrote the env file"
"$deploy/install.sh" --dry-run --destdir "$tmp/dry" --binary "$PARITY_BIN" >"$tmp/dry.out" ||
	fail "install.sh --dry-run"
[ ! -e "$tmp/dry" ] || fail "install.sh --dry-run created files"
grep -q '^+ install ' "$tmp/dry.out" || fail "install.sh --dry-run printed no commands"
if "$deploy/install.sh" --bogus >/dev/null 2>&1; then
	fail "install.sh accepted an unknown option"
fi
ok "install.sh: installs, idempotent, keeps env edits, dry run"

# ---- 4. nginx ----------------------------------------------------------
nginx_bin=$(command -v nginx || true)
[ -n "$nginx_bin" ] || [ ! -x /usr/sbin/nginx ] || nginx_bin=/usr/sbin/nginx
if [ -n "$nginx_bin" ] && command -v openssl >/dev/null; then
	mkdir -p "$tmp/nginx"
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=parity.example.org \
		-keyout "$tmp/nginx/key.pem" -out "$tmp/nginx/cert.pem" >/dev/null 2>&1 ||
		fail "openssl could not make a test certificate"
	sed -e "s#/etc/letsencrypt/live/parity.example.org/fullchain.pem#$tmp/nginx/cert.pem#" \
		-e "s#/etc/letsencrypt/live/parity.example.org/privkey.pem#$tmp/nginx/key.pem#" \
		"$deploy/nginx-parity.conf" >"$tmp/nginx/parity.conf"
	cat >"$tmp/nginx/nginx.conf" <<EOF
error_log $tmp/nginx/error.log;
pid $tmp/nginx/nginx.pid;
events {}
http {
	access_log off;
	client_body_temp_path $tmp/nginx/body;
	proxy_temp_path $tmp/nginx/proxy;
	fastcgi_temp_path $tmp/nginx/fastcgi;
	uwsgi_temp_path $tmp/nginx/uwsgi;
	scgi_temp_path $tmp/nginx/scgi;
	include $tmp/nginx/parity.conf;
}
EOF
	if ! "$nginx_bin" -t -p "$tmp/nginx" -c "$tmp/nginx/nginx.conf" >"$tmp/nginx/t.out" 2>&1; then
		cat "$tmp/nginx/t.out" >&2
		fail "nginx -t rejects nginx-parity.conf"
	fi
	ok "nginx -t accepts nginx-parity.conf"
else
	skip "nginx (or openssl) not installed"
fi

# ---- 5. deploy/postgres (two daemons, PostgreSQL, nginx) ------------------
# every PARITY_* setting of compose.yaml is one `parity serve` knows
# (PARITY_DB_PASSWORD is compose's own variable, in the URL)
settings=$(grep -o '^ *PARITY_[A-Z_]*:' "$deploy/postgres/compose.yaml" | tr -d ' :' | sort -u)
[ -n "$settings" ] || fail "no PARITY_* settings found in postgres/compose.yaml"
help=$("$PARITY_BIN" serve --help-all 2>&1)
for v in $settings; do
	grep -q "\[$v[]=]" <<<"$help" || fail "postgres/compose.yaml sets $v, which parity serve --help does not list"
done
for v in PARITY_DB PARITY_JOB_LEASE PARITY_DATA; do
	grep -qx "$v" <<<"$settings" || fail "postgres/compose.yaml does not set $v"
done
ok "postgres/compose.yaml: $(echo $settings | wc -w) settings, all known to parity serve"
if [ -n "$nginx_bin" ]; then
	# the compose service names resolve inside compose only
	mkdir -p "$tmp/pgnginx"
	sed -e 's/server parity-[ab]:8080/server 127.0.0.1:8080/' \
		-e "s#/dev/stdout#$tmp/pgnginx/access.log#; s#/dev/stderr#$tmp/pgnginx/error.log#" \
		"$deploy/postgres/nginx.conf" >"$tmp/pgnginx/nginx.conf"
	if ! "$nginx_bin" -t -p "$tmp/pgnginx" -c "$tmp/pgnginx/nginx.conf" \
		-g "pid $tmp/pgnginx/nginx.pid; error_log $tmp/pgnginx/error.log;" >"$tmp/pgnginx/t.out" 2>&1; then
		cat "$tmp/pgnginx/t.out" >&2
		fail "nginx -t rejects postgres/nginx.conf"
	fi
	ok "nginx -t accepts postgres/nginx.conf"
fi

echo "test_deploy: all checks passed"
