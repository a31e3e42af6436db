#!/usr/bin/env bash
# test_door.sh - issue 25 item 4, bad input at the door of POST /runs: a
# body that is no log is a 400 {"error":{"code","message"}} whose message
# names the fix (`curl -F log=@...`), and nothing of it is stored (no run
# row, no raw log, no temp or spool file):
#   `curl -d @rank_0.log` (a urlencoded form body, newlines stripped: it
#   parses as one line with 0 ops; a training log sent so is refused by its
#   parser, and told the fix too), a header-only activation log (0 ops),
#   a PNG, a JSON document, a training-looking text without a step.
# The inputs that are logs still go in: multipart and raw activation logs,
# a gzip log, a TensorBoard event file, a golden loss file, training stdout.
source "$(dirname "$0")/lib.sh"
need curl python3 gzip
GEN=${PARITY_GEN_TFEVENTS:?PARITY_GEN_TFEVENTS not set}
DATA=$WORK/data
start_daemon || exit 1
LOG=$F/match/p1_a.log

n_runs() { http GET "/runs?limit=100" >/dev/null && python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["runs"]))' "$WORK/body"; }
n_raw() { find "$DATA/raw" -type f 2>/dev/null | wc -l; }

# refused WHAT CODE WORD STATUS: the last answer ($WORK/body) was STATUS with
# error code CODE, a message naming WORD and the multipart fix; nothing stored
# (the answer is kept in $WORK/refused.json)
refused() {
	cp "$WORK/body" "$WORK/refused.json"
	eq "$1: status" "$4" 400
	eq "$1: error code" "$(json error.code)" "$2"
	check "$1: the message names '$3'" grep -q -- "$3" "$WORK/refused.json"
	check "$1: the message names the fix" grep -q 'curl -F log=@rank_0.log' "$WORK/refused.json"
	eq "$1: no run stored" "$(n_runs)" 0
	eq "$1: no raw log stored" "$(n_raw)" 0
	check "$1: no temp or spool file left" no_temp_files
}

# curl -d: application/x-www-form-urlencoded, newlines stripped
st=$(http POST /runs -d "@$LOG")
refused "curl -d @log" empty_log "urlencoded form" "$st"
check "curl -d: names curl -d" grep -q 'curl -d' "$WORK/refused.json"
check "curl -d: names no activation op" grep -q 'no activation op and no training step' "$WORK/refused.json"
# a training log sent the same way: its parser refuses the one line, and
# the message names the fix all the same
st=$(http POST /runs -d "@$F/train/q1_a.log")
refused "curl -d @train.log" not_training_log "without line breaks (\`curl -d\` strips them)" "$st"
# --data-binary keeps the line breaks: a header-only log is not told about curl -d
printf 'Total captured activations: 0\n' | http POST /runs --data-binary @- >/dev/null
check "--data-binary: no curl -d hint" bash -c '! grep -q "curl -d" "$1"' _ "$WORK/body"

# a header-only activation log (multipart): 0 ops
printf 'Total captured activations: 0\nExcluded ops dispatched: view\n' >"$WORK/rank_0.log"
st=$(http POST /runs -F "log=@$WORK/rank_0.log")
refused "header only" empty_log "rank_0.log holds no activation op" "$st"

# the same, gzip'ed and raw
gzip -c "$WORK/rank_0.log" >"$WORK/empty.log.gz"
st=$(http POST /runs --data-binary "@$WORK/empty.log.gz" -H 'Content-Type: application/octet-stream')
refused "header only, gzip" empty_log "no activation op" "$st"

# a PNG
printf '\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x02\0\0\0' >"$WORK/chart.png"
st=$(http POST /runs -F "log=@$WORK/chart.png")
refused "PNG (multipart)" unrecognised_log "neither an activation log nor a training log" "$st"
st=$(http POST /runs --data-binary "@$WORK/chart.png" -H 'Content-Type: image/png')
refused "PNG (raw)" unrecognised_log "chart.png\|log is neither" "$st"

# a JSON document
st=$(http POST /runs --json '{"baseline": 1, "candidate": 2}')
refused "JSON" unrecognised_log "a JSON document is not a log" "$st"

# a training-looking text without a single step
printf 'Starting job\nTraining starts at step 1\n' >"$WORK/nostep.log"
st=$(http POST /runs -F "log=@$WORK/nostep.log")
eq "no step: status" "$st" 400
eq "no step: nothing stored" "$(n_runs)" 0

# --- what is a log still goes in ---------------------------------------------------------
cd "$WORK" || exit 1
"$GEN" ev.tfevents --steps 20 --golden golden.txt
gzip -c "$LOG" >"$WORK/p1.log.gz"
eq "multipart activation log" "$(http POST /runs -F "log=@$LOG")" 201
eq "raw activation log (curl --data-binary, form content type)" "$(http POST '/runs?name=raw' --data-binary "@$LOG")" 201
eq "raw activation log, text/plain" "$(http POST '/runs?name=plain' --data-binary "@$LOG" -H 'Content-Type: text/plain')" 201
eq "gzip activation log" "$(http POST /runs -F "log=@$WORK/p1.log.gz")" 201
eq "TensorBoard event file" "$(http POST /runs -F "log=@ev.tfevents;filename=events.out.tfevents.1.host")" 201
eq "golden loss file" "$(http POST /runs -F "log=@golden.txt;filename=losses.txt")" 201
eq "training stdout" "$(http POST /runs -F "log=@$F/train/q1_a.log")" 201
eq "seven runs stored" "$(n_runs)" 7
# (on PostgreSQL the raw logs are rows: no files to count)
# (three uploads of p1_a.log share one file)
[ "$PARITY_BACKEND" = pg ] || eq "raw logs of the runs stored" "$(n_raw)" 5
check "no temp files after the uploads" no_temp_files

stop_daemon
finish
