#!/usr/bin/env bash
# test_pg_steps.sh - PostgreSQL step reads are keyed range scans of the
# same order as SQLite's (issue 23, F6): one training run of N steps is
# uploaded to a daemon on SQLite and to one on PostgreSQL (PARITY_TEST_DB)
# in the same test, and the same reads are timed on both (best of 3, so
# the load of the machine weighs on both alike):
#   - GET /runs/{id}/losses.txt: the same bytes on both (the uploaded
#     series), PostgreSQL within LOSSES_FACTOR of SQLite (before: ~35x at
#     50k steps, 120x at 300k: a scan and sort of the run each page and a
#     query per step);
#   - 10 pages of /runs/{id}/steps from the start and 10 up to the end:
#     each within PAGES_FACTOR of SQLite's, and PostgreSQL's end pages cost
#     what its first pages cost (a page's cost does not grow with its
#     position).
# Without PARITY_TEST_DB ctest skips it, or fails it when CI=true
# (tests/pg/needs_db.sh); run by hand it fails (PARITY_ALLOW_SKIP=1 skips).
source "$(dirname "$0")/lib.sh"
need psql python3 curl
case "${PARITY_TEST_DB:-}" in
postgresql://* | postgres://*) ;;
*) skip_or_fail "PARITY_TEST_DB is not a postgresql:// URL (tests/pg/cluster.sh start gives one)" ;;
esac
N=${STEPS_N:-100000}
# generous factors: measured 3 to 5 (losses) and 1 to 4 (pages) under
# load (store/BACKENDS.md, step reads); the code before failed them by far
LOSSES_FACTOR=12
PAGES_FACTOR=5

cd "$WORK" || exit 1
python3 -c 'import sys
with open("losses.txt", "w") as f:
    f.write("# step loss\n")
    for s in range(1, int(sys.argv[1]) + 1):
        f.write("%d %.6f\n" % (s, 10.0 / (1 + s * 0.001)))' "$N"

# best TIMES URL: the smallest of 3 GETs' total times (body to $WORK/body)
best() {
	local t min=
	for _ in 1 2 3; do
		t=$(curl -s -o "$WORK/body" -w '%{time_total}' "$1")
		min=$(python3 -c 'import sys; a = [float(x) for x in sys.argv[1:] if x]; print(min(a))' "$t" $min)
	done
	echo "$min"
}

# pages URL CURSOR: seconds for 10 pages of 100 steps from CURSOR on
# (curl's times of the requests alone, added up)
pages() {
	local url=$1 cursor=$2 times=()
	for _ in $(seq 1 10); do
		times+=("$(curl -s -o "$WORK/page" -w '%{time_total}' "$url/steps?limit=100${cursor:+&cursor=$cursor}")")
		cursor=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["next_cursor"] or "")' "$WORK/page")
	done
	python3 -c 'import sys; print(round(sum(float(x) for x in sys.argv[1:]), 6))' "${times[@]}"
}

# best_pages URL CURSOR: the smallest of 3 pages runs
best_pages() {
	python3 -c 'import sys; print(min(float(x) for x in sys.argv[1:]))' \
		"$(pages "$1" "$2")" "$(pages "$1" "$2")" "$(pages "$1" "$2")"
}

# within WHAT GOT REF FACTOR FLOOR: GOT <= FACTOR * max(REF, FLOOR) (a
# time below FLOOR is curl's and the scheduler's more than the store's)
within() {
	if python3 -c 'import sys; g, r, f, fl = map(float, sys.argv[1:]); sys.exit(0 if g <= f * max(r, fl) else 1)' \
		"$2" "$3" "$4" "$5"; then
		ok
	else
		bad "$1: $2 s, more than $4 x max($3 s, $5 s)"
	fi
}

declare -A URL LOSSES FIRST LAST
for be in sqlite pg; do
	PARITY_BACKEND=$be DATA=$WORK/data_$be DAEMON_LOG=$WORK/daemon_$be start_daemon || exit 1
	st=$(http POST /runs -F "log=@losses.txt;filename=losses.txt" -F name=long)
	eq "$be: upload of $N steps" "$st" 201
	URL[$be]=$BASE/runs/$(json id)
	eq "$be: steps stored" "$(json logs.0.steps)" "$N"
	LOSSES[$be]=$(best "${URL[$be]}/losses.txt")
	check "$be: losses.txt is the uploaded series" diff -q <(grep -v '^#' body) <(grep -v '^#' losses.txt)
	FIRST[$be]=$(best_pages "${URL[$be]}" "")
	LAST[$be]=$(best_pages "${URL[$be]}" "s$((N - 1000)).9223372036854775807")
	eq "$be: the last page ends the run" "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); print(d["steps"][-1]["step"], d["next_cursor"])' page)" "$N None"
	echo "$be: losses.txt ${LOSSES[$be]} s, 10 pages at the start ${FIRST[$be]} s, at the end ${LAST[$be]} s"
done
within "losses.txt on PostgreSQL against SQLite" "${LOSSES[pg]}" "${LOSSES[sqlite]}" "$LOSSES_FACTOR" 0.05
within "first pages on PostgreSQL against SQLite" "${FIRST[pg]}" "${FIRST[sqlite]}" "$PAGES_FACTOR" 0.02
within "last pages on PostgreSQL against SQLite" "${LAST[pg]}" "${LAST[sqlite]}" "$PAGES_FACTOR" 0.02
# the same cost at the start and at the end, both ways
within "last pages on PostgreSQL against its first" "${LAST[pg]}" "${FIRST[pg]}" 4 0.02
within "first pages on PostgreSQL against its last" "${FIRST[pg]}" "${LAST[pg]}" 4 0.02
finish
