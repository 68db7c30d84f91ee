#!/usr/bin/env bash
# cudp-hmmsearch on a database larger than the GPU memory it may use, on the GPU machine: the GPU tests of
# cudp-hmmsearch, cudp-phmmer and cudp-hmmscan, compute-sanitizer on a small streamed search and a small scan of
# three models at once, then a generated database of about 1.5 billion residues searched resident and streamed
# (CUDP_GPU_MEMORY_MB) in the same run, seconds and residues per second side by side.
# Usage (repo root): bench/hmmsearch_stream.sh [SEQUENCES]   (default 4,300,000: about 1.5e9 residues)
# Results under $OUT; TESTS=0 skips the tests and the sanitizers (SANITIZE=0 the sanitizers alone), BENCH=0 the
# benchmark, TEST_REGEX picks the tests (ctest -R). DEBS (default .debs): a folder holding the catch2, hmmer and hmmer-examples .deb files, for the
# tests that compare with hmmsearch, phmmer and hmmscan.
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
SEQS=${1:-4300000}
JOBS=$(nproc)
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
log "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)  commit: ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"
prefix=()
DEBS=${DEBS:-.debs}
if ls "$DEBS"/hmmer_*.deb >/dev/null 2>&1; then
  eval "$(bash bench/unpack_debs.sh "$DEBS" /tmp/cputools 2>/dev/null | grep '^export')"
  prefix+=(-DCUDP_HMMER_EXAMPLES=/tmp/cputools/usr/share/doc/hmmer/examples)
fi
search_path=""
if ls "$DEBS"/catch2_2*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/catch2 && dpkg -x "$DEBS"/catch2_2*.deb /tmp/catch2 && search_path=/tmp/catch2/usr
fi
# Highway from the same folder (libhwy-dev, libhwy1): the host vector backend the GPU tests compare against.
[ -d /tmp/cputools/usr/lib/x86_64-linux-gnu/cmake/hwy ] && search_path="${search_path:+$search_path;}/tmp/cputools/usr"
[ -n "$search_path" ] && prefix+=("-DCMAKE_PREFIX_PATH=$search_path")
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix[@]}" \
  >"$OUT/configure.log" 2>&1 || { log "configure failed"; tail -30 "$OUT/configure.log"; exit 1; }
cmake --build build-gpu -j"$JOBS" --target cudp-hmmsearch cudp-phmmer cudp-hmmscan cudp-gen-db cudp-makedb device_plan7_filters_test device_plan7_parsers_test device_envelopes_test \
  >"$OUT/build.log" 2>&1 || { log "build failed"; grep -E "error" "$OUT/build.log" | head -30; exit 1; }
log "build ok"
hmmsearch=build-gpu/bin/cudp-hmmsearch
examples=${CUDP_EXAMPLES:-/tmp/cputools/usr/share/doc/hmmer/examples}

if [ "${TESTS:-1}" = 1 ]; then
  tests="device_plan7_filters_test|device_plan7_parsers_test|device_envelopes_test|hmmsearch_gpu_memory|daemon.*_cuda|hmmsearch_vs_hmmsearch_.*_cuda"
  tests="${TEST_REGEX:-$tests|phmmer_vs_phmmer_.*_cuda|hmmscan_vs_hmmscan_.*_cuda}"
  (cd build-gpu && ctest -R "$tests" --output-on-failure -j1 --timeout 600 >"$OUT/ctest.log" 2>&1)
  log "hmmsearch, phmmer and hmmscan GPU tests: rc=$? $(grep -E 'tests passed|tests failed' "$OUT/ctest.log")"
  grep -E "Failed|\*\*\*" "$OUT/ctest.log" | tee -a "$OUT/summary.txt"
  # SANITIZE=0 leaves the sanitizers out.
  if [ "${SANITIZE:-1}" = 1 ]; then
    # The parser kernel on its own: the test case of small waves (a few targets each), then the one that keeps every
    # row's cells (envelopes in unihit mode).
    cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
    for tool in memcheck racecheck synccheck; do
      timeout 300 "$cs" --tool $tool --error-exitcode 9 build-gpu/tests/hmmer/device_plan7_parsers_test \
        "Device parsers in waves of a few targets give the same rows" >"$OUT/sanitizer-parsers-$tool.log" 2>&1
      log "compute-sanitizer $tool, device parsers: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-parsers-$tool.log" | tr '\n' ' ')"
      timeout 300 "$cs" --tool $tool --error-exitcode 9 build-gpu/tests/hmmer/device_plan7_parsers_test \
        "Device passes keeping their matrices*" >"$OUT/sanitizer-matrices-$tool.log" 2>&1
      log "compute-sanitizer $tool, device passes keeping their matrices: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-matrices-$tool.log" | tr '\n' ' ')"
      timeout 300 "$cs" --tool $tool --error-exitcode 9 build-gpu/tests/hmmer/device_plan7_parsers_test \
        "Device parsers called off*" >"$OUT/sanitizer-called-off-$tool.log" 2>&1
      log "compute-sanitizer $tool, device parsers called off: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-called-off-$tool.log" | tr '\n' ' ')"
      timeout 300 "$cs" --tool $tool --error-exitcode 9 build-gpu/tests/hmmer/device_envelopes_test "[small]" \
        >"$OUT/sanitizer-envelopes-$tool.log" 2>&1
      log "compute-sanitizer $tool, envelope rescoring: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-envelopes-$tool.log" | tr '\n' ' ')"
    done
    # A streamed search small enough for the sanitizers: about 2 MB of targets in batches of at most 512 KiB.
    build-gpu/bench/cudp-gen-db --seed 3 --sequences 6000 --out /tmp/small.fa >/dev/null 2>&1
    cat "$examples/tutorial/globins4.hmm" "$examples/tutorial/fn3.hmm" >/tmp/small.hmm
    for tool in memcheck racecheck synccheck; do
      CUDP_GPU_MEMORY_MB=257 timeout 300 "$cs" --tool $tool --error-exitcode 9 "$hmmsearch" --backend cuda \
        -o /tmp/small-$tool.out /tmp/small.hmm /tmp/small.fa >"$OUT/sanitizer-$tool.log" 2>&1
      log "compute-sanitizer $tool, streamed search: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-$tool.log" | tr '\n' ' ') $(grep -c 'streamed' /tmp/small-$tool.out) streamed header"
    done
    # cudp-hmmscan with three models at once (three workers, each with its own filters and stream).
    cat /tmp/small.hmm "$examples/tutorial/Pkinase.hmm" >/tmp/small3.hmm
    head -c 300000 /tmp/small.fa | awk '/^>/ { n++ } n <= 400' >/tmp/queries.fa
    for tool in memcheck racecheck synccheck; do
      timeout 300 "$cs" --tool $tool --error-exitcode 9 build-gpu/bin/cudp-hmmscan --backend cuda \
        --cpu 6 -o /tmp/scan-$tool.out /tmp/small3.hmm /tmp/queries.fa >"$OUT/sanitizer-scan-$tool.log" 2>&1
      log "compute-sanitizer $tool, hmmscan with three models at once: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-scan-$tool.log" | tr '\n' ' ')"
    done
  fi
fi

[ "${BENCH:-1}" = 1 ] || exit 0
DATA=/tmp/streamdata
mkdir -p "$DATA"
t0=$(date +%s.%N)
build-gpu/bench/cudp-gen-db --seed 42 --sequences "$SEQS" --out "$DATA/db.fa" 2>"$OUT/gen.log" >/dev/null
build-gpu/bin/cudp-makedb "$DATA/db.fa" "$DATA/db.cudpdb" >"$OUT/makedb.log" 2>&1
rm -f "$DATA/db.fa"
log "database: $(tail -1 "$OUT/gen.log"); made in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}') s"
residues=$(grep -o '[0-9]* residues' "$OUT/gen.log" | head -1 | awk '{print $1}')
# Each model searched resident (no cap) and streamed (a 2 GiB cap: batches of about 0.9 GiB), twice each.
for model in tutorial/globins4.hmm tutorial/Pkinase.hmm testsuite/SMC_N.hmm.gz; do
  name=$(basename "$model" | cut -d. -f1)
  m=/tmp/$name.hmm
  case $model in *.gz) gzip -dc "$examples/$model" >"$m" ;; *) cp "$examples/$model" "$m" ;; esac
  for mode in resident streamed; do
    cap=()
    [ $mode = streamed ] && cap=(env CUDP_GPU_MEMORY_MB=2048)
    for run in 1 2; do
      CUDP_STAGE_TIMES=1 /usr/bin/time -f "%e" -o "$OUT/$name-$mode-$run.time" "${cap[@]}" "$hmmsearch" --backend cuda \
        --tblout "$OUT/$name-$mode.tbl" -o "$OUT/$name-$mode.out" "$m" "$DATA/db.cudpdb" 2>"$OUT/$name-$mode-$run.err"
    done
    search=$(grep -o 'Elapsed: [0-9:.]*' "$OUT/$name-$mode.out" | awk '{split($2,t,":"); printf "%.2f", t[1]*3600+t[2]*60+t[3]}')
    log "$name ($mode): wall $(cat "$OUT/$name-$mode-1.time") / $(cat "$OUT/$name-$mode-2.time") s; search $search s, $(awk -v r="$residues" -v s="$search" 'BEGIN {printf "%.2f", r / s / 1e9}') Gres/s; $(grep -c streamed "$OUT/$name-$mode.out") streamed header; $(grep -E 'start backend|msv kernel|msv filter' "$OUT/$name-$mode-2.err" | sed 's/cudp-hmmsearch: stage *//; s/ *(1 times)//' | tr -s ' ' | tr '\n' ';')"
  done
  if diff <(grep -v '^#' "$OUT/$name-resident.tbl") <(grep -v '^#' "$OUT/$name-streamed.tbl") >/dev/null; then
    log "$name: streamed tblout == resident ($(grep -vc '^#' "$OUT/$name-resident.tbl") rows)"
  else
    log "$name: streamed tblout DIFFERS from resident"
  fi
done
