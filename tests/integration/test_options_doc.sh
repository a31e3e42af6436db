#!/usr/bin/env bash
# test_options_doc.sh - the options reference cannot drift: server/OPTIONS.md
# must equal `parity help --markdown`, which is generated from the option
# tables the commands parse with (server/options.h).  Also: every flag of
# `parity serve --help-all` is in the reference and the other way round,
# `parity serve --help` lists only the common flags and names --help-all,
# `parity --version` prints "parity X.Y.Z", and `parity --help` lists every
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
"$BIN" serve --help-all >"$TMP/serve.txt" || bad "parity serve --help-all failed"
for flag in $(grep -o -- '^  --[a-z0-9-]*' "$TMP/serve.txt" | tr -d ' '); do
	grep -q -- "\`$flag[ \`]" "$DOC" || bad "parity serve $flag is not in server/OPTIONS.md"
done
# every flag of the reference's serve section is in --help-all
for flag in $(sed -n '/^## parity serve/,/^## /p' "$DOC" | grep -o '^| `--[a-z0-9-]*' | tr -d '|` '); do
	grep -q -- "^  $flag\b" "$TMP/serve.txt" || bad "parity serve --help-all does not list $flag"
done
# the short --help: the common flags only (~20 lines of them), and it names --help-all
"$BIN" serve --help >"$TMP/short.txt" || bad "parity serve --help failed"
n_short=$(grep -c -- '^  --' "$TMP/short.txt")
n_all=$(grep -c -- '^  --' "$TMP/serve.txt")
[ "$n_short" -ge 5 ] && [ "$n_short" -le 12 ] || bad "parity serve --help lists $n_short flags, want 5..12"
[ "$n_all" -ge 30 ] || bad "parity serve --help-all lists $n_all flags, want every one (30+)"
[ "$(wc -l <"$TMP/short.txt")" -le 40 ] || bad "parity serve --help is $(wc -l <"$TMP/short.txt") lines"
grep -q -- '--help-all' "$TMP/short.txt" || bad "parity serve --help does not name --help-all"
grep -q -- '^  --listen' "$TMP/short.txt" || bad "parity serve --help does not list --listen"
grep -q -- '^  --smtp-url' "$TMP/short.txt" && bad "parity serve --help lists --smtp-url (not a common flag)"
# --version and `parity version`: "parity X.Y.Z"
for v in --version version; do
	"$BIN" $v >"$TMP/v.txt" || bad "parity $v failed"
	grep -Eq '^parity [0-9]+\.[0-9]+\.[0-9]+( \(.*\))?$' "$TMP/v.txt" || bad "parity $v printed '$(cat "$TMP/v.txt")'"
done
"$BIN" --help >"$TMP/help.txt" || bad "parity --help failed"
for cmd in $(grep -o '^| `parity [a-z]*`' "$DOC" | sed 's/.*parity \([a-z]*\)`/\1/'); do
	grep -q "^  $cmd " "$TMP/help.txt" || bad "parity --help does not list $cmd"
done
[ "$fails" -eq 0 ] || exit 1
echo "ok: server/OPTIONS.md equals parity help --markdown"
