#!/usr/bin/env bash
# Issue 6, API tokens: `parity token create|list|revoke`; only a digest is
# stored; when tokens are required every write endpoint answers 401 (JSON
# error + WWW-Authenticate) without a token, with a wrong one, with a
# malformed header and with a revoked one, and works with a valid one;
# writes are open by default on loopback only; --open-writes; reads open
# or closed per --private-reads (/healthz always open); tokens created or
# revoked while the daemon runs take effect at once.
source "$(dirname "$0")/lib.sh"
DATA=$WORK/data

# --- CLI ------------------------------------------------------------------------------
TOKEN=$("$PARITY_BIN" token create --name ci $(store_args))
eq "token create exit" "$?" 0
check "token shape" python3 -c 'import re,sys; assert re.fullmatch(r"pty_[A-Za-z0-9_-]{43}", sys.argv[1])' "$TOKEN"
OLD=$("$PARITY_BIN" token create --name old $(store_args))
"$PARITY_BIN" token create --name ci $(store_args) >/dev/null 2>"$WORK/dup.err"
eq "duplicate name refused" "$?" 1
check "duplicate name message" grep -q "exists already" "$WORK/dup.err"
"$PARITY_BIN" token create $(store_args) >/dev/null 2>&1
eq "create without --name" "$?" 2
"$PARITY_BIN" token list $(store_args) >"$WORK/list.txt"
eq "token list exit" "$?" 0
check "list shows names" grep -q "^ci " "$WORK/list.txt"
if grep -q "$TOKEN" "$WORK/list.txt"; then bad "list shows the token"; else ok; fi
no_token_text() { ! db_dump | grep -aqF "$TOKEN"; }
check "database holds no token text" no_token_text
"$PARITY_BIN" token revoke nope $(store_args) 2>/dev/null
eq "revoke unknown" "$?" 1
# (no PARITY_DB here: with it the CLI uses that PostgreSQL database)
env -u PARITY_DB "$PARITY_BIN" token list --data "$WORK/nowhere" 2>/dev/null
eq "list without a database" "$?" 2
"$PARITY_BIN" token list --db "$WORK/parity.db" 2>/dev/null
eq "--db takes a postgresql:// URL only" "$?" 2
PARITY_DATA="$DATA" "$PARITY_BIN" token list --json >"$WORK/list.json"
eq "PARITY_DATA and --json" "$(json tokens.0.name "$WORK/list.json")" ci
eq "revoke" "$("$PARITY_BIN" token revoke old $(store_args))" "token 'old' revoked"
"$PARITY_BIN" token list --json $(store_args) >"$WORK/list.json"
check "revoked_at set" python3 -c 'import json,sys; t={x["name"]:x for x in json.load(open(sys.argv[1]))["tokens"]}; assert t["old"]["revoked_at"] and t["ci"]["revoked_at"] is None' "$WORK/list.json"

# --- loopback: writes open by default ------------------------------------------------
start_daemon || exit 1
st=$(http POST "/runs" -F "log=@$F/match/p4_a.log")
eq "loopback: anonymous upload" "$st" 201
eq "loopback: a bad token is ignored when writes are open" \
	"$(http POST /comparisons -H 'Authorization: Bearer nope' --json '{}')" 400
stop_daemon

# --- tokens required ----------------------------------------------------------------
start_daemon --require-tokens --webhook-allow-private || exit 1
R=$(curl -s -H "Authorization: Bearer $TOKEN" -F "log=@$F/match/p4_a.log" "$BASE/runs" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
check "upload with a valid token" [ "$R" -gt 0 ]
eq "reads stay open" "$(http GET /runs)" 200
eq "healthz open" "$(http GET /healthz)" 200

# every write endpoint x every bad credential -> 401
declare -a WRITES=(
	"POST /runs -F log=@$F/match/p4_a.log"
	"DELETE /runs/$R"
	"POST /comparisons --json {\"baseline\":1,\"candidate\":2}"
	"DELETE /comparisons/1"
	"POST /webhooks --json {\"url\":\"http://127.0.0.1:9/\",\"secret\":\"s\"}"
	"DELETE /webhooks/1"
)
for w in "${WRITES[@]}"; do
	read -r m u rest <<<"$w"
	# shellcheck disable=SC2086
	eq "$m $u without a token" "$(http "$m" "$u" $rest)" 401
	check "$m $u: JSON error" python3 -c 'import json,sys; assert json.load(open(sys.argv[1]))["error"]["code"]=="unauthorized"' "$WORK/body"
	# shellcheck disable=SC2086
	eq "$m $u with a wrong token" "$(http "$m" "$u" -H 'Authorization: Bearer pty_wrongwrongwrongwrongwrongwrongwrongwrongwro' $rest)" 401
	# shellcheck disable=SC2086
	eq "$m $u with a revoked token" "$(http "$m" "$u" -H "Authorization: Bearer $OLD" $rest)" 401
	check "$m $u: revoked is named" grep -q revoked "$WORK/body"
	# shellcheck disable=SC2086
	eq "$m $u with Basic auth" "$(http "$m" "$u" -H 'Authorization: Basic Y2k6eA==' $rest)" 401
done
hdr=$(curl -s -D - -o /dev/null -X DELETE "$BASE/runs/$R")
check "WWW-Authenticate header" grep -qi '^WWW-Authenticate: Bearer realm="parity"' <<<"$hdr"
check "keep-alive kept on a deferred 401" bash -c '! grep -qi "^Connection: close" <<<"$1"' _ "$hdr"
# the same writes with the valid token reach their handlers
AUTH=(-H "Authorization: Bearer $TOKEN")
eq "POST /comparisons with the token" "$(http POST /comparisons "${AUTH[@]}" --json "{\"baseline\":$R,\"candidate\":$R}")" 202
C=$(json id)
eq "POST /webhooks with the token" "$(http POST /webhooks "${AUTH[@]}" --json '{"url":"http://127.0.0.1:9/","secret":"s"}')" 201
H=$(json id)
eq "DELETE /webhooks with the token" "$(http DELETE "/webhooks/$H" "${AUTH[@]}")" 200
http GET "/comparisons/$C?wait=30" >/dev/null
eq "DELETE /comparisons with the token" "$(http DELETE "/comparisons/$C" "${AUTH[@]}")" 200
eq "DELETE /runs with the token" "$(http DELETE "/runs/$R" "${AUTH[@]}")" 200
eq "lower-case bearer scheme" "$(http POST /comparisons -H "authorization: bearer $TOKEN" --json '{}')" 400
# a large body without a token is refused before it is sent
head -c 20000000 /dev/zero >"$WORK/big.bin"
eq "big anonymous upload refused" "$(http POST /runs --data-binary "@$WORK/big.bin")" 401
# live changes: revoke and create while running
"$PARITY_BIN" token revoke ci $(store_args) >/dev/null
eq "revoked while running" "$(http POST /comparisons "${AUTH[@]}" --json '{}')" 401
NEW=$("$PARITY_BIN" token create --name fresh $(store_args))
eq "created while running" "$(http POST /comparisons -H "Authorization: Bearer $NEW" --json '{}')" 400
stop_daemon

# --- beyond loopback: tokens required unless --open-writes -----------------------------
start_daemon --listen 0.0.0.0:0 || exit 1
eq "0.0.0.0: anonymous write refused" "$(http POST /comparisons --json '{}')" 401
eq "0.0.0.0: token accepted" "$(http POST /comparisons -H "Authorization: Bearer $NEW" --json '{}')" 400
eq "0.0.0.0: reads open" "$(http GET /comparisons)" 200
stop_daemon
start_daemon --listen 0.0.0.0:0 --open-writes || exit 1
eq "--open-writes: anonymous write accepted" "$(http POST /comparisons --json '{}')" 400
stop_daemon
"$PARITY_BIN" serve --open-writes --require-tokens --data "$DATA" 2>/dev/null
eq "--open-writes with --require-tokens refused" "$?" 2

# --- private reads ---------------------------------------------------------------------
start_daemon --private-reads || exit 1
eq "private: GET /runs anonymous" "$(http GET /runs)" 401
eq "private: GET /webhooks anonymous" "$(http GET /webhooks)" 401
eq "private: GET /comparisons/1 anonymous" "$(http GET /comparisons/1)" 401
eq "private: GET /runs with token" "$(http GET /runs -H "Authorization: Bearer $NEW")" 200
eq "private: revoked token" "$(http GET /runs -H "Authorization: Bearer $OLD")" 401
eq "private: healthz open" "$(http GET /healthz)" 200
eq "private: writes need a token too" "$(http POST /comparisons --json '{}')" 401
stop_daemon

finish
