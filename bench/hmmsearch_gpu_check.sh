#!/usr/bin/env bash
# The GPU checks of a change to the HMMER programs' device code, in one call of the device tool (a few minutes,
# where bench/gpu_check.sh builds and tests everything): builds only the HMMER programs and the filter test, runs
# with SCALING=1 bench/scaling.sh for cudp-hmmsearch alone (its stage times too), the bias filter's GPU test,
# compute-sanitizer (TOOLS, default memcheck racecheck synccheck; TOOLS= none) on the test cases of SANITIZE (test:case ...,
# default the MSV survivors and the bias filter's DNA case), then the GPU oracles of
# cudp-hmmsearch, cudp-phmmer and cudp-hmmscan against HMMER 3.3.2 and the parsers' and envelopes' GPU tests (ctest -L
# gpu, REGEX). Results under $OUT: summary.txt,
# details.tgz. HMMER and Catch2 from .debs/ (pass it in carry).
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
log "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sort | uniq -c | tr -s ' '), $(nproc) cores"
source bench/mpi_env.sh  # as bench/scaling.sh configures, so that its build reuses this one
eval "$(bash bench/unpack_debs.sh .debs /tmp/cputools 2>/dev/null | grep '^export')"
mkdir -p /tmp/catch2 && dpkg -x .debs/catch2_2*.deb /tmp/catch2
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH="/tmp/catch2/usr;/tmp/cputools/usr" -DCUDP_HMMER_EXAMPLES=/tmp/cputools/usr/share/doc/hmmer/examples \
  -DMPI_CXX_COMPILER="$(command -v mpicxx)" \
  >"$OUT/configure.log" 2>&1 || { log "configure failed"; exit 1; }
cmake --build build-gpu -j"$(nproc)" --target cudp-hmmsearch cudp-phmmer cudp-hmmscan cudp-makedb cudp-gen-db \
  device_plan7_filters_test device_bias_filter_test device_plan7_parsers_test device_envelopes_test >"$OUT/build.log" 2>&1 || { log "build failed"; grep -E "error" "$OUT/build.log" | head; exit 1; }
if [ "${SCALING:-0}" = 1 ]; then
  OUT=$OUT/scaling SKIP_SW=1 STAGES=1 bash bench/scaling.sh >/dev/null 2>&1
  tee -a "$OUT/summary.txt" <"$OUT/scaling/summary.txt"  # on standard output too: the device tool shows its tail
  grep -hE "msv|bias|viterbi|forward|envelopes|main|kernels" "$OUT"/scaling/hmmsearch-stages-gpus*.txt >>"$OUT/summary.txt"
fi
build-gpu/tests/hmmer/device_bias_filter_test >"$OUT/bias-test.log" 2>&1
log "device_bias_filter_test: rc=$? $(grep -E 'passed|failed' "$OUT/bias-test.log" | tr '\n' ' ')"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for tool in ${TOOLS-memcheck racecheck synccheck}; do
  for t in ${SANITIZE:-device_plan7_filters_test:*survivors* device_bias_filter_test:*DNA*}; do
    set -- "${t%%:*}" "${t#*:}"
    timeout "${SANITIZER_SECONDS:-90}" "$cs" --tool $tool --error-exitcode 9 build-gpu/tests/hmmer/$1 "$2" \
      >"$OUT/sanitizer-$tool-$1.log" 2>&1
    log "compute-sanitizer $tool, $1 $2: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|passed|failed' "$OUT/sanitizer-$tool-$1.log" | tr '\n' ' ')"
  done
done
(cd build-gpu && timeout "${CTEST_SECONDS:-300}" ctest -L gpu -R "${REGEX:-hmmsearch|phmmer|hmmscan|device_plan7_parsers|device_envelopes}" -j3 --output-on-failure \
  >"$OUT/ctest-gpu.log" 2>&1)
log "ctest -L gpu -R '${REGEX:-hmmsearch|phmmer|hmmscan|device_plan7_parsers|device_envelopes}': rc=$? $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log")"
grep -E "\*\*\*|Failed  " "$OUT/ctest-gpu.log" | tee -a "$OUT/summary.txt"
(cd "$OUT" && tar czf details.tgz --exclude details.tgz . 2>/dev/null)
