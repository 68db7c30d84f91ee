#!/usr/bin/env bash
# cudp-msa's command line and bad input: usage errors (the command line wrong by itself, clustalw flags included)
# exit with status 2, bad input (unreadable, not FASTA, empty records, one sequence, a guide tree that does not fit)
# with status 1, each with one message on standard error naming the problem (and the file and line where there is
# one), nothing on standard output and no output file left behind, neither the alignment nor the .dnd; --help and
# clustalw's -HELP print the usage; the progress lines stay off when standard error is not a terminal.
#   msa_bad_input.sh CUDP_MSA DATA_DIR   (DATA_DIR: apps/data/msa)
set -uo pipefail
msa=$(realpath "$1") data=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
good=$data/family.fa

# expect_error NAME STATUS PATTERN -- ARGS...: run with -o out.aln --guidetree-out out.dnd added unless ARGS hold
# clustalw flags of their own (then clustalw's default names x.aln, x.dnd beside x.fa must not appear either).
expect_error() {
  local name=$1 status=$2 pattern=$3
  shift 4
  local before=$failures
  rm -f out.aln out.dnd ./*.aln ./*.dnd ./*.tmp
  "$msa" "$@" > stdout.txt 2> stderr.txt
  local rc=$?
  [ "$rc" -eq "$status" ] || fail "$name: exit status $rc, expected $status"
  grep -qE -- "$pattern" stderr.txt || fail "$name: message does not match '$pattern': $(cat stderr.txt)"
  [ "$(wc -l < stderr.txt)" -eq 1 ] || fail "$name: not one line on standard error: $(cat stderr.txt)"
  [ -s stdout.txt ] && fail "$name: wrote to standard output"
  local left
  left=$(ls ./*.aln ./*.dnd ./*.tmp 2> /dev/null)
  [ -n "$left" ] && fail "$name: left output files: $left"
  [ "$failures" -eq "$before" ] && echo "ok: $name: $(cat stderr.txt)"
}
out=(-o out.aln --guidetree-out out.dnd)

# Usage errors: status 2.
expect_error "no input" 2 "^cudp-msa: give the input sequences" -- "${out[@]}"
expect_error "two inputs" 2 "^cudp-msa: unexpected argument 'b.fa': the input is already given \('a.fa'\)" -- \
  a.fa b.fa
expect_error "unknown option" 2 "^cudp-msa: unknown option --bogus " -- "$good" --bogus "${out[@]}"
expect_error "unknown clustalw flag" 2 "^cudp-msa: unknown option -BOGUS=1" -- -INFILE="$good" -BOGUS=1
expect_error "clustalw flag without its value" 2 "^cudp-msa: parameter required for -gapopen" -- \
  -INFILE="$good" -GAPOPEN
expect_error "clustalw value not a number" 2 "^cudp-msa: -gapext expects a number, got 'x'" -- \
  -INFILE="$good" -GAPEXT=x
expect_error "clustalw bad choice" 2 \
  "^cudp-msa: -output must be one of gcg, gde, pir, phylip, nexus, fasta, clustal, got 'xml'" -- \
  -INFILE="$good" -OUTPUT=xml
expect_error "clustalw -TREE" 2 "^cudp-msa: clustalw's -tree: cudp-msa makes multiple alignments only" -- \
  -INFILE="$good" -TREE
expect_error "bad --format" 2 \
  "^cudp-msa: --format must be clustal, fasta, phylip, nexus, msf, pir or gde, got 'xml'" -- \
  "$good" --format xml "${out[@]}"
expect_error "bad --type" 2 "^cudp-msa: --type must be auto, protein or dna, got 'rna'" -- \
  "$good" --type rna "${out[@]}"
expect_error "negative gap" 2 "^cudp-msa: --gap-open must be >= 0, got '-1'" -- "$good" --gap-open -1 "${out[@]}"
expect_error "maxdiv past 100" 2 "^cudp-msa: --maxdiv must be a percentage" -- "$good" --maxdiv 101 "${out[@]}"
expect_error "usetree and guidetree-out" 2 "^cudp-msa: --usetree and --guidetree-out" -- "$good" --usetree t.dnd \
  "${out[@]}"
expect_error "both on standard input" 2 "^cudp-msa: the input and the guide tree cannot both be standard input" -- \
  - --usetree - -o out.aln
expect_error "--backend cuda" 1 "^cudp-msa: --backend cuda: " -- "$good" --backend cuda "${out[@]}"

# Bad input: status 1, the file named.
# Matrix files (a value that is no built-in matrix's name): missing, or not as clustalw reads them.
expect_error "missing matrix file" 1 \
  "^cudp-msa: my.mat: cannot open the matrix file \(-MATRIX: not a built-in matrix name, so a matrix file\)" -- \
  -INFILE="$good" -MATRIX=my.mat
printf '   A  R  N  D\nA  4 -1 -2 -2  0\nR -1  5  0 -2  0\nN -2  0  6  1  0\nD -2 -2  1  6  0\n' > four.mat
expect_error "matrix file without its '*' row" 1 "^cudp-msa: four.mat:5: 4 rows; ClustalW wants one more" -- \
  -INFILE="$good" -PWMATRIX=four.mat
printf '   A  R  N  D\nA  4 -1 -2 -2  0\nR -1  5\n' > short.mat
expect_error "matrix file row too short" 1 "^cudp-msa: short.mat:3: row 2 has 2 values, 4 wanted" -- \
  "$good" --matrix short.mat "${out[@]}"
printf 'CLUSTAL_SERIES\nMATRIX 40 20 four.mat\n' > series.mat
expect_error "matrix series with its limits reversed" 1 \
  "^cudp-msa: series.mat:2: the lower limit is not below the upper \(40-20\)" -- -INFILE="$good" -MATRIX=series.mat
# A DNA matrix's name for the protein matrix is a file's to clustalw too.
expect_error "DNA matrix name as the protein matrix" 1 \
  "^cudp-msa: iub: cannot open the matrix file \(-MATRIX: not a built-in matrix name" -- -INFILE="$good" -MATRIX=iub
expect_error "DNA matrix file unreadable" 1 "^cudp-msa: nothing.mat: cannot open the matrix file \(-PWDNAMATRIX" -- \
  -INFILE="$good" -PWDNAMATRIX=nothing.mat
expect_error "missing input" 1 "nothere.fa: cannot open" -- nothere.fa "${out[@]}"
expect_error "missing input, clustalw style" 1 "nothere.fa: cannot open" -- -INFILE=nothere.fa
: > empty.fa
expect_error "empty input" 1 "^cudp-msa: empty.fa: no sequences \(the input is empty\)" -- empty.fa "${out[@]}"
printf 'CLUSTAL W\n\nseq1  ACDE\n' > not_fasta.fa
expect_error "not FASTA" 1 "^cudp-msa: not_fasta.fa:1: not FASTA" -- not_fasta.fa "${out[@]}"
printf '\n\n# a comment\n>a\nACDE\n' > late.fa
expect_error "not FASTA, line 3" 1 "^cudp-msa: late.fa:3: not FASTA" -- late.fa "${out[@]}"
printf '>a\nACDEFGHIK\n>b\n123 *.\n>c\nACDEFGHIK\n' > no_residues.fa
expect_error "record without residues" 1 "^cudp-msa: no_residues.fa:3: sequence 'b' has no residues" -- \
  no_residues.fa "${out[@]}"
printf '>only\nACDEFGHIK\n' > one.fa
expect_error "one sequence" 1 "^cudp-msa: one.fa: one sequence \('only'\); a multiple alignment needs two or more" -- \
  one.fa "${out[@]}"
printf '>a\nACDEFGHIK\n>b\nACDEFGHK\n>a\nACDGHIK\n' > twice.fa
expect_error "a name twice" 1 "^cudp-msa: twice.fa: sequences 1 and 3 have the same name 'a'" -- twice.fa "${out[@]}"
printf '>a\nACDEFGHIK\n>b\nACDEFGHK\n>c\nACDGHIK\n' > abc.fa
printf '(\na:0.1,\nb:0.2,\nz:0.3);\n' > wrong.tree
expect_error "guide tree of other sequences" 1 "^cudp-msa: wrong.tree: .*" -- abc.fa --usetree wrong.tree -o out.aln
expect_error "guide tree missing" 1 "^cudp-msa: nothere.dnd: cannot open" -- abc.fa --usetree nothere.dnd -o out.aln
gzip -c abc.fa | head -c 40 > truncated.fa.gz
expect_error "truncated gzip" 1 "^cudp-msa: truncated.fa.gz: " -- truncated.fa.gz "${out[@]}"
expect_error "output directory missing" 1 "no/such/dir/out.aln: cannot create" -- abc.fa -o no/such/dir/out.aln

# A failure after the outputs were checked leaves neither the alignment nor the .dnd, nor an earlier run's.
echo "earlier" > keep.aln
"$msa" abc.fa --usetree wrong.tree -o keep.aln > /dev/null 2>&1
[ "$(cat keep.aln)" = "earlier" ] || fail "a failed run replaced an earlier output"

# --help and clustalw's -HELP: the usage on standard output, status 0.
for help in --help -h -HELP /help -check; do
  "$msa" $help > usage.txt 2> stderr.txt || fail "$help: exit status $?"
  grep -q "^usage: cudp-msa" usage.txt || fail "$help: no usage"
  [ -s stderr.txt ] && fail "$help: wrote to standard error"
done
echo "ok: --help, -h, -HELP, /help, -check"

# A good run: silent (progress only on a terminal), the alignment on standard output, the .dnd where asked; the
# clustalw style writes x.aln and x.dnd beside x.fa and nothing on standard output.
"$msa" abc.fa --guidetree-out abc_tree.dnd > abc.aln 2> stderr.txt || fail "good run: exit status $?"
[ -s stderr.txt ] && fail "good run: wrote to standard error: $(cat stderr.txt)"
head -1 abc.aln | grep -q "^CLUSTAL 2.1 multiple sequence alignment" || fail "good run: no CLUSTAL header"
[ -s abc_tree.dnd ] || fail "good run: no guide tree"
mkdir sub && cp abc.fa sub/x.y.fa
"$msa" -INFILE=sub/x.y.fa -QUIET > stdout.txt 2> stderr.txt || fail "clustalw style: exit status $?"
[ -s stdout.txt ] || [ -s stderr.txt ] && fail "clustalw style -QUIET: not silent"
cmp -s sub/x.y.aln abc.aln || fail "clustalw style: sub/x.y.aln differs from the alignment on standard output"
cmp -s sub/x.y.dnd abc_tree.dnd || fail "clustalw style: sub/x.y.dnd differs from --guidetree-out"
echo "ok: good runs"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all checks passed"
