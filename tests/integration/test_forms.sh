#!/usr/bin/env bash
# Issue 15, forms without JavaScript: form#upload (multipart POST
# /runs?html=1, several `log` files = several ranks, name, meta as
# key=value lines) and form#compare (POST /comparisons?html=1, multipart or
# urlencoded, empty fields = absent) answer 303 See Other to the new
# resource's page; a browser's Accept: text/html does the same without
# html=1; errors are HTML pages with the message and a link back (missing
# file: 400); a cross-origin form post is refused (403) and creates
# nothing; the delete confirmation lists the comparisons using a run, and
# the delete form answers 303 to the list.  /ui/runs and /ui/comparisons
# search names, commit and branch and filter by kind, verdict and status.
source "$(dirname "$0")/lib.sh"
need python3 curl

RA=$WORK/runA
RB=$WORK/runB
mkdir -p "$RA" "$RB"
for r in 0 1; do
	python3 "$G/gen_actlog.py" --layers 2 --seed $((3 + r)) --scenario diverge \
		--out-a "$RA/rank_${r}_activations.log" --out-b "$RB/rank_${r}_activations.log"
done
start_daemon || exit 1

# post URL curl-args...: status and Location, "303 http://..."
post() {
	local url=$1
	shift
	curl -s -o "$WORK/body" -w '%{http_code} %{redirect_url}' "$@" "$BASE$url"
}

# --- upload through the form: 303 to the run page ---------------------------------
got=$(post "/runs?html=1" -F "log=@$RA/rank_0_activations.log" -F "log=@$RA/rank_1_activations.log" \
	-F name=eager-bf16 -F $'meta=commit=3f2a9c1\nbranch=feature/x\n')
eq "upload form: 303 to the run page" "$got" "303 $BASE/ui/runs/1"
eq "two files = two ranks" "$(curl -s "$BASE/runs/1" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["logs"]))')" 2
eq "meta key=value lines stored as an object" \
	"$(curl -s "$BASE/runs/1" | python3 -c 'import json,sys; m=json.load(sys.stdin)["meta"]; print(m["commit"], m["branch"])')" \
	"3f2a9c1 feature/x"
# Accept: text/html (a browser navigating) is a form post too
got=$(post /runs -H 'Accept: text/html,application/xhtml+xml' -F "log=@$RB/rank_0_activations.log" \
	-F "log=@$RB/rank_1_activations.log" -F name=traced -F 'meta={"commit":"9d8e7f6"}')
eq "Accept text/html: 303" "$got" "303 $BASE/ui/runs/2"
# the API itself is unchanged
eq "API upload still 201" "$(http POST /runs -F "log=@$RB/rank_0_activations.log" -F name=api)" 201

# --- errors as pages -----------------------------------------------------------------
got=$(post "/runs?html=1" -F 'log=;filename=' -F name=nofile)
eq "no file chosen: 400" "${got%% *}" 400
check "its page names the error" grep -q 'id="form-error" data-code="no_log"' "$WORK/body"
check "its page links back to the form" grep -q 'id="back" href="/ui/runs#upload"' "$WORK/body"
check "it is HTML" grep -q '^<!doctype html>' "$WORK/body"
got=$(post "/runs?html=1" -F "log=@$RA/rank_0_activations.log" -F $'meta=commit 1')
eq "meta line without =: 400" "${got%% *}" 400
check "the bad meta line is named" grep -q 'meta line 1' "$WORK/body"
eq "the API's meta errors stay JSON" "$(http POST /runs -F "log=@$RA/rank_0_activations.log" -F $'meta=x')" 400
eq "... with code bad_meta" "$(json error.code)" bad_meta

# --- cross-origin form posts: 403, nothing stored -------------------------------------
got=$(post "/runs?html=1" -H 'Origin: http://evil.example' -F "log=@$RA/rank_0_activations.log")
eq "cross-origin upload form: 403" "${got%% *}" 403
got=$(post "/comparisons?html=1" -H 'Origin: http://evil.example' -d baseline=1 -d candidate=2)
eq "cross-origin compare form: 403" "${got%% *}" 403
eq "no comparison was created" "$(curl -s "$BASE/comparisons" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["comparisons"]))')" 0
# the same origin (what the page itself sends) passes
got=$(post "/comparisons?html=1" -H "Origin: $BASE" -H 'Sec-Fetch-Site: same-origin' \
	-d baseline=1 -d candidate=2 -d policy= -d name=first -d thresholds=)
eq "same-origin urlencoded compare form: 303 to the comparison page" "$got" "303 $BASE/ui/comparisons/1"
got=$(post "/comparisons?html=1" -F baseline=1 -F candidate=2 -F policy=bitwise -F 'overrides=;filename=')
eq "multipart compare form: 303" "$got" "303 $BASE/ui/comparisons/2"
got=$(post "/comparisons?html=1" -F baseline=1 -F candidate=99)
eq "unknown run: 400 page" "${got%% *}" 400
check "... back to the compare form" grep -q 'href="/ui/comparisons#compare"' "$WORK/body"
eq "urlencoded without html=1: JSON 202" "$(http POST /comparisons -d baseline=1 -d candidate=2)" 202

wait_for bash -c "curl -s '$BASE/comparisons/1' | grep -q '\"status\":\"done\"'"

# --- lists: search and filters --------------------------------------------------------
page() { curl -s "$BASE$1" >"$WORK/page"; }
page "/ui/runs?q=EAGER"
check "runs: search by name, any case" grep -q 'href="/ui/runs/1">eager-bf16' "$WORK/page"
check "... only the match" bash -c "! grep -q 'href=\"/ui/runs/2\"' '$WORK/page'"
page "/ui/runs?q=9d8e7"
check "runs: search by commit" grep -q 'href="/ui/runs/2">traced' "$WORK/page"
page "/ui/runs?q=feature%2Fx"
check "runs: search by branch" grep -q 'href="/ui/runs/1">eager' "$WORK/page"
page "/ui/runs?kind=training"
check "runs: kind filter" grep -q 'id="no-match"' "$WORK/page"
check "runs page offers the upload form" grep -q '<form id="upload"' "$WORK/page"
page "/ui/comparisons?q=first"
check "comparisons: search by comparison name" grep -q 'href="/ui/comparisons/1"' "$WORK/page"
check "... shows the first reason" grep -q '<td class="reason">[^<]' "$WORK/page"
page "/ui/comparisons?q=traced&verdict=fail"
check "comparisons: search by run name + verdict" grep -q 'href="/ui/comparisons/1"' "$WORK/page"
page "/ui/comparisons?verdict=pass"
check "comparisons: verdict filter" grep -q 'id="no-match"' "$WORK/page"
check "comparisons page offers the compare form" grep -q '<form id="compare"' "$WORK/page"
# re-run with another policy: the row's link preselects its runs in the form
page "/ui/comparisons"
check "a row links to re-run it" grep -q 'href="/ui/comparisons?baseline=1&amp;candidate=2#compare">re-run' "$WORK/page"
page "/ui/comparisons?baseline=2&candidate=1"
check "re-run preselects the baseline" grep -q '<option value="2" data-kind="activation" selected>#2 traced' <(sed 's/.*id="compare-baseline"//; s/<\/select>.*//' "$WORK/page")
check "re-run preselects the candidate" grep -q '<option value="1" data-kind="activation" selected>#1 eager' <(sed 's/.*id="compare-candidate"//; s/<\/select>.*//' "$WORK/page")
page "/ui/comparisons?limit=1&status=done&cursor=nonsense"
eq "bad cursor: a 400 page" "$(curl -s -o /dev/null -w '%{http_code}' "$BASE/ui/comparisons?cursor=nonsense")" 400

# --- delete with confirmation ---------------------------------------------------------
page /ui/runs/1/delete
check "a run in use lists its comparisons" grep -q 'id="in-use"' "$WORK/page"
check "... comparison 1 among them" grep -q 'href="/ui/comparisons/1"' "$WORK/page"
check "... and offers no delete button" bash -c "! grep -q 'form id=\"delete\"' '$WORK/page'"
got=$(post "/ui/runs/1/delete?html=1" -X POST)
eq "deleting a run in use: 409 page" "${got%% *}" 409
page /ui/comparisons/1/delete
check "comparison delete asks first" grep -q '<form id="delete"' "$WORK/page"
got=$(post "/ui/comparisons/1/delete?html=1" -X POST -H 'Origin: http://evil.example')
eq "cross-origin delete form: 403" "${got%% *}" 403
got=$(post "/ui/comparisons/1/delete?html=1" -X POST)
eq "delete form: 303 to the list" "$got" "303 $BASE/ui/comparisons"
eq "the comparison is gone" "$(http GET /comparisons/1)" 404

# --- the empty home page offers the forms ---------------------------------------------
stop_daemon
DATA=$WORK/empty start_daemon || exit 1
page /
check "empty home: the upload form" grep -q '<form id="upload" class="form" method="post" action="/runs?html=1" enctype="multipart/form-data">' "$WORK/page"
check "empty home: file input named log, multiple" grep -q 'name="log" multiple required' "$WORK/page"
finish
