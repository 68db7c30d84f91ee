#!/usr/bin/env bash
# One daemon, several databases, several clients at once: cudp-hmmsearch and cudp-phmmer searches started together
# against each database each write what their one-shot runs write, while clients that send garbage, stop half-way,
# stay silent, speak an old protocol or name a database the daemon does not hold get an error of their own and
# disturb nobody; the daemon goes on serving and stops cleanly on SIGTERM.
# Usage: hmmsearch_daemon_clients.sh CUDP_HMMSEARCH CUDP_PHMMER CUDP_MAKEDB HMMER_EXAMPLES_DIR PYTHON3 BACKEND
set -euo pipefail
hmmsearch=$1
phmmer=$2
makedb=$3
examples=$4
python=$5
backend=$6
source "$(dirname "${BASH_SOURCE[0]}")/daemon_test_common.sh"
tutorial=$examples/tutorial

# Three databases: proteins with hits for every model, the globins alone (in another directory, named through a
# symbolic link by the clients), and DNA cut into pieces under hmmsearch's length limit.
{ cat "$tutorial/globins45.fa"; seed_sequences "$tutorial/Pkinase.sto"; seed_sequences "$tutorial/fn3.sto"; } > db.fa
"$makedb" db.fa db.cudpdb 2>/dev/null
mkdir -p store
"$makedb" "$tutorial/globins45.fa" store/globins.cudpdb 2>/dev/null
ln -s store/globins.cudpdb globins.cudpdb
awk '/^>/ { next } { s = s $0 }
     END { for (i = 1; i <= length(s); i += 20000) print ">piece" int(i / 20000) + 1 "\n" substr(s, i, 20000) }' \
  "$tutorial/dna_target.fa" > dna.fa
"$makedb" --dna dna.fa dna.cudpdb 2>/dev/null
cp db.cudpdb unloaded.cudpdb
cat "$tutorial/globins4.hmm" "$tutorial/fn3.hmm" "$tutorial/Pkinase.hmm" > models.hmm
cp "$tutorial/globins4.hmm" .
{ cat "$tutorial/HBB_HUMAN"; head -n 8 "$tutorial/globins45.fa"; } > queries.fa

# A client that is not cudp's: silent, garbage, half a request, or the previous protocol. Prints the daemon's reply
# as "status: message", or what happened instead.
cat > raw_client.py <<'EOF'
import os, socket, struct, sys
mode, path = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
s.settimeout(60)
def message(parts):
    return struct.pack("=Q", len(parts)) + b"".join(struct.pack("=Q", len(p)) + p for p in parts)
if mode == "garbage":
    s.sendall(b"GET / HTTP/1.1\r\nHost: daemon\r\n\r\n")
elif mode == "halfway":
    s.sendall(message([b"cudp daemon request 3", b"hmmsearch", b"/", b"HMMER3/f"])[:60])
    s.close()
    print("closed")
    sys.exit(0)
elif mode == "gone":  # a whole request, then away before the answer
    # A small model file, so that the whole request fits in the socket's buffer while the daemon is stopped.
    words = [b"--connect=" + path.encode(), b"--", b"globins4.hmm", b"db.cudpdb"]
    s.sendall(message([b"cudp daemon request 3", b"hmmsearch", os.getcwd().encode(), open("globins4.hmm", "rb").read()]
                      + words))
    s.close()
    print("gone")
    sys.exit(0)
elif mode == "old":
    s.sendall(message([b"cudp-hmmsearch request 2", b"/", b"", b"--connect=x", b"--", b"m.hmm", b"db"]))
data = b""
while True:
    try:
        chunk = s.recv(65536)
    except ConnectionResetError:  # the daemon closed without reading the rest of the garbage
        break
    if not chunk:
        break
    data += chunk
count, = struct.unpack_from("=Q", data, 0)
at, parts = 8, []
for _ in range(count):
    size, = struct.unpack_from("=Q", data, at)
    parts.append(data[at + 8:at + 8 + size].decode())
    at += 8 + size
print(parts[0] + ": " + parts[1])
EOF

CUDP_DAEMON_REQUEST_TIMEOUT=4 "$hmmsearch" --daemon "$work/sock" --backend "$backend" db.cudpdb store/globins.cudpdb \
  dna.cudpdb 2>daemon.err &
daemon_pid=$!
wait_for_daemon
[ "$(grep -c "serving" daemon.err)" = 3 ] || fail "the daemon does not serve three databases"

outputs=(-o out -A ali --tblout tbl --domtblout dom --pfamtblout pfam)
# run DIR PROGRAM [ARGS...]: in DIR (made afresh), the arguments relative to the work directory.
run() {
  local dir=$1 program=$2
  shift 2
  rm -rf "$dir" && mkdir "$dir" && cd "$dir" && "$program" "${outputs[@]}" "$@" >stdout 2>stderr
}
compared=(out ali tbl dom pfam)
least_hits=1

# The one-shot runs.
(run one_db "$hmmsearch" --backend "$backend" ../models.hmm ../db.cudpdb) || fail "one-shot hmmsearch on db"
(run one_globins "$hmmsearch" --backend "$backend" -E 1e-5 ../models.hmm ../globins.cudpdb) ||
  fail "one-shot hmmsearch on globins"
(run one_dna "$hmmsearch" --backend "$backend" "$tutorial/MADE1.hmm" ../dna.cudpdb) || fail "one-shot hmmsearch on dna"
(run one_phmmer "$phmmer" --backend "$backend" ../queries.fa ../db.cudpdb) || fail "one-shot phmmer"
(run one_phmmer2 "$phmmer" --backend "$backend" --max --mx BLOSUM45 ../queries.fa ../globins.cudpdb) ||
  fail "one-shot phmmer on globins"

# Everything at once: good clients of both programs on all three databases, and bad ones.
"$python" raw_client.py silent "$work/sock" > silent.txt 2>&1 &
silent_pid=$!
pids=()
(run c_db "$hmmsearch" --connect "$work/sock" ../models.hmm ../db.cudpdb) & pids+=($!)
(run c_globins "$hmmsearch" --connect "$work/sock" -E 1e-5 ../models.hmm ../globins.cudpdb) & pids+=($!)
(run c_dna "$hmmsearch" --connect "$work/sock" "$tutorial/MADE1.hmm" ../dna.cudpdb) & pids+=($!)
(run c_phmmer "$phmmer" --connect "$work/sock" ../queries.fa ../db.cudpdb) & pids+=($!)
(run c_phmmer2 "$phmmer" --connect "$work/sock" --max --mx BLOSUM45 ../queries.fa ../globins.cudpdb) & pids+=($!)
(run c_db2 "$hmmsearch" --connect "$work/sock" ../models.hmm ../db.cudpdb) & pids+=($!)
bad=()
(run c_unloaded "$hmmsearch" --connect "$work/sock" ../models.hmm ../unloaded.cudpdb) & bad+=($!)
(run c_wrong_alphabet "$hmmsearch" --connect "$work/sock" "$tutorial/MADE1.hmm" ../db.cudpdb) & bad+=($!)
(run c_phmmer_dna "$phmmer" --connect "$work/sock" ../queries.fa ../dna.cudpdb) & bad+=($!)
"$python" raw_client.py garbage "$work/sock" > garbage.txt 2>&1 & bad+=($!)
"$python" raw_client.py halfway "$work/sock" > halfway.txt 2>&1 & bad+=($!)
"$python" raw_client.py old "$work/sock" > old.txt 2>&1 & bad+=($!)
for pid in "${pids[@]}"; do wait "$pid" || fail "a search in the daemon failed (see c_*/stderr)"; done
for pid in "${bad[@]}"; do wait "$pid" || true; done
# A client that sends a whole request and hangs up: the daemon is stopped meanwhile, so that when it reads the
# request the hang-up is already there (running, an idle daemon could start the search before the client left).
kill -STOP "$daemon_pid"
"$python" raw_client.py gone "$work/sock" > gone.txt 2>&1 || true
kill -CONT "$daemon_pid"

same_outputs one_db c_db
same_outputs one_db c_db2
same_outputs one_globins c_globins
same_outputs one_dna c_dna
same_outputs one_phmmer c_phmmer
same_outputs one_phmmer2 c_phmmer2
grep -q "^# cudp-phmmer :: search a protein sequence" c_phmmer/out || fail "phmmer's output is not phmmer's"

held="db.cudpdb, store/globins.cudpdb, dna.cudpdb"
expect_failed_run c_unloaded \
  "^cudp-hmmsearch: database ../unloaded.cudpdb is not loaded in the daemon at $work/sock; it holds: $held"
expect_failed_run c_wrong_alphabet \
  "model 'MADE1' is DNA but the database db.cudpdb of the daemon was loaded for amino models"
expect_failed_run c_phmmer_dna "^cudp-phmmer: ../dna.cudpdb: the database holds DNA sequences"
grep -q "^1: the daemon on $work/sock could not read the request: malformed message" garbage.txt ||
  fail "garbage: $(cat garbage.txt)"
grep -q "^closed$" halfway.txt || fail "half a request: $(cat halfway.txt)"
grep -q "^1: the daemon on $work/sock speaks another protocol" old.txt || fail "old protocol: $(cat old.txt)"

# The silent client is cut off at its deadline with an error, and the daemon is still serving.
wait "$silent_pid" || true
grep -q "^1: the daemon on $work/sock could not read the request: timed out" silent.txt ||
  fail "silent client: $(cat silent.txt)"
(run c_after "$hmmsearch" --connect "$work/sock" ../models.hmm ../db.cudpdb) || fail "a search after the bad clients"
same_outputs one_db c_after
# Any name of a loaded database finds it: absolute, with dots, or a symbolic link's target.
"$hmmsearch" --connect "$work/sock" --tblout abs.tbl models.hmm "$work/./store/../db.cudpdb" > /dev/null ||
  fail "a search naming the database by another path"
diff <(grep -v '^#' abs.tbl) <(grep -v '^#' one_db/tbl) > /dev/null || fail "another path, another table"
"$hmmsearch" --connect "$work/sock" --tblout link.tbl -E 1e-5 models.hmm store/globins.cudpdb > /dev/null ||
  fail "a search naming the database by its link's target"
diff <(grep -v '^#' link.tbl) <(grep -v '^#' one_globins/tbl) > /dev/null || fail "the link's target, another table"

# SIGTERM with a client still connected: it is told, and the daemon stops.
"$python" raw_client.py silent "$work/sock" > stopping.txt 2>&1 &
stopping_pid=$!
sleep 0.5
kill -TERM "$daemon_pid"
wait "$daemon_pid" || fail "the daemon exited with status $? on SIGTERM"
wait "$stopping_pid" || true
grep -q "^1: the daemon on $work/sock is stopping" stopping.txt || fail "a client at SIGTERM: $(cat stopping.txt)"
daemon_pid=
[ ! -e sock ] || fail "the socket file is left after SIGTERM"
grep -q "could not read the request: the other side closed the connection" daemon.err ||
  fail "the daemon did not log the half-way client"
grep -q "status 1: hmmsearch: --connect=$work/sock -- globins4.hmm db.cudpdb: the client has gone away" daemon.err ||
  fail "the daemon searched for a client that had gone away"
echo "ok: concurrent clients of hmmsearch and phmmer on three databases equal one-shot runs; bad clients are answered"
