#!/usr/bin/env bash
# Issue 23 F13: the PDF path never aborts.  `parity compare a b -o x.pdf`
# on extreme series (+-1e308, NaN, +-inf, 1e-308) exited 134 about 4-12 %
# of the time: a cairo assertion when web_fonts_release reset cairo's
# static data while one of pango's worker threads still held the font map
# (web/pdf_doc.c).  Here 30 writes of an identical extreme pair all exit 0
# (pass) and 30 of a differing one all exit 1 (fail), each a whole PDF.
source "$(dirname "$0")/lib.sh"

printf '1 1e308\n2 -1e308\n3 1.0\n4 nan\n5 inf\n6 -inf\n7 1e-308\n' >"$WORK/e.txt"
printf '1 -1e308\n2 1e308\n3 2.0\n4 1e308\n5 -inf\n6 nan\n7 0\n' >"$WORK/f.txt"

# writes A B WANT: 30 PDF writes of A vs B, each must exit WANT
writes() {
	local i rc odd=""
	for i in $(seq 1 30); do
		rm -f "$WORK/x.pdf"
		rc=0
		"$PARITY_BIN" compare "$1" "$2" -o "$WORK/x.pdf" >/dev/null 2>"$WORK/err" || rc=$?
		if [ "$rc" != "$3" ]; then
			odd="$odd write $i: exit $rc ($(tail -n 1 "$WORK/err"));"
			continue
		fi
		[ "$(head -c 5 "$WORK/x.pdf")" = "%PDF-" ] && tail -c 8 "$WORK/x.pdf" | grep -q '%%EOF' ||
			odd="$odd write $i: not a whole PDF;"
	done
	eq "30 PDF writes of $(basename "$1") vs $(basename "$2") exit $3" "$odd" ""
}
writes "$WORK/e.txt" "$WORK/e.txt" 0
writes "$WORK/e.txt" "$WORK/f.txt" 1
finish
