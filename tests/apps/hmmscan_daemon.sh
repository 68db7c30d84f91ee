#!/usr/bin/env bash
# cudp-hmmscan --daemon / --connect: scans run in a daemon holding two profile databases, several clients at once,
# write what their one-shot runs write; clients with bad requests (a database it does not hold, a FASTA file it
# cannot parse, models without the cutoffs asked for, a search of another program) get their own error while the
# others succeed; SIGTERM stops it and removes the socket.
# Usage: hmmscan_daemon.sh CUDP_HMMSCAN CUDP_HMMSEARCH HMMER_EXAMPLES_DIR BACKEND
set -euo pipefail
hmmscan=$1
hmmsearch=$2
examples=$3
backend=$4
source "$(dirname "${BASH_SOURCE[0]}")/daemon_test_common.sh"
tutorial=$examples/tutorial

seed_sequences "$tutorial/Pkinase.sto" > kinases.fa
seed_sequences "$tutorial/fn3.sto" > fn3.fa
{
  cat "$tutorial/HBB_HUMAN"
  echo
  head -n 6 kinases.fa
  head -n 6 fn3.fa
  head -n 4 "$tutorial/globins45.fa"
} > queries.fa
cat "$tutorial/globins4.hmm" "$tutorial/fn3.hmm" "$tutorial/Pkinase.hmm" > all.hmm
mkdir pfam
cat "$tutorial/fn3.hmm" "$tutorial/Pkinase.hmm" > pfam/domains.hmm
cp all.hmm unloaded.hmm
printf '>broken\nMKV1TL\n' > broken.fa

"$hmmscan" --daemon "$work/sock" --backend "$backend" all.hmm pfam/domains.hmm 2>daemon.err &
daemon_pid=$!
wait_for_daemon

outputs=(-o out --tblout tbl --domtblout dom --pfamtblout pfam)
run() {  # dir args...: in dir (made afresh), the file arguments relative to the work directory
  local dir=$1
  shift
  rm -rf "$dir" && mkdir "$dir" && cd "$dir" && "$hmmscan" "${outputs[@]}" "$@" >stdout 2>stderr
}
compared=(out tbl dom pfam)
least_hits=3

(run one_all --backend "$backend" ../all.hmm ../queries.fa) || fail "one-shot scan of all.hmm"
(run one_pfam --backend "$backend" --cut_ga ../pfam/domains.hmm ../queries.fa) || fail "one-shot scan of domains.hmm"
(run one_max --backend "$backend" --max -E 1e-3 --domE 1e-2 ../all.hmm ../queries.fa) || fail "one-shot --max scan"

good=()
(run c_all --connect "$work/sock" ../all.hmm ../queries.fa) & good+=($!)
(run c_pfam --connect "$work/sock" --cut_ga ../pfam/domains.hmm ../queries.fa) & good+=($!)
(run c_max --connect "$work/sock" --max -E 1e-3 --domE 1e-2 ../all.hmm ../queries.fa) & good+=($!)
bad=()
(run c_unloaded --connect "$work/sock" ../unloaded.hmm ../queries.fa) & bad+=($!)
(run c_broken --connect "$work/sock" ../all.hmm ../broken.fa) & bad+=($!)
(run c_no_ga --connect "$work/sock" --cut_ga ../all.hmm ../queries.fa) & bad+=($!)
(mkdir c_search && cd c_search && "$hmmsearch" --connect "$work/sock" ../all.hmm ../queries.fa >stdout 2>stderr) &
bad+=($!)
for pid in "${good[@]}"; do wait "$pid" || fail "a scan in the daemon failed (see c_*/stderr)"; done
for pid in "${bad[@]}"; do ! wait "$pid" || fail "a bad request succeeded"; done

same_outputs one_all c_all
same_outputs one_pfam c_pfam
same_outputs one_max c_max
grep -q "^# Current dir:     $work/c_all$" c_all/tbl || fail "the tables' directory is not the client's"
expect_failed_run c_unloaded \
  "^cudp-hmmscan: database ../unloaded.hmm is not loaded in the daemon at $work/sock; it holds: all.hmm, pfam/dom"
expect_failed_run c_broken "^cudp-hmmscan: ../broken.fa:2:4: invalid residue '1'"
expect_failed_run c_no_ga "^cudp-hmmscan: ../all.hmm:1: model 'globins4' has no GA line"
! (run one_no_ga --backend "$backend" --cut_ga ../all.hmm ../queries.fa) || fail "--cut_ga without GA lines succeeded"
diff one_no_ga/stderr c_no_ga/stderr > /dev/null || fail "--cut_ga: the daemon's message is not the one-shot one"
expect_failed_run c_search "^cudp-hmmsearch: the daemon on $work/sock runs no hmmsearch searches, only hmmscan"

(run c_after --connect "$work/sock" ../all.hmm ../queries.fa) || fail "a scan after the bad requests"
same_outputs one_all c_after
kill -TERM "$daemon_pid"
wait "$daemon_pid" || fail "the daemon exited with status $? on SIGTERM"
daemon_pid=
[ ! -e sock ] || fail "the socket file is left after SIGTERM"
echo "ok: scans in the daemon equal one-shot runs ($backend backend); bad requests are answered alone"
