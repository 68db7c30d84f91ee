#!/usr/bin/env bash
# cudp-hmmscan against hmmscan --cpu <all cores> on the GPU machine: a generated library of FAMILIES profiles
# (hmmbuild on alignments of random families, lengths 40-1000) and a proteome of PROTEINS sequences with members of
# a third of the families planted, searched end to end by both in the same run; tables compared by names and scores.
# Usage (repo root): bench/hmmscan_bench.sh [FAMILIES] [PROTEINS]   (defaults 3000, 5000). Results under $OUT.
# DEBS (default .debs): a folder with the hmmer .deb files (hmmbuild, hmmpress, hmmscan). HMMSCAN=0: cudp only.
# HMMSCAN_SLICE=k/n: hmmscan searches only the k-th of n equal runs of the proteome (for jobs whose hmmscan time
# passes one device call; the slices' times add up to the whole job's), compared with cudp's rows for them.
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
FAMILIES=${1:-3000}
PROTEINS=${2:-5000}
JOBS=$(nproc)
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
log "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)  commit: ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"
DEBS=${DEBS:-.debs}
eval "$(bash bench/unpack_debs.sh "$DEBS" /tmp/cputools 2>/dev/null | grep '^export')"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 >"$OUT/configure.log" 2>&1 ||
  { log "configure failed"; tail -30 "$OUT/configure.log"; exit 1; }
cmake --build build-gpu -j"$JOBS" --target cudp-hmmscan >"$OUT/build.log" 2>&1 ||
  { log "build failed"; grep -E "error" "$OUT/build.log" | head -30; exit 1; }
W=/tmp/hmmscan-bench-$FAMILIES-$PROTEINS
if [ ! -f "$W/lib.hmm.h3m" ]; then
  rm -rf "$W"
  t0=$(date +%s.%N)
  python3 bench/make_profile_library.py "$FAMILIES" "$PROTEINS" "$W"
  ls "$W"/aln/*.sto | xargs -P "$JOBS" -I{} hmmbuild --amino -o /dev/null {}.hmm {}
  cat "$W"/aln/*.sto.hmm >"$W/lib.hmm"
  hmmpress "$W/lib.hmm" >/dev/null
  log "library: $(grep -c '^NAME' "$W/lib.hmm") models, $(awk '/^LENG/ {s += $2} END {print s}' "$W/lib.hmm") nodes; proteome: $(grep -c '>' "$W/proteome.fa") sequences, $(grep -v '>' "$W/proteome.fa" | tr -d '\n' | wc -c) residues; made in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.0f", b - a}') s"
fi
for run in 1 2; do
  CUDP_STAGE_TIMES=1 /usr/bin/time -f "%e" -o "$OUT/cudp-$run.time" build-gpu/bin/cudp-hmmscan \
    --backend cuda --tblout "$OUT/cudp.tbl" -o "$OUT/cudp.out" "$W/lib.hmm" "$W/proteome.fa" 2>"$OUT/cudp-$run.err"
done
log "cudp-hmmscan --backend cuda: $(cat "$OUT/cudp-1.time") s, again $(cat "$OUT/cudp-2.time") s; $(grep -E 'stage|filter kernels' "$OUT/cudp-2.err" | sed 's/^cudp-[a-z]*: //; s/stage *//; s/ *(.*times)//' | tr -s ' ' | tr '\n' ';')"
[ "${HMMSCAN:-1}" = 1 ] || exit 0
QUERIES="$W/proteome.fa"
SLICE=${HMMSCAN_SLICE:-1/1}
if [ "$SLICE" != 1/1 ]; then
  QUERIES="$W/slice.fa"
  awk -v k="${SLICE%/*}" -v n="${SLICE#*/}" -v total="$(grep -c '>' "$W/proteome.fa")" '
    /^>/ { r++ } { if (int((r - 1) * n / total) + 1 == k) print }' "$W/proteome.fa" >"$QUERIES"
fi
/usr/bin/time -f "%e" -o "$OUT/hmmscan.time" hmmscan --cpu "$JOBS" --tblout "$OUT/hmmer.tbl" -o /dev/null \
  "$W/lib.hmm" "$QUERIES"
rows=$(grep -vc '^#' "$OUT/hmmer.tbl")
same=$(diff <(grep -v '^#' "$OUT/hmmer.tbl" | awk '{print $1, $3, $6}') \
  <(grep '>' "$QUERIES" | sed 's/^>//; s/ .*//' | awk 'NR == FNR { want[$1] = 1; next } !/^#/ && ($3 in want)' - \
    "$OUT/cudp.tbl" | awk '{print $1, $3, $6}') >/dev/null && echo same || echo DIFFERENT)
log "hmmscan --cpu $JOBS on slice $SLICE ($(grep -c '>' "$QUERIES") sequences): $(cat "$OUT/hmmscan.time") s; \
cudp-hmmscan on the whole $(awk -v a="$(cat "$OUT/hmmscan.time")" -v b="$(cat "$OUT/cudp-2.time")" 'BEGIN {printf "%.1f", a / b}')x \
faster than this slice alone; tblout names+scores $same ($rows hits)"
