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
if ls .debs-msa/*.deb >/dev/null 2>&1; then
  eval "$(bash "$here/unpack_debs.sh" .debs-msa /tmp/msa-peers 2>/dev/null)"
  # mafft's driver script looks for its programs where the package put them, unless told otherwise.
  export MAFFT_BINARIES=/tmp/msa-peers/usr/lib/mafft/lib/mafft
fi
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

# tool name, then the command (FASTA in $in, alignment to $aln) as one string for bash -c.
tools=(
  "cudp-msa|$cudp_msa \$in -o \$aln --threads $threads ${CUDP_MSA_ARGS:-}"
  "clustalw|clustalw -INFILE=\$in -ALIGN -OUTFILE=\$aln -QUIET"
  "clustalo|clustalo -i \$in -o \$aln --threads $threads --force"
  "mafft|mafft --auto --thread $threads --quiet \$in > \$aln"
  "muscle|muscle -super5 \$in -output \$aln -threads $threads"
  "kalign|kalign -i \$in -o \$aln"
)
printf "n\ttool\tseconds\tpeak_kib\tSP\tTC\tnote\n" >"$tsv"
for n in ${*:-500 2000}; do
  dir=$work/n$n
  mkdir -p "$dir"
  hmmemit -a -N "$n" --seed 1 -o "$dir/reference.sto" "$model"
  python3 - "$dir/reference.sto" "$dir/in.fa" <<'EOF'
import re, sys
rows, order = {}, []
for line in open(sys.argv[1]):
    if line.startswith(("#", "//")) or not line.strip():
        continue
    name, row = line.split()[:2]
    if name not in rows:
        order.append(name)
        rows[name] = ""
    rows[name] += row
with open(sys.argv[2], "w") as out:
    for name in order:
        out.write(f">{name}\n{re.sub('[^A-Za-z]', '', rows[name]).upper()}\n")
EOF
  for entry in "${tools[@]}"; do
    name=${entry%%|*}
    command=${entry#*|}
    [[ $wanted == *" $name "* ]] || continue
    bin=${command%% *}
    command -v "$bin" >/dev/null || [ -x "$bin" ] || { printf "%s\t%s\t-\t-\t-\t-\tnot installed\n" "$n" "$name" >>"$tsv"; continue; }
    in=$dir/in.fa aln=$dir/$name.aln
    rm -f "$aln"
    start=$(date +%s.%N)
    in=$in aln=$aln /usr/bin/time -f "%M" -o "$dir/$name.mem" timeout "$limit" bash -c "$command" \
      >"$dir/$name.log" 2>&1
    rc=$?
    seconds=$(python3 -c "import time; print(f'{time.time() - $start:.2f}')")
    note=""
    [ $rc = 124 ] && note="not finished in $limit s"
    [ $rc != 0 ] && [ $rc != 124 ] && note="exit $rc"
    acc="- - -"
    [ -s "$aln" ] && acc=$(python3 "$here/msa_accuracy.py" "$dir/reference.sto" "$aln" --upper 2>&1)
    printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$n" "$name" "$seconds" "$(tail -1 "$dir/$name.mem" 2>/dev/null)" \
      "$(echo "$acc" | cut -d' ' -f1)" "$(echo "$acc" | cut -d' ' -f2)" "$note" >>"$tsv"
  done
  if [ -s "$dir/clustalw.aln" ] && [ -s "$dir/cudp-msa.aln" ]; then
    cmp -s "$dir/clustalw.aln" "$dir/cudp-msa.aln" && same="identical" || same="DIFFERENT"
    echo "n=$n: cudp-msa's alignment and clustalw's: $same" | tee -a "$OUT/msa_peers.txt"
  fi
done
if command -v column >/dev/null; then column -t -s $'\t' "$tsv"; else cat "$tsv"; fi
