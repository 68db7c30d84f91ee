#!/usr/bin/env bash
# Exhaustive Smith-Waterman oracle computed by parasail_aligner, in the same TSV as ssearch36_scores.sh:
#   query_id  target_id  score  qstart  qend  tstart  tend      (1-based inclusive; all four 0 when score is 0)
# sorted by query then target in file order.
#
#   parasail_scores.sh QUERY.fa DB.fa MATRIX OPEN EXTEND OUT.tsv
#
# OPEN/EXTEND use our convention (a gap of length k costs OPEN + k*EXTEND). parasail charges its -o for the first
# gap residue and -e for each further one (k costs o + (k-1)*e), so it is run with -o OPEN+EXTEND -e EXTEND
# (checked against gotoh.py by check_parasail.sh).
#
# Two runs:
#   sw_striped_32 (CSV)        score and end positions. 32-bit lanes: exact for any score, no saturation retry.
#   sw_trace_striped_32 (SAM)  start positions. parasail 2.6's local traceback sometimes begins (or ends) the CIGAR
#                              with a gap run that the alignment does not contain (parasail-python issue #61), so
#                              leading/trailing I/D operations are dropped before reading the starts. Skipped
#                              (starts written as "-") when PARASAIL_STARTS=0: the trace keeps O(m*n) memory.
# Flags, and why:
#   -x           no suffix-array prefilter; by default only pairs sharing an exact 7-mer are aligned at all
#   -m FILE      the NCBI matrix file: parasail's built-in blosum62 is an older NCBI table whose B, Z and X rows
#                differ (B/N 3 not 4, Z/Q 3 not 4, X/A 0 not -1), and its blosum80 is the third-bit table (A/A 7)
#                rather than NCBI's half-bit one (A/A 5). PARASAIL_MATRIX=builtin uses the built-ins anyway; for
#                blosum45/50/62 and pam250 they agree on the 20 standard residues. Letters missing from the matrix
#                (U, O, digits, '-') score as '*'.
#   stdin        parasail_aligner polls stdin and, if it is readable (even /dev/null), takes it as a third input
#                and refuses to run; it gets an empty FIFO held open instead.
#
# Environment: PARASAIL_ALIGNER (binary), PARASAIL_THREADS (-t), PARASAIL_STARTS, PARASAIL_MATRIX,
# CUDP_NCBI_DATA (default /usr/share/ncbi/data).
set -euo pipefail

if [[ $# -ne 6 ]]; then
  echo "usage: $0 QUERY.fa DB.fa MATRIX OPEN EXTEND OUT.tsv" >&2
  exit 2
fi
query=$1 db=$2 matrix=$3 gap_open=$4 gap_extend=$5 out=$6
aligner=${PARASAIL_ALIGNER:-parasail_aligner}
data_dir=${CUDP_NCBI_DATA:-/usr/share/ncbi/data}

if ! [[ $gap_open =~ ^[0-9]+$ && $gap_extend =~ ^[0-9]+$ ]]; then
  echo "$0: OPEN and EXTEND must be non-negative integers (costs, not scores)" >&2
  exit 2
fi
case ${matrix^^} in
  BLOSUM45 | BLOSUM50 | BLOSUM62 | BLOSUM80 | PAM250)
    if [[ ${PARASAIL_MATRIX:-file} == builtin ]]; then
      matrix_arg=${matrix,,}
    elif [[ -r $data_dir/${matrix^^} ]]; then
      matrix_arg=$data_dir/${matrix^^}
    else
      echo "$0: $data_dir/${matrix^^} not readable (install ncbi-data, set CUDP_NCBI_DATA, or PARASAIL_MATRIX=builtin)" >&2
      exit 2
    fi
    ;;
  *) matrix_arg=$matrix ;;
esac

tmp=$(mktemp -d)
trap 'exec 3>&- 2> /dev/null; rm -rf "$tmp"' EXIT

# Ordinal headers so that names in parasail's SAM cannot be ambiguous; empty records would shift parasail's
# indices, so they are refused.
renumber() {  # in.fa out.fa ids.txt
  awk -v ids="$3" '
    function done() { if (n && !len) { printf "record %d (%s) is empty\n", n, id > "/dev/stderr"; bad = 1 } }
    /^>/ { done(); n++; len = 0; id = substr($0, 2); sub(/^[ \t]+/, "", id); sub(/[ \t].*$/, "", id);
           print id > ids; print ">" n; next }
    { len += length($0); print }
    END { done(); exit bad }' "$1" > "$2"
}
renumber "$query" "$tmp/q.fa" "$tmp/q.ids"
renumber "$db" "$tmp/d.fa" "$tmp/d.ids"
nq=$(wc -l < "$tmp/q.ids")
nt=$(wc -l < "$tmp/d.ids")
if [[ $nq -eq 0 || $nt -eq 0 ]]; then
  echo "$0: empty query or database file" >&2
  exit 2
fi

mkfifo "$tmp/stdin"
exec 3<> "$tmp/stdin"
common=(-x -o "$((gap_open + gap_extend))" -e "$gap_extend" -m "$matrix_arg" -f "$tmp/d.fa" -q "$tmp/q.fa")
[[ -n ${PARASAIL_THREADS:-} ]] && common+=(-t "$PARASAIL_THREADS")

"$aligner" -a sw_striped_32 "${common[@]}" -g "$tmp/scores.csv" <&3 > "$tmp/log1" 2>&1 ||
  { cat "$tmp/log1" >&2; exit 1; }
if [[ ${PARASAIL_STARTS:-1} != 0 ]]; then
  "$aligner" -a sw_trace_striped_32 -O SAM "${common[@]}" -g "$tmp/trace.sam" <&3 > "$tmp/log2" 2>&1 ||
    { cat "$tmp/log2" >&2; exit 1; }
else
  : > "$tmp/trace.sam"
fi

# CSV: query_index,db_index,query_len,db_len,score,end_query,end_ref (0-based ends).
# SAM: QNAME(query ordinal) FLAG RNAME(target ordinal) POS MAPQ CIGAR ... AS:i:score
awk -F'[,\t]' -v qids="$tmp/q.ids" -v dids="$tmp/d.ids" -v nq="$nq" -v nt="$nt" \
  -v starts="${PARASAIL_STARTS:-1}" '
  BEGIN {
    while ((getline l < qids) > 0) qname[++a] = l
    while ((getline l < dids) > 0) dname[++b] = l
  }
  FILENAME ~ /trace\.sam$/ {
    if ($0 ~ /^@/) next
    q = $1; t = $3; pos = $4; cigar = $6; as = ""
    for (i = 12; i <= NF; i++) if ($i ~ /^AS:i:/) as = substr($i, 6)
    # Split the CIGAR into ops, then drop the gap runs at either end before walking it.
    nops = 0
    while (match(cigar, /^[0-9]+[MIDNSHP=X]/)) {
      nops++; cnt[nops] = substr(cigar, 1, RLENGTH - 1) + 0; op[nops] = substr(cigar, RLENGTH, 1)
      cigar = substr(cigar, RLENGTH + 1)
    }
    lead_s = 0; first = 1; last = nops
    if (first <= last && op[first] == "S") { lead_s = cnt[first]; first++ }
    if (first <= last && op[last] == "S") last--
    qs = lead_s + 1; ts = pos
    while (first <= last && (op[first] == "I" || op[first] == "D")) {
      if (op[first] == "I") qs += cnt[first]; else ts += cnt[first]
      first++
    }
    while (last >= first && (op[last] == "I" || op[last] == "D")) last--
    qe = qs - 1; te = ts - 1
    for (i = first; i <= last; i++) {
      if (op[i] ~ /[M=X]/) { qe += cnt[i]; te += cnt[i] }
      else if (op[i] == "I") qe += cnt[i]
      else if (op[i] == "D") te += cnt[i]
    }
    key = q SUBSEP t
    tscore[key] = as; tqs[key] = qs; tqe[key] = qe; tts[key] = ts; tte[key] = te
    next
  }
  {
    q = $1 + 1; t = $2 + 1; score = $5; key = q SUBSEP t
    if (key in seen) { print "duplicate pair " q " " t > "/dev/stderr"; bad = 1; next }
    seen[key] = 1; count++
    if (score <= 0) { qs = qe = ts = te = 0 }
    else if (starts == "0") { qs = "-"; ts = "-"; qe = $6 + 1; te = $7 + 1 }
    else if (!(key in tscore) || tscore[key] != score) {
      printf "trace score %s differs from scan score %s for pair %d %d\n", tscore[key], score, q, t > "/dev/stderr"
      bad = 1; next
    } else { qs = tqs[key]; qe = tqe[key]; ts = tts[key]; te = tte[key] }
    printf "%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", q, t, qname[q], dname[t], score, qs, qe, ts, te
  }
  END {
    if (count != nq * nt) { printf "expected %d pairs, parsed %d\n", nq * nt, count > "/dev/stderr"; bad = 1 }
    exit bad
  }' "$tmp/trace.sam" "$tmp/scores.csv" > "$tmp/parsed.tsv" ||
  { echo "$0: failed to parse parasail_aligner output" >&2; exit 1; }
sort -t $'\t' -k1,1n -k2,2n "$tmp/parsed.tsv" | cut -f3- > "$tmp/out.tsv"
mv "$tmp/out.tsv" "$out"
