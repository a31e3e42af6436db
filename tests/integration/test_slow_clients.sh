#!/usr/bin/env bash
# Hostile clients, bounded (every client below stops on its own within
# seconds, loopback only):
#   - 4 uploads trickling 1 byte a second (from 4 addresses: one address
#     holds at most half of the slots) hold every ingest slot: they are
#     cut at the end of their first --min-upload-window although no byte
#     arrives to wake the daemon, nothing of them is stored, and a normal
#     upload, waiting for a slot meanwhile, gets in within window + 5 s;
#   - a connection that stalls or trickles its headers is closed at
#     --header-timeout, and an idle keep-alive connection too;
#   - a chunked body over --max-upload (and over the JSON limit, and after
#     an early error) is answered at once with its JSON error and the
#     connection closed: the client could send only a fraction of it;
#   - --max-per-ip 2: a third connection from the address is closed
#     unanswered, a new one works once one of the two is gone;
#   - a multipart upload of many logs holds one temp fd at a time: 300 logs
#     go in under a 128-fd limit, 2000 get 400 too_many_logs (not 507).
source "$(dirname "$0")/lib.sh"
WINDOW=3
HEADER_TIMEOUT=3
start_daemon --max-ingests 4 --min-upload-rate 4K --min-upload-window $WINDOW \
	--header-timeout $HEADER_TIMEOUT --max-upload 1M || exit 1
PORT=$(cat "$WORK/port")
metric() { curl -s "$BASE/metrics" | awk -v k="$1" '$1 == k {print $2}'; }
now() { date +%s.%N; }
# elapsed START: seconds since START (from now), one decimal
elapsed() { python3 -c 'import sys; print("%.1f" % (float(sys.argv[2]) - float(sys.argv[1])))' "$1" "$(now)"; }
# le A B: A <= B (decimals)
le() { python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) else 1)' "$1" "$2"; }

# --- (a) trickling uploads hold every ingest slot, then are cut --------------
trickle() { # NAME FROM: an upload from address FROM that sends 1 byte a second for at most 30 s
	python3 - "$PORT" "$1" "$2" <<'PY'
import select, socket, sys, time
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), source_address=(sys.argv[3], 0))
s.sendall(b'POST /runs?name=%s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n'
          % sys.argv[2].encode())
s.sendall(b'Total captured activations: 1\n')
t0 = time.time()
try:
    while time.time() - t0 < 30:
        r, _, _ = select.select([s], [], [], 1.0)
        if r and s.recv(4096) == b'':
            raise ConnectionResetError('closed by the server')
        s.sendall(b'#')
    print('not cut off')
except OSError:
    print('cut off after %.1f s' % (time.time() - t0))
PY
}
T0=$(now)
for i in 1 2 3 4; do
	trickle "slow$i" "127.0.0.1$i" >"$WORK/slow$i.out" 2>&1 &
	eval "SLOW$i=\$!"
done
all_slots() { [ "$(metric parity_uploads_in_progress)" = 4 ]; }
check "4 trickling uploads hold every ingest slot" wait_for all_slots
eq "a normal upload meanwhile waits for a slot and gets in" \
	"$(http POST '/runs?name=normal' --data-binary "@$F/match/p4_a.log")" 201
t=$(elapsed "$T0")
check "normal upload kept out ${t}s <= window $WINDOW + 5 s" le "$t" $((WINDOW + 5))
wait "$SLOW1" "$SLOW2" "$SLOW3" "$SLOW4"
for i in 1 2 3 4; do
	out=$(cat "$WORK/slow$i.out")
	check "trickler $i cut off at the window ($out)" grep -qE 'cut off after [2-8]\.' "$WORK/slow$i.out"
done
eq "nothing stored from the trickling uploads" "$(db_sql "select count(*) from runs where name like 'slow%'")" 0
eq "the normal upload is stored" "$(db_sql "select count(*) from runs where name = 'normal'")" 1
check "trickling uploads' temp files removed" wait_for no_temp_files
eq "slots free again" "$(metric parity_uploads_in_progress)" 0
eq "cuts counted" "$(metric 'parity_connections_cut_total{reason="too_slow"}')" 4
check "access log names the cut" grep -q '"terminated":"too_slow"' "$WORK/daemon.err"

# a body that keeps the rate is not cut, however long it takes: 8 KiB/s
# (twice the minimum) for 2 windows, then the rest at once
python3 "$G/gen_trainlog.py" --steps 600 --scenario identical --out-a "$WORK/steady.log" --out-b "$WORK/steady_b.log" >/dev/null
python3 - "$PORT" "$WORK/steady.log" >"$WORK/steady.out" 2>&1 <<'PY'
import socket, sys, time
body = open(sys.argv[2], 'rb').read()
assert len(body) > 40000, len(body)
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
s.sendall(b'POST /runs?name=steady HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n\r\n' % len(body))
t0, sent = time.time(), 0
while time.time() - t0 < 6.5:   # 8 KiB/s on average, whatever the sleeps do
    due = min(len(body), 2048 + int(8192 * (time.time() - t0)))
    s.sendall(body[sent:due])
    sent = due
    time.sleep(0.1)
s.sendall(body[sent:])
s.settimeout(10)
print(s.recv(65536).split(b'\r\n', 1)[0].decode())
PY
check "an upload at twice the minimum rate for 2 windows is not cut ($(head -c 80 "$WORK/steady.out"))" grep -q '^HTTP/1.1 201' "$WORK/steady.out"
eq "cuts unchanged by the steady upload" "$(metric 'parity_connections_cut_total{reason="too_slow"}')" 4

# --- (b) headers: stalled, trickled, and an idle keep-alive connection -------
headers() { # MODE: stall | trickle | keepalive; prints how the connection ended
	python3 - "$PORT" "$1" <<'PY'
import select, socket, sys, time
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])))
mode = sys.argv[2]
if mode == 'keepalive':
    s.sendall(b'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
    first = s.recv(65536)
    assert first.startswith(b'HTTP/1.1 200'), first
else:
    s.sendall(b'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n')
t0, got = time.time(), b''
try:
    while time.time() - t0 < 15:
        r, _, _ = select.select([s], [], [], 0.5)
        if r:
            d = s.recv(4096)
            if d == b'':
                break
            got += d
        elif mode == 'trickle':
            s.sendall(b'X-Slow-Header: aaaa\r\n'[:3])
    else:
        print('still open after 15 s')
        sys.exit()
except OSError:
    pass
print('closed after %.1f s%s' % (time.time() - t0, ', answered' if got else ''))
PY
}
matches() { [[ $1 =~ $2 ]]; }
for mode in stall trickle keepalive; do
	out=$(headers $mode)
	check "headers ($mode): closed at the header deadline, unanswered ($out)" \
		matches "$out" '^closed after [2-6]\.[0-9] s$'
done
check "header cuts counted" le 3 "$(metric 'parity_connections_cut_total{reason="header_timeout"}')"
eq "daemon still answers" "$(http GET /healthz)" 200

# --- (c) chunked bodies over the limit: answered at once, connection closed --
chunked() { # PATH BODY_MIB: sends a chunked body; prints status, code, bytes sent, seconds
	python3 - "$PORT" "$1" "$2" <<'PY'
import json, socket, sys, time
port, path, total = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]) << 20
s = socket.create_connection(('127.0.0.1', port))
s.sendall(b'POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n'
          b'Transfer-Encoding: chunked\r\n\r\n' % path.encode())
chunk = b'%x\r\n' % 65536 + b'{' * 65536 + b'\r\n'
s.settimeout(20)
t0, sent = time.time(), 0
try:
    while sent < total:
        sent += s.send(chunk)
    s.sendall(b'0\r\n\r\n')
except OSError:
    pass
resp = b''
try:
    while True:
        d = s.recv(65536)
        if not d:
            break
        resp += d
except OSError:
    pass
head, _, body = resp.partition(b'\r\n\r\n')
status = head.split(b' ')[1].decode() if head.startswith(b'HTTP/1.1 ') else 'none'
try:
    code = json.loads(body)['error']['code']
except Exception:
    code = 'none'
close = b'connection: close' in head.lower()
print(status, code, sent, '%.1f' % (time.time() - t0), 'close' if close else 'keep')
PY
}
read -r st code sent secs conn <<<"$(chunked /runs 256)"
eq "chunked upload over --max-upload: status" "$st" 413
eq "chunked upload over --max-upload: JSON error" "$code" too_large
eq "chunked upload over --max-upload: Connection: close" "$conn" close
check "chunked upload over --max-upload: only $sent of 256 MiB accepted" le "$sent" $((64 << 20))
check "chunked upload over --max-upload: answered in ${secs}s" le "$secs" 10
read -r st code sent secs conn <<<"$(chunked /comparisons 256)"
eq "chunked JSON body over 8 MiB: status" "$st" 413
eq "chunked JSON body over 8 MiB: JSON error" "$code" too_large
check "chunked JSON body over 8 MiB: only $sent of 256 MiB accepted" le "$sent" $((64 << 20))
read -r st code sent secs conn <<<"$(chunked /nope 256)"
eq "chunked body after an early error: status" "$st" 404
eq "chunked body after an early error: JSON error" "$code" not_found
check "chunked body after an early error: only $sent of 256 MiB drained" le "$sent" $((64 << 20))
check "early answers counted" le 3 "$(metric 'parity_connections_cut_total{reason="answered_early"}')"
check "no temp files after the refused uploads" wait_for no_temp_files
# a small body after an early error is still drained and answered with keep-alive
eq "small body after an early error" "$(http POST /nope -d '{}')" 404
stop_daemon

# --- (e) --max-per-ip 2 on loopback ---------------------------------------------
start_daemon --max-per-ip 2 || exit 1
PORT=$(cat "$WORK/port")
python3 - "$PORT" >"$WORK/perip.out" 2>&1 <<'PY'
import socket, sys, time
port = int(sys.argv[1])
def healthz(s):
    s.settimeout(5)
    try:
        s.sendall(b'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
        return s.recv(65536)
    except OSError:
        return b''
a = socket.create_connection(('127.0.0.1', port))
b = socket.create_connection(('127.0.0.1', port))
print('first two answered:', healthz(a).startswith(b'HTTP/1.1 200') and healthz(b).startswith(b'HTTP/1.1 200'))
c = socket.create_connection(('127.0.0.1', port))
print('third answered:', healthz(c) != b'')
a.close()
t0 = time.time()
while time.time() - t0 < 10:
    d = socket.create_connection(('127.0.0.1', port))
    if healthz(d).startswith(b'HTTP/1.1 200'):
        print('new connection after closing one: answered')
        break
    d.close()
    time.sleep(0.1)
PY
check "per-ip: two connections answered" grep -qx 'first two answered: True' "$WORK/perip.out"
check "per-ip: the third is closed unanswered" grep -qx 'third answered: False' "$WORK/perip.out"
check "per-ip: a new one works once one closed" grep -qx 'new connection after closing one: answered' "$WORK/perip.out"
stop_daemon

# --- (d) many multipart logs: one temp fd at a time -----------------------------
multipart() { # N OUT: a multipart body with N copies of a log as ranks 0..N-1
	python3 - "$1" "$F/match/p4_a.log" "$2" <<'PY'
import sys
n, log, out = int(sys.argv[1]), open(sys.argv[2], 'rb').read(), sys.argv[3]
with open(out, 'wb') as f:
    for i in range(n):
        f.write(b'--BOUNDARY\r\nContent-Disposition: form-data; name="log"; '
                b'filename="rank_%d_activations.log"\r\n'
                b'Content-Type: text/plain\r\n\r\n' % i + log + b'\r\n')
    f.write(b'--BOUNDARY\r\nContent-Disposition: form-data; name="name"\r\n\r\nmany\r\n'
            b'--BOUNDARY--\r\n')
PY
}
multipart 300 "$WORK/mp300"
multipart 2000 "$WORK/mp2000"
old_nofile=$(ulimit -Sn)
ulimit -Sn 128 # the daemon inherits it: 300 open temp files would not fit
start_daemon --max-upload 8M || exit 1
ulimit -Sn "$old_nofile"
fds() { find "/proc/$DAEMON_PID/fd" -mindepth 1 -maxdepth 1 | wc -l; }
eq "daemon under the fd limit answers" "$(http GET /healthz)" 200
fd_before=$(fds)
st=$(http POST /runs -H 'Content-Type: multipart/form-data; boundary=BOUNDARY' --data-binary "@$WORK/mp300")
eq "300 logs in one upload under a 128-fd limit: status ($(head -c 200 "$WORK/body"))" "$st" 201
eq "300 logs stored" "$(json logs | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')" 300
st=$(http POST /runs -H 'Content-Type: multipart/form-data; boundary=BOUNDARY' --data-binary "@$WORK/mp2000")
eq "2000 logs in one upload: status" "$st" 400
eq "2000 logs in one upload: error" "$(json error.code)" too_many_logs
check "no temp files left" wait_for no_temp_files
fd_after=$(fds)
check "fds back to where they were ($fd_before before, $fd_after after)" le "$fd_after" $((fd_before + 8))
stop_daemon
finish
