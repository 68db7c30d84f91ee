#!/usr/bin/env bash
# The host backend's Forward and Backward parsers four targets at a time (AVX-512F) against one at a time
# (CUDP_HOST_PARSER_GROUPS=0), end to end: every output of cudp-hmmsearch the same, on searches with hits, with --max
# so that every target reaches the parsers. Reports itself skipped (77) on a CPU without AVX-512F, where both runs
# take the same path.
#   hmmsearch_parser_groups.sh CUDP_HMMSEARCH HMMER_EXAMPLES
set -uo pipefail
hmmsearch=$(realpath "$1") examples=$(realpath "$2")
if ! grep -qw avx512f /proc/cpuinfo; then
  echo "this CPU has no AVX-512F: the grouped parsers are not used (skipped)"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
# Targets with hits for the three models: the globins, the sevenless receptor (UniProt text: its sequence lines
# after SQ) and the member sequences of the fn3 and Pkinase seed alignments (Stockholm, gaps removed).
{
  cat "$examples/tutorial/globins45.fa"
  echo ">7LESS_DROME"
  awk '/^SQ/ {on = 1; next} /^\/\// {on = 0} on {gsub(/ /, ""); print}' "$examples/tutorial/7LESS_DROME"
  for family in fn3 Pkinase; do
    awk -v f=$family '!/^#/ && NF == 2 {gsub(/[-.]/, "", $2); print ">" f "_" $1 "\n" toupper($2)}' \
      "$examples/tutorial/$family.sto"
  done
} > db.fa
# The lines that differ between runs of the same search: times, the command line, the directory and the date.
strip() { grep -v -E '^# (CPU time|Mc/sec|Option settings|Current dir|Date)' "$1"; }
for model in globins4 fn3 Pkinase; do
  for groups in 1 0; do  # the same file names in a folder of each, as the outputs' headers name them
    mkdir -p "groups$groups" && cd "groups$groups" || exit 1
    CUDP_HOST_PARSER_GROUPS=$groups "$hmmsearch" --backend host --cpu 2 --max --tblout "$model.tbl" \
      --domtblout "$model.dom" -A "$model.sto" -o "$model.out" "$examples/tutorial/$model.hmm" ../db.fa 2> err.txt ||
      fail "$model, CUDP_HOST_PARSER_GROUPS=$groups: $(cat err.txt)"
    cd ..
  done
  hits=$(grep -vc "^#" "groups1/$model.dom")
  [ "$hits" -gt 0 ] || fail "$model: no domains to compare"
  for output in tbl dom sto out; do
    cmp -s <(strip "groups1/$model.$output") <(strip "groups0/$model.$output") ||
      fail "$model: the $output output differs between grouped and single parsers"
  done
  echo "$model: $hits domains compared"
done
if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "grouped and single parsers agree"
