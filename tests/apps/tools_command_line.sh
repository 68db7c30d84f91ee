#!/usr/bin/env bash
# What a new user meets first, for every tool: --version; GPU options on a machine without a GPU (an explicit
# --gpus N is an error, --backend auto says it runs on the host); output paths checked before any input is read;
# '-' as standard input; messages that name the tool's own operands and the real problem; the GPU benchmark
# programs without a GPU (a message, not an abort).
#   tools_command_line.sh BIN_DIR VERSION HMMER_EXAMPLES DATA_DIR [BENCH_DIR]
# BIN_DIR holds the tools, VERSION is the project's version, DATA_DIR apps/data, BENCH_DIR the GPU benchmarks (in
# CUDA builds).
set -uo pipefail
bin=$(realpath "$1") version=$2 examples=$(realpath "$3") data=$(realpath "$4") bench=${5:+$(realpath "$5")}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
tools=(cudp-swsearch cudp-makedb cudp-hmmsearch cudp-phmmer cudp-hmmscan cudp-align cudp-phylo cudp-msa)
globins4=$examples/tutorial/globins4.hmm globins45=$examples/tutorial/globins45.fa query=$examples/tutorial/HBB_HUMAN
pa=$data/align/globins_a.fa pb=$data/align/globins_b.fa

# expect STATUS PATTERN NAME -- COMMAND...: the exit status, and one line on standard error matching PATTERN.
expect() {
  local status=$1 pattern=$2 name=$3
  shift 4
  "$@" > stdout.txt 2> stderr.txt
  local rc=$?
  local before=$failures
  [ "$rc" -eq "$status" ] || fail "$name: exit status $rc, expected $status ($(head -3 stderr.txt))"
  grep -qE -- "$pattern" stderr.txt || fail "$name: standard error does not match '$pattern': $(head -3 stderr.txt)"
  [ "$failures" -eq "$before" ] && echo "ok: $name: $(head -1 stderr.txt)"
}

# --version: the tool, the project's version, and what the build has; status 0, nothing on standard error.
for tool in "${tools[@]}"; do
  "$bin/$tool" --version > version.txt 2> stderr.txt || fail "$tool --version: exit status $?"
  [ "$(head -1 version.txt)" = "$tool $version" ] || fail "$tool --version: first line '$(head -1 version.txt)'"
  grep -q "^built with: " version.txt || fail "$tool --version: no 'built with' line"
  [ -s stderr.txt ] && fail "$tool --version: wrote to standard error"
done
echo "ok: --version of ${#tools[@]} tools"

# Without a GPU: --gpus N is a promise the machine cannot keep; --backend auto runs on the host and says so in a
# build with CUDA. (On a machine with GPUs these checks are left to the GPU tests.)
if ! nvidia-smi -L > /dev/null 2>&1; then
  cuda_build=0
  grep -q "^built with: CUDA backend" <("$bin/cudp-swsearch" --version) && cuda_build=1
  expect 2 "^cudp-swsearch: --gpus 2: (no CUDA device found|this build has no CUDA backend)" "swsearch --gpus 2" -- \
    "$bin/cudp-swsearch" --query "$query" --db "$globins45" --gpus 2
  for tool in cudp-hmmsearch cudp-phmmer; do
    first=$globins4
    [ $tool = cudp-phmmer ] && first=$query
    expect 1 "^$tool: --gpus 3: (no CUDA device found|this build has no CUDA backend)" "${tool#cudp-} --gpus 3" -- \
      "$bin/$tool" --gpus 3 "$first" "$globins45"
  done
  expect 1 "^cudp-hmmscan: --gpus 2: " "hmmscan --gpus 2" -- "$bin/cudp-hmmscan" --gpus 2 "$globins4" "$query"
  expect 1 "^cudp-msa: --backend cuda: (this build has no CUDA backend|no CUDA device found)" \
    "msa --backend cuda" -- "$bin/cudp-msa" "$data/msa/family.fa" --backend cuda
  if [ $cuda_build = 1 ]; then
    note="--backend auto: no CUDA device found; running on the host"
    expect 0 "^cudp-swsearch: $note" "swsearch auto on the host" -- "$bin/cudp-swsearch" --query "$query" --db "$globins45"
    expect 0 "^cudp-hmmsearch: $note" "hmmsearch auto on the host" -- "$bin/cudp-hmmsearch" "$globins4" "$globins45"
    # (A query from a pipe: for small plain files auto chooses the host on purpose, which needs no note.)
    expect 0 "^cudp-align: $note" "align auto on the host" -- "$bin/cudp-align" --query - --target "$pb" \
      --backend auto --alphabet protein < "$pa"
    # --backend host is what was asked: nothing to say.
    "$bin/cudp-swsearch" --query "$query" --db "$globins45" --backend host > /dev/null 2> stderr.txt
    [ -s stderr.txt ] && fail "swsearch --backend host wrote to standard error: $(cat stderr.txt)"
  fi
fi

# Output paths are checked before the inputs are read: with an input that never ends (a pipe kept open), a tool
# that read first would wait; one that checks first fails at once.
missing=$work/no/such/dir/out
early() {  # NAME -- COMMAND... (reading standard input)
  local name=$1
  shift 2
  rm -f endless && mkfifo endless
  sleep 30 > endless 2> /dev/null &  # opens the FIFO for writing, and writes nothing
  local writer=$!
  timeout 10 "$@" < endless > stdout.txt 2> stderr.txt
  local rc=$?
  kill "$writer" 2> /dev/null
  wait "$writer" 2> /dev/null
  if [ "$rc" -eq 124 ]; then
    fail "$name: waited for its input before checking the output path"
  elif ! grep -q "no/such/dir/out: cannot create" stderr.txt; then
    fail "$name: exit status $rc, $(head -2 stderr.txt)"
  else
    echo "ok: $name: $(head -1 stderr.txt)"
  fi
}
early "swsearch --out" -- "$bin/cudp-swsearch" --query - --db "$globins45" --out "$missing"
early "align --out" -- "$bin/cudp-align" --query - --target "$pb" --out "$missing"
early "phylo --out" -- "$bin/cudp-phylo" evaluate --alignment - --tree "$data/phylo/sim.nwk" --model JC --out "$missing"
early "makedb" -- "$bin/cudp-makedb" - "$missing"
early "hmmsearch -o" -- "$bin/cudp-hmmsearch" -o "$missing" "$globins4" -
early "msa -o" -- "$bin/cudp-msa" - -o "$missing"
early "msa --guidetree-out" -- "$bin/cudp-msa" - --guidetree-out "$missing"

# '-' is standard input, with the same results as the file.
"$bin/cudp-makedb" - from_stdin.cudpdb < "$globins45" 2> /dev/null || fail "makedb from standard input"
"$bin/cudp-makedb" "$globins45" from_file.cudpdb 2> /dev/null || fail "makedb from the file"
cmp -s from_stdin.cudpdb from_file.cudpdb || fail "makedb: standard input and the file give different databases"
"$bin/cudp-align" --query - --target "$pb" --format score --backend host < "$pa" > stdin.txt || fail "align --query -"
"$bin/cudp-align" --query "$pa" --target "$pb" --format score --backend host > file.txt || fail "align --query file"
cmp -s stdin.txt file.txt || fail "align: standard input and the file give different scores"
expect 2 "^cudp-align: --query and --target cannot both be standard input" "align - -" -- \
  "$bin/cudp-align" --query - --target -
"$bin/cudp-msa" - < "$data/msa/family.fa" > msa_stdin.aln || fail "msa -"
"$bin/cudp-msa" "$data/msa/family.fa" > msa_file.aln || fail "msa file"
cmp -s msa_stdin.aln msa_file.aln || fail "msa: standard input and the file give different alignments"
expect 2 "^cudp-msa: the input and the guide tree cannot both be standard input" "msa - --usetree -" -- \
  "$bin/cudp-msa" - --usetree -
# A packed database on standard input, as cudp-swsearch takes it and hmmsearch.md promises.
"$bin/cudp-hmmsearch" --tblout db_stdin.tbl -o /dev/null "$globins4" - < from_file.cudpdb || fail "hmmsearch: packed database on standard input"
"$bin/cudp-hmmsearch" --tblout db_file.tbl -o /dev/null "$globins4" from_file.cudpdb || fail "hmmsearch: packed database"
cmp -s <(grep -v "^#" db_stdin.tbl) <(grep -v "^#" db_file.tbl) || fail "hmmsearch: packed database on standard input differs"
[ -s db_file.tbl ] && grep -qv "^#" db_file.tbl || fail "hmmsearch: no hits in the packed database"

# Messages that name the tool's own operands and the real problem.
expect 1 "^cudp-phmmer: expected two arguments, <seqfile> and <seqdb>, got 1" "phmmer one operand" -- \
  "$bin/cudp-phmmer" "$query"
expect 1 "^cudp-hmmscan: expected two arguments, <hmmdb> and <seqfile>, got 1" "hmmscan one operand" -- \
  "$bin/cudp-hmmscan" "$globins4"
expect 1 "^cudp-hmmsearch: expected two arguments, <hmmfile> and <seqdb>, got 1" "hmmsearch one operand" -- \
  "$bin/cudp-hmmsearch" "$globins4"
expect 1 "^cudp-hmmscan: with --connect, <hmmdb> is the daemon's database file, not standard input" \
  "hmmscan --connect with <hmmdb> -" -- "$bin/cudp-hmmscan" --connect "$work/socket" - "$query"
expect 1 "^cudp-hmmscan: no daemon on " "hmmscan --connect, queries on standard input" -- \
  "$bin/cudp-hmmscan" --connect "$work/socket" "$globins4" - < "$query"
gzip -c "$query" > query.fa.gz
expect 1 "^cudp-hmmscan: standard input: the query sequences are gzip-compressed" "hmmscan gzip on standard input" -- \
  "$bin/cudp-hmmscan" "$globins4" - < query.fa.gz
expect 1 "^cudp-hmmsearch: standard input: the target sequences are gzip-compressed" \
  "hmmsearch gzip on standard input" -- "$bin/cudp-hmmsearch" "$globins4" - < <(gzip -c "$globins45")
# hmmpress's binary format: the magic number of HMMER 3.3.2's .h3m, then binary bytes.
printf '\xba\xed\xed\xe8\x80\xc1\x01\x00\x95\x00\x00\x00garbage\n' > pressed.h3m
expect 1 "^cudp-hmmscan: pressed.h3m:1: a binary model file of hmmpress \(.h3m\): give the flat model file" \
  "hmmscan given a .h3m" -- "$bin/cudp-hmmscan" pressed.h3m "$query"
expect 1 "^cudp-hmmsearch: option --cpu expects an integer 0 <= n <= 1048576, got '1048577'" "--cpu past its cap" -- \
  "$bin/cudp-hmmsearch" --cpu 1048577 "$globins4" "$globins45"
expect 1 "^cudp-swsearch: FOO: not a built-in protein matrix \(BLOSUM45, BLOSUM50, BLOSUM62, BLOSUM80, PAM250\)" \
  "swsearch --matrix FOO" -- "$bin/cudp-swsearch" --matrix FOO --query "$query" --db "$globins45"
expect 2 "^cudp-msa: give the input sequences: cudp-msa IN.fa" "msa without input" -- "$bin/cudp-msa" -o out.aln
expect 1 "^cudp-msa: msa_file.aln:1: not FASTA" "msa given an alignment" -- "$bin/cudp-msa" msa_file.aln
expect 1 "^cudp-makedb: expected two arguments, <in.fa\[.gz\]> and <out.cudpdb>, got 1" "makedb one operand" -- \
  "$bin/cudp-makedb" "$globins45"

# The GPU benchmarks on a machine without a GPU: one message and status 1, not an uncaught exception (SIGABRT);
# --help prints the usage whatever the machine, and is not taken for an argument.
if [ -n "$bench" ]; then
  for program in cudp-sw-bench cudp-hmm-filter-bench cudp-row-passes-bench cudp-phylo-bench; do
    [ -x "$bench/$program" ] || { fail "$program: not built in $bench"; continue; }
    "$bench/$program" --help > usage.txt 2> stderr.txt || fail "$program --help: exit status $?"
    grep -q "^usage: $program" usage.txt || fail "$program --help: $(head -2 usage.txt stderr.txt)"
    if ! nvidia-smi -L > /dev/null 2>&1; then
      args=(x.fa y.fa)
      [ $program = cudp-phylo-bench ] && args=(--host 1 4:8:100:4)
      [ $program = cudp-row-passes-bench ] && args=(align 1000)
      expect 1 "^$program: no CUDA device found; this benchmark runs on the GPU" "$program without a GPU" -- \
        "$bench/$program" "${args[@]}"
    fi
  done
fi

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all checks passed"
