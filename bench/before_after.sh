#!/usr/bin/env bash
# Before and after a change, in one device run: builds a baseline source tree beside the current one and runs the
# same benchmarks on both, alternating, so that the two sets of figures share the GPU, the clocks and the data.
# Usage (repo root, after bench/device.sh has built build-gpu/ and generated bench/data/):
#   bench/before_after.sh BASELINE.tar [ROUNDS]
# BASELINE.tar: `git archive <commit> -o .baseline/<commit>.tar` made where git is (the device machine may have no
# history). Results go to $OUT/before_after.txt and the summary.
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
tarball=$1
rounds=${2:-2}
JOBS=$(nproc)
DATA=bench/data
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
[ -f "$DATA/db.cudpdb" ] || { log "before_after: run bench/device.sh first (no $DATA/db.cudpdb)"; exit 1; }

base=/tmp/cudp-baseline
# KEEP_BASELINE=1: a baseline already built there (an earlier call on the same machine) is built again only where
# it is out of date.
if [ -z "${KEEP_BASELINE:-}" ] || [ ! -d "$base/build" ]; then
  rm -rf "$base" && mkdir -p "$base" && tar xf "$tarball" -C "$base"
fi
targets=(cudp-sw-bench cudp-hmm-filter-bench cudp-swsearch cudp-hmmsearch cudp-phmmer cudp-hmmscan cudp-align cudp-phylo)
cmake -S "$base" -B "$base/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCUDP_BUILD_TESTS=OFF \
  >"$OUT/baseline-configure.log" 2>&1 && cmake --build "$base/build" -j"$JOBS" --target "${targets[@]}" >"$OUT/baseline-build.log" 2>&1 ||
  { log "baseline build failed"; tail -20 "$OUT/baseline-build.log"; exit 1; }
cmake --build build-gpu -j"$JOBS" --target "${targets[@]}" >"$OUT/current-build.log" 2>&1 || { log "current build failed"; exit 1; }
log "before_after: baseline $(basename "$tarball" .tar) vs current $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $rounds rounds"

M=/tmp/models
EX=/tmp/cputools/usr/share/doc/hmmer/examples
mkdir -p $M
for m in tutorial/Pkinase testsuite/SMC_N testsuite/Patched testsuite/LuxC; do
  zcat -f $EX/$m.hmm* > $M/$(basename $m).hmm 2>/dev/null
done
# A tool of a build: build/bin/ since the applications moved to apps/, build/examples/<tool>/ before.
tool() { if [ -x "$1/bin/$2" ]; then echo "$1/bin/$2"; else find "$1/examples" -name "$2" -type f -perm -u+x | head -1; fi; }
# cudp-align: 10,000 related protein pairs of 100-1000 aa, one to one, SAM out; cudp-phmmer: the first 5 queries
# against the database; cudp-hmmscan: 2000 database sequences against the 4 models; cudp-phylo: the bundled alignment
# and tree, GTR+G4, branch lengths optimised.
python3 bench/make_protein_batch.py 10000 100 1000 11 /tmp/ba_q.fa /tmp/ba_t.fa protein one-to-one >/dev/null
awk '/^>/{n++} n<=5' "$DATA/queries.fa" > /tmp/ba_q5.fa
awk '/^>/{n++} n<=2000' "$DATA/db.fa" > /tmp/ba_db2000.fa
cat $M/*.hmm > /tmp/ba_models.hmm
report=$OUT/before_after.txt
for round in $(seq "$rounds"); do
  for side in before after; do
    b=$([ $side = before ] && echo "$base/build" || echo build-gpu)
    sw=$("$b/bench/cudp-sw-bench" "$DATA/queries.fa" "$DATA/db.cudpdb" s16x2 2>&1 | grep OVERALL)
    hmm=$("$b/bench/cudp-hmm-filter-bench" "$DATA/db.fa" $M/Pkinase.hmm $M/LuxC.hmm $M/Patched.hmm $M/SMC_N.hmm 2>&1 | grep OVERALL)
    e2e=$( { /usr/bin/time -f "%e" "$(tool "$b" cudp-swsearch)" --query "$DATA/queries.fa" --db "$DATA/db.cudpdb" \
             --format tsv --out "$OUT/swsearch-$side.tsv" >/dev/null; } 2>&1 | tail -1)
    hs=$( { /usr/bin/time -f "%e" "$(tool "$b" cudp-hmmsearch)" --tblout "$OUT/hmmsearch-$side.tbl" -o /dev/null \
            $M/SMC_N.hmm "$DATA/db.cudpdb" >/dev/null; } 2>&1 | tail -1)
    al=$( { /usr/bin/time -f "%e" "$(tool "$b" cudp-align)" --query /tmp/ba_q.fa --target /tmp/ba_t.fa --format sam \
            --out "$OUT/align-$side.sam" >/dev/null; } 2>&1 | tail -1)
    pm=$( { /usr/bin/time -f "%e" "$(tool "$b" cudp-phmmer)" --tblout "$OUT/phmmer-$side.tbl" -o /dev/null /tmp/ba_q5.fa \
            "$DATA/db.cudpdb" >/dev/null; } 2>&1 | tail -1)
    sc=$( { /usr/bin/time -f "%e" "$(tool "$b" cudp-hmmscan)" --tblout "$OUT/hmmscan-$side.tbl" -o /dev/null \
            /tmp/ba_models.hmm /tmp/ba_db2000.fa >/dev/null; } 2>&1 | tail -1)
    ph=$( { /usr/bin/time -f "%e" "$(tool "$b" cudp-phylo)" evaluate --alignment apps/data/phylo/sim.fa \
            --tree apps/data/phylo/sim.nwk --model GTR+G4 --optimize branches --out "$OUT/phylo-$side.txt" \
            >/dev/null; } 2>&1 | tail -1)
    echo "round $round $side: sw $sw | hmm filters $hmm | cudp-swsearch 20 queries ${e2e} s | cudp-hmmsearch SMC_N ${hs} s | cudp-align 10k pairs ${al} s | cudp-phmmer 5 queries ${pm} s | cudp-hmmscan 2000 x 4 ${sc} s | cudp-phylo ${ph} s" | tee -a "$report"
  done
done
same_sw=$(cmp -s "$OUT/swsearch-before.tsv" "$OUT/swsearch-after.tsv" && echo identical || echo DIFFERENT)
same_hmm=$(diff <(grep -v '^#' "$OUT/hmmsearch-before.tbl") <(grep -v '^#' "$OUT/hmmsearch-after.tbl") >/dev/null && echo identical || echo DIFFERENT)
same() { diff <(grep -v -e '^#' -e '^@PG' "$1") <(grep -v -e '^#' -e '^@PG' "$2") >/dev/null && echo identical || echo DIFFERENT; }
log "before_after: cudp-swsearch output $same_sw, cudp-hmmsearch tblout $same_hmm, cudp-align SAM $(same "$OUT/align-before.sam" "$OUT/align-after.sam"), cudp-phmmer tblout $(same "$OUT/phmmer-before.tbl" "$OUT/phmmer-after.tbl"), cudp-hmmscan tblout $(same "$OUT/hmmscan-before.tbl" "$OUT/hmmscan-after.tbl"), cudp-phylo report $(same "$OUT/phylo-before.txt" "$OUT/phylo-after.txt")"
grep -E "^round" "$report" >>"$OUT/summary.txt"
