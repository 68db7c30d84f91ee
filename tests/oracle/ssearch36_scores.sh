#!/usr/bin/env bash
# Exhaustive Smith-Waterman oracle: every query x target local score and alignment ends, computed by ssearch36
# (FASTA 36), as TSV lines
#   query_id  target_id  score  qstart  qend  tstart  tend      (1-based inclusive; all four 0 when score is 0)
# sorted by query then target in file order.
#
#   ssearch36_scores.sh QUERY.fa DB.fa MATRIX OPEN EXTEND OUT.tsv
#
# OPEN/EXTEND use our convention: a gap of length k costs OPEN + k*EXTEND. ssearch36 uses the same one (its -f is
# the opening penalty charged once, -g is charged for every residue of the gap, including the first; checked
# against gotoh.py by check_ssearch36.sh), so they pass through unchanged.
#
# MATRIX is BLOSUM45/50/62/80 or PAM250 (or any NCBI-format matrix file). The file is always given to -s, never
# ssearch36's built-in abbreviation: "-s BL45" silently falls back to BLOSUM50. Files are looked up in
# $CUDP_NCBI_DATA (default /usr/share/ncbi/data).
#
# Flags, and why:
#   -p           protein, never guess the alphabet from composition
#   -z -1        no statistics, hence no shuffling and no E()-value filtering of what is reported
#   -b =N        force exactly N result lines per query (N = number of targets); without "=" the list is cut by E()
#   -d 0         no alignment display: the scan scores and the -m 9 coordinates are all we need
#   -m 9         adds raw score and alignment ends (an0 ax0 an1 ax1) to the best-scores list
#   -q           no prompts
# Length limits of this build (36.3.8i), found by bisection: a query longer than 39990 residues is silently cut into
# separate non-overlapping queries, and a target of 44990 or more into windows of 44990 overlapping by only 150
# (-N can shrink the window, not grow it). Both would make scores wrong, so such inputs are refused: use
# parasail_scores.sh for them.
# ssearch36 truncates names in the -m 9 list (to 60 characters), so the inputs are copied with headers replaced by
# ordinal numbers and mapped back afterwards.
#
# Environment: SSEARCH36 (binary, default ssearch36 on PATH), SSEARCH_THREADS (-T, default: ssearch36's own).
set -euo pipefail

if [[ $# -ne 6 ]]; then
  echo "usage: $0 QUERY.fa DB.fa MATRIX OPEN EXTEND OUT.tsv" >&2
  exit 2
fi
query=$1 db=$2 matrix=$3 gap_open=$4 gap_extend=$5 out=$6
ssearch=${SSEARCH36:-ssearch36}
data_dir=${CUDP_NCBI_DATA:-/usr/share/ncbi/data}

case ${matrix^^} in
  BLOSUM45 | BLOSUM50 | BLOSUM62 | BLOSUM80 | PAM250) matrix_file=$data_dir/${matrix^^} ;;
  *) matrix_file=$matrix ;;
esac
if [[ ! -r $matrix_file ]]; then
  echo "$0: matrix file $matrix_file not readable (install ncbi-data or set CUDP_NCBI_DATA)" >&2
  exit 2
fi
if ! [[ $gap_open =~ ^[0-9]+$ && $gap_extend =~ ^[0-9]+$ ]]; then
  echo "$0: OPEN and EXTEND must be non-negative integers (costs, not scores)" >&2
  exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Headers -> ordinals; the id map keeps the original first word. Fails on a record longer than LIMIT residues.
renumber() {  # in.fa out.fa ids.txt limit what
  awk -v ids="$3" -v limit="$4" -v what="$5" '
    function done() {
      if (len > limit) {
        printf "%s %s has %d residues; ssearch36 splits %ss longer than %d\n", what, id, len, what, limit > "/dev/stderr"
        bad = 1
      }
    }
    /^>/ { done(); n++; len = 0; id = substr($0, 2); sub(/^[ \t]+/, "", id); sub(/[ \t].*$/, "", id);
           print id > ids; print ">" n; next }
    { t = $0; gsub(/[^A-Za-z*]/, "", t); len += length(t); print }
    END { done(); exit bad }' "$1" > "$2"
}
renumber "$query" "$tmp/q.fa" "$tmp/q.ids" 39990 query || { echo "$0: use parasail_scores.sh for these" >&2; exit 2; }
renumber "$db" "$tmp/d.fa" "$tmp/d.ids" 44989 target || { echo "$0: use parasail_scores.sh for these" >&2; exit 2; }
ntargets=$(wc -l < "$tmp/d.ids")
nqueries=$(wc -l < "$tmp/q.ids")
if [[ $ntargets -eq 0 || $nqueries -eq 0 ]]; then
  echo "$0: empty query or database file" >&2
  exit 2
fi

threads=()
[[ -n ${SSEARCH_THREADS:-} ]] && threads=(-T "$SSEARCH_THREADS")

"$ssearch" -q -p -s "$matrix_file" -f "$gap_open" -g "$gap_extend" -z -1 -b "=$ntargets" -d 0 -m 9 \
  "${threads[@]}" "$tmp/q.fa" "$tmp/d.fa" > "$tmp/raw.txt"

# ssearch36 echoes the penalties it used; refuse to go on if it reinterpreted them.
if ! grep -q "open/ext: -$gap_open/-$gap_extend\$" "$tmp/raw.txt"; then
  echo "$0: ssearch36 did not report open/ext -$gap_open/-$gap_extend:" >&2
  grep -m1 "Parameters:" "$tmp/raw.txt" >&2 || true
  exit 1
fi

# Best-scores lines look like
#   NAME [description] (LEN)  SW<TAB>%id %sim sw alen an0 ax0 pn0 px0 an1 ax1 pn1 px1 gapq gapl fs
# and each query's block starts with "  K>>>NAME ...".
awk -v qids="$tmp/q.ids" -v dids="$tmp/d.ids" -v nt="$ntargets" -v nq="$nqueries" '
  BEGIN {
    while ((getline l < qids) > 0) qname[++nqn] = l
    while ((getline l < dids) > 0) dname[++ndn] = l
  }
  /^ *[0-9]+>>>/ { q = $0; sub(/^ *[0-9]+>>>/, "", q); sub(/[ \t].*$/, "", q); inlist = 0; next }
  /^The best scores are:/ { inlist = 1; next }
  /^>>>/ || /^$/ { inlist = 0; next }
  inlist {
    t = $1
    rest = $0
    if (!match(rest, /\( *[0-9]+\)[^()]*$/)) { print "unparsed: " $0 > "/dev/stderr"; bad = 1; next }
    rest = substr(rest, RSTART)
    sub(/^\( *[0-9]+\)/, "", rest)
    n = split(rest, f, /[ \t]+/)
    if (f[1] == "") { for (i = 1; i < n; i++) f[i] = f[i + 1]; n-- }
    if (n != 16) { print "unparsed: " $0 > "/dev/stderr"; bad = 1; next }
    score = f[4]
    if (score + 0 <= 0) { score = 0; qs = qe = ts = te = 0 } else { qs = f[6]; qe = f[7]; ts = f[10]; te = f[11] }
    key = q SUBSEP t
    if (key in seen) { print "duplicate pair " q " " t > "/dev/stderr"; bad = 1; next }
    seen[key] = 1; count++
    printf "%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", q, t, qname[q], dname[t], score, qs, qe, ts, te
  }
  END {
    if (count != nq * nt) { printf "expected %d pairs, parsed %d\n", nq * nt, count > "/dev/stderr"; bad = 1 }
    exit bad
  }' "$tmp/raw.txt" > "$tmp/parsed.tsv" || { echo "$0: failed to parse ssearch36 output" >&2; exit 1; }
sort -t $'\t' -k1,1n -k2,2n "$tmp/parsed.tsv" | cut -f3- > "$tmp/out.tsv"
mv "$tmp/out.tsv" "$out"
