#!/usr/bin/env bash
# cudp-swsearch as several MPI processes: under `mpirun -np 1/2/3 --oversubscribe` every output format is byte for
# byte the one-process run's (the text format but for its timing line and the backend's process count), from FASTA
# and from a packed database (whose processes read only their shard), on databases where a shard is empty (fewer
# sequences than processes) and where equal scores fall in different shards (copies of one sequence, with --top
# cutting through them). A process that fails alone (a corrupt residue in the last shard) makes the run exit
# non-zero naming its rank, and no output file is left. With the CUDA backend the one-process run takes one GPU
# (--gpus 1), and one process on all the machine's GPUs (--gpus all: the database split across them) must give it too.
#   [BACKEND=cuda] swsearch_mpi.sh CUDP_SWSEARCH CUDP_MAKEDB MPIEXEC DATA_DIR   (DATA_DIR: apps/data; the
#   host backend by default, the GPU with BACKEND=cuda: the processes then share the GPUs of the machine)
set -uo pipefail
swsearch=$(realpath "$1") makedb=$(realpath "$2") mpiexec=$3 data=$(realpath "$4")
source "$(dirname "$(realpath "$0")")/mpi_test_setup.sh"
backend=${BACKEND:-host}
one_gpu=()
[ "$backend" = cuda ] && one_gpu=(--gpus 1)
# The text format's lines that differ between runs by design.
normalize() { grep -vE '^# (time|backend):' "$1"; }

# compare NAME -- ARGS...: one process, then 1, 2 and 3 under mpirun, every format.
compare() {
  local name=$1
  shift 2
  for format in tsv tabular text "text --alignments" "tsv --alignments"; do
    # shellcheck disable=SC2086
    "$swsearch" "$@" --backend "$backend" "${one_gpu[@]}" --threads 1 --format $format > one.out 2> one.err ||
      { fail "$name/$format: the one-process run failed: $(cat one.err)"; continue; }
    for n in 1 2 3 all-gpus; do
      if [ "$n" = all-gpus ]; then
        [ "$backend" = cuda ] || continue
        # shellcheck disable=SC2086
        "$swsearch" "$@" --backend cuda --gpus all --threads 2 --format $format > np.out 2> np.err
      else
        # shellcheck disable=SC2086
        "$mpiexec" -np $n "$swsearch" "$@" --backend "$backend" --threads 1 --format $format > np.out 2> np.err
      fi || { fail "$name/$format/np$n: exit status $?: $(head -5 np.err)"; continue; }
      cmp -s <(normalize one.out) <(normalize np.out) ||
        fail "$name/$format/np$n: output differs: $(diff <(normalize one.out) <(normalize np.out) | head -6)"
    done
  done
}

queries=$data/queries.fa
compare bundled -- --query "$queries" --db "$data/db.fa.gz"
"$makedb" "$data/db.fa.gz" db.cudpdb > /dev/null || fail "cudp-makedb failed"
compare packed -- --query "$queries" --db db.cudpdb
grep -q "processes" <("$mpiexec" -np 2 "$swsearch" --query "$queries" --db db.cudpdb --backend host --threads 1 \
  --format text) || fail "the text format's backend line does not count the processes"

# Two sequences for three processes: one shard is empty.
zcat "$data/db.fa.gz" | awk '/^>/ { n++ } n <= 2' > two.fa
compare two-sequences -- --query "$queries" --db two.fa

# Ties across shards: eight copies of one sequence between random ones, the best five reported.
zcat "$data/db.fa.gz" | awk '/^>/ { n++ } n <= 40' > some.fa
copy=$(awk '/^>/ { n++ } n == 3 && !/^>/' some.fa)
for k in 1 2 3 4 5 6 7 8; do
  awk -v k="$k" '/^>/ { n++ } n > (k - 1) * 5 && n <= k * 5' some.fa
  printf '>copy%d\n%s\n' "$k" "$copy"
done > ties.fa
printf '>copied\n%s\n' "$copy" > one_query.fa  # the copies and their original score the same, the best of all
compare ties -- --query one_query.fa --db ties.fa --top 5
"$swsearch" --query one_query.fa --db ties.fa --top 5 --backend host > ties.tsv
[ "$(grep -c copy ties.tsv)" -eq 4 ] || fail "ties: not the original and the first four copies: $(cat ties.tsv)"

# One process fails alone: a residue code outside the alphabet in the last shard's part of a packed database.
"$makedb" ties.fa ties.cudpdb > /dev/null
size=$(stat -c %s ties.cudpdb)
text=$(grep -v '^>' ties.fa | wc -l)  # far fewer bytes of names than this from the end lies a residue
printf '\377' | dd of=ties.cudpdb bs=1 seek=$((size - 300 - text)) conv=notrunc status=none
"$mpiexec" -np 3 "$swsearch" --query one_query.fa --db ties.cudpdb --backend host --out bad.tsv > bad.out 2> bad.err
rc=$?
[ "$rc" -ne 0 ] || fail "a failing process: exit status 0"
grep -q "rank 2: .*residue code 255" bad.err || fail "a failing process: no message naming rank 2: $(head -5 bad.err)"
[ ! -e bad.tsv ] || fail "a failing process: the output file was written"

# Standard input is the first process's alone: refused as an input under mpirun.
"$mpiexec" -np 2 "$swsearch" --query - --db ties.fa --backend host < one_query.fa > stdin.out 2> stdin.err &&
  fail "standard input under mpirun: exit status 0"
grep -q "not standard input" stdin.err || fail "standard input under mpirun: no message: $(head -3 stdin.err)"

# Without mpirun the program is one process and calls no MPI (no launcher's variables).
"$swsearch" --query one_query.fa --db ties.fa --top 5 --backend host | cmp -s - ties.tsv || fail "a plain run differs"

finish "cudp-swsearch under mpirun: all outputs identical to one process"
