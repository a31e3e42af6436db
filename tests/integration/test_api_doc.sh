#!/usr/bin/env bash
# GET /openapi.json is valid JSON and describes every route of the route
# table (server/routes.c), so the document cannot silently fall behind.
source "$(dirname "$0")/lib.sh"
start_daemon || exit 1
eq "openapi served" "$(http GET /openapi.json)" 200
check "openapi content type" bash -c "curl -sI '$BASE/openapi.json' | grep -qi '^Content-Type: application/json'"
check "every route documented" python3 - "$WORK/body" "$PARITY_SRC/server/routes.c" <<'PY'
import json, re, sys
doc = json.load(open(sys.argv[1]))
assert doc["openapi"].startswith("3.")
paths = doc["paths"]
missing = []
for m, pat in re.findall(r'\{"(GET|POST|PUT|DELETE)", "([^"]+)"', open(sys.argv[2]).read()):
    if pat.startswith("/ui/") or pat == "/" or pat.startswith("/assets/"):
        continue  # HTML pages and static assets
    key = pat.replace("{n}", "{rank}").replace("{path}", "{name}")
    if pat.startswith("/suites/"):
        key = pat.replace("{name}", "{suite}")
    if key not in paths or m.lower() not in paths[key]:
        missing.append(m + " " + pat)
assert not missing, missing
PY
stop_daemon
finish
