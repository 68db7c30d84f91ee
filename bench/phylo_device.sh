#!/usr/bin/env bash
# The tree likelihood's part of bench/device.sh: builds its targets for sm_90, runs its GPU tests, compute-sanitizer
# (memcheck, racecheck, synccheck) on their small cases, cudp-phylo on the GPU against the host on real data, and
# the synthetictest-shaped benchmark (bench/phylo_bench.cu). Results under $OUT.
# The BEAGLE-compatible library too (apps/beagle): its GPU test, the same under compute-sanitizer, and unmodified
# MrBayes on its CUDA resource against its host one (tests/beagle/mb_trace.sh gpu).
# Needs what the GPU machine lacks: carry .debs-phylo/ (`cd .debs-phylo && apt-get download libeigen3-dev
# libboost1.74-dev catch2 libhmsbeagle-dev libhmsbeagle1v5 mrbayes libreadline8`).
# BENCH=0 skips the benchmark; TESTS=0 the tests and sanitizers; CLI=0 cudp-phylo (its build and its end-to-end
# run); BUILD=0 the configure and build, running what BUILD_DIR (default build-gpu) already holds, e.g. x86-64
# binaries built elsewhere and carried (their CUDA runtime is found under /usr/local/cuda).
set -uo pipefail
OUT=${OUT:-$PWD/out}
BUILD_DIR=${BUILD_DIR:-build-gpu}
mkdir -p "$OUT"
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)
echo "device: $gpu  commit: ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)} (the copy's git may lag: pass COMMIT=)" | tee "$OUT/summary.txt"
targets="device_tree_likelihood_test cudp-phylo-bench cudp_beagle beagle_gpu_test"
deps=/tmp/phylo-deps
[ "${CLI:-1}" != 0 ] && targets="$targets cudp-phylo"
if [ "${BUILD:-1}" != 0 ]; then
  mkdir -p "$deps"
  for deb in .debs-phylo/*.deb; do dpkg -x "$deb" "$deps"; done
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH="$deps/usr;$deps/usr/lib/x86_64-linux-gnu/cmake" -DEigen3_DIR="$deps/usr/share/eigen3/cmake" \
    -DBoost_DIR="$(ls -d "$deps"/usr/lib/x86_64-linux-gnu/cmake/Boost-* | head -1)" \
    -DCUDP_BEAGLE_INCLUDE_DIR="$deps/usr/include/libhmsbeagle-1" -DCUDP_MB="$deps/usr/bin/mb" \
    -DCUDP_MRBAYES_EXAMPLES="$deps/usr/share/doc/mrbayes/examples" >"$OUT/configure.log" 2>&1
  # shellcheck disable=SC2086
  cmake --build "$BUILD_DIR" -j"$(nproc)" --target $targets >"$OUT/build.log" 2>&1 || {
    echo "build failed" | tee -a "$OUT/summary.txt"
    grep -E "error|Eigen|Boost" "$OUT/build.log" "$OUT/configure.log" | head -30
    exit 1
  }
else
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
summary() { grep -E "$1" "$2" | tr '\n' ' '; }
rc=0
if [ "${TESTS:-1}" != 0 ]; then
  bin=$(find "$BUILD_DIR"/tests -name device_tree_likelihood_test -type f | head -1)
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
  # The BEAGLE drop-in: the CUDA resource against the host one, clean under the sanitizers, and MrBayes on it.
  beagle=$(find "$BUILD_DIR"/tests -name beagle_gpu_test -type f | head -1)
  if [ -n "$beagle" ]; then
    "$beagle" >"$OUT/beagle_gpu_test.log" 2>&1; r=$?
    [ $r = 0 ] || rc=$r
    echo "beagle_gpu_test: rc=$r $(summary 'All tests passed|test cases' "$OUT/beagle_gpu_test.log")" |
      tee -a "$OUT/summary.txt"
    for tool in memcheck racecheck synccheck; do
      timeout "${SANITIZER_SECONDS:-150}" "$cs" --tool $tool --error-exitcode 9 "$beagle" \
        "GPU deep trees rescale as the host does" >"$OUT/sanitizer-beagle-$tool.log" 2>&1
      r=$?
      [ $r = 0 ] || rc=$r
      echo "compute-sanitizer $tool beagle_gpu_test [deep trees]: rc=$r" \
        "$(summary 'ERROR SUMMARY|All tests passed' "$OUT/sanitizer-beagle-$tool.log")" | tee -a "$OUT/summary.txt"
    done
    lib=$(dirname "$(find "$BUILD_DIR"/examples -name libhmsbeagle.so.1 | head -1)")
    ( export LD_LIBRARY_PATH=$deps/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
      MB=$deps/usr/bin/mb /usr/bin/time -f "%e s" bash tests/beagle/mb_trace.sh gpu "$lib" \
        "$deps/usr/share/doc/mrbayes/examples" /tmp/mb-gpu ) >"$OUT/mb_trace_gpu.log" 2>&1
    r=$?
    [ $r = 0 ] || rc=$r
    { echo "MrBayes on the CUDA resource against the host one (1000 generations): rc=$r"
      grep -vE "^$" "$OUT/mb_trace_gpu.log" | tail -8; } | tee -a "$OUT/summary.txt"
  fi
  # MrBayes on Debian's BEAGLE (its CPU resource) against the drop-in's host resource on this machine's cores.
  if [ -n "$beagle" ] && [ -f "$deps/usr/lib/x86_64-linux-gnu/libhmsbeagle.so.1" ]; then
    ( MB=$deps/usr/bin/mb DEBIAN_BEAGLE_DIR=$deps/usr/lib/x86_64-linux-gnu bash tests/beagle/mb_trace.sh debian "$lib" \
        "$deps/usr/share/doc/mrbayes/examples" /tmp/mb-debian ) >"$OUT/mb_trace_debian.log" 2>&1
    r=$?
    [ $r = 0 ] || rc=$r
    { echo "MrBayes on the drop-in's host resource against Debian's BEAGLE (1000 generations): rc=$r"
      grep -vE "^$" "$OUT/mb_trace_debian.log" | tail -8; } | tee -a "$OUT/summary.txt"
  fi
  # cudp-phylo end to end on simulated data: the GPU's log-likelihood against the host's, both precisions.
  if [ "${CLI:-1}" != 0 ]; then
    python3 tests/oracle/make_phylo_data.py /tmp/sim --seed 3 --taxa 200 --sites 20000 >/dev/null
    model=$(python3 tests/oracle/make_phylo_data.py /tmp/sim --seed 3 --taxa 200 --sites 20000 |
            awk '/^rates/{r=$2} /^freqs/{f=$2} END{print "GTR{" r "}+F{" f "}+G4{0.7}+I{0.1}"}')
    for precision in double single; do
      for backend in cuda host; do
        run="$OUT/phylo-$backend-$precision"
        /usr/bin/time -f "%e s" "$BUILD_DIR"/bin/cudp-phylo evaluate --alignment /tmp/sim.fa \
          --tree /tmp/sim.nwk --model "$model" --precision $precision --backend $backend >"$run.txt" 2>"$run.time"
        echo "cudp-phylo $backend $precision: $(grep log-likelihood "$run.txt") ($(tail -1 "$run.time"))" |
          tee -a "$OUT/summary.txt"
      done
    done
    # --optimize branches,model on both backends: the same optimum, and the time each takes.
    python3 tests/oracle/make_phylo_data.py /tmp/opt --seed 4 --taxa 60 --sites 5000 >/dev/null
    for backend in cuda host; do
      run="$OUT/phylo-optimize-$backend"
      /usr/bin/time -f "%e s" "$BUILD_DIR"/bin/cudp-phylo evaluate --alignment /tmp/opt.fa \
        --tree /tmp/opt.nwk --model GTR+F+G4+I --optimize branches,model --backend $backend >"$run.txt" 2>"$run.time"
      echo "cudp-phylo --optimize branches,model $backend: $(grep -E '^(optimised \(|log-likelihood)' "$run.txt" |
        tr '\n' ' ') ($(tail -1 "$run.time"))" | tee -a "$OUT/summary.txt"
    done
    # IQ-TREE's -te on the same data and topology, on all cores, when its .deb was carried.
    if [ -x "$deps/usr/bin/iqtree2" ]; then
      /usr/bin/time -f "%e s" "$deps/usr/bin/iqtree2" -s /tmp/opt.fa -te /tmp/opt.nwk -m GTR+F+G4+I -nt "$(nproc)" \
        -redo -pre /tmp/opt-iq -quiet >"$OUT/iqtree.txt" 2>&1
      echo "iqtree2 -te -nt $(nproc): $(grep 'Log-likelihood of the tree' /tmp/opt-iq.iqtree) ($(tail -1 "$OUT/iqtree.txt"))" |
        tee -a "$OUT/summary.txt"
    fi
  fi
fi
if [ "${BENCH:-1}" != 0 ]; then
  "$BUILD_DIR"/bench/cudp-phylo-bench ${BENCH_ARGS:-} 2>&1 | tee "$OUT/bench.txt" | tee -a "$OUT/summary.txt"
fi
exit $rc
