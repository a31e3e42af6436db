#!/usr/bin/env bash
# Issue 16, golden baselines, suites and run metadata against a real
# daemon: PUT/GET /baselines/{name} with slashes, history with the token
# name; bad names 400, unknown baseline 404, auth (401 without a token);
# `parity submit --baseline-name --promote-on-pass` promotes on pass (in
# the history) and not on fail; --meta dotted keys nest, --meta-file
# merges; the comparison page's metadata table highlights differing keys
# and escapes values; a suite over two configs gives the worst verdict;
# suite.completed reaches a receiver exactly once; the /ui pages render.
source "$(dirname "$0")/lib.sh"
RECV="$(dirname "$0")/receiver.py"
RECV_PID=
trap '[ -n "$RECV_PID" ] && kill "$RECV_PID" 2>/dev/null; cleanup' EXIT
DATA=$WORK/data
T=$F/train

TOKEN=$("$PARITY_BIN" token create --name ci-bot $(store_args))
start_daemon --require-tokens --webhook-allow-private --webhook-retry-base-ms 200 || exit 1
AUTH=(-H "Authorization: Bearer $TOKEN")
S=(--server "$BASE" --token "$TOKEN")

upload() { # upload FILE NAME [META] -> run id
	curl -s "${AUTH[@]}" -F "log=@$1" -F "name=$2" ${3:+-F "meta=$3"} "$BASE/runs" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}
R1=$(upload "$T/q1_a.log" golden '{"commit":"aaaa1111","env":{"torch":"2.3"}}')
R2=$(upload "$T/q1_a.log" other '{"commit":"bbbb2222","model":"<img src=x>","seed":1}')

# --- PUT / GET --------------------------------------------------------------------------
eq "put without a token" "$(http PUT /baselines/main/llama3-8b-fsdp --json "{\"run\":$R1}")" 401
eq "put" "$(http PUT /baselines/main/llama3-8b-fsdp "${AUTH[@]}" --json "{\"run\":$R1,\"note\":\"first <b>\"}")" 200
eq "put answers the run" "$(json run)" "$R1"
eq "history token name" "$(json history.0.token)" ci-bot
eq "history note" "$(json history.0.note)" "first <b>"
eq "get with slashes" "$(http GET /baselines/main/llama3-8b-fsdp)" 200
eq "get name" "$(json name)" main/llama3-8b-fsdp
eq "get trailing slash" "$(http GET /baselines/main/llama3-8b-fsdp/)" 200
eq "put unknown run" "$(http PUT /baselines/x "${AUTH[@]}" --json '{"run":999}')" 400
eq "put bad body" "$(http PUT /baselines/x "${AUTH[@]}" --json '{"run":"1"}')" 400
eq "put unknown field" "$(http PUT /baselines/x "${AUTH[@]}" --json "{\"run\":$R1,\"x\":1}")" 400
eq "put cross-origin" "$(http PUT /baselines/x "${AUTH[@]}" -H 'Origin: http://evil.example' --json "{\"run\":$R1}")" 403
eq "put not json content type" "$(http PUT /baselines/x "${AUTH[@]}" -H 'Content-Type: text/plain' --data "{\"run\":$R1}")" 415
for badname in 'a//b' '.hidden' 'a/.b' 'a//' 'sp%20ace' 'q%3Fx' "$(printf 'n%.0s' $(seq 1 201))"; do
	eq "bad name '$badname'" "$(http PUT "/baselines/$badname" "${AUTH[@]}" --json "{\"run\":$R1}")" 400
done
eq "bad name error shape" "$(json error.code)" bad_name
eq "get unknown" "$(http GET /baselines/nope/nope)" 404
eq "list" "$(http GET '/baselines?limit=1')" 200
eq "list item" "$(json baselines.0.name)" main/llama3-8b-fsdp
eq "list without history" "$(json baselines.0.history)" null
eq "list bad cursor" "$(http GET '/baselines?cursor=zz')" 400
eq "run of a baseline is not deletable" "$(http DELETE "/runs/$R1" "${AUTH[@]}")" 409

# --- comparisons by baseline name ------------------------------------------------------------
eq "unknown baseline_name" "$(http POST /comparisons "${AUTH[@]}" --json "{\"baseline_name\":\"no/such\",\"candidate\":$R2}")" 404
eq "unknown baseline_name code" "$(json error.code)" unknown_baseline
eq "baseline and baseline_name" "$(http POST /comparisons "${AUTH[@]}" --json "{\"baseline\":$R1,\"baseline_name\":\"main/llama3-8b-fsdp\",\"candidate\":$R2}")" 400
eq "bad suite label" "$(http POST /comparisons "${AUTH[@]}" --json "{\"baseline\":$R1,\"candidate\":$R2,\"suite\":\"a/b\"}")" 400
eq "config without suite" "$(http POST /comparisons "${AUTH[@]}" --json "{\"baseline\":$R1,\"candidate\":$R2,\"config\":\"tp\"}")" 400
eq "by name" "$(http POST /comparisons "${AUTH[@]}" --json "{\"baseline_name\":\"main/llama3-8b-fsdp\",\"candidate\":$R2}")" 202
eq "resolved to the run" "$(json baseline)" "$R1"
eq "name recorded" "$(json baseline_name)" main/llama3-8b-fsdp
CID=$(json id)
http GET "/comparisons/$CID?wait=60" >/dev/null
eq "comparison passes" "$(json verdict)" pass
# the metadata table: differing keys marked, values escaped
http GET "/ui/comparisons/$CID" >/dev/null
check "meta table" grep -q '<table class="kv meta" id="meta">' "$WORK/body"
check "commit differs" grep -q '<tr class="differs"><th>commit</th><td>aaaa1111</td><td>bbbb2222</td>' "$WORK/body"
check "nested key flattened, one side" grep -q '<tr class="differs"><th>env.torch</th><td>2.3</td><td class="missing">' "$WORK/body"
check "meta values escaped" grep -q '<td>&lt;img src=x&gt;</td>' "$WORK/body"
check "no raw markup from meta" bash -c '! grep -q "<img src=x>" "$1"' _ "$WORK/body"
check "labels line links the baseline" grep -q '<p class="labels" id="labels">Golden baseline <a href="/ui/baselines/main/llama3-8b-fsdp">' "$WORK/body"
eq "served report" "$(http GET "/comparisons/$CID/report.html")" 200
check "report has the meta table" grep -q 'id="meta"' "$WORK/body"

# --- parity submit: meta, promote on pass ------------------------------------------------------
cat >"$WORK/reproduce.json" <<'JSON'
{"reproduce": "torchrun --nproc 8 train.py <cfg>", "env": {"cann": "8.0", "device_count": 8}}
JSON
"$PARITY_BIN" submit "${S[@]}" --baseline-name main/llama3-8b-fsdp --promote-on-pass \
	--candidate "$T/q1_a.log" --meta commit=cccc3333 env.torch=2.4 --meta-file "$WORK/reproduce.json" \
	--json >"$WORK/sub1.json" 2>"$WORK/sub1.err"
eq "submit pass exit" "$?" 0
P1=$(json id "$WORK/sub1.json")
C1=$(json candidate "$WORK/sub1.json")
eq "meta dotted key nests" "$(json runs.candidate.meta.env.torch "$WORK/sub1.json")" 2.4
eq "meta file merged" "$(json runs.candidate.meta.env.cann "$WORK/sub1.json")" 8.0
eq "meta file non-string kept" "$(json runs.candidate.meta.env.device_count "$WORK/sub1.json")" 8
http GET /baselines/main/llama3-8b-fsdp >/dev/null
eq "promoted: current run" "$(json run)" "$C1"
eq "promoted: history length" "$(json changes)" 2
eq "promoted: history run" "$(json history.1.run)" "$C1"
eq "promoted: by comparison" "$(json history.1.comparison)" "$P1"
eq "promoted: token" "$(json history.1.token)" ci-bot
# a failing candidate is compared against the new baseline and not promoted
"$PARITY_BIN" submit "${S[@]}" --baseline-name main/llama3-8b-fsdp --promote-on-pass \
	--candidate "$T/q2_b.log" --meta commit=dddd4444 >"$WORK/sub2.out" 2>&1
eq "submit fail exit" "$?" 1
FAILED=$(sed -n 's/^parity: FAIL: comparison \([0-9]*\).*/\1/p' "$WORK/sub2.out")
http GET /baselines/main/llama3-8b-fsdp >/dev/null
eq "fail: not promoted" "$(json run)" "$C1"
eq "fail: history unchanged" "$(json changes)" 2
# a promotion must name a passed comparison against that name
eq "promotion of a failed comparison" "$(http PUT /baselines/main/llama3-8b-fsdp "${AUTH[@]}" --json "{\"run\":$R2,\"comparison\":$FAILED}")" 409
eq "promotion of another run" "$(http PUT /baselines/main/llama3-8b-fsdp "${AUTH[@]}" --json "{\"run\":$R1,\"comparison\":$P1}")" 409
eq "promotion of a missing comparison" "$(http PUT /baselines/main/llama3-8b-fsdp "${AUTH[@]}" --json "{\"run\":$R1,\"comparison\":99999}")" 400
"$PARITY_BIN" submit "${S[@]}" --baseline-name no/such --candidate "$T/q1_a.log" >/dev/null 2>"$WORK/sub3.err"
eq "submit unknown baseline exit" "$?" 3
"$PARITY_BIN" submit "${S[@]}" --baseline-run "$R1" --promote-on-pass --candidate "$T/q1_a.log" >/dev/null 2>&1
eq "promote needs baseline-name" "$?" 2
echo '[1]' >"$WORK/notobj.json"
"$PARITY_BIN" submit "${S[@]}" --baseline-run "$R1" --meta-file "$WORK/notobj.json" --candidate "$T/q1_a.log" >/dev/null 2>"$WORK/sub4.err"
eq "meta file not an object" "$?" 2
"$PARITY_BIN" submit "${S[@]}" --baseline-run "$R1" --meta a=1 a.b=2 --candidate "$T/q1_a.log" >/dev/null 2>&1
eq "meta key clash" "$?" 2

# --- history page -------------------------------------------------------------------------------
eq "history page" "$(http GET /ui/baselines/main/llama3-8b-fsdp)" 200
check "history table" grep -q 'id="history"' "$WORK/body"
check "note escaped" grep -q 'first &lt;b&gt;' "$WORK/body"
check "comparisons listed" grep -q "href=\"/ui/comparisons/$P1\"" "$WORK/body"
check "drift chart" grep -q 'id="drift"><figure class="chart"><svg' "$WORK/body"
check "commit shown" grep -q '<code>dddd4444</code>' "$WORK/body"
eq "history page unknown" "$(http GET /ui/baselines/no/such)" 404
eq "history page bad name" "$(http GET /ui/baselines/a//b)" 400

# --- suites and suite.completed -------------------------------------------------------------------
python3 "$RECV" --port 0 --port-file "$WORK/recv.port" --log "$WORK/recv.jsonl" &
RECV_PID=$!
wait_for test -s "$WORK/recv.port" || bad "receiver did not start"
eq "suite webhook" "$(http POST /webhooks "${AUTH[@]}" --json "{\"url\":\"http://127.0.0.1:$(cat "$WORK/recv.port")/h\",\"secret\":\"s\",\"events\":[\"suite.completed\"]}")" 201
eq "suite unknown" "$(http GET /suites/pr-1)" 404
for cfg in fsdp tp; do
	log=$T/q1_a.log
	[ $cfg == tp ] && log=$T/q2_b.log
	"$PARITY_BIN" submit "${S[@]}" --baseline-name main/llama3-8b-fsdp --suite pr-1 --config $cfg --suite-size 2 \
		--candidate "$log" >/dev/null 2>&1
done
eq "suite" "$(http GET /suites/pr-1)" 200
eq "suite worst verdict" "$(json verdict)" fail
eq "suite configs" "$(json configs.0.config),$(json configs.1.config)" fsdp,tp
eq "suite config verdicts" "$(json configs.0.comparison.verdict),$(json configs.1.comparison.verdict)" pass,fail
eq "suite pending" "$(json pending)" 0
eq "suite complete" "$(json complete)" true
eq "suite expected configs" "$(json expected_configs)" 2
received_suite() { [ -s "$WORK/recv.jsonl" ]; }
wait_for received_suite || bad "suite.completed not received"
# the first config's comparison finished before the second was filed:
# suite_size 2 held the event back until both were done.  Once the
# webhook's deliveries settle, still exactly one request arrived.
settled() { http GET /webhooks/1/deliveries >/dev/null && [ "$(json deliveries.0.status)" == delivered ]; }
wait_for settled || bad "suite delivery not settled"
eq "one suite delivery" "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["deliveries"]))' "$WORK/body")" 1
eq "suite.completed received once" "$(wc -l <"$WORK/recv.jsonl")" 1
eq "suite.completed event" "$(python3 -c 'import json,sys; print(json.loads(json.loads(open(sys.argv[1]).readline())["body"])["event"])' "$WORK/recv.jsonl")" suite.completed
eq "suite.completed verdict" "$(python3 -c 'import json,sys; print(json.loads(json.loads(open(sys.argv[1]).readline())["body"])["verdict"])' "$WORK/recv.jsonl")" fail
eq "suite page" "$(http GET /ui/suites/pr-1)" 200
check "suite matrix rows" grep -q '<tr><th>fsdp</th>' "$WORK/body"
check "suite matrix tp" grep -q '<tr><th>tp</th>' "$WORK/body"
eq "suite page unknown" "$(http GET /ui/suites/nope)" 404
eq "suite bad label" "$(http GET "/suites/$(printf 's%.0s' $(seq 1 101))")" 400
eq "bad suite_size" "$(http POST /comparisons "${AUTH[@]}" --json "{\"baseline\":$R1,\"candidate\":$R2,\"suite\":\"s\",\"suite_size\":0}")" 400

stop_daemon
finish
