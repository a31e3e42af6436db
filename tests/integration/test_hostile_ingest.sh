#!/usr/bin/env bash
# Issue 23, hostile clients round 3, what the daemon takes in:
#  - F11: a multipart body without its closing boundary is 400
#    bad_multipart naming the missing boundary (an HTML page for a form
#    post), and nothing is stored: no run, no log, no raw file, no temp
#    file (it used to be stored with its last bytes dropped); the same
#    body with its boundary is stored byte for byte; a multipart
#    comparison request without it is refused too.
#  - F12: JSON a client sends nests at most 32 levels: run meta of depth
#    33 is 400 bad_meta on a multipart and on a raw upload (depth 32 is
#    stored), a comparison request, a baseline PUT and a webhook of depth
#    33 are 400 bad_json, and nothing is stored.
#  - F9: a TensorBoard event file whose tag is not UTF-8 is stored with
#    the tag repaired (U+FFFD per bad byte) on both backends, so its
#    steps read back (they were 500 "out of memory" on SQLite); on SQLite
#    such bytes already stored by an older version read back repaired.
# Event files come from tests/tools/gen_tfevents (PARITY_GEN_TFEVENTS).
source "$(dirname "$0")/lib.sh"
need python3 curl
GEN=${PARITY_GEN_TFEVENTS:?PARITY_GEN_TFEVENTS not set}

printf '1 2.5\n2 2.25\n3 2.0\n4 1.75\n' >"$WORK/loss.txt"
start_daemon || exit 1

# stored: "runs logs raw-files" (raw files exist on SQLite only)
stored() {
	local raw=0
	[ "$PARITY_BACKEND" = pg ] || raw=$(find "$DATA/raw" -type f 2>/dev/null | wc -l)
	echo "$(db_sql 'SELECT count(*) FROM runs') $(db_sql 'SELECT count(*) FROM logs') $raw"
}

# body OUT [closing] [meta]: a multipart body with a log part (and a meta
# field), ended by its closing boundary when closing=1
body() {
	python3 - "$@" "$WORK/loss.txt" <<'PY'
import sys
out, closing, meta, log = sys.argv[1], sys.argv[2] == "1", sys.argv[3], sys.argv[4]
b = b""
if meta:
    b += (b'--BOUNDARY\r\nContent-Disposition: form-data; name="meta"\r\n\r\n'
          + meta.encode() + b"\r\n")
b += (b'--BOUNDARY\r\nContent-Disposition: form-data; name="log"; filename="loss.txt"\r\n'
      b"Content-Type: text/plain\r\n\r\n" + open(log, "rb").read())
if closing:
    b += b"\r\n--BOUNDARY--\r\n"
open(out, "wb").write(b)
PY
}
MP=(-H 'Content-Type: multipart/form-data; boundary=BOUNDARY')

# refused WHAT CODE TEXT METHOD URL curl-args...: 400 with that error
# code and TEXT in its message
refused() {
	local what=$1 code=$2 text=$3
	shift 3
	eq "$what: 400" "$(http "$@")" 400
	eq "$what: code" "$(json error.code)" "$code"
	check "$what: the message says '$text'" grep -q "$text" "$WORK/body"
}

# ---- F11: the closing boundary ----------------------------------------------
body "$WORK/closed" 1 ""
st=$(http POST /runs "${MP[@]}" --data-binary "@$WORK/closed")
eq "multipart with its closing boundary: 201 ($(head -c 200 "$WORK/body"))" "$st" 201
id=$(json id)
http GET "/runs/$id/logs/0" >/dev/null
check "the stored log is the part, byte for byte" cmp -s "$WORK/body" "$WORK/loss.txt"
before=$(stored)
body "$WORK/open" 0 ""
refused "multipart without its closing boundary" bad_multipart 'closing boundary' \
	POST /runs "${MP[@]}" --data-binary "@$WORK/open"
# the body ends inside the closing boundary, and after a part's headers
head -c -4 "$WORK/closed" >"$WORK/cut"
eq "multipart cut inside its closing boundary: 400" \
	"$(http POST /runs "${MP[@]}" --data-binary "@$WORK/cut")" 400
body "$WORK/cut2b" 0 ""
printf '\r\n--BOUNDARY\r\nContent-Disposition: form-data; name="name"\r\n' >>"$WORK/cut2b"
eq "multipart cut after a part's headers: 400" \
	"$(http POST /runs "${MP[@]}" --data-binary "@$WORK/cut2b")" 400
# a form post gets the HTML error page
st=$(http POST "/runs?html=1" "${MP[@]}" --data-binary "@$WORK/open")
eq "form post without the closing boundary: 400" "$st" 400
check "... an HTML page naming the closing boundary" python3 -c 'import sys; t=open(sys.argv[1]).read(); sys.exit(not ("<!doctype html" in t.lower() and "closing boundary" in t))' "$WORK/body"
eq "nothing stored by the refused uploads (runs logs raw files)" "$(stored)" "$before"
check "no temp files left" wait_for no_temp_files
# a multipart comparison request without its closing boundary
printf -- '--BOUNDARY\r\nContent-Disposition: form-data; name="baseline"\r\n\r\n%s\r\n--BOUNDARY\r\nContent-Disposition: form-data; name="candidate"\r\n\r\n%s' \
	"$id" "$id" >"$WORK/cmp_open"
refused "comparison form without its closing boundary" bad_multipart 'closing boundary' \
	POST /comparisons "${MP[@]}" --data-binary "@$WORK/cmp_open"
eq "... no comparison" "$(db_sql 'SELECT count(*) FROM comparisons')" 0

# ---- F12: JSON depth ----------------------------------------------------------
# nest N: {"a":{"a":...{"a":1}...}} with N objects
nest() { python3 -c 'import sys; n=int(sys.argv[1]); print("{\"a\":"*n + "1" + "}"*n)' "$1"; }
# qnest N: the same %-encoded for a query string
qnest() { nest "$1" | python3 -c 'import sys,urllib.parse; print(urllib.parse.quote(sys.stdin.read().strip()))'; }
before=$(stored)
body "$WORK/deep" 1 "$(nest 33)"
refused "multipart meta of depth 33" bad_meta 'deeper than 32' \
	POST /runs "${MP[@]}" --data-binary "@$WORK/deep"
refused "raw upload, meta of depth 33" bad_meta 'deeper than 32' \
	POST "/runs?kind=training&meta=$(qnest 33)" --data-binary "@$WORK/loss.txt"
eq "nothing stored by deep meta" "$(stored)" "$before"
check "no temp files left" wait_for no_temp_files
body "$WORK/deep32" 1 "$(nest 32)"
st=$(http POST /runs "${MP[@]}" --data-binary "@$WORK/deep32")
eq "multipart meta of depth 32: 201" "$st" 201
st=$(http POST "/runs?kind=training&meta=$(qnest 32)" --data-binary "@$WORK/loss.txt")
eq "raw upload, meta of depth 32: 201" "$st" 201
cand=$(json id)
# request documents
deep_policy=$(python3 -c 'import json; d=1
for _ in range(32): d={"a":d}
print(json.dumps({"baseline":1,"candidate":2,"policy":d}))')
JS=(-H 'Content-Type: application/json')
refused "comparison request of depth 33" bad_json 'deeper than 32' \
	POST /comparisons "${JS[@]}" --data-binary "$deep_policy"
eq "... no comparison" "$(db_sql 'SELECT count(*) FROM comparisons')" 0
deep_note=$(python3 -c 'import json; d=1
for _ in range(32): d=[d]
print(json.dumps({"run":1,"note":d}))')
refused "baseline PUT of depth 33" bad_json 'deeper than 32' \
	PUT /baselines/deep "${JS[@]}" --data-binary "$deep_note"
eq "... no baseline" "$(db_sql 'SELECT count(*) FROM baselines')" 0
deep_hook=$(python3 -c 'import json; d=1
for _ in range(32): d={"x":d}
print(json.dumps({"url":"http://127.0.0.1:9/h","events":d}))')
refused "webhook of depth 33" bad_json 'deeper than 32' \
	POST /webhooks "${JS[@]}" --data-binary "$deep_hook"
eq "... no webhook" "$(db_sql 'SELECT count(*) FROM webhooks')" 0

# ---- F9: a tag that is not UTF-8 ------------------------------------------------
"$GEN" "$WORK/events.bad" --steps 5 --bad-utf8-tag || bad "gen_tfevents --bad-utf8-tag"
st=$(http POST "/runs?name=badtag&filename=events.out.tfevents.1.host" --data-binary "@$WORK/events.bad")
eq "event file with a tag that is not UTF-8: 201 ($(head -c 200 "$WORK/body"))" "$st" 201
tf=$(json id)
st=$(http GET "/runs/$tf/steps")
eq "its steps: 200 ($(head -c 200 "$WORK/body"))" "$st" 200
got=$(python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))
names=sorted({k for s in d["steps"] for k in s.get("metrics",s) if k not in ("step","rank","line","validation")})
print(" ".join(names))' "$WORK/body")
check "... the tag shown with U+FFFD ($got)" python3 -c 'import sys; sys.exit(not ("grad\ufffd\ufffdnorm" in sys.argv[1]))' "$got"
eq "... the steps page again: 200" "$(http GET "/runs/$tf/steps?limit=2")" 200
eq "... the run page: 200" "$(http GET "/ui/runs/$tf")" 200
# a run an older SQLite store kept with the bytes as sent reads back
# repaired too (PostgreSQL never held such bytes: a UTF8 database refuses
# them)
if [ "$PARITY_BACKEND" = sqlite ]; then
	"$GEN" "$WORK/events.ok" --steps 5 || bad "gen_tfevents"
	http POST "/runs?name=oldtag&filename=events.out.tfevents.2.host" --data-binary "@$WORK/events.ok" >/dev/null
	old=$(json id)
	db_sql "UPDATE step_metrics SET name = CAST(X'67726164FF6E6F726D' AS TEXT) WHERE name = 'grad_norm'
		AND step_id IN (SELECT s.id FROM steps s JOIN logs l ON l.id = s.log_id WHERE l.run_id = $old)"
	eq "old bytes that are not UTF-8: steps 200" "$(http GET "/runs/$old/steps")" 200
	check "... shown with U+FFFD" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(not any("grad\ufffdnorm" in s["metrics"] for s in d["steps"]))' "$WORK/body"
fi

stop_daemon
finish
