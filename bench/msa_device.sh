#!/usr/bin/env bash
# ClustalW's stage 1 on the GPU (include/cudp/msa/device_clustal_distances.cuh), for a run after a change to it:
# builds only its targets for sm_90, runs its GPU test (every distance against the host's), compute-sanitizer
# (memcheck, racecheck, synccheck) on the test's [small] case, and the benchmark (N = 500 and 2000 sequences of
# 100-500 residues against the host's clustal_distances on all cores, distances checked equal). Results under $OUT;
# needs no clustalw. BENCH=0 skips the benchmark; TESTS=0 the test and the sanitizers.
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
prefix=()
if ls .debs/catch2_2*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/catch2 && dpkg -x .debs/catch2_2*.deb /tmp/catch2 && prefix+=(-DCMAKE_PREFIX_PATH=/tmp/catch2/usr)
fi
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
echo "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)" | tee "$OUT/summary.txt"
cmake -S . -B build-gpu "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix[@]}" \
  >"$OUT/configure.log" 2>&1
targets=(cudp-msa-distances-bench)
[ "${TESTS:-1}" != 0 ] && targets+=(device_clustal_distances_test)
cmake --build build-gpu -j"$(nproc)" --target "${targets[@]}" >"$OUT/build.log" 2>&1 ||
  { echo "build failed" | tee -a "$OUT/summary.txt"; grep -E "error" "$OUT/build.log" | head -30; exit 1; }
rc=0
if [ "${TESTS:-1}" != 0 ]; then
  t=device_clustal_distances_test
  bin=$(find build-gpu/tests -name "$t" -type f | head -1)
  start=$SECONDS
  "$bin" >"$OUT/$t.log" 2>&1; r=$?
  [ $r = 0 ] || rc=$r
  echo "$t: rc=$r ($((SECONDS - start)) s) $(grep -E 'All tests passed|test cases' "$OUT/$t.log" | tr '\n' ' ')" |
    tee -a "$OUT/summary.txt"
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  for tool in memcheck racecheck synccheck; do
    timeout "${SANITIZER_SECONDS:-300}" "$cs" --tool $tool --error-exitcode 9 "$bin" "[small]" \
      >"$OUT/sanitizer-$t-$tool.log" 2>&1
    r=$?
    [ $r = 0 ] || rc=$r
    echo "compute-sanitizer $tool $t [small]: rc=$r $(grep -E 'ERROR SUMMARY|All tests passed|test cases' \
      "$OUT/sanitizer-$t-$tool.log" | tr '\n' ' ')" | tee -a "$OUT/summary.txt"
  done
fi
if [ "${BENCH:-1}" != 0 ]; then
  bench=$(find build-gpu -name cudp-msa-distances-bench -type f | head -1)
  # About 2 minutes, most of it the host's 2M pairs at N = 2000 (0.7 ms a pair of 300 residues on one core).
  for args in "500 100 500 protein" "2000 100 500 protein --repeat=2" "500 100 500 dna"; do
    $bench $args || echo "FAILED (rc=$?): cudp-msa-distances-bench $args"
  done 2>&1 | tee "$OUT/bench.txt" | grep -E "msa_distances|gpu:|host|FAILED|bench" | tee -a "$OUT/summary.txt"
  grep -q FAILED "$OUT/bench.txt" && rc=1
fi
echo "rc=$rc" | tee -a "$OUT/summary.txt"
exit $rc
