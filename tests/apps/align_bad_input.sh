#!/usr/bin/env bash
# cudp-align's command line and bad input: usage errors exit with status 2, bad input with status 1, each with one
# message on standard error naming the problem (and the file and line where there is one), nothing on standard
# output, and no --out file (an earlier one is left as it was); --help and -h print the usage text; --pairs
# one-to-one and all give the expected number of pairs.
#   align_bad_input.sh CUDP_ALIGN DATA_DIR   (DATA_DIR: apps/data/align)
set -uo pipefail
align=$(realpath "$1") data=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
pa=$data/globins_a.fa pb=$data/globins_b.fa da=$data/dna_a.fa db=$data/dna_b.fa
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect_error NAME STATUS PATTERN -- ARGS...: fails as said, and leaves neither a new nor a changed --out file.
expect_error() {
  local name=$1 status=$2 pattern=$3
  shift 4
  local before=$failures
  rm -f out.txt out.txt.tmp
  "$align" "$@" > stdout.txt 2> stderr.txt
  local rc=$?
  [ "$rc" -eq "$status" ] || fail "$name: exit status $rc, expected $status"
  grep -qE -- "$pattern" stderr.txt || fail "$name: message does not match '$pattern': $(cat stderr.txt)"
  [ "$(wc -l < stderr.txt)" -eq 1 ] || fail "$name: not one line on standard error: $(cat stderr.txt)"
  [ -s stdout.txt ] && fail "$name: wrote to standard output"
  # Again with --out: no file, and an existing one untouched.
  "$align" "$@" --out out.txt > /dev/null 2>&1
  [ -e out.txt ] && fail "$name: left an --out file"
  echo "earlier run" > out.txt
  "$align" "$@" --out out.txt > /dev/null 2>&1
  [ "$(cat out.txt)" = "earlier run" ] || fail "$name: changed an existing --out file"
  ls out.txt.tmp > /dev/null 2>&1 && fail "$name: left out.txt.tmp"
  [ "$failures" -eq "$before" ] && echo "ok: $name: $(cat stderr.txt)"
}

# Usage errors: status 2.
expect_error "unknown option" 2 "^cudp-align: unknown option --bogus " -- --query "$pa" --target "$pb" --bogus
expect_error "stray word" 2 "^cudp-align: unexpected argument 'extra'" -- --query "$pa" extra --target "$pb"
expect_error "missing value" 2 "^cudp-align: missing value for --target " -- --query "$pa" --target
expect_error "no --query" 2 "^cudp-align: --query is required" -- --target "$pb"
expect_error "no --target" 2 "^cudp-align: --target is required" -- --query "$pa"
expect_error "bad number" 2 "^cudp-align: --gap-open expects an integer, got '1x'" -- --query "$pa" --target "$pb" --gap-open 1x
expect_error "huge number" 2 "^cudp-align: --gap-open expects an integer, got '99999999999'" -- --query "$pa" --target "$pb" --gap-open 99999999999
expect_error "cost out of range" 2 "^cudp-align: --gap-extend 2000000 is out of range" -- --query "$pa" --target "$pb" --gap-extend 2000000
expect_error "negative open" 2 "^cudp-align: --gap-open must be >= 0, got -1" -- --query "$pa" --target "$pb" --gap-open -1
expect_error "zero extend" 2 "^cudp-align: --gap-extend must be > 0, got 0" -- --query "$pa" --target "$pb" --gap-extend 0
expect_error "positive mismatch" 2 "^cudp-align: --mismatch is a score and must be <= 0" -- --query "$da" --target "$db" --mismatch 3
expect_error "zero match" 2 "^cudp-align: --match must be > 0" -- --query "$da" --target "$db" --match 0
expect_error "match and matrix" 2 "^cudp-align: --match/--mismatch and --matrix exclude each other" -- --query "$da" --target "$db" --match 1 --matrix NUC.4.4
expect_error "match with --alphabet protein" 2 "^cudp-align: --match/--mismatch score DNA" -- --query "$pa" --target "$pb" --alphabet protein --match 1
expect_error "bad mode" 2 "^cudp-align: --mode must be global, local or semiglobal, got 'glocal'" -- --query "$pa" --target "$pb" --mode glocal
expect_error "bad format" 2 "^cudp-align: --format must be pair, sam, tabular or score, got 'fasta'" -- --query "$pa" --target "$pb" --format fasta
expect_error "bad pairs" 2 "^cudp-align: --pairs must be one-to-one or all" -- --query "$pa" --target "$pb" --pairs some
expect_error "negative threads" 2 "^cudp-align: --threads must be >= 0" -- --query "$pa" --target "$pb" --threads -2

# Bad input: status 1, the file (and line) named.
printf ">a\nACGT\n>empty\n\n>c\nAC\n" > empty_seq.fa
: > empty.fa
printf ">a\nMKV1LA\n" > digit.fa
printf ">t1\nACGTACGT\n>t2\nACGT\n>t1\nAAAA\n" > dup.fa
printf ">q1\nACGTACGT\n>q2\nACGT\n" > q2.fa
printf "  A C G T\nA 1000000 -1 -1 -1\nC -1 1000000 -1 -1\nG -1 -1 1000000 -1\nT -1 -1 -1 1000000\n" > huge.mat
expect_error "missing file" 1 "^cudp-align: $work/nope.fa: .*(No such file|cannot open)" -- --query "$work/nope.fa" --target "$pb"
expect_error "empty file" 1 "^cudp-align: empty.fa: no sequences found" -- --query "$pa" --target empty.fa --alphabet protein
expect_error "empty sequence" 1 "^cudp-align: empty_seq.fa:3: sequence 'empty' is empty" -- --query q2.fa --target empty_seq.fa --pairs all --alphabet dna
expect_error "unknown letter" 1 "^cudp-align: digit.fa:2:4: invalid residue '1' in sequence 'a'" -- --query digit.fa --target "$pb" --pairs all
expect_error "protein read as DNA" 1 "^cudp-align: $pa:2:2: invalid residue 'L' in sequence 'MYG_HORSE' \(not a DNA letter\)" -- --query "$pa" --target "$db" --alphabet dna --pairs all
expect_error "mixed alphabets" 1 "^cudp-align: $pa looks like protein .* but $db like DNA .*give --alphabet" -- --query "$pa" --target "$db"
expect_error "DNA matrix, protein" 1 "^cudp-align: NUC.4.4: this built-in matrix scores DNA, not protein sequences" -- --query "$pa" --target "$pb" --matrix NUC.4.4
expect_error "protein matrix, DNA" 1 "^cudp-align: BLOSUM62: this built-in matrix scores protein, not DNA sequences" -- --query "$da" --target "$db" --matrix BLOSUM62
expect_error "DNA matrix file, protein" 1 "^cudp-align: huge.mat: a DNA matrix .* the sequences .* are protein" -- --query "$pa" --target "$pb" --matrix huge.mat
expect_error "missing matrix" 1 "^cudp-align: nope.mat: not a built-in (DNA|protein) matrix .*cannot open" -- --query "$pa" --target "$pb" --matrix nope.mat
expect_error "match with protein" 1 "^cudp-align: --match/--mismatch score DNA, but the sequences .* are protein" -- --query "$pa" --target "$pb" --match 1
expect_error "pair count" 1 "^cudp-align: --pairs one-to-one: q2.fa has 2 sequences but dup.fa has 3; give --pairs all" -- --query q2.fa --target dup.fa --alphabet dna
expect_error "duplicate SAM references" 1 "^cudp-align: dup.fa:5: target name 't1' was already used on line 1" -- --query q2.fa --target dup.fa --alphabet dna --pairs all --format sam
expect_error "32-bit range" 1 "^cudp-align: query 'dna_a' \($da line 1, 3000 residues\) with target 'dna_b' \($db line 1, 3170 residues\): scores could pass the 32-bit range" -- --query "$da" --target "$db" --matrix huge.mat
if ! nvidia-smi -L > /dev/null 2>&1; then  # on a GPU machine --backend cuda is no error (align_gpu_vs_host)
  expect_error "no GPU" 1 "^cudp-align: --backend cuda: no CUDA device found, or this cudp-align was built without CUDA" -- --query "$pa" --target "$pb" --backend cuda
fi

# The same pairs and a name the SAM check needs twice are fine in the other formats.
"$align" --query q2.fa --target dup.fa --alphabet dna --pairs all --format score > dup_scores.txt || fail "duplicate names refused outside SAM"
[ "$(wc -l < dup_scores.txt)" -eq 6 ] || fail "--pairs all: 2 x 3 pairs expected, got $(wc -l < dup_scores.txt)"

# --pairs: one-to-one pairs the i-th sequences, all every combination, query-major.
"$align" --query "$pa" --target "$pb" --format score > one.txt || fail "one-to-one failed"
"$align" --query "$pa" --target "$pb" --format score --pairs all > all.txt || fail "all failed"
[ "$(cut -f1,2 one.txt | tr '\t\n' ' ')" = "MYG_HORSE MYG_ESCGI HBA_MACFA HBB_COLLI " ] || fail "one-to-one pairs: $(cut -f1,2 one.txt | tr '\t\n' ' ')"
[ "$(cut -f1,2 all.txt | tr '\t\n' ' ')" = "MYG_HORSE MYG_ESCGI MYG_HORSE HBB_COLLI HBA_MACFA MYG_ESCGI HBA_MACFA HBB_COLLI " ] ||
  fail "all pairs: $(cut -f1,2 all.txt | tr '\t\n' ' ')"
grep -qxF "$(sed -n 2p one.txt)" all.txt || fail "a one-to-one pair scores differently under --pairs all"

# --alphabet auto: DNA and protein recognised without a notice; a short ambiguous input gets one.
"$align" --query "$da" --target "$db" --format score > /dev/null 2> notice.txt || fail "DNA auto failed"
[ -s notice.txt ] && fail "DNA guessed with a notice: $(cat notice.txt)"
printf ">p\nACGTTGCA\n" > short.fa
"$align" --query short.fa --target short.fa --format score > /dev/null 2> notice.txt || fail "short auto failed"
grep -q "^cudp-align: --alphabet auto: guessed DNA" notice.txt || fail "no notice for a short guess: $(cat notice.txt)"
printf ">p\nacgtn\n>q\nACGUN\n" > rna.fa
# Four matches and N against N as a mismatch: 4 - 1 for every pair (N matching would give 5, U apart from T 0).
scores=$("$align" --query rna.fa --target rna.fa --alphabet dna --pairs all --format score --match 1 --mismatch -1 | cut -f3 | tr '\n' ' ')
[ "$scores" = "3 3 3 3 " ] || fail "lower case, U as T, N scored as a mismatch: $scores"

for flag in --help -h; do
  "$align" "$flag" > help.txt 2> stderr.txt
  rc=$?
  [ "$rc" -eq 0 ] || fail "$flag: exit status $rc"
  [ -s stderr.txt ] && fail "$flag: wrote to standard error"
  grep -q "^usage: cudp-align --query" help.txt || fail "$flag: no usage text on standard output"
done
for option in --query --target --mode --pairs --alphabet --matrix --match --mismatch --gap-open --gap-extend --format \
  --backend --threads --out; do
  grep -qE -- "^  $option " help.txt || fail "--help does not list $option"
done
grep -qE -- "^  -h, --help " help.txt || fail "--help does not list -h"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "every bad command line and input refused cleanly; --help, --pairs and --alphabet auto work"
