#!/usr/bin/env bash
# The linear-space aligner's part of bench/device.sh, for a run after a change to align/ alone: builds only its
# targets for sm_90, runs its GPU tests, compute-sanitizer (memcheck, racecheck, synccheck) on their small cases,
# and the regime benchmarks (batches and one long pair, leaves on the device and on the host). Results under $OUT.
# BENCH=0 skips the benchmarks; TESTS=0 the tests and sanitizers; SANITIZE_TESTS (default: both test programs, empty:
# none) and SANITIZE_CASES (a Catch2 filter, default "[small]") choose what the sanitizers run.
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
prefix=()
if ls .debs/catch2_2*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/catch2 && dpkg -x .debs/catch2_2*.deb /tmp/catch2 && prefix+=(-DCMAKE_PREFIX_PATH=/tmp/catch2/usr)
fi
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)" | tee "$OUT/summary.txt"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix[@]}" >"$OUT/configure.log" 2>&1
cmake --build build-gpu -j"$(nproc)" --target device_leaves_test device_row_passes_test cudp-row-passes-bench cudp-align \
  >"$OUT/build.log" 2>&1 || { echo "build failed" | tee -a "$OUT/summary.txt"; grep -E "error" "$OUT/build.log" | head -30; exit 1; }
rc=0
if [ "${TESTS:-1}" != 0 ]; then
  for t in device_leaves_test device_row_passes_test; do
    bin=$(find build-gpu/tests -name "$t" -type f | head -1)
    "$bin" >"$OUT/$t.log" 2>&1; r=$?
    [ $r = 0 ] || rc=$r
    echo "$t: rc=$r $(grep -E 'All tests passed|test cases' "$OUT/$t.log" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
  done
  # Every cudp-align format recomputed from its inputs, every run on the GPU.
  CUDP_ALIGN_ARGS="--backend cuda" python3 tests/apps/align_checks.py build-gpu/bin/cudp-align . \
    >"$OUT/align_checks_cuda.log" 2>&1; r=$?
  [ $r = 0 ] || rc=$r
  echo "align_checks (cuda): rc=$r $(tail -1 "$OUT/align_checks_cuda.log")" | tee -a "$OUT/summary.txt"
  # Pairs cut at checkpoint rows on the device: the same scores as the host backend's.
  python3 bench/align_checkpoint_check.py build-gpu/bin/cudp-align >"$OUT/align_checkpoint_check.log" 2>&1; r=$?
  [ $r = 0 ] || rc=$r
  echo "align_checkpoint_check: rc=$r $(tr '\n' ' ' <"$OUT/align_checkpoint_check.log")" | tee -a "$OUT/summary.txt"
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  for t in ${SANITIZE_TESTS-device_leaves_test device_row_passes_test}; do
    for tool in memcheck racecheck synccheck; do
      bin=$(find build-gpu/tests -name "$t" -type f | head -1)
      timeout "${SANITIZER_SECONDS:-150}" "$cs" --tool $tool --error-exitcode 9 "$bin" "${SANITIZE_CASES:-[small]}" \
        >"$OUT/sanitizer-$t-$tool.log" 2>&1
      r=$?
      [ $r = 0 ] || rc=$r
      echo "compute-sanitizer $tool $t [small]: rc=$r $(grep -E 'ERROR SUMMARY|All tests passed' "$OUT/sanitizer-$t-$tool.log" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
    done
  done
fi
if [ "${BENCH:-1}" != 0 ]; then
  bench=build-gpu/bench/cudp-row-passes-bench
  {
    "$bench" batch 100000 100 1000 protein --leaf=1100000
    "$bench" batch 100000 100 1000 protein --leaf=1100000
    "$bench" batch 20000 100 1000 protein --leaf=4096 --host-leaves
    "$bench" batch 10000 1000 10000 dna --leaf=1100000
    # The same cut at checkpoint rows as cudp-align sets them (boxes from 4e6 cells, 512 rows apart at least).
    "$bench" batch 10000 1000 10000 dna --leaf=1100000 --checkpoints=4e6 --checkpoint-rows=512 --checkpoint-mib=16384
    "$bench" batch 2000 100 1000 protein --leaf=1100000 --check
    # Locating a long pair's ends: one 1 Mbp pass's best cell in each mode and scope.
    "$bench" locate 1000000
    # Local and semi-global: ends located on the device, then on the host, same batch.
    "$bench" batch 100000 100 1000 protein --leaf=1100000 --mode=local
    "$bench" batch 100000 100 1000 protein --leaf=1100000 --mode=semiglobal
    "$bench" batch 10000 1000 10000 dna --leaf=1100000 --mode=local
    # Myers-Miller alone, then with checkpoint rows as cudp-align sets them (boxes from 4e6 cells, up to 32 rows at
    # least 512 apart, kept on the device).
    for n in 100000 300000 1000000; do
      "$bench" align $n --leaf=1100000
      "$bench" align $n --leaf=1100000 --checkpoints=4e6 --checkpoint-rows=512 --checkpoint-mib=16384
    done
    if [ "${LONG:-0}" != 0 ]; then "$bench" align 10000000 --leaf=1100000 --checkpoints=4e6 --checkpoint-rows=512 --checkpoint-mib=16384; fi
  } 2>&1 | tee "$OUT/bench.txt" | grep -E "batch|align|host|time:|score|checkpoints" | tee -a "$OUT/summary.txt"
fi
exit $rc
