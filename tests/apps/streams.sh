#!/usr/bin/env bash
# Inputs and outputs that are streams (docs/streams.md), for one tool:
#   streams.sh swsearch  <cudp-swsearch> <cudp-makedb> <apps/data>
#   streams.sh makedb    <cudp-makedb> <apps/data>
#   streams.sh align     <cudp-align> <apps/data>
#   streams.sh phylo     <cudp-phylo> <apps/data>
#   streams.sh msa       <cudp-msa> <apps/data>
#   streams.sh hmmsearch <cudp-hmmsearch> <hmmer examples>
#   streams.sh phmmer    <cudp-phmmer> <hmmer examples>
#   streams.sh hmmscan   <cudp-hmmscan> <hmmer examples>
# Pipes (process substitution), FIFOs and '-' where the replaced program takes it give the output of the same
# bytes in regular files; outputs to /dev/stdout and to a FIFO equal the files; a run that fails half-way through a
# piped input leaves no regular output file (nor a temporary one) behind.
set -u
tool=$1
shift
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0

# A tool that reads a FIFO twice waits for ever for a second writer: a hang is a failure too. Every run must
# succeed unless a check says it expects a failure (expect_failure=1), so that two empty outputs never compare equal.
expect_failure=0
limit() {
  timeout 60 "$@"
  local rc=$?
  [ "$rc" -ne 0 ] && [ "$expect_failure" = 0 ] && fail "exit status $rc: ${*##*/}"
  return $rc
}

# Lets the reader of an output FIFO finish when the tool failed before opening it.
unblock() { timeout 5 sh -c ": > '$1'" 2> /dev/null; }

fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# What names the inputs, the outputs and the time of the run: header and tail lines of HMMER's formats, the
# report lines of cudp-phylo that name its inputs.
normalise() {
  local names='query|target|per-|pfam|output directed|msa|cpu time|mc/sec|option settings|current dir|date'
  grep -E -v -i "^# ($names)" "$1" |
    grep -E -v '^(alignment: |tree: |@PG[[:space:]])'
}

same() {  # same EXPECTED GOT WHAT (either may be a pipe: each is read once)
  normalise "$1" > expected.txt
  normalise "$2" > got.txt
  [ -s expected.txt ] || fail "$3: the run on regular files gave nothing to compare with"
  if ! cmp -s expected.txt got.txt; then
    fail "$3: differs from the run on regular files"
    diff expected.txt got.txt | head -10 >&2
  fi
}

# A FIFO that a background writer fills with the file's bytes.
fifo_of() {  # fifo_of FILE NAME
  rm -f "$2"
  mkfifo "$2"
  cat "$1" > "$2" &
}

# A run whose input ends in a bad record: it fails, and leaves none of the regular output files it was given.
no_output_left() {  # no_output_left WHAT FILE... -- COMMAND...
  local what=$1 files=()
  shift
  while [ "$1" != -- ]; do files+=("$1"); shift; done
  shift
  expect_failure=1
  "$@" > /dev/null 2> err.txt
  local rc=$?
  expect_failure=0
  if [ "$rc" -eq 0 ]; then
    fail "$what: succeeded on a bad input"
  elif ! grep -q ':[0-9]' err.txt; then
    fail "$what: the message names no line: $(cat err.txt)"
  fi
  for f in "${files[@]}"; do
    [ -e "$f" ] && fail "$what: left $f behind"
    [ -e "$f.tmp" ] && fail "$what: left $f.tmp behind"
  done
}

case $tool in
  swsearch)
    sw=$1 makedb=$2 data=$3
    zcat "$data/db.fa.gz" | head -400 > db.fa
    head -8 "$data/queries.fa" > q.fa
    run() { limit "$sw" --backend host --top 5 "$@"; }
    run --query q.fa --db db.fa > file.tsv || fail "swsearch on regular files"
    run --query <(cat q.fa) --db <(cat db.fa) > pipe.tsv
    same file.tsv pipe.tsv "swsearch, process substitution"
    run --query <(head -4 q.fa) --db db.fa > one.tsv
    same <(head -6 file.tsv) one.tsv "swsearch, a short --query pipe"
    run --query q.fa --db <(gzip -c db.fa) > gz.tsv
    same file.tsv gz.tsv "swsearch, gzip through a pipe"
    limit "$makedb" db.fa db.cudpdb 2> /dev/null
    run --query q.fa --db <(cat db.cudpdb) > packed.tsv
    same file.tsv packed.tsv "swsearch, a packed database piped"
    fifo_of q.fa q.fifo
    fifo_of db.fa db.fifo
    run --query q.fifo --db db.fifo > fifo.tsv
    same file.tsv fifo.tsv "swsearch, FIFO inputs"
    run --query - --db db.fa < q.fa > stdin_q.tsv
    same file.tsv stdin_q.tsv "swsearch --query -"
    run --query q.fa --db - < db.fa > stdin_d.tsv
    same file.tsv stdin_d.tsv "swsearch --db -"
    run --query q.fa --db - < db.cudpdb > stdin_packed.tsv
    same file.tsv stdin_packed.tsv "swsearch --db - (packed)"
    run --query q.fa --db db.fa --out /dev/stdout > stdout.tsv
    same file.tsv stdout.tsv "swsearch --out /dev/stdout"
    run --query q.fa --db db.fa --out /dev/stdout | cat > piped.tsv
    same file.tsv piped.tsv "swsearch --out /dev/stdout | cat"
    mkfifo out.fifo
    cat out.fifo > fifo_out.tsv &
    run --query q.fa --db db.fa --out out.fifo || unblock out.fifo
    wait $!
    same file.tsv fifo_out.tsv "swsearch --out FIFO"
    no_output_left "swsearch, bad record at the end of a piped --db" res.tsv -- \
      run --query q.fa --db <(cat db.fa; printf '>bad\nAC1D\n') --out res.tsv
    expect_failure=1
    printf '>bad\nAC1D\n' | run --query - --db db.fa 2>&1 | grep -q '^cudp-swsearch: standard input:2:3: invalid residue' ||
      fail "swsearch --query -: the message does not name standard input and the line"
    expect_failure=0
    ;;
  makedb)
    makedb=$1 data=$2
    zcat "$data/db.fa.gz" | head -400 > db.fa
    limit "$makedb" db.fa file.cudpdb 2> /dev/null || fail "makedb on a regular file"
    limit "$makedb" <(gzip -c db.fa) pipe.cudpdb 2> /dev/null && cmp -s file.cudpdb pipe.cudpdb ||
      fail "makedb, gzip FASTA piped"
    limit "$makedb" db.fa /dev/stdout 2> /dev/null > stdout.cudpdb && cmp -s file.cudpdb stdout.cudpdb ||
      fail "makedb to /dev/stdout"
    limit "$makedb" db.fa /dev/stdout 2> /dev/null | cat > piped.cudpdb && cmp -s file.cudpdb piped.cudpdb ||
      fail "makedb to /dev/stdout | cat"
    no_output_left "makedb, bad record at the end of a piped input" bad.cudpdb -- \
      limit "$makedb" <(cat db.fa; printf '>bad\nAC1D\n') bad.cudpdb
    ;;
  align)
    align=$1 data=$2
    a=$data/align/globins_a.fa b=$data/align/globins_b.fa
    # Pair output names the output file in its header: the formats compared here do not.
    for format in tabular sam; do
      run() { limit "$align" --backend host --format "$format" "$@"; }
      run --query "$a" --target "$b" > file.out || fail "align on regular files"
      # --alphabet auto reads the start of each input before the real read.
      run --query <(cat "$a") --target <(cat "$b") > pipe.out
      same file.out pipe.out "align $format, pipes"
      fifo_of "$a" a.fifo
      fifo_of "$b" b.fifo
      run --query a.fifo --target b.fifo > fifo.out
      same file.out fifo.out "align $format, FIFOs"
      run --query "$a" --target "$b" --out /dev/stdout | cat > stdout.out
      same file.out stdout.out "align --out /dev/stdout"
      rm -f out.fifo
      mkfifo out.fifo
      cat out.fifo > fifo_out.out &
      run --query "$a" --target "$b" --out out.fifo || unblock out.fifo
      wait $!
      same file.out fifo_out.out "align --out FIFO"
    done
    no_output_left "align, bad record at the end of a piped --target" res.out -- \
      limit "$align" --backend host --query "$a" --target <(cat "$b"; printf '>bad\nAC1D\n') --out res.out
    ;;
  phylo)
    phylo=$1 data=$2
    aln=$data/phylo/sim.fa tree=$data/phylo/sim.nwk
    run() { limit "$phylo" evaluate --model HKY --backend host "$@"; }
    run --alignment "$aln" --tree "$tree" --site-lh file.sitelh > file.out || fail "phylo on regular files"
    run --alignment <(gzip -c "$aln") --tree <(cat "$tree") > pipe.out
    same file.out pipe.out "phylo, pipes"
    fifo_of "$aln" a.fifo
    fifo_of "$tree" t.fifo
    run --alignment a.fifo --tree t.fifo > fifo.out
    same file.out fifo.out "phylo, FIFOs"
    # The report, then the site likelihoods, when both go to standard output.
    run --alignment "$aln" --tree "$tree" --site-lh /dev/stdout | cat > both.out
    same <(cat file.out file.sitelh) both.out "phylo --site-lh /dev/stdout"
    mkfifo out.fifo
    cat out.fifo > fifo.sitelh &
    run --alignment "$aln" --tree "$tree" --site-lh out.fifo > /dev/null || unblock out.fifo
    wait $!
    same file.sitelh fifo.sitelh "phylo --site-lh FIFO"
    no_output_left "phylo, a bad tree piped" res.out res.sitelh -- \
      run --alignment "$aln" --tree <(printf '(a,b,(c,d);\n') --out res.out --site-lh res.sitelh
    ;;
  hmmsearch | phmmer | hmmscan)
    program=$1 examples=$2/tutorial
    case $tool in
      hmmsearch) query=$examples/globins4.hmm db=$examples/globins45.fa ;;
      phmmer) query=$examples/HBB_HUMAN db=$examples/globins45.fa ;;
      hmmscan)
        cat "$examples/globins4.hmm" "$examples/fn3.hmm" > models.hmm
        head -40 "$examples/globins45.fa" > seqs.fa
        query=seqs.fa db=models.hmm
        ;;
    esac
    # hmmscan takes <hmmdb> <seqfile>; the others <query> <db>.
    run() {  # run QUERY DB OPTIONS...
      local q=$1 d=$2
      shift 2
      if [ "$tool" = hmmscan ]; then
        limit "$program" --backend host "$@" "$d" "$q"
      else
        limit "$program" --backend host "$@" "$q" "$d"
      fi
    }
    run "$query" "$db" --tblout file.tbl --domtblout file.dom > file.out || fail "$tool on regular files"
    run <(cat "$query") <(cat "$db") --tblout pipe.tbl --domtblout pipe.dom > pipe.out
    same file.out pipe.out "$tool, process substitution (main output)"
    same file.tbl pipe.tbl "$tool, process substitution (--tblout)"
    same file.dom pipe.dom "$tool, process substitution (--domtblout)"
    run <(gzip -c "$query") <(gzip -c "$db") > gz.out
    same file.out gz.out "$tool, gzip through pipes"
    fifo_of "$query" q.fifo
    fifo_of "$db" d.fifo
    run q.fifo d.fifo > fifo.out
    same file.out fifo.out "$tool, FIFO inputs"
    # '-': hmmsearch and phmmer take either input from standard input, hmmscan its sequences.
    if run - "$db" < "$query" > stdin_q.out 2> stdin_q.err; then
    same file.out stdin_q.out "$tool, the query input on standard input"
    else
      fail "$tool, the query input on standard input: $(cat stdin_q.err)"
    fi
    if [ "$tool" != hmmscan ]; then
      run "$query" - < "$db" > stdin_d.out
      same file.out stdin_d.out "$tool, the database on standard input"
    fi
    # Outputs: the main output as the search goes, the tables after it, when they share standard output.
    run "$query" "$db" --tblout /dev/stdout --domtblout /dev/stderr > stdout.out 2> stderr.out
    same <(cat file.out file.tbl) stdout.out "$tool --tblout /dev/stdout"
    same file.dom stderr.out "$tool --domtblout /dev/stderr"
    run "$query" "$db" -o /dev/stdout --tblout /dev/stdout | cat > piped.out
    same <(cat file.out file.tbl) piped.out "$tool -o /dev/stdout --tblout /dev/stdout | cat"
    mkfifo tbl.fifo
    cat tbl.fifo > fifo.tbl &
    run "$query" "$db" -o /dev/null --tblout tbl.fifo || unblock tbl.fifo
    wait $!
    same file.tbl fifo.tbl "$tool --tblout FIFO"
    if [ "$tool" = hmmscan ]; then
      no_output_left "$tool, bad record at the end of piped sequences" res.out res.tbl res.dom -- \
        run <(cat "$query"; printf '>bad\nAC1D\n') "$db" -o res.out --tblout res.tbl --domtblout res.dom
    else
      no_output_left "$tool, bad record at the end of a piped database" res.out res.tbl res.dom -- \
        run "$query" <(cat "$db"; printf '>bad\nAC1D\n') -o res.out --tblout res.tbl --domtblout res.dom
    fi
    ;;
  msa)
    msa=$1 data=$2
    fa=$data/msa/family.fa
    run() { limit "$msa" --backend host "$@"; }
    run "$fa" --guidetree-out file.dnd > file.out || fail "msa on regular files"
    run <(gzip -c "$fa") > pipe.out
    same file.out pipe.out "msa, a gzip pipe"
    run - < "$fa" > stdin.out
    same file.out stdin.out "msa, standard input"
    fifo_of "$fa" a.fifo
    run a.fifo > fifo.out
    same file.out fifo.out "msa, FIFO"
    # The alignment, then the guide tree, when both go to standard output.
    run "$fa" -o /dev/stdout --guidetree-out /dev/stdout | cat > both.out
    same <(cat file.out file.dnd) both.out "msa -o /dev/stdout --guidetree-out /dev/stdout"
    run "$fa" --usetree <(cat file.dnd) > usetree.out
    same file.out usetree.out "msa --usetree from a pipe"
    mkfifo out.fifo
    cat out.fifo > fifo_out.out &
    run "$fa" -o out.fifo || unblock out.fifo
    wait $!
    same file.out fifo_out.out "msa -o FIFO"
    no_output_left "msa, a bad record at the end of a piped input" res.aln res.dnd -- \
      limit "$msa" --backend host <(cat "$fa"; printf '>bad\n123\n') -o res.aln --guidetree-out res.dnd
    ;;
  *)
    echo "streams.sh: unknown tool '$tool'" >&2
    exit 2
    ;;
esac

if [ "$failures" -ne 0 ]; then
  echo "streams.sh $tool: $failures failure(s)" >&2
  exit 1
fi
echo "streams.sh $tool: ok"
