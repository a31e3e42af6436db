#!/usr/bin/env bash
# Issue 16, "done when": the premerge CI script end to end.  Two golden
# baselines (one per config), an email subscription to suite.completed, then
# exactly what a CI job runs: two `parity submit --suite pr-1 --config
# fsdp|tp --baseline-name ... --promote-on-pass` calls with commit and env
# metadata.  Checked: one suite verdict (fail: tp diverges), one suite PDF
# (pdftotext: both configs, both verdicts), exactly one email naming both
# configs with that PDF attached, the passing config promoted in its
# baseline's history (the failing one not), and the fsdp comparison's PDF
# holding the verdict, both commits, the env versions and a Chinese
# comparison name.
source "$(dirname "$0")/lib.sh"
SINK="$(dirname "$0")/smtp_sink.py"
SINK_PID=
trap '[ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null; cleanup' EXIT
need python3 curl pdftotext
DATA=$WORK/data
T=$F/train
MAIL=$WORK/mail
mkdir -p "$MAIL"

SINK_PORT=$(python3 "$SINK" --free-port)
python3 "$SINK" --dir "$MAIL" --port "$SINK_PORT" --port-file "$WORK/sink.port" &
SINK_PID=$!
wait_for test -s "$WORK/sink.port" || bad "sink did not start"

TOKEN=$("$PARITY_BIN" token create --name ci-bot $(store_args))
start_daemon --require-tokens --smtp-url "smtp://127.0.0.1:$SINK_PORT" \
	--mail-from parity@ci.example --public-url http://parity.example || exit 1
AUTH=(-H "Authorization: Bearer $TOKEN")

upload() { # upload FILE NAME META -> run id
	curl -s "${AUTH[@]}" -F "log=@$1" -F "name=$2" -F "meta=$3" "$BASE/runs" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}
GOLD=$(upload "$T/q1_a.log" main-nightly '{"commit":"base0c0ffee","env":{"torch":"2.3.1","cuda":"12.4"}}')
for cfg in fsdp tp; do
	eq "baseline $cfg" "$(http PUT "/baselines/main/llama3-$cfg" "${AUTH[@]}" --json "{\"run\":$GOLD}")" 200
done
eq "suite email subscription" "$(http POST /webhooks "${AUTH[@]}" \
	--json '{"format":"email","to":["team@example.com"],"events":["suite.completed"]}')" 201
HOOK=$(json id)

# --- the CI script ------------------------------------------------------------------------
status=()
for cfg in fsdp tp; do
	log=$T/q1_a.log # fsdp: identical to the baseline -> pass
	[ $cfg == tp ] && log=$T/q2_b.log # tp: diverges -> fail
	rc=0
	"$PARITY_BIN" submit --server "$BASE" --token "$TOKEN" --baseline-name "main/llama3-$cfg" \
		--promote-on-pass --suite pr-1 --config $cfg --suite-size 2 --name "训练运行 $cfg" \
		--meta commit=cand0beef --meta branch=pr-1 --meta env.torch=2.4.0 --meta env.cuda=12.4 \
		--candidate "$log" --json >"$WORK/submit_$cfg.json" 2>"$WORK/submit_$cfg.err" || rc=$?
	status+=("$rc")
done
eq "submit exit statuses (fsdp pass, tp fail)" "${status[*]}" "0 1"
FSDP=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["id"])' "$WORK/submit_fsdp.json")

# --- one suite verdict -----------------------------------------------------------------------
eq "suite" "$(http GET /suites/pr-1)" 200
eq "suite verdict" "$(json verdict)" fail
eq "suite configs" "$(json configs.0.config),$(json configs.1.config)" fsdp,tp
eq "suite complete" "$(json complete)" true

# --- one suite PDF ---------------------------------------------------------------------------
code=$(curl -s -o "$WORK/suite.pdf" -w '%{http_code}' "$BASE/suites/pr-1/report.pdf")
eq "suite pdf" "$code" 200
pdftotext -layout "$WORK/suite.pdf" "$WORK/suite.txt"
check "suite pdf names the suite" grep -q 'pr-1' "$WORK/suite.txt"
check "suite pdf has fsdp" grep -q 'fsdp' "$WORK/suite.txt"
check "suite pdf has tp" grep -qw 'tp' "$WORK/suite.txt"
check "suite pdf has both verdicts" bash -c 'grep -qi "pass" "$1" && grep -qi "fail" "$1"' _ "$WORK/suite.txt"

# --- one email with both configs --------------------------------------------------------------
n_mails() { find "$MAIL" -name 'msg-*.eml' | wc -l; }
delivered() {
	http GET "/webhooks/$HOOK/deliveries" "${AUTH[@]}" >/dev/null
	[ "$(json deliveries.0.status)" == delivered ]
}
wait_for delivered || bad "suite email not delivered"
sleep 1 # a second (wrong) suite email would have been queued with the first
eq "exactly one email" "$(n_mails)" 1
MSG=$(ls "$MAIL"/msg-*.eml | head -n 1)
python3 - "$MSG" "$WORK/mail.pdf" >"$WORK/parse.out" 2>&1 <<'PY'
import email, sys
from email import policy
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=policy.default)
html = m.get_body(("html",)).get_content()
ok = "Config fsdp" in html and "Config tp" in html and m["X-Parity-Event"] == "suite.completed"
pdf = [p for p in m.walk() if p.get_filename() == "report.pdf"]
ok &= len(pdf) == 1
if pdf:
    open(sys.argv[2], "wb").write(pdf[0].get_payload(decode=True))
print("checked", "ok" if ok else "bad")
PY
check "email names both configs and attaches the PDF: $(cat "$WORK/parse.out")" grep -qx 'checked ok' "$WORK/parse.out"
pdftotext -layout "$WORK/mail.pdf" "$WORK/mail.txt" 2>/dev/null
check "the attached PDF is the suite report" bash -c 'grep -q fsdp "$1" && grep -qw tp "$1" && grep -q pr-1 "$1"' _ "$WORK/mail.txt"

# --- promotion in the history -----------------------------------------------------------------
eq "fsdp baseline" "$(http GET /baselines/main/llama3-fsdp)" 200
eq "fsdp promoted" "$(json changes)" 2
eq "fsdp promoted by its comparison" "$(json history.1.comparison)" "$FSDP"
eq "fsdp promoted by the token" "$(json history.1.token)" ci-bot
eq "tp baseline" "$(http GET /baselines/main/llama3-tp)" 200
eq "tp not promoted" "$(json changes),$(json run)" "1,$GOLD"

# --- the fsdp comparison's PDF ---------------------------------------------------------------
code=$(curl -s -o "$WORK/fsdp.pdf" -w '%{http_code}' "$BASE/comparisons/$FSDP/report.pdf")
eq "comparison pdf" "$code" 200
pdftotext -layout "$WORK/fsdp.pdf" "$WORK/fsdp.txt"
for want in base0c0ffee cand0beef 2.3.1 2.4.0 grad_norm loss '训练运行 fsdp'; do
	check "comparison pdf has '$want'" grep -q "$want" "$WORK/fsdp.txt"
done
check "comparison pdf has the verdict" grep -qi 'pass' "$WORK/fsdp.txt"
finish
