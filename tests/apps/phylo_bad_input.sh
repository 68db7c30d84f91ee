#!/usr/bin/env bash
# cudp-phylo's command line and bad input: usage errors (the command line wrong by itself) exit with status 2, bad
# input (unreadable, malformed, or data that do not fit the model asked for) with status 1, each with one
# message on standard error naming the problem (and the file, line and column where the readers have them),
# nothing on standard output, and neither an --out nor a --site-lh file left behind; --help prints the usage; the
# per-site log-likelihoods add up to the total.
#   phylo_bad_input.sh CUDP_PHYLO DATA_DIR   (DATA_DIR: apps/data/phylo)
set -uo pipefail
phylo=$(realpath "$1") data=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
aln=$data/sim.fa tree=$data/sim.nwk
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect_error NAME STATUS PATTERN -- ARGS...
expect_error() {
  local name=$1 status=$2 pattern=$3
  shift 4
  local before=$failures
  rm -f out.txt site.txt
  "$phylo" "$@" --out out.txt --site-lh site.txt > stdout.txt 2> stderr.txt
  local rc=$?
  [ "$rc" -eq "$status" ] || fail "$name: exit status $rc, expected $status"
  grep -qE -- "$pattern" stderr.txt || fail "$name: message does not match '$pattern': $(cat stderr.txt)"
  [ "$(wc -l < stderr.txt)" -eq 1 ] || fail "$name: not one line on standard error: $(cat stderr.txt)"
  [ -s stdout.txt ] && fail "$name: wrote to standard output"
  ls out.txt site.txt out.txt.tmp site.txt.tmp > /dev/null 2>&1 && fail "$name: left an output file"
  [ "$failures" -eq "$before" ] && echo "ok: $name: $(cat stderr.txt)"
}

ev=(evaluate --backend host)
expect_error "no command" 2 "^cudp-phylo: unknown command '--out'" --
expect_error "unknown command" 2 "^cudp-phylo: unknown command 'optimise'" -- optimise
expect_error "unknown option" 2 "^cudp-phylo: unknown option --bogus " -- "${ev[@]}" --alignment "$aln" --bogus
expect_error "no --model" 2 "^cudp-phylo: --model is required" -- "${ev[@]}" --alignment "$aln" --tree "$tree"
expect_error "no --tree" 2 "^cudp-phylo: --tree is required" -- "${ev[@]}" --alignment "$aln" --model JC
expect_error "bad --optimize" 2 "^cudp-phylo: --optimize takes branches, model or both \\(branches,model\\), not 'tree'" -- \
  "${ev[@]}" --alignment "$aln" --tree "$tree" --model JC --optimize branches,tree
expect_error "--tree-out alone" 2 "^cudp-phylo: --tree-out needs --optimize branches" -- \
  "${ev[@]}" --alignment "$aln" --tree "$tree" --model JC --tree-out t.nwk
expect_error "bad precision" 2 "^cudp-phylo: --precision must be double or single, got 'half'" -- "${ev[@]}" \
  --alignment "$aln" --tree "$tree" --model JC --precision half
expect_error "unknown model" 2 "unknown model 'GTX'" -- "${ev[@]}" --alignment "$aln" --tree "$tree" --model GTX+G
expect_error "bad parameter" 2 "'x' is not a number" -- "${ev[@]}" --alignment "$aln" --tree "$tree" --model "HKY{x}"
expect_error "missing alignment" 1 "nothere.fa: cannot open" -- "${ev[@]}" --alignment nothere.fa --tree "$tree" \
  --model JC

printf '>a\nACGT\n>b\nACJT\n>c\nACGA\n' > bad_letter.fa
printf '((a:0.1,b:0.2):0.1,c:0.3);\n' > abc.nwk
expect_error "letter" 1 "bad_letter.fa:3: taxon b, site 3: 'J' is not a DNA character" -- "${ev[@]}" \
  --alignment bad_letter.fa --tree abc.nwk --model JC --data dna
printf '>a\nACGT\n>b\nACGT\n>d\nACGA\n' > abd.fa
expect_error "tip not in alignment" 1 "abc.nwk: tip 'c' is not a taxon of abd.fa" -- "${ev[@]}" --alignment abd.fa \
  --tree abc.nwk --model JC
printf '>a\nACGT\n>b\nACGT\n>c\nACGA\n>d\nAAAA\n' > abcd.fa
expect_error "taxon not in tree" 1 "abcd.fa: taxon 'd' is not a tip of abc.nwk" -- "${ev[@]}" --alignment abcd.fa \
  --tree abc.nwk --model JC
printf '((a:0.1,b:0.2):0.1,\n c:0.3;\n' > open.nwk
expect_error "newick" 1 "open.nwk:2:" -- "${ev[@]}" --alignment "$aln" --tree open.nwk --model JC
expect_error "protein model for DNA" 1 "Poisson is a protein model, but the data are DNA" -- "${ev[@]}" \
  --alignment "$aln" --tree "$tree" --model Poisson
printf '((a:0,b:0):0,c:0);\n' > zero.nwk
printf '>a\nA\n>b\nC\n>c\nA\n' > differ.fa
expect_error "likelihood 0" 1 "differ.fa: site 1 has likelihood 0" -- "${ev[@]}" --alignment differ.fa \
  --tree zero.nwk --model JC
printf '>a\nATGAAA\n>b\nATGTAG\n>c\nATGAAA\n' > stop.fa
expect_error "stop codon" 1 "stop.fa:3: taxon b, codon 2 \(sites 4-6\): TAG is a stop codon" -- "${ev[@]}" \
  --alignment stop.fa --tree abc.nwk --model GY
printf '>a\nATGAAAC\n>b\nATGAAAC\n>c\nATGAAAC\n' > seven.fa
expect_error "not whole codons" 1 "seven.fa: 7 sites are not a whole number of codons" -- "${ev[@]}" \
  --alignment seven.fa --tree abc.nwk --model JC --data codon
expect_error "codon model for DNA" 1 "GY is a codon model, but the data are DNA \(give --data codon\)" -- \
  "${ev[@]}" --alignment "$aln" --tree "$tree" --model GY --data dna
expect_error "codon frequencies for DNA" 2 "\+F3X4 is for codon models" -- "${ev[@]}" --alignment "$aln" \
  --tree "$tree" --model HKY+F3X4
printf '>a\nMKVLA\n>b\nMKVLW\n>c\nMRVLA\n' > protein.fa
expect_error "DNA model for protein" 1 "JC is a DNA model, but the data are protein" -- "${ev[@]}" \
  --alignment protein.fa --tree abc.nwk --model JC
expect_error "codon model for protein" 1 "protein.fa" -- "${ev[@]}" --alignment protein.fa --tree abc.nwk --model GY
expect_error "both from standard input" 2 "^cudp-phylo: --alignment and --tree cannot both be standard input" -- \
  "${ev[@]}" --alignment - --tree - --model JC

# Output paths are checked before any work: a missing directory fails at once, whatever the run would take.
for option in --out --site-lh --tree-out; do
  rm -f stdout.txt
  timeout 5 "$phylo" "${ev[@]}" --alignment "$aln" --tree "$tree" --model GTR+G4 --optimize branches,model \
    "$option" "$work/missing/file" > stdout.txt 2> stderr.txt
  rc=$?
  [ "$rc" -eq 1 ] || fail "$option in a missing directory: exit status $rc, expected 1 (at once)"
  grep -q "missing/file: cannot create" stderr.txt || fail "$option in a missing directory: $(cat stderr.txt)"
  grep -q "log-likelihood" stdout.txt && fail "$option in a missing directory: the run went ahead"
done

# '-' is standard input for either file, named so in the report.
"$phylo" "${ev[@]}" --alignment - --tree "$tree" --model JC < "$aln" > stdin.txt || fail "alignment from standard input"
"$phylo" "${ev[@]}" --alignment "$aln" --tree "$tree" --model JC > file.txt || fail "alignment from the file"
grep -q "^alignment: standard input (" stdin.txt || fail "standard input not named in the report: $(head -2 stdin.txt)"
diff <(grep -v "^alignment:" stdin.txt) <(grep -v "^alignment:" file.txt) > /dev/null ||
  fail "the alignment from standard input gives another result"
"$phylo" "${ev[@]}" --alignment "$aln" --tree - --model JC < "$tree" | grep -q "^tree: standard input" ||
  fail "tree from standard input"
"$phylo" --version | grep -qE "^cudp-phylo [0-9]+\.[0-9]+\.[0-9]+$" || fail "--version"

# --help, and the outputs of a good run.
"$phylo" --help | grep -q "^usage: cudp-phylo evaluate" || fail "--help"
"$phylo" evaluate --help | grep -q "^usage: cudp-phylo evaluate" || fail "evaluate --help"
model="GTR{1.036,2.7613,2.8032,4.37,0.9619}+F{0.1885,0.2616,0.253,0.2969}+G4{0.6}+I{0.1}"
"$phylo" "${ev[@]}" --alignment "$aln" --tree "$tree" --model "$model" --out out.txt --site-lh site.txt > stdout.txt \
  || fail "good run failed"
[ -s stdout.txt ] && fail "--out given, but the report went to standard output"
total=$(awk '/^log-likelihood:/ {print $2}' out.txt)
sites=$(awk 'NR == 1 {print $2}' site.txt)
sum=$(awk 'NR == 2 {for (i = 2; i <= NF; ++i) s += $i; printf "%.6f", s; n = NF - 1} END {print " " n}' site.txt)
[ "$sites" = 2000 ] || fail "site-lh header says $sites sites, expected 2000"
[ "${sum#* }" = 2000 ] || fail "site-lh holds ${sum#* } values"
awk -v a="${sum% *}" -v b="$total" 'BEGIN {d = a - b; if (d < 0) d = -d; exit !(d < 1e-3)}' ||
  fail "per-site log-likelihoods add up to ${sum% *}, the total is $total"
# Codon data: one site per three columns in the per-site output.
printf '>a\nATGAAACTT---\n>b\nATGAAGCTCAAA\n>c\nATTGAACTAAAG\n' > codons.fa
"$phylo" "${ev[@]}" --alignment codons.fa --tree abc.nwk --model "GY{0.3,2.5}+F3X4" --site-lh site.txt \
  > stdout.txt || fail "codon run failed"
[ "$(awk 'NR == 1 {print $2}' site.txt)" = 4 ] || fail "codon site-lh header: $(head -1 site.txt), expected 4 sites"
grep -q "^alignment: codons.fa (3 taxa, 12 sites, 4 patterns, codon)" stdout.txt || fail "codon report"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all checks passed"
