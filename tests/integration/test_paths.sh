#!/usr/bin/env bash
# Issue 23 F15: an encoded NUL (%00) in a path is refused with 400
# bad_path before routing (libmicrohttpd decodes the path, and the NUL
# used to end it: PUT /baselines/a%00b set "a"); an error message that
# quotes bytes which are not UTF-8 keeps its text, each bad byte
# replaced by U+FFFD (it used to become "(message not valid UTF-8)").
source "$(dirname "$0")/lib.sh"
DATA=$WORK/data
start_daemon || exit 1
R=$(curl -s -F "log=@$F/match/p4_a.log" "$BASE/runs" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')

eq "PUT /baselines/a%00b" "$(http PUT '/baselines/a%00b' --json "{\"run\":$R}")" 400
eq "bad_path code" "$(json error.code)" bad_path
eq "nothing set as a" "$(http GET /baselines/a)" 404
eq "GET /runs/1%00" "$(http GET "/runs/$R%00")" 400
eq "DELETE /runs/1%00x" "$(http DELETE "/runs/$R%00x")" 400
eq "the run is still there" "$(http GET "/runs/$R")" 200
eq "%00 in the query is not the path" "$(http GET '/runs?limit=5&x=%00')" 200
eq "PUT /baselines/a%2500b is a bad name, not a NUL" "$(http PUT '/baselines/a%2500b' --json "{\"run\":$R}")" 400
eq "a%2500b: bad_name" "$(json error.code)" bad_name

eq "invalid UTF-8 in a 404 path" "$(http GET '/nope%FF%FEx')" 404
check "the message keeps its text" python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))["error"]["message"]
assert m == "no such resource: /nope\ufffd\ufffdx", m' "$WORK/body"
eq "invalid UTF-8 in a baseline name" "$(http GET '/baselines/caf%E9')" 400
stop_daemon
finish
