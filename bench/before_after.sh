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
rm -rf "$base" && mkdir -p "$base" && tar xf "$tarball" -C "$base"
targets=(cudp-sw-bench cudp-hmm-filter-bench cudp-swsearch cudp-hmmsearch)
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
report=$OUT/before_after.txt
for round in $(seq "$rounds"); do
  for side in before after; do
    b=$([ $side = before ] && echo "$base/build" || echo build-gpu)
    sw=$("$b/bench/cudp-sw-bench" "$DATA/queries.fa" "$DATA/db.cudpdb" s16x2 2>&1 | grep OVERALL)
    hmm=$("$b/bench/cudp-hmm-filter-bench" "$DATA/db.fa" $M/Pkinase.hmm $M/LuxC.hmm $M/Patched.hmm $M/SMC_N.hmm 2>&1 | grep OVERALL)
    e2e=$( { /usr/bin/time -f "%e" "$b/bin/cudp-swsearch" --query "$DATA/queries.fa" --db "$DATA/db.cudpdb" \
             --format tsv --out "$OUT/swsearch-$side.tsv" >/dev/null; } 2>&1 | tail -1)
    hs=$( { /usr/bin/time -f "%e" "$b/bin/cudp-hmmsearch" --tblout "$OUT/hmmsearch-$side.tbl" -o /dev/null \
            $M/SMC_N.hmm "$DATA/db.cudpdb" >/dev/null; } 2>&1 | tail -1)
    echo "round $round $side: sw $sw | hmm filters $hmm | cudp-swsearch 20 queries ${e2e} s | cudp-hmmsearch SMC_N ${hs} s" | tee -a "$report"
  done
done
same_sw=$(cmp -s "$OUT/swsearch-before.tsv" "$OUT/swsearch-after.tsv" && echo identical || echo DIFFERENT)
same_hmm=$(diff <(grep -v '^#' "$OUT/hmmsearch-before.tbl") <(grep -v '^#' "$OUT/hmmsearch-after.tbl") >/dev/null && echo identical || echo DIFFERENT)
log "before_after: cudp-swsearch output $same_sw, cudp-hmmsearch tblout $same_hmm"
grep -E "^round" "$report" >>"$OUT/summary.txt"
