#!/usr/bin/env bash
# Issue 6, `parity submit`: exit codes 0 pass, 1 fail, 2 error (verdict
# error, local mistakes), 3 unreachable server or refused request (no
# token, unknown baseline run); files and rank directories; --baseline-run; --meta
# reaches the candidate run; --policy for training runs; --json output; the
# page URL; upload progress only on a terminal.
source "$(dirname "$0")/lib.sh"
DATA=$WORK/data

python3 "$G/gen_actlog.py" --layers 2 --ranks 2 --scenario identical --out-a "$WORK/ia" --out-b "$WORK/ib" >/dev/null
python3 "$G/gen_actlog.py" --layers 2 --ranks 2 --scenario identical --out-a "$WORK/ja" --out-b "$WORK/jb" >/dev/null
rm "$WORK"/jb/rank_1_*            # candidate with rank 0 only -> verdict error
mkdir -p "$WORK/empty"
echo "not a log" >"$WORK/empty/readme.txt"

TOKEN=$("$PARITY_BIN" token create --name ci $(store_args))
start_daemon --require-tokens || exit 1
export PARITY_TOKEN=$TOKEN
S=(--server "$BASE")

# --- pass: rank directories ---------------------------------------------------------
"$PARITY_BIN" submit "${S[@]}" --baseline "$WORK/ia" --candidate "$WORK/ib" --name dirs \
	>"$WORK/pass.out" 2>"$WORK/pass.err"
eq "pass exit code" "$?" 0
check "pass line" grep -q "^parity: PASS: comparison [0-9]* (activation, policy bitwise)" "$WORK/pass.out"
check "page URL printed" grep -qE "^page: $BASE/ui/comparisons/[0-9]+$" "$WORK/pass.out"
check "both ranks uploaded" grep -q "uploaded candidate: run [0-9]* (2 logs)" "$WORK/pass.err"
check "no progress bar off a terminal (a short upload: no progress line)" bash -c '! grep -q "uploading" "$1"' _ "$WORK/pass.err"
C=$(sed -n 's/^parity: PASS: comparison \([0-9]*\).*/\1/p' "$WORK/pass.out")
http GET "/comparisons/$C" >/dev/null
eq "comparison name" "$(json name)" dirs
CAND=$(json candidate)
http GET "/runs/$CAND" >/dev/null
eq "directory run has two ranks" "$(json logs.1.rank)" 1

# --- fail: files, --meta, --json ------------------------------------------------------
"$PARITY_BIN" submit "${S[@]}" --baseline "$F/match/p4_a.log" --candidate "$F/match/p4_b.log" \
	--meta commit=abc123 branch=pr-9 >"$WORK/fail.out" 2>/dev/null
eq "fail exit code" "$?" 1
check "fail line" grep -q "^parity: FAIL: comparison" "$WORK/fail.out"
check "reasons listed" grep -q "^  - rank 0: 3 paired ops differ" "$WORK/fail.out"
C=$(sed -n 's/^parity: FAIL: comparison \([0-9]*\).*/\1/p' "$WORK/fail.out")
http GET "/comparisons/$C" >/dev/null
CAND=$(json candidate)
BASEID=$(json baseline)
http GET "/runs/$CAND" >/dev/null
eq "meta commit on the candidate" "$(json meta.commit)" abc123
eq "meta branch on the candidate" "$(json meta.branch)" pr-9
"$PARITY_BIN" submit "${S[@]}" --baseline-run "$BASEID" --candidate "$F/match/p4_b.log" --json \
	>"$WORK/fail.json" 2>"$WORK/fail.err"
eq "--baseline-run + --json: exit code" "$?" 1
eq "json verdict" "$(json verdict "$WORK/fail.json")" fail
eq "json exit_code" "$(json exit_code "$WORK/fail.json")" 1
eq "json baseline is the given run" "$(json baseline "$WORK/fail.json")" "$BASEID"
check "json page_url absolute" grep -q "\"page_url\":\"$BASE/ui/comparisons/" "$WORK/fail.json"
eq "--json keeps stderr quiet" "$(wc -c <"$WORK/fail.err")" 0

# --- training with a policy ---------------------------------------------------------
"$PARITY_BIN" submit "${S[@]}" --baseline "$F/train/q1_a.log" --candidate "$F/train/q1_b.log" --policy premerge >"$WORK/t.out" 2>/dev/null
eq "training pass" "$?" 0
check "training policy shown" grep -q "(training, policy premerge)" "$WORK/t.out"
"$PARITY_BIN" submit "${S[@]}" --baseline "$F/train/q2_a.log" --candidate "$F/train/q2_b.log" --policy '{"name":"premerge"}' >/dev/null 2>&1
eq "training fail with a JSON policy" "$?" 1

# --- error -----------------------------------------------------------------------------
"$PARITY_BIN" submit "${S[@]}" --baseline "$WORK/ja" --candidate "$WORK/jb" >"$WORK/err.out" 2>/dev/null
eq "verdict error exit code" "$?" 2
check "error line" grep -q "^parity: ERROR: comparison" "$WORK/err.out"
check "error reason" grep -q "rank 1 exists in the baseline only" "$WORK/err.out"
"$PARITY_BIN" submit "${S[@]}" --baseline "$WORK/nope.log" --candidate "$F/match/p4_b.log" 2>"$WORK/e2.err"
eq "missing file" "$?" 2
check "missing file message" grep -q "nope.log" "$WORK/e2.err"
"$PARITY_BIN" submit "${S[@]}" --baseline "$WORK/empty" --candidate "$F/match/p4_b.log" 2>"$WORK/e3.err"
eq "directory without rank logs" "$?" 2
check "empty directory message" grep -q "has no rank_\* logs" "$WORK/e3.err"
"$PARITY_BIN" submit "${S[@]}" --candidate "$F/match/p4_b.log" 2>/dev/null
eq "no baseline" "$?" 2
"$PARITY_BIN" submit "${S[@]}" --baseline "$F/match/p4_a.log" --baseline-run 1 --candidate "$F/match/p4_b.log" 2>/dev/null
eq "both baselines" "$?" 2
"$PARITY_BIN" submit "${S[@]}" --baseline "$F/match/p4_a.log" --candidate "$F/match/p4_b.log" --meta nokey 2>/dev/null
eq "bad --meta" "$?" 2
"$PARITY_BIN" submit "${S[@]}" --baseline "$F/match/p4_a.log" --candidate "$F/match/p4_b.log" --policy '{bad' 2>/dev/null
eq "bad --policy JSON" "$?" 2
"$PARITY_BIN" submit --help >/dev/null
eq "--help" "$?" 0

# --- server unreachable or refusing ----------------------------------------------------
DEAD=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
"$PARITY_BIN" submit --server "http://127.0.0.1:$DEAD" --baseline "$F/match/p4_a.log" --candidate "$F/match/p4_b.log" 2>"$WORK/u.err"
eq "unreachable server" "$?" 3
check "unreachable message is one line" [ "$(wc -l <"$WORK/u.err")" -eq 1 ]
PARITY_TOKEN= "$PARITY_BIN" submit "${S[@]}" --baseline "$F/match/p4_a.log" --candidate "$F/match/p4_b.log" 2>"$WORK/r.err"
eq "no token: refused" "$?" 3
check "refusal names the status" grep -q "HTTP 401" "$WORK/r.err"
"$PARITY_BIN" submit "${S[@]}" --token pty_wrong --baseline "$F/match/p4_a.log" --candidate "$F/match/p4_b.log" 2>/dev/null
eq "wrong token: refused" "$?" 3
"$PARITY_BIN" submit "${S[@]}" --baseline "$F/match/p4_a.log" --candidate "$F/train/q1_b.log" 2>"$WORK/k.err"
eq "kind mismatch: found before uploading" "$?" 2
check "kind mismatch message" grep -q "is an activation log but .* is a training log" "$WORK/k.err"
"$PARITY_BIN" submit "${S[@]}" --baseline-run 99999 --candidate "$F/match/p4_b.log" 2>/dev/null
eq "unknown baseline run: refused" "$?" 3

# --- progress on a terminal --------------------------------------------------------------
need script
script -qec "$PARITY_BIN submit --server $BASE --baseline $F/match/p4_a.log --candidate $F/match/p4_b.log" /dev/null >"$WORK/tty.out" 2>&1
check "progress shown on a terminal" grep -q "uploading baseline p4_a.log: .* B\|uploading baseline p4_a.log: .*iB" "$WORK/tty.out"

stop_daemon
finish
