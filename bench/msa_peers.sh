#!/usr/bin/env bash
# cudp-msa beside clustalw 2.1 and its peers on the same files, in one run: wall time (and peak memory) of each tool
# on families emitted from a Pfam model, and the accuracy of each alignment against the emitted one (SP and TC on
# the model's match columns, bench/msa_accuracy.py), and whether cudp-msa's .aln equals clustalw's byte for byte.
# clustalw runs on one core (it has no threads); the others on all cores.
# The same tools against curated Pfam/Dfam seed alignments instead: bench/msa_seed_accuracy.sh.
#
#   bash bench/msa_peers.sh [N ...]          default N: 500 2000; SECONDS_PER_TOOL (default 600) caps each run
#
# On a machine without a registry, carry the tools' packages and their libraries, fetched where apt works:
#   mkdir -p .debs-msa && cd .debs-msa && apt-get download clustalw clustalo mafft muscle kalign hmmer \
#     libargtable2-0 libdivsufsort3 libgomp1
# MODEL (default Pkinase.hmm from hmmer-examples or .debs/hmmer-examples-slim.tar.gz); CUDP_MSA (default
# build/bin/cudp-msa); CUDP_MSA_ARGS, e.g. "--backend cuda"; TOOLS (default "cudp-msa clustalw clustalo mafft muscle
# kalign"), THREADS (default all cores), WORK (default /tmp/msa-peers) and TSV, to run clustalw apart, e.g. on a core
# of its own (taskset) beside the others. Results: $TSV (default $OUT/msa_peers.tsv) and a summary on stdout.
set -uo pipefail
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
cudp_msa=${CUDP_MSA:-build/bin/cudp-msa}
limit=${SECONDS_PER_TOOL:-600}
threads=${THREADS:-$(nproc)}
work=${WORK:-/tmp/msa-peers}
tsv=${TSV:-$OUT/msa_peers.tsv}
wanted=" ${TOOLS:-cudp-msa clustalw clustalo mafft muscle kalign} "
MSA_MUSCLE=${MSA_MUSCLE:--super5}
source "$here/msa_tools.sh"
model=${MODEL:-}
if [ -z "$model" ]; then
  for m in /usr/share/doc/hmmer/examples/tutorial/Pkinase.hmm /tmp/msa-peers/usr/share/doc/hmmer/examples/tutorial/Pkinase.hmm; do
    [ -f "$m" ] && model=$m && break
  done
  if [ -z "$model" ] && [ -f .debs/hmmer-examples-slim.tar.gz ]; then
    tar xzf .debs/hmmer-examples-slim.tar.gz -C /tmp/msa-peers 2>/dev/null
    model=/tmp/msa-peers/usr/share/doc/hmmer/examples/tutorial/Pkinase.hmm
  fi
fi
[ -f "$model" ] || { echo "msa_peers.sh: no model (set MODEL=...hmm)"; exit 2; }
command -v hmmemit >/dev/null || { echo "msa_peers.sh: hmmemit not found (package hmmer)"; exit 2; }
[[ $wanted != *" cudp-msa "* ]] || [ -x "$cudp_msa" ] || { echo "msa_peers.sh: $cudp_msa not built"; exit 2; }

printf "n\ttool\tseconds\tpeak_kib\tSP\tTC\tnote\n" >"$tsv"
for n in ${*:-500 2000}; do
  dir=$work/n$n
  mkdir -p "$dir"
  hmmemit -a -N "$n" --seed 1 -o "$dir/reference.sto" "$model"
  python3 - "$dir/reference.sto" "$dir/in.fa" "$here/../tests/msa" <<'EOF'
import sys
sys.path.insert(0, sys.argv[3])
from msa_files import stockholm_unaligned, write_fasta
write_fasta(sys.argv[2], stockholm_unaligned(sys.argv[1]))
EOF
  for entry in "${msa_tools[@]}"; do
    name=${entry%%|*}
    command=${entry#*|}
    [[ $wanted == *" $name "* ]] || continue
    msa_tool_installed "$command" || { printf "%s\t%s\t-\t-\t-\t-\tnot installed\n" "$n" "$name" >>"$tsv"; continue; }
    in=$dir/in.fa aln=$dir/$name.aln
    rm -f "$aln"
    run_msa_tool "$command" "$in" "$aln" "$dir/$name.log" "$dir/$name.mem"
    acc="- - -"
    [ -s "$aln" ] && acc=$(python3 "$here/msa_accuracy.py" "$dir/reference.sto" "$aln" --upper 2>&1)
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$n" "$name" "$msa_seconds" "$(tail -1 "$dir/$name.mem" 2>/dev/null)" \
      "$(echo "$acc" | cut -d' ' -f1)" "$(echo "$acc" | cut -d' ' -f2)" "$msa_note" >>"$tsv"
  done
  if [ -s "$dir/clustalw.aln" ] && [ -s "$dir/cudp-msa.aln" ]; then
    cmp -s "$dir/clustalw.aln" "$dir/cudp-msa.aln" && same="identical" || same="DIFFERENT"
    echo "n=$n: cudp-msa's alignment and clustalw's: $same" | tee -a "$OUT/msa_peers.txt"
  fi
done
if command -v column >/dev/null; then column -t -s $'\t' "$tsv"; else cat "$tsv"; fi
