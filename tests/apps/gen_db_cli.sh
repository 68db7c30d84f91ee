#!/usr/bin/env bash
# cudp-gen-db's command line: --help and -h print the usage, naming the program, on standard output with status 0;
# --plant without --queries-out and other usage errors exit with status 2, a message naming the option, and no
# output file; a small run with plants writes the query ladder and the planted homologs.
#   gen_db_cli.sh CUDP_GEN_DB
set -uo pipefail
gen=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

for flag in --help -h; do
  "$gen" "$flag" > help.txt 2> stderr.txt
  rc=$?
  [ "$rc" -eq 0 ] || fail "$flag: exit status $rc, expected 0"
  [ -s stderr.txt ] && fail "$flag: wrote to standard error: $(cat stderr.txt)"
  grep -q "^usage: cudp-gen-db " help.txt || fail "$flag: no usage naming cudp-gen-db on standard output"
done
grep -q -- "--plant.*needs --queries-out\|needs --queries-out" help.txt || fail "--help does not say --plant needs --queries-out"

# expect_usage_error NAME PATTERN -- ARGS...
expect_usage_error() {
  local name=$1 pattern=$2
  shift 3
  rm -f db.fa
  "$gen" "$@" > stdout.txt 2> stderr.txt
  local rc=$?
  local before=$failures
  [ "$rc" -eq 2 ] || fail "$name: exit status $rc, expected 2"
  head -n1 stderr.txt | grep -qE -- "$pattern" || fail "$name: message does not match '$pattern': $(head -n1 stderr.txt)"
  [ -s stdout.txt ] && fail "$name: wrote to standard output"
  [ -e db.fa ] && fail "$name: wrote db.fa"
  [ "$failures" -eq "$before" ] && echo "ok: $name: $(head -n1 stderr.txt)"
}

expect_usage_error "--plant without --queries-out" "^cudp-gen-db: --plant needs --queries-out" -- --out db.fa --sequences 10 --plant 2
expect_usage_error "unknown option" "^cudp-gen-db: unknown argument --bogus" -- --out db.fa --bogus
expect_usage_error "missing value" "^cudp-gen-db: missing value for --sequences" -- --out db.fa --sequences
expect_usage_error "non-numeric value" "^cudp-gen-db: --seed expects a number, got 'x'" -- --out db.fa --seed x
expect_usage_error "no --out" "^cudp-gen-db: --out is required" -- --sequences 10

"$gen" --seed 3 --sequences 50 --out db.fa --queries-out queries.fa --plant 2 2> run.txt || fail "a run with plants failed"
[ "$(grep -c '^>' queries.fa)" -eq 20 ] || fail "the query ladder does not hold 20 queries"
[ "$(grep -c '^>r' db.fa)" -eq 50 ] || fail "the database does not hold 50 random sequences"
[ "$(grep -c '^>plant_' db.fa)" -eq 40 ] || fail "the database does not hold 2 plants per query"
grep -q "^cudp-gen-db: " run.txt || fail "the summary does not name cudp-gen-db: $(cat run.txt)"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "cudp-gen-db: --help, usage errors and a planted run behave"
