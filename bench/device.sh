#!/usr/bin/env bash
# The one script for the GPU machine: builds for sm_90, runs the GPU tests, then the benchmarks.
# Usage (from the repo root): bench/device.sh [SEQUENCES]   -- results and logs go to $OUT (default ./out).
# Optional: .debs/ holding fasta3 .deb files (apt-get download fasta3) for the side-by-side CPU comparison, with
# parasail, libparasail8, ncbi-data and libhwy1, libhwy-dev for the host backend's (HOST_ONLY=1 below);
# .debs-align/ with the EMBOSS bundle and parasail (bench/align_vs_cpu.sh) for the alignment comparison.
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
SEQS=${1:-570000}
JOBS=$(nproc)
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
# The device tool returns only a few files: everything but the summary goes back in one archive.
finish() {
  (cd "$OUT" && ls | grep -v -e '^summary.txt$' -e '^details.tgz$' | tar czf details.tgz -T - --remove-files)
  cat "$OUT/summary.txt"
  exit 0
}

log "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)  commit: ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"
# The GPU image may carry Catch2 3; the tests are written for the 2.13 of our CI, carried as a .deb in .debs/.
prefix=()
# Reference tools for the oracle tests and the CPU comparison, unpacked from .debs/ (the machine has no registry).
have_cpu_tools=0
if ls .debs/fasta3_*.deb >/dev/null 2>&1; then
  eval "$(bash bench/unpack_debs.sh .debs /tmp/cputools 2>/dev/null | grep '^export')"
  have_cpu_tools=1
  prefix+=(-DCUDP_HMMER_EXAMPLES=/tmp/cputools/usr/share/doc/hmmer/examples)
  # BLAST's matrix files (ncbi-data in .debs/), read by the swsearch oracles' alignment checks.
  [ -n "${CUDP_NCBI_DATA:-}" ] && prefix+=("-DCUDP_NCBI_DATA=$CUDP_NCBI_DATA")
fi
search_path=""
if ls .debs/catch2_2*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/catch2 && dpkg -x .debs/catch2_2*.deb /tmp/catch2 && search_path=/tmp/catch2/usr
fi
# Highway (libhwy-dev, libhwy1 in .debs/), for the host backend's vector lanes: unpacked with the CPU tools.
[ -d /tmp/cputools/usr/lib/x86_64-linux-gnu/cmake/hwy ] && search_path="${search_path:+$search_path;}/tmp/cputools/usr"
[ -n "$search_path" ] && prefix+=("-DCMAKE_PREFIX_PATH=$search_path")

# HOST_ONLY=1: the host backend alone, no CUDA: its tests, then bench/host_search.sh on all cores against
# ssearch36 and parasail (QUERIES, default the ladder's q01 q05 q08 q10 q15 q17 q20).
if [ -n "${HOST_ONLY:-}" ]; then
  log "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2) x $JOBS; commit: ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"
  cmake -S . -B build-host -G Ninja -DCMAKE_BUILD_TYPE=Release -DCUDP_ENABLE_CUDA=OFF "${prefix[@]}" >"$OUT/configure.log" 2>&1 &&
    cmake --build build-host -j"$JOBS" --target host_vector_test host_vector_lanes_test striped_vector_test scorer_test \
      cudp-swsearch cudp-gen-db >"$OUT/build.log" 2>&1 ||
    { log "host build failed"; grep -E "error|Error" "$OUT/build.log" "$OUT/configure.log" | head -30; finish; }
  for t in engine/host_vector_test lanes/host_vector_lanes_test hmmer/striped_vector_test scorer_test; do
    build-host/tests/$t >"$OUT/$(basename $t).log" 2>&1; log "$t: rc=$? $(tail -2 "$OUT/$(basename $t).log" | tr '\n' ' ')"
  done
  OUT="$OUT/host" BUILD=build-host SEQS="$SEQS" THREADS="$JOBS" QUERIES="${QUERIES:-q01 q05 q08 q10 q15 q17 q20}" \
    bash bench/host_search.sh >/dev/null 2>&1
  sed 's/^/== /' "$OUT/host/host_search.log" >>"$OUT/summary.txt"
  finish
fi
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix[@]}" >"$OUT/configure.log" 2>&1 || { log "configure failed"; tail -30 "$OUT/configure.log"; exit 1; }
# HMM_ONLY=1: just what the HMMER part needs (its GPU test, the filter benchmark, cudp-hmmsearch), for quick turns;
# E2E_ONLY=1: only cudp-hmmsearch against hmmsearch (no tests, no filter benchmark).
targets=()
[ -n "${HMM_ONLY:-}" ] && { targets=(--target device_plan7_filters_test cudp-hmm-filter-bench cudp-hmmsearch cudp-makedb cudp-gen-db); SKIP_SW=1; }
[ -n "${E2E_ONLY:-}" ] && { targets=(--target cudp-hmmsearch cudp-makedb cudp-gen-db cudp-envelope-bench); SKIP_SW=1; }
cmake --build build-gpu -j"$JOBS" "${targets[@]}" >"$OUT/build.log" 2>&1 || { log "build failed"; grep -E "error" "$OUT/build.log" | head -30; exit 1; }
log "build ok"

if [ -n "${E2E_ONLY:-}" ]; then
  rc=skipped
elif [ -n "${GPU_TESTS_ONLY:-}" ]; then
  # GPU_TESTS_ONLY=1: the whole GPU suite and nothing else (a REGEX narrows it).
  (cd build-gpu && ctest -L gpu ${REGEX:+-R "$REGEX"} --output-on-failure -j2 --timeout 600 >"$OUT/ctest-gpu.log" 2>&1); rc=$?
  log "ctest -L gpu: rc=$rc; $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log")"
  grep -E "Failed|\*\*\*" "$OUT/ctest-gpu.log" | tee -a "$OUT/summary.txt"
  finish
elif [ -n "${HMM_ONLY:-}" ]; then
  (cd build-gpu && ctest -R device_plan7_filters_test --output-on-failure >"$OUT/ctest-gpu.log" 2>&1); rc=$?
else
  (cd build-gpu && ctest -L gpu --output-on-failure -j1 >"$OUT/ctest-gpu.log" 2>&1); rc=$?
fi
log "ctest -L gpu: rc=$rc; $(grep -E 'tests passed|tests failed' "$OUT/ctest-gpu.log")"
grep -E "All tests passed|test cases|FAILED|Passed|Failed" "$OUT/ctest-gpu.log" | tail -20

DATA=bench/data
mkdir -p "$DATA"
if [ ! -f "$DATA/db.fa" ]; then
  build-gpu/bench/cudp-gen-db --seed 42 --sequences "$SEQS" --out "$DATA/db.fa" --queries-out "$DATA/queries.fa" --plant 5 >"$OUT/gen.log" 2>&1
fi
# PLANT_HMM="a.hmm b.hmm": hmmemit samples of these models join the database (150 core-model sequences and 150
# local multihit ones each, seeded), so that their searches report hundreds of domains.
if [ -n "${PLANT_HMM:-}" ] && [ ! -f "$DATA/planted" ]; then
  for m in $PLANT_HMM; do
    hmmemit -N 150 --seed 7 "$m"
    hmmemit -p -N 150 --seed 8 "$m"
  done | sed "s/^>/>planted_/" >>"$DATA/db.fa"
  touch "$DATA/planted"
fi
/usr/bin/time -v build-gpu/bin/cudp-makedb "$DATA/db.fa" "$DATA/db.cudpdb" 2>"$OUT/makedb.log"
log "makedb: $(grep -E 'Elapsed' "$OUT/makedb.log")"

# HMMER: the filters alone (GCUPS per model size), then cudp-hmmsearch against hmmsearch on all cores, same data:
# the real models of about 100, 260, 400, 800 and 1100 nodes one at a time, then a batch of 20 models in one run.
EX=/tmp/cputools/usr/share/doc/hmmer/examples
# Whether $1-$2.tbl and $1-$2.out (cudp, daemon) agree with hmmer-$2.*: tblout names and scores, filter pass counts.
agreement() {
  local table stages
  table=$(diff <(grep -v '^#' "$OUT/$1-$2.tbl" | awk '{print $1, $3, $6}') <(grep -v '^#' "$OUT/hmmer-$2.tbl" | awk '{print $1, $3, $6}') >/dev/null && echo same || echo DIFFERENT)
  stages=$(diff <(grep -E "^Passed|^Target" "$OUT/$1-$2.out") <(grep -E "^Passed|^Target" "$OUT/hmmer-$2.out") >/dev/null && echo same || echo DIFFERENT)
  echo "tblout names+scores $table ($(grep -vc '^#' "$OUT/hmmer-$2.tbl") hits); filter pass counts $stages"
}
if [ -z "${SKIP_HMM:-}" ]; then
  mkdir -p /tmp/models
  for m in tutorial/fn3 tutorial/globins4 tutorial/Pkinase testsuite/20aa testsuite/2OG-FeII_Oxy_3 testsuite/Caudal_act \
           testsuite/LuxC testsuite/Patched testsuite/RRM_1 testsuite/SMC_N testsuite/M1 testsuite/XYPPX; do
    zcat -f $EX/$m.hmm* > /tmp/models/$(basename $m).hmm 2>/dev/null
  done
  M=/tmp/models
  [ -z "${E2E_ONLY:-}" ] && build-gpu/bench/cudp-hmm-filter-bench "$DATA/db.fa" $M/fn3.hmm $M/globins4.hmm $M/2OG-FeII_Oxy_3.hmm $M/Pkinase.hmm \
    $M/LuxC.hmm $M/Patched.hmm $M/SMC_N.hmm 2>&1 | tee "$OUT/hmm-filter-bench.txt" | grep -E "OVERALL|MISMATCH|error"
  grep -E "GCUPS|MISMATCH" "$OUT/hmm-filter-bench.txt" >>"$OUT/summary.txt" 2>/dev/null
  # 20 models: the 12 protein models of hmmer-examples, the first 8 of them twice, all in HMMER3/f (hmmsearch
  # refuses a file mixing save formats).
  ls $M/*.hmm | sort > /tmp/models.list
  for f in $(cat /tmp/models.list) $(head -8 /tmp/models.list); do hmmconvert "$f"; done > /tmp/batch20.hmm
  if [ -x build-gpu/bin/cudp-hmmsearch ] && [ "$have_cpu_tools" = 1 ]; then
    for model in ${HMM_MODELS:-$M/2OG-FeII_Oxy_3.hmm $M/Pkinase.hmm $M/LuxC.hmm $M/Patched.hmm $M/SMC_N.hmm /tmp/batch20.hmm}; do
      name=$(basename "$model" .hmm)
      CUDP_STAGE_TIMES=1 /usr/bin/time -f "%e" -o "$OUT/cudp-hmmsearch-$name.time" build-gpu/bin/cudp-hmmsearch \
        --tblout "$OUT/cudp-$name.tbl" -o "$OUT/cudp-$name.out" "$model" "$DATA/db.cudpdb" 2>"$OUT/cudp-hmmsearch-$name.err"
      /usr/bin/time -f "%e" -o "$OUT/hmmsearch-$name.time" hmmsearch --cpu "$JOBS" --tblout "$OUT/hmmer-$name.tbl" \
        -o "$OUT/hmmer-$name.out" "$model" "$DATA/db.fa"
      grep -E "stage|kernels" "$OUT/cudp-hmmsearch-$name.err"
      log "hmmsearch $name: cudp-hmmsearch $(cat "$OUT/cudp-hmmsearch-$name.time") s (pipeline $(grep -o 'Elapsed: [0-9:.]*' "$OUT/cudp-$name.out" | awk '{split($2,t,":"); s+=t[1]*3600+t[2]*60+t[3]} END {printf "%.2f", s}') s), hmmsearch --cpu $JOBS $(cat "$OUT/hmmsearch-$name.time") s; $(agreement cudp "$name")"
    done
    # The same searches run in a daemon that holds the database and the CUDA context (--daemon/--connect): wall
    # time as the client sees it, twice per model, against the hmmsearch times measured above.
    sock=/tmp/cudp-hmmsearch-bench.sock
    t0=$(date +%s.%N)
    build-gpu/bin/cudp-hmmsearch --daemon "$sock" "$DATA/db.cudpdb" 2>"$OUT/daemon.err" &
    daemon=$!
    until grep -q serving "$OUT/daemon.err" 2>/dev/null || ! kill -0 "$daemon" 2>/dev/null; do sleep 0.02; done
    log "daemon: ready in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') s: $(head -1 "$OUT/daemon.err")"
    for model in ${HMM_MODELS:-$M/2OG-FeII_Oxy_3.hmm $M/Pkinase.hmm $M/LuxC.hmm $M/Patched.hmm $M/SMC_N.hmm /tmp/batch20.hmm}; do
      name=$(basename "$model" .hmm)
      for run in 1 2; do
        /usr/bin/time -f "%e" -o "$OUT/daemon-$name-$run.time" build-gpu/bin/cudp-hmmsearch --connect "$sock" \
          --tblout "$OUT/daemon-$name.tbl" -o "$OUT/daemon-$name.out" "$model" "$DATA/db.cudpdb"
      done
      log "hmmsearch $name in the daemon: $(cat "$OUT/daemon-$name-1.time") s, again $(cat "$OUT/daemon-$name-2.time") s; hmmsearch --cpu $JOBS $(cat "$OUT/hmmsearch-$name.time") s; $(agreement daemon "$name")"
    done
    kill -TERM "$daemon"; wait "$daemon"
    # The host's work per domain envelope of each model (an envelope as long as the model), on one core and on all.
    if [ -x build-gpu/bench/cudp-envelope-bench ]; then
      for model in ${HMM_MODELS:-$M/Patched.hmm $M/SMC_N.hmm}; do
        for threads in 1 "$JOBS"; do
          log "envelope rescoring on the host: $(build-gpu/bench/cudp-envelope-bench "$model" 0 "$threads" 4 2>&1 | tail -1)"
        done
      done
    fi
  fi
fi
[ -n "${SKIP_SW:-}" ] && finish

build-gpu/bench/cudp-sw-bench "$DATA/queries.fa" "$DATA/db.cudpdb" "${LANES:-s16x2,s8x4,s32,h16x2}" 2>&1 | tee "$OUT/sw-bench.txt" | grep -E "OVERALL|MISMATCH"
grep -E "OVERALL|MISMATCH" "$OUT/sw-bench.txt" >>"$OUT/summary.txt"
# Tier-table experiments: the same ladder with every target on one tier (CUDP_TIERS=thread_max,warp_max).
for tiers in ${TIER_SWEEP:-}; do
  CUDP_TIERS=$tiers build-gpu/bench/cudp-sw-bench "$DATA/queries.fa" "$DATA/db.cudpdb" s16x2 >"$OUT/sw-bench-tiers-${tiers/,/-}.txt" 2>&1
  echo "tiers $tiers: $(grep OVERALL "$OUT/sw-bench-tiers-${tiers/,/-}.txt")" | tee -a "$OUT/summary.txt"
done

# Warp-tier shape experiments: the ladder with every query forced into one shape (CUDP_WARP_SHAPE=G,R).
for shape in ${WARP_SWEEP:-}; do
  CUDP_WARP_SHAPE=$shape build-gpu/bench/cudp-sw-bench "$DATA/queries.fa" "$DATA/db.cudpdb" s16x2 >"$OUT/sw-bench-warp-${shape/,/x}.txt" 2>&1
  echo "warp shape $shape: $(grep OVERALL "$OUT/sw-bench-warp-${shape/,/x}.txt")" | tee -a "$OUT/summary.txt"
done

# End to end, application as a user runs it: all queries, from the packed database.
/usr/bin/time -f "%e s wall" build-gpu/bin/cudp-swsearch --query "$DATA/queries.fa" --db "$DATA/db.cudpdb" \
  --format text --out "$OUT/swsearch.txt" 2>"$OUT/swsearch.time"
log "cudp-swsearch end to end: $(cat "$OUT/swsearch.time") ; $(grep GCUPS "$OUT/swsearch.txt")"

# The CPU reference on all cores of this host, same data, same run.
if [ "$have_cpu_tools" = 1 ]; then
  # one mid-length query of the ladder against the whole database, with all threads
  Q=$(awk '/^>/{n++} n==10' "$DATA/queries.fa" | head -c 100000); echo "$Q" > "$DATA/q10.fa"
  start=$(date +%s.%N)
  ssearch36 -T "$JOBS" -q -p -s "$CUDP_NCBI_DATA/BLOSUM62" -f 11 -g 1 -d 0 -b 10 "$DATA/q10.fa" "$DATA/db.fa" >"$OUT/ssearch36.txt" 2>&1
  end=$(date +%s.%N)
  qlen=$(grep -v '>' "$DATA/q10.fa" | tr -d '\n' | wc -c)
  res=$(grep -v '>' "$DATA/db.fa" | tr -d '\n' | wc -c)
  python3 - "$start" "$end" "$qlen" "$res" <<'PY' | tee -a "$OUT/summary.txt"
import sys
s, e, q, r = map(float, sys.argv[1:])
print(f"== ssearch36 {int(q)} aa vs {int(r)} residues, all cores: {e-s:.1f} s, {q*r/(e-s)/1e9:.2f} GCUPS")
PY
fi

# Linear-space alignment beside EMBOSS stretcher and parasail (bench/align_vs_cpu.sh), when their bundle is carried.
if [ -f .debs-align/emboss-slim.tar.gz ]; then
  cmake --build build-gpu -j"$JOBS" --target cudp-row-passes-bench >"$OUT/align-build.log" 2>&1 &&
    OUT="$OUT" bash bench/align_vs_cpu.sh build-gpu .debs-align >/dev/null 2>&1
  sed 's/^/== /' "$OUT/align_vs_cpu.txt" >>"$OUT/summary.txt"
fi
finish
