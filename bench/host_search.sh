#!/usr/bin/env bash
# The host backend against the CPU tools, side by side on the same cores and files: cudp-swsearch --backend host,
# ssearch36 -T and parasail_aligner (sw_striped_profile_sat, parasail's fastest database-search function: striped
# 8 -> 16 -> 32-bit profiles reused across targets), one query of the generated ladder at a time against a
# generated database. Scores equal by construction of the oracle tests; here each run's best score is checked
# against parasail's anyway. Writes host_search.tsv and the tools' logs under $OUT.
#
#   OUT=/tmp/o BUILD=build-host [SEQS=570000] [QUERIES="q01 q08 q15"] [THREADS=$(nproc)] bash bench/host_search.sh
#
# BUILD holds cudp-swsearch and cudp-gen-db (any build; configure with -DCUDP_ENABLE_CUDA=OFF for a quick one).
# Gap costs: 11 + k per gap of length k (ssearch36 -f 11 -g 1, parasail -o 12 -e 1), BLOSUM62.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${OUT:?set OUT to a results folder}"
BUILD=${BUILD:-build-host}
SEQS=${SEQS:-570000}
QUERIES=${QUERIES:-"q01 q08 q15"}
THREADS=${THREADS:-$(nproc)}
DATA=${DATA:-bench/data-host-$SEQS}
mkdir -p "$OUT" "$DATA"

log() { echo "[$(date +%T)] $*" | tee -a "$OUT/host_search.log"; }
for tool in ssearch36 parasail_aligner; do
  command -v $tool >/dev/null || { log "missing $tool (apt-get install fasta3 parasail, or bench/unpack_debs.sh)"; exit 1; }
done
matrix=${CUDP_NCBI_DATA:-/usr/share/ncbi/data}/BLOSUM62
[ -f "$matrix" ] || { log "missing $matrix (package ncbi-data)"; exit 1; }

if [ ! -f "$DATA/db.fa" ]; then
  "$BUILD/bench/cudp-gen-db" --seed 42 --sequences "$SEQS" --out "$DATA/db.fa" --queries-out "$DATA/queries.fa" \
    >"$OUT/gen.log" 2>&1
  awk -v dir="$DATA" '/^>/ { name = substr($1, 2, 3); file = dir "/" name ".fa" } { print > file }' "$DATA/queries.fa"
fi
residues=$(grep -v '^>' "$DATA/db.fa" | tr -d '\n' | wc -c)
log "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); threads: $THREADS; database: $SEQS sequences, $residues residues"

# parasail_aligner takes a readable stdin (even /dev/null) as a third input and refuses to run: it gets an empty
# FIFO held open instead (as in tests/oracle/parasail_scores.sh).
fifo=$(mktemp -u)
mkfifo "$fifo"
exec 3<>"$fifo"
trap 'exec 3>&-; rm -f "$fifo"' EXIT
seconds() { /usr/bin/time -f "%e" -o "$1.time" "${@:2}" <&3 >/dev/null 2>"$1.err" || { log "failed: ${*:2}"; tail -5 "$1.err"; exit 1; }; cat "$1.time"; }
gcups() { awk -v m="$1" -v n="$residues" -v s="$2" 'BEGIN { printf "%.1f", m * n / s / 1e9 }'; }

printf "query\tlength\tcudp_s\tcudp_gcups\tssearch36_s\tssearch36_gcups\tparasail_s\tparasail_gcups\tvs_ssearch36\tvs_parasail\n" \
  >"$OUT/host_search.tsv"
for q in $QUERIES; do
  query="$DATA/$q.fa"
  m=$(grep -v '^>' "$query" | tr -d '\n' | wc -c)
  t_cudp=$(seconds "$OUT/cudp_$q" "$BUILD/bin/cudp-swsearch" --backend host --threads "$THREADS" \
    --query "$query" --db "$DATA/db.fa" --format tsv --top 1 --out "$OUT/cudp_$q.tsv")
  t_ss=$(seconds "$OUT/ssearch36_$q" ssearch36 -T "$THREADS" -q -p -s "$matrix" -f 11 -g 1 -d 0 -b 1 -O "$OUT/ssearch36_$q.txt" \
    "$query" "$DATA/db.fa")
  t_ps=$(seconds "$OUT/parasail_$q" parasail_aligner -x -a sw_striped_profile_sat -o 12 -e 1 -m "$matrix" -t "$THREADS" \
    -q "$query" -f "$DATA/db.fa" -g "$OUT/parasail_$q.csv")
  # The best score of the search, both ways: cudp's first hit and the largest score parasail wrote.
  best_cudp=$(awk -F'\t' '!/^#/ && NF > 3 { print $3; exit }' "$OUT/cudp_$q.tsv")
  best_ps=$(awk -F, '$5 > b { b = $5 } END { print b }' "$OUT/parasail_$q.csv")  # query,target,m,n,score,...
  [ "$best_cudp" = "$best_ps" ] || log "WARNING $q: best score cudp $best_cudp, parasail $best_ps"
  rm -f "$OUT/parasail_$q.csv"
  row=$(printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s" "$q" "$m" "$t_cudp" "$(gcups "$m" "$t_cudp")" "$t_ss" \
    "$(gcups "$m" "$t_ss")" "$t_ps" "$(gcups "$m" "$t_ps")")
  ratios=$(awk -v c="$t_cudp" -v s="$t_ss" -v p="$t_ps" 'BEGIN { printf "%.1fx\t%.1fx", s / c, p / c }')
  printf "%s\t%s\n" "$row" "$ratios" >>"$OUT/host_search.tsv"
  log "$q (m=$m): cudp ${t_cudp}s, ssearch36 ${t_ss}s, parasail ${t_ps}s; best score $best_cudp"
done
column -t -s$'\t' "$OUT/host_search.tsv" | tee -a "$OUT/host_search.log"
