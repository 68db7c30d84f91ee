#!/usr/bin/env bash
# One long DNA pair on the host threads (issue 53): cudp-align's binaries side by side (before and after a change),
# every mode, --format score and pair, --threads 1 and 2 (THREADS), then EMBOSS on the same pair, single-threaded
# and in linear space: stretcher (global) and matcher (local, its best alignment only). The pair
# is LENGTH random bases (fixed seed) and a mutated copy: 8% substitutions, 1% insertions and 1% deletions of 1-6
# bases. Scoring: cudp-align's DNA defaults (+2/-3, a gap of k costing 5 + 2k), EMBOSS with a +2/-3 matrix file,
# -gapopen 7 -gapextend 2. Rows of a markdown table on standard output, wall seconds. MODES, FORMATS and EMBOSS=0
# narrow the run.
#
#   bench/align_long_pair.sh BEFORE/cudp-align AFTER/cudp-align
set -uo pipefail
LENGTH=${LENGTH:-60000}
THREADS=${THREADS:-"1 2"}
MODES=${MODES:-"global local semiglobal"}
FORMATS=${FORMATS:-"score pair"}
EMBOSS=${EMBOSS:-1}
data=${DATA:-/tmp/align-long-pair}
mkdir -p "$data"
python3 - "$LENGTH" "$data" <<'EOF'
import random, sys
n, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(53)
a = [rng.choice("ACGT") for _ in range(n)]
b, i = [], 0
while i < n:
    r = rng.random()
    if r < 0.08: b.append(rng.choice([c for c in "ACGT" if c != a[i]])); i += 1
    elif r < 0.09: b.extend(rng.choice("ACGT") for _ in range(rng.randint(1, 6)))
    elif r < 0.10: i += rng.randint(1, 6)
    else: b.append(a[i]); i += 1
for name, s in (("long_a", a), ("long_b", b)):
    with open("%s/%s.fa" % (out, name[-1]), "w") as f:
        f.write(">%s\n" % name + "".join("".join(s[k:k + 60]) + "\n" for k in range(0, len(s), 60)))
EOF
printf '# +2/-3\n   A  C  G  T  N  *\nA  2 -3 -3 -3 -3 -3\nC -3  2 -3 -3 -3 -3\nG -3 -3  2 -3 -3 -3\nT -3 -3 -3  2 -3 -3\nN -3 -3 -3 -3 -3 -3\n* -3 -3 -3 -3 -3  1\n' \
  >"$data/EDNA23"
# On a shared machine, each run waits (up to QUIET_WAIT seconds, default 300) for a second in which the CPUs are at
# least 90% idle, so that a thread count is timed on the cores it asks for; 0 turns the wait off.
quiet() {
  local waited=0 a b
  while [ "$waited" -lt "${QUIET_WAIT:-300}" ]; do
    a=($(head -1 /proc/stat)); sleep 1; b=($(head -1 /proc/stat))
    local idle=$(( (b[4] + b[5]) - (a[4] + a[5]) )) total=0
    for k in 1 2 3 4 5 6 7 8; do total=$(( total + b[k] - a[k] )); done
    [ "$total" -gt 0 ] && [ $(( 100 * idle / total )) -ge 90 ] && return 0
    waited=$((waited + 1))
  done
  echo "(no quiet second in ${QUIET_WAIT:-300} s)" >&2
}
seconds() { python3 -c "print('%.2f' % (($(date +%s%N) - $1) / 1e9))"; }
echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| mode | format | threads | binary | wall s | cpu s | score |"
echo "|---|---|---|---|---|---|---|"
# The binaries take turns on each point, REPEATS times (default 2), so that a change in the machine's load falls on
# all alike; the fastest run of each is kept.
REPEATS=${REPEATS:-2}
for mode in $MODES; do
  for format in $FORMATS; do
    for threads in $THREADS; do
      declare -A best=() cpu=()
      for ((r = 0; r < REPEATS; ++r)); do
        b=0
        for bin in "$@"; do
          b=$((b + 1))
          out="$data/out.$mode.$threads.$b.$format"
          quiet
          /usr/bin/time -f "%e %U %S" -o "$data/time" "$bin" --query "$data/a.fa" --target "$data/b.fa" \
            --mode "$mode" --format "$format" --threads "$threads" --out "$out" 2>"$data/stderr" || continue
          read -r wall user sys <"$data/time"
          if [ -z "${best[$b]:-}" ] || python3 -c "import sys; sys.exit(0 if $wall < ${best[$b]} else 1)"; then
            best[$b]=$wall
            cpu[$b]=$(python3 -c "print('%.2f' % ($user + $sys))")
          fi
        done
      done
      b=0
      for bin in "$@"; do
        b=$((b + 1))
        out="$data/out.$mode.$threads.$b.$format"
        if [ -z "${best[$b]:-}" ]; then echo "| $mode | $format | $threads | $bin | failed | | |"; continue; fi
        if [ "$format" = score ]; then score=$(cut -f3 "$out"); else score=$(grep -m1 '# Score' "$out" | awk '{print $3}'); fi
        echo "| $mode | $format | $threads | $bin | ${best[$b]} | ${cpu[$b]} | $score |"
      done
      unset best cpu
    done
  done
done
# Every binary and thread count must print the same records (the pair format's header names the command line).
for mode in $MODES; do
  for format in $FORMATS; do
    sums=$(for f in "$data"/out.$mode.*.$format; do sed -n '/^# Aligned_sequences/,$p;/^long_a\t/p' "$f" | md5sum; done | sort -u | wc -l)
    echo "$mode $format: $([ "$sums" = 1 ] && echo "the same output from every binary and thread count" || echo "OUTPUTS DIFFER")"
  done
done
emboss() {  # TOOL ARGS...: one EMBOSS run, 16 GiB of memory at most
  local tool=$1 start score
  shift
  quiet
  start=$(date +%s%N)
  if (ulimit -v $((16 << 20)); "$tool" -asequence "$data/a.fa" -bsequence "$data/b.fa" -datafile "$data/EDNA23" \
      -gapopen 7 -gapextend 2 -outfile "$data/$tool.out" -auto "$@" >"$data/$tool.log" 2>&1); then
    score=$(grep -m1 '# Score' "$data/$tool.out" | awk '{print $3}')
    echo "| | pair | 1 | $tool $* | $(seconds "$start") | | $score |"
  else
    echo "| | pair | 1 | $tool $* | failed after $(seconds "$start") s: $(tail -c 150 "$data/$tool.log" | tr '\n|' '  ') | | |"
  fi
}
if [ "$EMBOSS" = 1 ]; then
  emboss stretcher
  emboss matcher -alternatives 1
fi
# needle and water refuse such a pair after filling about 14 GiB ("Sequences too big"): tried on request only.
if [ -n "${EMBOSS_FULL_MATRIX:-}" ]; then
  emboss needle -endweight -endopen 7 -endextend 2
  emboss water
fi
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
