#!/usr/bin/env bash
# Rebuilds this folder: the inputs (models.hmm, targets.fa) from hmmer-examples and hmmemit, then hmmsearch 3.3.2's
# outputs that tests/apps/hmmsearch_report_test.cpp compares cudp-hmmsearch's formatting with. Run it here with
# HMMER 3.3.2 on PATH (package hmmer) and hmmer-examples installed:
#   bash make_golden.sh [EXAMPLES_DIR]
# The targets: globins45.fa, 7LESS_DROME (nine fn3 domains), three fn3 emissions renamed to 39 characters with a
# description, and two unilocal fn3 samples with 300-residue flanks (weak hits: their domains fall under --domT 30).
set -euo pipefail
cd "$(dirname "$0")"
examples=${1:-/usr/share/doc/hmmer/examples}/tutorial
[[ "$(hmmsearch -h)" == *"HMMER 3.3.2"* ]] || { echo "make_golden.sh: needs hmmsearch 3.3.2" >&2; exit 1; }

cat "$examples/globins4.hmm" "$examples/fn3.hmm" > models.hmm
{
  cat "$examples/globins45.fa"
  # 7LESS_DROME ships in UniProt text format: its SQ block, as FASTA.
  awk '/^SQ/ {seq = 1; print ">7LESS_DROME"; next} /^\/\// {seq = 0} seq {gsub(/[ 0-9]/, ""); print}' "$examples/7LESS_DROME"
  hmmemit -N 3 --seed 3 "$examples/fn3.hmm" |
    sed -E 's/^>fn3-sample([0-9]+).*/>fn3_emitted_sequence_with_a_long_name_\1 sampled from fn3/'
  hmmemit -p --unilocal -L 300 -N 2 --seed 5 "$examples/fn3.hmm" | sed -E 's/^>fn3-sample([0-9]+).*/>weak_fn3-sample\1/'
} > targets.fa

hmmsearch --cpu 0 --noali -o base.txt --tblout base.tbl --domtblout base.dom models.hmm targets.fa
hmmsearch --cpu 0 --noali -Z 1e7 --domZ 1e7 -o z.txt --tblout z.tbl --domtblout z.dom models.hmm targets.fa
hmmsearch --cpu 0 --noali --domT 30 --incT 40 --domZ 51 -o t.txt --tblout t.tbl --domtblout t.dom models.hmm targets.fa
# With alignments (the displays, and -A's Stockholm alignment of the included domains).
hmmsearch --cpu 0 -o ali.txt -A ali.sto models.hmm targets.fa
