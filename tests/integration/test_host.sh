#!/usr/bin/env bash
# Issue 23 F14 (DNS rebinding): the daemon answers only a Host that names
# it (loopback names, the listen address, --public-url's host,
# --allowed-hosts); any other Host, or none on HTTP/1.1, gets 421
# misdirected_request (JSON) before routing, so a rebinding page
# (evil.example resolving to 127.0.0.1) neither reads nor writes, even
# with a matching Origin.  F15: the same-origin rule compares the scheme
# (http unless --public-url is https) and refuses leading-zero ports.
source "$(dirname "$0")/lib.sh"
DATA=$WORK/data
BODY='{"baseline":1,"candidate":1}'

raw() { # raw REQUEST-TEXT: the status line's code of a hand-written request
	python3 - "$(cat "$WORK/port")" "$1" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
data = b""
while b"\r\n" not in data:
    chunk = s.recv(4096)
    if not chunk:
        break
    data += chunk
print(data.split(b" ")[1].decode() if data else "none")
EOF
}

start_daemon || exit 1
P=$(cat "$WORK/port")
eq "Host 127.0.0.1" "$(http GET /healthz)" 200
eq "Host localhost" "$(http GET /runs -H "Host: localhost:$P")" 200
eq "Host [::1]" "$(http GET /runs -H "Host: [::1]:$P")" 200
eq "Host 127.1.2.3" "$(http GET /runs -H "Host: 127.1.2.3:$P")" 200
eq "foreign Host" "$(http GET /runs -H "Host: evil.example:$P")" 421
eq "421 code" "$(json error.code)" misdirected_request
check "421 names the Host" grep -q "evil.example" "$WORK/body"
eq "foreign Host on a route that does not exist" "$(http GET /nope -H "Host: evil.example")" 421
eq "localhost as a suffix" "$(http GET /runs -H "Host: localhost.evil.example:$P")" 421
eq "a rebinding write with its own Origin" "$(http POST /comparisons -H "Host: evil.example:$P" \
	-H "Origin: http://evil.example:$P" --json "$BODY")" 421
eq "a rebinding upload" "$(http POST /runs -H "Host: evil.example:$P" -F "log=@$F/match/p4_a.log")" 421
http GET /runs >/dev/null
eq "nothing stored" "$(json runs)" "[]"
eq "HTTP/1.1 without Host" "$(raw 'GET /healthz HTTP/1.1\r\n\r\n')" 421
eq "HTTP/1.0 without Host" "$(raw 'GET /healthz HTTP/1.0\r\n\r\n')" 200
eq "HTTP/1.1 with an empty Host" "$(raw 'GET /healthz HTTP/1.1\r\nHost: \r\n\r\n')" 421
eq "the refusal is counted" "$(curl -s "$BASE/metrics" | grep -c 'status="421"')" 1
# the same-origin rule: scheme and port spelled as a browser does
eq "same origin" "$(http POST /comparisons -H "Origin: http://127.0.0.1:$P" --json "$BODY")" 400
eq "https origin on an http daemon" "$(http POST /comparisons -H "Origin: https://127.0.0.1:$P" --json "$BODY")" 403
eq "leading-zero port" "$(http POST /comparisons -H "Origin: http://127.0.0.1:0$P" --json "$BODY")" 403
stop_daemon

# --- --public-url and --allowed-hosts -----------------------------------------------------
start_daemon --public-url https://parity.example.org --allowed-hosts ci.internal,Other.Example || exit 1
eq "public-url host" "$(http GET /runs -H 'Host: parity.example.org')" 200
eq "allowed host" "$(http GET /runs -H 'Host: ci.internal:8080')" 200
eq "allowed host, any case" "$(http GET /runs -H 'Host: other.example')" 200
eq "loopback still" "$(http GET /runs)" 200
eq "other host" "$(http GET /runs -H 'Host: parity.example.org.evil')" 421
eq "proxied write from the public origin" "$(http POST /comparisons -H 'Host: parity.example.org' \
	-H 'Origin: https://parity.example.org' --json "$BODY")" 400
eq "public origin over http" "$(http POST /comparisons -H 'Host: parity.example.org' \
	-H 'Origin: http://parity.example.org' --json "$BODY")" 403
stop_daemon
"$PARITY_BIN" serve --data "$DATA" --allowed-hosts 'a.example:80' >/dev/null 2>"$WORK/err"
eq "--allowed-hosts takes no ports" "$?" 2
check "help names the flag" bash -c '"$1" serve --help-all | grep -q -- --allowed-hosts' _ "$PARITY_BIN"

finish
