#!/usr/bin/env bash
# cudp-align on the GPU beside parasail on every host core, one batch of protein pairs, in one run on the same files:
# COUNT random proteins of 100-1000 residues against a mutated copy of each, every query with every target (COUNT^2
# pairs: the issue's batch of 100,000 protein pairs is COUNT = 316), global (MODE=local|semiglobal for the others:
# parasail's sw and sg), BLOSUM62, a gap of k costing 11 + k.
# Both with alignments (SAM) and scores alone; the scores are compared. Results under $OUT.
#
#   bench/align_batch_vs_parasail.sh BUILD_DIR CPU_TOOLS_DIR [COUNT]
#
# CPU_TOOLS_DIR holds the .deb files of parasail, libparasail8 and libgomp1 (bench/make_align_tools.sh).
set -uo pipefail
build=$1 tools=$2 count=${3:-316}
mode=${MODE:-global}
case $mode in global) family=nw ;; local) family=sw ;; semiglobal) family=sg ;; *) echo "MODE: global|local|semiglobal" >&2; exit 2 ;; esac
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
cpu=/tmp/cpu-parasail
mkdir -p "$cpu"
for deb in "$tools"/parasail_*.deb "$tools"/libparasail8_*.deb "$tools"/libgomp1_*.deb; do dpkg -x "$deb" "$cpu"; done
export LD_LIBRARY_PATH="$cpu/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
align=$build/bin/cudp-align
log() { echo "$*" | tee -a "$OUT/align_batch_vs_parasail.txt"; }
threads=$(nproc)
log "device: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null), host cores: $threads"

data=/tmp/protein-batch
mkdir -p "$data"
cells=$(python3 "$(dirname "$0")/make_protein_batch.py" "$count" 100 1000 11 "$data/q.fa" "$data/t.fa")
log "batch: $count x $count protein pairs, $cells cells, $mode"
# parasail takes a readable stdin as a third input and refuses to run: an empty FIFO held open instead.
mkfifo "$cpu/stdin" 2>/dev/null
exec 3<> "$cpu/stdin"
ms_since() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
gcups() { python3 -c "print('%.1f' % ($cells / ($1 / 1000.0) / 1e9))"; }
run() {  # label, then the command
  local label=$1 start ms
  shift
  start=$(date +%s%N)
  "$@" <&3 >"$OUT/$label.log" 2>&1
  local rc=$?
  ms=$(ms_since "$start")
  log "$label: rc=$rc, $ms ms, $(gcups "$ms") GCUPS"
}
common=(--query "$data/q.fa" --target "$data/t.fa" --pairs all --mode "$mode" --matrix BLOSUM62 --gap-open 11
        --gap-extend 1 --backend cuda)
run cudp-align-warmup "$align" "${common[@]}" --format score --out "$data/warm.tsv"
CUDP_STAGE_TIMES=1 run cudp-align-sam "$align" "${common[@]}" --format sam --out "$data/cudp.sam"
CUDP_STAGE_TIMES=1 run cudp-align-score "$align" "${common[@]}" --format score --out "$data/cudp.tsv"
# parasail: the open cost includes the first extension (11 + k is -o 12 -e 1); -x aligns every pair (no filter).
run parasail-trace "$cpu/usr/bin/parasail_aligner" -a ${family}_trace_striped_sat -x -o 12 -e 1 -m blosum62 -t "$threads" \
  -q "$data/q.fa" -f "$data/t.fa" -O SAM -g "$data/parasail.sam"
run parasail-score "$cpu/usr/bin/parasail_aligner" -a ${family}_striped_sat -x -o 12 -e 1 -m blosum62 -t "$threads" \
  -q "$data/q.fa" -f "$data/t.fa" -g "$data/parasail.csv"
# parasail's CSV: query index, database index, lengths, score, ends; cudp's TSV: names and score, in query-major order.
python3 - "$data/cudp.tsv" "$data/parasail.csv" "$count" <<'PY' | tee -a "$OUT/align_batch_vs_parasail.txt"
import sys
cudp = {}
for line in open(sys.argv[1]):
    q, t, s = line.split("\t")
    cudp[(int(q[1:]), int(t[1:]))] = int(s)
parasail = {}
for line in open(sys.argv[2]):
    f = line.strip().split(",")
    parasail[(int(f[0]), int(f[1]))] = int(f[4])
n = int(sys.argv[3])
same = sum(cudp.get(k) == v for k, v in parasail.items())
print("scores: %d pairs from cudp, %d from parasail, %d equal" % (len(cudp), len(parasail), same))
PY
