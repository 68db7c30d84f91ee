#!/usr/bin/env bash
# cudp-swsearch's bit scores and E-values against blastp's, which computes the same Karlin-Altschul statistics
# from the same published (lambda, K) table (blast_stat.c) for the same matrix and gap costs.
#   swsearch_stats_vs_blastp.sh SWSEARCH BLASTP MAKEBLASTDB QUERY.fa DB.fa MATRIX OPEN EXTEND [BACKEND]
#
# Making blastp compute what cudp-swsearch computes:
#   cudp-swsearch: bits = (lambda S - ln K) / ln 2, E = K m N exp(-lambda S), m the query's length, N the residues of
#     the whole database, no edge-effect (length) correction (docs/swsearch.md, bio/karlin_altschul.hpp).
#   blastp: E = searchsp K exp(-lambda S), where searchsp is (m - l)(N - n l) with a length correction l, unless
#     -searchsp gives it: one blastp run per query with -searchsp m*N (m and N counted here from the FASTA files,
#     so a wrong residue count in cudp-swsearch shows up as wrong E-values). -comp_based_stats 0 keeps the table's
#     lambda and K (composition adjustment would rescale scores per pair); -seg no leaves the sequences unmasked.
#   blastp's search is seeded, so it may miss the optimal alignment: only pairs whose raw score is the same in both
#     are compared (and a blastp score above cudp's is an error), every query must have some.
#   Printed precision: cudp prints bits with one decimal and E with three significant digits; blastp prints bits
#     with one decimal up to 99.9 and truncated to an integer above, E with 2-4 decimals or as 0.0 below 1e-180.
#     A pair agrees when some value prints as both strings (swsearch_checks.py stats).
# For gap costs blastp has no parameters for, cudp-swsearch must print '-' and blastp must refuse them.
set -euo pipefail
swsearch=$1 blastp=$2 makeblastdb=$3 query=$4 db=$5 matrix=$6 open=$7 extend=$8 backend=${9:-host}
here=$(cd "$(dirname "$0")" && pwd)
checks=("${PYTHON:-python3}" "$here/swsearch_checks.py")
# Registered because the tools were found at configure time: their absence now is a broken setup, not a skip.
for tool in "$blastp" "$makeblastdb"; do
  if [[ ! -x $tool ]]; then
    echo "FAIL: $tool is not an executable (found when configuring; install ncbi-blast+ or reconfigure)" >&2
    exit 1
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
targets=$(grep -c '^>' "$db")
"$swsearch" --query "$query" --db "$db" --matrix "$matrix" --gap-open "$open" --gap-extend "$extend" \
  --backend "$backend" --top "$targets" --out "$work/ours.tsv"
"$makeblastdb" -in "$db" -dbtype prot -out "$work/db" > "$work/makeblastdb.log" ||
  { cat "$work/makeblastdb.log" >&2; exit 1; }
blast=("$blastp" -db "$work/db" -matrix "$matrix" -gapopen "$open" -gapextend "$extend" -comp_based_stats 0
  -seg no -evalue 1e30 -max_target_seqs "$targets" -max_hsps 1 -outfmt "6 qseqid sseqid score bitscore evalue")

if grep -qv $'^#' "$work/ours.tsv" && [[ $(awk -F'\t' '!/^#/ { print $4; exit }' "$work/ours.tsv") == - ]]; then
  "${checks[@]}" no-stats "$work/ours.tsv"
  awk '/^>/ { n++ } n == 1' "$query" > "$work/q.fa"
  if "${blast[@]}" -query "$work/q.fa" -searchsp 1 > /dev/null 2> "$work/blastp.err" ||
    ! grep -q "values of $open and $extend not supported" "$work/blastp.err"; then
    echo "FAIL: blastp did not refuse $matrix $open/$extend, which cudp-swsearch has no parameters for:" >&2
    cat "$work/blastp.err" >&2
    exit 1
  fi
  echo "blastp refuses $matrix $open/$extend too: $(head -1 "$work/blastp.err")"
  exit 0
fi

: > "$work/blast.tsv"
"${checks[@]}" searchsp "$query" "$db" > "$work/searchsp.tsv"
k=0
while IFS=$'\t' read -r name searchsp; do
  k=$((k + 1))
  awk -v k="$k" '/^>/ { n++ } n == k' "$query" > "$work/q.fa"
  "${blast[@]}" -query "$work/q.fa" -searchsp "$searchsp" >> "$work/blast.tsv" 2> "$work/blastp.err" ||
    { echo "FAIL: blastp on query $name:" >&2; cat "$work/blastp.err" >&2; exit 1; }
done < "$work/searchsp.tsv"
"${checks[@]}" stats "$work/ours.tsv" "$work/blast.tsv"
