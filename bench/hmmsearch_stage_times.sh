#!/usr/bin/env bash
# Where a cudp-hmmsearch search spends its time, stage by stage (CUDP_STAGE_TIMES=1), with the envelopes shared
# between the GPU and the host threads (the default) and left to the host (CUDP_DEVICE_ENVELOPES=0), on the
# benchmark database of bench/device.sh (570,000 generated sequences, with PLANT_HMM's samples when given).
# Usage (repo root, on the GPU machine): MODELS="a.hmm b.hmm" [PLANT_HMM="c.hmm"] [SETTINGS="A=1;A=2 B=0"]
#   bench/hmmsearch_stage_times.sh
# DEBS (default .debs) holds the catch2, hmmer and hmmer-examples .deb files. Results under $OUT.
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
DEBS=${DEBS:-.debs}
eval "$(bash bench/unpack_debs.sh "$DEBS" /tmp/cputools 2>/dev/null | grep '^export')"
mkdir -p /tmp/catch2 && dpkg -x "$DEBS"/catch2_2*.deb /tmp/catch2
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH=/tmp/catch2/usr >"$OUT/configure.log" 2>&1 &&
  cmake --build build-gpu -j"$(nproc)" --target cudp-hmmsearch cudp-makedb cudp-gen-db >"$OUT/build.log" 2>&1 ||
  { echo "build failed"; grep -E "error" "$OUT/build.log" | head -20; exit 1; }
build-gpu/bench/cudp-gen-db --seed 42 --sequences "${SEQS:-570000}" --out /tmp/db.fa --queries-out /tmp/q.fa \
  --plant 5 >/dev/null 2>&1
for m in ${PLANT_HMM:-}; do
  hmmemit -N 150 --seed 7 "$m"
  hmmemit -p -N 150 --seed 8 "$m"
done | sed "s/^>/>planted_/" >>/tmp/db.fa
build-gpu/bin/cudp-makedb /tmp/db.fa /tmp/db.cudpdb >/dev/null 2>&1
# SETTINGS: the environment of each variant, ";" between variants (default: the envelopes shared, then on the host).
IFS=';' read -r -a settings <<<"${SETTINGS:-CUDP_DEVICE_ENVELOPES=;CUDP_DEVICE_ENVELOPES=0}"
for model in $MODELS; do
  for setting in "${settings[@]}"; do
    for run in 1 2; do
      env $setting CUDP_STAGE_TIMES=1 build-gpu/bin/cudp-hmmsearch --backend cuda --tblout /tmp/t.tbl \
        -o /dev/null "$model" /tmp/db.cudpdb 2>"$OUT/stages.err"
      echo "== $(basename "$model") ${setting:-defaults} run $run: $(grep -vc '^#' /tmp/t.tbl) hits"
      grep -E "stage|main" "$OUT/stages.err" | grep -vE "read|cuda|backend start" | sed 's/^cudp-hmmsearch: stage/  /'
    done
  done
done
