#!/usr/bin/env bash
# Scaling over the GPUs of one machine, on the GPU machine: cudp-swsearch and cudp-hmmsearch against a generated
# database of about 1e9 residues (packed), in one process on 1..G GPUs (--gpus N) and as K MPI processes with a GPU
# each (mpirun -np K --bind-to none). Per configuration: wall time, the search's own time (swsearch: its scoring
# wall time and GCUPS; hmmsearch: the models' elapsed times), efficiency against one GPU (time on one GPU / (N x
# time on N)), and whether the outputs are byte for byte those of one GPU.
# Usage (repo root, on the GPU machine): [TESTS=1] bench/scaling.sh [SEQUENCES]   (default 2,900,000: ~1e9 residues)
# Results under $OUT: summary.txt, scaling.tsv. TESTS=1 first runs the GPU tests of the split (the front door's
# device test, under compute-sanitizer too: SANITIZERS, default "memcheck racecheck synccheck") and the MPI scripts
# with the CUDA backend (their --gpus all runs; MPI_TESTS, default "swsearch hmmsearch align"); BENCH=0 leaves the benchmark out (one call of the device tool may
# not hold both: run TESTS=1 BENCH=0, then the benchmark, on the same warm machine, whose build-gpu is kept). NSYS=1
# adds a profile of cudp-swsearch on all the GPUs under Nsight Systems, where the machine has it; STAGES=1 the stage
# times of cudp-hmmsearch on one GPU and on all.
# Open MPI from the machine or .debs-mpi/, HMMER's example models from .debs/ (as bench/mpi_device.sh).
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
SEQS=${1:-2900000}
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
gpus=$(nvidia-smi -L | wc -l)
cores=$(nproc)
log "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sort | uniq -c | tr -s ' '), $cores cores; commit ${COMMIT:-$(git rev-parse --short HEAD 2>/dev/null)}"
source bench/mpi_env.sh
eval "$(bash bench/unpack_debs.sh .debs /tmp/cputools 2>/dev/null | grep '^export')"
prefix=()
[ -d /tmp/cputools/usr/share/doc/hmmer/examples ] && prefix+=(-DCUDP_HMMER_EXAMPLES=/tmp/cputools/usr/share/doc/hmmer/examples)
if ls .debs/catch2_2*.deb >/dev/null 2>&1; then
  mkdir -p /tmp/catch2 && dpkg -x .debs/catch2_2*.deb /tmp/catch2 && prefix+=(-DCMAKE_PREFIX_PATH="/tmp/catch2/usr;/tmp/cputools/usr")
fi
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "${prefix[@]}" \
  -DMPI_CXX_COMPILER="$(command -v mpicxx)" >"$OUT/configure.log" 2>&1 || { log "configure failed"; tail -20 "$OUT/configure.log"; exit 1; }
targets=(cudp-swsearch cudp-hmmsearch cudp-makedb cudp-gen-db)
[[ " ${MPI_TESTS-swsearch hmmsearch align} " == *" align "* ]] && [ "${TESTS:-0}" = 1 ] && targets+=(cudp-align)
[ "${TESTS:-0}" = 1 ] && targets+=(device_scorer_front_door_test cudp-phmmer cudp-hmmscan)
cmake --build build-gpu -j"$cores" --target "${targets[@]}" >"$OUT/build.log" 2>&1 ||
  { log "build failed"; grep -E "error" "$OUT/build.log" | head -20; exit 1; }
sw=build-gpu/bin/cudp-swsearch
hs=build-gpu/bin/cudp-hmmsearch
examples=/tmp/cputools/usr/share/doc/hmmer/examples

if [ "${TESTS:-0}" = 1 ]; then
  (cd build-gpu && ctest -R device_scorer_front_door_test --output-on-failure >"$OUT/ctest.log" 2>&1)
  log "front door GPU test (the database split across 3 parts on GPU 0, then across all $gpus GPUs): rc=$? $(grep -E 'tests passed|tests failed' "$OUT/ctest.log")"
  cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  for tool in ${SANITIZERS-memcheck racecheck synccheck}; do
    timeout 400 "$cs" --tool $tool --error-exitcode 9 build-gpu/tests/device_scorer_front_door_test \
      "DatabaseScorer: the database split across devices scores as one" >"$OUT/sanitizer-split-$tool.log" 2>&1
    log "compute-sanitizer $tool, the database split across devices: rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/sanitizer-split-$tool.log" | tr '\n' ' ')"
  done
  if [[ " ${MPI_TESTS-swsearch hmmsearch align} " == *" swsearch "* ]]; then
    BACKEND=cuda bash tests/apps/swsearch_mpi.sh "$sw" build-gpu/bin/cudp-makedb mpirun apps/data \
      >"$OUT/swsearch_mpi.log" 2>&1
    log "swsearch_mpi.sh, CUDA backend, with --gpus all: rc=$? $(tail -1 "$OUT/swsearch_mpi.log")"
  fi
  if [[ " ${MPI_TESTS-swsearch hmmsearch align} " == *" align "* ]]; then
    BACKEND=cuda bash tests/apps/align_mpi.sh build-gpu/bin/cudp-align mpirun >"$OUT/align_mpi.log" 2>&1
    log "align_mpi.sh, CUDA backend: rc=$? $(tail -1 "$OUT/align_mpi.log")"
  fi
  if [[ " ${MPI_TESTS-swsearch hmmsearch align} " == *" hmmsearch "* ]]; then
    BACKEND=cuda bash tests/apps/hmmsearch_mpi.sh "$hs" build-gpu/bin/cudp-makedb mpirun \
      "$(command -v hmmemit)" "$examples" build-gpu/bin/cudp-phmmer build-gpu/bin/cudp-hmmscan \
      >"$OUT/hmmsearch_mpi.log" 2>&1
    log "hmmsearch_mpi.sh, CUDA backend, with --gpus all: rc=$? $(tail -1 "$OUT/hmmsearch_mpi.log")"
  fi
fi

[ "${BENCH:-1}" = 1 ] || exit 0
t0=$(date +%s)
build-gpu/bench/cudp-gen-db --seed 42 --sequences "$SEQS" --out /tmp/db.fa --queries-out /tmp/q.fa --plant 5 >/dev/null 2>&1
build-gpu/bin/cudp-makedb /tmp/db.fa /tmp/db.cudpdb >/tmp/makedb.log 2>&1
rm -f /tmp/db.fa
log "database: $(tail -1 /tmp/makedb.log) (generated and packed in $(($(date +%s) - t0)) s)"
cat "$examples/tutorial/globins4.hmm" "$examples/tutorial/fn3.hmm" "$examples/tutorial/Pkinase.hmm" >/tmp/models.hmm
# MODELS=12: cudp-hmmsearch with the 12 protein models of hmmer-examples (as bench/device.sh's batch), where the
# next model's MSV filter overlaps the current model's search for 11 of them, not 2.
if [ "${MODELS:-3}" = 12 ]; then
  for m in tutorial/fn3 tutorial/globins4 tutorial/Pkinase testsuite/20aa testsuite/2OG-FeII_Oxy_3 testsuite/Caudal_act \
           testsuite/LuxC testsuite/Patched testsuite/RRM_1 testsuite/SMC_N testsuite/M1 testsuite/XYPPX; do
    zcat -f "$examples/$m.hmm"*
  done >/tmp/models.hmm
fi

printf 'program\tconfiguration\tgpus\twall_s\tsearch_s\tgcups\tefficiency\toutput\n' >"$OUT/scaling.tsv"
# Each configuration runs in a folder of its own under /tmp/runs with the same file names, so that the outputs
# (whose headers name their files) compare byte for byte but for the lines that carry times and the backend.
normalize_sw() { grep -vE '^# (time|backend)' "$1"; }
normalize_hs() { grep -vE '^# (CPU time|Mc/sec|cudp backend|number of worker threads)' "$1"; }
sw_one="" hs_one=""
# record PROGRAM CONFIG N WALL SEARCH GCUPS SAME REFERENCE_SEARCH: efficiency = reference / (N x search).
record() {
  local eff
  eff=$(awk -v r="$8" -v n="$3" -v t="$5" 'BEGIN { printf "%.3f", r / (n * t) }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$eff" "$7" >>"$OUT/scaling.tsv"
  log "$1 $2: wall $4 s, search $5 s${6:+, $6 GCUPS}, efficiency $eff, output $7"
}
run_sw() {  # run_sw CONFIG N COMMAND...
  local config=$1 n=$2 dir=/tmp/runs/sw-$1
  shift 2
  mkdir -p "$dir"
  (cd "$dir" && /usr/bin/time -f %e -o wall "$@" --query /tmp/q.fa --db /tmp/db.cudpdb --backend cuda --format text \
    --out out.txt 2>err.txt) || { log "swsearch $config failed: $(tail -3 "$dir/err.txt")"; return; }
  local line score gcups same
  line=$(grep '^# time:' "$dir/out.txt")
  echo "swsearch $config: $line" >>"$OUT/times.txt"
  score=$(echo "$line" | sed -E 's/.*score ([0-9.]+) s.*/\1/')
  gcups=$(echo "$line" | sed -E 's/.*; ([0-9.]+) GCUPS \(scoring.*/\1/')
  [ -z "$sw_one" ] && sw_one=$score && cp "$dir/out.txt" /tmp/runs/sw-ref.txt
  if cmp -s <(normalize_sw /tmp/runs/sw-ref.txt) <(normalize_sw "$dir/out.txt"); then same=identical; else
    same=DIFFERENT
    diff <(normalize_sw /tmp/runs/sw-ref.txt) <(normalize_sw "$dir/out.txt") | head -8 >>"$OUT/summary.txt"
  fi
  record swsearch "$config" "$n" "$(cat "$dir/wall")" "$score" "$gcups" "$same" "$sw_one"
}
run_hs() {  # run_hs CONFIG N COMMAND...
  local config=$1 n=$2 dir=/tmp/runs/hs-$1
  shift 2
  mkdir -p "$dir"
  (cd "$dir" && /usr/bin/time -f %e -o wall "$@" --backend cuda -o main.out --tblout hits.tbl /tmp/models.hmm \
    /tmp/db.cudpdb >/dev/null 2>err.txt) || { log "hmmsearch $config failed: $(tail -3 "$dir/err.txt")"; return; }
  local search same
  search=$(grep -E '^# CPU time:' "$dir/main.out" | sed -E 's/.*Elapsed: ([0-9]+):([0-9]+):([0-9.]+).*/\1 \2 \3/' |
    awk '{ s += $1 * 3600 + $2 * 60 + $3 } END { printf "%.2f", s }')
  [ -z "$hs_one" ] && hs_one=$search && cp "$dir/main.out" /tmp/runs/hs-ref.out && cp "$dir/hits.tbl" /tmp/runs/hs-ref.tbl
  if cmp -s <(normalize_hs /tmp/runs/hs-ref.out) <(normalize_hs "$dir/main.out") &&
    cmp -s <(grep -v '^#' /tmp/runs/hs-ref.tbl) <(grep -v '^#' "$dir/hits.tbl"); then same=identical; else
    same=DIFFERENT
    diff <(normalize_hs /tmp/runs/hs-ref.out) <(normalize_hs "$dir/main.out") | head -8 >>"$OUT/summary.txt"
  fi
  record hmmsearch "$config" "$n" "$(cat "$dir/wall")" "$search" "" "$same" "$hs_one"
}

if [ "${SKIP_SW:-0}" != 1 ]; then  # SKIP_SW=1: cudp-hmmsearch alone
  for n in $(seq 1 "$gpus"); do run_sw "gpus$n" "$n" "$PWD/$sw" --gpus "$n"; done
  for k in $(seq 2 "$gpus"); do
    run_sw "mpi$k" "$k" mpirun -np "$k" --bind-to none "$PWD/$sw" --threads $((cores / k))
  done
fi
if [ "${SKIP_HS:-0}" != 1 ]; then  # SKIP_HS=1: cudp-swsearch alone
  for n in $(seq 1 "$gpus"); do run_hs "gpus$n" "$n" "$PWD/$hs" --gpus "$n"; done
  for k in $(seq 2 "$gpus"); do
    run_hs "mpi$k" "$k" mpirun -np "$k" --bind-to none "$PWD/$hs" --cpu $((cores / k))
  done
fi
grep -E "^# (CPU time|Mc/sec)" /tmp/runs/hs-ref.out >"$OUT/hmmsearch-one-gpu-times.txt" 2>/dev/null
# STAGES=1: cudp-hmmsearch once more on 1 GPU and on all, with its stage times (CUDP_STAGE_TIMES, which waits for
# the GPU at each stage, so not among the timings above), in $OUT/hmmsearch-stages-gpusN.txt.
if [ "${STAGES:-0}" = 1 ]; then
  for n in 1 "$gpus"; do
    mkdir -p /tmp/runs/stages && (cd /tmp/runs/stages && CUDP_STAGE_TIMES=1 "$OLDPWD/$hs" --gpus "$n" --backend cuda \
      -o /dev/null /tmp/models.hmm /tmp/db.cudpdb >/dev/null 2>"$OUT/hmmsearch-stages-gpus$n.txt")
  done
  log "hmmsearch stage times on 1 and $gpus GPUs: hmmsearch-stages-gpus*.txt"
fi
# NSYS=1: cudp-swsearch on all GPUs in one process once more under Nsight Systems, its CUDA API and kernel
# summaries (where the time outside the kernels goes) in $OUT/nsys-swsearch.txt.
nsys=$(command -v nsys || ls /usr/local/cuda*/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys 2>/dev/null | head -1)
if [ "${NSYS:-0}" = 1 ] && [ -n "$nsys" ]; then
  sw_path=$PWD/$sw
  mkdir -p /tmp/runs/nsys && (cd /tmp/runs/nsys && timeout 300 "$nsys" profile -o sw --force-overwrite true \
    --trace cuda,osrt --stats true "$sw_path" --gpus "$gpus" --query /tmp/q.fa --db /tmp/db.cudpdb \
    --backend cuda --format text --out out.txt >"$OUT/nsys-swsearch.txt" 2>&1)
  log "nsys on swsearch --gpus $gpus: rc=$? (summaries in nsys-swsearch.txt)"
elif [ "${NSYS:-0}" = 1 ]; then
  log "NSYS=1 but no nsys on this machine"
fi
