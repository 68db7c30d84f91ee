# Sourced by the daemon tests (hmmsearch_daemon.sh, hmmsearch_daemon_clients.sh, hmmscan_daemon.sh) once they have
# read their arguments: a work directory (the current one from here on) removed at exit, with the daemon in
# $daemon_pid killed if it is still there; fail() with the daemon's log; and the pieces the tests share.
work=$(mktemp -d)
daemon_pid=
cleanup() {
  [ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  [ -f "$work/daemon.err" ] && sed 's/^/  daemon: /' "$work/daemon.err"
  exit 1
}
cd "$work"

seed_sequences() {  # Stockholm -> FASTA, gaps removed
  awk '!/^#/ && !/^\/\// && NF == 2 { seq[$1] = seq[$1] $2; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
       END { for (i = 1; i <= n; i++) {
               s = seq[order[i]]; gsub(/[.-]/, "", s); print ">" order[i] "\n" toupper(s) } }' "$1"
}

# Waits up to 60 s for the daemon $daemon_pid to write "ready on" to daemon.err.
wait_for_daemon() {
  for _ in $(seq 1 600); do
    grep -q "ready on" daemon.err 2>/dev/null && return 0
    kill -0 "$daemon_pid" 2>/dev/null || fail "the daemon did not start"
    sleep 0.1
  done
  fail "the daemon did not start within 60 s"
}

# same_outputs ONE-SHOT-DIR DAEMON-DIR: the files named in $compared are equal but for the lines of times, the
# command line, the directory and the date, and the daemon's table has at least $least_hits hits.
same_outputs() {
  local f
  for f in "${compared[@]}"; do
    diff <(grep -v -E '^# (CPU time|Mc/sec|Option settings|Current dir|Date):' "$1/$f") \
         <(grep -v -E '^# (CPU time|Mc/sec|Option settings|Current dir|Date):' "$2/$f") > "$work/diff.txt" ||
      fail "'$f' differs between the daemon ($2) and a one-shot run ($1): $(head -n 20 "$work/diff.txt")"
  done
  [ "$(grep -vc '^#' "$2/tbl")" -ge "$least_hits" ] || fail "too few hits to compare in $2"
}

# expect_failed_run DIR PATTERN: the client run in DIR left no output file and its message matches PATTERN.
expect_failed_run() {
  [ ! -e "$1/out" ] || fail "a failed run left an output file in $1"
  grep -q -e "$2" "$1/stderr" || fail "$1: message without '$2': $(cat "$1/stderr")"
}
