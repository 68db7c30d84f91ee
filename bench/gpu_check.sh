#!/usr/bin/env bash
# Builds for sm_90 and runs the GPU tests, then compute-sanitizer (memcheck, racecheck, synccheck) on the small GPU
# tests: the part of bench/device.sh to run first after a change to device code. Results under $OUT.
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
JOBS=$(nproc)
prefix=()
if ls .debs/catch2_2*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/catch2 && dpkg -x .debs/catch2_2*.deb /tmp/catch2 && prefix+=(-DCMAKE_PREFIX_PATH=/tmp/catch2/usr)
fi
if ls .debs/fasta3_*.deb >/dev/null 2>&1; then
  eval "$(bash bench/unpack_debs.sh .debs /tmp/cputools 2>/dev/null | grep '^export')"
  # HMMER's example files (tutorial, testsuite) for the HMMER oracles: the hmmer-doc package is large, this is its cut.
  [ -f .debs/hmmer-examples-slim.tar.gz ] && tar xzf .debs/hmmer-examples-slim.tar.gz -C /tmp/cputools
  prefix+=(-DCUDP_HMMER_EXAMPLES=/tmp/cputools/usr/share/doc/hmmer/examples -DCUDP_NCBI_DATA=/tmp/cputools/usr/share/ncbi/data
           -DCUDP_LAMBDA_GENOME=/tmp/cputools/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz)
  # EMBOSS's EDNAFULL alone (the emboss-data package is 61 MB), for the DNA sets of the parasail comparisons.
  [ -f .debs/emboss-data/EDNAFULL ] && prefix+=(-DCUDP_EMBOSS_DATA=$PWD/.debs/emboss-data)
fi
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)" | tee "$OUT/summary.txt"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix[@]}" >"$OUT/configure.log" 2>&1
# TARGETS: only these (with CTEST_ARGS -R naming their tests), for a quick turn.
cmake --build build-gpu -j"$JOBS" ${TARGETS:+--target $TARGETS} >"$OUT/build.log" 2>&1 || { echo "build failed" | tee -a "$OUT/summary.txt"; grep -E "error" "$OUT/build.log" | head -30; exit 1; }
rc=0
if [ "${TESTS:-1}" = 1 ]; then
  (cd build-gpu && ctest -L gpu ${CTEST_ARGS:-} --output-on-failure -j1 --timeout 600 >"$OUT/ctest-gpu.log" 2>&1); rc=$?
  echo "ctest -L gpu: rc=$rc; $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log")" | tee -a "$OUT/summary.txt"
  grep -E "Failed|\*\*\*|Passed" "$OUT/ctest-gpu.log" | tee -a "$OUT/summary.txt"
fi
# SANITIZE=0: the GPU tests only (a run after test-only changes); TESTS=0: compute-sanitizer only (a second call
# on the same warm machine, whose build-gpu is kept). CTEST_ARGS: more ctest arguments, e.g. -E or -R.
[ "${SANITIZE:-1}" = 0 ] && exit $rc
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
for tool in memcheck racecheck synccheck; do
  # SANITIZE_TESTS: ';'-separated "binary [catch filter]" entries instead of these.
  IFS=';' read -r -a sanitized <<<"${SANITIZE_TESTS:-device_observers_test [small];device_row_passes_test [small];device_leaves_test [small];device_scorer_front_door_test *local;device_plan7_filters_test *survivors*;device_bias_filter_test *DNA*}"
  for t in "${sanitized[@]}"; do
    set -- $t
    bin=$(find build-gpu/tests -name "$1" -type f | head -1)
    timeout "${SANITIZER_SECONDS:-150}" "$cs" --tool $tool --error-exitcode 9 "$bin" "$2" >"$OUT/sanitizer-$tool-$1.log" 2>&1
    echo "compute-sanitizer $tool $1: rc=$? $(grep -E 'ERROR SUMMARY|All tests passed|test cases' "$OUT/sanitizer-$tool-$1.log" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
  done
done
