#!/usr/bin/env bash
# Raw log downloads (GET /runs/{id}/logs/{rank}) on either store backend
# (integration.test_raw_download on SQLite, integration.pg.test_raw_download
# with PARITY_BACKEND=pg): every upload form (multipart, raw body, chunked,
# a gzip upload, a log of several MiB, a training log) downloads byte for
# byte, plain, with curl --compressed, with Accept-Encoding: gzip (the
# stored gzip stream, Content-Encoding: gzip) and with gzip;q=0; a gzip
# upload comes back as it came (application/gzip, .gz name, no
# Content-Encoding); a missing rank is a 404.  On PostgreSQL the raw logs
# live in the database (raw_blobs / raw_chunks, issue 17): no file is
# left under the data dir, one blob per content however often it is
# uploaded, and deleting a run keeps the blob for `parity gc`.
# test_raw_compressed checks SQLite's files on disk.
source "$(dirname "$0")/lib.sh"
need curl cmp gzip
source "$(dirname "$0")/rawdl.sh"

python3 "$G/gen_actlog.py" --layers 40 --out-a "$WORK/a.log" --out-b "$WORK/b.log" >/dev/null
python3 "$G/gen_actlog.py" --layers 500 --out-a "$WORK/big.log" --out-b "$WORK/big_b.log" >/dev/null
python3 "$G/gen_trainlog.py" --steps 300 --scenario identical --out-a "$WORK/t.log" --out-b "$WORK/t2.log" >/dev/null
gzip -6 -n -c "$WORK/b.log" >"$WORK/b.log.gz"

start_daemon || exit 1

eq "upload a (multipart)" "$(http POST /runs -F "log=@$WORK/a.log" -F name=a)" 201
A=$(json id)
download_ok "$A" "$WORK/a.log" "multipart"
download_gz_ok "$A" "$WORK/a.log" "multipart"
check "big log is over 6 MB" test "$(stat -c %s "$WORK/big.log")" -gt 6000000
eq "upload big (raw body, chunked)" "$(http POST "/runs?name=big" -H 'Transfer-Encoding: chunked' --data-binary "@$WORK/big.log")" 201
BIG=$(json id)
download_ok "$BIG" "$WORK/big.log" "big raw body"
download_gz_ok "$BIG" "$WORK/big.log" "big raw body"
eq "upload a training log" "$(http POST "/runs?name=t" --data-binary "@$WORK/t.log")" 201
T=$(json id)
download_ok "$T" "$WORK/t.log" "training"
download_gz_ok "$T" "$WORK/t.log" "training"

# a gzip upload comes back as it came
eq "gzip upload" "$(http POST /runs -F "log=@$WORK/b.log.gz")" 201
BZ=$(json id)
for ae in "" "gzip"; do
	eq "gzip upload download (Accept-Encoding '$ae')" "$(get "/runs/$BZ/logs/0" -H "Accept-Encoding: $ae")" 200
	check "gzip upload downloads as it came ('$ae')" cmp -s "$WORK/body" "$WORK/b.log.gz"
	eq "gzip upload: no Content-Encoding ('$ae')" "$(header Content-Encoding)" ""
	eq "gzip upload: application/gzip ('$ae')" "$(header Content-Type)" application/gzip
	check "gzip upload: a .gz name ('$ae')" sh -c "tr -d '\r' <'$WORK/headers' | grep -qi 'filename=\"run_${BZ}_rank_0.log.gz\"'"
done

eq "a missing rank" "$(get "/runs/$A/logs/7")" 404

if [ "$PARITY_BACKEND" = pg ]; then
	# the raw logs are rows: nothing under the data dir but temp space
	eq "no raw file under the data dir" "$(find "$DATA" -type f ! -path "$DATA/tmp/*" | wc -l)" 0
	eq "one blob per content" "$(db_sql 'SELECT count(*) FROM raw_blobs')" 4
	check "the big log's blob spans several 1 MiB chunks" test "$(db_sql 'SELECT max(n_chunks) FROM raw_blobs')" -ge 2
	eq "upload a again" "$(http POST /runs -F "log=@$WORK/a.log" -F name=a2)" 201
	A2=$(json id)
	eq "still one blob per content" "$(db_sql 'SELECT count(*) FROM raw_blobs')" 4
	eq "chunks add up" "$(db_sql 'SELECT count(*) FROM raw_chunks')" "$(db_sql 'SELECT sum(n_chunks) FROM raw_blobs')"
	eq "delete run a" "$(http DELETE "/runs/$A")" 200
	download_ok "$A2" "$WORK/a.log" "the same content in another run"
	download_gz_ok "$A2" "$WORK/a.log" "the same content in another run"
	eq "a deleted run's blob stays for parity gc" "$(db_sql 'SELECT count(*) FROM raw_blobs')" 4
fi
check "no temp files left" no_temp_files
stop_daemon
finish
