#!/usr/bin/env bash
# cudp-swsearch's command line: every usage error exits with status 2 and a message on standard error that names
# the problem and the option or word at fault, and writes nothing to standard output; --help and -h print the
# usage text (listing both) with status 0; a cudp-makedb file works as --query, as --help says.
#   swsearch_bad_input.sh CUDP_SWSEARCH CUDP_MAKEDB DATA_DIR   (DATA_DIR: apps/data)
set -uo pipefail
swsearch=$(realpath "$1") makedb=$(realpath "$2") data=$(realpath "$3")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
queries=$data/queries.fa
db=$data/db.fa.gz
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect_usage_error NAME PATTERN -- ARGS...
expect_usage_error() {
  local name=$1 pattern=$2
  shift 3
  "$swsearch" "$@" > stdout.txt 2> stderr.txt
  local rc=$?
  local message
  message=$(cat stderr.txt)
  local before=$failures
  [ "$rc" -eq 2 ] || fail "$name: exit status $rc, expected 2"
  grep -qE -- "$pattern" stderr.txt || fail "$name: message does not match '$pattern': $message"
  [ -s stdout.txt ] && fail "$name: wrote to standard output"
  [ "$failures" -eq "$before" ] && echo "ok: $name: $message"
}

expect_usage_error "unknown option last" "^cudp-swsearch: unknown option --bogus " -- --query "$queries" --db "$db" --bogus
expect_usage_error "unknown option first" "^cudp-swsearch: unknown option --bogus " -- --bogus --query "$queries" --db "$db"
expect_usage_error "stray word" "^cudp-swsearch: unexpected argument 'extra'" -- --query "$queries" --db "$db" extra
expect_usage_error "stray word last" "^cudp-swsearch: unexpected argument 'extra'" -- --query "$queries" extra --db "$db"
expect_usage_error "missing value" "^cudp-swsearch: missing value for --db " -- --query "$queries" --db
expect_usage_error "negative --threads" "^cudp-swsearch: --threads must be >= 0.*-1" -- --query "$queries" --db "$db" --threads -1
expect_usage_error "non-integer --threads" "^cudp-swsearch: --threads expects an integer, got 'x'" -- --query "$queries" --db "$db" --threads x
expect_usage_error "no --query" "^cudp-swsearch: --query is required" -- --db "$db"

for flag in --help -h; do
  "$swsearch" "$flag" > help.txt 2> stderr.txt
  rc=$?
  [ "$rc" -eq 0 ] || fail "$flag: exit status $rc"
  [ -s stderr.txt ] && fail "$flag: wrote to standard error"
  grep -q "^usage: cudp-swsearch" help.txt || fail "$flag: no usage text on standard output"
done
grep -qE -- "^  -h, --help " help.txt || fail "--help does not list -h"
sed -n '/^  --query /,/^  --db /p' help.txt | grep -v -- "^  --db " | grep -q "cudp-makedb" || fail "--help does not say --query takes a cudp-makedb file"
grep -A1 -- "^  --threads " help.txt | grep -q ">= 0" || fail "--help does not give --threads' range"

# The queries as a cudp-makedb file: the same hits as from their FASTA file.
"$makedb" "$queries" queries.cudpdb 2> /dev/null || fail "cudp-makedb failed"
"$swsearch" --backend host --query "$queries" --db "$db" --top 3 > fasta.tsv || fail "FASTA queries failed"
"$swsearch" --backend host --query queries.cudpdb --db "$db" --top 3 > packed.tsv || fail "packed queries failed"
[ "$(grep -vc '^#' fasta.tsv)" -gt 0 ] || fail "the FASTA run reported nothing"
cmp -s fasta.tsv packed.tsv || fail "packed queries give other hits than their FASTA file"
"$swsearch" --backend host --query "$queries" --db "$db" --top 3 --threads 0 > zero.tsv || fail "--threads 0 failed"
cmp -s fasta.tsv zero.tsv || fail "--threads 0 gives other hits"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all usage errors rejected with status 2; --help, -h and packed queries work"
