#!/usr/bin/env bash
# Accuracy of cudp-msa, clustalw 2.1, Clustal Omega, MAFFT (--auto), MUSCLE and kalign against curated seed
# alignments: each seed of hmmer's examples is ungapped to FASTA, aligned again by every tool, and scored against
# the seed with bench/msa_accuracy.py (BAliBASE's SP and TC on every seed column with at least two residues); also
# the wall time of each run, and whether cudp-msa's .aln equals clustalw's byte for byte. clustalw runs on one core
# (it has no threads); the others on all cores. Where the seed marks its match columns (#=GC RF, or lower-case
# insert residues), SP_match and TC_match score those columns only.
#
#   bash bench/msa_seed_accuracy.sh [SEED.sto[.gz] ...]     default: the Pfam/Dfam seeds of hmmer's examples
#
# Default seeds: tutorial/ globins4 fn3 Pkinase MADE1 (DNA) and testsuite/ XYPPX Caudal_act LuxC Patched RRM_1 SMC_N,
# from /usr/share/doc/hmmer/examples (or the packages of .debs-msa), else .debs/hmmer-examples-slim.tar.gz (the
# testsuite's other .sto files are made-up test cases, not families). Tools: as bench/msa_peers.sh (packages in
# .debs-msa are unpacked if there); a tool not installed gets "missing". CUDP_MSA (default build/bin/cudp-msa),
# CUDP_MSA_ARGS, SECONDS_PER_TOOL (default 600). Results: $OUT/msa_seed_accuracy.tsv and markdown tables on stdout.
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
cudp_msa=${CUDP_MSA:-build/bin/cudp-msa}
limit=${SECONDS_PER_TOOL:-600}
threads=$(nproc)
work=/tmp/msa-seed
mkdir -p "$work"
MSA_KALIGN_ARGS=${MSA_KALIGN_ARGS:--n $threads}
source "$here/msa_tools.sh"

seeds=("$@")
if [ ${#seeds[@]} = 0 ]; then
  examples=""
  for e in /usr/share/doc/hmmer/examples /tmp/msa-peers/usr/share/doc/hmmer/examples; do
    [ -f "$e/tutorial/Pkinase.sto" ] && examples=$e && break
  done
  if [ -z "$examples" ] && [ -f .debs/hmmer-examples-slim.tar.gz ]; then
    tar xzf .debs/hmmer-examples-slim.tar.gz -C "$work" 2>/dev/null
    examples=$work/usr/share/doc/hmmer/examples
  fi
  [ -n "$examples" ] || { echo "msa_seed_accuracy.sh: no hmmer examples (name the seeds: SEED.sto ...)"; exit 2; }
  seeds=("$examples"/tutorial/{globins4,fn3,Pkinase,MADE1}.sto
    "$examples"/testsuite/{XYPPX.sto,Caudal_act.sto.gz,LuxC.sto.gz,Patched.sto.gz,RRM_1.sto.gz,SMC_N.sto.gz})
fi

# SEED.sto DIR: the seed's rows (tests/msa/msa_files.py reads Stockholm), renamed s1, s2, ... (clustalw cuts names
# at 30 characters), as DIR/reference.afa; ungapped and upper case as DIR/in.fa; and, where the seed marks match
# columns, as DIR/match.afa with the residues outside them in lower case (for --upper). Prints "sequences mean_length".
seed_to_fasta() {
  python3 - "$1" "$2" "$here/../tests/msa" <<'EOF'
import sys
sys.path.insert(0, sys.argv[3])
from msa_files import stockholm_rows, stockholm_unaligned, write_fasta
seed, out = sys.argv[1], sys.argv[2]
rename = lambda records: [(f"s{k + 1}", row) for k, (_, row) in enumerate(records)]
records, rows = rename(stockholm_unaligned(seed)), rename(stockholm_rows(seed))
write_fasta(f"{out}/in.fa", records)
write_fasta(f"{out}/reference.afa", rows)
rf = "".join(line.split()[2] for line in open(seed) if line.startswith("#=GC RF"))
if rf:
    rows = [(n, "".join(c if rf[k] not in ".-~" else c.lower() for k, c in enumerate(r))) for n, r in rows]
if any(c.islower() for _, r in rows for c in r):
    write_fasta(f"{out}/match.afa", rows)
print(len(records), round(sum(len(s) for _, s in records) / len(records)))
EOF
}

tsv=$OUT/msa_seed_accuracy.tsv
printf "family\tsequences\tmean_length\ttool\tSP\tTC\tSP_match\tTC_match\tseconds\tcudp_msa_equals_clustalw\tnote\n" \
  >"$tsv"
for seed in "${seeds[@]}"; do
  family=$(basename "$seed" | sed 's/\.gz$//; s/\.sto$//')
  dir=$work/$family
  rm -rf "$dir" && mkdir -p "$dir"
  zcat -f "$seed" >"$dir/seed.sto"
  read -r nseq length < <(seed_to_fasta "$dir/seed.sto" "$dir") || { echo "$family: seed not read"; continue; }
  same="-"
  for entry in "${msa_tools[@]}"; do
    name=${entry%%|*}
    command=${entry#*|}
    if ! msa_tool_installed "$command"; then
      printf "%s\t%s\t%s\t%s\t-\t-\t-\t-\t-\t-\tmissing\n" "$family" "$nseq" "$length" "$name" >>"$dir/rows"
      continue
    fi
    # Each tool in a folder of its own: clustalw writes its guide tree beside the input.
    mkdir -p "$dir/$name" && cp "$dir/in.fa" "$dir/$name/in.fa"
    in=$dir/$name/in.fa aln=$dir/$name.aln
    run_msa_tool "$command" "$in" "$aln" "$dir/$name.log"
    note=$msa_note
    acc="- - -" match="- - -"
    if [ -s "$aln" ]; then
      acc=$(python3 "$here/msa_accuracy.py" "$dir/reference.afa" "$aln" 2>&1) ||
        { note="$note $(echo "$acc" | tail -1 | tr '\t' ' ')"; acc="- - -"; }
      [ -f "$dir/match.afa" ] && { match=$(python3 "$here/msa_accuracy.py" "$dir/match.afa" "$aln" --upper 2>&1) ||
        match="- - -"; }
    else
      note="${note:-no alignment}"
    fi
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$family" "$nseq" "$length" "$name" \
      "$(echo "$acc" | cut -d' ' -f1)" "$(echo "$acc" | cut -d' ' -f2)" \
      "$(echo "$match" | cut -d' ' -f1)" "$(echo "$match" | cut -d' ' -f2)" "$msa_seconds" "@" "$note" >>"$dir/rows"
  done
  if [ -s "$dir/clustalw.aln" ] && [ -s "$dir/cudp-msa.aln" ]; then
    cmp -s "$dir/clustalw.aln" "$dir/cudp-msa.aln" && same="identical" || same="DIFFERENT"
  fi
  # The comparison goes on the family's cudp-msa row, "-" on the others.
  awk -F'\t' -v OFS='\t' -v same="$same" '$10 == "@" { $10 = $4 == "cudp-msa" ? same : "-" } 1' "$dir/rows" >>"$tsv"
  echo "$family ($nseq sequences): done; cudp-msa's .aln and clustalw's: $same" >&2
done

python3 - "$tsv" <<'EOF'
import sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
head, rows = rows[0], rows[1:]
print("| " + " | ".join(head) + " |")
print("|" + "---|" * len(head))
for r in rows:
    print("| " + " | ".join(r) + " |")
# Means over the families each tool aligned and scored.
print("\nMeans over the families each tool aligned (SP_match, TC_match: those with match columns); seconds summed:\n")
print("| tool | families | SP | TC | families with match columns | SP_match | TC_match | seconds (sum) |")
print("|---|---|---|---|---|---|---|---|")
col = {h: k for k, h in enumerate(head)}
tools = list(dict.fromkeys(r[col["tool"]] for r in rows))
def mean(values):
    values = [float(v) for v in values if v != "-"]
    return (f"{sum(values) / len(values):.4f}" if values else "-"), len(values)
for t in tools:
    mine = [r for r in rows if r[col["tool"]] == t]
    sp, n = mean(r[col["SP"]] for r in mine)
    tc, _ = mean(r[col["TC"]] for r in mine)
    spm, m = mean(r[col["SP_match"]] for r in mine)
    tcm, _ = mean(r[col["TC_match"]] for r in mine)
    seconds = sum(float(r[col["seconds"]]) for r in mine if r[col["seconds"]] != "-")
    print(f"| {t} | {n} | {sp} | {tc} | {m} | {spm} | {tcm} | {seconds:.2f} |")
EOF
