#!/usr/bin/env bash
# cudp-hmmsearch on bad input: every case must fail with a non-zero exit status, a message on standard error that
# names the offending file (file:line where there is a line) or option, and no output file left behind (nor a
# .tmp, nor a change to an older file of the same name). Then two good runs: a cudp-makedb database gives the same
# tables as its FASTA source, and --cpu 1 the same as all threads.
#   hmmsearch_bad_input.sh CUDP_HMMSEARCH CUDP_MAKEDB EXAMPLES_DIR
set -uo pipefail
hmmsearch=$1 makedb=$2 examples=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
globins=$examples/tutorial/globins4.hmm
made1=$examples/tutorial/MADE1.hmm
proteins=$examples/tutorial/globins45.fa
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect_failure NAME STATUS PATTERN -- ARGS...: runs with -o/--tblout/--domtblout into out.*; out.txt already
# exists with old content and must keep it.
expect_failure() {
  local name=$1 status=$2 pattern=$3
  shift 4
  rm -f out.* ./*.tmp
  echo old > out.txt
  "$hmmsearch" -o out.txt --tblout out.tbl --domtblout out.dom "$@" > stdout.txt 2> stderr.txt
  local rc=$?
  local message
  message=$(cat stderr.txt)
  if [ "$rc" -eq 0 ]; then
    fail "$name: exit status 0"
  elif [ "$status" != any ] && [ "$rc" -ne "$status" ]; then
    fail "$name: exit status $rc, expected $status"
  fi
  if ! grep -qE -- "$pattern" stderr.txt; then
    fail "$name: message does not match '$pattern': $message"
  fi
  if [ "$(cat out.txt)" != old ] || [ -e out.tbl ] || [ -e out.dom ] || ls ./*.tmp > /dev/null 2>&1; then
    fail "$name: output files were touched: $(ls)"
  fi
  if [ -s stdout.txt ]; then
    fail "$name: wrote to standard output"
  fi
  echo "ok: $name: $message"
}

# Inputs.
printf '>empty_one\n>next\nACDEFGHIKL\n' > empty.fa
printf '>nt1\nACGTACGTACGTTTGACCAGTACGATCGATCG\n>nt2\nACGTTGCATGCAAAAAAACCCGGGTTT\n' > dna.fa
printf 'ACDEF\n>x\nACDE\n' > noheader.fa
head -c 3000 "$globins" > truncated.hmm
grep -v '^STATS' "$globins" > nostats.hmm
sed 's/^  COMPO   2.36553/  COMPO   2.3x553/' "$globins" > badnumber.hmm
cat "$globins" "$made1" > mixed.hmm
: > empty.hmm
python3 -c "print('>long'); print('ACDEFGHIKLMNPQRSTVWY' * 5001)" > long.fa
"$makedb" --dna dna.fa dna.cudpdb 2> /dev/null
printf 'CUDPDB01garbage' > corrupt.cudpdb

expect_failure "missing HMM file" 1 "no_such.hmm" -- no_such.hmm "$proteins"
expect_failure "missing database" 1 "no_such.fa" -- "$globins" no_such.fa
expect_failure "arguments swapped" 1 "globins45.fa:1:.*HMMER3" -- "$proteins" "$globins"
expect_failure "an HMM file as the database" 1 "globins4.hmm:1:.*'>'" -- "$globins" "$globins"
expect_failure "truncated HMM file" 1 "truncated.hmm:[0-9]+:" -- truncated.hmm "$proteins"
expect_failure "HMM without STATS" 1 "nostats.hmm:1:.*STATS" -- nostats.hmm "$proteins"
expect_failure "non-numeric HMM field" 1 "badnumber.hmm:[0-9]+:.*2.3x553" -- badnumber.hmm "$proteins"
expect_failure "models of two alphabets" 1 "mixed.hmm:[0-9]+:.*alphabet" -- mixed.hmm "$proteins"
expect_failure "empty HMM file" 1 "empty.hmm" -- empty.hmm "$proteins"
expect_failure "--cut_ga without GA lines" 1 "globins4.hmm:1:.*GA" -- --cut_ga "$globins" "$proteins"
expect_failure "empty sequence" 1 "empty.fa:1:.*empty" -- "$globins" empty.fa
expect_failure "FASTA without header" 1 "noheader.fa:1:" -- "$globins" noheader.fa
expect_failure "protein model, DNA sequences" 1 "dna.fa:.*nucleotide" -- "$globins" dna.fa
expect_failure "DNA model, protein sequences" 1 "globins45.fa:[0-9]+:[0-9]+:.*invalid residue" -- "$made1" "$proteins"
expect_failure "protein model, DNA cudp database" 1 "dna.cudpdb:.*DNA" -- "$globins" dna.cudpdb
expect_failure "corrupt cudp database" 1 "corrupt.cudpdb" -- "$globins" corrupt.cudpdb
expect_failure "target over 100000 residues" 1 "long.fa:.*long.*100000" -- "$globins" long.fa
expect_failure "E-value 0" 1 "-E" -- -E 0 "$globins" "$proteins"
expect_failure "non-numeric E-value" 1 "-E.*abc" -- -E abc "$globins" "$proteins"
expect_failure "negative --cpu" 1 "--cpu" -- --cpu -1 "$globins" "$proteins"
expect_failure "-E with -T" 1 "-E.*-T" -- -E 1 -T 20 "$globins" "$proteins"
expect_failure "--max with --F1" 1 "--max.*--F1" -- --max --F1 0.1 "$globins" "$proteins"
expect_failure "negative --F2" 1 "--F2" -- --F2 -0.5 "$globins" "$proteins"
expect_failure "unknown --backend" 1 "--backend" -- --backend gpu "$globins" "$proteins"
expect_failure "unknown option" 1 "--bogus" -- --bogus "$globins" "$proteins"
expect_failure "missing option value" 1 "--domZ" -- "$globins" "$proteins" --domZ
expect_failure "one file argument" 1 "two arguments" -- "$globins"
expect_failure "both inputs on standard input" 1 "standard input" -- - -
# esl_getopts' rules, as hmmsearch 3.3.2 applies them (and exits 1, as for every other error).
expect_failure "option after the files" 1 "options must come before" -- "$globins" "$proteins" -E 1
expect_failure "repeated option" 1 "-E has already been set" -- -E 1 -E 2 "$globins" "$proteins"
expect_failure "ambiguous prefix" 1 '"--do" is ambiguous' -- --do x "$globins" "$proteins"
expect_failure "output named like an option" 1 "--pfamtblout=-" -- --pfamtblout - "$globins" "$proteins"
[ ! -e ./- ] || fail "--pfamtblout - wrote a file named '-'"
printf '>a\nAC1\n' > bad_stdin.fa
expect_failure "bad residue on standard input" 1 "standard input:2:3:" -- "$globins" - < bad_stdin.fa
# Like hmmsearch 3.3.2, gzip is read from named files only; on standard input it is refused by name.
gzip -c "$proteins" > proteins.fa.gz
gzip -c "$globins" > globins4.hmm.gz
expect_failure "gzip database on standard input" 1 "standard input: the target sequences are gzip-compressed" -- \
  "$globins" - < proteins.fa.gz
expect_failure "gzip models on standard input" 1 "standard input: the models are gzip-compressed" -- \
  - "$proteins" < globins4.hmm.gz
expect_failure "output directory missing" 1 "no_such_dir/x.tbl: cannot create" -- --pfamtblout no_such_dir/x.tbl "$globins" "$proteins"
if "$hmmsearch" --backend cuda "$globins" "$proteins" > /dev/null 2> cuda.txt; then
  echo "ok: --backend cuda ran (a CUDA device is present)"
else
  expect_failure "--backend cuda without a device" 1 "CUDA" -- --backend cuda "$globins" "$proteins"
fi

# Good runs: the same tables from a FASTA file and from its cudp-makedb database, and from one or all threads.
strip_tail() { sed '/^#$/,$d' "$1"; }
"$makedb" "$proteins" proteins.cudpdb 2> /dev/null || fail "cudp-makedb failed"
"$hmmsearch" --tblout fa.tbl --domtblout fa.dom -o fa.txt "$globins" "$proteins" || fail "FASTA run failed"
"$hmmsearch" --tblout db.tbl --domtblout db.dom -o db.txt "$globins" proteins.cudpdb || fail "packed run failed"
"$hmmsearch" --cpu 1 --tblout one.tbl "$globins" "$proteins" > one.txt || fail "--cpu 1 run failed"
python3 - "$examples/tutorial/dna_target.fa" > pieces.fa <<'PY'
import sys
seq = "".join(l.strip() for l in open(sys.argv[1]) if not l.startswith(">"))
for i in range(0, len(seq), 20000):
    print(">piece%d\n%s" % (i // 20000, seq[i:i + 20000]))
PY
"$makedb" --dna pieces.fa pieces.cudpdb 2> /dev/null || fail "cudp-makedb --dna failed"
"$hmmsearch" --tblout dnafa.tbl -o dnafa.txt "$made1" pieces.fa || fail "DNA FASTA run failed"
"$hmmsearch" --tblout dnadb.tbl -o dnadb.txt "$made1" pieces.cudpdb || fail "DNA packed run failed"
[ "$(grep -vc '^#' dnafa.tbl)" -gt 0 ] || fail "the DNA run reported nothing"
cmp -s <(strip_tail dnafa.tbl) <(strip_tail dnadb.tbl) || fail "tblout differs between DNA FASTA and cudp-makedb --dna"
[ "$(grep -vc '^#' fa.tbl)" -gt 0 ] || fail "the FASTA run reported nothing"
cmp -s <(strip_tail fa.tbl) <(strip_tail db.tbl) || fail "tblout differs between FASTA and cudp-makedb database"
cmp -s <(strip_tail fa.dom) <(strip_tail db.dom) || fail "domtblout differs between FASTA and cudp-makedb database"
cmp -s <(strip_tail fa.tbl) <(strip_tail one.tbl) || fail "tblout differs between --cpu 1 and all threads"
"$hmmsearch" --tblout gz.tbl -o gz.txt globins4.hmm.gz proteins.fa.gz || fail "named gzip files failed"
cmp -s <(strip_tail fa.tbl) <(strip_tail gz.tbl) || fail "tblout differs with named gzip files"
"$hmmsearch" --tblout in1.tbl -o in1.txt "$globins" - < "$proteins" || fail "database on standard input failed"
"$hmmsearch" --tblout in2.tbl -o in2.txt - "$proteins" < "$globins" || fail "models on standard input failed"
cmp -s <(strip_tail fa.tbl) <(strip_tail in1.tbl) || fail "tblout differs with the database on standard input"
cmp -s <(strip_tail fa.tbl) <(strip_tail in2.tbl) || fail "tblout differs with the models on standard input"
"$hmmsearch" --help | grep -q "Usage: cudp-hmmsearch" || fail "--help"
# --opt=value, -Xvalue, unique prefixes and "--" are the spelled-out options.
"$hmmsearch" --tblout e3.tbl -E 1e-3 --F1 0.5 --noali "$globins" "$proteins" > e3.txt || fail "-E 1e-3 run failed"
"$hmmsearch" --tbl=glued.tbl -E1e-3 --F1=0.5 --noal -- "$globins" "$proteins" > glued.txt || fail "glued options failed"
cmp -s <(strip_tail e3.tbl) <(strip_tail glued.tbl) || fail "tblout differs with glued and abbreviated options"
grep -q "^# Option settings: cudp-hmmsearch --tblout glued.tbl --noali -E 1e-3 --F1 0.5 " glued.tbl ||
  fail "Option settings line: $(grep 'Option settings' glued.tbl)"
"$hmmsearch" --tblout inf.tbl -E inf "$globins" "$proteins" > inf.txt || fail "-E inf failed"
[ "$(grep -vc '^#' inf.tbl)" -eq 45 ] || fail "-E inf did not report all 45 targets"
grep -q '^\[ok\]$' one.txt || fail "the main output on standard output is incomplete"

# Outputs that are not regular files are written in place, never renamed over: a named pipe stays a pipe (and
# /dev/null a device), a symbolic link stays a link and its target gets the table.
mkfifo pipe.tbl
cat pipe.tbl > from_pipe.tbl &
reader=$!
echo old > real.tbl
ln -s real.tbl link.tbl
"$hmmsearch" --tblout pipe.tbl --domtblout link.tbl -o fifo.txt "$globins" "$proteins" || fail "run with a pipe failed"
wait "$reader"
[ -p pipe.tbl ] || fail "the named pipe was replaced"
cmp -s <(strip_tail from_pipe.tbl) <(strip_tail fa.tbl) || fail "the table written into a pipe differs"
[ -L link.tbl ] || fail "the symbolic link was replaced"
cmp -s <(strip_tail real.tbl) <(strip_tail fa.dom) || fail "the symbolic link's target did not get the table"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all bad-input cases rejected cleanly; FASTA, cudp-makedb and thread-count runs agree"
