#!/usr/bin/env bash
# test_policy_limits.sh - issue 23 F4: request documents have size limits
# and the suite document carries summaries.  A 7 MB policy (allow_only_ops
# of 540k names) is refused with 400 bad_policy naming the limit, as are
# 1001 ops, an op name over 256 bytes, a policy over 64 KiB and training
# thresholds for more than 16 metrics; a policy within every limit is
# accepted.  GET /suites/{suite} of 30 configs whose runs carry ~60 KB of
# meta and whose policy is ~60 KB stays small: each config's comparison
# names its policy ({"name"}) and its runs carry no meta (before: the
# full policy and meta of every member, ~5 MB here, 212 MB with 7 MB
# policies).
source "$(dirname "$0")/lib.sh"
need python3 curl
M=$F/match
RECV="$(dirname "$0")/receiver.py"
RECV_PID=
trap '[ -n "$RECV_PID" ] && kill "$RECV_PID" 2>/dev/null; cleanup' EXIT

start_daemon --webhook-allow-private || exit 1
python3 - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
def pol(n, size):
    return {"policy": {"name": "tolerance", "max_hash_distance": 0.01,
                       "allow_only_ops": ["op_%d_%s" % (i, "x" * size) for i in range(n)]}}
json.dump(pol(540000, 0), open(w + "/huge.json", "w"))          # ~7 MB
json.dump(pol(1001, 0), open(w + "/many.json", "w"))            # 1001 ops
json.dump(pol(1, 300), open(w + "/long.json", "w"))             # a 300-byte op
json.dump(pol(600, 120), open(w + "/big.json", "w"))            # ~76 KB
json.dump(pol(230, 240), open(w + "/ok.json", "w"))             # ~57 KB, within
json.dump({"k%d" % i: "v" * 900 for i in range(64)}, open(w + "/meta.json", "w"))  # ~60 KB
print(len(open(w + "/huge.json").read()) // 1000000, file=open(w + "/huge.mb", "w"))
PY
eq "the huge policy is ~7 MB" "$(cat "$WORK/huge.mb")" 7
http POST /runs -F "log=@$M/p1_a.log" -F "meta=<$WORK/meta.json" >/dev/null
A=$(json id)
http POST /runs -F "log=@$M/p1_b.log" -F "meta=<$WORK/meta.json" >/dev/null
B=$(json id)
check "runs uploaded with meta" test -n "$A" -a -n "$B"

# post FILE [extra JSON members]: POST /comparisons with FILE's policy
post() {
	python3 - "$1" "$A" "$B" "${2:-}" >"$WORK/req.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d.update({"baseline": int(sys.argv[2]), "candidate": int(sys.argv[3])})
if sys.argv[4]:
    d.update(json.loads(sys.argv[4]))
json.dump(d, sys.stdout)
PY
	http POST /comparisons -H 'Content-Type: application/json' --data-binary "@$WORK/req.json"
}
eq "7 MB policy: 400" "$(post "$WORK/huge.json")" 400
eq "7 MB policy: bad_policy" "$(json error.code)" bad_policy
check "7 MB policy: the limit named" grep -q '65536 bytes' "$WORK/body"
eq "1001 ops: 400" "$(post "$WORK/many.json")" 400
check "1001 ops: the limit named" grep -q 'at most 1000 op names' "$WORK/body"
eq "300-byte op: 400" "$(post "$WORK/long.json")" 400
check "300-byte op: the limit named" grep -q 'at most 256 bytes' "$WORK/body"
eq "76 KB policy: 400 bad_policy" "$(post "$WORK/big.json")/$(json error.code)" 400/bad_policy
check "76 KB policy: the limit named" grep -q 'at most 65536 bytes' "$WORK/body"
eq "57 KB policy: accepted" "$(post "$WORK/ok.json")" 202

# training: thresholds for at most 16 metrics
http POST /runs -F "log=@$F/train/t13_bf16.log" >/dev/null
TA=$(json id)
http POST /runs -F "log=@$F/train/t13_bf16_again.log" >/dev/null
TB=$(json id)
TH=$(python3 -c 'import json; print(json.dumps({"m%d" % i: 1e-5 for i in range(17)}))')
eq "17 thresholds: 400 bad_policy" "$(http POST /comparisons --json "{\"baseline\":$TA,\"candidate\":$TB,\"thresholds\":$TH}")/$(json error.code)" 400/bad_policy
check "17 thresholds: the limit named" grep -q 'at most 16 metrics' "$WORK/body"
BIGTP=$(python3 -c 'import json; print(json.dumps({"name": "custom", "thresholds": {"loss": 1e-5}, "metrics": ["loss"], "x": "y" * 70000}))')
eq "70 KB training policy: 400 bad_policy" "$(http POST /comparisons --json "{\"baseline\":$TA,\"candidate\":$TB,\"policy\":$BIGTP}")/$(json error.code)" 400/bad_policy

# the suite document and the suite.completed payload: summaries
python3 "$RECV" --port 0 --port-file "$WORK/recv.port" --log "$WORK/recv.jsonl" &
RECV_PID=$!
wait_for test -s "$WORK/recv.port" || bad "receiver did not start"
eq "suite webhook" "$(http POST /webhooks --json "{\"url\":\"http://127.0.0.1:$(cat "$WORK/recv.port")/h\",\"secret\":\"s\",\"events\":[\"suite.completed\"]}")" 201
for i in $(seq 1 30); do
	post "$WORK/ok.json" "{\"suite\":\"big\",\"config\":\"c$i\",\"suite_size\":30}" >/dev/null
done
for _ in $(seq 1 120); do
	http GET /suites/big >/dev/null
	[ "$(json complete)" = true ] && break
	sleep 0.5
done
eq "suite complete, 30 configs" "$(json complete) $(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["configs"]))' "$WORK/body")" "true 30"
size=$(wc -c <"$WORK/body")
check "suite document is small (${size} bytes < 64000)" test "$size" -lt 64000
eq "suite: the policy's name" "$(json configs.0.comparison.policy.name)" tolerance
eq "suite: no meta in runs" "$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["configs"][0]["comparison"]; print("meta" in c["runs"]["baseline"], c["runs"]["baseline"]["id"])' "$WORK/body")" "False $A"
received() { [ -s "$WORK/recv.jsonl" ]; }
wait_for received || bad "suite.completed not received"
eq "suite.completed: small, no meta" "$(python3 -c 'import json,sys; b=json.loads(open(sys.argv[1]).readline())["body"]; d=json.loads(b); print(d["event"], len(d["configs"]), len(b) < 64000, "meta" in d["configs"][0]["comparison"]["runs"]["candidate"])' "$WORK/recv.jsonl")" "suite.completed 30 True False"
# the comparison itself still has the full policy and meta
ID=$(json configs.0.comparison.id)
http GET "/comparisons/$ID" >/dev/null
eq "comparison: full policy" "$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(len(c["policy"]["allow_only_ops"]), len(c["runs"]["baseline"]["meta"]))' "$WORK/body")" "230 64"
finish
