#!/usr/bin/env bash
# Pins down parasail_scores.sh's conventions against the independent gotoh.py (see check_ssearch36.sh for the
# method), and uses parasail's global (nw) and semi-global (sg) routines to check gotoh.py's other two modes.
# Exit status: 0 when everything agrees, 1 otherwise.
#
#   check_parasail.sh [PARASAIL_SCORES_SCRIPT]   (default: parasail_scores.sh next to this file)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
scores=${1:-$here/parasail_scores.sh}
aligner=${PARASAIL_ALIGNER:-parasail_aligner}
source "$here/check_common.sh"
trap 'exec 3>&- 2> /dev/null; rm -rf "$tmp"' EXIT

check_all_settings

# Variants: ends only (no traceback run), and parasail's built-in matrices, which agree with the NCBI files on the
# 20 standard residues (all gotoh.py pairs use only those) except blosum80: that one is the older third-bit table
# (A/A 7, W/W 16; the NCBI file is in half bits, A/A 5, W/W 11, and the BLAST Karlin-Altschul values are for it).
"$python" "$gotoh" pairs 50 6 5 "$tmp/q.fa" "$tmp/t.fa"
check_scores "BLOSUM62 11/1 ends only" BLOSUM62 11 1 PARASAIL_STARTS=0
for m in BLOSUM45 BLOSUM50 BLOSUM62 PAM250; do
  check_scores "$m 10/2 built-in matrix" "$m" 10 2 PARASAIL_MATRIX=builtin
done
if PARASAIL_MATRIX=builtin "$scores" "$tmp/q.fa" "$tmp/t.fa" BLOSUM80 10 2 "$tmp/o.tsv" &&
  ! "$python" "$gotoh" check BLOSUM80 10 2 "$tmp/q.fa" "$tmp/t.fa" "$tmp/o.tsv" > /dev/null; then
  echo "ok   parasail's built-in blosum80 differs from NCBI BLOSUM80, as expected"
else
  echo "FAIL parasail's built-in blosum80 now matches NCBI BLOSUM80; update parasail_scores.sh's notes"
  fail=1
fi

# Power: read with the off-by-one convention (first gap residue costs only OPEN) the same output must disagree.
"$python" "$gotoh" pairs 99 6 5 "$tmp/q.fa" "$tmp/t.fa"
if "$scores" "$tmp/q.fa" "$tmp/t.fa" BLOSUM62 11 1 "$tmp/o.tsv" &&
  ! "$python" "$gotoh" check BLOSUM62 10 1 "$tmp/q.fa" "$tmp/t.fa" "$tmp/o.tsv" > /dev/null; then
  echo "ok   an off-by-one gap convention is detected"
else
  echo "FAIL the check cannot tell open+k*ext from open+(k-1)*ext on this data"
  fail=1
fi

# gotoh.py global and semi-global modes against parasail nw/sg (32-bit, no prefilter), same conversion of costs.
mkfifo "$tmp/stdin"
exec 3<> "$tmp/stdin"
data_dir=${CUDP_NCBI_DATA:-/usr/share/ncbi/data}
for s in "BLOSUM62 11 1 nw global" "BLOSUM62 5 2 nw global" "BLOSUM62 11 1 sg semi" "BLOSUM62 5 2 sg semi" \
  "PAM250 14 2 sg semi"; do
  read -r matrix gap_open gap_extend fn mode <<< "$s"
  "$python" "$gotoh" pairs "$seed" 6 5 "$tmp/q.fa" "$tmp/t.fa"
  seed=$((seed + 1))
  "$aligner" -x -a "${fn}_striped_32" -o "$((gap_open + gap_extend))" -e "$gap_extend" -m "$data_dir/$matrix" \
    -f "$tmp/t.fa" -q "$tmp/q.fa" -g "$tmp/g.csv" <&3 > /dev/null 2>&1
  "$python" "$gotoh" scores "$matrix" "$gap_open" "$gap_extend" "$tmp/q.fa" "$tmp/t.fa" --mode "$mode" |
    cut -f3 > "$tmp/g.want"
  # parasail lists pairs query-major in file order, as gotoh.py does; sort to be sure.
  sort -t, -k1,1n -k2,2n "$tmp/g.csv" | cut -d, -f5 > "$tmp/g.got"
  if [[ -s $tmp/g.want ]] && cmp -s "$tmp/g.want" "$tmp/g.got"; then
    echo "ok   $mode $matrix $gap_open/$gap_extend: $(wc -l < "$tmp/g.want") scores equal to parasail ${fn}"
  else
    echo "FAIL $mode $matrix $gap_open/$gap_extend: gotoh.py and parasail ${fn} disagree"
    paste "$tmp/g.want" "$tmp/g.got" | head -5
    fail=1
  fi
done

exit $fail
