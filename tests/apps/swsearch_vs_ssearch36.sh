#!/usr/bin/env bash
# cudp-swsearch against a reference tool on every (query, target) pair, then its --top ranking and truncation.
#   swsearch_vs_ssearch36.sh SWSEARCH QUERY.fa DB.fa MATRIX OPEN EXTEND [BACKEND]
# ORACLE=ssearch36 (default) or parasail. ssearch36 cuts targets of 44,990 residues or more into windows, so the
# data with such targets goes to parasail (PARASAIL_STARTS=0 there: its traceback would need O(m*n) memory).
#
# What must hold (swsearch_checks.py does the comparing):
#   - raw scores identical for every pair, no pair missing;
#   - alignment ends identical for every exact self-hit (query and target the same sequence: the full diagonal is the
#     one optimal alignment); elsewhere tied optimal alignments let the tools pick different ends, so up to 2% of
#     all pairs may differ;
#   - rows per query in query file order, score descending, ties in database order, exactly min(N, targets) rows;
#   - --top N returns the N best oracle scores in that order (for N = 1, a cut through a group of tied scores,
#     default 10, targets - 1 and targets + 5), each row identical to the full run's.
#   - with NCBI_MATRICES set (the folder of the NCBI matrix files): a run with --alignments whose every row's
#     score, ends, pident, length, mismatch and gapopen follow from its CIGAR and the sequences, and the same run in
#     --format tabular has the same rows in BLAST's column order.
# Bit scores and E-values are compared with blastp by swsearch_stats_vs_blastp.sh: ssearch36 estimates its own.
set -euo pipefail
swsearch=$1 query=$2 db=$3 matrix=$4 open=$5 extend=$6 backend=${7:-host}
here=$(cd "$(dirname "$0")" && pwd)
oracle=${ORACLE:-ssearch36}
checks=("${PYTHON:-python3}" "$here/swsearch_checks.py")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
targets=$(grep -c '^>' "$db")
"$here/../oracle/${oracle}_scores.sh" "$query" "$db" "$matrix" "$open" "$extend" "$work/oracle.tsv"
search() {  # out.tsv [--top N]
  local out=$1
  shift
  "$swsearch" --query "$query" --db "$db" --matrix "$matrix" --gap-open "$open" --gap-extend "$extend" \
    --backend "$backend" --out "$out" "$@"
}
search "$work/ours.tsv" --top "$targets"
status=0
"${checks[@]}" pairs "$oracle" "$work/oracle.tsv" "$work/ours.tsv" "$query" "$db" || status=1

tops=(1 "$((targets + 5))")
((targets > 1)) && tops+=("$((targets - 1))")
tie=$("${checks[@]}" tie-split "$work/oracle.tsv")
if [[ -n $tie ]]; then
  tops+=("$tie")
else
  echo "no tied scores in this data: --top truncation inside a tie is not exercised"
fi
for n in "${tops[@]}"; do
  search "$work/top.tsv" --top "$n"
  "${checks[@]}" top "$oracle" "$work/oracle.tsv" "$work/ours.tsv" "$n" "$work/top.tsv" || status=1
done
# Without --top: the documented default of 10.
search "$work/top.tsv"
"${checks[@]}" top "$oracle" "$work/oracle.tsv" "$work/ours.tsv" 10 "$work/top.tsv" || status=1
if [[ -n ${NCBI_MATRICES:-} ]]; then
  search "$work/aligned.tsv" --alignments --top 5
  "${checks[@]}" alignments "$work/aligned.tsv" "$query" "$db" "$NCBI_MATRICES/$matrix" "$open" "$extend" || status=1
  search "$work/aligned.tabular" --alignments --top 5 --format tabular
  "${checks[@]}" tabular "$work/aligned.tsv" "$work/aligned.tabular" || status=1
fi
exit $status
