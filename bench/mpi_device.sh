#!/usr/bin/env bash
# cudp-swsearch and cudp-hmmsearch as several MPI processes on the GPU machine: with TESTS=1 first the GPU tests of
# the HMMER programs (bench/hmmsearch_stream.sh, TEST_REGEX), then tests/apps/swsearch_mpi.sh and hmmsearch_mpi.sh
# with the CUDA backend (1, 2 and 3 processes sharing the machine's GPUs, outputs identical to one process), then
# cudp-swsearch with one process per GPU (and 2 and 3 on one GPU) against the generated benchmark database, wall
# times side by side.
# Usage (repo root, on the GPU machine): [TESTS=1] bench/mpi_device.sh [SEQUENCES]    results under $OUT
# Open MPI comes from the machine or .debs-mpi/ (bench/mpi_env.sh); hmmemit and hmmer-examples from .debs/ (as for
# bench/hmmsearch_stream.sh).
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
SEQS=${1:-570000}
log() { echo "== $*" | tee -a "$OUT/summary.txt"; }
log "device: $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | tr -s ' ')"
source bench/mpi_env.sh
log "mpirun: $(command -v mpirun) $(mpirun --version 2>&1 | head -1)"
if [ "${TESTS:-0}" = 1 ]; then
  OUT="$OUT/tests" TESTS=1 BENCH=0 SANITIZE=0 bash bench/hmmsearch_stream.sh >/dev/null 2>&1
  sed 's/^/  /' "$OUT/tests/summary.txt" >>"$OUT/summary.txt"
fi
eval "$(bash bench/unpack_debs.sh .debs /tmp/cputools 2>/dev/null | grep '^export')"
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DMPI_CXX_COMPILER="$(command -v mpicxx)" >"$OUT/configure.log" 2>&1 || { log "configure failed"; tail -20 "$OUT/configure.log"; exit 1; }
grep -E "cudp: MPI" "$OUT/configure.log" | tee -a "$OUT/summary.txt"
cmake --build build-gpu -j"$(nproc)" --target cudp-swsearch cudp-hmmsearch cudp-makedb cudp-gen-db >"$OUT/build.log" 2>&1 ||
  { log "build failed"; grep -E "error" "$OUT/build.log" | head -20; exit 1; }
sw=build-gpu/bin/cudp-swsearch
BACKEND=cuda bash tests/apps/swsearch_mpi.sh "$sw" build-gpu/bin/cudp-makedb mpirun apps/data \
  >"$OUT/swsearch_mpi.log" 2>&1
log "swsearch_mpi.sh with the CUDA backend: rc=$? $(tail -3 "$OUT/swsearch_mpi.log" | tr '\n' ' ')"
BACKEND=cuda bash tests/apps/hmmsearch_mpi.sh build-gpu/bin/cudp-hmmsearch \
  build-gpu/bin/cudp-makedb mpirun "$(command -v hmmemit)" /tmp/cputools/usr/share/doc/hmmer/examples \
  >"$OUT/hmmsearch_mpi.log" 2>&1
log "hmmsearch_mpi.sh with the CUDA backend: rc=$? $(tail -3 "$OUT/hmmsearch_mpi.log" | tr '\n' ' ')"

gpus=$(nvidia-smi -L | wc -l)
build-gpu/bench/cudp-gen-db --seed 42 --sequences "$SEQS" --out /tmp/db.fa --queries-out /tmp/q.fa --plant 5 >/dev/null 2>&1
build-gpu/bin/cudp-makedb /tmp/db.fa /tmp/db.cudpdb >/dev/null 2>&1
threads=$(( $(nproc) / gpus ))
/usr/bin/time -f %e -o /tmp/t1 "$sw" --query /tmp/q.fa --db /tmp/db.cudpdb --backend cuda --format text --out /tmp/one.txt
log "one process: $(cat /tmp/t1) s; $(grep -o '[0-9.]* GCUPS (scoring wall time)' /tmp/one.txt)"
for n in $(seq 2 $(( gpus > 3 ? gpus : 3 ))); do
  /usr/bin/time -f %e -o /tmp/tn mpirun -np "$n" --bind-to none "$sw" --query /tmp/q.fa --db /tmp/db.cudpdb --backend cuda --format text \
    --threads "$threads" --out /tmp/np.txt 2>"$OUT/np$n.err"
  same=$(cmp -s <(grep -vE '^# (time|backend)' /tmp/one.txt) <(grep -vE '^# (time|backend)' /tmp/np.txt) && echo identical || echo DIFFERENT)
  log "$n processes on $gpus GPU(s): $(cat /tmp/tn) s, output $same; $(grep -E '^# backend' /tmp/np.txt)"
done
