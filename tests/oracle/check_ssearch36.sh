#!/usr/bin/env bash
# Pins down ssearch36_scores.sh's conventions against the independent gotoh.py: for several matrices and gap costs,
# every query x target score must agree exactly and every reported pair of ends must bound an optimal alignment.
# Also checks that the same test would catch an off-by-one-extension convention (so passing means something), that
# scores above the 16-bit range come back exact, and that no pair is dropped on a larger library.
# Exit status: 0 when everything agrees, 1 otherwise.
#
#   check_ssearch36.sh [SSEARCH_SCORES_SCRIPT]   (default: ssearch36_scores.sh next to this file)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
scores=${1:-$here/ssearch36_scores.sh}
source "$here/check_common.sh"
trap 'rm -rf "$tmp"' EXIT

check_all_settings

# Power: the same data read with the other common convention (first gap residue costs only OPEN) must disagree.
"$python" "$gotoh" pairs 99 6 5 "$tmp/q.fa" "$tmp/t.fa"
if "$scores" "$tmp/q.fa" "$tmp/t.fa" BLOSUM62 11 1 "$tmp/o.tsv" &&
  ! "$python" "$gotoh" check BLOSUM62 12 1 "$tmp/q.fa" "$tmp/t.fa" "$tmp/o.tsv" > /dev/null; then
  echo "ok   an off-by-one gap convention is detected"
else
  echo "FAIL the check cannot tell open+k*ext from open+(k-1)*ext on this data"
  fail=1
fi

# Scores beyond int16: 3000 W against W (11 each) inside flanks that cannot extend it (no W, F, Y, which are the
# residues W scores positively against): exactly 33000.
"$python" - "$tmp" << 'EOF'
import random, sys
r = random.Random(7)
flank = lambda n: "".join(r.choice("ACDEGHIKLMNPQRSTV") for _ in range(n))
open(sys.argv[1] + "/bq.fa", "w").write(">bigq\n" + "W" * 3000 + "\n")
open(sys.argv[1] + "/bt.fa", "w").write(">bigt\n" + flank(700) + "W" * 3000 + flank(900) + "\n")
EOF
if "$scores" "$tmp/bq.fa" "$tmp/bt.fa" BLOSUM62 11 1 "$tmp/b.tsv" &&
  [[ $(cat "$tmp/b.tsv") == $'bigq\tbigt\t33000\t1\t3000\t701\t3700' ]]; then
  echo "ok   score 33000 (> 32767) reported exactly, ends 1-3000 / 701-3700"
else
  echo "FAIL large score: got '$(cat "$tmp/b.tsv" 2> /dev/null)'"
  fail=1
fi

# Completeness on a library big enough that E()-value or hit-list limits would bite: 4 x 2500 pairs, none dropped.
"$python" - "$tmp" << 'EOF'
import random, sys
r = random.Random(11)
aa = "ACDEFGHIKLMNPQRSTVWY"
with open(sys.argv[1] + "/cq.fa", "w") as f:
    for k in range(4):
        f.write(f">cq{k}\n" + "".join(r.choice(aa) for _ in range(r.randint(20, 300))) + "\n")
with open(sys.argv[1] + "/ct.fa", "w") as f:
    for k in range(2500):
        f.write(f">ct{k} d\n" + "".join(r.choice(aa) for _ in range(r.randint(5, 400))) + "\n")
EOF
if "$scores" "$tmp/cq.fa" "$tmp/ct.fa" BLOSUM62 11 1 "$tmp/c.tsv" &&
  [[ $(cut -f1,2 "$tmp/c.tsv" | sort -u | wc -l) -eq 10000 ]]; then
  echo "ok   all 10000 pairs reported on a 2500-sequence library"
else
  echo "FAIL completeness: $(wc -l < "$tmp/c.tsv" 2> /dev/null) distinct lines, expected 10000"
  fail=1
fi

# Length limits: the largest accepted inputs run, one residue more is refused (ssearch36 would split it).
"$python" - "$tmp" << 'EOF'
import random, sys
r = random.Random(13)
aa = "ACDEFGHIKLMNPQRSTVWY"
s = lambda n: "".join(r.choice(aa) for _ in range(n))
for name, n in (("q_ok", 39990), ("q_long", 39991), ("t_ok", 44989), ("t_long", 44990), ("short", 50)):
    open(f"{sys.argv[1]}/{name}.fa", "w").write(f">{name}\n{s(n)}\n")
EOF
if "$scores" "$tmp/q_ok.fa" "$tmp/short.fa" BLOSUM62 11 1 "$tmp/l.tsv" &&
  "$scores" "$tmp/short.fa" "$tmp/t_ok.fa" BLOSUM62 11 1 "$tmp/l.tsv" &&
  ! "$scores" "$tmp/q_long.fa" "$tmp/short.fa" BLOSUM62 11 1 "$tmp/l.tsv" 2> /dev/null &&
  ! "$scores" "$tmp/short.fa" "$tmp/t_long.fa" BLOSUM62 11 1 "$tmp/l.tsv" 2> /dev/null; then
  echo "ok   queries up to 39990 and targets up to 44989 residues accepted, longer ones refused"
else
  echo "FAIL length limits"
  fail=1
fi

exit $fail
