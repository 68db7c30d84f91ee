#!/usr/bin/env bash
# The tree likelihood's part of bench/device.sh: builds its targets for sm_90, runs its GPU tests, compute-sanitizer
# (memcheck, racecheck, synccheck) on their small cases, cudp-phylo on the GPU against the host on real data, and
# the synthetictest-shaped benchmark (bench/phylo_bench.cu). Results under $OUT.
# Needs Eigen and Boost headers, which the GPU machine lacks: carry .debs-phylo/ (libeigen3-dev, libboost1.74-dev and
# catch2 .deb files: `cd .debs-phylo && apt-get download libeigen3-dev libboost1.74-dev catch2`).
# BENCH=0 skips the benchmark; TESTS=0 the tests and sanitizers.
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
deps=/tmp/phylo-deps
mkdir -p "$deps"
for deb in .debs-phylo/*.deb; do dpkg -x "$deb" "$deps"; done
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)
echo "device: $gpu  commit: ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)} (the copy's git may lag: pass COMMIT=)" | tee "$OUT/summary.txt"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH="$deps/usr;$deps/usr/lib/x86_64-linux-gnu/cmake" -DEigen3_DIR="$deps/usr/share/eigen3/cmake" \
  -DBoost_DIR="$(ls -d "$deps"/usr/lib/x86_64-linux-gnu/cmake/Boost-* | head -1)" >"$OUT/configure.log" 2>&1
cmake --build build-gpu -j"$(nproc)" --target device_tree_likelihood_test cudp-phylo-bench cudp-phylo \
  >"$OUT/build.log" 2>&1 || {
  echo "build failed" | tee -a "$OUT/summary.txt"
  grep -E "error|Eigen|Boost" "$OUT/build.log" "$OUT/configure.log" | head -30
  exit 1
}
summary() { grep -E "$1" "$2" | tr '\n' ' '; }
rc=0
if [ "${TESTS:-1}" != 0 ]; then
  bin=$(find build-gpu/tests -name device_tree_likelihood_test -type f | head -1)
  log="$OUT/device_tree_likelihood_test.log"
  "$bin" >"$log" 2>&1; r=$?
  [ $r = 0 ] || rc=$r
  echo "device_tree_likelihood_test: rc=$r $(summary 'All tests passed|test cases' "$log")" | tee -a "$OUT/summary.txt"
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  for tool in memcheck racecheck synccheck; do
    timeout "${SANITIZER_SECONDS:-150}" "$cs" --tool $tool --error-exitcode 9 "$bin" "[small]" \
      >"$OUT/sanitizer-$tool.log" 2>&1
    r=$?
    [ $r = 0 ] || rc=$r
    echo "compute-sanitizer $tool device_tree_likelihood_test [small]: rc=$r" \
      "$(summary 'ERROR SUMMARY|All tests passed' "$OUT/sanitizer-$tool.log")" | tee -a "$OUT/summary.txt"
  done
  # cudp-phylo end to end on simulated data: the GPU's log-likelihood against the host's, both precisions.
  python3 tests/oracle/make_phylo_data.py /tmp/sim --seed 3 --taxa 200 --sites 20000 >/dev/null
  model=$(python3 tests/oracle/make_phylo_data.py /tmp/sim --seed 3 --taxa 200 --sites 20000 |
          awk '/^rates/{r=$2} /^freqs/{f=$2} END{print "GTR{" r "}+F{" f "}+G4{0.7}+I{0.1}"}')
  for precision in double single; do
    for backend in cuda host; do
      run="$OUT/phylo-$backend-$precision"
      /usr/bin/time -f "%e s" build-gpu/examples/phylo/cudp-phylo evaluate --alignment /tmp/sim.fa --tree /tmp/sim.nwk \
        --model "$model" --precision $precision --backend $backend >"$run.txt" 2>"$run.time"
      echo "cudp-phylo $backend $precision: $(grep log-likelihood "$run.txt") ($(tail -1 "$run.time"))" |
        tee -a "$OUT/summary.txt"
    done
  done
fi
if [ "${BENCH:-1}" != 0 ]; then
  build-gpu/bench/cudp-phylo-bench 2>&1 | tee "$OUT/bench.txt" | tee -a "$OUT/summary.txt"
fi
exit $rc
