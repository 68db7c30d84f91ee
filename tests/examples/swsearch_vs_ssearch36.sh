#!/usr/bin/env bash
# cudp-swsearch against a reference tool on every (query, target) pair: identical raw scores, and identical
# alignment ends wherever the optimal alignment is unique enough for both tools to pick the same one.
#   swsearch_vs_ssearch36.sh SWSEARCH QUERY.fa DB.fa MATRIX OPEN EXTEND [BACKEND]
# ORACLE=ssearch36 (default) or parasail. ssearch36 cuts targets of 44,990 residues or more into windows, so the
# data with such targets goes to parasail (PARASAIL_STARTS=0 there: its traceback would need O(m*n) memory).
set -euo pipefail
swsearch=$1 query=$2 db=$3 matrix=$4 open=$5 extend=$6 backend=${7:-host}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
targets=$(grep -c '^>' "$db")
"$here/../oracle/${ORACLE:-ssearch36}_scores.sh" "$query" "$db" "$matrix" "$open" "$extend" "$work/oracle.tsv"
"$swsearch" --query "$query" --db "$db" --matrix "$matrix" --gap-open "$open" --gap-extend "$extend" \
  --top "$targets" --backend "$backend" --out "$work/ours.tsv"
python3 - "$work/oracle.tsv" "$work/ours.tsv" <<'PY'
import sys
oracle = {}
for line in open(sys.argv[1]):
    q, t, s, qs, qe, ts, te = line.rstrip('\n').split('\t')
    oracle[(q, t)] = (int(s), tuple(int(v) if v != '-' else None for v in (qs, qe, ts, te)))
ours = {}
for line in open(sys.argv[2]):
    if line.startswith('#'):
        continue
    f = line.rstrip('\n').split('\t')
    ours[(f[0], f[1])] = (int(f[2]), tuple(map(int, f[5:9])))
missing = set(oracle) - set(ours)
score_bad = [(k, oracle[k][0], ours[k][0]) for k in oracle if k in ours and oracle[k][0] != ours[k][0]]
ends_bad = [k for k in oracle if k in ours and oracle[k][0] > 0 and
            any(a is not None and a != b for a, b in zip(oracle[k][1], ours[k][1]))]
print(f"pairs {len(oracle)}, score mismatches {len(score_bad)}, missing {len(missing)}, "
      f"coordinate differences {len(ends_bad)} ({100.0 * len(ends_bad) / max(1, len(oracle)):.2f}%)")
for k, a, b in score_bad[:10]:
    print("  score", k, "ssearch36", a, "cudp", b)
for k in ends_bad[:5]:
    print("  ends", k, "ssearch36", oracle[k][1], "cudp", ours[k][1])
# Scores must be identical. End coordinates of tied optimal alignments may legitimately differ (the tools break
# ties differently); allow at most 2% of pairs, and none at all among exact self-hits.
sys.exit(1 if score_bad or missing or len(ends_bad) > 0.02 * len(oracle) else 0)
PY
