#!/usr/bin/env bash
# cudp-align as several MPI processes: under `mpirun -np 1/2/3 --oversubscribe` the processes share out the pairs
# (a query's pairs stay in one process) and the first writes every record in order; every format (pair, sam,
# tabular, score) in every mode is byte for byte the one-process run's, for all-against-all protein pairs (SAM's
# primary records decided among a query's targets), one-to-one DNA pairs, and a single pair (two processes get
# none). An input that is not a regular file (a pipe) is refused under mpirun, nothing written.
#   [BACKEND=cuda] align_mpi.sh CUDP_ALIGN MPIEXEC   (the host backend by default; with BACKEND=cuda every run is on
#   the GPUs, process r of a node on GPU r modulo their count)
set -uo pipefail
align=$(realpath "$1") mpiexec=$2
backend=${BACKEND:-host}
source "$(dirname "$(realpath "$0")")/mpi_test_setup.sh"

# Random proteins and DNA, and mutated copies of them, from a fixed seed.
python3 - <<'EOF'
import random
rng = random.Random(7)
def mutate(s, letters):
    out = []
    for c in s:
        r = rng.random()
        if r < 0.08: out.append(rng.choice(letters))
        elif r < 0.11: continue
        elif r < 0.14: out.extend([c, rng.choice(letters)])
        else: out.append(c)
    return "".join(out)
aa, nt = "ACDEFGHIKLMNPQRSTVWY", "ACGT"
proteins = ["".join(rng.choice(aa) for _ in range(rng.randint(40, 400))) for _ in range(5)]
with open("pq.fa", "w") as f:
    for i, s in enumerate(proteins): f.write(">q%d\n%s\n" % (i, s))
with open("pt.fa", "w") as f:
    for i in range(4): f.write(">t%d\n%s\n" % (i, mutate(proteins[i % 5], aa)))
dna = ["".join(rng.choice(nt) for _ in range(rng.randint(200, 3000))) for _ in range(4)]
with open("dq.fa", "w") as f:
    for i, s in enumerate(dna): f.write(">d%d\n%s\n" % (i, s))
with open("dt.fa", "w") as f:
    for i, s in enumerate(dna): f.write(">m%d\n%s\n" % (i, mutate(s, nt)))
EOF
head -2 pq.fa > one_q.fa
head -2 pt.fa > one_t.fa

# compare NAME ARGS...: one process, then 1, 2 and 3 under mpirun, each writing with --out into a folder of its own
# (the file's name is part of the command line that the pair and SAM headers show).
compare() {
  local name=$1
  shift
  rm -rf one np && mkdir one np
  (cd one && "$align" --backend "$backend" --threads 1 "$@" --out result 2> err) ||
    { fail "$name: the one-process run failed: $(cat one/err)"; return; }
  [ -s one/result ] || fail "$name: empty output"
  for n in 1 2 3; do
    rm -f np/result
    (cd np && "$mpiexec" -np "$n" "$align" --backend "$backend" --threads 1 "$@" --out result 2> err) ||
      { fail "$name/np$n: exit status $?: $(head -3 np/err)"; continue; }
    cmp -s one/result np/result || fail "$name/np$n differs: $(diff one/result np/result | head -6)"
  done
}

for format in pair sam tabular score; do
  for mode in global local semiglobal; do
    compare "protein-all-$format-$mode" --query "$work/pq.fa" --target "$work/pt.fa" --pairs all --format "$format" \
      --mode "$mode"
  done
  compare "dna-$format" --query "$work/dq.fa" --target "$work/dt.fa" --alphabet dna --format "$format"
  compare "one-pair-$format" --query "$work/one_q.fa" --target "$work/one_t.fa" --format "$format"
done
# The SAM records really mark one primary per query among several targets.
"$align" --backend host --query pq.fa --target pt.fa --pairs all --format sam --out sam.out
[ "$(grep -v '^@' sam.out | awk 'int($2 / 256) % 2 == 0' | wc -l)" -eq 5 ] || fail "sam: not one primary record per query"

# A pipe as input under mpirun: refused, nothing written.
rm -f piped.out
"$mpiexec" -np 2 "$align" --backend host --query <(cat pq.fa) --target pt.fa --pairs all --out piped.out 2> piped.err
rc=$?
[ "$rc" -ne 0 ] || fail "a pipe under mpirun: exit status 0"
grep -q "must be a regular file" piped.err || fail "a pipe under mpirun: no message: $(head -3 piped.err)"
[ ! -e piped.out ] || fail "a pipe under mpirun: piped.out was written"

finish "cudp-align under mpirun ($backend backend): every format identical to one process"
