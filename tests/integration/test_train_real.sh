#!/usr/bin/env bash
# test_train_real.sh - issue 13: training checks on the shapes real
# TorchTitan logs take (tests/data/train/t13_*, written by
# tests/tools/make_train13.py): loss-only runs (metric_not_logged), native
# crashes, truncated last lines, scheduler chatter, runs that crashed before
# step 1.  For every case: the CLI verdict, exit code, reasons, warning line
# and notes match the case's expected.json, through `compare` and `check`,
# text and JSON; the same case through POST /runs + POST /comparisons gives
# the same verdict, reasons and notes.  Then metric selection (metrics /
# extra_metrics / --metrics), `--format json` printing one JSON document in
# every error case, and multipart field order for `kind`.
source "$(dirname "$0")/lib.sh"
need python3 curl
FX=$F/train

# summary FILE: the comparable part of a result document (CLI or service)
summary() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d = d.get("result", d)
codes = []
for r in d["reasons"]:
    if r["code"] not in codes:
        codes.append(r["code"])
m = d.get("metrics", {})
print(d["verdict"], ",".join(codes),
      ",".join(k for k in sorted(m) if m[k].get("not_logged")),
      ",".join(sorted(n.split("(")[1].split(")")[0] for n in d.get("notes", []) if "(metric_not_logged)" in n)),
      ",".join("%s:%s" % (k, m[k]["first_over"]) for k in sorted(m)))
PY
}

# expect_case CASE JSONFILE: the CLI document against CASE's expected.json
expect_case() {
	python3 - "$FX/t13_$1.expected.json" "$2" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
d = json.load(open(sys.argv[2]))
errs = []
codes = []
for r in d["reasons"]:
    if r["code"] not in codes:
        codes.append(r["code"])
if d["verdict"] != e["verdict"]:
    errs.append("verdict %s, want %s" % (d["verdict"], e["verdict"]))
if codes != e["reason_codes"]:
    errs.append("reasons %s, want %s" % (codes, e["reason_codes"]))
m = d.get("metrics", {})
for k, v in e.get("first_over", {}).items():
    if m[k]["first_over"] != v:
        errs.append("%s first_over %s, want %s" % (k, m[k]["first_over"], v))
    r = [x for x in d["reasons"] if x["code"] == "threshold_exceeded" and x.get("metric") == k]
    if not r or r[0].get("step") != v or k not in r[0]["message"] or ("step %d" % v) not in r[0]["message"]:
        errs.append("no threshold_exceeded reason naming %s and step %s" % (k, v))
for k, v in e.get("max_abs", {}).items():
    if m[k]["max_abs_exact"] != v:
        errs.append("%s max_abs_exact %s, want %s" % (k, m[k]["max_abs_exact"], v))
for k in e.get("not_logged", []):
    if m[k].get("not_logged") is not True or m[k].get("pass") is not None:
        errs.append("%s not marked not_logged" % k)
    if not any("(metric_not_logged)" in n and n.startswith(k) for n in d["notes"]):
        errs.append("no metric_not_logged note for %s" % k)
if not e.get("not_logged") and any("metric_not_logged" in n for n in d.get("notes", [])):
    errs.append("unexpected metric_not_logged note")
w = e.get("warning")
if w:
    ws = d["warnings"][w["side"]]
    if not ws or ws[0]["code"] != w["code"] or ws[0]["line"] != w["line"] or not ws[0]["excerpt"]:
        errs.append("first %s warning %s, want %s" % (w["side"], ws[:1], w))
    r = [x for x in d["reasons"] if x["code"] == "warnings" and x.get("side") == w["side"]]
    if not r or r[0].get("line") != w["line"]:
        errs.append("warnings reason of %s does not name line %s" % (w["side"], w["line"]))
if "side" in e and d["reasons"][0].get("side") != e["side"]:
    errs.append("side %s, want %s" % (d["reasons"][0].get("side"), e["side"]))
if "message" in e and e["message"] not in d["reasons"][0]["message"]:
    errs.append("message %r lacks %r" % (d["reasons"][0]["message"], e["message"]))
if "line" in e and d["reasons"][0].get("line") != e["line"]:
    errs.append("line %s, want %s" % (d["reasons"][0].get("line"), e["line"]))
print("; ".join(errs))
sys.exit(1 if errs else 0)
PY
}

field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$FX/t13_$1.expected.json" "$2"; }

start_daemon || exit 1
upload() { # upload FILE -> run id, or "refused:CODE"
	local st
	st=$(http POST /runs -F "log=@$1")
	if [ "$st" = 201 ]; then json id; else echo "refused:$(json error.code)"; fi
}

cases=$(cd "$FX" && ls t13_*.expected.json | sed 's/^t13_//; s/\.expected\.json$//')
check "there are issue-13 cases" test -n "$cases"
for c in $cases; do
	a=$FX/$(field "$c" a)
	b=$FX/$(field "$c" b)
	want_rc=$(field "$c" exit)
	"$PARITY_BIN" compare "$a" "$b" --format json >"$WORK/$c.json" 2>"$WORK/$c.err"
	eq "$c: compare --format json exit" "$?" "$want_rc"
	check "$c: expected verdict, reasons, line, notes ($(expect_case "$c" "$WORK/$c.json" 2>&1))" \
		expect_case "$c" "$WORK/$c.json"
	"$PARITY_BIN" check "$a" "$b" --format json >"$WORK/$c.check.json" 2>/dev/null
	eq "$c: check exit" "$?" "$want_rc"
	check "$c: check gives the same document" cmp -s "$WORK/$c.json" "$WORK/$c.check.json"
	"$PARITY_BIN" compare "$a" "$b" >"$WORK/$c.txt" 2>&1
	eq "$c: text exit" "$?" "$want_rc"
	verdict=$(field "$c" verdict)
	check "$c: text names the verdict" grep -qi "$verdict" "$WORK/$c.txt"
	if grep -q metric_not_logged "$FX/t13_$c.expected.json"; then
		check "$c: text shows the note" grep -q 'metric_not_logged' "$WORK/$c.txt"
		check "$c: text marks grad_norm not logged" grep -q '^grad_norm .*not logged' "$WORK/$c.txt"
	fi
	# the service: same verdict, reasons and notes
	ra=$(upload "$a")
	rb=$(upload "$b")
	if python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1])).get("service") == "refused" else 1)' "$FX/t13_$c.expected.json"; then
		eq "$c: the service refuses the log the CLI refused" "$rb" "refused:$(field "$c" service_code)"
		continue
	fi
	st=$(http POST /comparisons --json "{\"baseline\":$ra,\"candidate\":$rb}")
	eq "$c: comparison accepted" "$st" 202
	id=$(json id)
	http GET "/comparisons/$id?wait=60" >/dev/null
	cp "$WORK/body" "$WORK/$c.svc.json"
	eq "$c: service == CLI" "$(summary "$WORK/$c.svc.json")" "$(summary "$WORK/$c.json")"
	eq "$c: comparison page" "$(http GET "/ui/comparisons/$id")" 200
	if grep -q metric_not_logged "$FX/t13_$c.expected.json"; then
		check "$c: page shows the note" grep -q 'metric_not_logged' "$WORK/body"
		check "$c: page marks grad_norm not logged" grep -q 'not logged' "$WORK/body"
	fi
	if grep -q allow_warnings_verdict "$FX/t13_$c.expected.json"; then
		"$PARITY_BIN" compare "$a" "$b" --allow-warnings --format json >"$WORK/$c.aw.json" 2>/dev/null
		eq "$c: with warnings allowed" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$WORK/$c.aw.json")" "$(field "$c" allow_warnings_verdict)"
	fi
done

# --- metric selection: metrics = the exact set, extra_metrics adds -------------
A=$(upload "$FX/t13_bf16.log")
B=$(upload "$FX/t13_bf16_again.log")
sel() { # sel JSON-FIELDS -> "verdict codes notes" of the comparison
	http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$B$1}" >/dev/null
	http GET "/comparisons/$(json id)?wait=60" >/dev/null
	python3 -c 'import json,sys
d=json.load(open(sys.argv[1]))["result"]
print(d["verdict"], ",".join(r["code"] for r in d["reasons"]), ",".join(sorted(d["metrics"])), len(d["notes"]))' "$WORK/body"
}
eq "metrics naming grad_norm: metric_missing" "$(sel ',"metrics":["loss","grad_norm"]')" "error metric_missing grad_norm,loss 1"
eq "metrics [loss]: exactly loss, no note" "$(sel ',"metrics":["loss"]')" "pass  loss 1"
eq "extra_metrics adds memory_gib" "$(sel ',"extra_metrics":["memory_gib"]')" "pass  grad_norm,loss,memory_gib 3"
eq "empty metrics refused" "$(http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$B,\"metrics\":[]}")" 400
eq "repeated metric refused" "$(http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$B,\"metrics\":[\"loss\",\"loss\"]}")" 400
"$PARITY_BIN" compare "$FX/t13_bf16.log" "$FX/t13_bf16_again.log" --metrics loss,grad_norm --format json >"$WORK/m1.json" 2>/dev/null
eq "--metrics loss,grad_norm: exit 2" "$?" 2
eq "--metrics loss,grad_norm: metric_missing" "$(summary "$WORK/m1.json")" "error metric_missing   grad_norm:None,loss:None"
"$PARITY_BIN" compare "$FX/t13_bf16.log" "$FX/t13_fp8.log" --metrics loss --format json >"$WORK/m2.json" 2>/dev/null
eq "--metrics loss on the fp8 pair: exit 1" "$?" 1
eq "--metrics loss: only loss" "$(summary "$WORK/m2.json")" "fail threshold_exceeded   loss:6"
"$PARITY_BIN" compare "$FX/t13_bf16.log" "$FX/t13_fp8.log" --metrics loss,loss >/dev/null 2>&1
eq "--metrics with a repeat: usage error" "$?" 2

# --- --format json: one JSON document on stdout whatever the error -------------
isjson() { # isjson NAME WANT_RC parity-args...: exit WANT_RC, stdout one JSON document with verdict error
	local name=$1 want=$2
	shift 2
	"$PARITY_BIN" "$@" >"$WORK/j.out" 2>/dev/null
	eq "json $name: exit" "$?" "$want"
	check "json $name: stdout is one JSON document with verdict error" python3 -c 'import json,sys
d=json.load(open(sys.argv[1])); sys.exit(0 if d["verdict"]=="error" and d["reasons"][0]["message"] else 1)' "$WORK/j.out"
}
printf 'Total captured activations: 1\n====\n\n[a/op_0_mm]\n  Output hash: 1.0\n' >"$WORK/act.log"
printf 'hello\nworld\n' >"$WORK/chatter.log"
isjson "no metric line, compare" 2 compare "$FX/t13_clean.log" "$FX/t13_no_step.log" --format json
isjson "no metric line first, compare" 2 compare "$FX/t13_no_step.log" "$FX/t13_clean.log" --format json
isjson "neither kind" 2 compare "$WORK/chatter.log" "$WORK/chatter.log" --format json
isjson "mixed kinds" 2 compare "$WORK/act.log" "$FX/t13_clean.log" --format json
isjson "missing file" 2 compare "$FX/t13_clean.log" "$WORK/nope.log" --format json
isjson "one file" 2 compare "$FX/t13_clean.log" --format json
isjson "bad training option" 2 compare "$FX/t13_clean.log" "$FX/t13_clean.log" --format=json --min-steps x
isjson "bad activation option" 2 compare "$WORK/act.log" "$WORK/act.log" --format json --policy fuzzy
isjson "check: bad option" 2 check "$FX/t13_clean.log" "$FX/t13_clean.log" --format json --threshold loss
isjson "all lines cut" 2 compare "$FX/t13_clean.log" "$FX/t13_all_cut.log" --format json
"$PARITY_BIN" compare "$FX/t13_clean.log" "$FX/t13_no_step.log" --format json >"$WORK/j.out" 2>/dev/null
eq "no metric line: the refused side" "$(json reasons.0.side "$WORK/j.out")" candidate
eq "no metric line: code" "$(json reasons.0.code "$WORK/j.out")" not_training_log
"$PARITY_BIN" compare "$WORK/act.log" "$FX/t13_clean.log" --format json >"$WORK/j.out" 2>/dev/null
eq "mixed kinds: code" "$(json reasons.0.code "$WORK/j.out")" kind_mismatch

# --- multipart: the kind field may come before or after the log -------------------
eq "kind after the log" "$(http POST /runs -F "log=@$FX/t13_clean.log" -F kind=training)" 201
eq "kind after the log: training" "$(json kind)" training
eq "kind before the log" "$(http POST /runs -F kind=training -F "log=@$FX/t13_clean.log")" 201
eq "activation log, kind=training after it" "$(http POST /runs -F "log=@$WORK/act.log" -F kind=training)" 400
eq "kind after: code" "$(json error.code)" kind_mismatch
check "kind after: message names both kinds" python3 -c 'import json,sys
m=json.load(open(sys.argv[1]))["error"]["message"]; sys.exit(0 if "training" in m and "activation" in m else 1)' "$WORK/body"
eq "activation log, kind=training before it" "$(http POST /runs -F kind=training -F "log=@$WORK/act.log")" 400
eq "kind before: code" "$(json error.code)" kind_mismatch
check "kind before: message names both kinds" python3 -c 'import json,sys
m=json.load(open(sys.argv[1]))["error"]["message"]; sys.exit(0 if "training" in m and "activation" in m else 1)' "$WORK/body"
eq "training log, kind=activation after it" "$(http POST /runs -F "log=@$FX/t13_clean.log" -F kind=activation)" 400
eq "kind=activation after: code" "$(json error.code)" kind_mismatch
check "no temp files left" no_temp_files

stop_daemon
finish
