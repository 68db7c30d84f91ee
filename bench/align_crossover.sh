#!/usr/bin/env bash
# Where cudp-align's GPU backend overtakes its host backend, end to end (files in, SAM out, the CUDA context's start
# included): global alignments of COUNT pairs (one-to-one: each query against its mutated copy) from one pair to
# 10,000, protein (BLOSUM62, a gap of k costing 11 + k) and DNA (+2/-3, 5 + 2k) up to 1 Mbp a side, each point
# run with --backend host (all cores) and --backend cuda in the same call, their SAM scores compared. A table
# under $OUT/align_crossover.txt; the host runs are skipped past HOST_CELLS cells (default 2e10).
# COUNTS and LENGTHS choose the protein batches' sizes and the single DNA pairs' lengths.
#
#   bench/align_crossover.sh BUILD_DIR
set -uo pipefail
build=$1
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
align=$build/bin/cudp-align
data=/tmp/align-crossover
mkdir -p "$data"
host_cells=${HOST_CELLS:-2e10}
log() { echo "$*" | tee -a "$OUT/align_crossover.txt"; }
log "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null), host cores: $(nproc)"
log "| pairs | residues | alphabet | cells | host | cuda | cuda / host speed | scores |"
log "|---|---|---|---|---|---|---|---|"
timed() {  # the wall time of a command in seconds, or "failed" and the start of its error
  local start=$(date +%s%N)
  if "$@" >/dev/null 2>"$data/stderr"; then
    python3 -c "print('%.3f s' % (($(date +%s%N) - $start) / 1e9))"
  else
    echo "failed: $(head -c 200 "$data/stderr" | tr '\n|' '  ')"
  fi
}
point() {  # COUNT LOW HIGH protein|dna
  local count=$1 low=$2 high=$3 alphabet=$4 cells host=- cuda same=-
  cells=$(python3 "$(dirname "$0")/make_protein_batch.py" "$count" "$low" "$high" 17 "$data/q.fa" "$data/t.fa" \
    "$alphabet" one-to-one)
  local scoring=(--matrix BLOSUM62 --gap-open 11 --gap-extend 1)
  [ "$alphabet" = dna ] && scoring=(--alphabet dna --match 2 --mismatch -3 --gap-open 5 --gap-extend 2)
  rm -f "$data/cuda.sam" "$data/host.sam"
  local common=(--query "$data/q.fa" --target "$data/t.fa" --pairs one-to-one --mode global "${scoring[@]}" --format sam)
  cuda=$(timed "$align" "${common[@]}" --backend cuda --out "$data/cuda.sam")
  if python3 -c "import sys; sys.exit(0 if $cells <= $host_cells else 1)"; then
    host=$(timed "$align" "${common[@]}" --backend host --out "$data/host.sam")
    [ -s "$data/host.sam" ] && [ -s "$data/cuda.sam" ] && same=$(python3 - "$data/host.sam" "$data/cuda.sam" <<'PY'
import re, sys
def scores(path):
    return [re.search(r"\tAS:i:(-?\d+)", l).group(1) for l in open(path) if not l.startswith("@")]
a, b = scores(sys.argv[1]), scores(sys.argv[2])
print("equal" if a == b else "DIFFERENT (%d of %d)" % (sum(x != y for x, y in zip(a, b)), len(a)))
PY
)
  fi
  local ratio=-
  [[ $host == *" s" && $cuda == *" s" ]] && ratio=$(python3 -c "print('%.2fx' % (${host% s} / ${cuda% s}))")
  log "| $count | $low-$high | $alphabet | $cells | $host | $cuda | $ratio | $same |"
}
for count in ${COUNTS:-1 10 100 1000 10000}; do point "$count" 100 1000 protein; done
for length in ${LENGTHS:-1000 10000 100000 1000000}; do point 1 "$length" "$length" dna; done
for count in 10 100 1000; do point "$count" 1000 10000 dna; done
