#!/usr/bin/env bash
# cudp-hmmsearch as several MPI processes: under `mpirun -np 1/2/3 --oversubscribe` the main output (with its
# alignments), --tblout, --domtblout, --pfamtblout and -A are the one-process run's, but for the lines that carry
# times and dates, from FASTA and from a packed database; on a database where a shard is empty (fewer sequences than
# processes) and one where hits tie across shards (copies of one sequence under one name, ordered by their place in
# the database). A process that fails alone (a corrupt residue in the last shard) makes the run exit non-zero
# naming its rank, with no output file written. With the CUDA backend the one-process run takes one GPU
# (--gpus 1), and one process on all the machine's GPUs (--gpus all: the database split across them) must give it too.
# Given CUDP_PHMMER, the same for cudp-phmmer: three globins as queries against the same databases. Given
# CUDP_HMMSCAN, the same for cudp-hmmscan, whose processes share out the query sequences (the FASTA files above, and
# their packed forms) and read every model (its main output, --tblout, --domtblout and --pfamtblout; no -A).
#   [BACKEND=cuda] hmmsearch_mpi.sh CUDP_HMMSEARCH CUDP_MAKEDB MPIEXEC HMMEMIT HMMER_EXAMPLES_DIR [CUDP_PHMMER
#     [CUDP_HMMSCAN]]
set -uo pipefail
hmmsearch=$(realpath "$1") makedb=$(realpath "$2") mpiexec=$3 hmmemit=$4 examples=$(realpath "$5")
phmmer=${6:+$(realpath "$6")} hmmscan=${7:+$(realpath "$7")}
program=$hmmsearch  # the program compare and fail_alone run
backend=${BACKEND:-host}
source "$(dirname "$(realpath "$0")")/mpi_test_setup.sh"
# Times, dates, directories and the command line differ between runs by design.
normalize() { grep -vE '^# (CPU time|Mc/sec|Date|Current dir|Option settings|cudp backend)' "$1"; }
outputs=(main.out hits.tbl hits.domtbl hits.pfamtbl hits.sto)
alignment=(-A hits.sto)
one_gpu=()
[ "$backend" = cuda ] && one_gpu=(--gpus 1)

# run DIR MODELS DATABASE COMMAND...: one search of MODELS against DATABASE writing every output into DIR.
run() {
  local dir=$1 models=$2 db=$3
  shift 3
  mkdir -p "$dir"
  (cd "$dir" && "$@" -o main.out --tblout hits.tbl --domtblout hits.domtbl --pfamtblout hits.pfamtbl "${alignment[@]}" \
    "$models" "$db" > stdout.txt 2> stderr.txt)
}

# compare NAME MODELS DATABASE: one process, then 1, 2 and 3 under mpirun.
compare() {
  local name=$1 models=$2 db=$3
  rm -rf one
  run one "$models" "$db" "$program" --backend "$backend" "${one_gpu[@]}" --cpu 1 ||
    { fail "$name: the one-process run failed: $(cat one/stderr.txt)"; return; }
  for n in 1 2 3 all-gpus; do
    rm -rf np
    if [ "$n" = all-gpus ]; then
      [ "$backend" = cuda ] || continue
      run np "$models" "$db" "$program" --backend cuda --gpus all --cpu 1
    else
      run np "$models" "$db" "$mpiexec" -np "$n" "$program" --backend "$backend" --cpu 1
    fi || { fail "$name/np$n: exit status $?: $(head -5 np/stderr.txt)"; continue; }
    for f in "${outputs[@]}"; do
      cmp -s <(normalize "one/$f") <(normalize "np/$f") ||
        fail "$name/np$n/$f differs: $(diff <(normalize "one/$f") <(normalize "np/$f") | head -6)"
    done
  done
  [ "$(grep -vc '^#' one/hits.tbl)" -gt 0 ] || fail "$name: no hits, nothing compared"
}

cat "$examples/tutorial/globins4.hmm" "$examples/tutorial/fn3.hmm" > models.hmm
{
  "$hmmemit" -N 12 --seed 3 "$examples/tutorial/globins4.hmm"
  "$hmmemit" -p -N 12 --seed 4 "$examples/tutorial/fn3.hmm"
  cat "$examples/tutorial/globins45.fa"
  "$hmmemit" -N 12 --seed 5 "$examples/tutorial/fn3.hmm"
} | sed 's/^>/>s/' > db.fa
compare fasta "$PWD/models.hmm" "$PWD/db.fa"
"$makedb" db.fa db.cudpdb > /dev/null || fail "cudp-makedb failed"
compare packed "$PWD/models.hmm" "$PWD/db.cudpdb"

# Two sequences for three processes: one shard is empty.
"$hmmemit" -N 2 --seed 9 "$examples/tutorial/globins4.hmm" > two.fa
compare two-sequences "$PWD/models.hmm" "$PWD/two.fa"

# Ties across shards: one globin six times under one name, between other sequences.
copy=$(awk '/^>/ { n++ } n == 1 && !/^>/' "$examples/tutorial/globins45.fa")
for k in 1 2 3 4 5 6; do
  awk -v k="$k" '/^>/ { n++ } n > (k - 1) * 7 && n <= k * 7' "$examples/tutorial/globins45.fa"
  printf '>same_name\n%s\n' "$copy"
done > ties.fa
compare ties "$examples/tutorial/globins4.hmm" "$PWD/ties.fa"
[ "$(grep -c '^same_name' one/hits.tbl)" -eq 6 ] || fail "ties: the six copies are not all reported"

# One process fails alone: a residue code outside the alphabet in the last shard's part of a packed database.
"$makedb" ties.fa ties.cudpdb > /dev/null
size=$(stat -c %s ties.cudpdb)
printf '\377' | dd of=ties.cudpdb bs=1 seek=$((size - 1000)) conv=notrunc status=none
# fail_alone NAME QUERIES: the run on that database exits non-zero naming rank 2, and writes nothing.
fail_alone() {
  rm -rf bad
  run bad "$2" "$PWD/ties.cudpdb" "$mpiexec" -np 3 "$program" --backend "$backend" --cpu 1
  local rc=$?
  [ "$rc" -ne 0 ] || fail "$1, a failing process: exit status 0"
  grep -q "rank 2: .*residue code 255" bad/stderr.txt ||
    fail "$1, a failing process: no message naming rank 2: $(head -5 bad/stderr.txt)"
  for f in "${outputs[@]}"; do [ ! -e "bad/$f" ] || fail "$1, a failing process: $f was written"; done
}
fail_alone hmmsearch "$examples/tutorial/globins4.hmm"

if [ -n "$phmmer" ]; then
  program=$phmmer
  awk '/^>/ { n++ } n == 2 || n == 9 || n == 30' "$examples/tutorial/globins45.fa" > queries.fa
  compare phmmer-fasta "$PWD/queries.fa" "$PWD/db.fa"
  compare phmmer-packed "$PWD/queries.fa" "$PWD/db.cudpdb"
  compare phmmer-two-sequences "$PWD/queries.fa" "$PWD/two.fa"
  compare phmmer-ties "$PWD/queries.fa" "$PWD/ties.fa"
  fail_alone phmmer "$PWD/queries.fa"
fi

if [ -n "$hmmscan" ]; then
  program=$hmmscan outputs=(main.out hits.tbl hits.domtbl hits.pfamtbl) alignment=()
  compare hmmscan-fasta "$PWD/models.hmm" "$PWD/db.fa"
  compare hmmscan-packed "$PWD/models.hmm" "$PWD/db.cudpdb"
  compare hmmscan-two-sequences "$PWD/models.hmm" "$PWD/two.fa"
  fail_alone hmmscan "$PWD/models.hmm"
fi

finish "cudp-hmmsearch${phmmer:+, cudp-phmmer}${hmmscan:+, cudp-hmmscan} under mpirun: all outputs identical to one process"
