#!/usr/bin/env bash
# cudp-hmmsearch --daemon / --connect: a search run in the daemon writes the same outputs as a one-shot run of the
# same search (every file, every byte but timings, dates and the command line), and the daemon's failure modes are
# clean: bad models, another database, misplaced options, a second daemon on a live socket, a stale socket file,
# no daemon at all, and SIGTERM (the socket file is removed).
# Usage: hmmsearch_daemon.sh CUDP_HMMSEARCH CUDP_MAKEDB HMMER_EXAMPLES_DIR BACKEND
set -euo pipefail
hmmsearch=$1
makedb=$2
examples=$3
backend=$4
source "$(dirname "${BASH_SOURCE[0]}")/daemon_test_common.sh"

# A database where every model has hits: the globins and the sequences of the Pkinase and fn3 seed alignments.
{ cat "$examples/tutorial/globins45.fa"; seed_sequences "$examples/tutorial/Pkinase.sto"; seed_sequences "$examples/tutorial/fn3.sto"; } > db.fa
"$makedb" db.fa db.cudpdb 2>/dev/null
cat "$examples/tutorial/globins4.hmm" "$examples/tutorial/fn3.hmm" "$examples/tutorial/Pkinase.hmm" > models.hmm
cp db.cudpdb other.cudpdb

start_daemon() {
  "$hmmsearch" --daemon "$work/sock" --backend "$backend" db.cudpdb 2>>daemon.err &
  daemon_pid=$!
  wait_for_daemon
}
start_daemon
[ "$(stat -c %a sock)" = 600 ] || fail "the socket is not private to its user: mode $(stat -c %a sock)"

# Same search one-shot (in d/) and through the daemon (in c/): the same relative names, so the headers agree.
compared=(out ali tbl dom pfam)
least_hits=3
compare_search() {  # options...
  rm -rf c d && mkdir c d
  (cd d && "$hmmsearch" --backend "$backend" -o out -A ali --tblout tbl --domtblout dom --pfamtblout pfam "$@" ../models.hmm ../db.cudpdb) ||
    fail "one-shot run failed: $*"
  (cd c && "$hmmsearch" --connect "$work/sock" -o out -A ali --tblout tbl --domtblout dom --pfamtblout pfam "$@" ../models.hmm ../db.cudpdb) ||
    fail "search in the daemon failed: $*"
  same_outputs d c
  [ "$(grep -c '^#=GS ' c/ali)" -ge 3 ] || fail "too few aligned domains to compare ($*)"
}
compare_search
cp c/tbl default.tbl
compare_search -E 1e-3 --domE 1e-4 --nobias --acc --seed 7
compare_search --max --textw 200
compare_search --noali --notextw
grep -q "^  == domain 1 " c/out && fail "--noali through the daemon printed alignments"

# The model on standard input, the output on standard output.
"$hmmsearch" --connect "$work/sock" --tblout stdin.tbl - db.cudpdb < models.hmm > stdin.out || fail "model on stdin"
diff <(grep -v '^#' stdin.tbl) <(grep -v '^#' default.tbl) >/dev/null || fail "model on stdin: another table"
grep -q '^\[ok\]$' stdin.out || fail "model on stdin: no main output on stdout"

expect_error() {  # status pattern command...
  local status=$1 pattern=$2
  shift 2
  set +e
  "$@" >err.out 2>err.txt
  local got=$?
  set -e
  [ "$got" = "$status" ] || fail "exit $got, not $status: $* ($(cat err.txt))"
  grep -q -e "$pattern" err.txt || fail "message without '$pattern': $(cat err.txt)"
}
head -c 3000 models.hmm > bad.hmm
expect_error 1 "^cudp-hmmsearch: bad.hmm:[0-9]*: node" "$hmmsearch" --connect "$work/sock" -o bad.out bad.hmm db.cudpdb
[ ! -e bad.out ] || fail "a failed search left an output file"
expect_error 1 "database other.cudpdb is not loaded in the daemon at $work/sock; it holds: db.cudpdb" \
  "$hmmsearch" --connect "$work/sock" models.hmm other.cudpdb
expect_error 1 "MADE1.hmm:1: model 'MADE1' is DNA but the database db.cudpdb of the daemon" \
  "$hmmsearch" --connect "$work/sock" "$examples/tutorial/MADE1.hmm" db.cudpdb
expect_error 1 "option --cpu belongs to the daemon" "$hmmsearch" --connect "$work/sock" --cpu 2 models.hmm db.cudpdb
expect_error 1 "option -E belongs to a search" "$hmmsearch" --daemon "$work/sock2" -E 1 db.cudpdb
expect_error 1 "serves databases packed by cudp-makedb; db.fa is not one" "$hmmsearch" --daemon "$work/sock2" db.fa
expect_error 1 "models.hmm holds profiles: serve it with cudp-hmmscan --daemon" \
  "$hmmsearch" --daemon "$work/sock2" models.hmm
expect_error 1 "./db.cudpdb is the same database as db.cudpdb" "$hmmsearch" --daemon "$work/sock2" db.cudpdb ./db.cudpdb
expect_error 1 "no daemon on $work/none" "$hmmsearch" --connect "$work/none" models.hmm db.cudpdb
expect_error 1 "a daemon is already listening there" "$hmmsearch" --daemon "$work/sock" --backend host db.cudpdb
compare_search  # still serving

# SIGTERM stops it and removes the socket; a socket file left by a killed daemon is replaced by the next one.
kill -TERM "$daemon_pid"
wait "$daemon_pid" || fail "the daemon exited with status $? on SIGTERM"
daemon_pid=
[ ! -e sock ] || fail "the socket file is left after SIGTERM"
: > daemon.err
start_daemon
{ kill -9 "$daemon_pid" && wait "$daemon_pid"; } 2>/dev/null || true
[ -S sock ] || fail "expected the killed daemon's socket file"
: > daemon.err
start_daemon
compare_search
kill -TERM "$daemon_pid" && wait "$daemon_pid" && daemon_pid=
echo "ok: daemon searches equal one-shot runs ($backend backend); errors are clean"
