#!/usr/bin/env bash
# ClustalW's stage 1 on the GPU (include/cudp/msa/device_clustal_distances.cuh), for a run after a change to it:
# builds only its targets for sm_90, runs its GPU test (every distance against the host's), compute-sanitizer
# (memcheck, racecheck, synccheck) on the test's [small] case, and the benchmark (N = 500 and 2000 sequences of
# 100-500 residues against the host's clustal_distances on all cores, distances checked equal, each strip height
# of STRIPS timed). With clustalw's package in .debs-msa and the oracle data in .debs, also cudp-msa --backend cuda
# against clustalw (ctest msa_vs_clustalw_*_cuda) and cudp-msa end to end on emitted Pkinase families (E2E_N,
# default "2000"), host and GPU stage times and the .aln compared. Results under $OUT. BENCH=0 skips the benchmark;
# TESTS=0 the tests and the sanitizers; ORACLES=0 the clustalw comparisons; E2E_N="" the end-to-end runs.
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
oracles=0
if [ "${ORACLES:-1}" != 0 ] && ls .debs-msa/clustalw_*.deb >/dev/null 2>&1 &&
  ls .debs/hmmer-examples-slim.tar.gz .debs/bowtie2-examples_*.deb >/dev/null 2>&1; then
  eval "$(bash bench/unpack_debs.sh .debs-msa /tmp/msa-tools 2>/dev/null)"
  mkdir -p /tmp/msa-data && tar xzf .debs/hmmer-examples-slim.tar.gz -C /tmp/msa-data &&
    dpkg -x .debs/bowtie2-examples_*.deb /tmp/msa-data
  prefix+=(-DCUDP_HMMER_EXAMPLES=/tmp/msa-data/usr/share/doc/hmmer/examples
           -DCUDP_LAMBDA_GENOME=/tmp/msa-data/usr/share/doc/bowtie2/examples/reference/lambda_virus.fa.gz)
  oracles=1
fi
cmake -S . -B build-gpu "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix[@]}" \
  >"$OUT/configure.log" 2>&1
targets=(cudp-msa-distances-bench)
[ $oracles = 1 ] || [ -n "${E2E_N-2000}" ] && targets+=(cudp-msa)
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
  if [ $oracles = 1 ]; then
    (cd build-gpu && ctest -R 'msa_vs_clustalw_.*_cuda' --output-on-failure -j4 >"$OUT/ctest-msa-cuda.log" 2>&1)
    r=$?
    [ $r = 0 ] || rc=$r
    echo "ctest msa_vs_clustalw_*_cuda: rc=$r; $(grep -E 'tests passed|tests failed' "$OUT/ctest-msa-cuda.log")" |
      tee -a "$OUT/summary.txt"
  fi
fi
if [ "${BENCH:-1}" != 0 ]; then
  bench=$(find build-gpu -name cudp-msa-distances-bench -type f | head -1)
  # About 2 minutes, most of it the host's 2M pairs at N = 2000 (0.7 ms a pair of 300 residues on one core).
  strips=${STRIPS:-8,4,16,1}
  for args in "500 100 500 protein --strips=$strips" "2000 100 500 protein --repeat=2 --strips=$strips" \
    "500 100 500 dna --strips=$strips"; do
    $bench $args || echo "FAILED (rc=$?): cudp-msa-distances-bench $args"
  done 2>&1 | tee "$OUT/bench.txt" | grep -E "msa_distances|gpu:|host|FAILED|bench" | tee -a "$OUT/summary.txt"
  grep -q FAILED "$OUT/bench.txt" && rc=1
fi
model=/tmp/msa-data/usr/share/doc/hmmer/examples/tutorial/Pkinase.hmm
if [ -n "${E2E_N-2000}" ] && command -v hmmemit >/dev/null && [ -f "$model" ]; then
  msa=build-gpu/bin/cudp-msa
  for n in ${E2E_N-2000}; do
    hmmemit -N "$n" --seed 1 -o /tmp/msa-data/e$n.fa "$model"
    for backend in cuda host; do
      start=$(date +%s%N)
      CUDP_STAGE_TIMES=1 $msa /tmp/msa-data/e$n.fa -o /tmp/msa-data/e$n.$backend.aln --backend $backend --quiet \
        2>"$OUT/e2e-$n-$backend.txt"
      r=$?
      [ $r = 0 ] || rc=$r
      echo "cudp-msa N=$n --backend $backend: rc=$r, $(( ($(date +%s%N) - start) / 1000000 )) ms;" \
        "$(grep -E 'pairwise|progressive' "$OUT/e2e-$n-$backend.txt" | tr -s ' ' | tr '\n' ';')" |
        tee -a "$OUT/summary.txt"
    done
    if cmp -s /tmp/msa-data/e$n.cuda.aln /tmp/msa-data/e$n.host.aln; then
      echo "N=$n: cuda and host .aln identical" | tee -a "$OUT/summary.txt"
    else
      echo "N=$n: cuda and host .aln DIFFER" | tee -a "$OUT/summary.txt"
      rc=1
    fi
  done
fi
echo "rc=$rc" | tee -a "$OUT/summary.txt"
exit $rc
