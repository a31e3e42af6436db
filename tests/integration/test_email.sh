#!/usr/bin/env bash
# Issue 16, email subscriptions through a local SMTP sink (smtp_sink.py):
# creation is validated (addresses, count, CR/LF, url/secret/to misuse,
# no --smtp-url) and masks recipients for anonymous readers; with the sink
# down a delivery is a failed attempt with libcurl's error and is retried,
# then delivered once the sink comes up; the message parses (Python's
# email package): From/To/Subject with the verdict, a Chinese comparison
# name with CRLF encoded (RFC 2047) without adding a header, Date and
# Message-ID, 76-column base64, cid: images that exist as parts,
# report.pdf, the steps CSV and both raw logs attached (byte-identical
# once gunzipped); with a tiny --mail-attach-max the logs are linked; an
# SMTP 550 is final after one attempt; a suite of two configs sends
# exactly one suite.completed email naming both.
source "$(dirname "$0")/lib.sh"
SINK="$(dirname "$0")/smtp_sink.py"
SINK_PID=
trap '[ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null; cleanup' EXIT
need python3 curl
DATA=$WORK/data
T=$F/train
MAIL=$WORK/mail
mkdir -p "$MAIL"

SINK_PORT=$(python3 "$SINK" --free-port)
start_sink() { # start_sink [--reject ADDR]
	rm -f "$WORK/sink.port"
	python3 "$SINK" --dir "$MAIL" --port "$SINK_PORT" --port-file "$WORK/sink.port" "$@" &
	SINK_PID=$!
	wait_for test -s "$WORK/sink.port" || bad "sink did not start"
}
stop_sink() {
	kill "$SINK_PID" 2>/dev/null
	wait "$SINK_PID" 2>/dev/null
	SINK_PID=
}
MAILFLAGS=(--smtp-url "smtp://127.0.0.1:$SINK_PORT" --mail-from parity@ci.example
	--public-url http://parity.example --webhook-retry-base-ms 300)

# --- configuration ------------------------------------------------------------------
"$PARITY_BIN" serve --data "$DATA" --smtp-url "smtp://127.0.0.1:$SINK_PORT" >/dev/null 2>"$WORK/cfg.err"
eq "smtp-url needs mail-from" "$?" 2
check "says so" grep -q 'needs --mail-from' "$WORK/cfg.err"
"$PARITY_BIN" serve --data "$DATA" --smtp-url "http://x" --mail-from a@b.c >/dev/null 2>&1
eq "smtp-url scheme" "$?" 2
"$PARITY_BIN" serve --data "$DATA" --smtp-url "smtp://u:pw@x:25" --mail-from a@b.c >/dev/null 2>&1
eq "no credentials in the url" "$?" 2
"$PARITY_BIN" serve --data "$DATA" --smtp-url "smtp://x:25" --mail-from 'a@b.c>' >/dev/null 2>&1
eq "mail-from validated" "$?" 2
"$PARITY_BIN" serve --help-all | grep -q -- '--mail-attach-max'
eq "help lists the mail flags" "$?" 0

# a daemon without --smtp-url refuses email subscriptions
start_daemon || exit 1
eq "no smtp" "$(http POST /webhooks --json '{"format":"email","to":["a@example.com"]}')" 400
eq "no smtp code" "$(json error.code)" mail_not_configured
stop_daemon

start_daemon "${MAILFLAGS[@]}" || exit 1
upload() { # upload FILE NAME [META] -> run id
	curl -s -F "log=@$1" -F "name=$2" ${3:+-F "meta=$3"} "$BASE/runs" |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'
}
hook() { # hook JSON -> webhook id (expects 201)
	local st
	st=$(http POST /webhooks --json "$1")
	[ "$st" == 201 ] || bad "create webhook $1: $st $(cat "$WORK/body")"
	json id
}
delivery_field() { http GET "/webhooks/$1/deliveries" -H "Authorization: Bearer $TOKEN" >/dev/null; json "deliveries.0.$2"; }
delivery_is() { [ "$(delivery_field "$1" status)" == "$2" ]; }
attempts_at_least() { [ "$(delivery_field "$1" attempts)" -ge "$2" ] 2>/dev/null; }
n_mails() { find "$MAIL" -name 'msg-*.eml' | wc -l; }
mails_at_least() { [ "$(n_mails)" -ge "$1" ]; }
TOKEN=$("$PARITY_BIN" token create --name mailer $(store_args))

# --- validation ---------------------------------------------------------------------
v() { http POST /webhooks --json "$1"; }
eq "to missing" "$(v '{"format":"email"}')" 400
eq "to empty" "$(v '{"format":"email","to":[]}')" 400
eq "to not an array" "$(v '{"format":"email","to":"a@example.com"}')" 400
eq "to with CRLF" "$(v '{"format":"email","to":["a@example.com\r\nBcc: evil@example.com"]}')" 400
check "CRLF address not echoed" bash -c '! grep -q "evil" "$1"' _ "$WORK/body"
eq "to with LF" "$(v '{"format":"email","to":["a@example.com\nX: y"]}')" 400
eq "display name" "$(v '{"format":"email","to":["Ann <a@example.com>"]}')" 400
eq "no domain" "$(v '{"format":"email","to":["a@"]}')" 400
eq "two @" "$(v '{"format":"email","to":["a@b@example.com"]}')" 400
eq "double dot" "$(v '{"format":"email","to":["a..b@example.com"]}')" 400
eq "NUL" "$(v '{"format":"email","to":["a\u0000@example.com"]}')" 400
many=$(python3 -c 'import json; print(json.dumps(["u%d@example.com" % i for i in range(21)]))')
eq "too many" "$(v "{\"format\":\"email\",\"to\":$many}")" 400
eq "url with email" "$(v '{"format":"email","to":["a@example.com"],"url":"http://x/"}')" 400
eq "secret with email" "$(v '{"format":"email","to":["a@example.com"],"secret":"s"}')" 400
eq "to on generic" "$(v '{"url":"http://127.0.0.1:9/h","secret":"s","to":["a@example.com"]}')" 400
eq "error shape" "$(json error.code)" bad_parameter

H1=$(hook '{"format":"email","to":["dev@example.com","Lead.Dev+ci@example.org","DEV@example.com"]}')
eq "format" "$(json format)" email
eq "anonymous sees masked recipients" "$(json to)" '["***@example.com", "***@example.org"]'
eq "anonymous sees no url" "$(json url)" '***'
http GET /webhooks -H "Authorization: Bearer $TOKEN" >/dev/null
eq "token holder sees recipients (duplicates collapsed)" "$(json webhooks.0.to)" '["dev@example.com", "Lead.Dev+ci@example.org"]'
eq "url is mailto" "$(json webhooks.0.url)" 'mailto:dev@example.com,Lead.Dev+ci@example.org'
http GET /webhooks >/dev/null
eq "list masks for anonymous" "$(json webhooks.0.to)" '["***@example.com", "***@example.org"]'

# --- sink down: failed attempts, then delivered -----------------------------------------
A=$(upload "$T/q1_a.log" "golden base" '{"commit":"aaaa1111","env":{"torch":"2.3"}}')
B=$(upload "$T/q2_b.log" "cand <b>" '{"commit":"bbbb2222"}')
NAME=$'训练 run\r\nBcc: evil@example.com'
http POST /comparisons --json "$(python3 -c 'import json,sys; print(json.dumps({"baseline":int(sys.argv[1]),"candidate":int(sys.argv[2]),"name":sys.argv[3]}))' "$A" "$B" "$NAME")" >/dev/null
C1=$(json id)
http GET "/comparisons/$C1?wait=60" >/dev/null
eq "comparison fails" "$(json verdict)" fail
wait_for attempts_at_least "$H1" 2 || bad "no retried attempts while the sink is down"
eq "still pending" "$(delivery_field "$H1" status)" pending
check "curl error recorded" bash -c 'grep -q "SMTP: .*\(onnect\|refused\)" "$1"' _ "$WORK/body"
eq "no http status" "$(json deliveries.0.attempt_log.0.http_status)" null
start_sink
wait_for delivery_is "$H1" delivered || bad "not delivered once the sink is up: $(cat "$WORK/body")"
wait_for mails_at_least 1 || bad "no message saved"
MSG=$(ls "$MAIL"/msg-*.eml | head -n 1)

python3 - "$MSG" "${MSG%.eml}.json" "$T/q1_a.log" "$T/q2_b.log" "$NAME" >"$WORK/parse.out" 2>&1 <<'PY'
import email, gzip, json, re, sys
from email import policy
raw = open(sys.argv[1], "rb").read()
env = json.load(open(sys.argv[2]))
fails = []
def check(what, ok):
    if not ok:
        fails.append(what)
m = email.message_from_bytes(raw, policy=policy.default)
head = raw.split(b"\r\n\r\n", 1)[0]
check("every line CRLF", b"\n" not in raw.replace(b"\r\n", b""))
check("no line over 998", all(len(l) <= 998 for l in raw.split(b"\r\n")))
check("header lines ASCII", all(b < 128 for b in head))
names = [l.split(b":")[0] for l in head.split(b"\r\n") if l and l[0] not in b" \t"]
check("no injected Bcc header: %r" % names, b"Bcc" not in names)
check("From", m["From"] == "parity@ci.example")
check("To", m["To"] == "dev@example.com, Lead.Dev+ci@example.org")
check("envelope from", env["from"] == "<parity@ci.example>")
check("envelope to %r" % env["to"], env["to"] == ["<dev@example.com>", "<Lead.Dev+ci@example.org>"])
subj = str(m["Subject"])
check("subject verdict %r" % subj, subj.startswith("[parity] FAIL: comparison "))
check("subject keeps the Chinese name %r" % subj, "训练 run" in subj)
check("subject has no CR/LF", "\r" not in subj and "\n" not in subj)
check("subject encoded", b"=?UTF-8?B?" in head)
check("Date", re.match(r"^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d \+0000$", str(m["Date"])))
check("Message-ID", re.match(r"^<parity\.\d+\.\d+@ci\.example>$", str(m["Message-ID"])))
check("multipart/mixed", m.get_content_type() == "multipart/mixed")
parts = list(m.walk())
check("related inside", parts[1].get_content_type() == "multipart/related")
html = m.get_body(("html",)).get_content()
cids = re.findall(r'src="cid:([^"]+)"', html)
have = {str(p["Content-ID"]).strip("<>") for p in parts if p["Content-ID"]}
check("charts referenced", len(cids) >= 2)
check("every cid is a part", cids and all(c in have for c in cids))
check("images are PNG", all(p.get_payload(decode=True)[:8] == b"\x89PNG\r\n\x1a\n" for p in parts if p["Content-ID"]))
check("html verdict", ">FAIL</span>" in html)
check("html escapes the run name", "cand &lt;b&gt;" in html and "cand <b>" not in html)
check("html links the page", 'href="http://parity.example/ui/comparisons/' in html)
check("html meta", "aaaa1111" in html and "bbbb2222" in html and "env" in html)
check("html stats", "<td>loss</td>" in html)
att = {p.get_filename(): p for p in parts if p.get_content_disposition() == "attachment"}
check("attachments %r" % sorted(att), "report.pdf" in att)
check("pdf", att["report.pdf"].get_payload(decode=True).startswith(b"%PDF"))
csv = [n for n in att if n.endswith("_steps.csv")]
check("steps csv", len(csv) == 1 and att[csv[0]].get_payload(decode=True).startswith(b"step,loss_baseline,"))
logs = sorted(n for n in att if ".log" in n)
check("two logs %r" % logs, len(logs) == 2)
def body(n):
    b = att[n].get_payload(decode=True)
    return gzip.decompress(b) if n.endswith(".gz") else b
if len(logs) == 2:
    check("baseline log bytes", body([n for n in logs if n.startswith("baseline")][0]) == open(sys.argv[3], "rb").read())
    check("candidate log bytes", body([n for n in logs if n.startswith("candidate")][0]) == open(sys.argv[4], "rb").read())
b64 = [p for p in parts if p["Content-Transfer-Encoding"] == "base64"]
check("base64 parts", len(b64) >= 5)
for p in b64:
    lines = p.get_payload(decode=False).split("\r\n") if "\r\n" in p.get_payload(decode=False) else p.get_payload(decode=False).split("\n")
    check("76-column base64", all(len(l) <= 76 for l in lines))
for f in fails:
    print("FAIL:", f)
print("checked", "ok" if not fails else "bad")
PY
check "message checks: $(cat "$WORK/parse.out")" grep -qx 'checked ok' "$WORK/parse.out"
http GET "/webhooks/$H1/deliveries" -H "Authorization: Bearer $TOKEN" >/dev/null
eq "delivered attempt has no error" "$(json deliveries.0.last_error)" null
ATT=$(json deliveries.0.attempts)
check "at least three attempts (two failed)" test "$ATT" -ge 3
check "log does not hold the addresses" bash -c '! grep -q "Lead.Dev" "$1"' _ "$WORK/daemon.err"

# --- an activation comparison: rows CSV, no charts ------------------------------------------
before=$(n_mails)
P1=$(upload "$F/match/p4_a.log" act-a)
P2=$(upload "$F/match/p4_b.log" act-b)
http POST /comparisons --json "{\"baseline\":$P1,\"candidate\":$P2}" >/dev/null
C4=$(json id)
http GET "/comparisons/$C4?wait=60" >/dev/null
wait_for mails_at_least $((before + 1)) || bad "no activation email"
MSG=$(ls -t "$MAIL"/msg-*.eml | head -n 1)
python3 - "$MSG" "$C4" "$(json verdict)" >"$WORK/parse4.out" 2>&1 <<'PY'
import email, sys
from email import policy
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=policy.default)
html = m.get_body(("html",)).get_content()
att = {p.get_filename(): p for p in m.walk() if p.get_content_disposition() == "attachment"}
name = "comparison_%s_rows.csv" % sys.argv[2]
ok = str(m["Subject"]).startswith("[parity] %s: comparison %s" % (sys.argv[3].upper(), sys.argv[2]))
ok &= name in att and att[name].get_payload(decode=True).startswith(b"rank,idx,a_key,b_key,status,")
ok &= att[name].get_payload(decode=True).count(b"\n") > 1 if name in att else False
ok &= "<h3>Summary</h3>" in html and "cid:" not in html
print("subject", m["Subject"], "attachments", sorted(att))
print("checked", "ok" if ok else "bad")
PY
check "activation email: $(cat "$WORK/parse4.out")" grep -qx 'checked ok' "$WORK/parse4.out"

# --- SMTP 550 is final --------------------------------------------------------------------
stop_sink
start_sink --reject nobody@example.com
http DELETE "/webhooks/$H1" >/dev/null
H2=$(hook '{"format":"email","to":["nobody@example.com"]}')
http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$A}" >/dev/null
C2=$(json id)
http GET "/comparisons/$C2?wait=60" >/dev/null
wait_for delivery_is "$H2" failed || bad "550 not final: $(cat "$WORK/body")"
eq "one attempt" "$(json deliveries.0.attempts)" 1
check "550 recorded" bash -c 'grep -q "SMTP 550" "$1"' _ "$WORK/body"
http DELETE "/webhooks/$H2" >/dev/null

# --- small --mail-attach-max: logs linked -------------------------------------------------------
stop_daemon
start_daemon "${MAILFLAGS[@]}" --mail-attach-max 100 || exit 1
before=$(n_mails)
H3=$(hook '{"format":"email","to":["dev@example.com"]}')
http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$A,\"name\":\"same\"}" >/dev/null
C3=$(json id)
http GET "/comparisons/$C3?wait=60" >/dev/null
wait_for mails_at_least $((before + 1)) || bad "no message with the small limit: $(delivery_field "$H3" last_error) $(tail -5 "$WORK/daemon.err")"
wait_for delivery_is "$H3" delivered || bad "small limit not delivered"
MSG=$(ls -t "$MAIL"/msg-*.eml | head -n 1)
python3 - "$MSG" "$A" >"$WORK/parse2.out" 2>&1 <<'PY'
import email, sys
from email import policy
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=policy.default)
html = m.get_body(("html",)).get_content()
att = [p.get_filename() for p in m.walk() if p.get_content_disposition() == "attachment"]
ok = True
ok &= str(m["Subject"]).startswith("[parity] PASS: comparison ")
ok &= att == ["report.pdf"]
ok &= ('href="http://parity.example/runs/%s/logs/0"' % sys.argv[2]) in html
ok &= "too large to attach" in html and "/steps.csv" in html
print("attachments", att)
print("checked", "ok" if ok else "bad")
PY
check "linked when over the limit: $(cat "$WORK/parse2.out")" grep -qx 'checked ok' "$WORK/parse2.out"
http DELETE "/webhooks/$H3" >/dev/null

# --- suite: one email for suite.completed ---------------------------------------------------------
stop_daemon
start_daemon "${MAILFLAGS[@]}" || exit 1
H4=$(hook '{"format":"email","to":["team@example.com"],"events":["suite.completed"]}')
eq "baseline" "$(http PUT /baselines/main/llama -H "Authorization: Bearer $TOKEN" --json "{\"run\":$A}")" 200
before=$(n_mails)
for cfg in fsdp tp; do
	log=$T/q1_a.log
	[ $cfg == tp ] && log=$T/q2_b.log
	"$PARITY_BIN" submit --server "$BASE" --token "$TOKEN" --baseline-name main/llama --suite pr-1 \
		--config $cfg --suite-size 2 --candidate "$log" >/dev/null 2>&1
done
wait_for mails_at_least $((before + 1)) || bad "no suite email"
wait_for delivery_is "$H4" delivered || bad "suite email not delivered"
sleep 1 # a second (wrong) suite email would have been queued with the first
eq "exactly one suite email" "$(($(n_mails) - before))" 1
http GET "/webhooks/$H4/deliveries" -H "Authorization: Bearer $TOKEN" >/dev/null
eq "one suite delivery" "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["deliveries"]))' "$WORK/body")" 1
MSG=$(ls -t "$MAIL"/msg-*.eml | head -n 1)
python3 - "$MSG" >"$WORK/parse3.out" 2>&1 <<'PY'
import email, sys
from email import policy
m = email.message_from_binary_file(open(sys.argv[1], "rb"), policy=policy.default)
html = m.get_body(("html",)).get_content()
att = [p.get_filename() for p in m.walk() if p.get_content_disposition() == "attachment"]
ok = True
ok &= m["X-Parity-Event"] == "suite.completed"
ok &= str(m["Subject"]) == "[parity] FAIL: suite pr-1 (2 configs)"
ok &= "Config fsdp" in html and "Config tp" in html
ok &= 'href="http://parity.example/ui/suites/pr-1"' in html
ok &= "report.pdf" in att and sum(1 for a in att if a.endswith(".csv")) == 2
print("subject", m["Subject"], "attachments", att)
print("checked", "ok" if ok else "bad")
PY
check "suite email: $(cat "$WORK/parse3.out")" grep -qx 'checked ok' "$WORK/parse3.out"

# --- credentials: never in clear over smtp://, never logged ---------------------------------------
stop_daemon
before=$(n_mails)
PARITY_SMTP_USER=mailer PARITY_SMTP_PASSWORD='s3cr3t-Pa55' start_daemon "${MAILFLAGS[@]}" || exit 1
H5=$(hook '{"format":"email","to":["dev@example.com"]}')
http POST /comparisons --json "{\"baseline\":$A,\"candidate\":$A}" >/dev/null
http GET "/comparisons/$(json id)?wait=60" >/dev/null
wait_for attempts_at_least "$H5" 1 || bad "no attempt with credentials"
check "no STARTTLS offered: the attempt fails on TLS: $(delivery_field "$H5" last_error)" \
	bash -c 'grep -qi "tls\|ssl" "$1"' _ "$WORK/body"
eq "nothing sent in clear" "$(n_mails)" "$before"
check "password not logged" bash -c '! grep -q "s3cr3t-Pa55" "$1"' _ "$WORK/daemon.err"
check "password not in the deliveries" bash -c '! grep -q "s3cr3t-Pa55" "$1"' _ "$WORK/body"
"$PARITY_BIN" serve --help-all | grep -q 's3cr3t' && bad "password in help"

stop_daemon
finish
