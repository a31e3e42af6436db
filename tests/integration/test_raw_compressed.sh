#!/usr/bin/env bash
# Issue 12: raw logs are stored gzip-compressed as <data>/raw/<aa>/<sha256>.gz
# (the address stays the SHA-256 of the bytes the client sent) and
# downloads give the original bytes back: inflated on the fly, or sent as
# they are with Content-Encoding: gzip when the client accepts gzip.  A
# gzip upload is stored as it came (<sha256>, no second compression).
# Files stored byte for byte before compression existed (<sha256>, made by
# hand here while the daemon is stopped) still download, are re-used by an
# upload of the same bytes, kept while referenced and deleted (or, when the
# database cannot vouch for them, quarantined under their own name) like
# compressed ones; a digest with both forms loses both when released.
source "$(dirname "$0")/lib.sh"
need curl sha256sum cmp gzip sqlite3 od
sha() { sha256sum <"$1" | cut -d' ' -f1; }
gz_of() { echo "$DATA/raw/${1:0:2}/$1.gz"; }
plain_of() { echo "$DATA/raw/${1:0:2}/$1"; }
raw_count() { find "$DATA/raw" -type f | wc -l; }
source "$(dirname "$0")/rawdl.sh"

python3 "$G/gen_actlog.py" --layers 40 --out-a "$WORK/a.log" --out-b "$WORK/b.log" >/dev/null
python3 "$G/gen_trainlog.py" --steps 300 --scenario identical --out-a "$WORK/t.log" --out-b "$WORK/t2.log" >/dev/null
SA=$(sha "$WORK/a.log")
SB=$(sha "$WORK/b.log")
ST=$(sha "$WORK/t.log")

start_daemon || exit 1

# --- 1. stored compressed, downloaded byte for byte ------------------------------------
eq "upload A" "$(http POST /runs -F "log=@$WORK/a.log" -F name=a)" 201
A=$(json id)
eq "A's size is the log's" "$(json logs.0.bytes)" "$(stat -c %s "$WORK/a.log")"
eq "A's sha256 is the log's" "$(json logs.0.sha256)" "$SA"
check "A stored as <sha256>.gz" test -f "$(gz_of "$SA")"
check "no plain copy of A" test ! -e "$(plain_of "$SA")"
eq "A's raw file starts with the gzip magic" "$(head -c 2 "$(gz_of "$SA")" | od -An -tx1 | tr -d ' ')" 1f8b
check "A's raw file is under a third of the log" test $(($(stat -c %s "$(gz_of "$SA")") * 3)) -lt "$(stat -c %s "$WORK/a.log")"
check "A's raw file inflates to the log" sh -c "gzip -dc '$(gz_of "$SA")' | cmp -s - '$WORK/a.log'"
download_ok "$A" "$WORK/a.log" "compressed"
# what goes over the wire with Accept-Encoding: gzip is the stored file itself
eq "Accept-Encoding: gzip" "$(get "/runs/$A/logs/0" -H 'Accept-Encoding: gzip')" 200
eq "Content-Encoding: gzip" "$(header Content-Encoding)" gzip
eq "Vary: Accept-Encoding" "$(header Vary)" Accept-Encoding
check "the gzip body is the stored file" cmp -s "$WORK/body" "$(gz_of "$SA")"
# past the first 256 KiB a helper thread compresses (server/gzpipe.c)
python3 "$G/gen_actlog.py" --layers 500 --out-a "$WORK/big.log" --out-b "$WORK/big_b.log" >/dev/null
check "big log is over 6 MB" test "$(stat -c %s "$WORK/big.log")" -gt 6000000
SG=$(sha "$WORK/big.log")
eq "upload a big log (multipart)" "$(http POST /runs -F "log=@$WORK/big.log" -F name=big)" 201
G1=$(json id)
check "big log stored compressed, inflates to the log" sh -c "gzip -dc '$(gz_of "$SG")' | cmp -s - '$WORK/big.log'"
download_ok "$G1" "$WORK/big.log" "big log"
SG2=$(sha "$WORK/big_b.log")
eq "upload a big log (raw body, chunked)" "$(http POST "/runs?name=big2" -H 'Transfer-Encoding: chunked' --data-binary "@$WORK/big_b.log")" 201
check "raw-body big log stored compressed" sh -c "gzip -dc '$(gz_of "$SG2")' | cmp -s - '$WORK/big_b.log'"
eq "raw body upload" "$(http POST "/runs?name=t" --data-binary "@$WORK/t.log")" 201
T=$(json id)
check "training log stored compressed" sh -c "gzip -dc '$(gz_of "$ST")' | cmp -s - '$WORK/t.log'"
download_ok "$T" "$WORK/t.log" "training"

# the WAL is still folded into the database while the daemon runs: commits
# leave that to the checkpointer thread (server/dbpool.c), which copies it
# once it holds STORE_WAL_DUE_PAGES (1000 x 16 KiB) pages
db_size() { stat -c %s "$DATA/parity.db"; }
grown=no
for i in 1 2 3 4; do
	eq "upload the big log again ($i)" "$(http POST /runs -F "log=@$WORK/big.log" -F name=again$i)" 201
	for _ in $(seq 1 30); do
		[ "$(db_size)" -gt 16000000 ] && grown=yes && break
		sleep 0.1
	done
	[ $grown = yes ] && break
done
eq "the database file took the WAL in while the daemon runs" "$grown" yes

# --- 2. a gzip upload is stored as it came ---------------------------------------------
gzip -c "$WORK/b.log" >"$WORK/b.log.gz"
SBZ=$(sha "$WORK/b.log.gz")
eq "gzip upload" "$(http POST /runs -F "log=@$WORK/b.log.gz")" 201
BZ=$(json id)
check "gzip upload stored as <sha256>, as it came" cmp -s "$(plain_of "$SBZ")" "$WORK/b.log.gz"
check "no .gz copy of a gzip upload" test ! -e "$(gz_of "$SBZ")"
eq "gzip upload download" "$(get "/runs/$BZ/logs/0" -H 'Accept-Encoding: gzip')" 200
check "gzip upload downloads as it came" cmp -s "$WORK/body" "$WORK/b.log.gz"
eq "gzip upload has no Content-Encoding" "$(header Content-Encoding)" ""
stop_daemon

# --- 3. files from before compression ----------------------------------------------------
# A's file as an older daemon stored it: the plain bytes, same mtime
gzip -dc "$(gz_of "$SA")" >"$(plain_of "$SA")"
touch -r "$(gz_of "$SA")" "$(plain_of "$SA")"
rm "$(gz_of "$SA")"
# B: stored in both forms (a compressed copy next to an older plain one)
mkdir -p "$DATA/raw/${SB:0:2}"
# unreferenced files the database cannot vouch for (older than it), one per form
O1=$(printf 'a1%062d' 1)
O2=$(printf 'a2%062d' 2)
mkdir -p "$DATA/raw/a1" "$DATA/raw/a2"
echo old >"$DATA/raw/a1/$O1"
echo old | gzip >"$DATA/raw/a2/$O2.gz"
touch -d '2001-01-01' "$DATA/raw/a1/$O1" "$DATA/raw/a2/$O2.gz"
start_daemon || exit 1
check "old plain file kept at start-up (referenced)" cmp -s "$(plain_of "$SA")" "$WORK/a.log"
download_ok "$A" "$WORK/a.log" "old plain file"
eq "old plain file, Accept-Encoding: gzip" "$(get "/runs/$A/logs/0" -H 'Accept-Encoding: gzip')" 200
check "old plain file sent as it is" cmp -s "$WORK/body" "$WORK/a.log"
eq "old plain file gets no Content-Encoding" "$(header Content-Encoding)" ""
check "unreferenced old plain file quarantined under its name" test -f "$DATA/quarantine/a1/$O1"
check "unreferenced old .gz file quarantined under its name" test -f "$DATA/quarantine/a2/$O2.gz"
check "both are out of raw/" test ! -e "$DATA/raw/a1/$O1" -a ! -e "$DATA/raw/a2/$O2.gz"
check "quarantine logged" grep -q "quarantined raw file $O1" "$WORK/daemon.err"
# the same bytes uploaded again re-use the old plain file
n_before=$(raw_count)
eq "upload A's bytes again" "$(http POST /runs -F "log=@$WORK/a.log" -F name=a2)" 201
A2=$(json id)
eq "no new raw file for the same bytes" "$(raw_count)" "$n_before"
check "still no .gz for A's digest" test ! -e "$(gz_of "$SA")"
download_ok "$A2" "$WORK/a.log" "re-used plain file"
eq "delete A" "$(http DELETE "/runs/$A")" 200
check "plain file kept while A2 references it" cmp -s "$(plain_of "$SA")" "$WORK/a.log"
eq "delete A2" "$(http DELETE "/runs/$A2")" 200
check "plain file deleted with its last run" test ! -e "$(plain_of "$SA")"
check "plain file not quarantined" test ! -e "$DATA/quarantine/${SA:0:2}/$SA"

# --- 4. one digest in both forms ----------------------------------------------------------
eq "upload B" "$(http POST /runs -F "log=@$WORK/b.log" -F name=b)" 201
B=$(json id)
cp -p "$WORK/b.log" "$(plain_of "$SB")"
touch -r "$(gz_of "$SB")" "$(plain_of "$SB")"
download_ok "$B" "$WORK/b.log" "both forms"
eq "delete B" "$(http DELETE "/runs/$B")" 200
check "both forms deleted" test ! -e "$(plain_of "$SB")" -a ! -e "$(gz_of "$SB")"

# --- 5. gc and the sweep count bytes on disk ----------------------------------------------
eq "upload B again" "$(http POST /runs -F "log=@$WORK/b.log" -F name=b2)" 201
B2=$(json id)
stored=$(stat -c %s "$(gz_of "$SB")")
sqlite3 "$DATA/parity.db" "PRAGMA foreign_keys=ON; DELETE FROM runs WHERE id=$B2"
out=$("$PARITY_BIN" gc --data "$DATA")
check "gc frees the compressed file's bytes" grep -q "; 1 raw file(s), $stored bytes freed" <<<"$out"
check "gc: the compressed orphan is gone" test ! -e "$(gz_of "$SB")"
eq "no temp files left" "$(find "$DATA/tmp" -type f | wc -l)" 0
stop_daemon
finish
