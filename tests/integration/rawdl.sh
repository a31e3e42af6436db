# rawdl.sh - helpers of the raw log download tests (test_raw_download,
# test_raw_compressed), sourced after lib.sh: get URL [curl args] (body to
# $WORK/body, headers to $WORK/headers, prints the status), header NAME,
# download_ok RUN LOG LABEL (every way of downloading rank 0 gives LOG
# byte for byte) and download_gz_ok RUN LOG LABEL (the gzip encoding).  Not a test itself (no test_ prefix).
# header NAME: the value of a response header in $WORK/headers ('' when absent)
header() { tr -d '\r' <"$WORK/headers" | awk -v h="$1" 'BEGIN{IGNORECASE=1} index(tolower($0), tolower(h) ": ") == 1 {sub(/^[^:]*: /, ""); print}'; }
get() {
	local url=$1
	shift
	curl -s -D "$WORK/headers" -o "$WORK/body" -w '%{http_code}' "$@" "$BASE$url"
}
# download_ok RUN LOG LABEL: every way of downloading rank 0 gives LOG byte for byte
download_ok() {
	local run=$1 log=$2 label=$3
	eq "$label: plain download" "$(get "/runs/$run/logs/0")" 200
	check "$label: plain download is the log" cmp -s "$WORK/body" "$log"
	eq "$label: plain download has no Content-Encoding" "$(header Content-Encoding)" ""
	eq "$label: Content-Length is the log's size" "$(header Content-Length)" "$(stat -c %s "$log")"
	eq "$label: curl --compressed" "$(get "/runs/$run/logs/0" --compressed)" 200
	check "$label: curl --compressed gives the log" cmp -s "$WORK/body" "$log"
	eq "$label: Accept-Encoding gzip;q=0" "$(get "/runs/$run/logs/0" -H 'Accept-Encoding: gzip;q=0')" 200
	check "$label: q=0 download is the log" cmp -s "$WORK/body" "$log"
	eq "$label: q=0 gets no Content-Encoding" "$(header Content-Encoding)" ""
}
# download_gz_ok RUN LOG LABEL: a compressed raw log with Accept-Encoding:
# gzip comes as its stored gzip stream (Content-Encoding: gzip)
download_gz_ok() {
	local run=$1 log=$2 label=$3
	eq "$label: Accept-Encoding: gzip" "$(get "/runs/$run/logs/0" -H 'Accept-Encoding: gzip')" 200
	eq "$label: Content-Encoding: gzip" "$(header Content-Encoding)" gzip
	eq "$label: Vary: Accept-Encoding" "$(header Vary)" Accept-Encoding
	eq "$label: gzip Content-Length is the body's" "$(header Content-Length)" "$(stat -c %s "$WORK/body")"
	check "$label: the gzip body inflates to the log" sh -c "gzip -dc '$WORK/body' | cmp -s - '$log'"
}
