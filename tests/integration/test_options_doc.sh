#!/usr/bin/env bash
# test_options_doc.sh - the options reference cannot drift: server/OPTIONS.md
# must equal `parity help --markdown`, which is generated from the option
# tables the commands parse with (server/options.h).  Also: every flag of
# `parity serve --help` is in the reference, and `parity --help` lists every
# command of the reference.  Needs PARITY_BIN and PARITY_SRC; no store.
set -u
BIN=${PARITY_BIN:?}
SRC=${PARITY_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
DOC=$SRC/server/OPTIONS.md
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
bad() { fails=$((fails + 1)); echo "FAIL: $*" >&2; }

"$BIN" help --markdown >"$TMP/OPTIONS.md" || bad "parity help --markdown failed"
if ! diff -u "$DOC" "$TMP/OPTIONS.md" >"$TMP/diff"; then
	cat "$TMP/diff" >&2
	bad "server/OPTIONS.md differs from the option tables in the code; regenerate it from a" \
		"fresh build: ./build/parity help --markdown > server/OPTIONS.md"
fi
"$BIN" serve --help >"$TMP/serve.txt" || bad "parity serve --help failed"
for flag in $(grep -o -- '^  --[a-z0-9-]*' "$TMP/serve.txt" | tr -d ' '); do
	grep -q -- "\`$flag[ \`]" "$DOC" || bad "parity serve $flag is not in server/OPTIONS.md"
done
"$BIN" --help >"$TMP/help.txt" || bad "parity --help failed"
for cmd in $(grep -o '^| `parity [a-z]*`' "$DOC" | sed 's/.*parity \([a-z]*\)`/\1/'); do
	grep -q "^  $cmd " "$TMP/help.txt" || bad "parity --help does not list $cmd"
done
[ "$fails" -eq 0 ] || exit 1
echo "ok: server/OPTIONS.md equals parity help --markdown"
